/**
 * The Python client (clients/python) against a real server: Debian's python3 runs the package's unittest
 * suite and its examples, and the oracle played through the server's hint channel must reach exactly the
 * in-process TypeScript oracle's rewards for the same seeds. The suite's sharding tests
 * (clients/python/tests/test_sharding.py) start three more servers themselves, as child processes of the
 * built CLI (`node dist/cli/main.js serve`, named by HARNESS_GYM_NODE and HARNESS_GYM_CLI), and kill them
 * by PID.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, parseServerConfig } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { playEpisode } from '../../eval/index.js';
import type { EvalOptions } from '../../eval/index.js';

const PYTHON = '/usr/bin/python3';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = `${ROOT}dist/cli/main.js`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run python asynchronously: the server lives in this process, so its event loop must keep turning. */
function python(args: string[], env: Record<string, string> = {}, timeoutMs = 240_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      args,
      { cwd: ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, timeout: timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** One oracle case: what the Python side replays through the hint channel. */
interface Case {
  name: string;
  variant: string;
  options: { locale?: 'zh-CN' | 'en'; parser?: string; faults?: number };
  seed: number;
  rewards: number[];
  components: Record<string, number>[];
  outcomes: string[];
}

/** The in-process TypeScript oracle's per-seed results. */
function oracleCase(name: string, variant: string, options: Case['options'], seed: number, episodes: number): Case {
  const env = defaultEnvConfig();
  const opts: EvalOptions = { policy: oraclePolicy, episodes, seed, variant, ...options };
  const records = Array.from({ length: episodes }, (_, i) => playEpisode(env, opts, seed + i));
  return {
    name,
    variant,
    options,
    seed,
    rewards: records.map((r) => r.reward),
    components: records.map((r) => r.components),
    outcomes: records.map((r) => r.outcome),
  };
}

/** `RESULT <tag> <json>` lines printed by the Python tests and examples. */
function results(stdout: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const line of stdout.split('\n')) {
    const m = /^RESULT (\S+) (.*)$/.exec(line);
    if (m) out.set(m[1], JSON.parse(m[2]));
  }
  return out;
}

let server: RunningServer;
let url: string;
let cases: Case[];

beforeAll(async () => {
  // Fail loudly, never skip: CI installs the modules in .ci/run.
  const probe = await python(['-c', 'import websockets, msgpack']);
  if (probe.code !== 0) {
    throw new Error(
      `${PYTHON} cannot import websockets and msgpack (${probe.stderr.trim()}): ` +
        'run `apt-get update && apt-get install -y python3-websockets python3-msgpack`',
    );
  }
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing (the sharding tests serve with it): build first (npx tsc -p tsconfig.build.json; npm test does)`);
  const parsed = parseServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent', allow_oracle_hints: true });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  server = await startServer(parsed.config);
  url = `ws://127.0.0.1:${new URL(server.url).port}/v1/env`;
  cases = [
    oracleCase('train-zh', 'train', { locale: 'zh-CN' }, 1, 64),
    oracleCase('eval-en-faults', 'eval', { locale: 'en', faults: 0.3 }, 100, 24),
    oracleCase('identity-hermes', 'identity', { parser: 'hermes' }, 200, 16),
  ];
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('Python client (clients/python) against a real server', () => {
  it('the expected cases are real: the oracle finishes every episode, faults make it retry', () => {
    for (const c of cases)
      expect(
        c.rewards.every((r) => r >= 0 && r <= 1),
        c.name,
      ).toBe(true);
    expect(cases[0].rewards.length).toBe(64);
    expect(new Set(cases.flatMap((c) => c.outcomes)).size).toBeGreaterThan(1);
  });

  it('the unittest suite passes, and its oracle runs equal the in-process TypeScript oracle', async () => {
    const run = await python(['-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-v'], {
      HARNESS_GYM_URL: url,
      HARNESS_GYM_EXPECTED: JSON.stringify({ cases }),
      HARNESS_GYM_NODE: process.execPath,
      HARNESS_GYM_CLI: CLI,
    });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toMatch(/^OK\b/m);
    const ran = /^Ran (\d+) tests?/m.exec(run.stderr);
    expect(Number(ran?.[1])).toBeGreaterThanOrEqual(20);
    expect(run.stderr).not.toMatch(/skipped/);
    // The Python side's own numbers, checked here too (a second, independent comparison).
    const got = results(run.stdout);
    for (const c of cases) {
      for (const enc of ['msgpack', 'json']) expect(got.get(`vector/${c.name}/${enc}`), `${c.name} ${enc}`).toEqual(c.rewards);
      expect(got.get(`blocking/${c.name}`)).toEqual(c.rewards.slice(0, 8));
    }
    // Three replicas behind the sharding client: the same rewards as one server, every replica used, and
    // a replica killed mid-run lost some episodes while the others finished.
    const c = cases[0];
    const placement = got.get('sharding/placement') as { counts: number[]; rewards: number[] };
    expect(placement.rewards).toEqual(c.rewards);
    expect(placement.counts.length).toBe(3);
    expect(placement.counts.every((n) => n > 0)).toBe(true);
    expect(got.get('sharding/vector')).toEqual(c.rewards.slice(0, 8).map((r) => [r, r, r, r]));
    const kill = got.get('sharding/kill') as { lost: number; finished: number; rewards_match: boolean };
    expect(kill.lost).toBeGreaterThan(0);
    expect(kill.finished).toBeGreaterThan(0);
    expect(kill.lost + kill.finished).toBe(c.rewards.length);
    expect(kill.rewards_match).toBe(true);
  }, 300_000);

  it('examples/oracle_hints.py: 64 episodes in one batch, the mean and every reward equal the TypeScript oracle', async () => {
    const run = await python([
      'clients/python/examples/oracle_hints.py',
      '--url',
      url,
      '--episodes',
      '64',
      '--seed',
      '1',
      '--variant',
      'train',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim()) as { episodes: number; mean_reward: number; rewards: number[]; seeds: number[] };
    const c = cases[0];
    expect(summary.episodes).toBe(64);
    expect(summary.seeds).toEqual(c.rewards.map((_, i) => c.seed + i));
    expect(summary.rewards).toEqual(c.rewards);
    expect(summary.mean_reward).toBe(Math.round((c.rewards.reduce((a, b) => a + b, 0) / 64) * 1e4) / 1e4);
  }, 120_000);

  it('examples/grpo_loop.py runs: exactly N groups per batch, advantages sum to zero per group, the oracle-only stub scores 1', async () => {
    const mixed = await python([
      'clients/python/examples/grpo_loop.py',
      '--url',
      url,
      '--iterations',
      '2',
      '--num-envs',
      '16',
      '--group-size',
      '4',
      '--groups-per-batch',
      '4',
      '--p-oracle',
      '0.7',
    ]);
    expect(mixed.code, mixed.stderr).toBe(0);
    const lines = mixed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number | boolean>);
    expect(lines.length).toBe(3);
    for (const l of lines.slice(0, 2)) {
      // Exactly --groups-per-batch groups per batch: groups that finish together past it wait for the next.
      expect(l.groups).toBe(4);
      expect(l.episodes).toBe(16);
      expect(l.max_abs_group_advantage_sum).toBeLessThan(1e-6);
    }
    // These seeds do finish more groups on one step than the batch had room for (else the line above
    // proves nothing about the surplus; if the server's tasks change, pick a seed that does).
    expect(lines.slice(0, 2).some((l) => (l.groups_carried_over as number) > 0)).toBe(true);
    expect(lines[2]).toMatchObject({ summary: true, iterations: 2 });
    // With the stub's random branch the reward falls below the oracle's; with the oracle alone it is 1.
    expect(lines[2].mean_reward).toBeLessThan(1);
    const oracle = await python([
      'clients/python/examples/grpo_loop.py',
      '--url',
      url,
      '--iterations',
      '1',
      '--num-envs',
      '8',
      '--group-size',
      '4',
      '--groups-per-batch',
      '2',
      '--p-oracle',
      '1',
    ]);
    expect(oracle.code, oracle.stderr).toBe(0);
    const last = JSON.parse(oracle.stdout.trim().split('\n').at(-1) as string) as { mean_reward: number };
    expect(last.mean_reward).toBe(1);
  }, 120_000);

  it('the examples run on the quick-start server: grpo_loop.py with harness-gym policy as the model; oracle hints refused in one line', async () => {
    // A plain server (no oracle hints) and `harness-gym policy --policy memorizer` as a child process.
    const parsed = parseServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent' });
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const plain = await startServer(parsed.config);
    const plainUrl = `ws://127.0.0.1:${new URL(plain.url).port}/v1/env`;
    const child = spawn(process.execPath, [CLI, 'policy', '--port', '0', '--policy', 'memorizer'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`policy did not start: ${out}`)), 20_000);
        const onData = (b: Buffer): void => {
          out += b.toString('utf8');
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
      });
      const loop = (variant: string) =>
        python([
          'clients/python/examples/grpo_loop.py',
          '--url', plainUrl,
          '--base-url', base,
          '--model', 'memorizer',
          '--variant', variant,
          '--iterations', '1',
          '--num-envs', '16',
          '--group-size', '4',
          '--groups-per-batch', '4',
        ]);
      const [identity, train] = await Promise.all([loop('identity'), loop('train')]);
      for (const r of [identity, train]) expect(r.code, r.stderr).toBe(0);
      const last = (r: Run) => JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as { mean_reward: number; episodes: number };
      // The memorizer is the base harness's model: at home on identity, lost on augmented harnesses.
      expect(last(identity)).toMatchObject({ mean_reward: 1, episodes: 16 });
      expect(last(train).mean_reward).toBeLessThan(0.2);
      // What needs oracle hints says so in one line on a plain server, exit 2, no traceback.
      const hints = await python(['clients/python/examples/oracle_hints.py', '--url', plainUrl, '--episodes', '4']);
      expect(hints.code).toBe(2);
      expect(hints.stderr).toBe(
        'oracle_hints.py: this server does not allow oracle hints: start one with `npx harness-gym serve --allow-oracle-hints` (a testing aid, never for training), or play a model instead: examples/grpo_loop.py --base-url\n',
      );
      const stub = await python(['clients/python/examples/grpo_loop.py', '--url', plainUrl, '--p-oracle', '0.5', '--iterations', '1']);
      expect(stub.code).toBe(2);
      expect(stub.stderr).toMatch(/^grpo_loop\.py: this server does not allow oracle hints: run with --p-oracle 0 \(the default\) or --base-url, or start the server with --allow-oracle-hints\n$/);
    } finally {
      child.kill('SIGTERM');
      await plain.close();
    }
  }, 120_000);
});
