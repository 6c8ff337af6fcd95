/**
 * `worker_heap_mb: "auto"` (server/worker-heap.ts): 2000 MiB for each worker where V8's default limit is
 * larger (V8's growth multiple is 4 from 2 GiB on, at most 2 below), V8's own default otherwise; the
 * default "v8" is V8's own; and what a server's workers then report as their limit.
 */
import { getHeapStatistics } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { AUTO_WORKER_HEAP_MB, workerHeapMb } from '../../server/worker-heap.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, metric, testConfig } from './helpers.js';

const MIB = 1024 * 1024;

describe('workerHeapMb', () => {
  it('auto: 2000 MiB when V8 would give a worker more, V8 itself when it would give 2000 or less', () => {
    // heap_size_limit = old generation + 48 MiB of young generation.
    expect(workerHeapMb('auto', (4096 + 48) * MIB)).toBe(AUTO_WORKER_HEAP_MB);
    expect(workerHeapMb('auto', (2001 + 48) * MIB)).toBe(AUTO_WORKER_HEAP_MB);
    expect(workerHeapMb('auto', (2000 + 48) * MIB)).toBeNull();
    expect(workerHeapMb('auto', (1000 + 48) * MIB)).toBeNull();
    expect(AUTO_WORKER_HEAP_MB).toBeLessThan(2048);
  });

  it('a number is the limit and null is V8 default, whatever the machine', () => {
    for (const limit of [(1000 + 48) * MIB, (4096 + 48) * MIB]) {
      expect(workerHeapMb(640, limit)).toBe(640);
      expect(workerHeapMb(4096, limit)).toBe(4096);
      expect(workerHeapMb(null, limit)).toBeNull();
      expect(workerHeapMb('v8', limit)).toBeNull();
    }
  });
});

describe('the heap limit a server gives its workers', () => {
  const apps: GymApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => closeServer(a)));
  });

  /** The limit worker 0 reports once it has answered a reset. */
  async function reportedLimit(extra: Record<string, unknown>): Promise<number | undefined> {
    const app = buildServer(testConfig({ workers: 1, ...extra }));
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    await c.hello({ seed: 3 }, true);
    const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a', variant: 'train' }] }, true);
    expect(r.items[0].ok).toBe(true);
    c.ws.close();
    await c.closed;
    return metric(app, 'harness_gym_shard_heap_limit_bytes{shard="0"}');
  }

  // A worker reports its old generation's limit: V8's default is this thread's heap_size_limit less the
  // young generation's 48 MiB (the same machine, the same flags).
  const v8DefaultOld = getHeapStatistics().heap_size_limit - 48 * MIB;

  it('"auto": 2000 MiB on a machine where V8 would allow more, else V8 own limit', async () => {
    const want = v8DefaultOld > AUTO_WORKER_HEAP_MB * MIB ? AUTO_WORKER_HEAP_MB * MIB : v8DefaultOld;
    expect(await reportedLimit({ worker_heap_mb: 'auto' })).toBe(want);
  });

  it('by default ("v8"; or null): V8 own default limit (as a worker started without resource limits has it)', async () => {
    expect(await reportedLimit({})).toBe(v8DefaultOld);
    expect(await reportedLimit({ worker_heap_mb: 'v8' })).toBe(v8DefaultOld);
    expect(await reportedLimit({ worker_heap_mb: null })).toBe(v8DefaultOld);
  });
});
