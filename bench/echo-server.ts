/**
 * The bare WebSocket echo baseline: the environment server's stack (fastify 5 + @fastify/websocket, the
 * server's `Codec` for msgpackr, the protocol's edge schemas) with the environment taken out.
 *
 * Method. During the throughput phase the bench records every step reply item the environment server
 * sent, keyed by (episode_id, step number since the episode's reset) (`bench/corpus.ts`). This server is
 * started with that corpus, and the bench replays the same rounds: the same request frames, byte for
 * byte. For each step frame it does what the environment server does around the environment: decode the
 * frame, check it against the step envelope schema, check each item against the step item schema, then
 * look the reply item up instead of stepping an episode, and encode a `step_result` whose bytes equal the
 * environment's reply (same ids, same items, same codec). The ratio env/echo steps per second is then the
 * share of transport + codec capacity the environment leaves: 1.0 would be an environment that costs
 * nothing.
 *
 * Resets are outside the timed window and their replies are never read beyond `ok`, so the echo answers
 * them with a minimal item (no observation) and only restarts the episode's step count.
 *
 * Run as a child process by the bench (`node dist/bench/echo-server.js --corpus FILE --port P`), or
 * in-process through `startEchoServer` (tests).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { RawData, WebSocket } from 'ws';
import { Codec } from '../protocol/codec.js';
import { ResetEnvelopeSchema, StepEnvelopeSchema, StepItemSchema, WIRE_PATH, WIRE_PROTOCOL_VERSION } from '../protocol/wire.js';
import { Corpus, corpusKey } from './corpus.js';

/** The frame limit the environment server uses by default (4 MiB); frames up to 4x are read, as there. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** A listening echo server. */
export interface EchoServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** One connection's state: the step count of each episode since its reset. */
class EchoConnection {
  readonly #ws: WebSocket;
  readonly #codec: Codec;
  readonly #corpus: Corpus;
  readonly #steps = new Map<string, number>();

  constructor(ws: WebSocket, codec: Codec, corpus: Corpus) {
    this.#ws = ws;
    this.#codec = codec;
    this.#corpus = corpus;
    ws.on('message', (data, isBinary) => this.#onMessage(toBuffer(data), isBinary));
    ws.on('error', () => undefined);
  }

  #send(reply: object, binary: boolean): void {
    if (this.#ws.readyState === 1) this.#ws.send(this.#codec.encode(reply, binary));
  }

  #onMessage(data: Buffer, binary: boolean): void {
    const decoded = this.#codec.decode(data, binary);
    if (!decoded.ok) return this.#send({ type: 'error', id: null, error: { code: 'BAD_FRAME', message: decoded.message } }, binary);
    const msg = decoded.value as Record<string, unknown>;
    switch (msg.type) {
      case 'step':
        return this.#step(msg, binary);
      case 'reset':
        return this.#reset(msg, binary);
      case 'hello':
        return this.#send(
          {
            type: 'welcome',
            id: msg.id,
            protocol: WIRE_PROTOCOL_VERSION,
            session_id: randomUUID(),
            resumed: false,
            server: { name: 'harness-gym-echo', version: '0' },
          },
          binary,
        );
      case 'close':
        return this.#send({ type: 'closed', id: msg.id, episode_ids: msg.episode_ids, unknown: [] }, binary);
      case 'ping':
        return this.#send({ type: 'pong', id: msg.id }, binary);
      default:
        return this.#send({ type: 'error', id: msg.id ?? null, error: { code: 'UNKNOWN_TYPE', message: 'unknown type' } }, binary);
    }
  }

  #step(msg: Record<string, unknown>, binary: boolean): void {
    // The same edge and item validation the environment server runs (server/connection.ts, session.ts).
    const parsed = StepEnvelopeSchema.safeParse(msg);
    if (!parsed.success)
      return this.#send({ type: 'error', id: msg.id ?? null, error: { code: 'INVALID_MESSAGE', message: 'schema' } }, binary);
    const items: unknown[] = [];
    for (const raw of parsed.data.items) {
      const item = StepItemSchema.safeParse(raw);
      if (!item.success) {
        items.push({ ok: false, error: { code: 'INVALID_MESSAGE', message: 'the step item fails the schema' } });
        continue;
      }
      const eid = item.data.episode_id;
      const n = (this.#steps.get(eid) ?? 0) + 1;
      this.#steps.set(eid, n);
      const recorded = this.#corpus.items.get(corpusKey(eid, n));
      items.push(
        recorded ?? { ok: false, episode_id: eid, error: { code: 'UNKNOWN_EPISODE', message: `no recorded reply for step ${n}` } },
      );
    }
    this.#send({ type: 'step_result', id: parsed.data.id, items }, binary);
  }

  #reset(msg: Record<string, unknown>, binary: boolean): void {
    const parsed = ResetEnvelopeSchema.safeParse(msg);
    if (!parsed.success)
      return this.#send({ type: 'error', id: msg.id ?? null, error: { code: 'INVALID_MESSAGE', message: 'schema' } }, binary);
    const items = parsed.data.items.map((raw) => {
      const eid = (raw as { episode_id?: unknown }).episode_id;
      if (typeof eid !== 'string') return { ok: false, error: { code: 'INVALID_MESSAGE', message: 'the echo needs episode ids' } };
      this.#steps.set(eid, 0);
      return { ok: true, episode_id: eid, observation: { messages: [] }, info: {} };
    });
    this.#send({ type: 'reset_result', id: parsed.data.id, items }, binary);
  }
}

/** Start an echo server on `host:port` (port 0 picks a free one) answering from `corpus`. */
export async function startEchoServer(corpus: Corpus, opts: { host?: string; port?: number } = {}): Promise<EchoServer> {
  const app: FastifyInstance = Fastify({ logger: false });
  const codec = new Codec();
  await app.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES * 4 } });
  app.register(async (scope) => {
    scope.get(WIRE_PATH, { websocket: true }, (socket) => {
      new EchoConnection(socket, codec, corpus);
    });
    scope.get('/readyz', async () => ({ status: 'ready' }));
  });
  const address = await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const port = Number(new URL(address).port);
  return { url: `ws://127.0.0.1:${port}${WIRE_PATH}`, port, close: () => app.close() };
}

/** Child-process entry: `--corpus FILE --port P [--host H]`; prints nothing on stdout, exits on SIGTERM. */
async function main(argv: string[]): Promise<void> {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const file = flag('--corpus');
  if (!file) throw new Error('echo-server: --corpus FILE is required');
  const server = await startEchoServer(Corpus.read(file), { host: flag('--host') ?? '127.0.0.1', port: Number(flag('--port') ?? 0) });
  process.stderr.write(`echo-server: listening on ${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
