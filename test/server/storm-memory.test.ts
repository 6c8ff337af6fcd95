/**
 * Memory after a disconnect storm, with worker threads (issue 11). A `harness-gym serve` child process
 * (2 workers, resume grace 1 s) takes storms of connections that hello, reset 1-3 `train` episodes and
 * drop without a close frame. Checked: every episode is freed once the grace ends; the process's RSS comes
 * back near its pre-storm baseline (empty workers whose heap grew are replaced:
 * `harness_gym_worker_recycles_total`); and repeated storms do not grow it. Bounded: three storms of 300
 * connections, on loopback.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, afterEach } from 'vitest';
import WebSocket from 'ws';

const ROOT = join(import.meta.dirname, '..', '..');
let child: ChildProcess | null = null;
/** The server's output (logged on a failure). */
let out = '';
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = null;
});

function serve(): Promise<string> {
  child = spawn(
    process.execPath,
    ['dist/cli/main.js', 'serve', '--port', '0', '--workers', '2', '--resume-grace', '1', '--max-sessions', '2000', '--log-level', 'warn'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const proc = child;
  return new Promise((resolve, reject) => {
    proc.stdout?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
}

/** The server's resident memory, MiB (Linux /proc). */
function rssMiB(): number {
  const status = readFileSync(`/proc/${child?.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return Number(line?.slice(name.length + 1) ?? NaN);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One connection: hello, reset n `train` episodes, then a drop (no close frame). */
function dropper(url: string, i: number, n: number): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let stage = 0;
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1, seed: i })));
    ws.on('message', () => {
      if (stage++ === 0) {
        ws.send(JSON.stringify({ type: 'reset', id: 2, items: Array.from({ length: n }, (_, k) => ({ seed: i * 3 + k, variant: 'train' })) }));
      } else {
        ws.terminate();
        resolve();
      }
    });
    ws.on('error', () => resolve());
  });
}

async function storm(url: string, first: number, connections: number): Promise<void> {
  for (let i = 0; i < connections; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, connections - i) }, (_, k) => dropper(url, first + i + k, 1 + ((i + k) % 3))));
  }
}

/** Wait until `check` holds, polling; the last value seen. */
async function settle(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return true;
    await sleep(250);
  }
  return check();
}

/** A storm, then: its episodes freed, both workers replaced, and the settled RSS (the least over 1-4 s later). */
async function stormAndSettle(base: string, url: string, first: number): Promise<{ peak: number; settled: number }> {
  const recycles = await metric(base, 'harness_gym_worker_recycles_total');
  await storm(url, first, 300);
  const peak = rssMiB();
  expect(await settle(async () => (await metric(base, 'harness_gym_episodes_live')) === 0, 30_000), 'live episodes back to 0').toBe(true);
  // Both workers end up empty and grown: each is replaced about a second after its last session is freed.
  expect(await settle(async () => (await metric(base, 'harness_gym_worker_recycles_total')) >= recycles + 2, 30_000), 'both workers replaced: ' + out.slice(-3000)).toBe(true);
  // The least RSS over the next 3 s: memory held stays high for all of it, a passing spike (another test
  // process on the machine, an allocation burst) does not.
  await sleep(1000);
  let settled = rssMiB();
  for (let i = 0; i < 12; i++) {
    await sleep(250);
    settled = Math.min(settled, rssMiB());
  }
  return { peak, settled };
}

describe('a disconnect storm on worker threads', () => {
  it('frees every episode, gives the memory back and does not grow over repeated storms', async () => {
    const base = await serve();
    const url = base.replace(/^http/, 'ws') + '/v1/env';
    // The first storm warms everything up (modules, JIT, the main thread's own buffers): the baseline is
    // what the server holds once it is over.
    const { settled: baseline } = await stormAndSettle(base, url, 1_000_000);
    const runs: { peak: number; settled: number }[] = [];
    for (let s = 0; s < 3; s++) runs.push(await stormAndSettle(base, url, s * 10_000));
    const report = JSON.stringify({ baseline: Math.round(baseline), runs: runs.map((r) => [Math.round(r.peak), Math.round(r.settled)]) });
    for (const r of runs) expect(r.settled, `settled RSS within 20% of the baseline: ${report}`).toBeLessThanOrEqual(baseline * 1.2);
    // Repeated storms do not ratchet memory up.
    expect((runs[2] as { settled: number }).settled, report).toBeLessThanOrEqual((runs[0] as { settled: number }).settled + 24);
  }, 120_000);
});
