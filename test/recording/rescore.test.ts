import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll } from 'vitest';
import { DEFAULT_PROFILE } from '../../rewards/index.js';
import { readRecordFile, rescore } from '../../recording/index.js';
import { defaultRegistry, loadProfileFile } from '../../rewards/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { recordInProcess, tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
let dir: string;
let records: LoadedRecord[];

beforeAll(async () => {
  dir = tempDir('hg-rec-rescore-');
  // The random policy gives every component a spread of values (and some ties).
  records = await recordInProcess(dir, { policy: 'random', variant: 'train', episodes: 40, seed: 500 });
  records = records.concat(await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 10, seed: 900 }));
}, 60_000);

/** The default profile with one module's weight set to 0. */
function zeroed(name: string): unknown {
  return {
    ...DEFAULT_PROFILE,
    name: `no-${name}`,
    modules: DEFAULT_PROFILE.modules.map((m) => (m.name === name ? { ...m, weight: 0 } : { ...m })),
  };
}

describe('rescore', () => {
  it('with the recorded profile changes nothing', () => {
    const { report } = rescore(records, DEFAULT_PROFILE);
    expect(report.overall.old_mean).toBe(report.overall.new_mean);
    expect(report.overall.changed).toBe(0);
    expect(report.overall.changed_rank).toBe(0);
    for (const f of Object.values(report.components)) {
      expect([f.new_mean, f.new_weight, f.changed_rank]).toEqual([f.old_mean, f.old_weight, 0]);
    }
  });

  it('zeroing one weight changes exactly that component\u2019s figures', () => {
    // tool_rationality, not effectiveness: every random-policy episode here scores accuracy and effectiveness
    // 0 (the 0.02 floor holds its composite) and every oracle episode 1 throughout, so zeroing effectiveness
    // moves no composite. Zeroing tool_rationality takes the floored episodes whose only credit was a tool
    // score down to 0.
    const file = join(dir, 'no-tool_rationality.json');
    writeFileSync(file, JSON.stringify(zeroed('tool_rationality')));
    const profile = loadProfileFile(file, defaultRegistry());
    expect(profile.ok).toBe(true);
    if (!profile.ok) return;
    const { report } = rescore(records, profile.profile);
    const names = Object.keys(report.components);
    expect(names).toEqual(DEFAULT_PROFILE.modules.map((m) => m.name));
    for (const name of names) {
      const f = report.components[name];
      // Raw module values never change with weights.
      expect(f.new_value_mean).toBe(f.old_value_mean);
      if (name === 'tool_rationality') {
        expect(f.old_weight).toBe(0.15); // the default profile's tool_rationality weight
        expect(f.new_weight).toBe(0);
        expect(f.old_mean).toBeGreaterThan(0);
        expect(f.new_mean).toBe(0);
        expect(f.changed_rank).toBeGreaterThan(0);
      } else {
        expect([f.new_weight, f.new_mean, f.changed_rank]).toEqual([f.old_weight, f.old_mean, 0]);
      }
    }
    expect(report.overall.new_mean).not.toBe(report.overall.old_mean);
    expect(report.overall.changed).toBeGreaterThan(0);
  });

  it('`harness-gym rescore DIR --rewards FILE --json --out FILE` prints the report and writes re-scored records', () => {
    const yamlFile = join(dir, 'no-accuracy.yaml');
    const p = zeroed('accuracy') as { name: string; modules: { name: string; weight: number }[]; gates: unknown[] };
    // A gate on a zero-weight module is still valid; drop it anyway so the composite is a plain mean.
    const yaml = [`name: ${p.name}`, 'modules:', ...p.modules.map((m) => `  - {name: ${m.name}, weight: ${m.weight}}`), 'gates: []'].join(
      '\n',
    );
    writeFileSync(yamlFile, yaml);
    const out = join(tempDir('hg-rec-out-'), 'rescored.hgrec');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'cli/main.ts', 'rescore', dir, '--rewards', yamlFile, '--json', '--out', out],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as {
      profile: string;
      episodes: number;
      components: Record<string, { new_mean: number; new_weight: number }>;
    };
    expect([report.profile, report.episodes]).toEqual(['no-accuracy', 50]);
    expect(report.components.accuracy.new_mean).toBe(0);
    const written = readRecordFile(out);
    expect(written.warnings).toEqual([]);
    expect(written.records.length).toBe(50);
    expect(
      written.records.every((x) => x.record.reward_profile === 'no-accuracy' && x.record.reward.components.accuracy !== undefined),
    ).toBe(true);

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'x', modules: [{ name: 'nope', weight: 1 }], gates: [] }));
    const rb = spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'rescore', dir, '--rewards', bad], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(rb.status).toBe(4); // an invalid profile file is a file error (cli/errors.ts EXIT.files), not usage
    expect(rb.stderr).toContain('modules[0].name: unknown reward module "nope"');
  }, 120_000);
});
