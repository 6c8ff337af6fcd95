/**
 * Session lifecycle over real sockets (127.0.0.1, port 0): a clean close ends the session at once; a
 * dropped connection keeps it for resume_grace_s; resume restores it (same id, resumed: true, episodes
 * intact), replays stored replies, and closes an older connection; grace expiry and idle reaping free
 * episodes; a peer that answers no pings is dropped.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, metric, testConfig, until } from './helpers.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(overrides: Record<string, unknown> = {}): Promise<RunningServer> {
  server = await startServer(testConfig({ port: 0, ...overrides }));
  return server;
}

describe('sessions over real sockets', () => {
  it('a clean close ends the session and frees its episodes at once', async () => {
    const s = await start();
    const c = await connect(s.url);
    const w = await c.hello();
    await c.request({ type: 'reset', id: 1, items: [{}, {}] });
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(2);
    c.ws.close(1000);
    await c.closed;
    await until(async () => (await metric(s.app, 'harness_gym_sessions')) === 0);
    expect(await metric(s.app, 'harness_gym_episodes_freed_total{reason="ended_session"}')).toBe(2);
    const again = await connect(s.url);
    expect((await again.request({ type: 'hello', id: 1, protocol: 1, resume: w.session_id })).error.code).toBe('UNKNOWN_SESSION');
  });

  it('resume after a dropped socket restores the session and replays a stored reply byte for byte', async () => {
    const s = await start();
    const a = await connect(s.url);
    const w = await a.hello({ seed: 3 });
    await a.request({ type: 'reset', id: 'r', items: [{ episode_id: 'e', seed: 8 }] });
    a.send({ type: 'step', id: 's1', items: [{ episode_id: 'e', action: { text: '你好' } }] }, true);
    const first = await a.next();
    expect(first.msg.items[0].info.turn).toBe(1);
    a.ws.terminate(); // no close frame: a drop
    await a.closed;
    await until(async () => (await metric(s.app, 'harness_gym_sessions')) === 1);

    const b = await connect(s.url);
    const rw = await b.request({ type: 'hello', id: 'h2', protocol: 1, resume: w.session_id });
    expect(rw).toMatchObject({ type: 'welcome', id: 'h2', session_id: w.session_id, resumed: true });
    // The re-sent request is answered from the window, not applied again.
    b.send({ type: 'step', id: 's1', items: [{ episode_id: 'e', action: { text: '你好' } }] }, true);
    const replayed = await b.next();
    expect(replayed.raw.equals(first.raw)).toBe(true);
    // The same request in the other encoding is the same request: the same reply, re-encoded.
    expect(await b.request({ type: 'step', id: 's1', items: [{ episode_id: 'e', action: { text: '你好' } }] })).toEqual(first.msg);
    // A new request is applied: the episode is where it was.
    const next = await b.request({ type: 'step', id: 's2', items: [{ episode_id: 'e', action: { text: '你好' } }] });
    expect(next.items[0].info.turn).toBe(2);
  });

  it('resume closes an older connection still attached (1000, "resumed elsewhere")', async () => {
    const s = await start();
    const a = await connect(s.url);
    const w = await a.hello();
    await a.request({ type: 'reset', id: 1, items: [{ episode_id: 'x' }] });
    const b = await connect(s.url);
    expect(await b.request({ type: 'hello', id: 2, protocol: 1, resume: w.session_id })).toMatchObject({ type: 'welcome', resumed: true });
    expect(await a.closed).toEqual({ code: 1000, reason: 'resumed elsewhere' });
    expect(await b.request({ type: 'close', id: 3, episode_ids: ['x'] })).toEqual({
      type: 'closed',
      id: 3,
      episode_ids: ['x'],
      unknown: [],
    });
    expect(await metric(s.app, 'harness_gym_sessions')).toBe(1);
  });

  it('UNKNOWN_SESSION for an unknown id (the connection stays open); resume needs the token again', async () => {
    const s = await start({ token: 'tok' });
    const a = await connect(s.url);
    const w = await a.hello({ token: 'tok' });
    a.ws.terminate();
    const b = await connect(s.url);
    expect(await b.request({ type: 'hello', id: 1, protocol: 1, token: 'tok', resume: 'no-such-session' })).toEqual({
      type: 'error',
      id: 1,
      error: { code: 'UNKNOWN_SESSION', message: expect.any(String) },
    });
    expect((await b.request({ type: 'hello', id: 2, protocol: 1, token: 'tok', resume: w.session_id })).resumed).toBe(true);
    const c = await connect(s.url);
    expect((await c.request({ type: 'hello', id: 3, protocol: 1, resume: w.session_id })).error.code).toBe('UNAUTHORIZED');
  });

  it('grace expiry frees the episodes of a dropped session', async () => {
    const s = await start({ limits: { resume_grace_s: 1 } });
    const a = await connect(s.url);
    const w = await a.hello();
    await a.request({ type: 'reset', id: 1, items: [{}, {}, {}] });
    a.ws.terminate();
    await until(async () => (await metric(s.app, 'harness_gym_episodes_freed_total{reason="grace_expired"}')) === 3);
    expect(await metric(s.app, 'harness_gym_sessions')).toBe(0);
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(0);
    const b = await connect(s.url);
    expect((await b.request({ type: 'hello', id: 1, protocol: 1, resume: w.session_id })).error.code).toBe('UNKNOWN_SESSION');
  });

  it('an idle session is freed and closed with 1000 "idle"', async () => {
    const s = await start({ limits: { idle_timeout_s: 1 } });
    const a = await connect(s.url);
    await a.hello();
    await a.request({ type: 'reset', id: 1, items: [{}, {}] });
    expect(await a.closed).toEqual({ code: 1000, reason: 'idle' });
    await until(async () => (await metric(s.app, 'harness_gym_sessions')) === 0);
    expect(await metric(s.app, 'harness_gym_episodes_freed_total{reason="idle"}')).toBe(2);
  });

  it('a peer that answers no pings is dropped, and its session waits for a resume', async () => {
    const s = await start({ limits: { ping_interval_s: 1 } });
    const a = await connect(s.url, { autoPong: false });
    const w = await a.hello();
    await a.request({ type: 'reset', id: 1, items: [{ episode_id: 'k' }] });
    const closed = await a.closed;
    expect(closed.code).toBe(1006);
    const b = await connect(s.url);
    expect((await b.request({ type: 'hello', id: 1, protocol: 1, resume: w.session_id })).resumed).toBe(true);
    expect((await b.request({ type: 'step', id: 2, items: [{ episode_id: 'k', action: { text: 'hi' } }] })).items[0].ok).toBe(true);
  });
});
