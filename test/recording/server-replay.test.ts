import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll } from 'vitest';
import { evaluateRemote } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import { defaultServerConfig, startServer } from '../../server/index.js';
import { RECORD_FORMAT, RECORD_VERSION, packValue, readRecords, replayRecord, replayRecords, unpackValue } from '../../recording/index.js';
import type { EpisodeRecordV1, LoadedRecord } from '../../recording/index.js';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** 200 episodes: every policy on every variant preset (9 runs, 22 or 23 episodes each). */
const RUNS: { policy: string; variant: string; episodes: number }[] = [];
for (const policy of ['oracle', 'memorizer', 'random']) {
  for (const variant of ['identity', 'train', 'eval']) RUNS.push({ policy, variant, episodes: RUNS.length < 2 ? 23 : 22 });
}

let dir: string;
let records: LoadedRecord[];

beforeAll(async () => {
  dir = tempDir('hg-rec-server-');
  const server = await startServer(defaultServerConfig({ port: 0, log_level: 'silent', record: { dir } }));
  const ws = server.url.replace(/^http/, 'ws') + '/v1/env';
  try {
    let seed = 1000;
    for (const run of RUNS) {
      await evaluateRemote({ url: ws, policy: POLICIES.get(run.policy)!, episodes: run.episodes, seed, variant: run.variant, batch: 16 });
      seed += 1000;
    }
  } finally {
    // Shutdown flushes every session's writer.
    await server.close();
  }
  const r = readRecords(dir);
  if (!r.ok) throw new Error(r.message);
  expect(r.result.warnings).toEqual([]);
  records = r.result.records;
}, 120_000);

/** Write records (one header first) to a new file. */
function writeFile(path: string, recs: EpisodeRecordV1[]): void {
  const header = { type: 'header', format: RECORD_FORMAT, version: RECORD_VERSION, server_version: '0.0.0-test', created_by: 'test' };
  writeFileSync(path, Buffer.concat([packValue(header), ...recs.map((r) => packValue(r))]));
}

/** A deep copy through MessagePack (what a file round trip does). */
function copy(rec: EpisodeRecordV1): EpisodeRecordV1 {
  return unpackValue(packValue(rec)) as EpisodeRecordV1;
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('recording through the server, then replay', () => {
  it('records all 200 episodes with the resolved variant and variant seed', () => {
    expect(records.length).toBe(200);
    const labels = new Map<string, number>();
    for (const r of records) labels.set(r.record.summary.variant_label, (labels.get(r.record.summary.variant_label) ?? 0) + 1);
    expect([...labels.entries()].sort()).toEqual([
      ['eval', 66],
      ['identity', 67],
      ['train', 67],
    ]);
    for (const r of records) {
      expect(r.record.created_by).toBe('serve');
      expect(r.record.variant_seed).toBe(r.record.seed);
      expect(r.record.reset.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    // Item errors of the random policy are taped too (the episode did not change on them).
    expect(records.some((r) => r.record.steps.some((s) => s.error !== undefined))).toBe(
      records.some((r) => r.record.steps.length !== r.record.summary.turns),
    );
  });

  it('replays every recorded episode bit-exactly (in-process)', () => {
    const summary = replayRecords(records);
    expect({ episodes: summary.episodes, identical: summary.identical, diverged: summary.diverged }).toEqual({
      episodes: 200,
      identical: 200,
      diverged: 0,
    });
  }, 120_000);

  it('`harness-gym replay DIR --json` prints the summary and exits 0', () => {
    const r = cli(['replay', dir, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ episodes: 200, identical: 200, diverged: 0 });
  }, 120_000);

  it('a tampered action diverges at that step with a field diff; the CLI exits 1', () => {
    // An oracle episode (OpenAI-style actions): change one character of its final reply.
    const target = records.find(
      (r) => r.record.summary.outcome === 'accepted' && r.record.steps.length >= 2 && r.record.steps.every((s) => !s.error),
    )!;
    const rec = copy(target.record);
    const last = rec.steps.length - 1;
    const message = (rec.steps[last].action as { message: { content: unknown } }).message;
    expect(typeof message.content).toBe('string');
    message.content = `${String(message.content)}!`;
    const d = replayRecord(rec).divergence;
    expect(d?.step).toBe(rec.steps.length);
    expect(d?.kind).toBe('output');
    expect(d?.diffs.length).toBeGreaterThan(0);
    expect(d?.diffs.some((f) => f.path.startsWith('observation') || f.path.startsWith('info') || f.path === 'reward')).toBe(true);

    const file = join(tempDir('hg-rec-tamper-'), 'tampered.hgrec');
    writeFile(file, [copy(records[0].record), rec]);
    const r = cli(['replay', file, '--json']);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as {
      episodes: number;
      identical: number;
      diverged: number;
      divergences: { episode_id: string; step: number; diffs: { path: string }[] }[];
    };
    expect([out.episodes, out.identical, out.diverged]).toEqual([2, 1, 1]);
    expect(out.divergences[0].episode_id).toBe(rec.episode_id);
    expect(out.divergences[0].step).toBe(rec.steps.length);
    expect(out.divergences[0].diffs.length).toBeGreaterThan(0);
    const text = cli(['replay', file]);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain('DIVERGED at step');
    expect(text.stdout).toContain('recorded: ');
    expect(text.stdout).toContain('replayed: ');
  }, 120_000);

  it('a tampered hash or reward is reported', () => {
    const rec = copy(records[5].record);
    rec.steps[0].hash = '0'.repeat(64);
    expect(replayRecord(rec).divergence).toEqual({
      step: 1,
      kind: 'output',
      message: 'step 1: the output differs from the recording',
      diffs: [{ path: '(sha256)', recorded: '0'.repeat(64), replayed: records[5].record.steps[0].hash }],
    });
    const rec2 = copy(records[6].record);
    rec2.reward.reward = rec2.reward.reward === 1 ? 0.5 : 1;
    const d2 = replayRecord(rec2).divergence;
    expect(d2?.kind).toBe('reward');
    expect(d2?.diffs).toEqual([{ path: 'reward.reward', recorded: rec2.reward.reward, replayed: records[6].record.reward.reward }]);
  });
});
