/**
 * Backpressure: a client that sends requests and never reads its replies is paused, then cut off; the
 * server's memory returns near its baseline, and other clients are served throughout. Nothing here is
 * timed: the assertions are about what happened (a cut, a bounded number of requests applied, memory).
 */
import { WORLD_CACHE_SIZE, worldFor } from '../../mock-services/index.js';
import { WORLD_POOL, taskWorldSeed } from '../../env/tasks/index.js';
import { roomFacts } from '../../env/prompt.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { Codec } from '../../protocol/codec.js';
import { unmix32 } from '../../protocol/rng.js';
import { PRESETS, prepareVariantPool } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { embeddedHarness } from '../../harness/index.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it, expect, afterAll } from 'vitest';
import WebSocket from 'ws';
import { serverState, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, metric, pack, testConfig, until } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Memory a send backlog lives in: the JS heap plus Buffers (external, array buffers). */
function memoryBytes(): number {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

const MB = 1024 * 1024;
const HIGH_WATER = 1 * MB;
let running: RunningServer | null = null;

afterAll(async () => {
  await running?.close();
});

describe('a client that never reads', () => {
  it('is paused, cut off and freed; memory returns near the baseline; other clients go on', async () => {
    running = await startServer(
      testConfig({
        port: 0,
        max_sessions: 8,
        limits: { max_batch: 64, max_episodes: 100_000, resume_grace_s: 1, replay_window: 4 },
        backpressure: { send_high_water_bytes: HIGH_WATER, stall_timeout_s: 1, max_queued_requests: 4 },
      }),
    );
    const { app, url } = running;

    // A well-behaved client, and a warm-up so that the baseline includes loaded code and caches.
    const good = await connect(url);
    await good.hello({ seed: 1 });
    expect((await good.request({ type: 'reset', id: 'w', items: Array.from({ length: 32 }, () => ({ variant: 'train' })) })).type).toBe(
      'reset_result',
    );
    await good.request({ type: 'close', id: 'wc', episode_ids: Array.from({ length: 32 }, (_, i) => `ep-${i + 1}`) });
    // The bounded world cache full, as a server's is after its first thousand resets (it holds what it holds
    // whoever the clients are).
    // A server's cache holds the generator's rooms (env/tasks WORLD_POOL per split and locale), each with
    // its room facts memoised by the prompt: fill it with those, not with other worlds that the resets below
    // would replace by heavier ones.
    for (const locale of ['zh-CN', 'en'] as const) {
      for (const split of ['train', 'eval'] as const) {
        for (let slot = 0; slot < WORLD_POOL; slot++) roomFacts(worldFor(taskWorldSeed(unmix32(slot), split), locale), locale);
      }
    }
    expect(WORLD_POOL * 4).toBeLessThanOrEqual(WORLD_CACHE_SIZE);
    // The variant pools compiled, as a server's are a few seconds after its start (it compiles them in the
    // background, in this process: the pools are the process's, per harness).
    for (const locale of ['zh-CN', 'en'] as const) {
      for (const preset of ['train', 'eval']) prepareVariantPool(embeddedHarness().get(locale), PRESETS[preset] as VariantSpec);
    }
    // And each compiled variant's reset reply written once: its offered tool list and that list's
    // MessagePack bytes are kept per variant (env/tool-router.ts, protocol/codec.ts shareEncoding), as a
    // server keeps them after its first resets of each.
    const env = defaultEnvConfig();
    const codec = new Codec();
    for (let seed = 1; seed <= 3000; seed++) {
      const created = createEpisode(env, { episode_id: 'warm', seed, variant: 'train' });
      if (!created.ok) throw new Error(created.error.message);
      const { observation, info } = created.episode.reset();
      codec.encode({ type: 'reset_result', id: seed, items: [{ ok: true, episode_id: 'warm', observation, info }] }, true);
    }
    const baseline = memoryBytes();

    // The slow client: hello, then stop reading and send 400 frames of 64 train resets (each reply is
    // ~1 MB; unbounded, the backlog would be ~400 MB).
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/env');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined); // the cut arrives as a reset connection
    const welcome = new Promise<void>((resolve) => ws.once('message', () => resolve()));
    ws.send(pack({ type: 'hello', id: 'h', protocol: 1, seed: 2 }));
    await welcome;
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // It keeps sending as TCP lets it (up to 400 frames of 64 train resets, ~1 MB of replies each: unbounded,
    // ~400 MB of backlog), until the server cuts it.
    let sent = 0;
    while (sent < 400 && (await metric(app, 'harness_gym_slow_reader_disconnects_total')) === 0) {
      if (ws.bufferedAmount < 64 * 1024)
        ws.send(pack({ type: 'reset', id: sent++, items: Array.from({ length: 64 }, () => ({ variant: 'train' })) }));
      await new Promise((r) => setTimeout(r, 5));
    }
    // While it is stalled, the other client is served.
    await until(async () => (await metric(app, 'harness_gym_slow_reader_disconnects_total')) === 1, 60_000);
    expect(sent).toBeLessThan(400);
    expect(await good.alive('during')).toBe(true);

    // The cut session waits for a resume (grace 1 s); then, once the requests it had queued are applied,
    // its episodes are freed.
    await until(() => serverState(app).sessions === 1, 30_000);
    // Reading paused and resumed in bursts (frames wait in the kernel's buffers meanwhile) until the cut,
    // about a stall timeout after the backlog passed the mark: far from the 400 frames it tried to send.
    const resets = (await metric(app, 'harness_gym_resets_total')) ?? NaN;
    expect(resets).toBeGreaterThan(32);
    expect(resets).toBeLessThan(32 + 64 * 200);
    expect(await metric(app, 'harness_gym_episodes_freed_total{reason="grace_expired"}')).toBe(resets - 32);
    ws.terminate();

    // Memory is back near the baseline (the backlog and the episodes are gone).
    const after = memoryBytes();
    expect(after - baseline).toBeLessThan(16 * MB);
    expect(await good.alive('after')).toBe(true);
    const again = await good.request({ type: 'reset', id: 'a', items: [{ variant: 'train' }] });
    expect(again.items[0].ok).toBe(true);
  }, 120_000);

  it('a connection paused for its queue depth is not dropped for unread pongs', async () => {
    const server = await startServer(
      testConfig({ port: 0, limits: { ping_interval_s: 1, max_batch: 256 }, backpressure: { max_queued_requests: 1 } }),
    );
    try {
      const c = await connect(server.url);
      await c.hello({ seed: 5 });
      // Frames that keep the session busy for several ping intervals while its reading is paused.
      const FRAMES = 12;
      for (let i = 0; i < FRAMES; i++) c.send({ type: 'reset', id: i, items: Array.from({ length: 128 }, () => ({ variant: 'train' })) });
      const ids: unknown[] = [];
      for (let i = 0; i < FRAMES; i++) ids.push((await c.next()).msg.id);
      expect(ids).toEqual([...Array(FRAMES).keys()]);
      expect(await c.alive()).toBe(true);
      expect(serverState(server.app).sessions).toBe(1);
    } finally {
      await server.close();
    }
  }, 120_000);
});
