/**
 * One WebSocket connection: the edge of the server. Each frame is decoded, checked against the message
 * schemas once (CONTRIBUTING.md "Validate once, at the edge"), and either answered here (hello, frame-level
 * errors) or handed to the session's queue. Also keeps the peer alive (ws pings) and decides, when the
 * socket closes, whether the session ends at once (clean close) or waits for a resume (dropped).
 */
import type { RawData, WebSocket } from 'ws';
import type { z } from 'zod';
import type { ErrorCode } from '../protocol/errors.js';
import type { RequestId } from '../protocol/wire.js';
import {
  CloseSchema,
  HelloSchema,
  PingSchema,
  REQUEST_TYPES,
  ResetEnvelopeSchema,
  StepEnvelopeSchema,
  WIRE_PROTOCOL_VERSION,
  isWireId,
  wireIssues,
} from '../protocol/wire.js';
import type { Logger } from 'pino';
import type { Codec } from '../protocol/codec.js';
import type { ServerInfo, SessionRequest } from '../protocol/wire.js';
import type { ServerConfig } from './config.js';
import { welcomeMessage } from './info.js';
import type { FreeReason, ServerMetrics } from './metrics.js';
import type { Session, SessionPeer } from './session.js';

/** What a connection needs of its server (server/core.ts). */
export interface ConnectionServer {
  readonly config: ServerConfig;
  readonly codec: Codec;
  readonly log: Logger;
  readonly metrics: ServerMetrics;
  readonly info: ServerInfo;
  readonly connections: Set<Connection>;
  readonly sessions: Map<string, Session>;
  readonly shuttingDown: boolean;
  readonly full: boolean;
  tokenOk(token: string | undefined): boolean;
  openSession(helloSeed: number | undefined): Session;
  endSession(session: Session, reason: FreeReason): void;
  frameError(id: RequestId | null, code: ErrorCode, message: string, details?: unknown): object;
}

/** Edge schemas by request type (hello is answered by the connection itself). */
const EDGE_SCHEMAS = new Map<string, z.ZodType>([
  ['hello', HelloSchema],
  ['reset', ResetEnvelopeSchema],
  ['step', StepEnvelopeSchema],
  ['close', CloseSchema],
  ['ping', PingSchema],
]);

/** How long a closing socket may take to finish the close handshake before it is cut (ms). */
const CLOSE_TIMEOUT_MS = 2000;

/** The WebSocket ready state OPEN (ws's `WebSocket.OPEN`). */
const OPEN = 1;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The request id when it can be read: a string within `max_id_chars` or a safe integer. A longer string
 * is not echoed back (its error carries `id: null`): a reply never copies an over-limit client string.
 */
function readId(v: unknown): RequestId | null {
  return isWireId(v) || Number.isSafeInteger(v) ? (v as RequestId) : null;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** One WebSocket connection and, after `hello`, the session it carries. */
export class Connection implements SessionPeer {
  readonly ws: WebSocket;
  readonly #core: ConnectionServer;
  /** The session this connection carries; null before hello and after it was detached. */
  session: Session | null = null;
  /** True when this connection resumed its session (re-sent ids are answered from the replay window). */
  resumed = false;
  #helloDone = false;
  #missedPings = 0;
  #dropped = false;
  #pingTimer: NodeJS.Timeout;
  /** Set while reading is paused because the peer does not read its replies. */
  #stallTimer: NodeJS.Timeout | null = null;
  /** True while the socket is paused (a stall, or too many unanswered requests). */
  #paused = false;

  constructor(core: ConnectionServer, ws: WebSocket) {
    this.#core = core;
    this.ws = ws;
    core.connections.add(this);
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('pong', () => {
      this.#missedPings = 0;
    });
    ws.on('close', (code) => this.#onClose(code));
    ws.on('error', (err) => core.log.debug({ err }, 'websocket error'));
    this.#pingTimer = setInterval(() => this.#keepAlive(), core.config.limits.ping_interval_s * 1000);
    this.#pingTimer.unref();
  }

  /**
   * Send encoded bytes, if the socket is still open (a reply to a dropped peer stays in the replay window).
   *
   * Backpressure: a peer that does not read its replies makes them pile up in this process. Above
   * `backpressure.send_high_water_bytes` of unsent bytes the server stops reading the peer's requests
   * (TCP then pushes back on the peer); below half of it, reading resumes. A peer that stays above the mark
   * for `stall_timeout_s`, or whose queued requests push it past twice the mark, is cut like a dropped
   * peer: its session waits for a resume, with its replies in the replay window.
   */
  sendBytes(bytes: Buffer | string): void {
    const ws = this.ws;
    if (ws.readyState !== OPEN) return;
    ws.send(bytes, this.#onSent);
    const high = this.#core.config.backpressure.send_high_water_bytes;
    const buffered = ws.bufferedAmount;
    if (buffered <= high) return;
    if (buffered > 2 * high) return this.#cutSlowReader(`${buffered} unsent bytes, over twice send_high_water_bytes (${high})`);
    if (this.#stallTimer !== null) return;
    const timeoutS = this.#core.config.backpressure.stall_timeout_s;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = null;
      if (ws.bufferedAmount > high / 2) this.#cutSlowReader(`${ws.bufferedAmount} unsent bytes for ${timeoutS} s`);
      else this.#updateReading();
    }, timeoutS * 1000);
    this.#stallTimer.unref();
    this.#updateReading();
  }

  /** A write reached the socket: once the backlog is under half the mark, stop counting a stall. */
  readonly #onSent = (): void => {
    if (this.#stallTimer !== null && this.ws.bufferedAmount <= this.#core.config.backpressure.send_high_water_bytes / 2) {
      clearTimeout(this.#stallTimer);
      this.#stallTimer = null;
      this.#updateReading();
    }
  };

  /** A request of this connection was answered: reading may resume. */
  requestDone(): void {
    if (this.#paused) this.#updateReading();
  }

  /**
   * Read the peer's requests only while it reads its replies (no stall) and has at most
   * `max_queued_requests` unanswered (resuming at half, so that pause/resume does not flap per frame).
   */
  #updateReading(): void {
    const queued = this.session?.busy ?? 0;
    const max = this.#core.config.backpressure.max_queued_requests;
    const pause = this.#stallTimer !== null || queued >= max || (this.#paused && queued > max / 2);
    if (pause === this.#paused || this.ws.readyState !== OPEN) return;
    this.#paused = pause;
    if (pause) this.ws.pause();
    else this.ws.resume();
  }

  /** Cut a peer that does not read (logged, counted); its session waits for a resume as after a drop. */
  #cutSlowReader(reason: string): void {
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#stallTimer = null;
    this.#core.metrics.slowReaders.inc();
    (this.session?.log ?? this.#core.log).warn({ reason }, 'slow reader disconnected');
    this.#dropped = true;
    this.ws.terminate();
  }

  /** Close with a code and reason; a peer that does not finish the handshake is cut after a short wait. */
  close(code: number, reason: string): void {
    if (this.ws.readyState !== OPEN) return;
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), CLOSE_TIMEOUT_MS).unref();
  }

  #send(reply: object, binary: boolean): void {
    this.sendBytes(this.#core.codec.encode(reply, binary));
  }

  #error(binary: boolean, id: RequestId | null, code: ErrorCode, message: string, details?: unknown): void {
    this.#send(this.#core.frameError(id, code, message, details), binary);
  }

  /** Two missed pings: the peer is gone; treat it as a drop (the session waits for a resume). */
  #keepAlive(): void {
    // While reading is paused the peer's pongs sit unread: that is not a dead peer. A peer that stops
    // reading its replies is cut by the stall timer; one paused for a deep queue is the server's doing.
    if (this.#paused) {
      this.#missedPings = 0;
      return;
    }
    if (this.#missedPings >= 2) {
      this.#dropped = true;
      this.ws.terminate();
      return;
    }
    this.#missedPings++;
    if (this.ws.readyState === OPEN) this.ws.ping();
  }

  #onClose(code: number): void {
    clearInterval(this.#pingTimer);
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#core.connections.delete(this);
    const session = this.session;
    if (!session || session.conn !== this) return;
    session.detach();
    // 1006: no close frame (the TCP connection just went away) — a drop, like a ping timeout.
    if (this.#dropped || code === 1006) {
      session.log.debug({ code }, 'connection dropped; waiting for a resume');
      session.startGrace();
    } else {
      this.#core.endSession(session, 'ended_session');
    }
  }

  #onMessage(raw: RawData, binary: boolean): void {
    const core = this.#core;
    const received = performance.now();
    const data = toBuffer(raw);
    this.session?.touch();
    const limit = core.config.limits.max_frame_bytes;
    if (data.length > limit) {
      const d = core.codec.decode(data, binary);
      const id = d.ok && isPlainObject(d.value) ? readId(d.value.id) : null;
      return this.#error(binary, id, 'FRAME_TOO_LARGE', `the frame has ${data.length} bytes; max_frame_bytes is ${limit}`, {
        bytes: data.length,
        max_frame_bytes: limit,
      });
    }
    const decoded = core.codec.decode(data, binary);
    if (!decoded.ok) return this.#error(binary, null, 'BAD_FRAME', decoded.message);
    const msg = decoded.value;
    if (!isPlainObject(msg)) {
      return this.#error(binary, null, 'INVALID_MESSAGE', 'a request must be a map', { issues: [{ path: [], message: 'expected a map' }] });
    }
    const id = readId(msg.id);
    const type = msg.type;
    if (typeof type !== 'string') {
      return this.#error(binary, id, 'INVALID_MESSAGE', 'the request has no string "type"', {
        issues: [{ path: ['type'], message: type === undefined ? 'required' : 'expected a string' }],
      });
    }
    const schema = EDGE_SCHEMAS.get(type);
    if (!schema) return this.#error(binary, id, 'UNKNOWN_TYPE', `unknown request type "${type}"`, { types: [...REQUEST_TYPES] });
    if (!this.#helloDone) {
      if (type !== 'hello') return this.#error(binary, id, 'HELLO_REQUIRED', 'send hello first');
      return this.#hello(msg, id, binary);
    }
    if (type === 'hello') {
      return this.#error(binary, id, 'INVALID_MESSAGE', 'hello was already received on this connection', {
        issues: [{ path: ['type'], message: 'a second hello' }],
      });
    }
    const session = this.session;
    if (!session || core.shuttingDown) return this.#error(binary, id, 'SHUTTING_DOWN', 'the server is shutting down');
    const parsed = schema.safeParse(msg);
    if (!parsed.success) {
      return this.#error(binary, id, 'INVALID_MESSAGE', 'the message fails the schema', { issues: wireIssues(parsed.error.issues) });
    }
    const req = parsed.data as SessionRequest;
    const n = req.type === 'close' ? req.episode_ids.length : req.type === 'ping' ? 0 : req.items.length;
    if (n > core.config.limits.max_batch) {
      return this.#error(binary, id, 'BATCH_TOO_LARGE', `the batch has ${n} items; max_batch is ${core.config.limits.max_batch}`, {
        items: n,
        max_batch: core.config.limits.max_batch,
      });
    }
    session.submit(this, req, data, binary, msg, received);
    this.#updateReading();
  }

  #hello(msg: Record<string, unknown>, id: RequestId | null, binary: boolean): void {
    const core = this.#core;
    if (msg.protocol !== undefined && msg.protocol !== WIRE_PROTOCOL_VERSION) {
      this.#error(binary, id, 'PROTOCOL_VERSION', `protocol ${JSON.stringify(msg.protocol)} is not supported`, {
        supported: [WIRE_PROTOCOL_VERSION],
      });
      return this.close(1008, 'protocol version');
    }
    const parsed = HelloSchema.safeParse(msg);
    if (!parsed.success) {
      return this.#error(binary, id, 'INVALID_MESSAGE', 'the hello fails the schema', { issues: wireIssues(parsed.error.issues) });
    }
    const hello = parsed.data;
    if (!core.tokenOk(hello.token)) {
      this.#error(binary, hello.id, 'UNAUTHORIZED', 'missing or wrong token');
      return this.close(1008, 'unauthorized');
    }
    if (core.shuttingDown) {
      this.#error(binary, hello.id, 'SHUTTING_DOWN', 'the server is shutting down');
      return this.close(1001, 'shutting down');
    }
    let session: Session;
    if (hello.resume !== undefined) {
      const found = core.sessions.get(hello.resume);
      if (!found || found.ended) {
        return this.#error(binary, hello.id, 'UNKNOWN_SESSION', 'no such session (unknown, ended or expired)');
      }
      const older = found.conn;
      if (older && older !== this) {
        found.detach();
        older.close(1000, 'resumed elsewhere');
      }
      session = found;
      this.resumed = true;
    } else {
      if (core.full) {
        this.#error(binary, hello.id, 'CAPACITY_REACHED', 'the server is at max_sessions', {
          retry_after_ms: 1000,
          max_sessions: core.config.max_sessions,
        });
        return this.close(1013, 'capacity reached');
      }
      session = core.openSession(hello.seed);
    }
    session.attach(this);
    this.#helloDone = true;
    this.#send(welcomeMessage(core.info, hello.id, session.id, this.resumed), binary);
  }
}
