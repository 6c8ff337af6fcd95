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
import { PlanCache, runConcurrency, runThroughput } from './load.js';
import type { ConcurrencyResult, Log, ThroughputResult } from './load.js';
import { microKey, runMicro } from './micro.js';
import { planRound } from './plan.js';
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
  rss_per_episode_kb: number | null;
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
  params: BenchParams & { workers_flag_supported: boolean | null };
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

/** Server limits sized for the phases: batches, episodes per session and sessions that the bench needs. */
export function serverLimits(p: BenchParams): Omit<EnvServerOptions, 'workers'> {
  const perConn = Math.ceil(p.episodes / p.connections);
  return {
    maxSessions: Math.max(p.connections, p.tp_connections) + 16,
    maxEpisodes: Math.max(4096, perConn + 16, p.tp_episodes * p.tp_distinct_rounds + 16),
    maxBatch: Math.min(100_000, Math.max(256, p.steps_per_frame, p.tp_episodes, perConn)),
  };
}

function throughputJson(r: ThroughputResult): Record<string, unknown> {
  return {
    steps_per_s: round(r.steps_per_s, 1),
    steps: r.steps,
    warmup_steps: r.warmup_steps,
    rounds: r.rounds,
    timed_s: round(r.timed_s, 3),
    step_frames: r.step_frames,
    mean_items_per_frame: round(r.mean_items_per_frame, 2),
    rtt_p50_ms: round(r.rtt_p50_ms, 3),
    rtt_p99_ms: round(r.rtt_p99_ms, 3),
    step_reply_bytes: r.step_reply_bytes,
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
    step_p99_ms: round(r.step_p99_ms, 3),
    rtt_p50_ms: round(r.rtt_p50_ms, 3),
    rtt_p99_ms: round(r.rtt_p99_ms, 3),
    rss_idle_kb: round(r.rss_idle_kb, 0),
    rss_live_kb: round(r.rss_live_kb, 0),
    rss_per_episode_kb: round(r.rss_per_episode_kb, 2),
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

/** Run the bench. */
export async function runSuite(p: BenchParams, servers: ServerFactory | null, log: Log = () => undefined): Promise<BenchSummary> {
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
    rss_per_episode_kb: null,
    workers_scaling: [],
    throughput: null,
    echo: null,
    concurrency: null,
    micro,
    machine: machineInfo(),
    params: { ...p, workers_flag_supported: servers?.workersSupported ?? null },
    elapsed_s: 0,
  };

  if (!p.skip_load && servers !== null) {
    const limits = serverLimits(p);
    const workers = servers.workersSupported ? p.workers : null;
    const plans = new PlanCache((c, r) => planRound(p.seed, c, r, p.tp_episodes));
    const tpOptions = {
      connections: p.tp_connections,
      episodes: p.tp_episodes,
      stepsPerFrame: p.steps_per_frame,
      distinctRounds: p.tp_distinct_rounds,
      warmupRounds: p.warmup_rounds,
      plans,
      seed: p.seed,
      maxBatch: limits.maxBatch,
      timeoutMs: p.request_timeout_ms,
      log,
    };

    // 1. Environment throughput, recording the replies for the echo.
    log(`throughput: ${p.tp_connections} connections x ${p.tp_episodes} episodes, ${p.steps_per_frame} steps/frame, ~${p.duration_s} s`);
    const corpus = new Corpus();
    const env = await withServer(servers.env({ ...limits, workers }), (s) =>
      runThroughput({ ...tpOptions, url: s.wsUrl, durationS: p.duration_s, corpus }),
    );
    log(`  env: ${env.steps_per_s.toFixed(0)} steps/s over ${env.rounds} rounds`);

    // 2. The echo baseline: the same rounds, the same request frames, replies of the same bytes.
    const dir = mkdtempSync(join(tmpdir(), 'hg-bench-'));
    let echo: ThroughputResult;
    const echoCorpus = new Corpus();
    try {
      const corpusPath = join(dir, 'corpus.msgpack');
      corpus.write(corpusPath);
      log(`echo: replaying ${env.rounds} rounds (${corpus.size} recorded reply items)`);
      echo = await withServer(servers.echo(corpusPath), (s) =>
        runThroughput({ ...tpOptions, url: s.wsUrl, durationS: 0, rounds: env.rounds, log: undefined, corpus: echoCorpus }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    log(`  echo: ${echo.steps_per_s.toFixed(0)} steps/s`);
    summary.env_steps_per_s = round(env.steps_per_s, 1);
    summary.echo_steps_per_s = round(echo.steps_per_s, 1);
    summary.ratio = round(env.steps_per_s / echo.steps_per_s, 4);
    summary.throughput = throughputJson(env);
    summary.echo = { ...throughputJson(echo), replies_match_env: corpus.sameAs(echoCorpus) };

    // 3. Concurrency: N live episodes with think time, on a fresh server.
    log(`concurrency: ${p.episodes} episodes over ${p.connections} connections, think ${p.think_ms} ms, steady ${p.steady_s} s`);
    const conc = await withServer(servers.env({ ...limits, workers }), (s) =>
      runConcurrency({
        url: s.wsUrl,
        httpUrl: s.httpUrl,
        pid: s.pid,
        episodes: p.episodes,
        connections: p.connections,
        thinkMs: p.think_ms,
        jitter: p.think_jitter,
        groupSize: p.group_size,
        tickMs: p.tick_ms,
        maxInflightFrames: p.max_inflight_frames,
        rampTimeoutS: p.ramp_timeout_s,
        steadyS: p.steady_s,
        drainS: p.drain_s,
        maxBatch: limits.maxBatch,
        timeoutMs: p.request_timeout_ms,
        seed: p.seed,
        log,
      }),
    );
    summary.concurrent_episodes = conc.concurrent_episodes;
    summary.failures = conc.failures.total;
    summary.step_p99_ms = round(conc.step_p99_ms, 3);
    summary.rss_per_episode_kb = round(conc.rss_per_episode_kb, 2);
    summary.concurrency = concurrencyJson(conc, p.episodes);

    // 4. Worker scaling: the throughput phase, short, per worker count.
    for (const w of p.scaling_workers) {
      if (!servers.workersSupported) {
        summary.workers_scaling.push({ workers: w, steps_per_s: null, steps_per_s_per_worker: null, steps: null, failures: null });
        continue;
      }
      log(`workers ${w}: throughput for ~${p.scaling_duration_s} s`);
      const r = await withServer(servers.env({ ...limits, workers: w }), (s) =>
        runThroughput({ ...tpOptions, url: s.wsUrl, durationS: p.scaling_duration_s, log: undefined }),
      );
      log(`  ${r.steps_per_s.toFixed(0)} steps/s`);
      summary.workers_scaling.push({
        workers: w,
        steps_per_s: round(r.steps_per_s, 1),
        steps_per_s_per_worker: round(r.steps_per_s / Math.max(1, w), 1),
        steps: r.steps,
        failures: r.failures.total,
      });
    }
  }
  summary.elapsed_s = round((performance.now() - started) / 1000, 1) ?? 0;
  return summary;
}
