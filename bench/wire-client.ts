/**
 * A lean protocol client for load generation: the `ws` package and msgpackr, binary frames, nothing else
 * (no client library, no schema checks on replies), so that the bench process spends as little CPU as
 * possible on a 2-core machine it shares with the server under test. Requests carry integer ids from 1
 * (the hello) upward, so two runs that send the same requests in the same order send the same bytes —
 * which the echo baseline relies on.
 *
 * A request not answered within `timeoutMs` is counted once as a timeout (a failure) but stays pending:
 * its late reply is still delivered, so an overloaded server is measured as slow rather than as lost.
 */
import WebSocket from 'ws';
import { MsgpackCodec } from '../protocol/codec.js';
import { skimMsgpack } from './skim.js';


/** A decoded reply frame (only the fields the bench reads are typed). */
export interface ReplyFrame {
  type: string;
  id: number | string | null;
  items?: ReplyItem[];
  error?: { code: string; message: string };
  [k: string]: unknown;
}

/** One result item of a `reset_result` or `step_result`. */
export interface ReplyItem {
  ok: boolean;
  episode_id?: string;
  reward?: number;
  terminated?: boolean;
  truncated?: boolean;
  info?: Record<string, unknown>;
  error?: { code: string; message: string };
  [k: string]: unknown;
}

/** A reply and how it came: round trip (ms, send to receipt) and its size on the wire. */
export interface Answer {
  reply: ReplyFrame;
  rttMs: number;
  bytes: number;
}

interface Pending {
  sentAt: number;
  timedOut: boolean;
  resolve(a: Answer | null): void;
}

/** Counters of one connection. */
export interface ConnStats {
  framesOut: number;
  bytesOut: number;
  framesIn: number;
  bytesIn: number;
  /** Requests that took longer than the timeout (each counted once). */
  timeouts: number;
  /** The socket closed while the bench had not closed it. */
  unexpectedClose: boolean;
  /** How the socket closed (`1006` when the peer cut it without a close frame), for diagnosis. */
  closeCode: number | null;
}

/** One WebSocket connection carrying one session. */
export class BenchConn {
  readonly #ws: WebSocket;
  /** The wire codec (protocol/codec.ts). */
  readonly #msgpack = new MsgpackCodec();
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  /** Map keys whose values binary replies are decoded without (bench/skim.ts); null: replies decoded whole. */
  readonly #skip: ReadonlySet<string> | null;
  readonly #sweep: NodeJS.Timeout;
  #nextId = 1;
  #closing = false;
  readonly stats: ConnStats = { framesOut: 0, bytesOut: 0, framesIn: 0, bytesIn: 0, timeouts: 0, unexpectedClose: false, closeCode: null };

  private constructor(ws: WebSocket, timeoutMs: number, skip: ReadonlySet<string> | null) {
    this.#ws = ws;
    this.#timeoutMs = timeoutMs;
    this.#skip = skip;
    ws.on('message', (data, isBinary) => this.#onMessage(data as Buffer, isBinary));
    ws.on('close', (code) => this.#onClose(code));
    ws.on('error', () => undefined); // 'close' follows; the failure is counted there
    // One sweep marks overdue requests (cheaper than a timer per request with thousands in flight).
    this.#sweep = setInterval(() => this.#checkTimeouts(), Math.max(50, Math.min(1000, timeoutMs / 4)));
    this.#sweep.unref();
  }

  /**
   * Connect and send `hello`; resolves once `welcome` arrived. With `skip`, binary replies are decoded
   * without the values of those map keys (each stands as `{skipped_bytes}`).
   */
  static async open(
    url: string,
    opts: { timeoutMs: number; seed?: number; client?: string; skip?: ReadonlySet<string> },
  ): Promise<BenchConn> {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const conn = new BenchConn(ws, opts.timeoutMs, opts.skip ?? null);
    const hello: Record<string, unknown> = { type: 'hello', protocol: 1, client: opts.client ?? 'harness-gym-bench' };
    if (opts.seed !== undefined) hello.seed = opts.seed >>> 0;
    const a = await conn.request(hello);
    if (!a || a.reply.type !== 'welcome') throw new Error(`hello failed: ${JSON.stringify(a?.reply ?? 'connection closed')}`);
    return conn;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** True while the socket is open and the bench has not closed it. */
  get open(): boolean {
    return !this.#closing && this.#ws.readyState === WebSocket.OPEN;
  }

  /**
   * Send one request (its `id` is assigned here) as a binary MessagePack frame. Resolves with the reply,
   * or null when the connection closed first.
   */
  request(msg: Record<string, unknown>): Promise<Answer | null> {
    const id = this.#nextId++;
    msg.id = id;
    const bytes = this.#msgpack.pack(msg);
    return new Promise((resolve) => {
      if (this.#ws.readyState !== WebSocket.OPEN) return resolve(null);
      this.#pending.set(id, { sentAt: performance.now(), timedOut: false, resolve });
      this.stats.framesOut++;
      this.stats.bytesOut += bytes.length;
      this.#ws.send(bytes, { binary: true });
    });
  }

  /** Count every request still pending past the timeout as timed out (used at the end of a phase too). */
  #checkTimeouts(now = performance.now()): void {
    for (const p of this.#pending.values()) {
      if (!p.timedOut && now - p.sentAt > this.#timeoutMs) {
        p.timedOut = true;
        this.stats.timeouts++;
      }
    }
  }

  /**
   * Wait until nothing is pending, or `ms` elapsed; returns how many requests were still pending. The
   * bench gives up on those: each counts as a timeout (answered never), if it was not counted already.
   */
  async drain(ms: number): Promise<number> {
    const until = performance.now() + ms;
    while (this.#pending.size > 0 && performance.now() < until && this.#ws.readyState === WebSocket.OPEN) {
      await new Promise((r) => setTimeout(r, 20));
    }
    this.#checkTimeouts(Infinity);
    return this.#pending.size;
  }

  /** Close cleanly (code 1000); pending requests resolve with null. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweep);
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.#ws.terminate();
        resolve();
      }, 2000);
      this.#ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      this.#ws.close(1000, 'bench done');
    });
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    const now = performance.now();
    this.stats.framesIn++;
    this.stats.bytesIn += data.length;
    const reply = (
      !isBinary ? JSON.parse(data.toString('utf8')) : this.#skip !== null ? skimMsgpack(data, this.#skip) : this.#msgpack.unpack(data)
    ) as ReplyFrame;
    const id = typeof reply.id === 'number' ? reply.id : -1;
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    const rttMs = now - p.sentAt;
    if (!p.timedOut && rttMs > this.#timeoutMs) this.stats.timeouts++;
    p.resolve({ reply, rttMs, bytes: data.length });
  }

  #onClose(code: number): void {
    clearInterval(this.#sweep);
    this.stats.closeCode = code;
    if (!this.#closing) this.stats.unexpectedClose = true;
    for (const p of this.#pending.values()) p.resolve(null);
    this.#pending.clear();
  }
}
