/**
 * The whole bench as one function: micro-benchmarks, then (unless `skip_load`) the environment
 * throughput phase, the echo baseline replaying its frames, the concurrency phase and the worker-scaling
 * runs, each against a fresh server from the `ServerFactory`. Returns the summary that `--json` prints.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import type { BenchParams } from './args.js';
import { Corpus } from './corpus.js';
import { runCurve } from './curve.js';
import type { CurvePoint } from './curve.js';
import type { ConcurrencyResult, Log, ThroughputResult } from './load.js';
import { inProcessLoadClient } from './load-client.js';
import type { ConcurrencyRequest, LoadClient } from './load-client.js';
import { microKey, runMicro } from './micro.js';
import type { EnvServerOptions, ServerFactory, ServerHandle } from './servers.js';
import { round } from './stats.js';

/** The machine a run was made on. */
export interface MachineInfo {
  cpu_model: string;
  cores: number;
  total_memory_gib: number;
  node: string;
  os: string;
  /** 1-minute load average when the run started: above the core count, other work shared the machine. */
  load_avg_1m: number;
}

/** One worker count of the scaling phase. */
export interface ScalingRow {
  workers: number;
  /** Null when the server has no `--workers` (the run was skipped). */
  steps_per_s: number | null;
  steps_per_s_per_worker: number | null;
  /** Step items counted (timed rounds). */
  steps: number | null;
  /** Server CPU per timed step item (µs, every thread of the server process); null when not read. */
  server_cpu_us_per_step: number | null;
  failures: number | null;
}

/** The `--json` summary line. Load keys are null with `--skip-load`. */
export interface BenchSummary {
  echo_steps_per_s: number | null;
  env_steps_per_s: number | null;
  ratio: number | null;
  concurrent_episodes: number | null;
  failures: number | null;
  step_p99_ms: number | null;
  reset_p50_us: number | null;
  reset_p99_us: number | null;
  /** The identity reset's p50 (the micro-benchmark `reset_identity`, also under `micro`). */
  identity_reset_p50_us: number | null;
  rss_per_episode_kb: number | null;
  /** Server-side step p50 of the concurrency phase (ms). */
  step_p50_ms: number | null;
  /** Server-side and round-trip step latency by live episodes, ascending (bench/curve.ts); empty without the curve. */
  latency_curve: CurvePoint[];
  /** The largest live count of the curve that held, every smaller one held too; null when none did or no curve ran. */
  max_live_held: number | null;
  /** What ended the curve's search. */
  curve_stopped_by: string | null;
  workers_scaling: ScalingRow[];
  /** Throughput details (environment run). */
  throughput: Record<string, unknown> | null;
  /** Echo baseline details. */
  echo: Record<string, unknown> | null;
  /** Concurrency phase details. */
  concurrency: Record<string, unknown> | null;
  /** Micro-benchmarks: key -> {p50_us, p99_us}. */
  micro: Record<string, { p50_us: number | null; p99_us: number | null }>;
  machine: MachineInfo;
  params: BenchParams & { workers_flag_supported: boolean | null; load_client: LoadClient['where'] };
  elapsed_s: number;
}

/** The machine description (`os.cpus()` model, cores, memory, Node, OS and kernel). */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    total_memory_gib: round(totalmem() / 1024 ** 3, 1) ?? 0,
    node: process.version,
    os: `${osType()} ${release()}`,
    load_avg_1m: round(loadavg()[0], 2) ?? 0,
  };
}

/**
 * Server limits sized for the phases: batches, episodes per session and sessions that the bench needs
 * (warm-up sessions included: a throughput warm-up's may still be closing when the timed ones open, a
 * live phase's warm-up adds up to 4). `episodes` and `connections` are the live phase's (default the
 * concurrency phase's; a curve point's otherwise).
 */
export function serverLimits(p: BenchParams, episodes = p.episodes, connections = p.connections): Omit<EnvServerOptions, 'workers'> {
  const perConn = Math.ceil(episodes / connections);
  return {
    maxSessions: Math.max(connections + 4, 2 * p.tp_connections) + 16,
    maxEpisodes: Math.max(4096, perConn + 16, p.tp_episodes * p.tp_distinct_rounds + 16),
    maxBatch: Math.min(100_000, Math.max(256, p.steps_per_frame, p.tp_episodes, perConn)),
    workerHeapMb: p.worker_heap_mb === 'v8' || p.worker_heap_mb > 0 ? p.worker_heap_mb : null,
    scheduling: p.scheduling,
  };
}

function throughputJson(r: ThroughputResult): Record<string, unknown> {
  return {
    steps_per_s: round(r.steps_per_s, 1),
    steps: r.steps,
    warmup_steps: r.warmup_steps,
    warmup_s: round(r.warmup_s, 2),
    warmup_failures: r.warmup_failures,
    rounds: r.rounds,
    timed_s: round(r.timed_s, 3),
    step_frames: r.step_frames,
    mean_items_per_frame: round(r.mean_items_per_frame, 2),
    rtt_p50_ms: round(r.rtt_p50_ms, 3),
    rtt_p99_ms: round(r.rtt_p99_ms, 3),
    step_reply_bytes: r.step_reply_bytes,
    server_cpu_us_per_step: round(r.server_cpu_us_per_step, 2),
    client_cpu_us_per_step: round(r.client_cpu_us_per_step, 2),
    failures: r.failures,
  };
}

function concurrencyJson(r: ConcurrencyResult, episodes: number): Record<string, unknown> {
  return {
    episodes,
    concurrent_episodes: r.concurrent_episodes,
    ramp_complete: r.ramp_complete,
    ramp_s: round(r.ramp_s, 2),
    steady_s: round(r.steady_s, 2),
    steps: r.steps,
    server_steps: r.server_steps,
    resets: r.resets,
    steady_steps_per_s: round(r.steady_steps_per_s, 1),
    steady_resets_per_s: round(r.steady_resets_per_s, 1),
    step_p50_ms: round(r.step_p50_ms, 3),
    step_p99_ms: round(r.step_p99_ms, 3),
    rtt_p50_ms: round(r.rtt_p50_ms, 3),
    rtt_p99_ms: round(r.rtt_p99_ms, 3),
    reset_rtt_p50_ms: round(r.reset_rtt_p50_ms, 3),
    reset_rtt_p99_ms: round(r.reset_rtt_p99_ms, 3),
    rss_idle_kb: round(r.rss_idle_kb, 0),
    rss_idle_warm_kb: round(r.rss_idle_warm_kb, 0),
    rss_live_kb: round(r.rss_live_kb, 0),
    rss_per_episode_kb: round(r.rss_per_episode_kb, 2),
    rss_per_episode_warm_kb: round(r.rss_per_episode_warm_kb, 2),
    server_cpu_cores: round(r.server_cpu_cores, 3),
    server_main_cpu_cores: round(r.server_main_cpu_cores, 3),
    client_cpu_cores: round(r.client_cpu_cores, 3),
    machine_cpu_cores: round(r.machine_cpu_cores, 3),
    server_cpu_us_per_item: round(r.server_cpu_us_per_item, 1),
    steady_frames_per_s: round(r.steady_frames_per_s, 1),
    items_per_frame: round(r.items_per_frame, 2),
    server_cpu_us_per_frame: round(r.server_cpu_us_per_frame, 1),
    warmup_s: round(r.warmup_s, 2),
    warmup_steps: r.warmup_steps,
    warmup_failures: r.warmup_failures,
    failures: r.failures,
  };
}

/** Start a server, run `body`, always close it. */
async function withServer<T>(start: Promise<ServerHandle>, body: (s: ServerHandle) => Promise<T>): Promise<T> {
  const s = await start;
  try {
    return await body(s);
  } finally {
    await s.close();
  }
}

/**
 * Run the bench. The load phases run on `load` (default: in this process; `npm run bench` passes a child
 * process of its own, bench/load-client.ts).
 */
export async function runSuite(
  p: BenchParams,
  servers: ServerFactory | null,
  log: Log = () => undefined,
  load: LoadClient = inProcessLoadClient(log),
): Promise<BenchSummary> {
  const started = performance.now();
  log(`micro-benchmarks (${p.micro_time_ms} ms each)`);
  const rows = await runMicro({ timeMs: p.micro_time_ms, warmupMs: p.micro_warmup_ms, stepIterations: p.micro_step_iterations, log });
  const micro: BenchSummary['micro'] = {};
  for (const r of rows) micro[microKey(r.name)] = { p50_us: round(r.p50_us, 2), p99_us: round(r.p99_us, 2) };
  const reset = micro[microKey('reset train')];

  const summary: BenchSummary = {
    echo_steps_per_s: null,
    env_steps_per_s: null,
    ratio: null,
    concurrent_episodes: null,
    failures: null,
    step_p99_ms: null,
    reset_p50_us: reset?.p50_us ?? null,
    reset_p99_us: reset?.p99_us ?? null,
    identity_reset_p50_us: micro[microKey('reset identity')]?.p50_us ?? null,
    rss_per_episode_kb: null,
    step_p50_ms: null,
    latency_curve: [],
    max_live_held: null,
    curve_stopped_by: null,
    workers_scaling: [],
    throughput: null,
    echo: null,
    concurrency: null,
    micro,
    machine: machineInfo(),
    params: { ...p, workers_flag_supported: servers?.workersSupported ?? null, load_client: load.where },
    elapsed_s: 0,
  };

  if (!p.skip_load && servers !== null) {
    const limits = serverLimits(p);
    const workers = servers.workersSupported ? p.workers : null;
    const tpOptions = {
      connections: p.tp_connections,
      episodes: p.tp_episodes,
      planEpisodes: p.tp_episodes,
      stepsPerFrame: p.steps_per_frame,
      distinctRounds: p.tp_distinct_rounds,
      warmupRounds: p.warmup_rounds,
      warmupS: p.warmup_s,
      seed: p.seed,
      maxBatch: limits.maxBatch,
      timeoutMs: p.request_timeout_ms,
    };
    const dir = mkdtempSync(join(tmpdir(), 'hg-bench-'));
    try {
      // 1. Environment throughput (after its warm-up), recording the replies for the echo.
      log(
        `throughput: ${p.tp_connections} connections x ${p.tp_episodes} episodes, ${p.steps_per_frame} steps/frame, ` +
          `warm-up ${p.warmup_s} s, ~${p.duration_s} s timed`,
      );
      const envCorpus = join(dir, 'env-corpus.msgpack');
      const env = await withServer(servers.env({ ...limits, workers }), (s) =>
        load.throughput({ ...tpOptions, url: s.wsUrl, pid: s.pid, durationS: p.duration_s, corpusPath: envCorpus, log: true }),
      );
      log(`  env: ${env.steps_per_s.toFixed(0)} steps/s over ${env.rounds} rounds`);

      // 2. The echo baseline: the same warm-up, then the same rounds, the same request frames, replies of the same bytes.
      const corpus = Corpus.read(envCorpus);
      log(`echo: warm-up ${p.warmup_s} s, then replaying ${env.rounds} rounds (${corpus.size} recorded reply items)`);
      const echoCorpus = join(dir, 'echo-corpus.msgpack');
      const echo: ThroughputResult = await withServer(servers.echo(envCorpus), (s) =>
        load.throughput({
          ...tpOptions,
          url: s.wsUrl,
          pid: s.pid,
          durationS: 0,
          rounds: env.rounds,
          warmupDistinctRounds: Math.min(p.tp_distinct_rounds, env.rounds),
          corpusPath: echoCorpus,
        }),
      );
      log(`  echo: ${echo.steps_per_s.toFixed(0)} steps/s`);
      summary.env_steps_per_s = round(env.steps_per_s, 1);
      summary.echo_steps_per_s = round(echo.steps_per_s, 1);
      summary.ratio = round(env.steps_per_s / echo.steps_per_s, 4);
      summary.throughput = throughputJson(env);
      summary.echo = { ...throughputJson(echo), replies_match_env: corpus.sameAs(Corpus.read(echoCorpus)) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // 3. Concurrency: N live episodes with think time, on a fresh server (warmed first).
    const live = (episodes: number, connections: number, steadyS: number, s: ServerHandle): ConcurrencyRequest => ({
      url: s.wsUrl,
      httpUrl: s.httpUrl,
      pid: s.pid,
      episodes,
      connections,
      thinkMs: p.think_ms,
      jitter: p.think_jitter,
      groupSize: p.group_size,
      tickMs: p.tick_ms,
      maxInflightFrames: p.max_inflight_frames,
      rampTimeoutS: p.ramp_timeout_s,
      steadyS,
      drainS: p.drain_s,
      maxBatch: serverLimits(p, episodes, connections).maxBatch,
      timeoutMs: p.request_timeout_ms,
      seed: p.seed,
      warmupS: p.live_warmup_s,
      latencyWindowS: p.latency_window_s,
      skimObservations: p.live_decode === 'skim',
      log: true,
    });
    log(
      `concurrency: ${p.episodes} episodes over ${p.connections} connections, think ${p.think_ms} ms, ` +
        `warm-up ${p.live_warmup_s} s, steady ${Math.max(p.steady_s, p.latency_window_s > 0 ? p.latency_window_s + 1 : 0)} s`,
    );
    const conc = await withServer(servers.env({ ...limits, workers }), (s) =>
      load.concurrency(live(p.episodes, p.connections, p.steady_s, s)),
    );
    summary.concurrent_episodes = conc.concurrent_episodes;
    summary.failures = conc.failures.total;
    summary.step_p99_ms = round(conc.step_p99_ms, 3);
    summary.step_p50_ms = round(conc.step_p50_ms, 3);
    summary.rss_per_episode_kb = round(conc.rss_per_episode_kb, 2);
    summary.concurrency = concurrencyJson(conc, p.episodes);

    // 4. The latency curve: the listed live counts (the concurrency phase's own reused), then the search.
    if (p.curve.length > 0) {
      const connectionsFor = (n: number): number => Math.min(p.connections, n);
      const curve = await runCurve({
        listed: p.curve,
        curveMax: p.curve_max,
        p99LimitMs: p.curve_p99_limit_ms,
        budgetS: p.curve_budget_s,
        connectionsFor,
        reuse: new Map<number, ConcurrencyResult>([[p.episodes, conc]]),
        run: (n) =>
          withServer(servers.env({ ...serverLimits(p, n, connectionsFor(n)), workers }), (s) =>
            load.concurrency(live(n, connectionsFor(n), p.steady_s, s)),
          ),
        log,
      });
      summary.latency_curve = curve.latency_curve;
      summary.max_live_held = curve.max_live_held;
      summary.curve_stopped_by = curve.curve_stopped_by;
    }

    // 5. Worker scaling: the throughput phase, short (after the same warm-up), per worker count.
    for (const w of p.scaling_workers) {
      if (!servers.workersSupported) {
        summary.workers_scaling.push({
          workers: w,
          steps_per_s: null,
          steps_per_s_per_worker: null,
          steps: null,
          server_cpu_us_per_step: null,
          failures: null,
        });
        continue;
      }
      log(`workers ${w}: warm-up ${p.warmup_s} s, throughput for ~${p.scaling_duration_s} s`);
      const r = await withServer(servers.env({ ...limits, workers: w }), (s) =>
        load.throughput({ ...tpOptions, url: s.wsUrl, pid: s.pid, durationS: p.scaling_duration_s }),
      );
      log(`  ${r.steps_per_s.toFixed(0)} steps/s`);
      summary.workers_scaling.push({
        workers: w,
        steps_per_s: round(r.steps_per_s, 1),
        steps_per_s_per_worker: round(r.steps_per_s / Math.max(1, w), 1),
        steps: r.steps,
        server_cpu_us_per_step: round(r.server_cpu_us_per_step, 2),
        failures: r.failures.total,
      });
    }
  }
  summary.elapsed_s = round((performance.now() - started) / 1000, 1) ?? 0;
  return summary;
}
