/**
 * HTTP beside the WebSocket: /healthz, /readyz (503 at capacity), /metrics contents.
 * (/v1/info is compared whole in messages.test.ts.)
 */
import { getHeapStatistics } from 'node:v8';
import { describe, it, expect, afterEach } from 'vitest';
import type { GymApp } from '../../server/index.js';
import { inject, makeApp, metric } from './helpers.js';

let app: GymApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('HTTP routes', () => {
  it('/healthz is 200 {status: ok}', async () => {
    app = await makeApp();
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect([res.statusCode, res.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('/readyz is 200 while sessions can open and 503 at max_sessions', async () => {
    app = await makeApp({ max_sessions: 1 });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }]);
    const c = await inject(app);
    await c.hello();
    const full = await app.inject({ method: 'GET', url: '/readyz' });
    expect([full.statusCode, full.json()]).toEqual([503, { status: 'at_capacity' }]);
  });

  it('/metrics counts sessions, episodes, resets, steps, errors, step time and rewards', async () => {
    app = await makeApp({ allow_oracle_hints: true });
    const res0 = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res0.statusCode).toBe(200);
    expect(res0.headers['content-type']).toContain('text/plain');
    for (const name of [
      'harness_gym_sessions',
      'harness_gym_episodes_live',
      'harness_gym_episodes_freed_total',
      'harness_gym_resets_total',
      'harness_gym_steps_total',
      'harness_gym_errors_total',
      'harness_gym_step_seconds',
      'harness_gym_reward',
    ]) {
      expect(res0.body).toContain(`# TYPE ${name} `);
    }
    const c = await inject(app);
    await c.hello();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [{ episode_id: 'a', seed: 2, options: { oracle_hints: true } }, { episode_id: 'b' }],
    });
    await c.request({ type: 'step', id: 2, items: [{ episode_id: 'nope', action: { text: 'x' } }] });
    let action = r.items[0].info.oracle_action;
    let steps = 0;
    for (;;) {
      const s = await c.request({ type: 'step', id: `s${steps}`, items: [{ episode_id: 'a', action }] });
      steps++;
      if (s.items[0].terminated || s.items[0].truncated) break;
      action = s.items[0].info.oracle_action;
    }
    await c.request({ type: 'close', id: 3, episode_ids: ['a'] });
    expect(await metric(app, 'harness_gym_sessions')).toBe(1);
    expect(await metric(app, 'harness_gym_episodes_live')).toBe(1);
    expect(await metric(app, 'harness_gym_resets_total')).toBe(2);
    expect(await metric(app, 'harness_gym_steps_total')).toBe(steps);
    expect(await metric(app, 'harness_gym_step_seconds_count')).toBe(steps);
    expect(await metric(app, 'harness_gym_errors_total{code="UNKNOWN_EPISODE"}')).toBe(1);
    expect(await metric(app, 'harness_gym_episodes_freed_total{reason="closed"}')).toBe(1);
    expect(await metric(app, 'harness_gym_reward_count{component="total"}')).toBe(1);
    expect(await metric(app, 'harness_gym_reward_sum{component="total"}')).toBe(1);
    expect(await metric(app, 'harness_gym_reward_count{component="accuracy"}')).toBe(1);
    // The episode thread's heap (here the main thread): its limit is V8's, its live heap below it.
    const limit = (await metric(app, 'harness_gym_shard_heap_limit_bytes{shard="main"}')) ?? 0;
    expect(limit).toBe(getHeapStatistics().heap_size_limit);
    const live = (await metric(app, 'harness_gym_shard_heap_live_bytes{shard="main"}')) ?? -1;
    expect(live).toBeGreaterThanOrEqual(0);
    expect(live).toBeLessThan(limit);
  });

  it('metrics registries are per server instance', async () => {
    app = await makeApp();
    const other = await makeApp();
    const c = await inject(other);
    await c.hello();
    await c.request({ type: 'reset', id: 1, items: [{}] });
    expect(await metric(other, 'harness_gym_resets_total')).toBe(1);
    expect(await metric(app, 'harness_gym_resets_total')).toBe(0);
    await other.close();
  });
});
