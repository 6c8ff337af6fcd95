/**
 * `harness-gym rollout` end to end: a real server (oracle hints allowed) and a fake OpenAI-compatible
 * endpoint that plays the oracle; 200 episodes complete with reward 1 and the summary is printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { startFakeEndpoint } from './fake-endpoint.js';
import type { FakeEndpoint } from './fake-endpoint.js';

// Async: server and fake run in this process, so the child must not block its event loop.
const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

let srv: TestServer;
let fake: FakeEndpoint;
beforeAll(async () => {
  srv = await startTestServer({ allow_oracle_hints: true });
  fake = await startFakeEndpoint();
});
afterAll(async () => {
  await fake.close();
  await srv.close();
});

describe('harness-gym rollout', () => {
  it('completes 200 episodes against the fake endpoint and prints the summary (--json)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hg-rollout-')), 'episodes.jsonl');
    const args = ['--import', 'tsx', 'cli/main.ts', 'rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'fake-oracle'];
    const { stdout } = await run(
      'node',
      [...args, '--episodes', '200', '--concurrency', '32', '--seed', '1', '--variant', 'train', '--oracle-hints', '--json', '--out', out],
      { cwd: ROOT },
    );
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      model: 'fake-oracle',
      variant: 'train',
      episodes: 200,
      completed: 200,
      failed: 0,
      retries: 0,
      reward: { mean: 1 },
    });
    expect(Object.values(summary.components as Record<string, number>).every((v) => v === 1)).toBe(true);
    expect(Object.values(summary.intents as Record<string, { n: number }>).reduce((a, g) => a + g.n, 0)).toBe(200);
    expect(Object.keys(summary.variant_families).sort()).toEqual(expect.arrayContaining(['train']));
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => r.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(lines.every((r) => r.reward === 1 && r.failed === undefined)).toBe(true);
  }, 120_000);

  it('prints the table by component, intent and variant family; raw-text parser and groups work too', async () => {
    const args = ['--import', 'tsx', 'cli/main.ts', 'rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm'];
    const { stdout } = await run(
      'node',
      [...args, '--episodes', '12', '--concurrency', '4', '--group-size', '3', '--parser', 'hermes', '--oracle-hints'],
      { cwd: ROOT },
    );
    expect(stdout).toContain('model m on variant identity: 12 episodes, 12 completed, 0 failed');
    expect(stdout).toContain('reward mean 1.0000');
    expect(stdout).toMatch(/components \(mean\):\n {2}accuracy\s+1\.0000/);
    expect(stdout).toContain('intents (mean reward):');
    expect(stdout).toMatch(/variant families \(mean reward\):\n {2}identity\s+1\.0000 {2}\(n=12\)/);
  }, 60_000);
});
