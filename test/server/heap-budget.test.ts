/**
 * Memory admission (server/heap-budget.ts): a thread whose live heap after a full collection is above 70%
 * of its limit refuses new episodes with a typed item error, and the episodes it holds go on. End to end:
 * a server whose one worker has a 256 MiB heap (`worker_heap_mb`) is filled with episodes over a real
 * socket until it refuses; the worker never runs out of memory, the refused items are CAPACITY_REACHED
 * with `details.reason: "memory"`, live episodes still step, and once they are closed a client retrying
 * after `retry_after_ms` is admitted again; `rollout` waits on such a refusal instead of failing.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it, expect, afterAll } from 'vitest';
import { HEAP_ADMIT_FRACTION, HEAP_RETRY_AFTER_MS, HeapBudget } from '../../server/heap-budget.js';
import { STEP_ADMIT_CHARS } from '../../env/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { memoryRetryAfter, runRollout } from '../../client/rollout.js';
import { startFakeEndpoint } from '../rollout/fake-endpoint.js';
import { connect, metric, testConfig, until } from './helpers.js';

const MIB = 1024 * 1024;

describe('HeapBudget', () => {
  it('admits until a major GC leaves the live heap above the fraction of the limit, and again once it is below', () => {
    let reading = { used: 10 * MIB, limit: 100 * MIB };
    const budget = new HeapBudget({ read: () => reading, now: () => 0, collect: () => expect.unreachable('no stale reading here') });
    expect(HEAP_ADMIT_FRACTION).toBe(0.7);
    expect(budget.refusal()).toBeNull();
    // Between major GCs the used size counts garbage: it does not decide.
    reading = { used: 99 * MIB, limit: 100 * MIB };
    expect(budget.refusal()).toBeNull();
    budget.afterMajorGc();
    expect(budget.refusal()).toEqual({ reason: 'memory', heap_live_mb: 99, heap_limit_mb: 100, retry_after_ms: HEAP_RETRY_AFTER_MS });
    reading = { used: 70 * MIB, limit: 100 * MIB }; // at the fraction: admitted
    budget.afterMajorGc();
    expect(budget.refusal()).toBeNull();
    reading = { used: 70.5 * MIB, limit: 100 * MIB };
    budget.afterMajorGc();
    expect(budget.refusal()).toMatchObject({ heap_live_mb: 70.5, heap_limit_mb: 100 });
  });

  it('collects and reads again before refusing on a reading older than the retry period, at most once per period', () => {
    let t = 0;
    let collections = 0;
    let reading = { used: 90 * MIB, limit: 100 * MIB };
    const budget = new HeapBudget({ read: () => reading, now: () => t, collect: () => collections++ });
    budget.afterMajorGc();
    t = HEAP_RETRY_AFTER_MS - 1;
    expect(budget.refusal()).toMatchObject({ heap_live_mb: 90 });
    expect(collections).toBe(0); // fresh enough
    t = HEAP_RETRY_AFTER_MS;
    expect(budget.refusal()).toMatchObject({ heap_live_mb: 90 }); // collected, still full
    expect(collections).toBe(1);
    t += 10;
    expect(budget.refusal()).not.toBeNull();
    expect(collections).toBe(1); // the new reading is fresh
    // Episodes were closed meanwhile: the next stale refusal collects, reads 40 MiB and admits.
    reading = { used: 40 * MIB, limit: 100 * MIB };
    t += HEAP_RETRY_AFTER_MS;
    expect(budget.refusal()).toBeNull();
    expect(collections).toBe(2);
    expect(budget.refusal()).toBeNull();
  });

  it("tells rollout's wait from a reset result: only a memory refusal, bounded", () => {
    const refused = (details: unknown) => ({
      ok: false as const,
      episode_id: 'e',
      error: { code: 'CAPACITY_REACHED' as const, message: 'm', details },
    });
    expect(memoryRetryAfter(refused({ reason: 'memory', retry_after_ms: 1000 }))).toBe(1000);
    expect(memoryRetryAfter(refused({ reason: 'memory' }))).toBe(1000);
    expect(memoryRetryAfter(refused({ reason: 'memory', retry_after_ms: 1e9 }))).toBe(60_000);
    expect(memoryRetryAfter(refused({ reason: 'memory', retry_after_ms: -5 }))).toBe(10);
    expect(memoryRetryAfter(refused({ max_episodes: 4096 }))).toBeNull(); // max_episodes lasts until closes
    expect(
      memoryRetryAfter({ ok: false, episode_id: 'e', error: { code: 'UNKNOWN_TASK', message: 'm', details: { reason: 'memory' } } }),
    ).toBeNull();
  });

  it('takes its reading after each major GC of the thread it runs on', async () => {
    let reads = 0;
    const budget = new HeapBudget({
      read: () => {
        reads++;
        return { used: 1, limit: 2 };
      },
    }).start();
    try {
      const before = reads;
      setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as () => void)();
      await until(() => reads > before, 2000);
      expect(budget.refusal()).toBeNull();
    } finally {
      budget.stop();
    }
  });
});

describe('a worker with a heap limit', () => {
  const apps: GymApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => closeServer(a)));
  });

  it('refuses new episodes with CAPACITY_REACHED (reason memory) before its heap runs out, keeps the live ones, and admits again after they close', async () => {
    const app = buildServer(
      testConfig({ allow_oracle_hints: true, workers: 1, worker_heap_mb: 256, limits: { max_episodes: 1_000_000, max_batch: 256 } }),
    );
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    await c.hello({ seed: 5 }, true);

    // Fill: 256 `train` episodes a frame until items are refused (several thousand fit in 256 MiB).
    let id = 0;
    const admitted: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let refused: any[] = [];
    while (refused.length === 0) {
      const ids = Array.from({ length: 256 }, (_, i) => `f${id}.${i}`);
      const r = await c.request({ type: 'reset', id: ++id, items: ids.map((episode_id) => ({ episode_id, variant: 'train' })) }, true);
      expect(r.type).toBe('reset_result');
      for (const it of r.items) {
        if (it.ok) admitted.push(it.episode_id);
        else refused.push(it);
      }
      expect(id).toBeLessThan(200);
    }
    expect(admitted.length).toBeGreaterThan(500);
    // Every refusal is the same typed error; nothing else failed (no INTERNAL: the worker did not die).
    const first = refused[0];
    expect(first).toEqual({
      ok: false,
      episode_id: first.episode_id,
      error: {
        code: 'CAPACITY_REACHED',
        message: 'the server is short of memory for new episodes; retry later or close episodes',
        details: { reason: 'memory', heap_live_mb: expect.any(Number), heap_limit_mb: 256, retry_after_ms: HEAP_RETRY_AFTER_MS },
      },
    });
    // Refused because the live heap passed the admitted share of the limit; the refusal states it in MiB
    // rounded to 0.1, so a live heap just past the share (179.2001 MiB) reads as the share itself.
    expect(first.error.details.heap_live_mb).toBeGreaterThanOrEqual(Math.round(HEAP_ADMIT_FRACTION * 256 * 10) / 10);
    expect(first.error.details.heap_live_mb).toBeLessThanOrEqual(256);
    for (const it of refused) expect(it.error.code).toBe('CAPACITY_REACHED');
    expect(await metric(app, 'harness_gym_errors_total{code="CAPACITY_REACHED"}')).toBe(refused.length);
    // The shard's heap gauges say the same as the refusal.
    expect(await metric(app, 'harness_gym_shard_heap_limit_bytes{shard="0"}')).toBe(256 * MIB);
    expect(await metric(app, 'harness_gym_shard_heap_live_bytes{shard="0"}')).toBeGreaterThan(0.7 * 256 * MIB);

    // The live episodes go on: the first and the last admitted step.
    const step = await c.request(
      {
        type: 'step',
        id: ++id,
        items: [admitted[0], admitted[admitted.length - 1]].map((episode_id) => ({ episode_id, action: { text: 'hello' } })),
      },
      true,
    );
    expect(step.items.map((it: { ok: boolean }) => it.ok)).toEqual([true, true]);
    // But not with a large action (issue 39: memory per episode bounded whatever the client sends): it is
    // refused the same typed way, and the episode is unchanged (its next ordinary step is still its turn 1).
    const big = await c.request({ type: 'step', id: ++id, items: [{ episode_id: admitted[1], action: { text: 'x'.repeat(STEP_ADMIT_CHARS + 1) } }] }, true);
    expect(big.items[0]).toEqual({
      ok: false,
      episode_id: admitted[1],
      error: {
        code: 'CAPACITY_REACHED',
        message: `the server is short of memory for actions over ${STEP_ADMIT_CHARS} characters; retry later, close episodes or send a shorter action`,
        details: { reason: 'memory', heap_live_mb: expect.any(Number), heap_limit_mb: 256, retry_after_ms: HEAP_RETRY_AFTER_MS },
      },
    });
    const after = await c.request({ type: 'step', id: ++id, items: [{ episode_id: admitted[1], action: { text: 'hello' } }] }, true);
    expect(after.items[0]).toMatchObject({ ok: true, info: { turn: 1 } });

    // `rollout` waits on a memory refusal (the server's retry_after_ms) instead of failing the episode: its
    // first wait closes the filler's episodes here, and its resets are admitted after the wait.
    const fake = await startFakeEndpoint();
    const waits: number[] = [];
    let rollout: Awaited<ReturnType<typeof runRollout>>;
    try {
      rollout = await runRollout({
        model: 'fake',
        seed: 9,
        oracleHints: true,
        url: `${url.replace(/^http/, 'ws')}/v1/env`,
        baseUrl: fake.baseUrl,
        episodes: 2,
        concurrency: 2,
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length === 1) {
            for (let i = 0; i < admitted.length; i += 256) {
              const r = await c.request({ type: 'close', id: ++id, episode_ids: admitted.slice(i, i + 256) }, true);
              expect(r).toMatchObject({ type: 'closed', unknown: [] });
            }
          }
          await new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
    } finally {
      await fake.close();
    }
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms === HEAP_RETRY_AFTER_MS)).toBe(true);
    expect(rollout.summary).toMatchObject({ episodes: 2, completed: 2, failed: 0, reward: { mean: 1 } });
    // A client that retries after retry_after_ms is admitted too.
    let again: { ok: boolean; error?: { code: string } } = { ok: false };
    for (let tries = 0; tries < 5 && !again.ok; tries++) {
      const r = await c.request({ type: 'reset', id: ++id, items: [{ episode_id: `again${id}`, variant: 'train' }] }, true);
      again = r.items[0];
      if (!again.ok) {
        expect(again.error?.code).toBe('CAPACITY_REACHED');
        await new Promise((resolve) => setTimeout(resolve, HEAP_RETRY_AFTER_MS));
      }
    }
    expect(again.ok).toBe(true);
    expect(await c.alive()).toBe(true);
  }, 60_000);
});
