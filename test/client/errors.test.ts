import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { HarnessGymClient, HarnessGymError, isItemError, unwrap } from '../../client/index.js';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ token: 'secret', limits: { max_batch: 4 } });
});
afterAll(async () => {
  await srv.close();
});

describe('typed errors', () => {
  it('an unknown episode is an ItemError (UNKNOWN_EPISODE) beside a good item; unwrap throws it typed', async () => {
    const client = await HarnessGymClient.connect(srv.url, { token: 'secret' });
    const [ok] = await client.reset([{ episode_id: 'a', seed: 1 }]);
    const items = await client.step([
      { episode_id: 'ghost', action: { text: 'hi' } },
      { episode_id: 'a', action: { message: { role: 'assistant', content: '你好' } } },
    ]);
    expect(items[0]).toMatchObject({ ok: false, episode_id: 'ghost', error: { code: 'UNKNOWN_EPISODE' } });
    expect(isItemError(items[0])).toBe(true);
    expect(items[1]).toMatchObject({ ok: true, episode_id: 'a', info: { turn: 1 } });
    expect(unwrap(ok).episode_id).toBe('a');
    let thrown: unknown;
    try {
      unwrap(items[0]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(HarnessGymError);
    expect(thrown).toMatchObject({ code: 'UNKNOWN_EPISODE', details: { episode_id: 'ghost' } });
    // Other item codes come through the same way.
    const [dup] = await client.reset([{ episode_id: 'a', seed: 1 }]);
    expect(dup).toMatchObject({ ok: false, error: { code: 'DUPLICATE_EPISODE' } });
    const [bad] = await client.step([{ episode_id: 'a', action: { nonsense: 1 } }]);
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_ACTION' } });
    const [variant] = await client.reset([{ episode_id: 'b', seed: 1, variant: 'no-such-preset' }]);
    expect(variant).toMatchObject({ ok: false, error: { code: 'INVALID_VARIANT' } });
    await client.close();
  });

  it('a frame-level error rejects that request with HarnessGymError; the connection stays usable', async () => {
    const client = await HarnessGymClient.connect(srv.url, { token: 'secret' });
    const five = [1, 2, 3, 4, 5].map((seed) => ({ seed }));
    const tooMany = client.reset(five);
    const ping = client.ping();
    await expect(tooMany).rejects.toBeInstanceOf(HarnessGymError);
    await expect(tooMany).rejects.toMatchObject({ code: 'BATCH_TOO_LARGE' });
    await expect(ping).resolves.toBeUndefined();
    expect((await client.reset(five.slice(0, 4))).every((r) => r.ok)).toBe(true);
    await client.close();
  });

  it('connect rejects with UNAUTHORIZED for a wrong token', async () => {
    await expect(HarnessGymClient.connect(srv.url, { token: 'wrong' })).rejects.toMatchObject({
      name: 'HarnessGymError',
      code: 'UNAUTHORIZED',
    });
    await expect(HarnessGymClient.connect('ws://127.0.0.1:1/v1/env')).rejects.toMatchObject({ code: 'CONNECTION_FAILED' });
  });

  it('close(ids) reports unknown ids; close() ends the session and later requests reject', async () => {
    const client = await HarnessGymClient.connect(srv.url, { token: 'secret', encoding: 'json' });
    await client.reset([{ episode_id: 'e1', seed: 2 }]);
    expect(await client.close(['e1', 'nope'])).toEqual({ episode_ids: ['e1'], unknown: ['nope'] });
    await client.close();
    expect(client.isClosed).toBe(true);
    await expect(client.ping()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('a request without a reply in time rejects with CLIENT_TIMEOUT; an error frame with id null goes to onError', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        if (msg.type === 'hello') ws.send(JSON.stringify({ type: 'welcome', id: msg.id, protocol: 1, session_id: 's', resumed: false }));
        else ws.send(JSON.stringify({ type: 'error', id: null, error: { code: 'BAD_FRAME', message: 'x' } }));
      });
    });
    await new Promise((r) => wss.once('listening', r));
    const seen: string[] = [];
    const client = await HarnessGymClient.connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
      encoding: 'json',
      timeout_ms: 50,
      onError: (e) => seen.push(e.code),
    });
    await expect(client.ping()).rejects.toMatchObject({ code: 'CLIENT_TIMEOUT' });
    expect(seen).toEqual(['BAD_FRAME']);
    await client.close();
    await new Promise((r) => wss.close(r));
  });
});
