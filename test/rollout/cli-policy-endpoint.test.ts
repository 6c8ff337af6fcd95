/**
 * `harness-gym policy` + `harness-gym rollout` end to end on real sockets (issue 38): `node dist/cli/main.js
 * serve` and `node dist/cli/main.js policy` as child processes on free ports (port 0, the port read off
 * their start-up lines), `rollout` against them, the summary checked, both stopped by PID (SIGTERM, exit 0).
 * - the memorizer, replayed from the conversation alone, scores on the identity harness what the
 *   in-process `eval` says it scores (1.0) and breaks on augmented harnesses as it does in-process;
 * - the oracle via the oracle action sent with each request (`rollout --oracle-hints`, `serve
 *   --allow-oracle-hints`) scores 1.0 on augmented harnesses;
 * - without the hints, every oracle request is refused with a 400 naming the policy and what is missing,
 *   and the run fails as a run (exit 5) with that reason;
 * - `policy` fails as every command does: an unknown policy (exit 2), a port in use (exit 3).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cli, expectFailure } from '../cli/helpers.js';
import { evaluate } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import type { Policy } from '../../policies/index.js';

interface Proc {
  child: ChildProcess;
  out: string;
}
const procs: Proc[] = [];

/** Start `harness-gym ...args`; resolves with the URL its start-up line names. */
function start(args: string[]): Promise<{ proc: Proc; url: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { child, out: '' };
  procs.push(proc);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start in 20 s: ${proc.out}`)), 20_000);
    const onData = (b: Buffer): void => {
      proc.out += b.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+(?:\/v1)?)/.exec(proc.out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args[0]} exited early (${code}): ${proc.out}`)));
  });
}

/** Stop a child by its PID (SIGTERM); resolves with its exit code. */
function stop(proc: Proc): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.child.exitCode !== null) return resolve(proc.child.exitCode);
    proc.child.once('exit', (code) => resolve(code));
    process.kill(proc.child.pid as number, 'SIGTERM');
  });
}

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});

async function servers(policy: string, serveArgs: string[] = []): Promise<{ ws: string; base: string; serve: Proc; endpoint: Proc }> {
  const [s, p] = await Promise.all([
    start(['serve', '--port', '0', '--workers', '0', '--log-level', 'warn', ...serveArgs]),
    start(['policy', '--port', '0', '--policy', policy]),
  ]);
  return { ws: `${s.url.replace(/^http/, 'ws')}/v1/env`, base: p.url, serve: s.proc, endpoint: p.proc };
}

function inProcessMean(policy: string, episodes: number, variant: string): number {
  const s = evaluate({ policy: POLICIES.get(policy) as Policy, episodes, seed: 1, variant });
  return s.reward.mean;
}

describe('harness-gym policy with harness-gym rollout (real sockets, child processes)', () => {
  it('the memorizer, from the conversation alone: the in-process scores, identity and augmented', async () => {
    const { ws, base, serve, endpoint } = await servers('memorizer');
    for (const variant of ['identity', 'train']) {
      const r = await cli(['rollout', '--url', ws, '--base-url', base, '--model', 'memorizer', '--episodes', '48', '--seed', '1', '--variant', variant, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as { completed: number; failed: number; reward: { mean: number } };
      expect({ completed: s.completed, failed: s.failed }).toEqual({ completed: 48, failed: 0 });
      // eval rounds its mean to 4 digits, rollout to 6.
      expect(s.reward.mean).toBeCloseTo(inProcessMean('memorizer', 48, variant), 3);
    }
    expect(await stop(endpoint)).toBe(0);
    expect(await stop(serve)).toBe(0);
  }, 120_000);

  it('the oracle via the oracle action sent with each request: 1.0 on augmented harnesses', async () => {
    const { ws, base, serve, endpoint } = await servers('oracle', ['--allow-oracle-hints']);
    const r = await cli(['rollout', '--url', ws, '--base-url', base, '--model', 'oracle', '--episodes', '32', '--variant', 'train', '--oracle-hints', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { completed: number; failed: number; reward: { mean: number }; variant_families: Record<string, unknown> };
    expect({ completed: s.completed, failed: s.failed, mean: s.reward.mean }).toEqual({ completed: 32, failed: 0, mean: 1 });
    // Without the hints the oracle has nothing to play: every request refused, the run failed (exit 5).
    const without = await cli(['rollout', '--url', ws, '--base-url', base, '--model', 'oracle', '--episodes', '2', '--retries', '0', '--json']);
    const line = expectFailure(without, 5, 'rollout');
    expect(line).toContain('every episode failed (2 of 2)');
    expect(line).toContain('answered HTTP 400');
    expect(line).toContain("policy oracle needs the episode's oracle action");
    expect(await stop(endpoint)).toBe(0);
    expect(await stop(serve)).toBe(0);
  }, 120_000);

  it('rollout --rewards scores with a profile the server loaded; an unknown one fails the run', async () => {
    const { ws, base, serve, endpoint } = await servers('memorizer', ['--rewards-profile', 'examples/rewards/tool-use.yaml']);
    const r = await cli(['rollout', '--url', ws, '--base-url', base, '--model', 'memorizer', '--episodes', '8', '--rewards', 'tool_use', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { completed: number; components: Record<string, number> };
    expect(s.completed).toBe(8);
    expect(Object.keys(s.components).sort()).toEqual(['skill_selection', 'tool_rationality']);
    const bad = await cli(['rollout', '--url', ws, '--base-url', base, '--model', 'memorizer', '--episodes', '2', '--rewards', 'nope', '--json']);
    expect(expectFailure(bad, 5, 'rollout')).toContain('every episode failed (2 of 2)');
    expect(await stop(endpoint)).toBe(0);
    expect(await stop(serve)).toBe(0);
  }, 120_000);

  it('fails as every command does: an unknown policy (2), a port in use (3)', async () => {
    const unknown = await cli(['policy', '--policy', 'oracel', '--port', '0']);
    expect(expectFailure(unknown, 2, 'policy')).toMatch(/--policy must be one of oracle, memorizer, random, .* got "oracel" \(did you mean oracle\?\)$/);
    const first = await start(['policy', '--port', '0']);
    const port = /:(\d+)\/v1$/.exec(first.url)?.[1] as string;
    const busy = await cli(['policy', '--port', port]);
    expect(expectFailure(busy, 3, 'policy')).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
    expect(await stop(first.proc)).toBe(0);
  }, 60_000);
});
