/**
 * Endpoint failures: intermittent 500s and timeouts are retried with backoff and every episode still
 * completes; a permanently failing endpoint gives failed (and closed) episodes, not a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollout, backoffDelay, completionToAction } from '../../client/rollout.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { startFakeEndpoint } from './fake-endpoint.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ allow_oracle_hints: true });
});
afterAll(async () => {
  await srv.close();
});

const base = { model: 'fake', seed: 5, oracleHints: true, backoffMs: 1 };

describe('rollout retries', () => {
  it('intermittent 500s and timeouts are retried; all episodes complete with the oracle reward', async () => {
    // Every 4th request fails with 500, every 7th hangs past the 1 s timeout.
    const fake = await startFakeEndpoint((n) => (n % 4 === 0 ? 'error500' : n % 7 === 0 ? 'hang' : 'ok'));
    const sleeps: number[] = [];
    try {
      const { summary, records } = await runRollout({
        ...base,
        url: srv.url,
        baseUrl: fake.baseUrl,
        episodes: 20,
        concurrency: 5,
        timeoutMs: 1000,
        retries: 6,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      expect(records.filter((r) => r.failed !== undefined).map((r) => r.failed)).toEqual([]);
      expect(summary).toMatchObject({ episodes: 20, completed: 20, failed: 0, reward: { mean: 1 } });
      expect(summary.retries).toBeGreaterThan(0);
      expect(records.reduce((a, r) => a + r.retries, 0)).toBe(summary.retries);
      expect(sleeps.length).toBe(summary.retries);
      expect(new Set(sleeps)).toContain(1);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('a permanently failing endpoint gives failed episodes, and the run goes on', async () => {
    const fake = await startFakeEndpoint(() => 'error500');
    try {
      const { summary, records } = await runRollout({
        ...base,
        url: srv.url,
        baseUrl: fake.baseUrl,
        episodes: 6,
        concurrency: 3,
        retries: 2,
      });
      expect(summary).toMatchObject({ episodes: 6, completed: 0, failed: 6, retries: 12, outcomes: { failed: 6 } });
      expect(records.every((r) => r.failed === 'endpoint: answered HTTP 500')).toBe(true);
      // The summary counts the reasons (what `rollout` prints when every episode failed).
      expect(summary.failures).toEqual({ 'endpoint: answered HTTP 500': 6 });
      // 1 try + 2 retries per episode.
      expect(fake.requests).toBe(18);
    } finally {
      await fake.close();
    }
    // The session is still usable: a healthy endpoint completes episodes on the same server.
    const ok = await startFakeEndpoint();
    try {
      const { summary } = await runRollout({ ...base, url: srv.url, baseUrl: ok.baseUrl, episodes: 3, concurrency: 3 });
      expect(summary).toMatchObject({ completed: 3, failed: 0, reward: { mean: 1 } });
    } finally {
      await ok.close();
    }
  }, 60_000);

  it('an endpoint whose actions the environment keeps refusing fails the episode after three tries', async () => {
    const fake = await startFakeEndpoint(() => 'invalid');
    try {
      const { summary, records } = await runRollout({ ...base, url: srv.url, baseUrl: fake.baseUrl, episodes: 4, concurrency: 2 });
      expect(summary).toMatchObject({ episodes: 4, completed: 0, failed: 4 });
      const reason = 'step: INVALID_ACTION: invalid assistant message at message.tool_calls.0.function.arguments: Invalid input: expected string, received object';
      expect(records.map((r) => r.failed)).toEqual(Array(4).fill(reason));
      expect(summary.failures).toEqual({ [reason]: 4 });
      expect(fake.requests).toBe(12);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('backoff doubles; a completion without tool_calls becomes a raw-text action', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(100, a))).toEqual([100, 200, 400, 800]);
    expect(completionToAction({ choices: [{ message: { role: 'assistant', content: 'hi' } }] })).toEqual({
      message: { role: 'assistant', content: 'hi' },
      action: { text: 'hi' },
    });
    const tool_calls = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }];
    expect(completionToAction({ choices: [{ message: { role: 'assistant', content: null, tool_calls } }] })).toEqual({
      message: { role: 'assistant', content: null, tool_calls },
      action: { message: { role: 'assistant', content: null, tool_calls } },
    });
    expect(completionToAction({ choices: [] })).toBeNull();
  });
});
