/**
 * What a re-sent request is (docs/PROTOCOL.md "Sessions"): the same id and the same content. Over real
 * sockets: a client that resumes and restarts its id counter at 1 gets its new requests applied (a stored
 * reply is never handed to a different request), an exact re-send gets the stored reply byte for byte and
 * is applied once, in both encodings and when a resumed client switches encoding; a request that reuses
 * an answered id replaces the stored reply.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, metric, testConfig, until } from './helpers.js';
import type { WireClient } from './helpers.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(): Promise<RunningServer> {
  server = await startServer(testConfig({ port: 0 }));
  return server;
}

/** Drop a connection without a close frame and wait until the server has seen it. */
async function drop(s: RunningServer, c: WireClient): Promise<void> {
  c.ws.terminate();
  await c.closed;
  await until(async () => (await metric(s.app, 'harness_gym_sessions')) === 1);
}

const step = (id: number, episode_id: string, text: string) => ({ type: 'step', id, items: [{ episode_id, action: { text } }] });
/** A step that does not end the episode (a skill load). */
const toolStep = (id: number, episode_id: string) => ({
  type: 'step',
  id,
  items: [
    {
      episode_id,
      action: {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `c${id}`, type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } }],
        },
      },
    },
  ],
});

/** Connection A's script: hello; reset 1 (y1); step 2 (y1); ping 3; close 4 (y1). `binary` per request. */
async function firstConnection(s: RunningServer, binary: (i: number) => boolean) {
  const a = await connect(s.url);
  const w = await a.request({ type: 'hello', id: 0, protocol: 1, seed: 5 }, binary(0));
  const reset = await a.request({ type: 'reset', id: 1, items: [{ episode_id: 'y1', seed: 21 }] }, binary(1));
  const stepped = await a.request(step(2, 'y1', '你好'), binary(2));
  const pong = await a.request({ type: 'ping', id: 3 }, binary(3));
  const closed = await a.request({ type: 'close', id: 4, episode_ids: ['y1'] }, binary(4));
  await drop(s, a);
  return { session_id: w.session_id as string, reset, stepped, pong, closed };
}

const encodings: [string, (i: number) => boolean][] = [
  ['JSON', () => false],
  ['MessagePack', () => true],
  ['a mix of both', (i) => i % 2 === 1],
];

describe('a resumed client that restarts its id counter', () => {
  for (const [name, binary] of encodings) {
    it(`gets its new requests applied, not the stored replies (${name})`, async () => {
      const s = await start();
      const a = await firstConnection(s, binary);
      const b = await connect(s.url);
      expect(await b.request({ type: 'hello', id: 0, protocol: 1, resume: a.session_id }, binary(0))).toMatchObject({ resumed: true });

      // The sequence: every id was answered on A, every request here is a new one.
      const reset = await b.request({ type: 'reset', id: 1, items: [{ episode_id: 'y2', seed: 22 }] }, !binary(1));
      expect(reset.type).toBe('reset_result');
      expect(reset.items[0]).toMatchObject({ ok: true, episode_id: 'y2', info: { turn: 0 } });
      const stepped = await b.request(step(2, 'y2', '你好'), !binary(2));
      expect(stepped.type).toBe('step_result');
      expect(stepped.items[0]).toMatchObject({ ok: true, episode_id: 'y2', info: { turn: 1 } });
      expect(await b.request({ type: 'close', id: 3, episode_ids: ['y2'] }, !binary(3))).toEqual({ type: 'closed', id: 3, episode_ids: ['y2'], unknown: [] });
      expect(await b.request({ type: 'ping', id: 4 }, !binary(4))).toEqual({ type: 'pong', id: 4 });
      expect(await metric(s.app, 'harness_gym_resets_total')).toBe(2);
    });
  }

  it('the new request replaces the stored reply: re-sending it gets the new reply', async () => {
    const s = await start();
    const a = await firstConnection(s, () => true);
    const b = await connect(s.url);
    await b.request({ type: 'hello', id: 0, protocol: 1, resume: a.session_id }, true);
    b.send({ type: 'reset', id: 1, items: [{ episode_id: 'y2', seed: 22 }] }, true);
    const fresh = await b.next();
    await drop(s, b);

    const c = await connect(s.url);
    await c.request({ type: 'hello', id: 0, protocol: 1, resume: a.session_id }, true);
    c.send({ type: 'reset', id: 1, items: [{ episode_id: 'y2', seed: 22 }] }, true);
    const again = await c.next();
    expect(again.raw.equals(fresh.raw)).toBe(true);
    // Answered from the window: y2 is live once, not reset twice (which would be DUPLICATE_EPISODE).
    expect(await metric(s.app, 'harness_gym_resets_total')).toBe(2);
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(1);
  });
});

describe('an exact re-send after a resume', () => {
  for (const [name, binary] of encodings) {
    it(`gets every stored reply byte for byte and is applied once (${name})`, async () => {
      const s = await start();
      const a = await connect(s.url);
      const w = await a.request({ type: 'hello', id: 0, protocol: 1, seed: 5 }, binary(0));
      const requests = [
        { type: 'reset', id: 1, items: [{ episode_id: 'y1', seed: 21 }, { seed: 4, variant: 'train' }] },
        toolStep(2, 'y1'),
        { type: 'ping', id: 3 },
        toolStep(4, 'y1'),
      ];
      const first: Buffer[] = [];
      for (const [i, r] of requests.entries()) {
        a.send(r, binary(i + 1));
        first.push((await a.next()).raw);
      }
      await drop(s, a);
      const b = await connect(s.url);
      expect(await b.request({ type: 'hello', id: 'h', protocol: 1, resume: w.session_id }, binary(0))).toMatchObject({ resumed: true });
      // Key order is not content: the re-sent maps list their fields in another order.
      for (const [i, r] of requests.entries()) {
        const reordered = Object.fromEntries(Object.entries(r).reverse());
        b.send(reordered, binary(i + 1));
        expect((await b.next()).raw.equals(first[i] as Buffer), `request ${r.id}`).toBe(true);
      }
      expect(await metric(s.app, 'harness_gym_resets_total')).toBe(2);
      expect(await metric(s.app, 'harness_gym_steps_total')).toBe(2);
      // The episode is where A left it: the next step is its third turn.
      const next = await b.request(step(5, 'y1', 'third'));
      expect(next.items[0].info.turn).toBe(3);
    });
  }

  it('in the other encoding gets the same reply, re-encoded', async () => {
    const s = await start();
    const a = await connect(s.url);
    const w = await a.hello({ seed: 5 });
    const reset = { type: 'reset', id: 'r', items: [{ episode_id: 'y1', seed: 21 }] };
    const original = await a.request(reset, true);
    await drop(s, a);
    const b = await connect(s.url);
    await b.request({ type: 'hello', id: 'h', protocol: 1, resume: w.session_id });
    b.send(reset, false);
    const replayed = await b.next();
    expect(replayed.binary).toBe(false);
    expect(replayed.msg).toEqual(original);
    expect(await metric(s.app, 'harness_gym_resets_total')).toBe(1);
  });
});
