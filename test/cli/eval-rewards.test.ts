/**
 * `eval --rewards FILE|NAME` and `--reward-modules DIR` (issue 41: a command-line user could not score a
 * run with their own profile): the file's profile scores every episode, exactly as `rescore` with the
 * same profile scores the run's records; a name in-process is only `default`; a bad file is one line.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers.js';

const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

describe('eval --rewards', () => {
  it('scores with a profile file and its modules, as rescore does', () => {
    const dir = tempDir('hg-eval-rewards-');
    const flags = ['--rewards', 'examples/rewards/concise.yaml', '--reward-modules', 'examples/rewards/modules'];
    const ev = run(['eval', '--policy', 'oracle', '--episodes', '30', '--seed', '4', ...flags, '--record', dir, '--json']);
    expect(ev.status).toBe(0);
    const summary = JSON.parse(ev.stdout) as { reward: { mean: number }; components: Record<string, number> };
    expect(Object.keys(summary.components).sort()).toEqual(['accuracy', 'brevity', 'hook_compliance']);
    // Rescoring the same records with the same profile changes nothing.
    const re = run(['rescore', dir, ...flags, '--json']);
    expect(re.status).toBe(0);
    const report = JSON.parse(re.stdout) as { profile: string; episodes: number; overall: { old_mean: number; new_mean: number; changed: number } };
    expect([report.profile, report.episodes, report.overall.changed]).toEqual(['concise', 30, 0]);
    expect(report.overall.new_mean).toBe(report.overall.old_mean);
    expect(report.overall.new_mean).toBeCloseTo(summary.reward.mean, 4);
    // The profile's own module moved the mean below the oracle's 1.0 under the default profile.
    expect(summary.components.brevity).toBeLessThan(1);
  });

  it('a name in-process is only default; a profile file with an unknown module is one line, exit 4', () => {
    const name = run(['eval', '--episodes', '2', '--rewards', 'concise']);
    expect([name.status, name.stderr]).toEqual([2, 'harness-gym eval: --rewards concise: no such profile in-process (only "default"); give a profile file (JSON or YAML)\n']);
    expect(run(['eval', '--episodes', '2', '--rewards', 'default', '--json']).status).toBe(0);
    const bad = run(['eval', '--episodes', '2', '--rewards', 'examples/rewards/concise.yaml']);
    expect(bad.status).toBe(4);
    expect(bad.stderr).toMatch(/^harness-gym eval: --rewards examples\/rewards\/concise\.yaml: modules\[\d\]\.name: unknown reward module "brevity" \(known: [^)]+\)\n$/);
  });
});
