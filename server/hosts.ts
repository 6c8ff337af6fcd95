/**
 * Where episodes live: the hosts. `LocalHost` keeps one `EpisodeTable` on the main thread (`workers: 0`;
 * embedders with in-memory task sources or reward registries, and most tests). `WorkerHost` runs one
 * table per worker thread (server/worker.ts) and binds every session to one of them for its whole life.
 *
 * Why sessions are pinned (and not episodes moved to whichever thread is free): a piscina round trip costs
 * about as much as a step, and a train episode's state (variant harness, surface map, world, answer key)
 * costs more to clone than its step to build (figures: bench/RESULTS.md "Design measurements cited by the code"). So a frame goes to its session's
 * worker as one task (never one task per step) carrying the frame's raw bytes; the worker decodes, applies
 * every item and encodes the reply, and the main thread only does the transport: it parses the envelope
 * (for ids, limits and frame-level errors), forwards, and writes the reply bytes back.
 *
 * Each worker is a piscina pool of exactly one thread: piscina has no task affinity, and one pool per shard
 * gives the pinning while keeping piscina's task queue, error propagation (a task that throws rejects its
 * promise) and respawn (a worker that dies is replaced; its sessions' episodes are lost with it, and their
 * later steps get UNKNOWN_EPISODE). Several tasks may run on a worker at once (`concurrentTasksPerWorker`):
 * a long reset batch yields between chunks, so other sessions' steps are not stuck behind it.
 */
import { createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { Codec } from '../protocol/codec.js';
import { errorFrame } from '../protocol/errors.js';
import type { SessionRequest } from '../protocol/wire.js';
import { SessionEnv, emptyStats } from '../env/index.js';
import type { EnvConfig, SessionStats } from '../env/index.js';
import { sessionWrapping } from './compose.js';
import type { ServerConfig } from './config.js';
import { HeapBudget } from './heap-budget.js';
import { workerHeapMb } from './worker-heap.js';
import type { HeapReading } from './heap-budget.js';

// -------------------------------------------------------------------------------------------------
// The episodes of the sessions one thread holds (the main thread with `workers: 0`, else each worker):
// one `SessionEnv` (env/session.ts) per session, made on the session's first request, and what they
// counted. A request comes in validated at the edge and goes out as the reply object to encode.
// -------------------------------------------------------------------------------------------------

/** What a table needs from its host. */
export interface EpisodeTableOptions {
  config: ServerConfig;
  /** The environment config new resets use (read per reset: a reward reload swaps it). */
  env: () => EnvConfig;
  log: Logger;
  /** Batch items applied between two yields to the event loop. */
  yieldEvery: number;
  /** The thread's memory admission of new episodes (server/heap-budget.ts); absent: none. */
  budget?: HeapBudget;
}

/** Sessions' episodes, by session id. */
export class EpisodeTable {
  readonly log: Logger;
  readonly #opts: EpisodeTableOptions;
  readonly #sessions = new Map<string, SessionEnv>();
  /** Record writers still flushing after their session was freed (`drain` waits for them). */
  readonly #closing = new Set<Promise<void>>();
  #stats: SessionStats = emptyStats();

  constructor(opts: EpisodeTableOptions) {
    this.#opts = { ...opts, yieldEvery: Math.max(1, Math.floor(opts.yieldEvery)) };
    this.log = opts.log;
  }

  /** Unclosed episodes of a session (0 for one this table does not hold). */
  episodeCount(sessionId: string): number {
    return this.#sessions.get(sessionId)?.episodeCount ?? 0;
  }

  /** The counts since the last call. */
  takeStats(): SessionStats {
    const s = this.#stats;
    this.#stats = emptyStats();
    return s;
  }

  #session(sessionId: string, streamSeed: number): SessionEnv {
    let s = this.#sessions.get(sessionId);
    if (s === undefined) {
      const { config, env, log, yieldEvery, budget } = this.#opts;
      const slog = log.child({ session: sessionId });
      s = new SessionEnv({
        env,
        streamSeed,
        maxEpisodes: config.limits.max_episodes,
        allowHints: config.allow_oracle_hints,
        wrapping: sessionWrapping(config, env, sessionId, slog),
        stats: () => this.#stats,
        log: slog,
        yieldEvery,
        ...(budget ? { admit: () => budget.refusal() } : {}),
      });
      this.#sessions.set(sessionId, s);
    }
    return s;
  }

  /** Apply one request of a session; the reply object. Requests of one session must not overlap. */
  async apply(sessionId: string, streamSeed: number, req: SessionRequest): Promise<object> {
    const s = this.#session(sessionId, streamSeed);
    switch (req.type) {
      case 'reset':
        return { type: 'reset_result', id: req.id, items: await s.reset(req.items) };
      case 'step':
        return { type: 'step_result', id: req.id, items: await s.step(req.items) };
      case 'close':
        return { type: 'closed', id: req.id, ...s.close(req.episode_ids) };
      case 'ping':
        return { type: 'pong', id: req.id };
    }
  }

  /** Free a session's episodes; returns how many there were. Finished episodes' records are flushed. */
  free(sessionId: string): number {
    const s = this.#sessions.get(sessionId);
    if (s === undefined) return 0;
    this.#sessions.delete(sessionId);
    const { freed, closing } = s.free();
    if (closing !== null) {
      const tracked = closing.catch(() => undefined).finally(() => this.#closing.delete(tracked));
      this.#closing.add(tracked);
    }
    return freed;
  }

  /** Free every session (shutdown); resolves with how many episodes were freed once every record file is flushed. */
  async drain(): Promise<number> {
    let n = 0;
    for (const id of [...this.#sessions.keys()]) n += this.free(id);
    await Promise.all([...this.#closing]);
    return n;
  }
}

// -------------------------------------------------------------------------------------------------
// Hosts
// -------------------------------------------------------------------------------------------------

/** A request's reply as it goes on the wire, and what the shard counted while making it. */
export interface HostReply {
  bytes: Buffer | string;
  stats: SessionStats;
  /** The session's unclosed episodes after the request. */
  episodes: number;
  /** The answering thread's heap reading (`HeapBudget.reading`), and which thread ("main" or the shard). */
  heap?: HeapReading & { shard: string };
}

/** What a session tells its host about itself. */
export interface SessionRef {
  readonly id: string;
  readonly streamSeed: number;
  /** The shard the session is bound to (set by `bind`). */
  shard: number;
}

/** The episode side of the server, on the main thread or in workers. */
export interface EpisodeHost {
  /** Worker threads (0: the main thread). */
  readonly workers: number;
  /** Resolves when every worker has started (fastify's `ready` waits for it). */
  ready(): Promise<void>;
  /** Bind a new session to a shard. */
  bind(session: SessionRef): void;
  /**
   * Apply a request and encode its reply. `frame` is the request as received (workers decode it again;
   * the main thread already holds `req`). Rejects only when the worker's task failed as a whole.
   */
  apply(session: SessionRef, req: SessionRequest, frame: Buffer, binary: boolean): Promise<HostReply>;
  /** Free a session's episodes; resolves to how many there were. */
  free(session: SessionRef): Promise<{ freed: number; stats: SessionStats }>;
  /**
   * Phase one of a reward reload: every worker re-reads and validates the reward files and keeps the set
   * pending. Resolves to one problem per worker that failed or loaded a set whose hash is not `hash`
   * (the files changed during the reload); empty when all hold `hash`.
   */
  prepareRewards(hash: string): Promise<string[]>;
  /** Phase two: every worker puts its pending set (of `hash`) in force for new resets. */
  commitRewards(hash: string): Promise<void>;
  /** Every worker drops its pending set (a reload that failed somewhere changes nothing anywhere). */
  abortRewards(): Promise<void>;
  /**
   * Write a V8 heap snapshot of every worker thread into `dir` (`shard-<i>-<stamp>.heapsnapshot`), one at
   * a time; resolves to the files written (none without workers: the main thread's is the caller's).
   */
  heapSnapshots(dir: string, stamp: string): Promise<string[]>;
  /** Free everything and flush record files (shutdown). */
  drain(): Promise<void>;
  /** Stop the workers. */
  close(): Promise<void>;
}

/**
 * Encode a reply; a value that cannot be encoded becomes a frame-level INTERNAL error (logged). With
 * `transient`, binary bytes are a view the next transient encoding writes over (`Codec.encodeTransient`):
 * for a caller that copies them at once.
 */
export function encodeReply(codec: Codec, reply: object, binary: boolean, log: Logger, transient = false): Buffer | string {
  try {
    return transient ? codec.encodeTransient(reply, binary) : codec.encode(reply, binary);
  } catch (e) {
    const trace_id = crypto.randomUUID();
    log.error({ err: e, trace_id }, 'internal error (encoding)');
    const id = (reply as { id?: unknown }).id ?? null;
    return codec.encode(errorFrame(id, { code: 'INTERNAL', message: 'internal error (encoding)', details: { trace_id } }), binary);
  }
}

/**
 * The number of workers `workers: "auto"` means here: one per core (1..8). The main thread's transport is
 * light next to resets, so a worker per core beats leaving it a core: on 2 cores, 2 workers held more
 * live episodes than 1, with a lower step p99
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
export function autoWorkers(): number {
  return Math.min(8, Math.max(1, availableParallelism()));
}

/** One shard on the main thread. */
export class LocalHost implements EpisodeHost {
  readonly workers = 0;
  readonly #table: EpisodeTable;
  readonly #codec: Codec;
  /** The main thread's memory admission, against its own heap limit (`node --max-old-space-size`). */
  readonly #budget = new HeapBudget().start();

  constructor(opts: { config: ServerConfig; env: () => EnvConfig; log: Logger; codec: Codec; yieldEvery: number }) {
    this.#table = new EpisodeTable({
      config: opts.config,
      env: opts.env,
      log: opts.log,
      yieldEvery: opts.yieldEvery,
      budget: this.#budget,
    });
    this.#codec = opts.codec;
  }

  async ready(): Promise<void> {}

  bind(session: SessionRef): void {
    session.shard = 0;
  }

  async apply(session: SessionRef, req: SessionRequest, _frame: Buffer, binary: boolean): Promise<HostReply> {
    const table = this.#table;
    const reply = await table.apply(session.id, session.streamSeed, req);
    const bytes = encodeReply(this.#codec, reply, binary, table.log);
    return {
      bytes,
      stats: table.takeStats(),
      episodes: table.episodeCount(session.id),
      heap: { shard: 'main', ...this.#budget.reading() },
    };
  }

  async free(session: SessionRef): Promise<{ freed: number; stats: SessionStats }> {
    const freed = this.#table.free(session.id);
    return { freed, stats: emptyStats() };
  }

  // The main thread's table reads the server's env getter, which the catalog's commit replaces.
  async prepareRewards(): Promise<string[]> {
    return [];
  }

  async commitRewards(): Promise<void> {}

  async abortRewards(): Promise<void> {}

  async heapSnapshots(): Promise<string[]> {
    return [];
  }

  async drain(): Promise<void> {
    await this.#table.drain();
  }

  async close(): Promise<void> {
    this.#budget.stop();
  }
}

/** A task for a worker (server/worker.ts). */
export type WorkerTask =
  | { op: 'apply'; session: string; seed: number; frame: Uint8Array; binary: boolean }
  | { op: 'free'; session: string }
  | { op: 'reload_prepare' }
  | { op: 'reload_commit'; hash: string }
  | { op: 'reload_abort' }
  | { op: 'drain' }
  | { op: 'ping' };

/** A worker's answer to `apply`. */
export interface WorkerApplyResult {
  bytes: Uint8Array | string;
  stats: SessionStats;
  episodes: number;
  heap: HeapReading;
}

/** What a worker is started with (`workerData`). */
export interface WorkerData {
  config: ServerConfig;
  /** Worker threads of the server (each keeps its share of the world cache). */
  workers: number;
  yieldEvery: number;
  /** The LLM judge's bearer token (HARNESS_GYM_JUDGE_API_KEY), as the main thread's catalog has it. */
  judgeApiKey?: string;
  /** The TypeScript worker module the tsx bootstrap loads (running from sources only). */
  tsModule?: string;
  /** The content hash of the harness the main thread loaded; a worker that finds another refuses to start. */
  harnessHash: string;
}

/**
 * The module a worker runs: built JavaScript as is; a TypeScript module (running from sources) through the
 * tsx bootstrap server/ts-worker.mjs, since Node 20 does not pass `--import tsx` on to worker threads.
 */
function workerModule(file: string | undefined): { filename: string; tsModule?: string } {
  const target = file ?? new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url).href;
  if (!target.endsWith('.ts')) return { filename: target };
  return { filename: new URL('./ts-worker.mjs', import.meta.url).href, tsModule: target };
}

/**
 * An empty worker whose committed heap is above this is replaced (bytes): above what a fresh worker
 * commits (its start-up garbage included), below what one keeps committed after a storm of `train` resets
 * even once collected, because V8 gives pages back only in a memory-reducing GC, which an idle worker
 * reaches late (server/idle-collect.ts). A worker that holds no session holds nothing worth keeping but
 * its caches, so starting a fresh one is cheaper: its isolate's memory goes back at once
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
export const RECYCLE_ABOVE_BYTES = 64 * 1024 * 1024;
/** How long a worker must stay without sessions before it is replaced (ms): no churn for a reconnect. */
export const RECYCLE_DELAY_MS = 1000;

/** A worker's answer to `free`. */
export interface WorkerFreeResult {
  freed: number;
  stats: SessionStats;
  /** The worker's committed heap after the free. */
  heap_bytes: number;
}

/** One shard: its single-thread pool and what the host knows of it. */
interface Slot {
  pool: Piscina;
  /** Sessions bound to it. */
  load: number;
  /** Tasks sent and not answered. */
  inFlight: number;
  recycle: NodeJS.Timeout | null;
}

/** Shards in worker threads: one single-thread piscina pool per shard. */
export class WorkerHost implements EpisodeHost {
  readonly workers: number;
  readonly #slots: Slot[];
  readonly #log: Logger;
  readonly #workerData: WorkerData;
  readonly #filename: string;
  readonly #heapMb: number | null;
  #closing = false;
  /** Workers replaced because they were empty and had grown (tests, diagnostics). */
  recycled = 0;

  readonly #onRecycle: () => void;

  constructor(opts: {
    config: ServerConfig;
    workers: number;
    log: Logger;
    yieldEvery: number;
    workerFile?: string;
    judgeApiKey?: string;
    harnessHash: string;
    /** Called each time an empty worker is replaced (the server counts it). */
    onRecycle?: () => void;
  }) {
    this.workers = opts.workers;
    this.#log = opts.log;
    this.#onRecycle = opts.onRecycle ?? (() => {});
    this.#heapMb = workerHeapMb(opts.config.worker_heap_mb);
    const { filename, tsModule } = workerModule(opts.workerFile);
    this.#filename = filename;
    this.#workerData = {
      config: opts.config,
      workers: opts.workers,
      yieldEvery: opts.yieldEvery,
      judgeApiKey: opts.judgeApiKey,
      tsModule,
      harnessHash: opts.harnessHash,
    };
    this.#slots = [];
    for (let i = 0; i < opts.workers; i++) this.#slots.push({ pool: this.#newPool(i), load: 0, inFlight: 0, recycle: null });
  }

  #newPool(i: number): Piscina {
    const pool = new Piscina({
      filename: this.#filename,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      concurrentTasksPerWorker: 64,
      // Shards keep timers between tasks (record flushes, LLM-judge calls, idle collection); piscina's
      // default Atomics.wait parks the thread's event loop between tasks and they would never fire.
      atomics: 'disabled',
      workerData: this.#workerData,
      // The old generation's limit: V8 collects harder as it nears it, and the worker's admission refuses
      // new episodes above HEAP_ADMIT_FRACTION of it (server/heap-budget.ts) before it is reached.
      ...(this.#heapMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } }),
    });
    pool.on('error', (err: unknown) =>
      this.#log.error({ err, shard: i, main_thread: threadId }, 'shard worker failed; it is replaced and its episodes are lost'),
    );
    return pool;
  }

  async ready(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => this.#run(slot, { op: 'ping' })));
  }

  bind(session: SessionRef): void {
    let best = 0;
    for (let i = 1; i < this.#slots.length; i++) if ((this.#slots[i] as Slot).load < (this.#slots[best] as Slot).load) best = i;
    const slot = this.#slots[best] as Slot;
    slot.load++;
    if (slot.recycle !== null) {
      clearTimeout(slot.recycle);
      slot.recycle = null;
    }
    session.shard = best;
  }

  #slot(session: SessionRef): Slot {
    const slot = this.#slots[session.shard];
    if (!slot) throw new RangeError(`session ${session.id} is bound to no shard`);
    return slot;
  }

  async #run(slot: Slot, task: WorkerTask, options?: { transferList: ArrayBuffer[] }): Promise<unknown> {
    slot.inFlight++;
    try {
      return await slot.pool.run(task, options);
    } finally {
      slot.inFlight--;
    }
  }

  async apply(session: SessionRef, _req: SessionRequest, frame: Buffer, binary: boolean): Promise<HostReply> {
    // An exact copy: a ws frame may be a view into a bigger read buffer, and cloning a view clones all of it.
    const copy = new Uint8Array(frame);
    const task: WorkerTask = { op: 'apply', session: session.id, seed: session.streamSeed, frame: copy, binary };
    const r = (await this.#run(this.#slot(session), task, { transferList: [copy.buffer] })) as WorkerApplyResult;
    return {
      bytes: typeof r.bytes === 'string' ? r.bytes : Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength),
      stats: r.stats,
      episodes: r.episodes,
      heap: { shard: String(session.shard), ...r.heap },
    };
  }

  async free(session: SessionRef): Promise<{ freed: number; stats: SessionStats }> {
    const slot = this.#slot(session);
    slot.load = Math.max(0, slot.load - 1);
    const r = (await this.#run(slot, { op: 'free', session: session.id })) as WorkerFreeResult;
    if (slot.load === 0 && r.heap_bytes > RECYCLE_ABOVE_BYTES) this.#scheduleRecycle(session.shard);
    return { freed: r.freed, stats: r.stats };
  }

  /** Replace an empty, grown worker once it stayed empty for `RECYCLE_DELAY_MS`. */
  #scheduleRecycle(i: number): void {
    const slot = this.#slots[i] as Slot;
    if (slot.recycle !== null || this.#closing) return;
    slot.recycle = setTimeout(() => {
      slot.recycle = null;
      if (slot.load > 0 || this.#closing) return;
      if (slot.inFlight > 0) return this.#scheduleRecycle(i);
      const old = slot.pool;
      slot.pool = this.#newPool(i);
      this.recycled++;
      this.#onRecycle();
      this.#log.info({ shard: i }, 'empty shard worker replaced to return its memory');
      old.destroy().catch((err: unknown) => this.#log.warn({ err, shard: i }, 'a replaced shard worker did not stop cleanly'));
      this.#run(slot, { op: 'ping' }).catch((err: unknown) =>
        this.#log.error({ err, shard: i }, 'a replacement shard worker failed to start'),
      );
    }, RECYCLE_DELAY_MS);
    slot.recycle.unref();
  }

  async prepareRewards(hash: string): Promise<string[]> {
    const answers = await Promise.all(
      this.#slots.map((slot, i) =>
        this.#run(slot, { op: 'reload_prepare' }).then(
          (r) => ({ i, r: r as { ok: true; hash: string } | { ok: false; errors: string[] } }),
          (err: unknown) => ({ i, r: { ok: false as const, errors: [(err as Error).message] } }),
        ),
      ),
    );
    const problems: string[] = [];
    for (const { i, r } of answers) {
      if (!r.ok) problems.push(`shard worker ${i}: ${r.errors.join('; ')}`);
      else if (r.hash !== hash) problems.push(`shard worker ${i} loaded reward set ${r.hash}, the main thread ${hash} (the files changed during the reload)`);
    }
    return problems;
  }

  async commitRewards(hash: string): Promise<void> {
    await Promise.all(this.#slots.map((slot) => this.#run(slot, { op: 'reload_commit', hash })));
  }

  async abortRewards(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => this.#run(slot, { op: 'reload_abort' })));
  }

  async heapSnapshots(dir: string, stamp: string): Promise<string[]> {
    const files: string[] = [];
    for (const [i, slot] of this.#slots.entries()) {
      for (const thread of slot.pool.threads) {
        const file = join(dir, `shard-${i}-${stamp}.heapsnapshot`);
        // The worker pauses while V8 walks its heap; the stream is written as it comes.
        await pipeline(await thread.getHeapSnapshot(), createWriteStream(file));
        files.push(file);
      }
    }
    return files;
  }

  async drain(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => this.#run(slot, { op: 'drain' })));
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const slot of this.#slots) if (slot.recycle !== null) clearTimeout(slot.recycle);
    await Promise.all(this.#slots.map((slot) => slot.pool.destroy()));
  }
}
