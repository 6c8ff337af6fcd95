/**
 * The server config's `defaults.variant` is applied: a reset item that names no variant gets it, in-process
 * and on worker threads, and `welcome.defaults.variant` announces it (a spec as its compact JSON string).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, testConfig } from './helpers.js';

const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
});

const SPEC = { families: ['tools'], intensity: 0.5, split: 'train' };

describe('defaults.variant', () => {
  it('is what a reset item without a variant gets, and what welcome says', async () => {
    for (const workers of [0, 1]) {
      const app = buildServer(testConfig({ workers, defaults: { variant: SPEC } }));
      apps.push(app);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const c = await connect(url);
      const w = await c.hello({ seed: 3 });
      expect(w.defaults.variant).toBe(JSON.stringify(SPEC));
      const r = await c.request({
        type: 'reset',
        id: 2,
        items: [
          { episode_id: 'implicit', seed: 9 },
          { episode_id: 'explicit', seed: 9, variant: SPEC },
          { episode_id: 'identity', seed: 9, variant: 'identity' },
        ],
      });
      const [implicit, explicit, identity] = r.items;
      expect(implicit.info.variant_id).not.toBe('identity');
      expect(implicit.info.variant_id).toBe(explicit.info.variant_id);
      expect(implicit.observation).toEqual(explicit.observation);
      expect(identity.info.variant_id).toBe('identity');
      c.ws.close();
    }
  }, 30_000);

  it('leaves identity the default when unset', async () => {
    const app = buildServer(testConfig({ workers: 0 }));
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    expect((await c.hello({})).defaults.variant).toBe('identity');
    const r = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'a', seed: 9 }] });
    expect(r.items[0].info.variant_id).toBe('identity');
    c.ws.close();
  });
});
