import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessGymClient } from '../../client/index.js';
import { evaluateRemote } from '../../eval/index.js';
import type { StepItem } from '../../client/index.js';
import { POLICIES } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import type { EvalOptions } from '../../eval/index.js';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

const RECONNECT = { reconnect: { retries: 5, backoff_ms: 10 } };

/**
 * Make `client` drop its socket (terminate: no close frame) right after sending its step frames number
 * `at`: the frame may or may not have reached the server, its reply is lost either way.
 */
function dropAfterSteps(client: HarnessGymClient, at: ReadonlySet<number>): { drops: number; sessions: Set<string>; resumed: boolean[] } {
  const seen = { drops: 0, sessions: new Set<string>([client.sessionId]), resumed: [] as boolean[] };
  const step = client.step.bind(client);
  let n = 0;
  client.step = (items: readonly StepItem[]) => {
    const reply = step(items);
    if (at.has(++n)) {
      client.dropConnection();
      seen.drops++;
    }
    return reply.then((r) => {
      seen.sessions.add(client.sessionId);
      seen.resumed.push(client.welcome.resumed);
      return r;
    });
  };
  return seen;
}

describe('reconnect with resume', () => {
  for (const encoding of ['msgpack', 'json'] as const) {
    it(`a run whose socket is terminated mid-run finishes with the in-process result (${encoding})`, async () => {
      for (const name of ['oracle', 'random']) {
        const opts: EvalOptions = { policy: POLICIES.get(name)!, episodes: 40, seed: 21, variant: 'identity' };
        let seen: ReturnType<typeof dropAfterSteps> | undefined;
        const remote = await evaluateRemote({
          ...opts,
          url: srv.url,
          encoding,
          batch: 8,
          client: RECONNECT,
          onConnect: (c) => {
            seen = dropAfterSteps(c, new Set([2, 5, 6, 8]));
          },
        });
        expect(JSON.stringify(remote)).toBe(JSON.stringify(evaluate(opts)));
        expect(seen!.drops).toBe(4);
        // One session throughout, resumed after the first drop.
        expect(seen!.sessions.size).toBe(1);
        expect(seen!.resumed.at(-1)).toBe(true);
      }
    });
  }

  it('a step re-sent after a drop is applied once', async () => {
    const client = await HarnessGymClient.connect(srv.url, RECONNECT);
    const [r] = await client.reset([{ episode_id: 'x', seed: 3 }]);
    expect(r.ok).toBe(true);
    const action = {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_product', arguments: '{"link_no":1}' } }],
      },
    };
    // Dropped right after sending: whether the server applied it before the drop (then it replays the
    // stored reply) or receives it only after the resume, it is applied once: turn 1, then 2.
    const p = client.step([{ episode_id: 'x', action }]);
    client.dropConnection();
    const [s] = await p;
    expect(s.ok && s.info.turn).toBe(1);
    const [s2] = await client.step([{ episode_id: 'x', action }]);
    expect(s2.ok && s2.info.turn).toBe(2);
    expect(client.welcome.resumed).toBe(true);
    await client.close();
  });

  it('without a reconnect policy a drop rejects the pending requests with CONNECTION_CLOSED', async () => {
    const client = await HarnessGymClient.connect(srv.url);
    const p = client.ping();
    client.dropConnection();
    await expect(p).rejects.toMatchObject({ name: 'HarnessGymError', code: 'CONNECTION_CLOSED' });
    await expect(client.ping()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('after a drop it sends hello {resume, token} and re-sends each pending request with its id and bytes', async () => {
    // A scripted server: the first connection swallows the first step and drops; the second answers.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    const conns: { frames: string[] }[] = [];
    wss.on('connection', (ws) => {
      const conn = { frames: [] as string[] };
      conns.push(conn);
      ws.on('message', (data) => {
        const text = data.toString();
        conn.frames.push(text);
        const msg = JSON.parse(text);
        if (msg.type === 'hello') {
          ws.send(
            JSON.stringify({
              type: 'welcome',
              id: msg.id,
              protocol: 1,
              session_id: 's-1',
              resumed: msg.resume !== undefined,
              server: { name: 'fake', version: '0' },
              limits: {},
              defaults: {},
              reward_profiles: [],
              variant_presets: [],
              variant_families: [],
              parsers: [],
            }),
          );
        } else if (msg.type === 'step' && conns.length === 1) {
          ws.terminate();
        } else if (msg.type === 'step') {
          ws.send(JSON.stringify({ type: 'step_result', id: msg.id, items: [] }));
        } else if (msg.type === 'ping') {
          ws.send(JSON.stringify({ type: 'pong', id: msg.id }));
        }
      });
    });
    await new Promise((r) => wss.once('listening', r));
    const port = (wss.address() as AddressInfo).port;
    const client = await HarnessGymClient.connect(`ws://127.0.0.1:${port}/v1/env`, {
      encoding: 'json',
      token: 'tk',
      seed: 5,
      ...RECONNECT,
    });
    expect(await client.step([])).toEqual([]);
    await client.ping();
    expect(conns.length).toBe(2);
    expect(conns[0].frames.map((f) => JSON.parse(f))).toEqual([
      { type: 'hello', id: 1, protocol: 1, token: 'tk', seed: 5 },
      { type: 'step', id: 2, items: [] },
    ]);
    // The resume hello carries the token and the session, not the seed; the step is re-sent byte for byte.
    expect(JSON.parse(conns[1].frames[0])).toEqual({ type: 'hello', id: 3, protocol: 1, token: 'tk', resume: 's-1' });
    expect(conns[1].frames[1]).toBe(conns[0].frames[1]);
    expect(JSON.parse(conns[1].frames[2])).toEqual({ type: 'ping', id: 4 });
    expect(client.welcome.resumed).toBe(true);
    await client.close();
    await new Promise((r) => wss.close(r));
  });
});
