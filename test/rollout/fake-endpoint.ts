/**
 * A fake OpenAI-compatible chat-completions endpoint (node:http on 127.0.0.1:0) for the rollout tests.
 * It plays the oracle: the rollout's test hook sends `info.oracle_action` in the
 * `x-harness-gym-oracle-action` header, and the fake answers it as a chat completion (`tool_calls` for a
 * structured action, `content` for a raw-text one). `fail` decides, per request number, to answer
 * a 500, to hang past the client's timeout, to answer a tool call the environment must refuse
 * (`arguments` an object, not a JSON string), or to answer normally.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ORACLE_ACTION_HEADER } from '../../client/rollout.js';

/** What the fake does with request n (1-based). */
export type FakeBehaviour = 'ok' | 'error500' | 'hang' | 'invalid' | 'wrong';

/** A running fake endpoint. */
export interface FakeEndpoint {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** Requests received so far. */
  readonly requests: number;
  /** Bodies of the requests received (model, messages, tools), for inspection. */
  readonly bodies: unknown[];
  close(): Promise<void>;
}

/** Start the fake; `fail(n)` picks the behaviour of request n. */
export async function startFakeEndpoint(fail: (n: number) => FakeBehaviour = () => 'ok', keepBodies = false): Promise<FakeEndpoint> {
  let requests = 0;
  const bodies: unknown[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = ++requests;
      if (keepBodies) bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const behaviour = fail(n);
      if (behaviour === 'error500') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
        return;
      }
      if (behaviour === 'invalid') {
        const bad = {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'x', type: 'function', function: { name: 'load_skill', arguments: { name: 1 } } }],
        };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ id: `cmpl-${n}`, object: 'chat.completion', choices: [{ index: 0, message: bad, finish_reason: 'stop' }] }),
          );
        return;
      }
      if (behaviour === 'wrong') {
        // A well-formed final reply that answers nothing: the episode ends, with a low reward.
        const message = { role: 'assistant', content: '好的' };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: `cmpl-${n}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
        return;
      }
      if (behaviour === 'hang') {
        hanging.add(res);
        return;
      }
      const raw = req.headers[ORACLE_ACTION_HEADER];
      const action = typeof raw === 'string' ? (JSON.parse(decodeURIComponent(raw)) as { message?: unknown; text?: string }) : {};
      const message = action.message ?? { role: 'assistant', content: action.text ?? '' };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: `cmpl-${n}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    bodies,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
