/**
 * Running the built `harness-gym` command (dist/cli/main.js, as users run it; `npm test` builds it first)
 * from the tests, asynchronously so that servers started in the test process keep answering, and the
 * shape every failure must have: its exit code, and exactly one line on stderr without a stack.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** What a run of the command gave. */
export interface CliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `harness-gym ...args` to its end (killed after `timeoutMs`). */
export function cli(args: readonly string[], opts: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<CliRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.build.json; npm test does)`);
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...opts.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * A failure as the command must fail: exit `code`, and stderr exactly one line
 * `harness-gym <command>: ...` with no stack frame. Returns that line.
 */
export function expectFailure(r: CliRun, code: number, command: string): string {
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect({ status: r.status, lines }).toEqual({ status: code, lines: [expect.stringMatching(new RegExp(`^harness-gym${command ? ` ${command}` : ''}: `))] });
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

/** A fresh temporary directory. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
