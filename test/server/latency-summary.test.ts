/**
 * server/latency-summary.ts: a prom-client-shaped summary over a sliding window of native HDR
 * histograms. The exposition through a real prom-client registry, the window's edges on a moved clock,
 * quantiles against the exact ones over many random samples, and bad input.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { LatencySummary } from '../../server/latency-summary.js';

function make(now: () => number, registers: Registry[] = []): LatencySummary {
  return new LatencySummary({
    name: 'x_seconds',
    help: 'test latency',
    percentiles: [0.5, 0.9, 0.99],
    maxAgeSeconds: 60,
    ageBuckets: 6,
    registers,
    now,
  });
}

describe('LatencySummary', () => {
  it('exposes a summary as prom-client writes one', async () => {
    const registry = new Registry();
    const s = make(() => 0, [registry]);
    // Under 2,048 µs every microsecond is its own HDR bucket: these read back exactly.
    s.observe(0.001, 3);
    s.observe(0.002);
    expect(await registry.metrics()).toBe(
      [
        '# HELP x_seconds test latency',
        '# TYPE x_seconds summary',
        'x_seconds{quantile="0.5"} 0.001',
        'x_seconds{quantile="0.9"} 0.002',
        'x_seconds{quantile="0.99"} 0.002',
        'x_seconds_sum 0.005',
        'x_seconds_count 4',
        '',
      ].join('\n'),
    );
    const [json] = await registry.getMetricsAsJSON();
    expect(json).toMatchObject({ name: 'x_seconds', type: 'summary' });
    registry.resetMetrics();
    expect(s.count).toBe(0);
    expect(s.quantile(0.5)).toBe(0);
  });

  it('reads 0 at every quantile when the window is empty, and counts nothing for n = 0', async () => {
    const s = make(() => 0);
    s.observe(1, 0);
    expect(s.count).toBe(0);
    expect((await s.get()).values.map((v) => v.value)).toEqual([0, 0, 0, 0, 0]);
  });

  it('covers the last 50-60 s: a value leaves the quantiles 60 s after its slice began, and stays in sum and count', () => {
    let t = 1_000;
    const s = make(() => t);
    s.observe(0.5); // slice [1 s, 11 s)
    t += 9_000;
    s.observe(0.001); // same slice
    t += 2_000; // 12 s: a new slice
    for (let i = 0; i < 3; i++) s.observe(0.01);
    expect(s.quantile(1)).toBeCloseTo(0.5, 3);
    t = 1_000 + 59_999; // the first slice is still in the window
    expect(s.quantile(1)).toBeCloseTo(0.5, 3);
    t = 1_000 + 60_000; // now it is not
    expect(s.quantile(1)).toBeCloseTo(0.01, 4);
    expect(s.count).toBe(5);
    t += 10 * 60_000; // a long gap empties every slice
    expect(s.quantile(0.5)).toBe(0);
    s.observe(0.003);
    expect(s.quantile(0.5)).toBeCloseTo(0.003, 5);
    expect(s.count).toBe(6);
  });

  it('reads each quantile within 0.1% above the exact item-weighted one, over 200 random windows', () => {
    for (let seed = 0; seed < 200; seed++) {
      const rng = seedrandom(`latency-${seed}`);
      const s = make(() => 0);
      const items: number[] = [];
      const frames = 1 + Math.floor(rng() * 300);
      for (let f = 0; f < frames; f++) {
        // Log-uniform from 10 µs to 10 s, rounded to the microsecond (the recorded unit).
        const seconds = Math.round(10 ** (rng() * 6 - 5) * 1e6) / 1e6;
        const n = 1 + Math.floor(rng() * 64);
        s.observe(seconds, n);
        for (let i = 0; i < n; i++) items.push(seconds);
      }
      items.sort((a, b) => a - b);
      for (const q of [0.5, 0.9, 0.99, 0.999]) {
        const exact = items[Math.max(1, Math.floor(((q * 100) / 100) * items.length + 0.5)) - 1] as number;
        const got = s.quantile(q);
        expect(got).toBeGreaterThanOrEqual(exact - 1e-9);
        expect(got).toBeLessThanOrEqual(exact * 1.001 + 1e-6);
      }
    }
  });

  it('clamps to 1 µs .. 1 h and refuses values that are not finite', () => {
    const s = make(() => 0);
    s.observe(0);
    expect(s.quantile(1)).toBeCloseTo(1e-6, 9);
    s.observe(86_400);
    expect(s.quantile(1)).toBeGreaterThanOrEqual(3600);
    expect(s.quantile(1)).toBeLessThan(3600 * 1.001);
    expect(() => s.observe(Number.NaN)).toThrow(TypeError);
    expect(() => s.observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(s.count).toBe(2);
  });

  it('refuses a window it cannot keep', () => {
    const opts = { name: 'y', help: 'y', percentiles: [0.5], maxAgeSeconds: 60, ageBuckets: 6 };
    expect(() => new LatencySummary({ ...opts, ageBuckets: 0 })).toThrow(RangeError);
    expect(() => new LatencySummary({ ...opts, maxAgeSeconds: 0 })).toThrow(RangeError);
    expect(() => new LatencySummary({ ...opts, percentiles: [0] })).toThrow(RangeError);
  });
});
