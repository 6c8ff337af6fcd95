/**
 * `harness-gym mix` (issue 37): the intent and sub-kind shares of the tasks resets without an intent get,
 * per locale and task split, beside the weights and the report's Table 1; what it prints is what the
 * tasks are (counted here by resolving the same resets), and a mix given to it is the mix measured.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTENTS } from '../../protocol/domain.js';
import { INTENT_WEIGHTS, defaultEnvConfig, resolveTask } from '../../env/index.js';
import { measureMix } from '../../eval/mix.js';
import { EXIT } from '../../cli/errors.js';
import { ROOT, cli, expectFailure } from './helpers.js';

describe('harness-gym mix', () => {
  it('--json is the measurement: every column counts the tasks resets of those seeds get', async () => {
    const r = await cli(['mix', '--seeds', '300', '--json']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(JSON.stringify(measureMix({ seeds: 300, seed: 1, locales: ['zh-CN', 'en'], splits: ['train', 'eval'] })) + '\n');
    const report = JSON.parse(r.stdout);
    expect(report.weights).toEqual({ ...INTENT_WEIGHTS });
    expect(report.report).toEqual({ product_qa: 0.46, chitchat: 0.19, clarification: 0.16, after_sales: 0.07 });
    expect(report.columns.map((c: { locale: string; split: string }) => `${c.locale} ${c.split}`)).toEqual(['zh-CN train', 'zh-CN eval', 'en train', 'en eval']);
    const config = defaultEnvConfig();
    for (const c of report.columns) {
      const counts: Record<string, number> = {};
      for (let seed = 1; seed <= 300; seed++) {
        const t = resolveTask(config, { episode_id: 'x', seed, task: { split: c.split } }, c.locale);
        if (t.ok) counts[t.task.intent] = (counts[t.task.intent] ?? 0) + 1;
      }
      expect(Object.fromEntries(INTENTS.map((i) => [i, c.intents[i].n]))).toEqual(Object.fromEntries(INTENTS.map((i) => [i, counts[i] ?? 0])));
      expect([c.tasks, c.failed]).toEqual([300, 0]);
      // The sub-kinds of an intent add up to its tasks.
      for (const [intent, kinds] of Object.entries(c.sub_kinds as Record<string, Record<string, { n: number }>>)) {
        expect(Object.values(kinds).reduce((a, k) => a + k.n, 0)).toBe(c.intents[intent].n);
      }
    }
  }, 60_000);

  it('a mix given is the mix measured; the table form', async () => {
    const [only, table] = await Promise.all([
      cli(['mix', '--seeds', '200', '--mix', 'chitchat=1', '--splits', 'eval', '--locales', 'en', '--json']),
      cli(['mix', '--seeds', '200', '--mix', 'chitchat=1,after_sales=1', '--locales', 'zh-CN', '--sub-kinds']),
    ]);
    expect([only.status, table.status]).toEqual([0, 0]);
    const o = JSON.parse(only.stdout);
    expect(o.weights).toEqual({ chitchat: 1 });
    expect(o.columns).toHaveLength(1);
    expect(o.columns[0]).toMatchObject({ locale: 'en', split: 'eval', tasks: 200, max_abs_diff: 0, intents: { chitchat: { n: 200, share: 1 }, product_qa: { n: 0, share: 0 } } });
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('traffic mix: 200 tasks per locale and split (seeds 1..200), harness "live-commerce" 1.0.0, tasks from generator');
    expect(lines[1]).toBe('weights: chitchat=0.5,after_sales=0.5');
    expect(lines[2]).toMatch(/^intent\s+report\s+weight\s+zh-CN train\s+zh-CN eval$/);
    expect(lines[3]).toMatch(/^product_qa\s+46\.0%\s+0\.0%\s+0\.0%\s+0\.0%$/);
    expect(table.stdout).toContain('\nsub-kinds (share of their intent');
    expect(table.stdout).toMatch(/\n {2}greeting\s+33\.3%\s+\d+\.\d%\s+\d+\.\d%\n/);
  }, 60_000);

  it("task files: their own intents, sub-kind (task file); a split they lack says so", async () => {
    const log = join(ROOT, 'examples', 'tasks', 'production-log.jsonl');
    const r = await cli(['mix', '--seeds', '100', '--tasks', log, '--locales', 'zh-CN', '--json']);
    expect(r.status).toBe(0);
    const [train, held] = JSON.parse(r.stdout).columns;
    expect(train).toMatchObject({ split: 'train', tasks: 0, failed: 100 });
    expect(train.failure).toBe(`UNKNOWN_TASK: no task with locale zh-CN, split train in jsonl:${log}`);
    expect(held.tasks).toBe(100);
    expect(Object.keys(held.sub_kinds).sort()).toEqual(['chitchat', 'marketing', 'product_qa', 'risky']);
    expect(Object.values(held.sub_kinds).every((k) => Object.keys(k as object).join() === '(task file)')).toBe(true);
    const bad = await cli(['mix', '--splits', 'test']);
    expect(expectFailure(bad, EXIT.usage, 'mix')).toBe('harness-gym mix: --splits: "test" is not one of train, eval');
  }, 60_000);
});
