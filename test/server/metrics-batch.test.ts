/**
 * The per-frame step metrics (server/metrics.ts `observeStepLatency`, `observeStepSeconds`): one call per
 * frame gives the exposition one `observe` per item gives (histogram buckets, sums and counts the same),
 * and the latency summary counts a frame's items and reads their quantiles.
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
    const frames = [[0.000004, 0.00002, 0.00002, 0.00007], [0.0001, 0.00011, 0.0009, 0.003], [0.3, 2.5, 0.00001, 0.00005, 1], []];
    const spy = vi.spyOn(b.stepSeconds, 'observe');
    for (const f of frames) {
      for (const v of f) a.stepSeconds.observe(v);
      b.observeStepSeconds(f);
    }
    expect(spy).not.toHaveBeenCalled(); // the one-pass path, not the per-item fallback
    expect(await lines(b, 'harness_gym_step_seconds')).toEqual(await lines(a, 'harness_gym_step_seconds'));
    expect(value(await lines(b, 'harness_gym_step_seconds'), 'harness_gym_step_seconds_count')).toBe(13);
  });

  it('observeRewards writes the reward histogram one labelled observe per pair writes', async () => {
    const a = createMetrics(sources);
    const b = createMetrics(sources);
    const frames: [string, number][][] = [
      [
        ['total', 0.91],
        ['accuracy', 1],
        ['effectiveness', 0.8],
      ],
      [
        ['total', 0],
        ['skill_selection', 0.5],
        ['accuracy', 0.05],
        ['total', 0.95],
      ],
      [],
      [['hook_compliance', 1]],
    ];
    for (const f of frames) {
      for (const [component, v] of f) a.reward.observe({ component }, v);
      b.observeRewards(f);
    }
    const spy = vi.spyOn(b.reward, 'observe');
    b.observeRewards([['total', 0.3], ['accuracy', 0.7]]); // components seen before: the one-pass path
    a.reward.observe({ component: 'total' }, 0.3);
    a.reward.observe({ component: 'accuracy' }, 0.7);
    expect(spy).not.toHaveBeenCalled();
    b.observeRewards([['tool_rationality', 0.4]]); // a component's first value makes its state through observe
    a.reward.observe({ component: 'tool_rationality' }, 0.4);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(await lines(b, 'harness_gym_reward')).toEqual(await lines(a, 'harness_gym_reward'));
    expect(value(await lines(b, 'harness_gym_reward'), 'harness_gym_reward_count{component="total"}')).toBe(4);
  });

  it('observeStepLatency counts every item and gives the quantiles of the items', async () => {
    const m = createMetrics(sources);
    const frames: [number, number][] = [];
    for (let i = 0; i < 400; i++) frames.push([0.001 + (i % 37) * 0.0003, 1 + (i % 64)]);
    const items: number[] = [];
    for (const [seconds, n] of frames) {
      m.observeStepLatency(seconds, n);
      for (let i = 0; i < n; i++) items.push(seconds);
    }
    m.observeStepLatency(0.5, 0); // an empty frame counts nothing
    const ls = await lines(m, 'harness_gym_step_latency_seconds');
    expect(ls.filter((l) => !l.startsWith('harness_gym_step_latency_seconds{quantile=')).map((l) => l.split(' ')[0])).toEqual([
      'harness_gym_step_latency_seconds_sum',
      'harness_gym_step_latency_seconds_count',
    ]);
    expect(value(ls, 'harness_gym_step_latency_seconds_count')).toBe(items.length);
    expect(value(ls, 'harness_gym_step_latency_seconds_sum')).toBeCloseTo(
      items.reduce((s, v) => s + v, 0),
      9,
    );
    items.sort((x, y) => x - y);
    for (const q of [0.5, 0.9, 0.99, 0.999]) {
      // The item-weighted quantile, as HDR reads it: the value of rank q x items, rounded to the nearest.
      const exact = items[Math.max(1, Math.floor(((q * 100) / 100) * items.length + 0.5)) - 1] as number;
      const got = value(ls, `harness_gym_step_latency_seconds{quantile="${q}"}`);
      expect(got).toBeGreaterThanOrEqual(exact - 1e-6);
      expect(got).toBeLessThanOrEqual(exact * 1.001 + 1e-6);
    }
    // The reset summary is its own.
    expect(value(await lines(m, 'harness_gym_reset_latency_seconds'), 'harness_gym_reset_latency_seconds_count')).toBe(0);
  });
});
