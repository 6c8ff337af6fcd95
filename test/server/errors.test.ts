/**
 * Every error code the server produces, each followed by proof that the connection (and the other items
 * of the batch) survived: a ping answered, or the other items' results.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { GeneratorTaskSource } from '../../env/index.js';
import type { GymApp } from '../../server/index.js';
import { inject, makeApp, pack } from './helpers.js';

let app: GymApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A client with an open session. */
async function session(overrides: Record<string, unknown> = {}) {
  app = await makeApp(overrides);
  const c = await inject(app);
  const w = await c.hello({ seed: 1 });
  expect(w.type).toBe('welcome');
  return c;
}

/** Play an episode to its end with replies that break rules until the hooks give up. */
async function playToEnd(c: Awaited<ReturnType<typeof session>>, episode_id: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const s = await c.request({ type: 'step', id: `end-${episode_id}-${i}`, items: [{ episode_id, action: { text: '你好' } }] });
    const item = s.items[0];
    if (!item.ok) throw new Error(item.error.code);
    if (item.terminated || item.truncated) return;
  }
  throw new Error('episode did not end');
}

describe('frame-level errors', () => {
  it('BAD_FRAME for undecodable JSON and MessagePack, id null; the connection survives', async () => {
    const c = await session();
    c.sendRaw('{"type": "ping", "id": 1');
    expect((await c.next()).msg).toEqual({ type: 'error', id: null, error: { code: 'BAD_FRAME', message: expect.any(String) } });
    c.sendRaw(Buffer.from([0xc1]));
    expect((await c.next()).msg.error.code).toBe('BAD_FRAME');
    c.sendRaw(Buffer.from([0x92, 0x01])); // truncated array
    expect((await c.next()).msg.error.code).toBe('BAD_FRAME');
    expect(await c.alive()).toBe(true);
  });

  it('INVALID_MESSAGE with details for a non-map, a missing type and wrong field types; the id is echoed when readable', async () => {
    const c = await session();
    expect(await c.request([1, 2])).toEqual({
      type: 'error',
      id: null,
      error: { code: 'INVALID_MESSAGE', message: expect.any(String), details: { issues: [{ path: [], message: 'expected a map' }] } },
    });
    expect(await c.request({ id: 'x' })).toEqual({
      type: 'error',
      id: 'x',
      error: { code: 'INVALID_MESSAGE', message: expect.any(String), details: { issues: [{ path: ['type'], message: 'required' }] } },
    });
    const bad = await c.request({ type: 'reset', id: 'y', items: 'nope' });
    expect(bad.id).toBe('y');
    expect(bad.error.code).toBe('INVALID_MESSAGE');
    expect(bad.error.details.issues.map((i: { path: unknown[] }) => i.path)).toEqual([['items']]);
    const noId = await c.request({ type: 'ping', id: 1.5 });
    expect(noId.id).toBeNull();
    expect(noId.error.details.issues.map((i: { path: unknown[] }) => i.path)).toEqual([['id']]);
    const close = await c.request({ type: 'close', id: 3, episode_ids: ['a', 7] });
    expect(close.error.details.issues.map((i: { path: unknown[] }) => i.path)).toEqual([['episode_ids', 1]]);
    expect(await c.alive()).toBe(true);
  });

  it('UNKNOWN_TYPE for a type the protocol does not define', async () => {
    const c = await session();
    expect(await c.request({ type: 'welcome', id: 4 })).toEqual({
      type: 'error',
      id: 4,
      error: { code: 'UNKNOWN_TYPE', message: expect.any(String), details: { types: ['hello', 'reset', 'step', 'close', 'ping'] } },
    });
    expect(await c.alive()).toBe(true);
  });

  it('HELLO_REQUIRED before hello; the connection stays open and hello then works', async () => {
    app = await makeApp();
    const c = await inject(app);
    expect(await c.request({ type: 'ping', id: 1 })).toEqual({
      type: 'error',
      id: 1,
      error: { code: 'HELLO_REQUIRED', message: expect.any(String) },
    });
    expect(await c.request({ type: 'reset', id: 2, items: [] })).toMatchObject({ id: 2, error: { code: 'HELLO_REQUIRED' } });
    expect((await c.hello()).type).toBe('welcome');
    expect(await c.alive()).toBe(true);
  });

  it('a second hello is INVALID_MESSAGE and the session goes on', async () => {
    const c = await session();
    const r = await c.request({ type: 'hello', id: 'again', protocol: 1 });
    expect(r).toMatchObject({ type: 'error', id: 'again', error: { code: 'INVALID_MESSAGE' } });
    expect(await c.alive()).toBe(true);
  });

  it('PROTOCOL_VERSION, then close 1008', async () => {
    app = await makeApp();
    const c = await inject(app);
    expect(await c.request({ type: 'hello', id: 1, protocol: 2 })).toEqual({
      type: 'error',
      id: 1,
      error: { code: 'PROTOCOL_VERSION', message: expect.any(String), details: { supported: [1] } },
    });
    expect((await c.closed).code).toBe(1008);
  });

  it('UNAUTHORIZED for a missing or wrong token, then close 1008; the right token opens a session', async () => {
    app = await makeApp({ token: 's3cret' });
    const a = await inject(app);
    expect(await a.request({ type: 'hello', id: 1, protocol: 1 })).toEqual({
      type: 'error',
      id: 1,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
    expect((await a.closed).code).toBe(1008);
    const b = await inject(app);
    expect((await b.request({ type: 'hello', id: 1, protocol: 1, token: 's3cret-but-longer' })).error.code).toBe('UNAUTHORIZED');
    expect((await b.closed).code).toBe(1008);
    const c = await inject(app);
    expect((await c.hello({ token: 's3cret' })).type).toBe('welcome');
    expect(await c.alive()).toBe(true);
  });

  it('CAPACITY_REACHED on hello at max_sessions, with retry_after_ms, then close; others are unaffected', async () => {
    app = await makeApp({ max_sessions: 1 });
    const a = await inject(app);
    await a.hello();
    const b = await inject(app);
    const r = await b.request({ type: 'hello', id: 'b', protocol: 1 });
    expect(r).toMatchObject({
      type: 'error',
      id: 'b',
      error: { code: 'CAPACITY_REACHED', details: { retry_after_ms: expect.any(Number) } },
    });
    expect(Number.isInteger(r.error.details.retry_after_ms)).toBe(true);
    expect((await b.closed).code).toBe(1013);
    expect(await a.alive()).toBe(true);
  });

  it('FRAME_TOO_LARGE measured on the payload as received (id echoed), and close 1009 far over the limit', async () => {
    const c = await session({ limits: { max_frame_bytes: 1024 } });
    const big = { type: 'ping', id: 'big', pad: 'x'.repeat(2000) };
    expect(await c.request(big)).toEqual({
      type: 'error',
      id: 'big',
      error: {
        code: 'FRAME_TOO_LARGE',
        message: expect.any(String),
        details: { bytes: JSON.stringify(big).length, max_frame_bytes: 1024 },
      },
    });
    expect((await c.request(big, true)).error.details.bytes).toBe(pack(big).length);
    expect(await c.alive()).toBe(true);
    c.send({ type: 'ping', id: 'huge', pad: 'x'.repeat(5000) });
    expect((await c.closed).code).toBe(1009);
  });

  it('BATCH_TOO_LARGE over max_batch (reset, step, close); nothing of the batch is applied', async () => {
    const c = await session({ limits: { max_batch: 2 } });
    const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }, {}, {}] });
    expect(r).toEqual({
      type: 'error',
      id: 1,
      error: { code: 'BATCH_TOO_LARGE', message: expect.any(String), details: { items: 3, max_batch: 2 } },
    });
    expect((await c.request({ type: 'step', id: 2, items: [{}, {}, {}] })).error.code).toBe('BATCH_TOO_LARGE');
    expect((await c.request({ type: 'close', id: 3, episode_ids: ['a', 'b', 'c'] })).error.code).toBe('BATCH_TOO_LARGE');
    // 'a' was not created.
    expect(await c.request({ type: 'close', id: 4, episode_ids: ['a'] })).toEqual({
      type: 'closed',
      id: 4,
      episode_ids: [],
      unknown: ['a'],
    });
  });
});

describe('item-level errors (the other items proceed)', () => {
  it('INVALID_MESSAGE for a bad item, with details, while its neighbours start', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [{ episode_id: 'a' }, { episode_id: 'b', seed: -1, options: { faults: 3 } }, 'x', {}],
    });
    expect(r.items[0]).toMatchObject({ ok: true, episode_id: 'a' });
    expect(r.items[1]).toEqual({
      ok: false,
      episode_id: 'b',
      error: {
        code: 'INVALID_MESSAGE',
        message: expect.any(String),
        details: { issues: [expect.objectContaining({ path: ['seed'] }), expect.objectContaining({ path: ['options', 'faults'] })] },
      },
    });
    expect(r.items[2]).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_MESSAGE' }) });
    expect(r.items[3]).toMatchObject({ ok: true, episode_id: 'ep-1' });
  });

  it('INVALID_MESSAGE for an unknown parser, reward profile or intent', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [{ options: { parser: 'nope' } }, { options: { rewards: 'nope' } }, { task: { intent: 'nope' } }, { episode_id: 'ok' }],
    });
    expect(r.items.map((i: { ok: boolean; error?: { code: string } }) => i.error?.code ?? 'ok')).toEqual([
      'INVALID_MESSAGE',
      'INVALID_MESSAGE',
      'INVALID_MESSAGE',
      'ok',
    ]);
  });

  it('UNKNOWN_EPISODE for a step on an id never reset (step before reset)', async () => {
    const c = await session();
    await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }] });
    const s = await c.request({
      type: 'step',
      id: 2,
      items: [
        { episode_id: 'never', action: { text: 'hi' } },
        { episode_id: 'a', action: { text: 'hi' } },
      ],
    });
    expect(s.items[0]).toEqual({ ok: false, episode_id: 'never', error: { code: 'UNKNOWN_EPISODE', message: expect.any(String) } });
    expect(s.items[1]).toMatchObject({ ok: true, episode_id: 'a' });
  });

  it('RESET_NEEDED for a step after the end; the ended id may be reset again', async () => {
    const c = await session();
    await c.request({
      type: 'reset',
      id: 1,
      items: [
        { episode_id: 'a', seed: 4 },
        { episode_id: 'b', seed: 5 },
      ],
    });
    await playToEnd(c, 'a');
    const s = await c.request({
      type: 'step',
      id: 2,
      items: [
        { episode_id: 'a', action: { text: 'hi' } },
        { episode_id: 'b', action: { text: 'hi' } },
      ],
    });
    expect(s.items[0]).toEqual({ ok: false, episode_id: 'a', error: { code: 'RESET_NEEDED', message: expect.any(String) } });
    expect(s.items[1]).toMatchObject({ ok: true, episode_id: 'b' });
    const r = await c.request({ type: 'reset', id: 3, items: [{ episode_id: 'a', seed: 4 }] });
    expect(r.items[0]).toMatchObject({ ok: true, episode_id: 'a', info: { turn: 0 } });
  });

  it('DUPLICATE_EPISODE for resetting a live id and for a second item of one id in a frame', async () => {
    const c = await session();
    await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }] });
    const r = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'a' }, { episode_id: 'b' }, { episode_id: 'b' }] });
    expect(
      r.items.map((i: { ok: boolean; episode_id: string; error?: { code: string } }) => [i.episode_id, i.error?.code ?? 'ok']),
    ).toEqual([
      ['a', 'DUPLICATE_EPISODE'],
      ['b', 'ok'],
      ['b', 'DUPLICATE_EPISODE'],
    ]);
    const s = await c.request({
      type: 'step',
      id: 3,
      items: [
        { episode_id: 'b', action: { text: 'x' } },
        { episode_id: 'b', action: { text: 'y' } },
      ],
    });
    expect(s.items.map((i: { error?: { code: string } }) => i.error?.code ?? 'ok')).toEqual(['ok', 'DUPLICATE_EPISODE']);
  });

  it('INVALID_ACTION leaves the episode unchanged; the neighbour steps', async () => {
    const c = await session();
    await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }, { episode_id: 'b' }] });
    const s = await c.request({
      type: 'step',
      id: 2,
      items: [
        { episode_id: 'a', action: { text: 7 } },
        { episode_id: 'b', action: { text: 'hi' } },
      ],
    });
    expect(s.items[0]).toEqual({ ok: false, episode_id: 'a', error: { code: 'INVALID_ACTION', message: expect.any(String) } });
    expect(s.items[1]).toMatchObject({ ok: true, info: { turn: 1 } });
    const again = await c.request({
      type: 'step',
      id: 3,
      items: [
        { episode_id: 'a', action: { message: { role: 'user', content: 'x' } } },
        { episode_id: 'a', action: { text: 'x' } },
      ],
    });
    expect(again.items[0].error.code).toBe('INVALID_ACTION');
    expect(again.items[1].error.code).toBe('DUPLICATE_EPISODE');
    const ok = await c.request({ type: 'step', id: 4, items: [{ episode_id: 'a', action: { text: 'hi' } }] });
    expect(ok.items[0]).toMatchObject({ ok: true, info: { turn: 1 } });
  });

  it('INVALID_VARIANT for an unknown preset, an unknown family and an intensity outside [0, 1]', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { episode_id: 'p', variant: 'no-such-preset' },
        { episode_id: 'f', variant: { families: ['no-such-family'], intensity: 0.5, split: 'train' } },
        { episode_id: 'i', variant: { families: [], intensity: 2, split: 'train' } },
        { episode_id: 'ok', variant: 'identity' },
      ],
    });
    expect(r.items.map((i: { episode_id: string; error?: { code: string } }) => [i.episode_id, i.error?.code ?? 'ok'])).toEqual([
      ['p', 'INVALID_VARIANT'],
      ['f', 'INVALID_VARIANT'],
      ['i', 'INVALID_VARIANT'],
      ['ok', 'ok'],
    ]);
  });

  it('UNKNOWN_TASK for a task id the source does not have', async () => {
    const c = await session();
    const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 't', task: { id: 'no-such-task' } }, { episode_id: 'ok' }] });
    expect(r.items[0]).toEqual({ ok: false, episode_id: 't', error: { code: 'UNKNOWN_TASK', message: expect.any(String) } });
    expect(r.items[1].ok).toBe(true);
  });

  it('CAPACITY_REACHED at max_episodes (ended ones count until closed); closing frees room', async () => {
    const c = await session({ limits: { max_episodes: 2 } });
    const r = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }, { episode_id: 'b' }, { episode_id: 'c' }] });
    expect(r.items.map((i: { error?: { code: string } }) => i.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'CAPACITY_REACHED']);
    expect(r.items[2]).toEqual({
      ok: false,
      episode_id: 'c',
      error: { code: 'CAPACITY_REACHED', message: expect.any(String), details: { max_episodes: 2 } },
    });
    await playToEnd(c, 'a');
    expect((await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'c' }] })).items[0].error.code).toBe('CAPACITY_REACHED');
    // Resetting the ended 'a' again replaces it: allowed at capacity.
    expect((await c.request({ type: 'reset', id: 3, items: [{ episode_id: 'a' }] })).items[0].ok).toBe(true);
    await c.request({ type: 'close', id: 4, episode_ids: ['b'] });
    expect((await c.request({ type: 'reset', id: 5, items: [{ episode_id: 'c' }] })).items[0].ok).toBe(true);
  });

  it('options.oracle_hints is INVALID_MESSAGE on a server that does not allow it', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [{ episode_id: 'o', options: { oracle_hints: true } }, { episode_id: 'ok' }],
    });
    expect(r.items[0]).toEqual({
      ok: false,
      episode_id: 'o',
      error: {
        code: 'INVALID_MESSAGE',
        message: expect.any(String),
        details: { issues: [{ path: ['options', 'oracle_hints'], message: expect.any(String) }] },
      },
    });
    expect(r.items[1].ok).toBe(true);
  });

  it('INTERNAL with a trace_id that is in the log, for that item alone; the server carries on', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const real = new GeneratorTaskSource();
    const taskSource = {
      name: 'flaky',
      pick: (seed: number, selector: Parameters<GeneratorTaskSource['pick']>[1], locale: Parameters<GeneratorTaskSource['pick']>[2]) => {
        if (seed === 666) throw new Error('boom');
        return real.pick(seed, selector, locale);
      },
    };
    app = await makeApp({}, { logger, env: { taskSource } });
    const c = await inject(app);
    await c.hello();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { episode_id: 'x', seed: 666 },
        { episode_id: 'y', seed: 1 },
      ],
    });
    expect(r.items[0]).toEqual({
      ok: false,
      episode_id: 'x',
      error: { code: 'INTERNAL', message: expect.any(String), details: { trace_id: expect.any(String) } },
    });
    expect(r.items[1].ok).toBe(true);
    const traceId = r.items[0].error.details.trace_id as string;
    expect(lines.some((l) => l.includes(traceId) && l.includes('boom'))).toBe(true);
    expect(await c.alive()).toBe(true);
  });
});
