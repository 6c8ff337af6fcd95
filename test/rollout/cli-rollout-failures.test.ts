/**
 * `harness-gym rollout` when things go wrong: a bad `--variant` is refused before anything is sent; a
 * run in which every episode failed exits 5 with the most frequent reasons on one line (they used to be
 * only in `--out`, with exit 0); a run with some failures lists them in its summary and exits 0.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverState } from '../../server/index.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { startFakeEndpoint } from './fake-endpoint.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure, tempDir } from '../cli/helpers.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ allow_oracle_hints: true });
});
afterAll(async () => {
  await srv.close();
});

const base = () => ['rollout', '--url', srv.url, '--model', 'm', '--seed', '1'];

describe('harness-gym rollout failures', () => {
  it('--variant trian and a bad spec are usage errors before any request', async () => {
    const fake = await startFakeEndpoint();
    try {
      const [typo, spec] = await Promise.all([
        cli([...base(), '--base-url', fake.baseUrl, '--episodes', '2', '--variant', 'trian']),
        cli([...base(), '--base-url', fake.baseUrl, '--episodes', '2', '--variant', '{"families":["tools"],"intensity":-1}']),
      ]);
      expect(expectFailure(typo, EXIT.usage, 'rollout')).toContain('got "trian" (did you mean train?)');
      expect(expectFailure(spec, EXIT.usage, 'rollout')).toContain('intensity must be in [0, 1]');
      expect(fake.requests).toBe(0);
      expect(serverState(srv.server.app).episodes).toBe(0);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('a spec goes to the server as a spec', async () => {
    const fake = await startFakeEndpoint();
    try {
      const r = await cli([...base(), '--base-url', fake.baseUrl, '--episodes', '4', '--families', 'tools', '--intensity', '0.3', '--oracle-hints', '--json']);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ variant: '{"families":["tools"],"intensity":0.3,"split":"train"}', completed: 4, reward: { mean: 1 } });
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('an unreachable endpoint: every episode failed, exit 5, the reasons with counts on one line and in the summary', async () => {
    const out = join(tempDir('hg-rollout-fail-'), 'episodes.jsonl');
    // A port the test endpoint held and gave back: nothing listens there.
    const gone = await startFakeEndpoint();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const r = await cli([...base(), '--base-url', baseUrl, '--episodes', '2', '--retries', '1', '--backoff', '1', '--out', out]);
    const line = expectFailure(r, EXIT.run, 'rollout');
    expect(line).toMatch(/^harness-gym rollout: every episode failed \(2 of 2\): 2x endpoint: request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+; check that --base-url .* serves \/chat\/completions$/);
    expect(r.stdout).toContain('2 episodes, 0 completed, 2 failed');
    expect(r.stdout).toMatch(/failures \(episodes\):\n {2}2 {2}endpoint: request failed: connect ECONNREFUSED/);
    // Nothing completed: no empty "components" or "intents" headings.
    expect(r.stdout).not.toMatch(/components \(mean\):|intents \(mean reward\):|variant families/);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { failed?: string });
    expect(records.map((x) => x.failed?.startsWith('endpoint: request failed: connect ECONNREFUSED'))).toEqual([true, true]);
  }, 60_000);

  it('some failures: exit 0, and the summary lists them', async () => {
    // Requests 1 and 2 answer 500 and --retries 0: the first episode fails, the others complete.
    const fake = await startFakeEndpoint((n) => (n === 1 ? 'error500' : 'ok'));
    try {
      const r = await cli([...base(), '--base-url', fake.baseUrl, '--episodes', '3', '--concurrency', '1', '--retries', '0', '--oracle-hints', '--json']);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ completed: 2, failed: 1, failures: { 'endpoint: answered HTTP 500': 1 } });
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('a server that is not there: exit 3, one line', async () => {
    const r = await cli(['rollout', '--url', 'ws://127.0.0.1:1/v1/env', '--base-url', 'http://127.0.0.1:8000/v1', '--model', 'm']);
    expect(expectFailure(r, EXIT.network, 'rollout')).toContain('cannot connect to ws://127.0.0.1:1/v1/env: nothing is listening there');
  });
});
