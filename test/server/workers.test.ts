/**
 * Worker shards: a server whose episodes live in worker threads answers byte for byte what the in-process
 * server answers; a worker task that fails answers INTERNAL for its batch's items only, and the
 * connection, the session and other sessions go on.
 */
import { fileURLToPath } from 'node:url';
import { describe, it, expect, afterAll } from 'vitest';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, metric, testConfig } from './helpers.js';
import type { WireClient } from './helpers.js';

const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
});

async function listen(overrides: Record<string, unknown>, workerFile?: string): Promise<{ app: GymApp; url: string }> {
  const app = buildServer(testConfig({ allow_oracle_hints: true, ...overrides }), workerFile === undefined ? {} : { workerFile });
  apps.push(app);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

/** A fixed conversation (train variants, oracle actions to the end, then close); every reply's raw bytes. */
async function conversation(c: WireClient): Promise<Buffer[]> {
  const raws: Buffer[] = [];
  const ask = async (msg: unknown) => {
    c.send(msg, true);
    const r = await c.next();
    raws.push(r.raw);
    return r.msg;
  };
  await c.hello({ seed: 11 }, true);
  const ids = Array.from({ length: 12 }, (_, i) => `e${i}`);
  const reset = await ask({
    type: 'reset',
    id: 1,
    items: ids.map((episode_id, i) => ({ episode_id, variant: i % 3 === 0 ? 'identity' : 'train', options: { oracle_hints: true } })),
  });
  let next = new Map<string, unknown>(
    reset.items.map((it: { episode_id: string; info: { oracle_action: unknown } }) => [it.episode_id, it.info.oracle_action]),
  );
  for (let id = 2; next.size > 0; id++) {
    const r = await ask({ type: 'step', id, items: [...next].map(([episode_id, action]) => ({ episode_id, action })) });
    next = new Map();
    for (const it of r.items) if (it.ok && !it.terminated && !it.truncated) next.set(it.episode_id, it.info.oracle_action);
    expect(id).toBeLessThan(40);
  }
  await ask({
    type: 'step',
    id: 'after-end',
    items: [
      { episode_id: 'e1', action: { text: 'hi' } },
      { episode_id: 'nope', action: { text: 'hi' } },
    ],
  });
  await ask({ type: 'close', id: 'c', episode_ids: [...ids, 'nope'] });
  return raws;
}

describe('worker shards', () => {
  it('answer byte for byte what the in-process server answers', async () => {
    const [local, workers, arrival] = await Promise.all([
      listen({ port: 0, workers: 0 }),
      listen({ port: 0, workers: 2 }),
      listen({ port: 0, workers: 1, scheduling: 'arrival' }),
    ]);
    const a = await conversation(await connect(local.url));
    // Two sessions on the worker server: they land on different workers, and both agree. The workers start
    // steps first (the default); a worker starting requests as they came answers the same bytes too.
    const [b, c, d] = await Promise.all([
      conversation(await connect(workers.url)),
      conversation(await connect(workers.url)),
      conversation(await connect(arrival.url)),
    ]);
    expect(b.length).toBe(a.length);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(d).toEqual(a);
    expect(await metric(workers.app, 'harness_gym_steps_total')).toBe(2 * ((await metric(local.app, 'harness_gym_steps_total')) ?? NaN));
    expect(await metric(workers.app, 'harness_gym_episodes_live')).toBe(0);
    // Every reset item is in the reset latency summary, as every step item is in the step one.
    expect(await metric(local.app, 'harness_gym_reset_latency_seconds_count')).toBe(12);
    expect(await metric(workers.app, 'harness_gym_reset_latency_seconds_count')).toBe(24);
    expect(await metric(arrival.app, 'harness_gym_step_latency_seconds_count')).toBe(
      await metric(local.app, 'harness_gym_step_latency_seconds_count'),
    );
  }, 180_000);

  it('a failed worker task fails its batch items with INTERNAL; the rest goes on', async () => {
    const failing = fileURLToPath(new URL('./fixtures/failing-worker.ts', import.meta.url));
    const { app, url } = await listen({ port: 0, workers: 1 }, failing);
    const c = await connect(url);
    await c.hello({ seed: 3 });
    const other = await connect(url);
    await other.hello({ seed: 4 });
    const started = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }, { episode_id: 'b' }] });
    expect(started.items.map((i: { ok: boolean }) => i.ok)).toEqual([true, true]);

    // A task that throws: each item of that frame is INTERNAL (ids kept), with a trace id to find the log.
    const failed = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'boom-throw' }, { episode_id: 'c' }, {}] });
    const internal = { code: 'INTERNAL', message: 'internal error (worker)', details: { trace_id: expect.any(String) } };
    expect(failed).toEqual({
      type: 'reset_result',
      id: 2,
      items: [
        { ok: false, episode_id: 'boom-throw', error: internal },
        { ok: false, episode_id: 'c', error: internal },
        { ok: false, error: internal },
      ],
    });
    expect(await metric(app, 'harness_gym_worker_failures_total')).toBe(1);
    // The session's episodes are intact, and the other session is served.
    const stepped = await c.request({ type: 'step', id: 3, items: [{ episode_id: 'a', action: { text: '你好' } }] });
    expect(stepped.items[0]).toMatchObject({ ok: true, episode_id: 'a' });
    expect((await other.request({ type: 'reset', id: 1, items: [{}] })).items[0].ok).toBe(true);

    // A worker that dies: the in-flight frame fails the same way; the worker is replaced, its episodes are
    // gone (UNKNOWN_EPISODE), and new resets work on the same connection.
    const crashed = await c.request({ type: 'step', id: 4, items: [{ episode_id: 'b', action: { text: 'boom-exit' } }] });
    expect(crashed).toEqual({ type: 'step_result', id: 4, items: [{ ok: false, episode_id: 'b', error: internal }] });
    const lost = await c.request({ type: 'step', id: 5, items: [{ episode_id: 'a', action: { text: '你好' } }] });
    expect(lost.items[0]).toMatchObject({ ok: false, episode_id: 'a', error: { code: 'UNKNOWN_EPISODE' } });
    const again = await c.request({ type: 'reset', id: 6, items: [{ episode_id: 'a2' }] });
    expect(again.items[0]).toMatchObject({ ok: true, episode_id: 'a2' });
    expect(await c.alive()).toBe(true);
    expect(await other.alive()).toBe(true);
    expect(await metric(app, 'harness_gym_worker_failures_total')).toBe(2);
  }, 180_000);
});
