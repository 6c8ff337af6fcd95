/**
 * A session, as the main thread holds it: the reply window, timers and connection of one client
 * (PROTOCOL.md "Sessions"). Its episodes live in a `SessionEnv` (env/session.ts) that a host keeps on this
 * thread or in the worker the session is bound to (server/hosts.ts). A session outlives its connection for
 * `resume_grace_s` when the connection drops, so it holds no socket of its own beyond a reference to the
 * connection attached now.
 *
 * Scheduling (PROTOCOL.md: replies to different requests may come out of order; requests about the same
 * episode are applied in arrival order): a request waits only for the earlier unanswered requests it
 * could conflict with. Resets wait for every earlier request (they draw from the session's seed stream
 * and make groups, in arrival order); a step or close waits for earlier requests naming one of its
 * episodes (or, for a reset with server-made ids, any `ep-N` id), and a ping for everything. So a step of
 * a live episode does not queue behind a long reset batch of other episodes: the host interleaves them.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Codec } from '../protocol/codec.js';
import type { ErrorCode } from '../protocol/errors.js';
import { itemError } from '../protocol/errors.js';
import type { RequestId, SessionRequest } from '../protocol/wire.js';
import { rawEpisodeId } from '../env/index.js';
import type { SessionStats } from '../env/index.js';
import type { ServerConfig } from './config.js';
import type { EpisodeHost, SessionRef } from './hosts.js';
import type { FreeReason, ServerMetrics } from './metrics.js';
import { ReplayWindow } from './replay-window.js';
import { isWorkerOutOfMemory, outOfMemoryRefusal } from './heap-budget.js';
import { workerHeapLimitMb } from './worker-heap.js';
import type { ArrivedRequest, StoredReply } from './replay-window.js';

/** What a session needs of its server (server/core.ts). */
export interface SessionServer {
  readonly config: ServerConfig;
  readonly codec: Codec;
  readonly log: Logger;
  readonly metrics: ServerMetrics;
  readonly hosts: EpisodeHost;
  addStats(stats: SessionStats): void;
  /** An episode thread's heap reading from its answer (ServerCore.noteHeap). */
  noteHeap(heap: { shard: string; used: number; limit: number }): void;
  countError(code: ErrorCode): void;
  frameError(id: RequestId | null, code: ErrorCode, message: string, details?: unknown): object;
  beginWork(): void;
  endWork(): void;
  endSession(session: Session, reason: FreeReason): void;
  reapIdle(session: Session): void;
}

/** The connection a session answers through (server/connection.ts). */
export interface SessionPeer {
  /** True when this connection resumed the session (re-sent ids are answered from the replay window). */
  readonly resumed: boolean;
  session: Session | null;
  sendBytes(bytes: Buffer | string): void;
  /** A request of this connection was answered (reading may resume). */
  requestDone(): void;
  close(code: number, reason: string): void;
}

/** An unanswered request, as later requests of the session see it. */
interface Pending {
  type: SessionRequest['type'];
  /** Episode ids it names. */
  ids: Set<string>;
  /** A reset with items without `episode_id` (it makes `ep-N` ids). */
  makesIds: boolean;
  done: Promise<void>;
}

/** Server-made episode ids (env/session.ts `#makeId`). */
const MADE_ID = /^ep-\d+$/;

function itemIds(items: unknown[]): { ids: Set<string>; anonymous: boolean } {
  const ids = new Set<string>();
  let anonymous = false;
  for (const it of items) {
    const id = rawEpisodeId(it);
    if (id === undefined) anonymous = true;
    else ids.add(id);
  }
  return { ids, anonymous };
}

/** Whether `later` must wait for `earlier` (see the module comment). */
function mustWait(earlier: Pending, later: Pending): boolean {
  if (later.type === 'ping' || later.type === 'reset' || earlier.type === 'ping') return true;
  for (const id of later.ids) {
    if (earlier.ids.has(id)) return true;
    if (earlier.makesIds && MADE_ID.test(id)) return true;
  }
  return false;
}

/** One client's state. */
export class Session implements SessionRef {
  readonly id: string;
  readonly log: Logger;
  /** Seed of the session's seed stream (its shard draws seedless resets' seeds from it). */
  readonly streamSeed: number;
  /** The shard holding the session's episodes. */
  shard = -1;
  readonly #core: SessionServer;
  readonly #replay: ReplayWindow;
  /** Unanswered requests in arrival order. */
  readonly #pending: Pending[] = [];
  #busy = 0;
  #episodes = 0;
  #lastRequest = performance.now();
  #idleTimer: NodeJS.Timeout | null = null;
  #graceTimer: NodeJS.Timeout | null = null;
  /** The connection attached now; null while dropped (waiting for a resume). */
  conn: SessionPeer | null = null;
  /** True once freed; a freed session is never reused. */
  ended = false;

  constructor(core: SessionServer, streamSeed: number) {
    this.id = randomUUID();
    this.#core = core;
    this.streamSeed = streamSeed;
    this.#replay = new ReplayWindow(core.config.limits.replay_window, (frame, binary) => {
      const d = core.codec.decode(frame, binary);
      if (!d.ok) throw new Error(`a stored request did not decode: ${d.message}`);
      return d.value;
    });
    this.log = core.log.child({ session: this.id });
    core.hosts.bind(this);
  }

  /** Unclosed episodes (ended ones included): what counts toward `max_episodes`, as of the last reply. */
  get episodeCount(): number {
    return this.#episodes;
  }

  /** Requests received and not yet answered. */
  get busy(): number {
    return this.#busy;
  }

  /** Attach a connection (a new session, or a resume): stops the grace timer, starts idle reaping. */
  attach(conn: SessionPeer): void {
    this.conn = conn;
    conn.session = this;
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = null;
    this.touch();
    this.#armIdle(this.#core.config.limits.idle_timeout_s * 1000);
  }

  /** Detach the current connection (it closed, dropped, or another resumed the session). */
  detach(): void {
    if (this.conn) this.conn.session = null;
    this.conn = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  /** Keep a dropped session for `resume_grace_s`, then free it. */
  startGrace(): void {
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = setTimeout(() => this.#core.endSession(this, 'grace_expired'), this.#core.config.limits.resume_grace_s * 1000);
    this.#graceTimer.unref();
  }

  /** A request arrived: the session is not idle. */
  touch(): void {
    this.#lastRequest = performance.now();
  }

  /**
   * Free every episode and stop every timer; resolves to how many episodes were freed. Requests already
   * queued are applied first (their replies stay undelivered), so none sees a half-freed session.
   */
  free(): Promise<number> {
    this.ended = true;
    this.detach();
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = null;
    this.#replay.clear();
    const core = this.#core;
    return Promise.all(this.#pending.map((p) => p.done)).then(() =>
      core.hosts.free(this).then(
        (r: { freed: number; stats: SessionStats }) => {
          core.addStats(r.stats);
          this.#episodes = 0;
          return r.freed;
        },
        (e: unknown) => {
          this.#trace(e);
          return 0;
        },
      ),
    );
  }

  /**
   * Queue a validated request; its reply goes to `conn` (and into the replay window). `frame` is the
   * request as received, `value` the map it decoded to, and `received` when it arrived
   * (`performance.now()`), for the step latency.
   */
  submit(conn: SessionPeer, req: SessionRequest, frame: Buffer, binary: boolean, value: unknown, received: number): void {
    this.#busy++;
    this.#core.beginWork();
    const named =
      req.type === 'close'
        ? { ids: new Set(req.episode_ids), anonymous: false }
        : req.type === 'ping'
          ? { ids: new Set<string>(), anonymous: false }
          : itemIds(req.items);
    const entry: Pending = { type: req.type, ids: named.ids, makesIds: req.type === 'reset' && named.anonymous, done: Promise.resolve() };
    const waits = this.#pending.filter((p) => mustWait(p, entry)).map((p) => p.done);
    const start = waits.length === 0 ? Promise.resolve() : waits.length === 1 ? (waits[0] as Promise<void>) : Promise.all(waits);
    entry.done = start.then(() => this.#run(conn, req, { frame, binary, value }, received));
    this.#pending.push(entry);
    // #run never rejects; once answered, the request stops holding later ones back.
    void entry.done.then(() => {
      const i = this.#pending.indexOf(entry);
      if (i >= 0) this.#pending.splice(i, 1);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Request loop
  // ---------------------------------------------------------------------------------------------

  async #run(conn: SessionPeer, req: SessionRequest, arrived: ArrivedRequest, received: number): Promise<void> {
    const core = this.#core;
    const { frame, binary } = arrived;
    try {
      // After a resume, a re-sent request (same id, same content) that was already answered gets the
      // stored reply; another request under an answered id is applied as new. Looked up only now, after
      // the requests it waits for: a re-send of a request still in flight at the drop finds its reply.
      if (conn.resumed && this.#replay.enabled) {
        const stored = this.#replay.resent(req.id, arrived);
        if (stored) {
          conn.sendBytes(stored.binary === binary ? stored.bytes : this.#reencode(stored, binary));
          return;
        }
      }
      let bytes: Buffer | string;
      if (req.type === 'ping') {
        bytes = core.codec.encode({ type: 'pong', id: req.id }, binary);
      } else {
        try {
          const r = await core.hosts.apply(this, req, frame, binary);
          core.addStats(r.stats);
          if (r.heap !== undefined) core.noteHeap(r.heap);
          this.#episodes = r.episodes;
          bytes = r.bytes;
        } catch (e) {
          // The shard's task failed as a whole (a worker error or crash): every item of this request fails.
          core.metrics.workerFailures.inc();
          bytes = core.codec.encode(this.#failed(req, e, this.#trace(e)), binary);
        }
      }
      this.#replay.remember(req.id, arrived, { bytes, binary });
      conn.sendBytes(bytes);
      if (req.type === 'step') core.metrics.observeStepLatency((performance.now() - received) / 1000, req.items.length);
      else if (req.type === 'reset') core.metrics.observeResetLatency((performance.now() - received) / 1000, req.items.length);
    } catch (e) {
      // Never reject: later requests of the session wait on this one.
      this.#trace(e);
    } finally {
      this.#busy--;
      core.endWork();
      conn.requestDone();
    }
  }

  /**
   * The reply to a request whose worker task failed, for each item (or for the frame): CAPACITY_REACHED
   * with `details.reason: "memory"` when the worker ran out of heap (a resource limit, as the admission's
   * refusal says it, server/heap-budget.ts), INTERNAL otherwise (a bug).
   */
  #failed(req: SessionRequest, e: unknown, trace_id: string): object {
    const core = this.#core;
    let error: { code: 'INTERNAL' | 'CAPACITY_REACHED'; message: string; details: object };
    if (isWorkerOutOfMemory(e)) {
      const limitMb = workerHeapLimitMb(core.config.worker_heap_mb);
      error = {
        code: 'CAPACITY_REACHED',
        message: `the episode worker ran out of memory (heap limit ${limitMb} MiB); its episodes are lost: retry later, or give the server more memory (worker_heap_mb)`,
        details: { ...outOfMemoryRefusal(limitMb), trace_id },
      };
    } else {
      error = { code: 'INTERNAL', message: 'internal error (worker)', details: { trace_id } };
    }
    if (req.type === 'reset' || req.type === 'step') {
      const items = req.items.map((raw) => {
        core.countError(error.code);
        return itemError(rawEpisodeId(raw), error);
      });
      return { type: `${req.type}_result`, id: req.id, items };
    }
    return core.frameError(req.id, error.code, error.message, error.details);
  }

  /** A stored reply in the other encoding (a resumed client switched between JSON and MessagePack). */
  #reencode(stored: StoredReply, binary: boolean): Buffer | string {
    const codec = this.#core.codec;
    const raw = typeof stored.bytes === 'string' ? Buffer.from(stored.bytes, 'utf8') : stored.bytes;
    const decoded = codec.decode(raw, stored.binary);
    if (!decoded.ok) throw new Error(`a stored reply did not decode: ${decoded.message}`);
    return codec.encode(decoded.value, binary);
  }

  /** Log an unexpected exception with a fresh trace id, returned for the reply's `details.trace_id`. */
  #trace(e: unknown): string {
    const trace_id = randomUUID();
    this.log.error({ err: e, trace_id }, 'internal error');
    return trace_id;
  }

  // ---------------------------------------------------------------------------------------------
  // idle reaping
  // ---------------------------------------------------------------------------------------------

  #armIdle(delayMs: number): void {
    if (this.#core.config.limits.idle_timeout_s === 0) return;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#checkIdle(), Math.max(1, delayMs));
    this.#idleTimer.unref();
  }

  #checkIdle(): void {
    this.#idleTimer = null;
    if (this.ended || !this.conn) return;
    const limitMs = this.#core.config.limits.idle_timeout_s * 1000;
    const idleMs = performance.now() - this.#lastRequest;
    // A session working on a long batch is not idle, however long ago the batch arrived.
    if (this.#busy > 0) return this.#armIdle(limitMs);
    if (idleMs < limitMs) return this.#armIdle(limitMs - idleMs);
    this.#core.reapIdle(this);
  }
}
