import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, afterEach } from 'vitest';
import { HarnessGymClient } from '../../client/index.js';
import { evaluateRemote } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import { packValue, readRecords } from '../../recording/index.js';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
let child: ChildProcess | null = null;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
});

/** Start `harness-gym serve --record DIR` as a child process; resolves with its WebSocket URL. */
function serve(dir: string): Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'serve', '--port', '0', '--log-level', 'silent', '--record', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1].replace(/^http/, 'ws') + '/v1/env');
    });
    proc.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function countRecords(dir: string): number {
  const r = readRecords(dir);
  return r.ok ? r.result.records.length : 0;
}

describe('a recording server killed mid-run', () => {
  it('keeps the finished episodes; the episode in progress is not recorded; a torn tail is skipped with a warning', async () => {
    const dir = tempDir('hg-rec-crash-');
    const url = await serve(dir);
    await evaluateRemote({ url, policy: POLICIES.get('oracle')!, episodes: 12, seed: 7, variant: 'train', batch: 4 });
    // A second session leaves one episode in progress.
    const client = await HarnessGymClient.connect(url);
    const [started] = await client.reset([{ episode_id: 'in-progress', seed: 99, variant: 'identity' }]);
    expect(started.ok).toBe(true);
    await client.step([{ episode_id: 'in-progress', action: { message: { role: 'assistant', content: null, tool_calls: [] } } }]);
    // The finished episodes reach the disk within a flush interval, without any shutdown.
    await waitFor(() => countRecords(dir) === 12);
    child?.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
    expect(child?.signalCode).toBe('SIGKILL');
    void client.close().catch(() => undefined);

    const files = readdirSync(dir).filter((f) => f.endsWith('.hgrec'));
    expect(files.length).toBe(1);
    const read = readRecords(dir);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.result.warnings).toEqual([]);
    expect(read.result.records.map((r) => r.record.seed)).toEqual([...Array(12).keys()].map((i) => 7 + i));
    expect(read.result.records.some((r) => r.record.episode_id === 'in-progress')).toBe(false);

    // A SIGKILL during a write leaves a torn record at the end of the file: simulate one.
    const file = join(dir, files[0]);
    const whole = packValue(read.result.records[0].record);
    appendFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const torn = readRecords(dir);
    expect(torn.ok && torn.result.records.length).toBe(12);
    expect(torn.ok && torn.result.warnings).toEqual([expect.stringContaining('truncated or corrupt tail')]);

    // The CLI replays what is there, warning about the tail on stderr.
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'replay', dir, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ episodes: 12, identical: 12, diverged: 0 });
    expect(r.stderr).toContain('truncated or corrupt tail');
  }, 120_000);
});
