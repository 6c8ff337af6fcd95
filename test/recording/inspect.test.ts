import { describe, it, expect, beforeAll } from 'vitest';
import { formatEpisodeView, inspectRecord } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { recordInProcess, tempDir } from './helpers.js';

let records: LoadedRecord[];

beforeAll(async () => {
  records = await recordInProcess(tempDir('hg-rec-inspect-'), { policy: 'oracle', variant: 'train', episodes: 12, seed: 1 });
}, 60_000);

describe('inspect', () => {
  it('shows the viewer message, the variant, every turn with surface and canonical names, the reply and the reward reasons', () => {
    const withCalls = records.find((r) => r.record.trace.turns.some((t) => t.calls.some((c) => c.surface_name !== c.name)))!;
    const v = inspectRecord(withCalls.record);
    expect(v.rebuild_error).toBeNull();
    expect(v.viewer_message).toBe(withCalls.record.task.messages.join('\n'));
    expect(v.variant.id).toBe(withCalls.record.variant_id);
    expect(v.variant.label).toBe('train');
    expect(v.variant.applied.length).toBeGreaterThan(0);
    expect(v.tools.some((t) => t.canonical === 'get_product')).toBe(true);
    expect(v.turns.length).toBe(withCalls.record.trace.turns.length);
    const renamed = v.turns.flatMap((t) => t.calls).find((c) => c.surface_name !== c.canonical_name)!;
    expect(renamed.result).not.toBeNull();
    expect(renamed.surface_arguments).not.toBeNull();
    expect(v.final_reply).toBe(withCalls.record.trace.final_reply);
    expect(v.reward.components.map((c) => c.name)).toEqual(Object.keys(withCalls.record.reward.components));
    expect(v.reward.components.every((c) => c.reasons.length > 0)).toBe(true);

    const text = formatEpisodeView(v);
    expect(text).toContain(v.viewer_message);
    expect(text).toContain(`variant ${v.variant.id}`);
    expect(text).toContain(`${renamed.surface_name} -> ${renamed.canonical_name}`);
    expect(text).toContain(`--- final reply (${v.outcome}): ${v.final_reply}`);
    for (const c of v.reward.components) for (const r of c.reasons) expect(text).toContain(`  - ${r}`);
  });

  it('shows hook feedback when a hook objected', async () => {
    const more = await recordInProcess(tempDir('hg-rec-inspect-'), { policy: 'random', variant: 'identity', episodes: 30, seed: 50 });
    const hooked = more.find((r) => r.record.summary.hooks_violated.length > 0)!;
    expect(hooked).toBeDefined();
    const v = inspectRecord(hooked.record);
    const turn = v.turns.find((t) => t.hook_violations.length > 0)!;
    expect(turn.hook_violations[0].hook).toBe(hooked.record.trace.turns[turn.index - 1].hook_violations[0].hook);
    expect(formatEpisodeView(v)).toContain(`hook ${turn.hook_violations[0].hook} ${turn.hook_violations[0].code}`);
  }, 60_000);
});

describe('`harness-gym eval --record` then `inspect`', () => {
  it('records in-process episodes and prints one by id', async () => {
    const { spawnSync } = await import('node:child_process');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '..', '..');
    const dir = tempDir('hg-rec-cli-');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    const ev = run(['eval', '--episodes', '6', '--seed', '20', '--variant', 'eval', '--record', dir, '--record-sample', '0.5', '--json']);
    expect(ev.status).toBe(0);
    const { shouldRecord, readRecords } = await import('../../recording/index.js');
    const seeds = [20, 21, 22, 23, 24, 25].filter((s) => shouldRecord(s, 0.5));
    expect(ev.stderr).toContain(`recorded ${seeds.length} episodes`);
    const read = readRecords(dir);
    expect(read.ok && read.result.records.map((r) => r.record.episode_id)).toEqual(seeds.map((s) => `eval-${s}`));
    const ins = run(['inspect', dir, '--episode', `eval-${seeds[0]}`]);
    expect(ins.status).toBe(0);
    expect(ins.stdout).toContain(`=== episode eval-${seeds[0]}  seed ${seeds[0]}`);
    expect(ins.stdout).toContain('--- reward ');
    expect(run(['inspect', dir, '--episode', 'nope']).status).toBe(1);
  }, 120_000);
});
