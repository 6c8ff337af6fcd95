/**
 * `HarnessGymClient`: the TypeScript client of the wire protocol (docs/PROTOCOL.md, version 1), written from
 * that page alone. One client is one connection and one session. Requests carry per-client monotonic integer
 * ids and replies are matched by id, so any number of requests may be in flight and answered out of order.
 *
 * Errors follow the protocol's two levels: a frame-level `error` rejects that request's promise with a
 * `HarnessGymError`; item-level errors come back as `ItemError` values inside the result array (the caller
 * decides; `unwrap` turns one into a throw).
 *
 * Reconnect with resume: when the socket drops without a close frame (close code 1006), the client
 * reconnects, sends `hello {resume: session_id, token}` and re-sends every request still unanswered with
 * its original id and bytes. The server replays the stored reply of a request it had already applied, so
 * nothing is applied twice (PROTOCOL.md "Sessions"). Behind a router that pins sessions to replicas with a
 * cookie (deploy/haproxy.cfg), the cookies the first upgrade response set are sent back on every resume's
 * upgrade request, so the resume reaches the replica that holds the session (PROTOCOL.md "Routers").
 */
import WebSocket from 'ws';
import { MsgpackCodec } from '../protocol/codec.js';
import { isRecord } from '../protocol/objects.js';
import { PROTOCOL_VERSION } from './types.js';
import type {
  ClosedReply,
  ErrorCode,
  HelloMessage,
  ItemError,
  RequestId,
  ResetItem,
  ResetResultItem,
  StepItem,
  StepResultItem,
  WelcomeMessage,
  WireError,
} from './types.js';

/** A typed error: a frame-level wire error, an item error passed to `unwrap`, or a client-side failure. */
export class HarnessGymError extends Error {
  /** A PROTOCOL.md code, or a client code (`CLIENT_TIMEOUT`, `CONNECTION_CLOSED`, ...). */
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(error: WireError) {
    super(`${error.code}: ${error.message}`);
    this.name = 'HarnessGymError';
    this.code = error.code;
    if (error.details !== undefined) this.details = error.details;
  }
}

/** True for an item that failed alone. */
export function isItemError(item: { ok: boolean }): item is ItemError {
  return item.ok === false;
}

/** The item itself when it succeeded; throws `HarnessGymError` (with the item's code) for an `ItemError`. */
export function unwrap<T extends { ok: true }>(item: T | ItemError): T {
  if (item.ok === false) {
    const e = (item as ItemError).error;
    const details =
      item.episode_id === undefined
        ? e.details
        : { episode_id: item.episode_id, ...(isRecord(e.details) ? e.details : e.details === undefined ? {} : { details: e.details }) };
    throw new HarnessGymError({ code: e.code, message: e.message, details });
  }
  return item as T;
}

/** Reconnect policy: `retries` attempts, waiting `backoff_ms`, then doubling, between them. */
export interface ReconnectPolicy {
  retries: number;
  backoff_ms: number;
}

/** Options of `HarnessGymClient.connect`. */
export interface ClientOptions {
  /** Sent in `hello` (and again on resume). */
  token?: string;
  /** uint32 seeding the session's stream, from which seedless reset items draw their seeds. */
  seed?: number;
  /** Free-form client name for the server's logs. */
  client?: string;
  /** Frame encoding: MessagePack binary frames (default) or JSON text frames. */
  encoding?: 'msgpack' | 'json';
  /** Reconnect-with-resume after a dropped connection; absent: a drop fails the pending requests. */
  reconnect?: ReconnectPolicy;
  /** Per-request timeout in milliseconds (default 60 000; 0 disables it). */
  timeout_ms?: number;
  /** Frame-level errors that name no request (`id: null`) and unreadable frames land here. */
  onError?: (error: HarnessGymError) => void;
  /**
   * Called once when the session ends other than by `close()`/`disconnect()`: the connection closed and
   * was not (or could not be) resumed. `error` is the `CONNECTION_CLOSED` the pending requests got.
   */
  onClose?: (error: HarnessGymError) => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Close code `ws` reports when the connection ended without a close frame (RFC 6455 section 7.1.5). */
const ABNORMAL_CLOSURE = 1006;

type State = 'connecting' | 'open' | 'reconnecting' | 'closing' | 'closed';

interface Pending {
  id: number;
  /** The encoded frame, re-sent unchanged after a resume. */
  frame: Buffer | string;
  /** The reply type that answers it. */
  expect: string;
  /** `hello` belongs to one connection and is never re-sent. */
  resend: boolean;
  resolve: (msg: Record<string, unknown>) => void;
  reject: (e: HarnessGymError) => void;
  timer: NodeJS.Timeout | null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to a harness-gym server: one session, many episodes, batched requests. */
export class HarnessGymClient {
  /** The `ws://` or `wss://` URL of the endpoint (`/v1/env`). */
  readonly url: string;
  readonly #opts: ClientOptions;
  // The wire codec (protocol/codec.ts), created once for the client's life (STYLE "Hot path").
  readonly #msgpack = new MsgpackCodec();
  readonly #pending = new Map<number, Pending>();
  #ws: WebSocket | null = null;
  #welcome: WelcomeMessage | null = null;
  #nextId = 1;
  #state: State = 'connecting';
  #closed: Promise<void> | null = null;
  /** Cookies set by the upgrade responses (a router's replica pin), sent back on every later connection. */
  readonly #cookies = new Map<string, string>();

  private constructor(url: string, opts: ClientOptions) {
    this.url = url;
    this.#opts = opts;
  }

  /** Open a connection, send `hello` and wait for `welcome`. Rejects with `HarnessGymError` on failure. */
  static async connect(url: string, opts: ClientOptions = {}): Promise<HarnessGymClient> {
    const client = new HarnessGymClient(url, opts);
    try {
      client.#welcome = await client.#attach(undefined);
    } catch (e) {
      client.#state = 'closed';
      client.#ws?.terminate();
      throw e;
    }
    client.#state = 'open';
    return client;
  }

  /** The server's `welcome` (the latest one, after a resume). */
  get welcome(): WelcomeMessage {
    return this.#welcome as WelcomeMessage;
  }

  /** The session id (stable across resumes). */
  get sessionId(): string {
    return this.welcome.session_id;
  }

  /** Requests sent and not yet answered. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** True once the session ended (cleanly or not) and no more requests can be made. */
  get isClosed(): boolean {
    return this.#state === 'closing' || this.#state === 'closed';
  }

  /** True while a dropped connection is being resumed (requests queue until it is, or fail if it is not). */
  get isReconnecting(): boolean {
    return this.#state === 'reconnecting';
  }

  /** Reset a batch of episodes; one result per item, in item order. */
  async reset(items: readonly ResetItem[]): Promise<ResetResultItem[]> {
    const reply = await this.#call({ type: 'reset', items }, 'reset_result');
    return reply.items as ResetResultItem[];
  }

  /** Step a batch of episodes; one result per item, in item order. */
  async step(items: readonly StepItem[]): Promise<StepResultItem[]> {
    const reply = await this.#call({ type: 'step', items }, 'step_result');
    return reply.items as StepResultItem[];
  }

  /** Round trip a `ping`; resolves on the `pong`. */
  async ping(): Promise<void> {
    await this.#call({ type: 'ping' }, 'pong');
  }

  /** Close episodes (`close` frame): frees them on the server. */
  close(episodeIds: readonly string[]): Promise<ClosedReply>;
  /** End the session cleanly (WebSocket close frame): the server frees every episode. */
  close(): Promise<void>;
  close(episodeIds?: readonly string[]): Promise<ClosedReply | void> {
    if (episodeIds !== undefined) return this.closeEpisodes(episodeIds);
    return this.disconnect();
  }

  /** Close episodes; same as `close(ids)`. */
  async closeEpisodes(episodeIds: readonly string[]): Promise<ClosedReply> {
    const reply = await this.#call({ type: 'close', episode_ids: episodeIds }, 'closed');
    return { episode_ids: reply.episode_ids as string[], unknown: reply.unknown as string[] };
  }

  /** End the session with a clean close frame; same as `close()`. Pending requests reject. */
  disconnect(): Promise<void> {
    if (this.#closed) return this.#closed;
    const ws = this.#ws;
    this.#state = 'closing';
    this.#closed = new Promise<void>((resolve) => {
      if (!ws || ws.readyState === WebSocket.CLOSED) {
        this.#finish('the client closed the session');
        resolve();
        return;
      }
      ws.once('close', () => resolve());
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'client closed');
    });
    return this.#closed;
  }

  /**
   * Drop the connection without a close frame, as a network failure would (for tests of resume). With a
   * reconnect policy the client resumes the session and re-sends what is pending.
   */
  dropConnection(): void {
    this.#ws?.terminate();
  }

  // ---------------------------------------------------------------------------------------------------

  #encode(msg: Record<string, unknown>): Buffer | string {
    return this.#opts.encoding === 'json' ? JSON.stringify(msg) : this.#msgpack.pack(msg);
  }

  #decode(data: WebSocket.RawData, isBinary: boolean): unknown {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    return isBinary ? this.#msgpack.unpack(buf) : JSON.parse(buf.toString('utf8'));
  }

  /** Send a request (or queue it while reconnecting) and await the reply of the expected type. */
  #call(body: Record<string, unknown>, expect: string): Promise<Record<string, unknown>> {
    if (this.#state === 'closing' || this.#state === 'closed') {
      return Promise.reject(new HarnessGymError({ code: 'CONNECTION_CLOSED', message: 'the session is closed' }));
    }
    const id = this.#nextId++;
    const frame = this.#encode({ ...body, id });
    const promise = this.#register(id, frame, expect, true);
    if (this.#state === 'open' && this.#ws) this.#ws.send(frame);
    return promise;
  }

  #register(id: number, frame: Buffer | string, expect: string, resend: boolean): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timeout = this.#opts.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const pending: Pending = { id, frame, expect, resend, resolve, reject, timer: null };
      if (timeout > 0) {
        pending.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(
            new HarnessGymError({ code: 'CLIENT_TIMEOUT', message: `no reply to request ${id} within ${timeout} ms`, details: { id } }),
          );
        }, timeout);
      }
      this.#pending.set(id, pending);
    });
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    return p;
  }

  /** Open a socket, send `hello` (resuming `resume` when given) and await `welcome`. */
  async #attach(resume: string | undefined): Promise<WelcomeMessage> {
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const sock = new WebSocket(this.url, { perMessageDeflate: false, ...(cookie !== '' ? { headers: { cookie } } : {}) });
      sock.binaryType = 'nodebuffer';
      // A router's replica pin (PROTOCOL.md "Routers"): keep the name=value of every cookie it sets.
      sock.once('upgrade', (res) => {
        for (const line of res.headers['set-cookie'] ?? []) {
          const pair = line.split(';', 1)[0] as string;
          const eq = pair.indexOf('=');
          if (eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
      });
      const onError = (e: Error) => {
        sock.removeListener('open', onOpen);
        reject(new HarnessGymError({ code: 'CONNECTION_FAILED', message: e.message }));
      };
      const onOpen = () => {
        sock.removeListener('error', onError);
        resolve(sock);
      };
      sock.once('error', onError);
      sock.once('open', onOpen);
    });
    if (this.#state === 'closing' || this.#state === 'closed') {
      ws.terminate();
      throw new HarnessGymError({ code: 'CONNECTION_CLOSED', message: 'the client closed during connect' });
    }
    this.#ws = ws;
    // Events of a replaced socket are ignored: after a resume only the newest connection speaks.
    ws.on('message', (data, isBinary) => {
      if (this.#ws === ws) this.#onFrame(data, isBinary);
    });
    ws.on('close', (code, reason) => {
      if (this.#ws === ws) this.#onSocketClose(code, reason.toString());
    });
    ws.on('error', () => {
      // A 'close' event always follows; the close handler decides.
    });
    const id = this.#nextId++;
    const hello: HelloMessage = { type: 'hello', id, protocol: PROTOCOL_VERSION };
    if (this.#opts.client !== undefined) hello.client = this.#opts.client;
    if (this.#opts.token !== undefined) hello.token = this.#opts.token;
    if (this.#opts.seed !== undefined && resume === undefined) hello.seed = this.#opts.seed;
    if (resume !== undefined) hello.resume = resume;
    const frame = this.#encode(hello as unknown as Record<string, unknown>);
    const reply = this.#register(id, frame, 'welcome', false);
    ws.send(frame);
    return (await reply) as unknown as WelcomeMessage;
  }

  #onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    let msg: unknown;
    try {
      msg = this.#decode(data, isBinary);
    } catch (e) {
      this.#opts.onError?.(new HarnessGymError({ code: 'BAD_REPLY', message: `undecodable frame: ${(e as Error).message}` }));
      return;
    }
    if (!isRecord(msg) || typeof msg.type !== 'string') {
      this.#opts.onError?.(new HarnessGymError({ code: 'BAD_REPLY', message: 'a frame that is not a message', details: { frame: msg } }));
      return;
    }
    const id = msg.id as RequestId | null | undefined;
    const p = typeof id === 'number' ? this.#settle(id) : undefined;
    if (!p) {
      // An error that names no request of ours (id null, or a request that already timed out).
      if (msg.type === 'error') this.#opts.onError?.(new HarnessGymError(msg.error as WireError));
      return;
    }
    if (msg.type === 'error')
      p.reject(
        new HarnessGymError(
          isRecord(msg.error) ? (msg.error as unknown as WireError) : { code: 'BAD_REPLY', message: 'an error frame without error' },
        ),
      );
    else if (msg.type !== p.expect)
      p.reject(new HarnessGymError({ code: 'BAD_REPLY', message: `expected ${p.expect}, got ${msg.type}`, details: { id } }));
    else p.resolve(msg);
  }

  #onSocketClose(code: number, reason: string): void {
    this.#ws = null;
    // A hello in flight belongs to this connection only: it fails, and the connect or resume loop decides.
    for (const p of [...this.#pending.values()]) {
      if (!p.resend) {
        this.#settle(p.id);
        p.reject(
          new HarnessGymError({ code: 'CONNECTION_CLOSED', message: `connection closed (${code} ${reason})`, details: { code, reason } }),
        );
      }
    }
    if (this.#state === 'connecting' || this.#state === 'reconnecting') return;
    const lost = this.#state === 'open';
    if (this.#state === 'open' && code === ABNORMAL_CLOSURE && this.#opts.reconnect && this.#opts.reconnect.retries > 0) {
      this.#state = 'reconnecting';
      void this.#reconnect(this.#opts.reconnect);
      return;
    }
    this.#state = 'closed';
    this.#finish(`connection closed (${code} ${reason})`, { code, reason }, lost);
  }

  async #reconnect(policy: ReconnectPolicy): Promise<void> {
    let last: HarnessGymError | null = null;
    for (let attempt = 0; attempt < policy.retries; attempt++) {
      await sleep(policy.backoff_ms * 2 ** attempt);
      if (this.#state !== 'reconnecting') return;
      try {
        const welcome = await this.#attach(this.sessionId);
        if (this.#state !== 'reconnecting') {
          // close() was called while the resume was in flight: do not keep the new socket.
          this.#ws?.terminate();
          return;
        }
        this.#welcome = welcome;
        this.#state = 'open';
        // Re-send in id order: the server replays what it already answered and applies the rest.
        const ids = [...this.#pending.keys()].sort((a, b) => a - b);
        for (const id of ids) this.#ws?.send((this.#pending.get(id) as Pending).frame);
        return;
      } catch (e) {
        last = e instanceof HarnessGymError ? e : new HarnessGymError({ code: 'CONNECTION_FAILED', message: String(e) });
        this.#ws?.terminate();
        this.#ws = null;
        // The session is gone or we are refused: retrying cannot help.
        if (['UNKNOWN_SESSION', 'UNAUTHORIZED', 'PROTOCOL_VERSION'].includes(last.code)) break;
      }
    }
    if (this.#state !== 'reconnecting') return;
    this.#state = 'closed';
    this.#finish(`resume failed: ${last?.message ?? 'no attempt'}`, { cause: last?.code }, true);
  }

  /** Reject everything still pending: the session cannot answer any more. `lost`: not the client's doing. */
  #finish(message: string, details?: unknown, lost = false): void {
    for (const p of [...this.#pending.values()]) {
      this.#settle(p.id);
      p.reject(new HarnessGymError({ code: 'CONNECTION_CLOSED', message, details }));
    }
    if (this.#state !== 'closing') this.#state = 'closed';
    if (lost) this.#opts.onClose?.(new HarnessGymError({ code: 'CONNECTION_CLOSED', message, details }));
  }
}
