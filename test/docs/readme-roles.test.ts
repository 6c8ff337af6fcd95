/**
 * README "Where to start, by role" is run as written (issue 41: stale text must fail CI). Every `sh` block
 * of the section is read from README.md and each line run in order, in a fresh directory holding links to
 * the repository's `examples/` and `calibration/`, with `npx harness-gym` as the built CLI:
 * - a line ending in `&`, and a `serve` / `policy` / `view` in the foreground, is a server: started, waited
 *   for (its "listening" / "at http" line), and stopped by PID once the block has run;
 * - every other line must exit 0, or the code its comment names (`exit 1 when ...`); `| less` is dropped
 *   (the reader is the test).
 * Nothing is skipped: a command the README gains is run too.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../cli/helpers.js';

/** A command line of the README, and the exit code its comment promises (`exit 1 when ...`; else 0). */
interface Line {
  text: string;
  exit: number;
}

/** The `sh` blocks of a README section, each as its lines (comments and blank lines dropped). */
function sectionBlocks(readme: string, heading: string): Line[][] {
  const start = readme.indexOf(`## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
      .map((l) => ({ text: l.replace(/\s+#.*$/, '').trim(), exit: Number(/#.*\bexit (\d+)/.exec(l)?.[1] ?? 0) })),
  );
}

/** The argv of a README line: `npx harness-gym ...` runs the built CLI. */
function argvOf(line: string): string[] {
  const words = line
    .replace(/\s*\|\s*less$/, '')
    .replace(/\s*&$/, '')
    .split(/\s+/);
  expect(words.slice(0, 2), line).toEqual(['npx', 'harness-gym']);
  return [process.execPath, CLI, ...words.slice(2)];
}

const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
});

/** Start a server line; resolves once it says where it listens. */
function startServer(argv: string[], cwd: string): Promise<ChildProcess> {
  const child = spawn(argv[0] as string, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${argv.slice(2).join(' ')} did not start: ${out}`)), 30_000);
    const onData = (b: Buffer): void => {
      out += b.toString('utf8');
      if (/listening on|at http:\/\//.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${argv.slice(2).join(' ')} exited (${code}): ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(child.pid as number, 'SIGTERM');
  });
}

const isServer = (line: string): boolean => line.endsWith('&') || /^npx harness-gym (serve|policy|view)\b/.test(line);

describe('README "Where to start, by role"', () => {
  const blocks = sectionBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'Where to start, by role');

  it('has a command block per role', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.flat().every((l) => l.text.startsWith('npx harness-gym '))).toBe(true);
  });

  it('every command runs as written', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hg-readme-'));
    symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
    symlinkSync(join(ROOT, 'calibration'), join(cwd, 'calibration'));
    for (const block of blocks) {
      const started: ChildProcess[] = [];
      for (const { text: line, exit } of block) {
        const argv = argvOf(line);
        if (isServer(line)) {
          started.push(await startServer(argv, cwd));
          continue;
        }
        // Asynchronously would not matter: the servers are other processes.
        const r = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: 'utf8', timeout: 120_000 });
        expect({ line, status: r.status, stderr: r.status === exit ? '' : r.stderr }).toEqual({ line, status: exit, stderr: '' });
      }
      for (const s of started) await stop(s);
    }
  }, 300_000);
});
