/**
 * Start-up under load (issue 39): the episode workers start beside listening, not inside a fastify hook
 * (whose onReady/pluginTimeout limit is 10 s). With worker start-up slowed past that limit (the test-only
 * `startDelayMs` seam), the server stays up, /healthz answers at once, /readyz answers 503 `starting`
 * until the workers are up and 200 after, and a WebSocket session works.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { serverState, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, testConfig } from './helpers.js';

/** fastify's default pluginTimeout, which also bounds each onReady hook. */
const FASTIFY_HOOK_LIMIT_MS = 10_000;
const DELAY_MS = FASTIFY_HOOK_LIMIT_MS + 1_500;

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

describe('slow start-up', () => {
  it(
    'a worker start slower than fastify’s hook limit is slow, not fatal: /readyz 503 while starting, 200 after, sessions work',
    async () => {
      const t0 = Date.now();
      running = await startServer(
        testConfig({ host: '127.0.0.1', port: 0, workers: 1, allow_oracle_hints: true }),
        { startDelayMs: DELAY_MS },
        { waitReady: false },
      );
      const { url } = running;
      expect(await get(`${url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get(`${url}/readyz`)).toEqual({ status: 503, body: { status: 'starting' } });
      expect(serverState(running.app).ready).toBe(false);

      // A session opened while starting is served once the workers are up (its requests wait, not fail).
      const early = await connect(url);
      await early.hello({ seed: 1 }, true);

      // Poll /readyz through and past fastify's limit: 503 until ready, then 200; the server never goes away.
      let firstReadyAt: number | null = null;
      while (firstReadyAt === null) {
        const r = await get(`${url}/readyz`);
        if (r.status === 200) {
          expect(r.body).toEqual({ status: 'ready' });
          firstReadyAt = Date.now() - t0;
        } else {
          expect(r).toEqual({ status: 503, body: { status: 'starting' } });
          expect(Date.now() - t0).toBeLessThan(DELAY_MS + 20_000);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      expect(firstReadyAt).toBeGreaterThanOrEqual(DELAY_MS);
      await running.ready;
      expect(serverState(running.app).ready).toBe(true);
      expect(await get(`${url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });

      // Sessions work after ready: the early one and a new one.
      for (const c of [early, await connect(url)]) {
        if (c !== early) await c.hello({ seed: 2 }, true);
        const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a', variant: 'train' }] }, true);
        expect(r.items[0].ok).toBe(true);
        c.ws.close();
      }
    },
    60_000,
  );
});
