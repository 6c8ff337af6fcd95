/**
 * bench/results.ts with the latency curve: medians matched by live count across runs that measured
 * different counts, the curve's table and chart reference in the generated part, the targets rows it
 * adds, and the chart of the medians.
 */
import { describe, expect, it } from 'vitest';
import type { CurvePoint } from '../../bench/curve.js';
import { CHART_FILE, curveChart, curveMedians, renderGenerated, targetRows } from '../../bench/results.js';
import type { BenchSummary } from '../../bench/suite.js';
import { DEFAULT_PARAMS } from '../../bench/args.js';
import { allElements, parseXml } from './xml.js';

const pt = (live: number, p99: number, held = p99 <= 1000): CurvePoint => ({
  live,
  listed: true,
  held,
  why_not: held ? null : `server-side step p99 ${p99} ms > 1000 ms`,
  concurrent_episodes: live,
  ramp_complete: true,
  failures: 0,
  server_p50_ms: p99 / 10,
  server_p99_ms: p99,
  rtt_p50_ms: p99 / 5,
  rtt_p99_ms: p99 * 2,
  reset_rtt_p50_ms: p99 / 4,
  reset_rtt_p99_ms: p99 * 3,
  steady_steps_per_s: live / 3,
  steady_resets_per_s: live / 6,
  rss_per_episode_kb: 100,
  server_cpu_us_per_item: 180,
  server_cpu_us_per_frame: 450,
  items_per_frame: 2.5,
  connections: 16,
  steady_s: 60,
});

/** A summary line with the keys the results page reads (figures of a made-up run). */
function summary(curve: CurvePoint[], maxHeld: number | null, ratio: number): BenchSummary {
  return {
    echo_steps_per_s: 15000,
    env_steps_per_s: 15000 * ratio,
    ratio,
    concurrent_episodes: 16384,
    failures: 0,
    step_p99_ms: 2000,
    reset_p50_us: 800,
    reset_p99_us: 5000,
    identity_reset_p50_us: 140,
    rss_per_episode_kb: 90,
    step_p50_ms: 100,
    latency_curve: curve,
    max_live_held: maxHeld,
    curve_stopped_by: 'x',
    workers_scaling: [],
    throughput: { server_cpu_us_per_step: 60 },
    echo: { server_cpu_us_per_step: 8 },
    concurrency: {
      server_cpu_cores: 1.5,
      server_main_cpu_cores: 0.2,
      client_cpu_cores: 0.45,
      machine_cpu_cores: 1.98,
      server_cpu_us_per_item: null,
      steady_frames_per_s: 3000,
      items_per_frame: 2.5,
      server_cpu_us_per_frame: null,
    },
    micro: { reset_identity: { p50_us: 140, p99_us: 1000 } },
    machine: { cpu_model: 'test', cores: 2, total_memory_gib: 1, node: 'v20', os: 'Linux', load_avg_1m: 0.5 },
    params: { ...DEFAULT_PARAMS, workers_flag_supported: true, load_client: 'child process' },
    elapsed_s: 1,
  };
}

describe('bench:results with the latency curve', () => {
  // Run A's search probed 8,192 (and it held); run B's stopped at 2,048 before it; run C is A again, slower.
  const a = summary([pt(256, 8), pt(1024, 20), pt(4096, 400), pt(8192, 900), pt(16384, 3000)], 8192, 0.3);
  const b = summary([pt(256, 12), pt(1024, 30), pt(2048, 2000), pt(4096, 1500), pt(16384, 5000)], 1024, 0.5);
  const c = summary([pt(256, 10), pt(1024, 25), pt(4096, 600), pt(8192, 1200), pt(16384, 4000)], 4096, 0.4);

  it('takes the curve medians by live count, not by position', () => {
    const m = curveMedians([a, b, c]);
    expect(m.map((p) => p.live)).toEqual([256, 1024, 2048, 4096, 8192, 16384]);
    const by = new Map(m.map((p) => [p.live, p]));
    expect(by.get(256)).toMatchObject({ runs: 3, held_runs: 3, held: true, server_p99_ms: 10, server_p50_ms: 1, rtt_p99_ms: 20 });
    expect(by.get(2048)).toMatchObject({ runs: 1, held_runs: 0, held: false, server_p99_ms: 2000 });
    expect(by.get(4096)).toMatchObject({ runs: 3, held_runs: 2, held: true, server_p99_ms: 600 });
    expect(by.get(8192)).toMatchObject({ runs: 2, held_runs: 1, held: false, server_p99_ms: 1050 });
    expect(curveMedians([{ latency_curve: [] }])).toEqual([]);
  });

  it('puts the curve table and the chart reference beside the targets', () => {
    const runs = [a, b, c].map((s) => ({ line: JSON.stringify(s), seconds: 1 }));
    const md = renderGenerated(runs, 'npm run bench:results', []);
    const targets = md.indexOf('### Targets (issues 6, 14, 16)');
    const curve = md.indexOf('### Latency curve (issue 16)');
    expect(targets).toBeGreaterThan(0);
    expect(curve).toBeGreaterThan(targets);
    expect(md).toContain(`](${CHART_FILE})`);
    const row = md.split('\n').find((l) => l.startsWith('| 256 |'));
    expect(row).toBe('| 256 | 3/3 | 1 | 10 | 2 | 20 | 2.5 / 30 | 256 | 0 | 85 | met |');
    expect(md.split('\n').find((l) => l.startsWith('| 16,384 |'))).toContain('| 400.0x over |');
    expect(md).toContain('Largest count held (median of the runs): 4,096');
    // The CPU figures: medians per key; n/a where a run did not read them.
    expect(md).toContain('| throughput: server CPU per step, env / echo | 60 µs / 8 µs |');
    expect(md).toContain('| concurrency: CPU in cores, server (main thread) / client / machine | 1.5 (0.2) / 0.45 / 1.98 of 2 |');
    expect(md).toContain('| concurrency: server CPU per item (steps and resets) | n/a |');
    expect(md).toContain('| concurrency: frames/s, items per frame, server CPU per frame | 3000, 2.5, n/a |');
    // The targets: the ratio's median, identity reset, and the two curve rows.
    const rows = targetRows(JSON.parse(JSON.stringify({ ...c, ratio: 0.4 })) as BenchSummary, curveMedians([a, b, c]));
    expect(rows.find((r) => r.target.startsWith('identity reset p50'))).toMatchObject({ measured: '140 µs', status: 'missed' });
    expect(rows.find((r) => r.target.startsWith('latency curve: live episodes the box holds'))).toMatchObject({
      measured: '4,096',
      gap: '16.0x short of 65,536',
    });
    expect(rows.find((r) => r.target.startsWith('latency curve: largest count with'))).toMatchObject({ measured: '256' });
  });

  it('draws the medians: one marker per count and series, those not held in most runs (2,048, 8,192, 16,384) hollow', () => {
    const root = parseXml(curveChart(curveMedians([a, b, c]), 3));
    expect(root.children.find((e) => e.name === 'title')?.text).toBe('Step latency by live episodes (medians of 3 runs)');
    const circles = allElements(root).filter((e) => e.name === 'circle' && e.attrs['data-live'] !== undefined);
    expect(circles).toHaveLength(6 * 4);
    const hollow = new Set(circles.filter((e) => e.attrs.fill === '#ffffff').map((e) => Number(e.attrs['data-live'])));
    expect([...hollow].sort((x, y) => x - y)).toEqual([2048, 8192, 16384]);
  });
});
