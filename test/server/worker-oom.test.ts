/**
 * A shard worker that runs out of memory (issue 39, error codes; PROTOCOL.md "Errors"): the request whose
 * task was in flight is answered `CAPACITY_REACHED` with `details.reason: "memory"` (the worker's limit,
 * a retry delay and a trace id), as a full heap is answered at admission, not `INTERNAL` (a bug). The
 * worker is replaced, its episodes are lost (`UNKNOWN_EPISODE`), and new resets work. The worker really
 * exhausts a small heap (`worker_heap_mb: 128`, test/server/fixtures/failing-worker.ts `boom-oom`); a
 * task that throws stays `INTERNAL` (test/server/workers.test.ts).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { isWorkerOutOfMemory } from '../../server/heap-budget.js';
import { connect, metric, testConfig } from './helpers.js';

const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
});

describe('isWorkerOutOfMemory', () => {
  it("is Node's ERR_WORKER_OUT_OF_MEMORY and nothing else", () => {
    const oom = Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' });
    expect(isWorkerOutOfMemory(oom)).toBe(true);
    expect(isWorkerOutOfMemory(new Error('injected worker failure'))).toBe(false);
    expect(isWorkerOutOfMemory(Object.assign(new Error('x'), { code: 'ERR_WORKER_INIT_FAILED' }))).toBe(false);
    expect(isWorkerOutOfMemory(undefined)).toBe(false);
    expect(isWorkerOutOfMemory('ERR_WORKER_OUT_OF_MEMORY')).toBe(false);
  });
});

describe('a worker out of memory', () => {
  it('fails its in-flight items with CAPACITY_REACHED reason memory, not INTERNAL; the worker is replaced', async () => {
    const failing = fileURLToPath(new URL('./fixtures/failing-worker.ts', import.meta.url));
    const app = buildServer(testConfig({ workers: 1, worker_heap_mb: 128 }), { workerFile: failing });
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    await c.hello({ seed: 3 });
    const started = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }] });
    expect(started.items[0].ok).toBe(true);

    const memory = {
      code: 'CAPACITY_REACHED',
      message: 'the episode worker ran out of memory (heap limit 128 MiB); its episodes are lost: retry later, or give the server more memory (worker_heap_mb)',
      details: { reason: 'memory', heap_live_mb: 128, heap_limit_mb: 128, retry_after_ms: 1000, trace_id: expect.any(String) },
    };
    const failed = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'boom-oom' }, {}] });
    expect(failed).toEqual({
      type: 'reset_result',
      id: 2,
      items: [
        { ok: false, episode_id: 'boom-oom', error: memory },
        { ok: false, error: memory },
      ],
    });
    expect(await metric(app, 'harness_gym_worker_failures_total')).toBe(1);
    expect(await metric(app, 'harness_gym_errors_total{code="CAPACITY_REACHED"}')).toBe(2);
    expect(await metric(app, 'harness_gym_errors_total{code="INTERNAL"}')).toBeUndefined();
    // The worker's episodes are gone with it; the replaced worker serves new resets on the same connection.
    const lost = await c.request({ type: 'step', id: 3, items: [{ episode_id: 'a', action: { text: '你好' } }] });
    expect(lost.items[0]).toMatchObject({ ok: false, episode_id: 'a', error: { code: 'UNKNOWN_EPISODE' } });
    const again = await c.request({ type: 'reset', id: 4, items: [{ episode_id: 'a2' }] });
    expect(again.items[0]).toMatchObject({ ok: true, episode_id: 'a2' });
    expect(await c.alive()).toBe(true);
  }, 120_000);
});
