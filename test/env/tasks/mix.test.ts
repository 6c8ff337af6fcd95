/**
 * Task splits and the traffic mix (env/tasks/mix.ts, issue 37): a mix is checked and normalised, draws the
 * intents it weighs and no other, in the proportions it gives; the production mix (given or not) draws
 * exactly the generator's own intents; `all` draws each episode's split from its seed; and a reset that
 * names no split or intent gets the config's defaults.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Intent } from '../../../protocol/domain.js';
import { INTENTS } from '../../../protocol/domain.js';
import {
  GeneratorTaskSource,
  INTENT_WEIGHTS,
  JsonlTaskSource,
  PRODUCTION_MIX,
  generateTask,
  mixIntent,
  mixLabel,
  mixShares,
  parseMix,
  parseMixText,
  sampleIntent,
  taskSplitFor,
} from '../../../env/tasks/index.js';
import type { IntentMix } from '../../../env/tasks/index.js';
import { DEFAULT_DEFAULTS, defaultEnvConfig, resolveTask, taskDefaultProblems } from '../../../env/index.js';
import type { EnvConfig } from '../../../env/index.js';
import { loadHarnessDir } from '../../../harness/index.js';
import { writeMiniHarness } from '../../harness/mini-harness.js';

function mixOf(text: string): IntentMix {
  const r = parseMixText(text);
  if (!r.ok) throw new Error(r.message);
  return r.mix;
}

/** Shares of each intent among the tasks of `n` seeds from 1. */
function shares(config: EnvConfig, n: number, split: 'train' | 'eval' = 'train', locale: 'zh-CN' | 'en' = 'zh-CN'): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let seed = 1; seed <= n; seed++) {
    const r = resolveTask(config, { episode_id: 'x', seed, task: { split } }, locale);
    if (!r.ok) throw new Error(r.error.message);
    counts[r.task.intent] = (counts[r.task.intent] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
}

function withDefaults(config: EnvConfig, d: Partial<EnvConfig['defaults']>): EnvConfig {
  return { ...config, defaults: { ...config.defaults, ...d } };
}

describe('parseMix', () => {
  it('normalises the weights, in the production order, with 0 for intents left out', () => {
    const r = parseMix({ chitchat: 3, product_qa: 1 });
    expect(r).toEqual({
      ok: true,
      mix: { product_qa: 0.25, chitchat: 0.75, clarification: 0, after_sales: 0, purchase: 0, marketing: 0, multi_intent: 0, risky: 0, whitelist: 0, handoff: 0 },
    });
    expect(r.ok && Object.keys(r.mix)).toEqual(Object.keys(INTENT_WEIGHTS));
    expect(r.ok && Object.isFrozen(r.mix)).toBe(true);
    expect(mixShares(r.ok ? r.mix : undefined)).toEqual({ product_qa: 0.25, chitchat: 0.75 });
    expect(mixLabel(r.ok ? r.mix : undefined)).toBe('product_qa=0.25,chitchat=0.75');
  });

  it('is the production mix itself when its shares are the production ones, at any scale', () => {
    expect(parseMix({ ...INTENT_WEIGHTS })).toEqual({ ok: true, mix: PRODUCTION_MIX });
    expect(parseMix(Object.fromEntries(Object.entries(INTENT_WEIGHTS).map(([k, v]) => [k, Math.round(v * 100)])))).toEqual({ ok: true, mix: PRODUCTION_MIX });
    expect(parseMixText('production')).toEqual({ ok: true, mix: PRODUCTION_MIX });
    expect(mixLabel(PRODUCTION_MIX)).toBe('production');
    expect(mixLabel(undefined)).toBe('production');
  });

  it('rejects every bad input with one line naming what is wrong', () => {
    expect(parseMix({ chitchta: 1 })).toEqual({
      ok: false,
      message: `unknown intent "chitchta" (did you mean chitchat?); intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)`,
    });
    expect(parseMix({ 'Restock-Alert': 1 })).toEqual({ ok: false, message: `unknown intent "Restock-Alert"; intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)` });
    expect(parseMix({ chitchat: -1 })).toEqual({ ok: false, message: 'the weight of chitchat must be a finite number >= 0, got -1' });
    expect(parseMix({ chitchat: 'a lot' })).toEqual({ ok: false, message: 'the weight of chitchat must be a finite number >= 0, got "a lot"' });
    expect(parseMix({ chitchat: Infinity })).toEqual({ ok: false, message: 'the weight of chitchat must be a finite number >= 0, got Infinity' });
    expect(parseMix({ chitchat: 0, risky: 0 })).toEqual({
      ok: false,
      message: 'every weight is 0 (or none is given): give at least one intent a positive weight, e.g. product_qa=0.5,chitchat=0.5',
    });
    expect(parseMix({})).toEqual({
      ok: false,
      message: 'every weight is 0 (or none is given): give at least one intent a positive weight, e.g. product_qa=0.5,chitchat=0.5',
    });
    expect(parseMix([1, 2])).toEqual({ ok: false, message: 'a mix must be a map of intent to weight, such as {product_qa: 0.5, chitchat: 0.5}, got an array' });
    expect(parseMixText('chitchat')).toEqual({ ok: false, message: '"chitchat" is not intent=weight; write the mix as product_qa=0.5,chitchat=0.5' });
    expect(parseMixText('chitchat=1,chitchat=2')).toEqual({ ok: false, message: 'chitchat is given twice' });
    expect(parseMixText('chitchat=x')).toEqual({ ok: false, message: 'the weight of chitchat must be a finite number >= 0, got "x"' });
  });
});

describe('mixIntent', () => {
  it('without a mix (or with the production one) is the generator own draw', () => {
    for (let seed = 0; seed < 2000; seed++) {
      expect(mixIntent(seed, INTENTS)).toBe(sampleIntent(seed));
      expect(mixIntent(seed, INTENTS, PRODUCTION_MIX)).toBe(sampleIntent(seed));
    }
  });

  it('never draws an intent of weight 0 or one not served; undefined when nothing is left', () => {
    const mix = mixOf('chitchat=1,risky=1');
    const seen = new Set<Intent | undefined>();
    for (let seed = 0; seed < 500; seed++) seen.add(mixIntent(seed, INTENTS, mix));
    expect([...seen].sort()).toEqual(['chitchat', 'risky']);
    for (let seed = 0; seed < 200; seed++) expect(mixIntent(seed, ['chitchat', 'product_qa'], mix)).toBe('chitchat');
    expect(mixIntent(1, ['product_qa'], mix)).toBeUndefined();
  });
});

describe('taskSplitFor', () => {
  it('names train and eval as given, and draws all from the seed: about half each, the same every time', () => {
    expect(taskSplitFor(5, 'train')).toBe('train');
    expect(taskSplitFor(5, 'eval')).toBe('eval');
    let evals = 0;
    for (let seed = 0; seed < 4000; seed++) {
      const s = taskSplitFor(seed, 'all');
      expect(taskSplitFor(seed, 'all')).toBe(s);
      if (s === 'eval') evals++;
    }
    expect(Math.abs(evals / 4000 - 0.5)).toBeLessThan(0.03);
  });
});

describe('resets with task defaults (resolveTask)', () => {
  const base = defaultEnvConfig();

  it('the default path is the generator task of the seed, train split, production mix', () => {
    for (let seed = 0; seed < 200; seed++) {
      expect(resolveTask(base, { episode_id: 'x', seed }, 'zh-CN')).toEqual({ ok: true, task: generateTask(seed, 'zh-CN') });
      // The production mix given explicitly draws the same tasks.
      const explicit = withDefaults(base, { task_mix: mixOf('production') });
      expect(resolveTask(explicit, { episode_id: 'x', seed }, 'en')).toEqual({ ok: true, task: generateTask(seed, 'en') });
    }
  });

  it('defaults.task_split: eval serves held-out tasks, all draws each seed its split; a selector split wins', () => {
    const evalCfg = withDefaults(base, { task_split: 'eval' });
    const all = withDefaults(base, { task_split: 'all' });
    const splits = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const e = resolveTask(evalCfg, { episode_id: 'x', seed }, 'zh-CN');
      expect(e).toEqual({ ok: true, task: generateTask(seed, 'zh-CN', { split: 'eval' }) });
      expect(e.ok && e.task.id).toMatch(/^gen-eval-zh-CN-/);
      const a = resolveTask(all, { episode_id: 'x', seed }, 'en');
      expect(a).toEqual({ ok: true, task: generateTask(seed, 'en', { split: taskSplitFor(seed, 'all') }) });
      splits.add(a.ok ? a.task.split : '?');
      expect(resolveTask(evalCfg, { episode_id: 'x', seed, task: { split: 'train' } }, 'zh-CN')).toEqual({ ok: true, task: generateTask(seed, 'zh-CN') });
    }
    expect([...splits].sort()).toEqual(['eval', 'train']);
  });

  it('a mix of chitchat alone serves only chitchat; a forced intent or a task id is untouched by it', () => {
    const cfg = withDefaults(base, { task_mix: mixOf('chitchat=1') });
    for (let seed = 0; seed < 300; seed++) {
      const r = resolveTask(cfg, { episode_id: 'x', seed }, 'zh-CN');
      expect(r).toEqual({ ok: true, task: generateTask(seed, 'zh-CN', { intent: 'chitchat' }) });
    }
    expect(resolveTask(cfg, { episode_id: 'x', seed: 3, task: { intent: 'risky' } }, 'zh-CN')).toEqual({
      ok: true,
      task: generateTask(3, 'zh-CN', { intent: 'risky' }),
    });
    const id = generateTask(9, 'en', { intent: 'purchase', split: 'eval' }).id;
    const byId = resolveTask(cfg, { episode_id: 'x', seed: 1, task: { id } }, 'zh-CN');
    expect(byId.ok && byId.task.id).toBe(id);
  });

  it('measured shares are within 0.025 of the configured weights over 4,000 seeds, per split and locale', () => {
    const mix = mixOf('product_qa=0.5,chitchat=0.3,after_sales=0.2');
    const cfg = withDefaults(base, { task_mix: mix });
    for (const [split, locale] of [['train', 'zh-CN'], ['eval', 'en']] as const) {
      const got = shares(cfg, 4000, split, locale);
      expect(Object.keys(got).sort()).toEqual(['after_sales', 'chitchat', 'product_qa']);
      for (const [intent, w] of Object.entries({ product_qa: 0.5, chitchat: 0.3, after_sales: 0.2 })) expect(Math.abs((got[intent] ?? 0) - w)).toBeLessThan(0.025);
    }
    // The production mix within the same tolerance.
    const prod = shares(base, 4000);
    for (const [intent, w] of Object.entries(INTENT_WEIGHTS)) expect(Math.abs((prod[intent] ?? 0) - w)).toBeLessThan(0.025);
  });

  it('task files: a mix draws among the intents the file has, then the seed-th task of the drawn one', () => {
    const tasks = [
      generateTask(1, 'zh-CN', { intent: 'product_qa' }),
      generateTask(2, 'zh-CN', { intent: 'chitchat' }),
      generateTask(3, 'zh-CN', { intent: 'chitchat' }),
      generateTask(4, 'zh-CN', { intent: 'product_qa', split: 'eval' }),
    ];
    const loaded = JsonlTaskSource.parse(tasks.map((t) => JSON.stringify(t)).join('\n'), 'mem');
    if (!loaded.ok) throw new Error('bad file');
    const files = defaultEnvConfig({ taskSource: loaded.source });
    // Without a mix: the seed-th train task of any intent (the default split is train now).
    expect(resolveTask(files, { episode_id: 'x', seed: 1 }, 'zh-CN')).toEqual({ ok: true, task: tasks[1] });
    const chat = withDefaults(files, { task_mix: mixOf('chitchat=1') });
    expect(resolveTask(chat, { episode_id: 'x', seed: 0 }, 'zh-CN')).toEqual({ ok: true, task: tasks[1] });
    expect(resolveTask(chat, { episode_id: 'x', seed: 1 }, 'zh-CN')).toEqual({ ok: true, task: tasks[2] });
    const held = withDefaults(files, { task_split: 'eval' });
    expect(resolveTask(held, { episode_id: 'x', seed: 7 }, 'zh-CN')).toEqual({ ok: true, task: tasks[3] });
    const risky = withDefaults(files, { task_mix: mixOf('risky=1') });
    expect(resolveTask(risky, { episode_id: 'x', seed: 0 }, 'zh-CN')).toEqual({
      ok: false,
      error: {
        code: 'UNKNOWN_TASK',
        message: 'the task mix gives weight only to risky, and jsonl:mem in locale zh-CN, split train serves none of them (it serves product_qa, chitchat)',
      },
    });
    expect(taskDefaultProblems(risky)).toEqual([
      'defaults.task_mix: gives weight only to risky, and jsonl:mem serves none of them in locale zh-CN, split train (it serves product_qa, chitchat)',
    ]);
    // A snake_case key parses as a harness's own intent; where nothing has it, start-up names it.
    expect(taskDefaultProblems(withDefaults(files, { task_mix: mixOf('product_qa=1,restock_alert=1') }))).toEqual([
      'defaults.task_mix: unknown intent "restock_alert": jsonl:mem has no such intent (intents: product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff)',
    ]);
    // A split the file has no task of in a locale it serves (checked when asked: the default is not a choice).
    expect(taskDefaultProblems(withDefaults(files, { task_split: 'all' }), { split: true })).toEqual([]);
    const evalOnly = JsonlTaskSource.parse(JSON.stringify(tasks[3]), 'held');
    if (!evalOnly.ok) throw new Error('bad file');
    expect(taskDefaultProblems(defaultEnvConfig({ taskSource: evalOnly.source }), { split: true })).toEqual([
      'defaults.task_split: train, but jsonl:held has no train task in locale zh-CN (it has eval tasks); give task split eval',
    ]);
    expect(taskDefaultProblems(defaultEnvConfig({ taskSource: evalOnly.source }))).toEqual([]);
  });

  it("a harness's own intents: a mix draws among those it serves, generated and from its task files", () => {
    const dir = writeMiniHarness(mkdtempSync(join(tmpdir(), 'hg-mix-mini-')));
    const loaded = loadHarnessDir(dir);
    if (!loaded.ok) throw new Error(loaded.errors.join('; '));
    const mini = defaultEnvConfig({ harness: loaded.harness });
    expect((mini.taskSource as GeneratorTaskSource).served('zh-CN', 'train')).toEqual(['product_qa', 'chitchat']);
    const chat = withDefaults(mini, { task_mix: mixOf('chitchat=1,risky=5') });
    for (let seed = 0; seed < 20; seed++) {
      const r = resolveTask(chat, { episode_id: 'x', seed }, 'en');
      expect(r.ok && r.task.id).toBe('mini-greet-en-train');
    }
    const evalChat = withDefaults(chat, { task_split: 'eval' });
    const r = resolveTask(evalChat, { episode_id: 'x', seed: 4 }, 'zh-CN');
    expect(r.ok && r.task.id).toBe('mini-greet-zh-eval');
    const none = withDefaults(mini, { task_mix: mixOf('handoff=1') });
    expect(resolveTask(none, { episode_id: 'x', seed: 1 }, 'zh-CN')).toEqual({
      ok: false,
      error: {
        code: 'UNKNOWN_TASK',
        message: 'the task mix gives weight only to handoff, and harness "mini-shop" in locale zh-CN, split train serves none of them (it serves product_qa, chitchat)',
      },
    });
    expect(taskDefaultProblems(none)).toEqual([
      'defaults.task_mix: gives weight only to handoff, and harness "mini-shop" serves none of them in locale zh-CN, split train (it serves product_qa, chitchat)',
      'defaults.task_mix: gives weight only to handoff, and harness "mini-shop" serves none of them in locale en, split train (it serves product_qa, chitchat)',
    ]);
    // Shares among the served intents keep the mix's proportions.
    const half = withDefaults(mini, { task_mix: mixOf('product_qa=1,chitchat=1,risky=8') });
    const got = shares(half, 2000);
    expect(Object.keys(got).sort()).toEqual(['chitchat', 'product_qa']);
    expect(Math.abs((got.chitchat ?? 0) - 0.5)).toBeLessThan(0.035);
  });

  it('DEFAULT_DEFAULTS name the train split and no mix', () => {
    expect(DEFAULT_DEFAULTS.task_split).toBe('train');
    expect(DEFAULT_DEFAULTS.task_mix).toBeUndefined();
  });
});
