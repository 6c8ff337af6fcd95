/**
 * Task files (`serve --tasks FILE`, `eval --tasks FILE`, config key `tasks`): JSONL tasks, checked against
 * the harness at start-up with file and line (skills and tools the answer key names, the reply limit,
 * duplicate ids across files), then served: resets pick among them by id or by seed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonlTaskSource, generateTask } from '../../env/index.js';
import { embeddedHarness } from '../../harness/index.js';
import type { Task } from '../../protocol/domain.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { EXIT } from '../../cli/errors.js';
import { connect, testConfig } from '../server/helpers.js';
import { cli, expectFailure } from '../cli/helpers.js';

const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
});

const dir = mkdtempSync(join(tmpdir(), 'hg-tasks-'));
const zh = embeddedHarness().get('zh-CN');

/** Tasks as a team would export them from its logs: generated ones, renamed. */
function tasks(prefix: string, seeds: number[]): Task[] {
  return seeds.map((s, i) => ({ ...generateTask(s, 'zh-CN'), id: `${prefix}-${i + 1}` }));
}

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return path;
}

describe('task files', () => {
  it('load from several files into one source, checked against the harness', () => {
    const a = file('a.jsonl', tasks('logs-a', [1, 2, 3]));
    const b = file('b.jsonl', ['', ...tasks('logs-b', [4, 5])]);
    const r = JsonlTaskSource.fromFiles([a, b], zh);
    expect(r.ok && r.source.tasks().map((t) => t.id)).toEqual(['logs-a-1', 'logs-a-2', 'logs-a-3', 'logs-b-1', 'logs-b-2']);
  });

  it('report every error with its file and line', () => {
    const [t1, t2, t3] = tasks('bad', [1, 2, 3]);
    const unknownSkill = { ...t1, answer_key: { ...t1.answer_key, reply_skills: ['product-answers'] } };
    const unknownTool = { ...t2, answer_key: { ...t2.answer_key, optional_tools: ['get_weather'] } };
    const long = { ...t3, answer_key: { ...t3.answer_key, reference_reply: '好'.repeat(130) } };
    const a = file('bad-a.jsonl', [unknownSkill, '{"id": ', unknownTool]);
    const b = file('bad-b.jsonl', [long, { ...t3, id: 'bad-2' }]);
    const r = JsonlTaskSource.fromFiles([a, b, join(dir, 'none.jsonl')], zh);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.replace(/\(.*\)$/, '(…)'))).toEqual([
      `${a}:2: invalid JSON (…)`,
      `${b}:1: answer_key.reference_reply: 130 characters, over the harness's reply limit (…)`,
      `${join(dir, 'none.jsonl')}: cannot read (…)`,
    ]);
    // A file with a syntax error is reported alone; fixed, its harness errors are listed, and an id that a
    // later file repeats is a duplicate.
    const fixed = file('bad-a2.jsonl', [unknownSkill, unknownTool]);
    const again = JsonlTaskSource.fromFiles([fixed, b], zh);
    expect(again.ok === false && again.errors).toEqual([
      `${fixed}:1: answer_key.reply_skills.0: "product-answers" is not a reply skill of the harness`,
      `${fixed}:2: answer_key.optional_tools.0: "get_weather" is not a tool of the harness`,
      `${b}:1: answer_key.reference_reply: 130 characters, over the harness's reply limit (120)`,
      `${b}:2: id: duplicate task id "bad-2" (first at ${fixed}:2)`,
    ]);
  });

  it('are what a server serves: by id, and by seed among the matching tasks, in-process and on a worker', async () => {
    const path = file('serve.jsonl', tasks('served', [11, 12, 13]));
    for (const workers of [0, 1]) {
      const app = buildServer(testConfig({ workers, tasks: [path] }));
      apps.push(app);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const c = await connect(url);
      await c.hello({ seed: 1 });
      const r = await c.request({
        type: 'reset',
        id: 2,
        items: [
          { episode_id: 'by-id', task: { id: 'served-2' } },
          ...[0, 1, 2, 3].map((s) => ({ episode_id: `seed-${s}`, seed: s })),
          { episode_id: 'gen', task: { id: 'gen-train-zh-CN-5-product_qa' } },
        ],
      });
      expect(r.items.map((x: { ok: boolean; info?: { task_id: string }; error?: { code: string } }) => (x.ok ? x.info?.task_id : x.error?.code))).toEqual([
        'served-2',
        'served-1',
        'served-2',
        'served-3',
        'served-1',
        'UNKNOWN_TASK',
      ]);
      c.ws.close();
    }
  }, 30_000);

  it('serve and eval take --tasks; a bad file is one line and exit 4', async () => {
    const good = file('cli.jsonl', tasks('cli', [21, 22, 23, 24]));
    const bad = file('cli-bad.jsonl', ['{"id": 1}']);
    const [ok, refused, serveBad] = await Promise.all([
      cli(['eval', '--tasks', good, '--episodes', '8', '--json']),
      cli(['eval', '--tasks', bad, '--episodes', '1']),
      cli(['serve', '--tasks', bad, '--port', '0']),
    ]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ episodes: 8, reward: { mean: 1 } });
    expect(expectFailure(refused, EXIT.files, 'eval')).toMatch(new RegExp(`^harness-gym eval: --tasks: ${bad}:1: `));
    expect(expectFailure(serveBad, EXIT.files, 'serve')).toMatch(new RegExp(`^harness-gym serve: --tasks: ${bad}:1: `));
  }, 60_000);
});
