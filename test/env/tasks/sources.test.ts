import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Intent, Task } from '../../../protocol/domain.js';
import { GeneratorTaskSource, JsonlTaskSource, generateTask } from '../../../env/tasks/index.js';

const TASKS: Task[] = [
  generateTask(1, 'zh-CN', { intent: 'product_qa' }),
  generateTask(2, 'zh-CN', { intent: 'chitchat' }),
  generateTask(3, 'zh-CN', { intent: 'product_qa', split: 'eval' }),
  generateTask(4, 'en', { intent: 'product_qa' }),
  generateTask(5, 'zh-CN', { intent: 'product_qa' }),
];
const GOOD = TASKS.map((t) => JSON.stringify(t)).join('\n') + '\n\n';

function load(text: string): JsonlTaskSource {
  const r = JsonlTaskSource.parse(text, 'mem');
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.source;
}

describe('GeneratorTaskSource', () => {
  const src = new GeneratorTaskSource();

  it('picks the generated task for the seed, locale and selector', () => {
    expect(src.pick(42, {}, 'en')).toEqual({ ok: true, task: generateTask(42, 'en') });
    expect(src.pick(42, { intent: 'marketing', split: 'eval' }, 'zh-CN')).toEqual({
      ok: true,
      task: generateTask(42, 'zh-CN', { intent: 'marketing', split: 'eval' }),
    });
  });

  it('regenerates a task from its id, whatever seed and locale the request carries', () => {
    const task = generateTask(77, 'en', { intent: 'after_sales', split: 'eval' });
    expect(src.pick(1, { id: task.id }, 'zh-CN')).toEqual({ ok: true, task });
  });

  it('reports an id it cannot parse as UNKNOWN_TASK and a bad intent or split as INVALID_MESSAGE', () => {
    const unknown = src.pick(1, { id: 'nope' }, 'zh-CN');
    expect(unknown.ok ? null : unknown.code).toBe('UNKNOWN_TASK');
    const badIntent = src.pick(1, { intent: 'dancing' as Intent }, 'zh-CN');
    expect(badIntent.ok ? null : badIntent.code).toBe('INVALID_MESSAGE');
    const badSplit = src.pick(1, { split: 'test' as never }, 'zh-CN');
    expect(badSplit.ok ? null : badSplit.code).toBe('INVALID_MESSAGE');
  });
});

describe('JsonlTaskSource', () => {
  it('loads a good file, skipping blank lines, and picks by id', () => {
    const src = load(GOOD);
    expect(src.size).toBe(5);
    expect(src.tasks()).toEqual(TASKS);
    expect(src.pick(0, { id: TASKS[3].id }, 'zh-CN')).toEqual({ ok: true, task: TASKS[3] });
  });

  it('picks the (seed mod count)-th task among those matching intent, split and locale', () => {
    const src = load(GOOD);
    // zh-CN product_qa train tasks, in file order: TASKS[0], TASKS[4].
    expect(src.pick(0, { intent: 'product_qa', split: 'train' }, 'zh-CN')).toEqual({ ok: true, task: TASKS[0] });
    expect(src.pick(1, { intent: 'product_qa', split: 'train' }, 'zh-CN')).toEqual({ ok: true, task: TASKS[4] });
    expect(src.pick(2, { intent: 'product_qa', split: 'train' }, 'zh-CN')).toEqual({ ok: true, task: TASKS[0] });
    expect(src.pick(-1, { intent: 'product_qa', split: 'train' }, 'zh-CN')).toEqual({ ok: true, task: TASKS[4] });
    expect(src.pick(7, { split: 'eval' }, 'zh-CN')).toEqual({ ok: true, task: TASKS[2] });
    expect(src.pick(3, {}, 'en')).toEqual({ ok: true, task: TASKS[3] });
  });

  it('answers UNKNOWN_TASK for an unknown id or when nothing matches', () => {
    const src = load(GOOD);
    const byId = src.pick(0, { id: 'missing' }, 'zh-CN');
    expect(byId.ok ? null : byId.code).toBe('UNKNOWN_TASK');
    const none = src.pick(0, { intent: 'handoff' }, 'zh-CN');
    expect(none.ok ? null : none.code).toBe('UNKNOWN_TASK');
  });

  it('reports a line that is not JSON, naming the line', () => {
    const lines = GOOD.split('\n');
    lines.splice(2, 0, '{"id": "broken", ');
    const r = JsonlTaskSource.parse(lines.join('\n'), 'mem');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.line)).toEqual([3]);
    expect(r.errors[0].message).toMatch(/^line 3: invalid JSON/);
  });

  it('reports schema-invalid lines with the line and the key path', () => {
    const badFact = structuredClone(TASKS[1]);
    badFact.answer_key.required_facts = [{ key: 'x', values: [] }];
    const badIntent = { ...TASKS[0], intent: 'Dancing!' };
    const { messages: _dropped, ...noMessages } = TASKS[4];
    const text = [JSON.stringify(TASKS[0]), JSON.stringify(badFact), JSON.stringify(badIntent), '', JSON.stringify(noMessages)].join('\n');
    const r = JsonlTaskSource.parse(text, 'mem');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.line)).toEqual([2, 3, 5]);
    expect(r.errors[0].message).toContain('answer_key.required_facts.0.values');
    expect(r.errors[1].message).toContain('intent');
    expect(r.errors[2].message).toContain('messages');
  });

  it('rejects unknown keys and duplicate ids', () => {
    const extra = { ...TASKS[0], surprise: 1 };
    const r = JsonlTaskSource.parse([JSON.stringify(extra), JSON.stringify(TASKS[1]), JSON.stringify(TASKS[1])].join('\n'), 'mem');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.line)).toEqual([1, 3]);
    expect(r.errors[1].message).toContain('duplicate task id');
  });

  it('reads a file, and reports a missing file as an error value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-'));
    const path = join(dir, 'tasks.jsonl');
    writeFileSync(path, GOOD);
    const r = JsonlTaskSource.fromFile(path);
    expect(r.ok && r.source.tasks()).toEqual(TASKS);
    expect(r.ok && r.source.name).toBe(`jsonl:${path}`);
    const missing = JsonlTaskSource.fromFile(join(dir, 'none.jsonl'));
    expect(missing.ok).toBe(false);
  });

  it('rejects an empty file', () => {
    const r = JsonlTaskSource.parse('\n \n', 'mem');
    expect(r.ok).toBe(false);
  });
});
