/**
 * `--harness DIR` on `serve`, `eval`, `task`, `check`, `variants`, `replay` and `inspect`: `serve` serves it (as the config key `harness` does); records made in a harness directory other than the
 * embedded one replay only with it. Without it `replay` says which harness the records need and exits 1;
 * with it they replay identically. A directory that is not a harness is a file error (exit 4) before any
 * work, in each command.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/errors.js';
import { CLI, ROOT, cli, expectFailure, tempDir } from './helpers.js';

/** The embedded harness's data files, copied, with another version (so another identity and hash). */
function copiedHarness(): string {
  const dir = join(tempDir('hg-cli-harness-'), 'harness');
  mkdirSync(dir);
  for (const f of ['harness.yaml', 'hooks.yaml', 'prompt.yaml', 'skills', 'tools']) cpSync(join(ROOT, 'harness', f), join(dir, f), { recursive: true });
  const manifest = join(dir, 'harness.yaml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^version: .*$/m, 'version: 9.9.9'));
  return dir;
}

let harness: string;
let records: string;
beforeAll(async () => {
  harness = copiedHarness();
  records = tempDir('hg-cli-harness-rec-');
  const r = await cli(['eval', '--harness', harness, '--episodes', '3', '--variant', 'train', '--record', records, '--json']);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ episodes: 3, reward: { mean: 1 } });
}, 60_000);

describe('--harness', () => {
  it('replay: without the harness the records were made in, exit 1 naming it; with it, identical', async () => {
    const [without, withIt, inspect] = await Promise.all([
      cli(['replay', records, '--json']),
      cli(['replay', records, '--harness', harness, '--json']),
      cli(['inspect', records, '--harness', harness, '--json']),
    ]);
    // The line says why: the records need another harness, and which.
    expect(expectFailure(without, EXIT.verdict, 'replay')).toMatch(
      /^harness-gym replay: 3 of 3 episodes diverged \(first: eval-1\); cannot rebuild the episode: the record was made with harness "live-commerce" 9\.9\.9 .*give that harness's directory with --harness DIR$/,
    );
    expect(JSON.parse(without.stdout)).toMatchObject({ episodes: 3, identical: 0, diverged: 3 });
    expect(withIt.status).toBe(0);
    expect(JSON.parse(withIt.stdout)).toEqual({ episodes: 3, identical: 3, diverged: 0 });
    expect(inspect.status).toBe(0);
    expect(inspect.stdout.trim().split('\n')).toHaveLength(3);
  }, 60_000);

  it('check, task and variants show play in the directory', async () => {
    const [check, task, show] = await Promise.all([
      cli(['check', '--harness', harness, '--seeds', '10', '--json']),
      cli(['task', '--harness', harness, '--seed', '2', '--json']),
      cli(['variants', 'show', '--harness', harness, '--seed', '3', '--json']),
    ]);
    expect([check.status, task.status, show.status]).toEqual([0, 0, 0]);
    expect(JSON.parse(check.stdout)).toEqual({
      determinism: { checked: 110, failures: 0 },
      task_preservation: { checked: 110, max_delta: 0 },
      round_trip: { checked: 110, failures: 0 },
      information: { checked: 110, failures: 0 },
    });
    expect(JSON.parse(task.stdout).observation.messages[0].content).toContain('AI数字人主播');
    expect(JSON.parse(show.stdout).applied.length).toBeGreaterThan(0);
  }, 60_000);

  it('serve --harness serves the directory: /v1/info names it', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--harness', harness, '--port', '0', '--workers', '0', '--log-level', 'silent'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out);
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const url = /listening on (http:\/\/[^ ]+)/.exec(line)?.[1];
      const info = (await (await fetch(`${url}/v1/info`)).json()) as { harness?: { name: string; version: string } };
      expect(info.harness).toMatchObject({ name: 'live-commerce', version: '9.9.9' });
      // eval --url plays its twin in the server's harness: without it, a clear refusal; with it, the figures.
      const ws = `${url?.replace(/^http/, 'ws')}/v1/env`;
      const [without, withIt] = await Promise.all([
        cli(['eval', '--url', ws, '--episodes', '2', '--json']),
        cli(['eval', '--url', ws, '--harness', harness, '--episodes', '2', '--json']),
      ]);
      expect(expectFailure(without, EXIT.run, 'eval')).toMatch(/serves harness "live-commerce" 9\.9\.9 .* give the server's harness directory with --harness DIR/);
      expect(withIt.status).toBe(0);
      expect(JSON.parse(withIt.stdout)).toMatchObject({ episodes: 2, reward: { mean: 1 } });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
  }, 60_000);

  it('a directory that is not a harness: exit 4, one line, in every command that takes the flag', async () => {
    const missing = join(tempDir('hg-cli-harness-none-'), 'none');
    const runs = await Promise.all([
      cli(['eval', '--harness', missing, '--episodes', '1']),
      cli(['replay', records, '--harness', missing]),
      cli(['inspect', records, '--harness', missing]),
      cli(['task', '--harness', missing]),
      cli(['check', '--harness', missing, '--seeds', '1']),
      cli(['variants', 'show', '--harness', missing]),
      cli(['variants', 'report', '--harness', missing, '--episodes', '1']),
      cli(['variants', 'sweep', '--harness', missing, '--episodes', '1']),
      cli(['variants', 'sizes', '--harness', missing, '--episodes', '1']),
      cli(['audit', '--harness', missing, '--episodes', '1']),
    ]);
    ['eval', 'replay', 'inspect', 'task', 'check', 'variants show', 'variants report', 'variants sweep', 'variants sizes', 'audit'].forEach((command, i) => {
      expect(expectFailure(runs[i], EXIT.files, command)).toBe(
        `harness-gym ${command}: --harness ${missing} is not a valid harness directory: ${missing}: not a directory (a harness is a directory with harness.yaml, skills/, tools/, prompt.yaml and hooks.yaml)`,
      );
    });
  }, 60_000);
});
