/**
 * The bench's parameters: defaults, the `--quick` preset (a smoke run of a few tens of seconds), and the
 * command-line flags over them. Every parameter lands in the summary's `params`, so a result line says
 * exactly what produced it.
 */

/** Every parameter of one bench run. */
export interface BenchParams {
  /** Short everything (smoke test); the figures are then not comparable with a full run. */
  quick: boolean;
  /** Skip the WebSocket phases (echo, throughput, concurrency, worker scaling): micro-benchmarks only. */
  skip_load: boolean;
  /** Seed of every bench-side random choice (episode seeds, think-time jitter). */
  seed: number;
  /** Workers of the server under test (`serve --workers`: 0 = in-process, "auto" = serve's default, one per core). */
  workers: number | 'auto';
  /** Micro-benchmarks: tinybench time per task and warm-up time (ms). */
  micro_time_ms: number;
  micro_warmup_ms: number;
  /** Micro-benchmarks: iterations of each step task. */
  micro_step_iterations: number;
  /** Throughput phase: step items per frame. */
  steps_per_frame: number;
  /** Throughput phase: connections, and episodes each connection resets per round. */
  tp_connections: number;
  tp_episodes: number;
  /** Throughput phase: wall time of the phase, resets included (s); at least one timed round always runs. */
  duration_s: number;
  /** Throughput phase: untimed rounds first on the timed connections, replayed by the echo as well. */
  warmup_rounds: number;
  /**
   * Throughput phases (environment, echo, worker scaling): seconds of the same workload, untimed, on
   * connections of their own before the timed run, so the server's JIT (TurboFan compiles for the first
   * ~10 s) is warm when the timing starts. 0: none.
   */
  warmup_s: number;
  /**
   * Live-episode phases (concurrency and each point of the latency curve): seconds of the same workload
   * (train resets and oracle steps) at think time 0 on sessions of their own, after their own ramp, closed
   * before the phase's ramp. 0: none.
   */
  live_warmup_s: number;
  /** `serve --worker-heap-mb` of the environment servers: MiB, "v8" (V8's own limit), or 0 (no flag: the server's default, V8's own). */
  worker_heap_mb: number | 'v8';
  /**
   * Live-episode phases: the server's step-latency window (s; `harness_gym_step_latency_seconds` keeps the
   * last 60 s). The steady phase lasts at least this + 1 s, so the server-side quantiles read at its end
   * cover the steady phase alone (not the ramp, not the warm-up), as the client's round trips do. 0: the
   * steady phase is `steady_s` and the server-side figures may include the end of the ramp.
   */
  latency_window_s: number;
  /** Throughput phase: distinct rounds of seeds, cycled after that (bounds the oracle precompute and the echo corpus). */
  tp_distinct_rounds: number;
  /** Concurrency phase: live episodes, connections, think time (ms) and its jitter (fraction, +-). */
  episodes: number;
  connections: number;
  think_ms: number;
  think_jitter: number;
  /**
   * Concurrency phase: episodes per GRPO group (1: every episode alone, the measure). Members of a
   * group share a connection, a seed, a task and the variant, as a GRPO trainer resets them.
   */
  group_size: number;
  /** Concurrency phase: how long the ramp may take to get every episode live before the steady phase starts anyway (s). */
  ramp_timeout_s: number;
  /** Live phases (concurrency, each curve point): steady phase after the ramp (s; at least `latency_window_s` + 1). */
  steady_s: number;
  /** Concurrency phase: the per-connection batching tick (ms). */
  tick_ms: number;
  /** Concurrency phase: frames a connection may have unanswered (what falls due beyond waits, then goes out batched). */
  max_inflight_frames: number;
  /** A request not answered within this many ms counts as a failure (its late reply is still used). */
  request_timeout_ms: number;
  /** After the last request, how long the bench waits for outstanding replies (s). */
  drain_s: number;
  /** Worker-scaling phase: worker counts and the throughput run's duration for each (s). */
  scaling_workers: number[];
  scaling_duration_s: number;
  /**
   * Latency curve: live counts always measured (the concurrency phase's own count is reused, not run
   * again); empty skips the curve. Think time, jitter, group size and connections (at most one per
   * episode) are the concurrency phase's.
   */
  curve: number[];
  /**
   * Latency curve: the search for the largest live count the box holds steps up by doubling from the
   * smallest curve point to this count (0: no search, the listed points only), and stops at the first
   * count that does not hold (a failure, a ramp that did not get every episode live, or a server-side
   * step p99 above `curve_p99_limit_ms`). Never beyond 65,536.
   */
  curve_max: number;
  /** Latency curve: a server-side step p99 above this (ms) ends the search. */
  curve_p99_limit_ms: number;
  /** Latency curve: no search point starts once the curve has run this long (s); listed points always run. */
  curve_budget_s: number;
  /** Run the load generator in a child process of its own (a fresh heap, apart from the orchestrator's work). */
  client_process: boolean;
  /**
   * Live phases (concurrency, warm-ups, curve points): how the load client decodes replies. `skim` steps
   * over each observation without building it (bench/skim.ts: the live phases never read one, and a reset
   * reply's prompt and tool list are most of the client's CPU); `full` decodes every reply whole, as
   * before. The throughput phases always decode whole (their corpus keeps the replies).
   */
  live_decode: 'skim' | 'full';
  /** `serve --scheduling` of the environment servers; null omits the flag (the server's default, steps_first). */
  scheduling: 'steps_first' | 'arrival' | null;
}

/** The largest live count the latency curve ever tries (the project's stretch on one box). */
export const CURVE_HARD_MAX = 65536;

/** Defaults of a full run (`npm run bench`): about 3-4 minutes on a 2-core machine. */
export const DEFAULT_PARAMS: BenchParams = {
  quick: false,
  skip_load: false,
  seed: 1,
  workers: 'auto',
  micro_time_ms: 1000,
  micro_warmup_ms: 100,
  micro_step_iterations: 200,
  steps_per_frame: 64,
  tp_connections: 4,
  tp_episodes: 128,
  duration_s: 10,
  warmup_rounds: 0,
  warmup_s: 10,
  live_warmup_s: 5,
  worker_heap_mb: 0,
  latency_window_s: 60,
  tp_distinct_rounds: 8,
  episodes: 16384,
  connections: 16,
  think_ms: 3000,
  think_jitter: 0.2,
  group_size: 1,
  ramp_timeout_s: 30,
  steady_s: 45,
  tick_ms: 10,
  max_inflight_frames: 16,
  request_timeout_ms: 30_000,
  drain_s: 10,
  scaling_workers: [1, 2, 4],
  scaling_duration_s: 4,
  curve: [256, 1024, 4096, 16384],
  curve_max: CURVE_HARD_MAX,
  curve_p99_limit_ms: 1000,
  curve_budget_s: 900,
  client_process: true,
  live_decode: 'skim',
  scheduling: null,
};

/** What `--quick` changes: every phase short and small (a smoke test, not a measurement). */
export const QUICK_PARAMS: Partial<BenchParams> = {
  quick: true,
  micro_time_ms: 100,
  micro_warmup_ms: 20,
  micro_step_iterations: 30,
  tp_connections: 2,
  tp_episodes: 32,
  duration_s: 2,
  tp_distinct_rounds: 2,
  episodes: 256,
  connections: 4,
  think_ms: 300,
  ramp_timeout_s: 20,
  steady_s: 3,
  drain_s: 10,
  scaling_duration_s: 1,
  warmup_s: 1,
  live_warmup_s: 0,
  curve: [64, 256],
  curve_max: 0,
  latency_window_s: 0,
};

/** The parsed command line. */
export interface BenchCli {
  json: boolean;
  params: BenchParams;
}

const USAGE = `usage: node dist/bench/run.js [--json] [--quick] [--skip-load]
  [--episodes N] [--connections C] [--think-ms T] [--steps-per-frame S] [--workers W|auto] [--duration-s D]
  [--steady-s S] [--tp-connections C] [--tp-episodes E] [--scaling-workers 1,2,4] [--scaling-duration-s D]
  [--seed N] [--request-timeout-ms MS] [--ramp-timeout-s S] [--max-inflight-frames N] [--group-size G]
  [--micro-time-ms MS] [--warmup-rounds N] [--warmup-s S] [--live-warmup-s S] [--curve 256,1024,...|none] [--curve-max N] [--curve-p99-limit-ms MS]
  [--latency-window-s S] [--curve-budget-s S] [--worker-heap-mb MIB|v8] [--in-process-client] [--live-decode skim|full]
  [--scheduling steps_first|arrival]`;

/** Numeric flags and the parameter each sets. */
const NUMERIC: Record<string, keyof BenchParams> = {
  '--episodes': 'episodes',
  '--connections': 'connections',
  '--think-ms': 'think_ms',
  '--steps-per-frame': 'steps_per_frame',
  '--duration-s': 'duration_s',
  '--steady-s': 'steady_s',
  '--tp-connections': 'tp_connections',
  '--tp-episodes': 'tp_episodes',
  '--scaling-duration-s': 'scaling_duration_s',
  '--seed': 'seed',
  '--request-timeout-ms': 'request_timeout_ms',
  '--ramp-timeout-s': 'ramp_timeout_s',
  '--max-inflight-frames': 'max_inflight_frames',
  '--group-size': 'group_size',
  '--micro-time-ms': 'micro_time_ms',
  '--warmup-rounds': 'warmup_rounds',
  '--warmup-s': 'warmup_s',
  '--live-warmup-s': 'live_warmup_s',
  '--worker-heap-mb': 'worker_heap_mb',
  '--curve-max': 'curve_max',
  '--curve-p99-limit-ms': 'curve_p99_limit_ms',
  '--latency-window-s': 'latency_window_s',
  '--curve-budget-s': 'curve_budget_s',
};

/** A comma-separated list of non-negative integers ("none" or "" for the empty list). */
function intList(flag: string, v: string | undefined, min: number): number[] {
  const s = v ?? '';
  const list = s === '' || s === 'none' ? [] : s.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < min)) throw new Error(`${flag}: expected a list like 1,2,4, got "${s}"\n${USAGE}`);
  return list;
}

/** Parse the bench's flags (`--quick` applies first, so explicit flags override the preset). Throws with the usage on a bad flag. */
export function parseBenchArgs(argv: readonly string[]): BenchCli {
  const params: BenchParams = { ...DEFAULT_PARAMS, ...(argv.includes('--quick') ? QUICK_PARAMS : {}) };
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--quick') continue;
    else if (a === '--skip-load') params.skip_load = true;
    else if (a === '--help' || a === '-h') throw new Error(USAGE);
    else if (a === '--workers') {
      const v = argv[++i];
      const n = Number(v);
      if (v !== 'auto' && !(Number.isInteger(n) && n >= 0)) throw new Error(`--workers: expected a count or "auto", got "${v}"\n${USAGE}`);
      params.workers = v === 'auto' ? 'auto' : n;
    } else if (a === '--scaling-workers') params.scaling_workers = intList(a, argv[++i], 0);
    else if (a === '--curve') {
      const list = intList(a, argv[++i], 1);
      if (list.some((n) => n > CURVE_HARD_MAX)) throw new Error(`--curve: live counts go up to ${CURVE_HARD_MAX}\n${USAGE}`);
      params.curve = [...new Set(list)].sort((x, y) => x - y);
    } else if (a === '--in-process-client') params.client_process = false;
    else if (a === '--live-decode') {
      const v = argv[++i];
      if (v !== 'skim' && v !== 'full') throw new Error(`--live-decode: expected "skim" or "full", got "${v}"\n${USAGE}`);
      params.live_decode = v;
    } else if (a === '--worker-heap-mb' && argv[i + 1] === 'v8') {
      params.worker_heap_mb = 'v8';
      i++;
    } else if (a === '--scheduling') {
      const v = argv[++i];
      if (v !== 'steps_first' && v !== 'arrival')
        throw new Error(`--scheduling: expected "steps_first" or "arrival", got "${v}"\n${USAGE}`);
      params.scheduling = v;
    } else if (a in NUMERIC) {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${a}: expected a non-negative number\n${USAGE}`);
      (params as unknown as Record<string, number>)[NUMERIC[a]] = v;
    } else throw new Error(`unknown flag "${a}"\n${USAGE}`);
  }
  for (const k of [
    'episodes',
    'connections',
    'steps_per_frame',
    'tp_connections',
    'tp_episodes',
    'max_inflight_frames',
    'group_size',
  ] as const) {
    if (!Number.isInteger(params[k]) || params[k] < 1) throw new Error(`${k} must be a positive integer\n${USAGE}`);
  }
  if (params.worker_heap_mb !== 0 && params.worker_heap_mb !== 'v8' && !(Number.isInteger(params.worker_heap_mb) && params.worker_heap_mb >= 64)) {
    throw new Error(`worker_heap_mb must be 0 (the server's default), v8 (V8's own limit) or an integer of at least 64\n${USAGE}`);
  }
  if (params.connections > params.episodes) params.connections = params.episodes;
  if (!Number.isInteger(params.curve_max)) throw new Error(`curve_max must be an integer\n${USAGE}`);
  params.curve_max = Math.min(params.curve_max, CURVE_HARD_MAX);
  return { json, params };
}
