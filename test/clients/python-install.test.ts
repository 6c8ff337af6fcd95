/**
 * The offline install that clients/python/README.md ("Install") documents, run as written: the test takes
 * the `sh` block after the README's marker comment and runs it with bash (`-euo pipefail`, so every line
 * must succeed) in a copy of clients/python, with a fresh HOME (the venv goes to ~/.venvs), no pip
 * configuration and Debian's default PATH, so nothing of this machine's set-up (pip find-links, pyenv,
 * PYTHONPATH) can make it pass. The block's last line plays an example against a server started here.
 * If the documented commands stop working, this fails; if someone edits them, this runs the new ones.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, parseServerConfig } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = join(ROOT, 'clients/python/README.md');
const MARKER = '<!-- test/clients/python-install.test.ts runs the next block as written';
/** What the README's apt-get line installs; named in the failure message. */
const APT = 'apt-get install -y python3-venv python3-setuptools python3-wheel python3-websockets python3-msgpack';
/** Debian's default PATH for a login shell: no pyenv shims, no node_modules/.bin. */
const DEBIAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a program asynchronously (the server lives in this process: its event loop must keep turning). */
function run(file: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The fenced `sh` block right after the marker comment. */
function documentedBlock(markdown: string): string {
  const at = markdown.indexOf(MARKER);
  if (at < 0) throw new Error(`clients/python/README.md has lost its marker "${MARKER}"`);
  const m = /^```sh\n([\s\S]*?)^```$/m.exec(markdown.slice(at));
  if (!m) throw new Error('no ```sh block after the marker in clients/python/README.md');
  return m[1];
}

/** The example's one-line JSON summary. */
interface Summary {
  episodes: number;
  seeds: number[];
  rewards: number[];
  outcomes: string[];
  mean_reward: number;
}

let server: RunningServer;
let url: string;
let work: string;

beforeAll(async () => {
  const parsed = parseServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent', allow_oracle_hints: true });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  server = await startServer(parsed.config);
  url = `ws://127.0.0.1:${new URL(server.url).port}/v1/env`;
  work = mkdtempSync(join(tmpdir(), 'harness-gym-py-install-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('clients/python/README.md "Install": the offline venv install on Debian packages', () => {
  it('runs as written: venv, pip --no-index, import from outside the checkout, an example against a server', async () => {
    const block = documentedBlock(readFileSync(README, 'utf8'));
    // The commands the issue asked for are the ones documented (and so the ones run below).
    expect(block).toMatch(/^\/usr\/bin\/python3 -m venv --system-site-packages (\S+)$/m);
    expect(block).toMatch(/^pip install --no-index --no-build-isolation \.\/clients\/python$/m);
    expect(block).toMatch(/^\(cd \/ && python -c 'import harness_gym/m);
    expect(block).toMatch(/^python clients\/python\/examples\/\S+\.py/m);

    // A checkout of the client alone: the build writes build/ and *.egg-info into it, never into ours.
    const checkout = join(work, 'checkout');
    const home = join(work, 'home');
    const outside = join(work, 'outside');
    for (const dir of [checkout, home, outside]) mkdirSync(dir, { recursive: true });
    cpSync(join(ROOT, 'clients/python'), join(checkout, 'clients/python'), {
      recursive: true,
      filter: (src) => !['build', '__pycache__'].includes(basename(src)) && !src.endsWith('.egg-info'),
    });
    const script = join(work, 'install.sh');
    writeFileSync(script, block);
    // Only what a user's shell would have, plus the example's server URL; PIP_CONFIG_FILE=/dev/null
    // makes pip ignore this machine's pip.conf (a stock system has none).
    const env = { PATH: DEBIAN_PATH, HOME: home, LANG: 'C.UTF-8', PIP_CONFIG_FILE: '/dev/null', HARNESS_GYM_URL: url };

    const install = await run('/bin/bash', ['-euo', 'pipefail', script], checkout, env);
    expect(install.code, `the documented block failed (Debian packages needed: ${APT})\n${install.stdout}\n${install.stderr}`).toBe(0);
    const lines = install.stdout.trim().split('\n');

    // The import ran from / and found the installed package in the venv under the fresh HOME.
    const venv = join(home, '.venvs/harness-gym');
    const imported = lines.find((l) => l.endsWith('/harness_gym/__init__.py'));
    const site = new RegExp(`^${venv.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/lib/python3\\.\\d+/site-packages/harness_gym/__init__\\.py$`);
    expect(imported, install.stdout).toMatch(site);

    // The example's summary: 8 oracle episodes, seeds 1..8, every one finished and scored.
    const summary = JSON.parse(lines.at(-1) as string) as Summary;
    expect(summary.episodes).toBe(8);
    expect(summary.seeds).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(summary.rewards).toHaveLength(8);
    expect(summary.outcomes).toHaveLength(8);
    for (const r of summary.rewards) expect(r >= 0 && r <= 1, String(r)).toBe(true);
    expect(summary.mean_reward).toBe(Math.round((summary.rewards.reduce((a, b) => a + b, 0) / 8) * 1e4) / 1e4);

    // The same example copied out of the checkout: it can only import the installed package now (the
    // in-place fallback looks next to the script), and the venv's python gives the same numbers.
    cpSync(join(checkout, 'clients/python/examples/oracle_hints.py'), join(outside, 'oracle_hints.py'));
    const alone = await run(join(venv, 'bin/python'), [join(outside, 'oracle_hints.py'), '--episodes', '8'], outside, env);
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout.trim())).toEqual(summary);
    const noVenv = await run('/usr/bin/python3', [join(outside, 'oracle_hints.py'), '--episodes', '8'], outside, env);
    expect(noVenv.code, 'without the venv the copied example must not find harness_gym').not.toBe(0);
    expect(noVenv.stderr).toMatch(/ModuleNotFoundError: No module named 'harness_gym'/);
  }, 240_000);
});
