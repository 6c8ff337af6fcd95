/**
 * The state one server instance shares between its connections: config, environment config, codec,
 * metrics, logger, sessions, and the in-flight counter that graceful shutdown drains.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { Logger } from 'pino';
import type { ErrorCode } from '../protocol/errors.js';
import { errorFrame } from '../protocol/errors.js';
import { deriveSeed } from '../protocol/rng.js';
import type { RequestId, ServerInfo, WireError } from '../protocol/wire.js';
import { prepareVariantsInBackground, taskDefaultProblems } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import type { ReloadOutcome, RewardCatalog, RewardSet } from '../rewards/index.js';
import { Codec } from '../protocol/codec.js';
import type { ServerConfig } from './config.js';
import { serverEnvConfig, withRewards } from './env-config.js';
import type { Connection, ConnectionServer } from './connection.js';
import { buildServerInfo } from './info.js';
import { createMetrics } from './metrics.js';
import type { FreeReason, ServerMetrics } from './metrics.js';
import { Session } from './session.js';
import type { SessionServer } from './session.js';
import type { SessionStats } from '../env/index.js';
import { LocalHost, WorkerHost, autoWorkers } from './hosts.js';
import type { EpisodeHost } from './hosts.js';
import { packageIdentity } from '../protocol/package.js';
import { IdleCollector } from './idle-collect.js';

/** Optional collaborators of a server (tests and embedders); the defaults suit `harness-gym serve`. */
export interface ServerDeps {
  /** Overrides of the environment config (task source, reward registry and profiles, defaults). Limits come from the server config. */
  env?: Partial<Omit<EnvConfig, 'limits'>>;
  /** The logger; default: a pino logger at `config.log_level` writing to stdout. */
  logger?: Logger;
  /**
   * Batch items applied between two yields to the event loop (default 32): smaller keeps pings, other
   * sessions and shutdown responsive during a big batch, larger saves a little overhead.
   */
  yieldEvery?: number;
  /**
   * The reward set from files (`config.rewards`), loaded before the server is built (module files are
   * imported asynchronously; `RewardCatalog.load`). It replaces `env.registry` / `env.profiles`, and each
   * successful `catalog.reload()` (SIGHUP) swaps them for new resets. Required when `config.rewards`
   * names any file.
   */
  rewards?: RewardCatalog;
  /**
   * The module each shard worker runs (default: server/shard-worker). Tests wrap the real one to inject
   * failures; only used when `config.workers` is not 0.
   */
  workerFile?: string;
  /** The LLM judge's bearer token for shard workers' reward catalogs (serve passes HARNESS_GYM_JUDGE_API_KEY). */
  judgeApiKey?: string;
  /**
   * Test only: milliseconds to wait before the episode workers' start-up check begins, standing in for a
   * slow start on a loaded machine (test/server/slow-start.test.ts). Default 0.
   */
  startDelayMs?: number;
}

/** A snapshot of a server's state, for tests and diagnostics. */
export interface ServerState {
  sessions: number;
  episodes: number;
  inFlight: number;
  shuttingDown: boolean;
  /** Whether every episode worker has started (until then /readyz answers 503 `starting`). */
  ready: boolean;
  /** Worker threads owning the episodes (0: the main thread). */
  workers: number;
}

/** Digest for constant-time token comparison: equal lengths whatever the token's length. */
function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Shared server state. */
export class ServerCore implements SessionServer, ConnectionServer {
  readonly config: ServerConfig;
  #env: EnvConfig;
  readonly codec = new Codec();
  readonly metrics: ServerMetrics;
  readonly log: Logger;
  #info: ServerInfo;
  readonly #catalog: RewardCatalog | null;
  /** Reloads one at a time (a second SIGHUP waits for the first to finish on every thread). */
  #reloads: Promise<unknown> = Promise.resolve();
  readonly #unsubscribe: () => void;
  readonly sessions = new Map<string, Session>();
  readonly connections = new Set<Connection>();
  /** Batch items between two yields to the event loop. */
  readonly yieldEvery: number;
  readonly #tokenDigest: Buffer | null;
  #sessionCounter = 0;
  #inFlight = 0;
  #drainWaiters: (() => void)[] = [];
  /** Sessions being freed (their shard answers asynchronously; shutdown waits for them). */
  readonly #freeing = new Set<Promise<void>>();
  /** Where the episodes live: this thread, or worker threads. */
  readonly hosts: EpisodeHost;
  shuttingDown = false;
  /**
   * Start-up of the episode workers, begun by the constructor beside (not inside) fastify's hooks, with
   * no timeout: a slow machine starts slowly. Resolves once every worker answered; rejects if one could
   * not start (`started` below says so too).
   */
  readonly startup: Promise<void>;
  /** Whether `startup` resolved (readiness). */
  started = false;
  /** Why start-up failed, once it has. */
  startError: unknown = null;
  /** Collects the main thread's heap once requests stop after sessions ended (server/idle-collect.ts). */
  readonly #collector = new IdleCollector();
  /** Stops compiling the variant pools in the background (docs/HARNESS.md "How its variants are drawn"). */
  #stopPreparing: () => void = () => {};

  constructor(config: ServerConfig, logger: Logger, deps: ServerDeps = {}) {
    this.config = config;
    this.log = logger;
    const files = config.rewards.profiles.length + config.rewards.module_dirs.length;
    if (files > 0 && deps.rewards === undefined) {
      throw new TypeError('config.rewards names files: load them with RewardCatalog.load and pass deps.rewards');
    }
    this.#catalog = deps.rewards ?? null;
    const set = this.#catalog?.current;
    this.#env = serverEnvConfig(config, {
      ...(set === undefined ? {} : { rewards: set }),
      ...(deps.env === undefined ? {} : { overrides: deps.env }),
    });
    // Task defaults every reset would fail with (a mix of intents the source does not serve) stop the
    // start (serve says so first, naming the key: cli/commands/serve.ts).
    const problems = taskDefaultProblems(this.#env, { split: config.defaults?.task_split !== undefined });
    if (problems.length > 0) throw new TypeError(`invalid task defaults: ${problems.join('; ')}`);
    this.yieldEvery = Math.max(1, Math.floor(deps.yieldEvery ?? 32));
    this.#info = buildServerInfo(config, this.#env, packageIdentity(), set?.hash);
    this.#unsubscribe = this.#catalog?.onSwap((next) => this.#swapRewards(next)) ?? (() => {});
    this.#tokenDigest = config.token === null ? null : digest(config.token);
    const workers = config.workers === 'auto' ? autoWorkers() : config.workers;
    if (workers > 0 && deps.env !== undefined && Object.keys(deps.env).length > 0) {
      // Workers build their environment from the config alone; objects cannot be sent to them.
      throw new TypeError('deps.env (an in-memory task source, registry or profiles) needs workers: 0');
    }
    this.hosts =
      workers === 0
        ? new LocalHost({ config, env: () => this.#env, log: logger, codec: this.codec, yieldEvery: this.yieldEvery })
        : new WorkerHost({
            config,
            workers,
            log: logger,
            yieldEvery: this.yieldEvery,
            workerFile: deps.workerFile,
            judgeApiKey: deps.judgeApiKey,
            harnessHash: this.#env.harness.identity.hash,
            onRecycle: () => this.metrics.workerRecycles.inc(),
          });
    // The workers start now, whatever fastify does: readiness (/readyz) follows this, not a framework hook
    // with a timeout (fastify's onReady gives up after 10 s; a busy 2-core box needs 6-11 s).
    const delay = Math.max(0, deps.startDelayMs ?? 0);
    const startup = (delay > 0 ? new Promise<void>((resolve) => setTimeout(resolve, delay)) : Promise.resolve()).then(() => this.hosts.ready());
    this.startup = startup.then(
      () => {
        this.started = true;
      },
      (e: unknown) => {
        this.startError = e;
        throw e;
      },
    );
    // The failure is also read from `startError`; a caller that never awaits `startup` sees no unhandled rejection.
    this.startup.catch(() => {});
    // The episodes live on this thread (workers: 0): compile the rest of each preset's variant pool here,
    // in the background, once a reset draws from it; workers compile their own (server/worker.ts).
    if (workers === 0) {
      this.#stopPreparing = prepareVariantsInBackground(this.#env, ({ ms, ...pool }) =>
        logger.debug({ ...pool, ms: Math.round(ms) }, 'variant pool compiled'),
      );
    }
    this.metrics = createMetrics({
      sessions: () => this.sessions.size,
      episodesLive: () => {
        let n = 0;
        for (const s of this.sessions.values()) n += s.episodeCount;
        return n;
      },
    });
  }

  /** The environment config new resets use (replaced, never mutated, when the reward set is reloaded). */
  get env(): EnvConfig {
    return this.#env;
  }

  /** The server description (`welcome`, `/v1/info`), rebuilt when the reward set is reloaded. */
  get info(): ServerInfo {
    return this.#info;
  }

  /**
   * Re-read the reward files and swap the profiles atomically (what SIGHUP does). Episodes in flight keep
   * the profile and registry they were reset with; new resets and new `welcome`s see the new set. On any
   * error the old set stays and the errors are logged and returned.
   */
  reloadRewards(): Promise<ReloadOutcome> {
    const run = this.#reloads.then(() => this.#reloadOnce());
    this.#reloads = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * One reload in two phases, so that it completes on every thread or on none: the main thread and every
   * worker load and validate the files and report the set's hash; only if all hold the same set does each
   * put it in force, otherwise each drops it (the files changed during the reload, or a worker failed).
   */
  async #reloadOnce(): Promise<ReloadOutcome> {
    const catalog = this.#catalog;
    if (catalog === null) return { ok: false, errors: ['no reward files configured (config.rewards is empty)'] };
    const prepared = await catalog.prepare();
    if (!prepared.ok) {
      this.log.error({ errors: prepared.errors }, 'reward reload failed; keeping the previous profiles');
      return prepared;
    }
    const hash = prepared.set.hash;
    const problems = await this.hosts.prepareRewards(hash);
    if (problems.length > 0) {
      await this.hosts.abortRewards();
      const errors = [`reload aborted on every thread, the previous reward set ${this.#info.rewards_hash} stays: ${problems.join('; ')}`];
      this.log.error({ errors }, 'reward reload failed; keeping the previous profiles');
      return { ok: false, errors };
    }
    await this.hosts.commitRewards(hash);
    const r = catalog.commit(prepared.set);
    if (r.ok) this.log.info({ profiles: r.profiles, generation: r.generation, hash }, 'reward profiles reloaded');
    return r;
  }

  /**
   * Write V8 heap snapshots of the main thread (`main-<stamp>.heapsnapshot`) and of every episode worker
   * (`shard-<i>-<stamp>.heapsnapshot`) into `dir`, one thread at a time; each thread stops while its heap
   * is written (seconds for a worker holding thousands of episodes). Resolves to the files written. For
   * memory questions under load: Node's `--heapsnapshot-signal` covers the main thread only.
   */
  async heapSnapshots(dir: string): Promise<string[]> {
    const stamp = `${process.pid}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const main = writeHeapSnapshot(join(dir, `main-${stamp}.heapsnapshot`));
    return [main, ...(await this.hosts.heapSnapshots(dir, stamp))];
  }

  /** Point new resets at a new reward set: one assignment each, so no reset sees half of it. */
  #swapRewards(set: RewardSet): void {
    const env = withRewards(this.#env, set);
    const info = buildServerInfo(this.config, env, packageIdentity(), set.hash);
    this.#env = env;
    this.#info = info;
  }

  /** Add what a shard counted to the server's metrics. */
  addStats(stats: SessionStats): void {
    const m = this.metrics;
    if (stats.resets > 0) m.resets.inc(stats.resets);
    if (stats.steps > 0) m.steps.inc(stats.steps);
    if (stats.stepSeconds.length > 0) m.observeStepSeconds(stats.stepSeconds);
    for (const code in stats.errors) m.errors.inc({ code }, stats.errors[code as ErrorCode] as number);
    if (stats.rewards.length > 0) m.observeRewards(stats.rewards);
    if (stats.closed > 0) m.freed.inc({ reason: 'closed' satisfies FreeReason }, stats.closed);
  }

  /** An episode thread's heap reading, from its last answer (the shard heap gauges). */
  noteHeap(heap: { shard: string; used: number; limit: number }): void {
    this.metrics.heapLive.set({ shard: heap.shard }, heap.used);
    this.metrics.heapLimit.set({ shard: heap.shard }, heap.limit);
  }

  /** A snapshot for tests and diagnostics. */
  state(): ServerState {
    let episodes = 0;
    for (const s of this.sessions.values()) episodes += s.episodeCount;
    return {
      sessions: this.sessions.size,
      episodes,
      inFlight: this.#inFlight,
      shuttingDown: this.shuttingDown,
      ready: this.started,
      workers: this.hosts.workers,
    };
  }

  /** True when the server accepts no new session (readiness). */
  get full(): boolean {
    return this.sessions.size >= this.config.max_sessions;
  }

  /** Whether a hello's token is acceptable (constant time on sha256 digests, so lengths do not leak). */
  tokenOk(token: string | undefined): boolean {
    if (this.#tokenDigest === null) return true;
    // A missing token compares as '' (never a valid token: the schema requires a non-empty one).
    return timingSafeEqual(digest(token ?? ''), this.#tokenDigest);
  }

  /** Open a session. Its seed stream: `hello.seed`, else derived from the server seed and a counter. */
  openSession(helloSeed: number | undefined): Session {
    const n = ++this.#sessionCounter;
    const streamSeed = helloSeed ?? deriveSeed(this.config.seed, `session:${n}`);
    const session = new Session(this, streamSeed);
    this.sessions.set(session.id, session);
    session.log.debug({ seeded: helloSeed !== undefined }, 'session opened');
    return session;
  }

  /** Free a session and its episodes (clean close, grace expiry, idle reaping, shutdown). Idempotent. */
  endSession(session: Session, reason: FreeReason): void {
    if (session.ended) return;
    // The session leaves the table once its shard freed it, so a scrape never shows it gone but not freed.
    const freeing: Promise<void> = session.free().then((n) => {
      this.sessions.delete(session.id);
      if (n > 0) this.metrics.freed.inc({ reason }, n);
      this.#collector.noteFreed(1);
      session.log.debug({ reason, episodes: n }, 'session ended');
      this.#freeing.delete(freeing);
    });
    this.#freeing.add(freeing);
  }

  /** An idle session: free it and close its connection with 1000 "idle". */
  reapIdle(session: Session): void {
    const conn = session.conn;
    this.endSession(session, 'idle');
    conn?.close(1000, 'idle');
  }

  /** Count an error reply (`harness_gym_errors_total{code}`). */
  countError(code: ErrorCode): void {
    this.metrics.errors.inc({ code });
  }

  /** A frame-level `error` reply (counted). */
  frameError(
    id: RequestId | null,
    code: ErrorCode,
    message: string,
    details?: unknown,
  ): { type: 'error'; id: RequestId | null; error: WireError } {
    this.countError(code);
    return errorFrame(id, { code, message, details }) as { type: 'error'; id: RequestId | null; error: WireError };
  }

  /** A request entered a session's queue. */
  beginWork(): void {
    this.#inFlight++;
    this.#collector.begin();
  }

  /** A request was answered. */
  endWork(): void {
    this.#inFlight--;
    this.#collector.end(0);
    if (this.#inFlight === 0) {
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Graceful shutdown: refuse new work (`SHUTTING_DOWN`, /readyz 503), answer every request already
   * received, then end every session and close every connection with 1001.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.#unsubscribe();
    this.#stopPreparing();
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    for (const session of [...this.sessions.values()]) {
      const conn = session.conn;
      this.endSession(session, 'ended_session');
      conn?.close(1001, 'shutting down');
    }
    for (const conn of [...this.connections]) conn.close(1001, 'shutting down');
    await Promise.all([...this.#freeing]);
    // Every session's record file is flushed before the workers stop.
    await this.hosts.drain();
    await this.hosts.close();
  }
}
