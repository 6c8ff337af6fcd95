/**
 * Smoke test of the benchmark suite (no performance assertions): the whole suite, tiny, against
 * in-process servers (the real `startServer` and the echo server on port 0), checking that the summary
 * is complete and that its counts agree with what the servers report in /metrics.
 */
import { describe, it, expect } from 'vitest';
import { defaultServerConfig, startServer } from '../../server/index.js';
import { DEFAULT_PARAMS, parseBenchArgs } from '../../bench/args.js';
import type { BenchParams } from '../../bench/args.js';
import { Corpus } from '../../bench/corpus.js';
import { startEchoServer } from '../../bench/echo-server.js';
import { sample, scrapeMetrics } from '../../bench/observe.js';
import { END_MARKER, START_MARKER, replaceGenerated, targetRows } from '../../bench/results.js';
import type { ServerFactory } from '../../bench/servers.js';
import { runSuite, serverLimits } from '../../bench/suite.js';
import { deepMedian } from '../../bench/stats.js';

/** Tiny parameters: 2 connections x 8 episodes, think time 0, a few frames per phase. */
const TINY: BenchParams = {
  ...DEFAULT_PARAMS,
  quick: true,
  micro_time_ms: 5,
  micro_warmup_ms: 2,
  micro_step_iterations: 3,
  tp_connections: 2,
  tp_episodes: 8,
  steps_per_frame: 4,
  duration_s: 0,
  tp_distinct_rounds: 2,
  episodes: 16,
  connections: 2,
  think_ms: 0,
  ramp_timeout_s: 10,
  steady_s: 0.5,
  drain_s: 5,
  scaling_workers: [1],
  scaling_duration_s: 0,
  warmup_s: 0.2,
  live_warmup_s: 0,
  latency_window_s: 0,
  curve: [],
  curve_max: 0,
  client_process: false,
};

/** In-process servers; each environment server's `harness_gym_steps_total` is read just before it closes. */
function inProcessServers(stepsAtClose: number[]): ServerFactory {
  return {
    workersSupported: true, // the requested count is ignored: in-process servers run workers: 0
    async env(opts) {
      const config = defaultServerConfig({
        host: '127.0.0.1',
        port: 0,
        log_level: 'silent',
        allow_oracle_hints: true,
        max_sessions: opts.maxSessions,
        limits: { max_batch: opts.maxBatch, max_episodes: opts.maxEpisodes },
      });
      const server = await startServer(config);
      const httpUrl = server.url;
      return {
        wsUrl: `${httpUrl.replace(/^http/, 'ws')}/v1/env`,
        httpUrl,
        pid: process.pid,
        async close() {
          stepsAtClose.push(sample(await scrapeMetrics(httpUrl), 'harness_gym_steps_total') ?? -1);
          await server.close();
        },
      };
    },
    async echo(corpusPath) {
      const echo = await startEchoServer(Corpus.read(corpusPath));
      return { wsUrl: echo.url, httpUrl: `http://127.0.0.1:${echo.port}`, pid: null, close: echo.close };
    },
  };
}

describe('bench suite (smoke)', () => {
  it('runs every phase and reports consistent counts', async () => {
    const stepsAtClose: number[] = [];
    const s = await runSuite(TINY, inProcessServers(stepsAtClose));

    for (const key of [
      'echo_steps_per_s',
      'env_steps_per_s',
      'ratio',
      'concurrent_episodes',
      'failures',
      'reset_p50_us',
      'reset_p99_us',
      'rss_per_episode_kb',
    ] as const) {
      expect(Number.isFinite(s[key]), key).toBe(true);
    }
    // The latency summary is the server's; null only for a server without it.
    expect(s.step_p99_ms === null || Number.isFinite(s.step_p99_ms)).toBe(true);
    expect(s.failures).toBe(0);
    expect(s.concurrent_episodes).toBe(TINY.episodes);
    for (const [k, v] of Object.entries(s.micro)) {
      expect(Number.isFinite(v.p50_us), k).toBe(true);
      expect(Number.isFinite(v.p99_us), k).toBe(true);
    }
    expect(s.micro.reset_train).toBeDefined();
    expect(s.micro.decode_validate_step_frame_64_items).toBeDefined();
    expect(s.micro.decode_reset_reply_skim.p50_us).toBeGreaterThan(0);
    expect(s.params.episodes).toBe(TINY.episodes);

    // Throughput: the server applied exactly the steps the bench counted; the echo replayed the same bytes.
    const tp = s.throughput as Record<string, number> & { failures: { total: number } };
    expect(tp.failures.total).toBe(0);
    expect(stepsAtClose[0]).toBe(tp.steps + tp.warmup_steps);
    expect(tp.steps).toBeGreaterThan(0);
    const echo = s.echo as Record<string, unknown> & { failures: { total: number } };
    expect(echo.replies_match_env).toBe(true);
    expect(echo.failures.total).toBe(0);
    expect(echo.steps).toBe(tp.steps);
    expect(echo.step_reply_bytes).toBe(tp.step_reply_bytes);
    // CPU per timed step, read from /proc for a server with a pid (the in-process echo here has none).
    // /proc counts in 10 ms ticks, and this phase's timed window is a few ms: the server's reading may be 0.
    expect(tp.server_cpu_us_per_step).toBeGreaterThanOrEqual(0);
    expect(tp.client_cpu_us_per_step).toBeGreaterThan(0);
    expect(echo.server_cpu_us_per_step).toBeNull();
    expect(echo.client_cpu_us_per_step as number).toBeGreaterThan(0);

    // Concurrency: every step counted by the bench is one the server counted.
    const conc = s.concurrency as Record<string, number>;
    expect(conc.steps).toBeGreaterThan(0);
    expect(conc.server_steps).toBe(conc.steps);
    expect(stepsAtClose[1]).toBe(conc.steps);

    // Worker scaling: one short run.
    expect(s.workers_scaling).toHaveLength(1);
    const w = s.workers_scaling[0];
    expect(Number.isFinite(w.steps_per_s)).toBe(true);
    expect(w.failures).toBe(0);
    expect(stepsAtClose[2]).toBeGreaterThanOrEqual(w.steps ?? Infinity);

    // The summary is one JSON line and the results table reads it.
    expect(JSON.stringify(s)).not.toContain('\n');
    expect(targetRows(s).length).toBeGreaterThanOrEqual(8);
  });

  it('parses flags over the defaults and the --quick preset', () => {
    const full = parseBenchArgs(['--json', '--episodes', '1024', '--workers', '2', '--steps-per-frame', '32']);
    expect(full.json).toBe(true);
    expect(full.params).toMatchObject({ episodes: 1024, workers: 2, steps_per_frame: 32, quick: false });
    const quick = parseBenchArgs(['--quick', '--think-ms', '0', '--workers', 'auto']);
    expect(quick.params).toMatchObject({ quick: true, think_ms: 0, workers: 'auto' });
    expect(() => parseBenchArgs(['--bogus'])).toThrow(/unknown flag/);
    // --worker-heap-mb reaches every environment server's options (0, the default, omits the flag).
    expect(full.params.worker_heap_mb).toBe(0);
    expect(serverLimits(full.params).workerHeapMb).toBeNull();
    const capped = parseBenchArgs(['--worker-heap-mb', '640']);
    expect(serverLimits(capped.params).workerHeapMb).toBe(640);
    expect(serverLimits(parseBenchArgs(['--worker-heap-mb', 'v8']).params).workerHeapMb).toBe('v8');
    expect(() => parseBenchArgs(['--worker-heap-mb', '32'])).toThrow(/worker_heap_mb must be 0/);
    expect(() => parseBenchArgs(['--worker-heap-mb', 'lots'])).toThrow(/--worker-heap-mb: expected a non-negative number/);
    // The live phases' client skims observations unless told to decode replies whole.
    expect(full.params.live_decode).toBe('skim');
    expect(parseBenchArgs(['--live-decode', 'full']).params.live_decode).toBe('full');
    expect(() => parseBenchArgs(['--live-decode', 'lazy'])).toThrow(/--live-decode: expected "skim" or "full"/);
    // --scheduling reaches the environment servers' options; absent, the flag is omitted (the server's default).
    expect(serverLimits(full.params).scheduling).toBeNull();
    expect(serverLimits(parseBenchArgs(['--scheduling', 'arrival']).params).scheduling).toBe('arrival');
    expect(() => parseBenchArgs(['--scheduling', 'fifo'])).toThrow(/--scheduling: expected "steps_first" or "arrival"/);
  });

  it('rewrites only the generated part of RESULTS.md and takes medians key by key', () => {
    const doc = `# Results\nintro\n${START_MARKER}\nold\n${END_MARKER}\n\n## What limits it\nhand-written\n`;
    const next = replaceGenerated(doc, 'new table');
    expect(next).toBe(`# Results\nintro\n${START_MARKER}\nnew table\n${END_MARKER}\n\n## What limits it\nhand-written\n`);
    expect(
      deepMedian([
        { a: 1, b: { c: 5 }, s: 'x' },
        { a: 3, b: { c: null }, s: 'y' },
        { a: 2, b: { c: 7 }, s: 'z' },
      ]),
    ).toEqual({
      a: 2,
      b: { c: 6 },
      s: 'x',
    });
  });
});
