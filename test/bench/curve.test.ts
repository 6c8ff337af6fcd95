/**
 * The latency curve (bench/curve.ts): which counts it runs and where the search stops (with stand-in
 * runs), then a short real curve through the suite against in-process servers (16 and 32 live episodes,
 * think 200 ms, a search step to 64), checking the JSON shape `--json` prints and that the figures are
 * the servers' own; and a live phase's warm-up on sessions of its own.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMS } from '../../bench/args.js';
import { Corpus } from '../../bench/corpus.js';
import { startEchoServer } from '../../bench/echo-server.js';
import type { BenchParams } from '../../bench/args.js';
import { curvePoint, doublingsBetween, holds, maxLiveHeld, runCurve, searchCounts } from '../../bench/curve.js';
import type { CurvePoint } from '../../bench/curve.js';
import { runConcurrency } from '../../bench/load.js';
import type { ConcurrencyResult } from '../../bench/load.js';
import { sample, scrapeMetrics } from '../../bench/observe.js';
import type { ServerFactory } from '../../bench/servers.js';
import { runSuite } from '../../bench/suite.js';
import { defaultServerConfig, startServer } from '../../server/index.js';

/** A stand-in concurrency result: every episode live, `failures` failures, the given server p99. */
function fake(live: number, p99: number | null, failures = 0): ConcurrencyResult {
  return {
    concurrent_episodes: live,
    ramp_complete: true,
    ramp_s: 1,
    steady_s: 10,
    steps: 100,
    resets: 50,
    server_steps: 100,
    steady_steps_per_s: 10,
    steady_resets_per_s: 5,
    step_p99_ms: p99,
    step_p50_ms: p99 === null ? null : p99 / 4,
    rtt_p50_ms: 1,
    rtt_p99_ms: 2,
    reset_rtt_p50_ms: 3,
    reset_rtt_p99_ms: 4,
    rss_idle_kb: 1000,
    rss_idle_warm_kb: null,
    rss_live_kb: 2000,
    rss_per_episode_kb: 10,
    rss_per_episode_warm_kb: null,
    server_cpu_cores: null,
    server_main_cpu_cores: null,
    client_cpu_cores: 0,
    machine_cpu_cores: null,
    server_cpu_us_per_item: null,
    steady_frames_per_s: 0,
    items_per_frame: null,
    server_cpu_us_per_frame: null,
    warmup_s: 0,
    warmup_steps: 0,
    warmup_failures: 0,
    failures: {
      item_errors: failures,
      timeouts: 0,
      unexpected_closes: 0,
      divergences: 0,
      missing_hints: 0,
      total: failures,
      close_codes: {},
    },
  };
}

const point = (live: number, held: boolean): CurvePoint => curvePoint(live, true, 16, fake(live, held ? 5 : 5000), 1000);

describe('latency curve: what runs', () => {
  it('holds a count only with every episode live, no failure and p99 within the limit', () => {
    expect(holds(256, fake(256, 9), 1000)).toEqual({ held: true, why_not: null });
    expect(holds(256, fake(256, 1500), 1000).why_not).toBe('server-side step p99 1500 ms > 1000 ms');
    expect(holds(256, fake(256, 9, 3), 1000).why_not).toBe('3 failures');
    expect(holds(256, { ...fake(256, 9), ramp_complete: false, concurrent_episodes: 200 }, 1000).why_not).toBe(
      'the ramp did not get every episode live; 200 live of 256',
    );
    expect(holds(256, fake(256, null), 1000).held).toBe(false);
  });

  it('searches between the last held and the first not held, or above the largest, doubling, up to the ceiling', () => {
    expect(doublingsBetween(4096, 16384, 65536)).toEqual([8192]);
    expect(doublingsBetween(16384, Infinity, 65536)).toEqual([32768, 65536]);
    expect(doublingsBetween(16384, Infinity, 40000)).toEqual([32768]);
    expect(searchCounts([point(256, true), point(1024, true), point(4096, true), point(16384, false)], 65536)).toEqual([8192]);
    expect(searchCounts([point(256, true), point(1024, false), point(4096, false), point(16384, false)], 65536)).toEqual([512]);
    expect(searchCounts([point(256, true), point(16384, true)], 65536)).toEqual([32768, 65536]);
    expect(searchCounts([point(256, true), point(16384, true)], 1_000_000)).toEqual([32768, 65536]); // never beyond 65,536
    expect(searchCounts([point(256, false), point(1024, true)], 65536)).toEqual([]);
    expect(searchCounts([point(256, true), point(16384, true)], 0)).toEqual([]);
  });

  it('the largest count held is the last one before the first that did not hold', () => {
    expect(maxLiveHeld([point(1024, true), point(256, true), point(4096, false), point(16384, true)])).toBe(1024);
    expect(maxLiveHeld([point(256, false), point(1024, true)])).toBe(null);
    expect(maxLiveHeld([])).toBe(null);
  });

  it('runs the listed counts, reuses a measured one, then searches and stops at the first count not held', async () => {
    // A box that holds up to 12,000 (p99 grows with the count).
    const ran: number[] = [];
    const run = async (n: number): Promise<ConcurrencyResult> => {
      ran.push(n);
      return fake(n, n <= 12000 ? n / 1000 : 3000);
    };
    const c = await runCurve({
      listed: [4096, 256, 1024, 16384],
      curveMax: 65536,
      p99LimitMs: 1000,
      budgetS: 600,
      connectionsFor: (n) => Math.min(16, n),
      reuse: new Map([[16384, fake(16384, 3000)]]),
      run,
    });
    expect(ran).toEqual([256, 1024, 4096, 8192]);
    expect(c.latency_curve.map((p) => [p.live, p.listed, p.held])).toEqual([
      [256, true, true],
      [1024, true, true],
      [4096, true, true],
      [8192, false, true],
      [16384, true, false],
    ]);
    expect(c.max_live_held).toBe(8192);
    expect(c.curve_stopped_by).toBe('16384: server-side step p99 3000 ms > 1000 ms');

    // Every count holds: the search goes up to the ceiling.
    const all = await runCurve({
      listed: [256],
      curveMax: 1024,
      p99LimitMs: 1000,
      budgetS: 600,
      connectionsFor: () => 1,
      reuse: new Map(),
      run: async (n) => fake(n, 1),
    });
    expect(all.latency_curve.map((p) => p.live)).toEqual([256, 512, 1024]);
    expect(all.max_live_held).toBe(1024);
    expect(all.curve_stopped_by).toBe('ceiling (1024)');

    // No time budget: the listed counts run, no search count starts.
    const none = await runCurve({
      listed: [256],
      curveMax: 1024,
      p99LimitMs: 1000,
      budgetS: 0,
      connectionsFor: () => 1,
      reuse: new Map(),
      run: async (n) => fake(n, 1),
    });
    expect(none.latency_curve.map((p) => p.live)).toEqual([256]);
    expect(none.curve_stopped_by).toBe('time budget (0 s) spent before 512');
  });
});

/** In-process environment servers (the real `startServer`); each one's steps_total read as it closes. */
function inProcessServers(stepsAtClose: number[]): ServerFactory {
  return {
    workersSupported: true,
    async env(opts) {
      const server = await startServer(
        defaultServerConfig({
          host: '127.0.0.1',
          port: 0,
          log_level: 'silent',
          allow_oracle_hints: true,
          max_sessions: opts.maxSessions,
          limits: { max_batch: opts.maxBatch, max_episodes: opts.maxEpisodes },
        }),
      );
      return {
        wsUrl: `${server.url.replace(/^http/, 'ws')}/v1/env`,
        httpUrl: server.url,
        pid: process.pid,
        async close() {
          stepsAtClose.push(sample(await scrapeMetrics(server.url), 'harness_gym_steps_total') ?? -1);
          await server.close();
        },
      };
    },
    async echo(corpusPath) {
      const e = await startEchoServer(Corpus.read(corpusPath));
      return { wsUrl: e.url, httpUrl: `http://127.0.0.1:${e.port}`, pid: null, close: e.close };
    },
  };
}

const CURVE_PARAMS: BenchParams = {
  ...DEFAULT_PARAMS,
  quick: true,
  micro_time_ms: 2,
  micro_warmup_ms: 1,
  micro_step_iterations: 2,
  episodes: 16,
  connections: 2,
  think_ms: 200,
  ramp_timeout_s: 10,
  steady_s: 1,
  drain_s: 5,
  scaling_workers: [],
  live_warmup_s: 0,
  curve: [16, 32],
  curve_max: 64,
  curve_p99_limit_ms: 60_000, // what holds here is every episode live and no failure, not the latency on a shared machine
  latency_window_s: 0,
  client_process: false,
};

describe('latency curve: a short real run', () => {
  it('measures 16 (the concurrency phase), 32 and the search step 64, each point the server figures', async () => {
    const stepsAtClose: number[] = [];
    // Throughput and echo are not this test's: one tiny round each.
    const s = await runSuite(
      { ...CURVE_PARAMS, tp_episodes: 4, tp_connections: 1, steps_per_frame: 4, duration_s: 0, tp_distinct_rounds: 1, warmup_s: 0 },
      inProcessServers(stepsAtClose),
    );
    const json = JSON.parse(JSON.stringify(s)) as typeof s;
    expect(json.latency_curve.map((p) => p.live)).toEqual([16, 32, 64]);
    expect(json.latency_curve.map((p) => p.listed)).toEqual([true, true, false]);
    for (const p of json.latency_curve) {
      expect(Object.keys(p).sort()).toEqual(
        [
          'live',
          'listed',
          'held',
          'why_not',
          'concurrent_episodes',
          'ramp_complete',
          'failures',
          'server_p50_ms',
          'server_p99_ms',
          'rtt_p50_ms',
          'rtt_p99_ms',
          'reset_rtt_p50_ms',
          'reset_rtt_p99_ms',
          'steady_steps_per_s',
          'steady_resets_per_s',
          'rss_per_episode_kb',
          'server_cpu_us_per_item',
          'server_cpu_us_per_frame',
          'items_per_frame',
          'connections',
          'steady_s',
        ].sort(),
      );
      expect(p.held, `${p.live}: ${p.why_not}`).toBe(true);
      expect(p.concurrent_episodes).toBe(p.live);
      expect(p.failures).toBe(0);
      expect(p.connections).toBe(2);
      for (const k of ['server_p50_ms', 'server_p99_ms', 'rtt_p50_ms', 'rtt_p99_ms'] as const) {
        expect(typeof p[k] === 'number' && p[k] > 0, `${p.live} ${k}`).toBe(true);
      }
      expect(p.server_p50_ms as number).toBeLessThanOrEqual(p.server_p99_ms as number);
      expect(p.rtt_p50_ms as number).toBeLessThanOrEqual(p.rtt_p99_ms as number);
      // Counted by the client: every answered frame carried at least one item.
      expect(p.items_per_frame as number, `${p.live} items_per_frame`).toBeGreaterThanOrEqual(1);
    }
    // The 16-episode point is the concurrency phase's own figures, not a second run.
    const conc = json.concurrency as Record<string, number>;
    expect(json.latency_curve[0].server_p99_ms).toBe(conc.step_p99_ms);
    expect(json.latency_curve[0].rtt_p50_ms).toBe(conc.rtt_p50_ms);
    expect(json.step_p50_ms).toBe(conc.step_p50_ms);
    // Environment servers: throughput, concurrency, then one per curve point run (32, 64).
    expect(stepsAtClose).toHaveLength(4);
    expect(stepsAtClose[1]).toBe(conc.steps);
    expect(json.max_live_held).toBe(64);
    expect(json.curve_stopped_by).toBe('ceiling (64)');
    expect(json.identity_reset_p50_us).toBe(json.micro.reset_identity.p50_us);
  });

  it('warms a live phase on sessions of its own before the ramp, and counts only the timed sessions', async () => {
    const stepsAtClose: number[] = [];
    const servers = inProcessServers(stepsAtClose);
    const srv = await servers.env({ workers: null, maxSessions: 32, maxEpisodes: 4096, maxBatch: 256 });
    let r: ConcurrencyResult;
    try {
      r = await runConcurrency({
        url: srv.wsUrl,
        httpUrl: srv.httpUrl,
        pid: srv.pid,
        episodes: 8,
        connections: 2,
        thinkMs: 100,
        jitter: 0.2,
        groupSize: 1,
        tickMs: 10,
        maxInflightFrames: 16,
        rampTimeoutS: 10,
        steadyS: 0.3,
        drainS: 5,
        maxBatch: 256,
        timeoutMs: 30_000,
        seed: 3,
        warmupS: 0.5,
        latencyWindowS: 2, // a test: a 2 s window stands for the server's 60 s one
      });
    } finally {
      await srv.close();
    }
    expect(r.failures.total).toBe(0);
    expect(r.warmup_failures).toBe(0);
    expect(r.warmup_steps).toBeGreaterThan(0);
    expect(r.warmup_s).toBeGreaterThanOrEqual(0.5);
    expect(r.rss_idle_warm_kb).not.toBeNull();
    expect(r.rss_per_episode_warm_kb).not.toBeNull();
    // CPU over the steady phase, read from /proc: the server did work, at most what the machine did.
    expect(r.server_cpu_cores).toBeGreaterThan(0);
    expect(r.server_main_cpu_cores).toBeGreaterThan(0);
    expect(r.server_main_cpu_cores as number).toBeLessThanOrEqual(r.server_cpu_cores as number);
    expect(r.client_cpu_cores).toBeGreaterThan(0);
    expect(r.server_cpu_cores as number).toBeLessThanOrEqual((r.machine_cpu_cores as number) + 0.05);
    expect(r.server_cpu_us_per_item).toBeGreaterThan(0);
    // Frames answered in the same window: each carried at least one item, and a frame cost the server at
    // least what its items did.
    expect(r.steady_frames_per_s).toBeGreaterThan(0);
    expect(r.items_per_frame as number).toBeGreaterThanOrEqual(1);
    expect(r.server_cpu_us_per_frame as number).toBeCloseTo((r.server_cpu_us_per_item as number) * (r.items_per_frame as number), 6);
    // The server applied the warm-up's steps and the timed ones, and nothing else.
    expect(stepsAtClose[0]).toBe(r.warmup_steps + r.steps);
    // The steady phase (0.3 s asked) was stretched to the window + 1 s = 3 s.
    expect(r.steady_s).toBeGreaterThanOrEqual(3);
    expect(r.steady_s).toBeLessThan(4);
  });
});
