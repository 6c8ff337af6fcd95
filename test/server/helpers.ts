/**
 * Test helpers for the server suite: a config with quiet logs, and a small WebSocket client that decodes
 * replies (JSON text / MessagePack binary), remembers each reply's encoding, and waits by id.
 */
import { MsgpackCodec } from '../../protocol/codec.js';
import WebSocket from 'ws';
import { buildServer, parseServerConfig, serverReady } from '../../server/index.js';
import type { GymApp, ServerConfig, ServerDeps } from '../../server/index.js';

// The project's codec: integers outside 32 bits go out as int64, as a Python client sends them.
const packr = new MsgpackCodec();
const unpackr = packr;

/** A server config for tests: silent logs, defaults otherwise, with overrides (file shape). */
export function testConfig(overrides: Record<string, unknown> = {}): ServerConfig {
  // HARNESS_GYM_TEST_WORKERS=N runs the whole suite against worker shards (servers given deps.env stay in-process).
  const workers = process.env.HARNESS_GYM_TEST_WORKERS;
  const base = workers === undefined ? {} : { workers: Number(workers) };
  const r = parseServerConfig({ log_level: 'silent', ...base, ...overrides });
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.config;
}

/** Build and ready a server (fastify's plugins and the episode workers). */
export async function makeApp(overrides: Record<string, unknown> = {}, deps: ServerDeps = {}): Promise<GymApp> {
  const inProcess = deps.env !== undefined && overrides.workers === undefined ? { workers: 0 } : {};
  const app = buildServer(testConfig({ ...overrides, ...inProcess }), deps);
  await app.ready();
  await serverReady(app);
  return app;
}

/** A decoded reply with the frame kind it arrived in. */
export interface Received {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  msg: any;
  binary: boolean;
  raw: Buffer;
}

/** A test client over a ws WebSocket (in-process via injectWS, or a real socket). */
export class WireClient {
  readonly ws: WebSocket;
  readonly #queue: Received[] = [];
  readonly #waiters: { resolve: (r: Received) => void; reject: (e: Error) => void }[] = [];
  #isClosed = false;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const raw = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      const msg: unknown = isBinary ? unpackr.unpack(raw) : JSON.parse(raw.toString('utf8'));
      const r = { msg, binary: isBinary, raw };
      const w = this.#waiters.shift();
      if (w) w.resolve(r);
      else this.#queue.push(r);
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code: number, reason: Buffer) => {
        this.#isClosed = true;
        // A test waiting for a reply that will never come fails instead of hanging.
        for (const w of this.#waiters.splice(0)) w.reject(new Error(`connection closed (${code}) before the reply`));
        resolve({ code, reason: reason.toString() });
      }),
    );
  }

  /** Send a value as JSON text (default) or MessagePack binary. */
  send(value: unknown, binary = false): void {
    this.ws.send(binary ? packr.pack(value) : JSON.stringify(value));
  }

  /** Send raw bytes or text as is. */
  sendRaw(data: Buffer | string): void {
    this.ws.send(data);
  }

  /** The next reply, whatever it is. */
  next(): Promise<Received> {
    const r = this.#queue.shift();
    if (r) return Promise.resolve(r);
    if (this.#isClosed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Send a request and return the next reply's message. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async request(value: unknown, binary = false): Promise<any> {
    this.send(value, binary);
    return (await this.next()).msg;
  }

  /** Open a session; returns the welcome. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async hello(extra: Record<string, unknown> = {}, binary = false): Promise<any> {
    return this.request({ type: 'hello', id: 'h', protocol: 1, ...extra }, binary);
  }

  /** True when a ping is answered (the connection and session still work). */
  async alive(id: string | number = 'alive'): Promise<boolean> {
    const r = await this.request({ type: 'ping', id });
    return r.type === 'pong' && r.id === id;
  }
}

/** An in-process client connected to `app` at /v1/env. */
export async function inject(app: GymApp): Promise<WireClient> {
  const ws = (await app.injectWS('/v1/env')) as unknown as WebSocket;
  return new WireClient(ws);
}

/** A real-socket client to a listening server's base URL (http://host:port). */
export async function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<WireClient> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/env', options);
  const client = new WireClient(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return client;
}

/** Encode like a client would (for byte comparisons). */
export function pack(value: unknown): Buffer {
  return packr.pack(value);
}

/** Poll until `check()` holds (yielding to the event loop), or fail after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ms) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Read one metric's value from the Prometheus text (first matching line). */
export async function metric(app: GymApp, line: string): Promise<number | undefined> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  for (const l of res.body.split('\n')) {
    if (l.startsWith(line + ' ')) return Number(l.slice(line.length + 1));
  }
  return undefined;
}
