/**
 * Graceful shutdown: closing the server while a request is in flight answers that request, answers later
 * requests with SHUTTING_DOWN, reports /readyz 503, and then closes the socket with 1001.
 *
 * To be sure the request is in flight when the close starts, the task source itself starts the close
 * while it serves the 10th reset of the batch; the batch yields to the event loop after every item
 * (`yieldEvery: 1`) and each reset is slowed a little so that the rest of the batch is still running
 * when the test's next request arrives. Nothing asserts on timing.
 */
import { describe, it, expect } from 'vitest';
import { GeneratorTaskSource } from '../../env/index.js';
import type { TaskSource } from '../../env/index.js';
import { buildServer, closeServer, serverState } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, inject, testConfig } from './helpers.js';

/** A task source that calls `onPick(n)` on the n-th pick and takes about `ms` per pick. */
function hookedTaskSource(ms: number, onPick: (n: number) => void): TaskSource {
  const real = new GeneratorTaskSource();
  let n = 0;
  return {
    name: 'hooked',
    pick(...args: Parameters<TaskSource['pick']>) {
      onPick(++n);
      const t = performance.now();
      while (performance.now() - t < ms); // busy: the batch must occupy the server
      return real.pick(...args);
    },
  };
}

const ITEMS = 120;
const BIG = { type: 'reset', id: 'big', items: Array.from({ length: ITEMS }, () => ({})) };

/** A server whose 10th reset starts `closeServer(app)`; `closing` resolves to the close promise. */
function closingServer(overrides: Record<string, unknown> = {}) {
  // The close promise travels wrapped: resolving with a bare promise would wait for it to settle.
  let resolveClosing: (p: { done: Promise<void> }) => void = () => {};
  const closing = new Promise<{ done: Promise<void> }>((r) => (resolveClosing = r));
  let app: GymApp | undefined;
  const taskSource = hookedTaskSource(2, (n) => {
    if (n === 10 && app) resolveClosing({ done: closeServer(app) });
  });
  app = buildServer(testConfig(overrides), { env: { taskSource }, yieldEvery: 1 });
  return { app, closing };
}

describe('graceful shutdown', () => {
  it('answers the in-flight request, refuses new ones with SHUTTING_DOWN, then closes with 1001', async () => {
    const { app, closing } = closingServer();
    await app.ready();
    const c = await inject(app);
    await c.hello({ seed: 1 });
    c.send(BIG);
    const { done } = await closing;
    expect(serverState(app).shuttingDown).toBe(true);
    c.send({ type: 'ping', id: 'late' });
    const late = await c.next();
    expect(late.msg).toEqual({ type: 'error', id: 'late', error: { code: 'SHUTTING_DOWN', message: expect.any(String) } });
    const big = (await c.next()).msg;
    expect(big.type).toBe('reset_result');
    expect(big.items).toHaveLength(ITEMS);
    expect(big.items.every((i: { ok: boolean }) => i.ok)).toBe(true);
    expect((await c.closed).code).toBe(1001);
    await done;
    expect(serverState(app)).toEqual({ sessions: 0, episodes: 0, inFlight: 0, shuttingDown: true, ready: true, workers: expect.any(Number) });
  });

  it('over a real socket: a new hello is refused and /readyz is 503 while draining', async () => {
    const { app, closing } = closingServer();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    await c.hello();
    const pending = await connect(url); // connected, no hello yet
    c.send(BIG);
    const { done } = await closing;
    expect(serverState(app).shuttingDown).toBe(true);
    pending.send({ type: 'hello', id: 'h', protocol: 1 });
    expect((await pending.next()).msg).toEqual({ type: 'error', id: 'h', error: { code: 'SHUTTING_DOWN', message: expect.any(String) } });
    expect((await pending.closed).code).toBe(1001);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    const big = await c.next();
    expect(big.msg.items).toHaveLength(ITEMS);
    expect((await c.closed).code).toBe(1001);
    await done;
  });
});
