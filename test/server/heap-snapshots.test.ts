/**
 * `serve --heap-snapshot-dir DIR`: SIGUSR2 writes a V8 heap snapshot of the main thread and of every
 * episode worker into DIR. Started as a real process with one worker and a live episode: the worker's
 * snapshot holds the episode, the main thread's does not (episodes live in the workers).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessGymClient } from '../../client/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
let child: ChildProcess | null = null;
const dirs: string[] = [];

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hg-heap-'));
  dirs.push(d);
  return d;
}

/** The class names of a heap snapshot's object nodes, counted. */
function objectClasses(file: string): Map<string, number> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = s.snapshot.meta.node_fields;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const objectType = s.snapshot.meta.node_types[0].indexOf('object');
  const counts = new Map<string, number>();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    if (s.nodes[i + typeAt] !== objectType) continue;
    const name = s.strings[s.nodes[i + nameAt]];
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

describe('serve --heap-snapshot-dir', () => {
  it('writes the main thread and each worker on SIGUSR2; the worker holds the live episode', async () => {
    const dir = tempDir();
    child = spawn(
      process.execPath,
      [
        'dist/cli/main.js',
        'serve',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--workers',
        '1',
        '--log-level',
        'info',
        '--heap-snapshot-dir',
        dir,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const proc = child;
    let out = '';
    proc.stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
    proc.stderr?.on('data', (b: Buffer) => (out += b.toString('utf8')));
    const waitFor = async (re: RegExp, ms: number): Promise<RegExpExecArray> => {
      const end = performance.now() + ms;
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        if (proc.exitCode !== null) throw new Error(`serve exited (${proc.exitCode}): ${out}`);
        if (performance.now() > end) throw new Error(`timed out waiting for ${re}: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const url = (await waitFor(/listening on (http:\/\/[^\s]+)/, 30_000))[1].replace(/^http/, 'ws') + '/v1/env';
    const client = await HarnessGymClient.connect(url);
    try {
      const [started] = await client.reset([{ episode_id: 'held', seed: 7, variant: 'train' }]);
      expect(started.ok).toBe(true);
      proc.kill('SIGUSR2');
      await waitFor(/heap snapshots written/, 60_000);
    } finally {
      await client.close();
    }
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    const main = files.find((f) => f.startsWith('main-'));
    const shard = files.find((f) => f.startsWith('shard-0-'));
    expect(main).toMatch(/^main-\d+-.+\.heapsnapshot$/);
    expect(shard).toMatch(/^shard-0-\d+-.+\.heapsnapshot$/);
    // The log line names the files it wrote.
    for (const f of files) expect(out).toContain(join(dir, f));
    expect(objectClasses(join(dir, shard as string)).get('Episode')).toBe(1);
    expect(objectClasses(join(dir, main as string)).get('Episode')).toBeUndefined();
  }, 120_000);

  it('refuses a path it cannot write to: one line, the files exit code', () => {
    const dir = tempDir();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = spawnSync(process.execPath, ['dist/cli/main.js', 'serve', '--port', '0', '--heap-snapshot-dir', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(4);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`--heap-snapshot-dir ${file}: cannot write there`);
  });
});
