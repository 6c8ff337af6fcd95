/**
 * The server config's task defaults (issue 37): `defaults.task_split` (train, eval, all) and
 * `defaults.task_mix` are what a reset item whose task selector names no split or intent gets, in-process
 * and on worker threads; `welcome` and `/v1/info` name the task split beside the variant's split, and the
 * mix; a bad value is refused at start-up naming the key.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, closeServer, defaultServerConfig, parseServerConfig } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { INTENT_WEIGHTS, generateTask, taskSplitFor } from '../../env/index.js';
import { INTENTS } from '../../protocol/domain.js';
import { connect, testConfig } from './helpers.js';

const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
});

async function serve(overrides: Record<string, unknown>): Promise<string> {
  const app = buildServer(testConfig(overrides));
  apps.push(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}

describe('defaults.task_split and defaults.task_mix', () => {
  it('are applied to resets that name no split or intent, and welcome and /v1/info name both splits', async () => {
    for (const workers of [0, 1]) {
      const url = await serve({ workers, defaults: { variant: 'eval', task_split: 'all', task_mix: { chitchat: 1, product_qa: 3 } } });
      const c = await connect(url);
      const w = await c.hello({ seed: 3 });
      expect(w.defaults).toEqual({
        variant: 'eval',
        parser: 'auto',
        max_turns: 12,
        observation: 'delta',
        locale: 'zh-CN',
        rewards: 'default',
        task_split: 'all',
        variant_split: 'eval',
        task_mix: { product_qa: 0.75, chitchat: 0.25 },
      });
      const info = (await (await fetch(url.replace(/\/$/, '') + '/v1/info')).json()) as { defaults: unknown };
      expect(info.defaults).toEqual(w.defaults);
      const seeds = Array.from({ length: 24 }, (_, i) => i + 1);
      const r = await c.request({ type: 'reset', id: 2, items: seeds.map((seed) => ({ episode_id: `e${seed}`, seed })) });
      const splits = new Set<string>();
      seeds.forEach((seed, i) => {
        const item = r.items[i];
        expect(item.ok).toBe(true);
        const split = taskSplitFor(seed, 'all');
        splits.add(split);
        expect(item.info.task_id).toMatch(new RegExp(`^gen-${split}-zh-CN-${seed}-(chitchat|product_qa)$`));
      });
      expect([...splits].sort()).toEqual(['eval', 'train']);
      // A selector's own split and intent win over the defaults.
      const own = await c.request({ type: 'reset', id: 3, items: [{ episode_id: 'own', seed: 5, task: { split: 'train', intent: 'risky' } }] });
      expect(own.items[0].info.task_id).toBe(generateTask(5, 'zh-CN', { intent: 'risky' }).id);
      c.ws.close();
    }
  }, 30_000);

  it('unset: train tasks with the production mix, and welcome says so', async () => {
    const url = await serve({ workers: 0 });
    const c = await connect(url);
    const w = await c.hello({});
    expect([w.defaults.task_split, w.defaults.variant_split]).toEqual(['train', 'none']);
    expect(w.defaults.task_mix).toEqual({ ...INTENT_WEIGHTS });
    const r = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'a', seed: 9 }] });
    expect(r.items[0].info.task_id).toBe(generateTask(9, 'zh-CN').id);
    c.ws.close();
  });

  it('a default variant spec names its split', async () => {
    const url = await serve({ workers: 0, defaults: { variant: { families: ['tools'], intensity: 0.3, split: 'eval' }, task_split: 'eval' } });
    const c = await connect(url);
    const w = await c.hello({});
    expect([w.defaults.task_split, w.defaults.variant_split]).toEqual(['eval', 'eval']);
    const r = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'a', seed: 9 }] });
    expect(r.items[0].info.task_id).toBe(generateTask(9, 'zh-CN', { split: 'eval' }).id);
    c.ws.close();
  });

  it('are checked at start-up, naming the key', () => {
    expect(defaultServerConfig().defaults).toBeUndefined();
    expect(parseServerConfig({ defaults: { task_split: 'evl' } })).toEqual({
      ok: false,
      errors: ['defaults.task_split: Invalid option: expected one of "train"|"eval"|"all"'],
    });
    expect(parseServerConfig({ defaults: { task_mix: { chitchta: 1 } } })).toEqual({
      ok: false,
      errors: [`defaults.task_mix: unknown intent "chitchta" (did you mean chitchat?); intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)`],
    });
    expect(parseServerConfig({ defaults: { task_mix: { chitchat: -2 } } })).toEqual({
      ok: false,
      errors: ['defaults.task_mix: the weight of chitchat must be a finite number >= 0, got -2'],
    });
    expect(parseServerConfig({ defaults: { task_mix: { chitchat: 0 } } })).toEqual({
      ok: false,
      errors: ['defaults.task_mix: every weight is 0 (or none is given): give at least one intent a positive weight, e.g. product_qa=0.5,chitchat=0.5'],
    });
    expect(parseServerConfig({ defaults: { task_mix: 'chitchat=1' } })).toEqual({
      ok: false,
      errors: ['defaults.task_mix: Invalid input: expected record, received string'],
    });
    const ok = parseServerConfig({ defaults: { task_split: 'eval', task_mix: { chitchat: 2 } } });
    expect(ok).toMatchObject({ ok: true, config: { defaults: { task_split: 'eval', task_mix: { chitchat: 2 } } } });
  });
});
