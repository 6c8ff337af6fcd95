/**
 * `harness-gym rollout --out FILE --record DIR`: every row of `--out` carries the episode's transcript (the
 * reset item, every action, the conversation as the model saw it, the episode's own tools, the reward's
 * reasons); `--record` rebuilds the finished episodes in-process from it as record files, which `replay`
 * finds identical and `inspect` reads, with the rewards the server gave.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

interface Row {
  index: number;
  seed: number;
  reward: number;
  outcome: string;
  transcript: {
    reset: { episode_id: string; seed: number; variant?: unknown; group_id?: string };
    actions: { action: unknown; error?: { code: string } }[];
    messages: { role: string }[];
    tools: { function: { name: string } }[];
    reward_details: Record<string, { reasons: string[] }>;
  };
}

describe('harness-gym rollout --out --record', () => {
  it('writes transcripts, and records that replay identically with the server rewards', async () => {
    // The first completion is refused by the environment (INVALID_ACTION, kept in the transcript), every
    // fifth is a final reply that answers nothing: rewards differ between episodes.
    const fake = await startFakeEndpoint((n) => (n === 1 ? 'invalid' : n % 5 === 0 ? 'wrong' : 'ok'));
    const dir = tempDir('hg-rollout-rec-');
    const out = join(dir, 'episodes.jsonl');
    const records = join(dir, 'records');
    try {
      const r = await cli([
        'rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm', '--seed', '5', '--episodes', '6', '--group-size', '2',
        '--variant', 'train', '--oracle-hints', '--out', out, '--record', records, '--json',
      ]);
      expect(r.status).toBe(0);
      const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row & { failed?: string });
      expect(rows.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
      const done = rows.filter((x) => x.failed === undefined);
      const failed = rows.length - done.length;
      expect(done.length).toBeGreaterThanOrEqual(3);
      // A failed episode (the environment refused its actions too often) is not recorded, and the line says so.
      expect(r.stderr).toBe(`harness-gym rollout: recorded ${done.length} episodes in ${records}${failed > 0 ? ` (not recorded: ${failed} the episode failed)` : ''}\n`);
      for (const row of done) {
        const t = row.transcript;
        expect(t.reset).toMatchObject({ episode_id: `rollout-${row.index}`, seed: row.seed, variant: 'train', group_id: `rollout-g${Math.floor(row.index / 2)}` });
        // The conversation the model saw: the reset messages, then for each accepted action its message and the
        // environment's answer (a refused action is kept among the actions, with its error, not in the conversation).
        expect(t.messages[0].role).toBe('system');
        expect(t.messages.filter((m) => m.role === 'assistant')).toHaveLength(t.actions.filter((a) => !('error' in a)).length);
        expect(t.tools.length).toBeGreaterThan(0);
        expect(Object.keys(t.reward_details).sort()).toEqual(['accuracy', 'effectiveness', 'hook_compliance', 'skill_selection', 'tool_rationality']);
      }
      expect(readdirSync(records).filter((f) => f.endsWith('.hgrec'))).toHaveLength(1);
      const [replay, inspect] = await Promise.all([cli(['replay', records, '--json']), cli(['inspect', records, '--json'])]);
      expect(JSON.parse(replay.stdout)).toEqual({ episodes: done.length, identical: done.length, diverged: 0 });
      const views = inspect.stdout.trim().split("\n").map((l) => JSON.parse(l) as { episode_id: string; reward: { total: number } });
      expect(views.map((v) => [v.episode_id, v.reward.total])).toEqual(done.map((x) => [`rollout-${x.index}`, x.reward]));
      expect(new Set(done.map((x) => x.reward)).size).toBeGreaterThan(1);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('checks --record and --harness before the run', async () => {
    const fake = await startFakeEndpoint();
    try {
      const [lone, bad] = await Promise.all([
        cli(['rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm', '--episodes', '1', '--harness', 'harness']),
        cli(['rollout', '--url', srv.url, '--base-url', fake.baseUrl, '--model', 'm', '--episodes', '1', '--record', tempDir('hg-r-'), '--harness', '/nonexistent/h']),
      ]);
      expect(expectFailure(lone, EXIT.usage, 'rollout')).toBe('harness-gym rollout: --harness is for --record DIR and --mix (the server plays in its own harness)');
      expect(expectFailure(bad, EXIT.files, 'rollout')).toMatch(/^harness-gym rollout: --harness \/nonexistent\/h is not a valid harness directory: /);
      expect(fake.requests).toBe(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
