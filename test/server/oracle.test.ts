/**
 * `options.oracle_hints` on a server configured with `allow_oracle_hints`: every non-final observation's
 * `info.oracle_action` is the oracle's next action; playing it to the end earns reward 1 on identity.
 */
import { describe, it, expect, afterEach } from 'vitest';
import type { GymApp } from '../../server/index.js';
import { inject, makeApp } from './helpers.js';

let app: GymApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('oracle hints', () => {
  it('playing info.oracle_action to the end gives reward 1 on identity, for every parser', async () => {
    app = await makeApp({ allow_oracle_hints: true });
    const c = await inject(app);
    await c.hello({ seed: 3 });
    const parsers = ['auto', 'openai', 'hermes', 'qwen3_xml'];
    const items = parsers.flatMap((parser, p) =>
      [0, 1, 2].map((k) => ({ episode_id: `${parser}-${k}`, seed: 100 + 10 * p + k, options: { parser, oracle_hints: true } })),
    );
    const r = await c.request({ type: 'reset', id: 'r', items });
    const live = new Map<string, unknown>();
    for (const it of r.items) {
      expect(it.ok).toBe(true);
      expect(it.info.oracle_action).toBeDefined();
      live.set(it.episode_id, it.info.oracle_action);
    }
    const rewards = new Map<string, number>();
    for (let turn = 0; live.size > 0 && turn < 12; turn++) {
      const s = await c.request({ type: 'step', id: turn, items: [...live].map(([episode_id, action]) => ({ episode_id, action })) });
      for (const it of s.items) {
        expect(it.ok).toBe(true);
        if (it.terminated || it.truncated) {
          expect(it.info.oracle_action).toBeUndefined();
          rewards.set(it.episode_id, it.reward);
          live.delete(it.episode_id);
        } else {
          expect(it.info.oracle_action).toBeDefined();
          live.set(it.episode_id, it.info.oracle_action);
        }
      }
    }
    expect(live.size).toBe(0);
    expect([...rewards.values()]).toEqual(items.map(() => 1));
  });

  it('without the option, info has no oracle_action', async () => {
    app = await makeApp({ allow_oracle_hints: true });
    const c = await inject(app);
    await c.hello();
    const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }] });
    expect(r.items[0].info.oracle_action).toBeUndefined();
  });
});
