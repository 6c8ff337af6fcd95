/**
 * The load generator: C connections, each one session holding many episodes, binary (MessagePack)
 * frames with batched items, per docs/PROTOCOL.md. Two phases:
 *
 * - Throughput (`runThroughput`): think time 0. Each round, every connection resets its episodes
 *   (explicit seeds, variant `train`; not timed), then steps them in frames of S items until all ended
 *   (timed). Actions are the oracle's, precomputed in-process (`bench/plan.ts`), so neither side does
 *   policy work in the timed window. Frames are filled to S whenever S episodes are ready; a partial
 *   frame goes out only when nothing is in flight, so frames stay full and the pipeline never stalls.
 *   steps/s = step items / the summed wall time of the timed windows (all connections together).
 *   The same function, pointed at the echo server with the env run's round count, replays the very
 *   same frames (see bench/echo-server.ts).
 * - Concurrency (`runConcurrency`): N live episodes over C connections with a think time T (seeded
 *   jitter), the oracle through `options.oracle_hints` (the server puts the next action in
 *   `info.oracle_action`). Each episode: reset -> think -> step -> think -> ... -> when it ends, reset
 *   again under a new seed, so N stay live. First resets are staggered over the first think period.
 *   Every tick (~10 ms) each connection sends what fell due as one reset frame and one step frame.
 */
import { Rng } from '../protocol/rng.js';
import type { Corpus } from './corpus.js';
import { LOAD_VARIANT, throughputSeed } from './plan.js';
import type { RoundPlan } from './plan.js';
import { machineBusyCpuSeconds, serverCpu, serverRssBytes, sample, scrapeMetrics, stepP99Ms, stepQuantileMs } from './observe.js';
import { p50p99, median } from './stats.js';
import { BenchConn } from './wire-client.js';
import type { Answer, ReplyItem } from './wire-client.js';

/** What went wrong, by kind; `total` is what the summary calls failures. */
export interface Failures {
  /** Result items with `ok: false` (and items of frame-level `error` replies). */
  item_errors: number;
  /** Requests answered later than the request timeout, or never. */
  timeouts: number;
  /** Connections the server closed (or that dropped) while the bench used them. */
  unexpected_closes: number;
  /** Throughput phase only: a remote episode that did not end where its in-process twin did. */
  divergences: number;
  /** Concurrency phase only: a live episode whose observation had no `info.oracle_action`. */
  missing_hints: number;
  total: number;
  /** Close codes of the unexpected closes (code -> connections), for diagnosis. */
  close_codes: Record<string, number>;
}

function newFailures(): Failures {
  return { item_errors: 0, timeouts: 0, unexpected_closes: 0, divergences: 0, missing_hints: 0, total: 0, close_codes: {} };
}

function finishFailures(f: Failures, conns: readonly BenchConn[]): Failures {
  for (const c of conns) {
    f.timeouts += c.stats.timeouts;
    if (c.stats.unexpectedClose) {
      f.unexpected_closes++;
      const code = String(c.stats.closeCode);
      f.close_codes[code] = (f.close_codes[code] ?? 0) + 1;
    }
  }
  f.total = f.item_errors + f.timeouts + f.unexpected_closes + f.divergences + f.missing_hints;
  return f;
}

/** Progress lines (stderr in the CLI). */
export type Log = (line: string) => void;

/** Split `items` into chunks of at most `n`. */
function chunks<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

// -------------------------------------------------------------------------------------------------
// Throughput
// -------------------------------------------------------------------------------------------------

/** Plans by (connection, distinct round), made on first use and cached (shared by env, echo and scaling runs). */
export class PlanCache {
  readonly #plans = new Map<string, RoundPlan>();
  readonly #make: (c: number, r: number) => RoundPlan;
  constructor(make: (c: number, r: number) => RoundPlan) {
    this.#make = make;
  }
  get(c: number, r: number): RoundPlan {
    const key = `${c}/${r}`;
    let p = this.#plans.get(key);
    if (!p) {
      p = this.#make(c, r);
      this.#plans.set(key, p);
    }
    return p;
  }
}

/** Options of a throughput run. */
export interface ThroughputOptions {
  url: string;
  connections: number;
  /** Episodes each connection resets per round. */
  episodes: number;
  stepsPerFrame: number;
  /** Phase wall time, resets included (s); ignored when `rounds` is given. */
  durationS: number;
  /** Run exactly this many rounds, warm-up included (the echo replays the env run's count). */
  rounds?: number;
  /** Untimed rounds first on the timed connections; their steps are not counted. */
  warmupRounds: number;
  /**
   * Seconds of the same workload on connections of their own before the timed connections open (JIT
   * warm-up of the server; untimed, not recorded). The timed connections then send the same bytes as
   * without it (request ids count from 1 on each connection). 0 or absent: none.
   */
  warmupS?: number;
  /** The warm-up cycles through this many distinct rounds (default `distinctRounds`; the echo: those it has replies for). */
  warmupDistinctRounds?: number;
  /** Distinct rounds of seeds; round r uses distinct round r % distinctRounds. */
  distinctRounds: number;
  plans: PlanCache;
  seed: number;
  /** Items per reset frame (the server's max_batch). */
  maxBatch: number;
  timeoutMs: number;
  /** Record every step reply item here (the env run feeds the echo's corpus). */
  corpus?: Corpus;
  /** The server's pid, to read its CPU over the timed windows from /proc (null or absent: not read). */
  pid?: number | null;
  log?: Log;
}

/** What a throughput run measured. */
export interface ThroughputResult {
  /** Rounds run, warm-up included. */
  rounds: number;
  /** Step items answered `ok` in the timed rounds. */
  steps: number;
  /** Step items answered `ok` untimed: the warm-up run's and the warm-up rounds'. */
  warmup_steps: number;
  /** Wall time of the warm-up run on its own connections (s; 0 without one). */
  warmup_s: number;
  /** Failures during the warm-up run (not in `failures`). */
  warmup_failures: number;
  step_frames: number;
  /** Summed wall time of the timed (stepping) windows (s). */
  timed_s: number;
  steps_per_s: number;
  mean_items_per_frame: number;
  /** Round trip of step frames (ms). */
  rtt_p50_ms: number;
  rtt_p99_ms: number;
  /** Bytes of step reply frames. */
  step_reply_bytes: number;
  /**
   * CPU per timed step item (µs), over the timed windows alone: the server process (every thread) and
   * the process driving the load. Null for the server without its pid or off Linux.
   */
  server_cpu_us_per_step: number | null;
  client_cpu_us_per_step: number;
  failures: Failures;
}

/** Step one connection's round: frames of S items, pipelined, until every episode ended. */
function stepRound(conn: BenchConn, plan: RoundPlan, S: number, acc: StepAcc, f: Failures, corpus: Corpus | undefined): Promise<void> {
  interface Slot {
    ep: RoundPlan[number];
    k: number; // steps answered so far
  }
  const queue: Slot[] = plan.map((ep) => ({ ep, k: 0 }));
  let remaining = queue.length;
  let inflight = 0;
  return new Promise((resolve) => {
    const onReply = (batch: Slot[], a: Answer | null): void => {
      inflight--;
      if (a === null) {
        remaining -= batch.length; // the connection closed; counted as an unexpected close
      } else {
        acc.rtts.push(a.rttMs);
        acc.bytes += a.bytes;
        const items = a.reply.items;
        for (let i = 0; i < batch.length; i++) {
          const s = batch[i];
          const item: ReplyItem | undefined = items?.[i];
          s.k++;
          if (!item || !item.ok) {
            f.item_errors++;
            remaining--;
            continue;
          }
          acc.steps++;
          corpus?.record(s.ep.episode_id, s.k, item);
          const ended = item.terminated === true || item.truncated === true;
          if (ended || s.k >= s.ep.actions.length) {
            if (!ended || s.k !== s.ep.actions.length) f.divergences++;
            remaining--;
          } else queue.push(s);
        }
      }
      pump();
    };
    const pump = (): void => {
      while (queue.length >= S || (queue.length > 0 && inflight === 0)) {
        const batch = queue.splice(0, S);
        inflight++;
        acc.frames++;
        const frame = { type: 'step', id: 0, items: batch.map((s) => ({ episode_id: s.ep.episode_id, action: s.ep.actions[s.k] })) };
        void conn.request(frame).then((a) => onReply(batch, a));
      }
      if (remaining === 0 && inflight === 0) resolve();
      else if (inflight === 0 && queue.length === 0) resolve(); // nothing left that can make progress
    };
    pump();
  });
}

/** Reset one connection's round (not timed); per-item failures are counted. */
async function resetRound(conn: BenchConn, plan: { episode_id: string; seed: number }[], maxBatch: number, f: Failures): Promise<void> {
  const frames = chunks(plan, maxBatch).map((batch) =>
    conn.request({ type: 'reset', id: 0, items: batch.map((e) => ({ episode_id: e.episode_id, seed: e.seed, variant: LOAD_VARIANT })) }),
  );
  for (const a of await Promise.all(frames)) {
    if (a === null) continue;
    for (const item of a.reply.items ?? [{ ok: false }]) if (!item.ok) f.item_errors++;
  }
}

/** Accumulators of one connection's stepping. */
interface StepAcc {
  steps: number;
  frames: number;
  rtts: number[];
  bytes: number;
}

/** Rounds over open connections until `more()` says stop: what one throughput run (or its warm-up) does. */
async function driveRounds(
  conns: readonly BenchConn[],
  o: ThroughputOptions,
  run: {
    more: (rounds: number) => boolean;
    warmupRounds: number;
    distinctRounds: number;
    corpus: Corpus | undefined;
    log: Log | undefined;
  },
  f: Failures,
): Promise<{ rounds: number; timedMs: number; warm: StepAcc[]; acc: StepAcc[]; serverCpuS: number | null; clientCpuS: number }> {
  const newAcc = (): StepAcc[] => conns.map(() => ({ steps: 0, frames: 0, rtts: [], bytes: 0 }));
  const warm = newAcc();
  const acc = newAcc();
  let timedMs = 0;
  let serverCpuS: number | null = 0;
  let clientCpuS = 0;
  let rounds = 0;
  const pid = o.pid ?? null;
  while (run.more(rounds) && conns.every((c) => c.open)) {
    const d = rounds % run.distinctRounds;
    const warmup = rounds < run.warmupRounds;
    // Reset first (ids and seeds need no plan), then plan while the server resets: both cores work.
    const resets = conns.map((conn, c) =>
      resetRound(
        conn,
        Array.from({ length: o.episodes }, (_, i) => ({ episode_id: `tp${c}.${d}.${i}`, seed: throughputSeed(o.seed, c, d, i) })),
        o.maxBatch,
        f,
      ),
    );
    const plans = conns.map((_, c) => o.plans.get(c, d));
    await Promise.all(resets);
    // The server's CPU is read outside the timed window: a read walks /proc (~0.5 ms), which is a
    // noticeable share of an echo round.
    const cpu0 = pid === null || warmup ? null : serverCpu(pid);
    const client0 = process.cpuUsage();
    const start = performance.now();
    const into = warmup ? warm : acc;
    await Promise.all(conns.map((conn, c) => stepRound(conn, plans[c], o.stepsPerFrame, into[c], f, run.corpus)));
    if (!warmup) {
      timedMs += performance.now() - start;
      const client = process.cpuUsage(client0);
      clientCpuS += (client.user + client.system) / 1e6;
      const cpu1 = cpu0 === null ? null : serverCpu(pid as number);
      serverCpuS = serverCpuS === null || cpu0 === null || cpu1 === null ? null : serverCpuS + cpu1.total_s - cpu0.total_s;
    }
    rounds++;
    run.log?.(
      `  round ${rounds}${warmup ? ' (warm-up)' : ''}: ${acc.reduce((n, a) => n + a.steps, 0)} steps in ${(timedMs / 1000).toFixed(2)} s timed`,
    );
  }
  return { rounds, timedMs, warm, acc, serverCpuS: pid === null ? null : serverCpuS, clientCpuS };
}

/** Open `o.connections` sessions, run `body`, always drain, count failures and close them. */
async function withConns<T>(o: ThroughputOptions, f: Failures, body: (conns: BenchConn[]) => Promise<T>): Promise<T> {
  const conns = await Promise.all(
    Array.from({ length: o.connections }, (_, c) => BenchConn.open(o.url, { timeoutMs: o.timeoutMs, seed: o.seed + c })),
  );
  try {
    return await body(conns);
  } finally {
    for (const c of conns) await c.drain(1000);
    finishFailures(f, conns);
    await Promise.all(conns.map((c) => c.close()));
  }
}

/** Run the throughput phase against one server (environment or echo). */
export async function runThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  // Warm-up: the same rounds, untimed and unrecorded, on sessions of their own (closed before the timing).
  const wf = newFailures();
  let warmupSteps = 0;
  let warmupMs = 0;
  if ((o.warmupS ?? 0) > 0) {
    // Plan the rounds first (in-process oracle episodes, the bench's own CPU), so that the warm-up is the
    // server's work alone and not mostly waiting for plans.
    const distinct = Math.max(1, Math.min(o.distinctRounds, o.warmupDistinctRounds ?? o.distinctRounds));
    for (let d = 0; d < distinct; d++) for (let c = 0; c < o.connections; c++) o.plans.get(c, d);
    const w0 = performance.now();
    const until = w0 + (o.warmupS ?? 0) * 1000;
    const r = await withConns(o, wf, (conns) =>
      driveRounds(
        conns,
        o,
        {
          more: (rounds) => rounds < 1 || performance.now() < until,
          warmupRounds: 0,
          distinctRounds: distinct,
          corpus: undefined,
          log: undefined,
        },
        wf,
      ),
    );
    warmupMs = performance.now() - w0;
    warmupSteps = r.acc.reduce((n, a) => n + a.steps, 0);
    o.log?.(`  warm-up: ${r.rounds} rounds, ${warmupSteps} steps in ${(warmupMs / 1000).toFixed(1)} s (untimed, own sessions)`);
  }

  const f = newFailures();
  const t0 = performance.now();
  const { rounds, timedMs, warm, acc, serverCpuS, clientCpuS } = await withConns(o, f, (conns) =>
    driveRounds(
      conns,
      o,
      {
        more: (n) => (o.rounds !== undefined ? n < o.rounds : n < o.warmupRounds + 1 || performance.now() - t0 < o.durationS * 1000),
        warmupRounds: o.warmupRounds,
        distinctRounds: o.distinctRounds,
        corpus: o.corpus,
        log: o.log,
      },
      f,
    ),
  );
  const steps = acc.reduce((n, a) => n + a.steps, 0);
  const frames = acc.reduce((n, a) => n + a.frames, 0);
  const { p50, p99 } = p50p99(acc.flatMap((a) => a.rtts));
  return {
    rounds,
    steps,
    warmup_steps: warmupSteps + warm.reduce((n, a) => n + a.steps, 0),
    warmup_s: warmupMs / 1000,
    warmup_failures: wf.total,
    step_frames: frames,
    timed_s: timedMs / 1000,
    steps_per_s: timedMs > 0 ? steps / (timedMs / 1000) : 0,
    mean_items_per_frame: frames > 0 ? steps / frames : 0,
    rtt_p50_ms: p50,
    rtt_p99_ms: p99,
    step_reply_bytes: acc.reduce((n, a) => n + a.bytes, 0),
    server_cpu_us_per_step: serverCpuS === null || steps === 0 ? null : (serverCpuS * 1e6) / steps,
    client_cpu_us_per_step: steps === 0 ? 0 : (clientCpuS * 1e6) / steps,
    failures: f,
  };
}

// -------------------------------------------------------------------------------------------------
// Concurrency
// -------------------------------------------------------------------------------------------------

/** Options of the concurrency phase. */
export interface ConcurrencyOptions {
  url: string;
  httpUrl: string;
  /** The server process, for its memory; null skips the RSS figures. */
  pid: number | null;
  episodes: number;
  connections: number;
  thinkMs: number;
  /** Think-time jitter, a fraction (0.2 = +-20%). */
  jitter: number;
  /** Episodes per GRPO group ("task+variant"; 1: no groups). A group's members share a connection. */
  groupSize: number;
  tickMs: number;
  /**
   * Frames a connection may have unanswered; what falls due beyond that waits for the next tick and goes
   * out in a bigger frame. Keeps the bench under the server's per-connection request queue
   * (`backpressure.max_queued_requests`, 64 by default), as a trainer with bounded concurrency would.
   */
  maxInflightFrames: number;
  rampTimeoutS: number;
  steadyS: number;
  drainS: number;
  maxBatch: number;
  timeoutMs: number;
  seed: number;
  /**
   * Seconds of the same workload at think time 0 (at most 256 episodes over at most 4 sessions of their
   * own, closed before the ramp) to warm the server's JIT. 0 or absent: none.
   */
  warmupS?: number;
  /**
   * The server's step-latency window (s; `harness_gym_step_latency_seconds` keeps the last 60 s). The
   * steady phase lasts at least this + 1 s, so the server-side quantiles read at its end cover the steady
   * phase alone (the ramp and the warm-up, which come before it, have left the window), the span the
   * client's round trips are taken over. 0 or absent: the steady phase is `steadyS`.
   */
  latencyWindowS?: number;
  /**
   * Decode replies without their observations (bench/skim.ts): the phase reads ids, errors, the ending
   * flags and `info.oracle_action`, never an observation. The warm-up and every curve point inherit it.
   */
  skimObservations?: boolean;
  log?: Log;
}

/** The map keys the live phases' client steps over (bench/skim.ts). */
const SKIP_OBSERVATIONS: ReadonlySet<string> = new Set(['observation']);

/** What the concurrency phase measured. */
export interface ConcurrencyResult {
  /** Live (unclosed) episodes on the server during the steady phase: the least `harness_gym_episodes_live` sampled. */
  concurrent_episodes: number | null;
  /** Every episode was live at least once before the ramp timed out. */
  ramp_complete: boolean;
  ramp_s: number;
  steady_s: number;
  /** Step and reset items answered ok, over the whole phase. */
  steps: number;
  resets: number;
  /** `harness_gym_steps_total` after the phase (equals `steps` when nothing was lost). */
  server_steps: number | null;
  steady_steps_per_s: number;
  steady_resets_per_s: number;
  /** Server-side step latency p99 and p50 from the `harness_gym_step_latency_seconds` summary (ms); null without it. */
  step_p99_ms: number | null;
  step_p50_ms: number | null;
  /**
   * Client-side round trip of the step items sent during the steady phase (ms): each item waits for its
   * frame's reply, so a frame's round trip counts once per item, as the server's step latency does.
   */
  rtt_p50_ms: number;
  rtt_p99_ms: number;
  /**
   * The same for the reset items sent during the steady phase (ms): a reset waits behind the steps of
   * live episodes on a server that starts steps first (`serve --scheduling`), so its round trip is where
   * an overloaded server's queue shows.
   */
  reset_rtt_p50_ms: number;
  reset_rtt_p99_ms: number;
  /** Server RSS with the sessions open and nothing reset yet, before the warm-up. */
  rss_idle_kb: number | null;
  /** The same after the warm-up's sessions closed (null without a warm-up). */
  rss_idle_warm_kb: number | null;
  /** Median of the steady-phase samples. */
  rss_live_kb: number | null;
  /** Median over the steady-phase samples of (RSS - idle RSS) / live episodes at that sample (the idle before the warm-up). */
  rss_per_episode_kb: number | null;
  /** The same against the idle RSS after the warm-up (null without a warm-up). */
  rss_per_episode_warm_kb: number | null;
  /**
   * CPU over the steady phase, in cores (CPU seconds per wall second): the server process (every thread:
   * main, episode workers, V8's GC and compiler helpers), its main thread alone, the process driving the
   * load (the bench's client), and the whole machine. Null off Linux or without the server's pid.
   */
  server_cpu_cores: number | null;
  server_main_cpu_cores: number | null;
  client_cpu_cores: number;
  machine_cpu_cores: number | null;
  /** Server CPU per item answered in the steady phase (step and reset items alike), in µs. */
  server_cpu_us_per_item: number | null;
  /**
   * Reset and step frames answered in the same window (per second), the items they carried per frame,
   * and the server's CPU over them: with the CPU per item across live counts, this separates what a frame
   * costs (parse, hand-off to the episode worker and back, write) from what its items cost.
   */
  steady_frames_per_s: number;
  items_per_frame: number | null;
  server_cpu_us_per_frame: number | null;
  /** The warm-up: its wall time (s; 0 without one), step items answered ok, failures (not in `failures`). */
  warmup_s: number;
  warmup_steps: number;
  warmup_failures: number;
  failures: Failures;
}

type EpState = 'reset' | 'step' | 'waiting' | 'dead';

/** One driven episode slot: an episode id that is reset again each time its episode ends. */
interface Slot {
  id: string;
  state: EpState;
  action: unknown;
  everLive: boolean;
  /** The slot's GRPO group (null: none), and how many episodes it has started (names its group of the moment). */
  group: number | null;
  starts: number;
}

/** One connection of the concurrency phase: its slots, its due-time wheel and its seeded streams. */
class Driver {
  readonly conn: BenchConn;
  readonly slots: Slot[];
  /** Tick index -> slots due then (a timing wheel: no scan over idle slots). */
  readonly wheel = new Map<number, Slot[]>();
  /** Slots that fell due while the connection had its maximum of frames in flight (oldest first). */
  held: Slot[] = [];
  lastTick = -1;
  readonly seeds: Rng;
  readonly think: Rng;
  /** Seeds of the groups being reset, by group id: the first member to reset draws it, the others reuse it. */
  readonly groupSeeds = new Map<string, { seed: number; left: number }>();
  constructor(conn: BenchConn, slots: Slot[], seed: number, c: number) {
    this.conn = conn;
    this.slots = slots;
    this.seeds = new Rng(seed, `bench-seeds/${c}`);
    this.think = new Rng(seed, `bench-think/${c}`);
  }
}

/** Run the concurrency phase. */
export async function runConcurrency(o: ConcurrencyOptions): Promise<ConcurrencyResult> {
  const log = o.log ?? (() => undefined);
  const f = newFailures();
  const N = o.episodes;
  const C = o.connections;
  const skip = o.skimObservations === true ? SKIP_OBSERVATIONS : undefined;
  const conns = await Promise.all(
    Array.from({ length: C }, (_, c) => BenchConn.open(o.url, { timeoutMs: o.timeoutMs, seed: o.seed + c, skip })),
  );
  // Idle memory: sessions open, nothing reset yet (a moment for the server to settle; not for a warm-up run).
  if (o.pid !== null) await new Promise((r) => setTimeout(r, 500));
  const rssIdle = o.pid === null ? null : serverRssBytes(o.pid);

  // Warm-up: the same workload at think time 0 on sessions of its own, closed (their episodes freed) before the ramp.
  let warmupEnd: number | null = null;
  let warmup: ConcurrencyResult | null = null;
  let rssIdleWarm: number | null = null;
  if ((o.warmupS ?? 0) > 0) {
    const w0 = performance.now();
    warmup = await runConcurrency({
      ...o,
      pid: null,
      episodes: Math.min(N, 256),
      connections: Math.min(C, 4),
      thinkMs: 0,
      jitter: 0,
      rampTimeoutS: o.warmupS ?? 0,
      steadyS: o.warmupS ?? 0,
      drainS: Math.min(o.drainS, 5),
      seed: o.seed + 7919,
      warmupS: 0,
      latencyWindowS: 0,
      log: undefined,
    });
    warmupEnd = performance.now();
    log(`  warm-up: ${warmup.steps} steps, ${warmup.resets} resets in ${((warmupEnd - w0) / 1000).toFixed(1)} s (think 0, own sessions)`);
    await new Promise((r) => setTimeout(r, 500));
    rssIdleWarm = o.pid === null ? null : serverRssBytes(o.pid);
  }
  const warmupS = warmup === null || warmupEnd === null ? 0 : warmup.ramp_s + warmup.steady_s;

  // Slot i is in group floor(i / G); a group's members share a connection (groups are per session).
  const G = o.groupSize;
  const drivers = conns.map((conn, c) => {
    const slots: Slot[] = [];
    for (let i = 0; i < N; i++) {
      const group = Math.floor(i / G);
      if (group % C === c)
        slots.push({ id: `cc${i}`, state: 'reset', action: null, everLive: false, group: G > 1 ? group : null, starts: 0 });
    }
    return new Driver(conn, slots, o.seed, c);
  });

  const t0 = performance.now();
  const tickOf = (t: number): number => Math.ceil((t - t0) / o.tickMs);
  const due = (d: Driver, s: Slot, delayMs: number): void => {
    const k = Math.max(tickOf(performance.now() + delayMs), d.lastTick + 1);
    const list = d.wheel.get(k);
    if (list) list.push(s);
    else d.wheel.set(k, [s]);
  };
  const thinkMs = (d: Driver): number => o.thinkMs * (1 + o.jitter * (2 * d.think.next() - 1));

  // Stagger the first resets evenly over the first think period (global index order across connections).
  drivers.forEach((d, c) => d.slots.forEach((s, j) => due(d, s, ((j * C + c) / N) * o.thinkMs)));

  let everLive = 0;
  let steps = 0;
  let resets = 0;
  let rampEnd: number | null = null;
  let steadyEnd = Infinity;
  let stopping = false;
  const steady = { steps: 0, resets: 0, frames: 0, rtts: [] as number[], resetRtts: [] as number[] };
  const inSteady = (t: number): boolean => rampEnd !== null && t >= rampEnd && t < steadyEnd;

  /** The episode's next action is the server's hint: play it after a think time (no hint: the slot is dead). */
  const thinkThenStep = (d: Driver, s: Slot, item: ReplyItem): void => {
    const hint = item.info?.oracle_action;
    if (hint === undefined) {
      f.missing_hints++;
      s.state = 'dead';
      return;
    }
    s.action = hint;
    s.state = 'step';
    due(d, s, thinkMs(d));
  };

  /**
   * Each slot of an answered frame with its reply item: a lost connection kills the slot, a failed item
   * is counted and handed to `failed`, an ok item to `ok`.
   */
  const eachItem = (batch: Slot[], a: Answer | null, failed: (s: Slot) => void, ok: (s: Slot, item: ReplyItem) => void): void => {
    for (let i = 0; i < batch.length; i++) {
      const s = batch[i];
      const item = a?.reply.items?.[i];
      if (!a) s.state = 'dead';
      else if (!item || !item.ok) {
        f.item_errors++;
        failed(s);
      } else ok(s, item);
    }
  };

  const onReset = (d: Driver, batch: Slot[], a: Answer | null, sentAt: number): void => {
    const now = performance.now();
    if (a && inSteady(now)) steady.frames++;
    if (a && inSteady(sentAt)) for (let i = 0; i < batch.length; i++) steady.resetRtts.push(a.rttMs);
    eachItem(
      batch,
      a,
      (s) => {
        s.state = 'reset';
        due(d, s, o.thinkMs); // try again a think time later, to keep N live
      },
      (s, item) => {
        resets++;
        if (inSteady(now)) steady.resets++;
        if (!s.everLive) {
          s.everLive = true;
          everLive++;
        }
        thinkThenStep(d, s, item);
      },
    );
    if (rampEnd === null && everLive === N) rampEnd = now;
  };

  const onStep = (d: Driver, batch: Slot[], a: Answer | null, sentAt: number): void => {
    const now = performance.now();
    if (a && inSteady(now)) steady.frames++;
    if (a && inSteady(sentAt)) for (let i = 0; i < batch.length; i++) steady.rtts.push(a.rttMs);
    eachItem(
      batch,
      a,
      (s) => (s.state = 'dead'),
      (s, item) => {
        steps++;
        if (inSteady(now)) steady.steps++;
        if (item.terminated === true || item.truncated === true) {
          s.state = 'reset';
          due(d, s, 0); // the episode ended: reset the id again under a new seed at the next tick
        } else thinkThenStep(d, s, item);
      },
    );
  };

  /**
   * Send what fell due on one connection: one reset frame and one step frame (chunked at max_batch), or
   * hold it for a later tick while the connection has its maximum of frames in flight.
   */
  const tick = (d: Driver, now: number): void => {
    const upTo = tickOf(now);
    const due = d.held;
    d.held = [];
    for (let k = d.lastTick + 1; k <= upTo; k++) {
      const list = d.wheel.get(k);
      if (!list) continue;
      d.wheel.delete(k);
      for (const s of list) due.push(s);
    }
    d.lastTick = upTo;
    const resetDue: Slot[] = [];
    const stepDue: Slot[] = [];
    for (const s of due) (s.state === 'reset' ? resetDue : s.state === 'step' ? stepDue : null)?.push(s);
    for (const batch of chunks(resetDue, o.maxBatch)) {
      if (d.conn.inFlight >= o.maxInflightFrames) {
        d.held.push(...batch);
        continue;
      }
      for (const s of batch) s.state = 'waiting';
      const items = batch.map((s) => {
        const item: Record<string, unknown> = { episode_id: s.id, seed: 0, variant: LOAD_VARIANT, options: { oracle_hints: true } };
        s.starts++;
        if (s.group === null) {
          item.seed = d.seeds.uint32();
          return item;
        }
        // The group of this slot's n-th episode: members play the same episode, so they restart together.
        const group_id = `g${s.group}.${s.starts}`;
        let g = d.groupSeeds.get(group_id);
        if (g === undefined) d.groupSeeds.set(group_id, (g = { seed: d.seeds.uint32(), left: Math.min(G, N - s.group * G) }));
        if (--g.left === 0) d.groupSeeds.delete(group_id);
        item.seed = g.seed;
        item.group_id = group_id;
        return item;
      });
      const sentAt = performance.now();
      void d.conn.request({ type: 'reset', id: 0, items }).then((a) => onReset(d, batch, a, sentAt));
    }
    for (const batch of chunks(stepDue, o.maxBatch)) {
      if (d.conn.inFlight >= o.maxInflightFrames) {
        d.held.push(...batch);
        continue;
      }
      for (const s of batch) s.state = 'waiting';
      const sentAt = performance.now();
      const items = batch.map((s) => ({ episode_id: s.id, action: s.action }));
      void d.conn.request({ type: 'step', id: 0, items }).then((a) => onStep(d, batch, a, sentAt));
    }
  };

  const timer = setInterval(() => {
    if (stopping) return;
    const now = performance.now();
    for (const d of drivers) tick(d, now);
  }, o.tickMs);

  // Ramp: until every episode was live once, or the ramp timeout (then the steady phase starts anyway).
  log(`  ramp: ${N} episodes over ${C} connections, think ${o.thinkMs} ms`);
  const rampDeadline = t0 + o.rampTimeoutS * 1000;
  while (rampEnd === null && performance.now() < rampDeadline && conns.every((c) => c.open)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const rampComplete = rampEnd !== null;
  rampEnd ??= performance.now();
  const steadyStart: number = rampEnd;
  // The server-side quantiles are read once the ramp and the warm-up have left the server's window.
  const windowS = o.latencyWindowS ?? 0;
  steadyEnd = steadyStart + Math.max(o.steadyS, windowS > 0 ? windowS + 1 : 0) * 1000;
  const steadyPlanS = (steadyEnd - steadyStart) / 1000;
  const cpu0 = {
    server: o.pid === null ? null : serverCpu(o.pid),
    client: process.cpuUsage(),
    machine: machineBusyCpuSeconds(),
    steady: steady.steps + steady.resets,
    frames: steady.frames,
  };
  log(
    `  ramp ${rampComplete ? 'done' : 'timed out'} after ${((steadyStart - t0) / 1000).toFixed(1)} s (${everLive}/${N} live once); steady ${steadyPlanS.toFixed(1)} s`,
  );

  // Steady phase: sample memory and the live-episode gauge together a few times. Memory per episode is
  // taken per sample over the episodes live at that moment (fewer than N when the ramp timed out).
  const rssSamples: number[] = [];
  const perEpisodeSamples: number[] = [];
  const perEpisodeWarmSamples: number[] = [];
  const liveSamples: number[] = [];
  const samplesWanted = Math.max(1, Math.min(5, Math.floor(steadyPlanS)));
  for (let i = 0; i < samplesWanted; i++) {
    const at = steadyStart + ((i + 0.5) / samplesWanted) * steadyPlanS * 1000;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const rss = o.pid === null ? null : serverRssBytes(o.pid);
    const live = sample(await scrapeMetrics(o.httpUrl, 5000), 'harness_gym_episodes_live');
    if (live !== null) liveSamples.push(live);
    if (rss !== null) {
      rssSamples.push(rss);
      const n = live !== null && live > 0 ? live : N;
      if (rssIdle !== null) perEpisodeSamples.push((rss - rssIdle) / n);
      if (rssIdleWarm !== null) perEpisodeWarmSamples.push((rss - rssIdleWarm) / n);
    }
    log(`  steady: ${steady.steps} steps, ${steady.resets} resets so far; live ${live ?? '?'}`);
  }
  // libuv's timers run on a millisecond loop clock and may fire up to a millisecond before performance.now()
  // says the time is up: wait again for what is left.
  for (let rest = steadyEnd - performance.now(); rest > 0; rest = steadyEnd - performance.now()) {
    await new Promise((r) => setTimeout(r, Math.ceil(rest)));
  }
  const steadyS = (performance.now() - steadyStart) / 1000;
  const cpu1 = {
    server: o.pid === null ? null : serverCpu(o.pid),
    client: process.cpuUsage(cpu0.client),
    machine: machineBusyCpuSeconds(),
    steady: steady.steps + steady.resets,
    frames: steady.frames,
  };
  const atEnd = await scrapeMetrics(o.httpUrl, 10_000);
  const serverCpuS = cpu0.server !== null && cpu1.server !== null ? cpu1.server.total_s - cpu0.server.total_s : null;
  const items = cpu1.steady - cpu0.steady;
  const frames = cpu1.frames - cpu0.frames;

  // Stop sending, collect what is still in flight, then read the server's step count.
  stopping = true;
  clearInterval(timer);
  const left = await Promise.all(conns.map((c) => c.drain(o.drainS * 1000)));
  if (left.some((n) => n > 0)) log(`  drain: ${left.reduce((a, b) => a + b, 0)} requests still unanswered`);
  const after = await scrapeMetrics(o.httpUrl, 10_000);
  finishFailures(f, conns);
  await Promise.all(conns.map((c) => c.close()));

  const rssLive = rssSamples.length > 0 ? median(rssSamples) : null;
  const { p50, p99 } = p50p99(steady.rtts);
  const resetRtt = p50p99(steady.resetRtts);
  return {
    concurrent_episodes: liveSamples.length > 0 ? Math.min(...liveSamples) : null,
    ramp_complete: rampComplete,
    ramp_s: (steadyStart - t0) / 1000,
    steady_s: steadyS,
    steps,
    resets,
    server_steps: sample(after, 'harness_gym_steps_total'),
    steady_steps_per_s: steady.steps / steadyS,
    steady_resets_per_s: steady.resets / steadyS,
    step_p99_ms: stepP99Ms(atEnd),
    step_p50_ms: stepQuantileMs(atEnd, 0.5),
    rtt_p50_ms: p50,
    rtt_p99_ms: p99,
    reset_rtt_p50_ms: resetRtt.p50,
    reset_rtt_p99_ms: resetRtt.p99,
    rss_idle_kb: rssIdle === null ? null : rssIdle / 1024,
    rss_idle_warm_kb: rssIdleWarm === null ? null : rssIdleWarm / 1024,
    rss_live_kb: rssLive === null ? null : rssLive / 1024,
    rss_per_episode_kb: perEpisodeSamples.length > 0 ? median(perEpisodeSamples) / 1024 : null,
    rss_per_episode_warm_kb: perEpisodeWarmSamples.length > 0 ? median(perEpisodeWarmSamples) / 1024 : null,
    server_cpu_cores: serverCpuS === null ? null : serverCpuS / steadyS,
    server_main_cpu_cores: cpu0.server !== null && cpu1.server !== null ? (cpu1.server.main_s - cpu0.server.main_s) / steadyS : null,
    client_cpu_cores: (cpu1.client.user + cpu1.client.system) / 1e6 / steadyS,
    machine_cpu_cores: cpu0.machine !== null && cpu1.machine !== null ? (cpu1.machine - cpu0.machine) / steadyS : null,
    server_cpu_us_per_item: serverCpuS === null || items === 0 ? null : (serverCpuS * 1e6) / items,
    steady_frames_per_s: frames / steadyS,
    items_per_frame: frames === 0 ? null : items / frames,
    server_cpu_us_per_frame: serverCpuS === null || frames === 0 ? null : (serverCpuS * 1e6) / frames,
    warmup_s: warmupS,
    warmup_steps: warmup?.steps ?? 0,
    warmup_failures: warmup?.failures.total ?? 0,
    failures: f,
  };
}
