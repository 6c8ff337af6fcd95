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
  /** Throughput phase: untimed rounds first (JIT warm-up of both sides), replayed by the echo as well. */
  warmup_rounds: number;
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
  /** Concurrency phase: steady phase after the ramp (s). */
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
}

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
  warmup_rounds: 1,
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
};

/** The parsed command line. */
export interface BenchCli {
  json: boolean;
  params: BenchParams;
}

const USAGE = `usage: node dist/bench/run.js [--json] [--quick] [--skip-load]
  [--episodes N] [--connections C] [--think-ms T] [--steps-per-frame S] [--workers W|auto] [--duration-s D]
  [--steady-s S] [--tp-connections C] [--tp-episodes E] [--scaling-workers 1,2,4] [--scaling-duration-s D]
  [--seed N] [--request-timeout-ms MS] [--ramp-timeout-s S] [--max-inflight-frames N] [--group-size G]`;

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
};

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
    } else if (a === '--scaling-workers') {
      const v = argv[++i] ?? '';
      const list = v === '' || v === 'none' ? [] : v.split(',').map(Number);
      if (list.some((n) => !Number.isInteger(n) || n < 0))
        throw new Error(`--scaling-workers: expected a list like 1,2,4, got "${v}"\n${USAGE}`);
      params.scaling_workers = list;
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
  if (params.connections > params.episodes) params.connections = params.episodes;
  return { json, params };
}
