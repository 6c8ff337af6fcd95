/**
 * Progress on long commands (issue 41: only `rollout` showed progress; `eval`, `audit`, `check` and
 * `variants sweep` were silent on a terminal): on a TTY, a bar on stderr with the count, the rate, the time left and, for scored
 * episodes, the running mean reward; nothing at all when piped or with --json. The TTY is a real
 * pseudo-terminal (util-linux `script`).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, cli } from './helpers.js';

/** Run the built CLI under a pseudo-terminal; the terminal's whole output, carriage returns as newlines. */
function onTty(args: string[]): string {
  const r = spawnSync('script', ['-qec', [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status).toBe(0);
  return r.stdout.replace(/\r/g, '\n');
}

describe('progress bars', () => {
  it('eval on a terminal shows count, running reward, rate and eta, and ends with the summary', () => {
    const out = onTty(['eval', '--episodes', '200', '--variant', 'train']);
    expect(out).toMatch(/eval \[[█░]+\] 200\/200 episodes \| reward 1\.000 \| [\d.]+\/s \| eta 0s/);
    expect(out).toContain('policy oracle on variant train: 200 episodes, 0 errors');
  });

  it('check, audit and variants sweep on a terminal count their units', () => {
    expect(onTty(['check', '--seeds', '4'])).toMatch(/check \[[█░]+\] 4\/4 seeds \| [\d.]+\/s \| eta 0s/);
    const audit = onTty(['audit', '--episodes', '4', '--presets', 'identity', '--strategies', 'refuse']);
    expect(audit).toMatch(/audit \[[█░]+\] 12\/12 episodes \| reward [\d.]+ \| [\d.]+\/s \| eta 0s/);
    // variants sweep: one bar over every cell (1 family x 1 intensity x 3 policies x 10 episodes).
    const sweep = onTty(['variants', 'sweep', '--episodes', '10', '--families', 'prompt', '--intensities', '0.5']);
    expect(sweep).toMatch(/sweep \[[█░]+\] 30\/30 episodes \| reward [\d.]+ \| [\d.]+\/s \| eta 0s/);
    expect(sweep).toContain('mean reward over 10 episodes from seed 1');
  });

  it('prints nothing extra with --json on a terminal, or when piped', async () => {
    const json = onTty(['eval', '--episodes', '50', '--json']);
    expect(json).not.toContain('eval [');
    expect(JSON.parse(json.trim()).episodes).toBe(50);
    const piped = await cli(['eval', '--episodes', '50']);
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
  });
});
