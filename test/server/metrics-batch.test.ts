/**
 * The per-frame step metrics (server/metrics.ts `observeStepLatency`, `observeStepSeconds`): one call per
 * frame gives the exposition one `observe` per item gives (histogram buckets, sums and counts the same;
 * the summary's counts and sums the same and its quantiles those of the same values).
 */
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../server/metrics.js';

const sources = { sessions: () => 0, episodesLive: () => 0 };

/** The exposition lines of one metric family. */
async function lines(m: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  const text = await m.registry.metrics();
  return text.split('\n').filter((l) => l.startsWith(name));
}

function value(ls: string[], key: string): number {
  const line = ls.find((l) => l.startsWith(`${key} `));
  if (line === undefined) throw new Error(`no ${key}`);
  return Number(line.slice(key.length + 1));
}

describe('per-frame step metrics', () => {
  it('observeStepSeconds writes the histogram one observe per value writes', async () => {
    const a = createMetrics(sources);
    const b = createMetrics(sources);
    const frames = [
      [0.000004, 0.00002, 0.00002, 0.00007],
      [0.0001, 0.00011, 0.0009, 0.003],
      [0.3, 2.5, 0.00001, 0.00005, 1],
      [],
    ];
    const spy = vi.spyOn(b.stepSeconds, 'observe');
    for (const f of frames) {
      for (const v of f) a.stepSeconds.observe(v);
      b.observeStepSeconds(f);
    }
    expect(spy).not.toHaveBeenCalled(); // the one-pass path, not the per-item fallback
    expect(await lines(b, 'harness_gym_step_seconds')).toEqual(await lines(a, 'harness_gym_step_seconds'));
    expect(value(await lines(b, 'harness_gym_step_seconds'), 'harness_gym_step_seconds_count')).toBe(13);
  });

  it('observeStepLatency counts every item and gives the quantiles of the items', async () => {
    const a = createMetrics(sources);
    const b = createMetrics(sources);
    const frames: [number, number][] = [];
    for (let i = 0; i < 400; i++) frames.push([0.001 + (i % 37) * 0.0003, 1 + (i % 64)]);
    const spy = vi.spyOn(b.stepLatency, 'observe');
    for (const [seconds, n] of frames) {
      for (let i = 0; i < n; i++) a.stepLatency.observe(seconds);
      b.observeStepLatency(seconds, n);
    }
    expect(spy).not.toHaveBeenCalled();
    b.observeStepLatency(0.5, 0); // an empty frame counts nothing
    const la = await lines(a, 'harness_gym_step_latency_seconds');
    const lb = await lines(b, 'harness_gym_step_latency_seconds');
    const items = frames.reduce((s, [, n]) => s + n, 0);
    expect(value(lb, 'harness_gym_step_latency_seconds_count')).toBe(items);
    expect(value(la, 'harness_gym_step_latency_seconds_count')).toBe(items);
    expect(value(lb, 'harness_gym_step_latency_seconds_sum')).toBeCloseTo(value(la, 'harness_gym_step_latency_seconds_sum'), 9);
    for (const q of ['0.5', '0.9', '0.99', '0.999']) {
      const key = `harness_gym_step_latency_seconds{quantile="${q}"}`;
      // Both estimate the same item-weighted distribution (values 0.001..0.0118 s, steps of 0.3 ms).
      expect(Math.abs(value(lb, key) - value(la, key))).toBeLessThan(0.0006);
    }
  });
});
