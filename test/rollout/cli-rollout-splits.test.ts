/**
 * `harness-gym rollout --task-split` and `--mix` (issue 37), through the real entry, against a server on
 * 127.0.0.1 and the fake endpoint that plays the oracle: every reset names its task split (all: each
 * seed's), `--mix` draws each episode's intent, and the summary says which task split, variant split and
 * mix were played (without `--mix`, the server's default mix, from its welcome).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskSplitFor } from '../../env/index.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { cli, tempDir } from '../cli/helpers.js';
import { startFakeEndpoint } from './fake-endpoint.js';
import type { FakeEndpoint } from './fake-endpoint.js';

let srv: TestServer;
let chatty: TestServer;
let fake: FakeEndpoint;
beforeAll(async () => {
  srv = await startTestServer({ allow_oracle_hints: true });
  chatty = await startTestServer({ allow_oracle_hints: true, defaults: { task_mix: { chitchat: 1 } } });
  fake = await startFakeEndpoint();
});
afterAll(async () => {
  await fake.close();
  await srv.close();
  await chatty.close();
});

function lines(file: string): { seed: number; task_id: string; intent: string; task_split?: string; transcript: { reset: { task?: unknown } } }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('rollout --task-split / --mix', () => {
  it('eval: every reset names the held-out split, GRPO groups too; the summary names both splits', async () => {
    const out = join(tempDir('hg-rollout-split-'), 'episodes.jsonl');
    const r = await cli([
      'rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm', '--episodes', '12', '--group-size', '3', '--variant', 'train',
      '--task-split', 'eval', '--oracle-hints', '--json', '--out', out,
    ]);
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ variant: 'train', task_split: 'eval', variant_split: 'train', task_splits: { eval: 12 }, completed: 12, reward: { mean: 1 } });
    // Without --mix, the server's mix (its welcome's shares).
    expect(s.mix).toMatchObject({ product_qa: 0.46, chitchat: 0.19 });
    for (const e of lines(out)) {
      expect(e.task_id).toMatch(new RegExp(`^gen-eval-zh-CN-${e.seed}-`));
      expect(e.transcript.reset.task).toEqual({ split: 'eval' });
      expect(e.task_split).toBe('eval');
    }
  }, 60_000);

  it('all and a mix: each seed its split, only the mix intents; the table says what it played', async () => {
    const out = join(tempDir('hg-rollout-mix-'), 'episodes.jsonl');
    const r = await cli([
      'rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm', '--episodes', '16', '--task-split', 'all', '--mix', 'chitchat=1',
      '--oracle-hints', '--out', out,
    ]);
    expect(r.status).toBe(0);
    const eps = lines(out);
    const splits = eps.map((e) => taskSplitFor(e.seed, 'all'));
    expect(eps.map((e) => e.task_id.split('-')[1])).toEqual(splits);
    expect(eps.every((e) => e.intent === 'chitchat')).toBe(true);
    expect(eps.map((e) => e.transcript.reset.task)).toEqual(splits.map((split) => ({ split, intent: 'chitchat' })));
    const evals = splits.filter((x) => x === 'eval').length;
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'model m on variant identity: 16 episodes, 16 completed, 0 failed, 0 retries',
      `task split all (eval ${evals}, train ${16 - evals}), variant split none (the base harness), mix chitchat=1`,
    ]);
  }, 60_000);

  it("without --mix against a server with its own mix: that mix is played, and named", async () => {
    const r = await cli(['rollout', '--url', chatty.url, '--base-url', fake.baseUrl, '--model', 'm', '--episodes', '6', '--oracle-hints']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[1]).toBe('task split train (train 6), variant split none (the base harness), mix chitchat=1');
    expect(r.stdout).toMatch(/intents \(mean reward\):\n {2}chitchat\s+1\.0000 {2}\(n=6\)\n/);
  }, 60_000);
});
