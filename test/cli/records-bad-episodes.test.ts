import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECORD_FORMAT, RECORD_VERSION, packValue, readRecords } from '../../recording/index.js';
import { CLI, ROOT, cli, tempDir } from './helpers.js';

// Issue 39, "a few bad records spoil a directory": two tampered episodes beside nine good ones made
// `inspect`, `replay` and `rescore` exit 70 ("Cannot read properties of undefined") having processed
// none, and `view` exit 4. Each bad episode is now skipped with one warning line naming its file and
// index; the nine good ones are processed and the command exits 0 (docs/RECORDS.md, README exit codes).

let dir: string;
let file: string;
let profileFile: string;
let goodIds: string[];

/** The warning lines of a run's stderr about skipped episodes. */
function skipWarnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => / episode \d+: /.test(l));
}

function expectTwoWarnings(stderr: string): void {
  expect(stderr).not.toMatch(/Cannot read properties/);
  const lines = skipWarnings(stderr);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe(`warning: ${file}: episode 3: trace: expected object, got string (skipped)`);
  expect(lines[1]).toBe(`warning: ${file}: episode 7: steps: missing (skipped)`);
}

beforeAll(async () => {
  dir = tempDir('hg-bad-records-');
  // Eleven episodes recorded the way users record them.
  const r = await cli(['eval', '--policy', 'oracle', '--episodes', '11', '--seed', '5', '--variant', 'train', '--record', dir, '--json']);
  expect(r.status).toBe(0);
  const files = readdirSync(dir).filter((n) => n.endsWith('.hgrec'));
  expect(files).toHaveLength(1);
  file = join(dir, files[0]);
  const read = readRecords(dir);
  if (!read.ok) throw new Error(read.message);
  const records = read.result.records.map((x) => x.record as unknown as Record<string, unknown>);
  expect(records).toHaveLength(11);
  // Tamper with two of them, in the middle of the file: episode 3's trace becomes a string, episode 7 loses its steps.
  records[3] = { ...records[3], trace: 'tampered' };
  const { steps: _dropped, ...noSteps } = records[7];
  records[7] = noSteps;
  const header = { type: 'header', format: RECORD_FORMAT, version: RECORD_VERSION, server_version: '0.0.0', created_by: 'eval' };
  writeFileSync(file, Buffer.concat([packValue(header), ...records.map((x) => packValue(x))]));
  goodIds = records.filter((_, i) => i !== 3 && i !== 7).map((x) => x.episode_id as string);
  expect(goodIds).toHaveLength(9);
  profileFile = join(dir, 'profile.json');
  writeFileSync(profileFile, JSON.stringify(records[0].profile));
}, 120_000);

describe('a directory with two tampered episodes beside nine good ones', () => {
  it('inspect shows the nine, warns once per bad episode, exits 0', async () => {
    const r = await cli(['inspect', dir, '--json']);
    expectTwoWarnings(r.stderr);
    expect(r.status).toBe(0);
    const views = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { episode_id: string });
    expect(views.map((v) => v.episode_id)).toEqual(goodIds);
  });

  it('replay replays the nine identically, warns once per bad episode, exits 0', async () => {
    const r = await cli(['replay', dir, '--json']);
    expectTwoWarnings(r.stderr);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ episodes: 9, identical: 9, diverged: 0 });
  });

  it('rescore rescores the nine, warns once per bad episode, exits 0', async () => {
    const r = await cli(['rescore', dir, '--rewards', profileFile, '--json']);
    expectTwoWarnings(r.stderr);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { episodes: number; overall: { changed: number } };
    expect(report.episodes).toBe(9);
    expect(report.overall.changed).toBe(0);
  });

  it('view serves the nine (HTTP API) and warns once per bad episode', async () => {
    const child = spawn(process.execPath, [CLI, 'view', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          const m = /episodes at (http:\/\/\S+)/.exec(stdout);
          if (m) resolve(m[1]);
        });
        void exited.then((code) => reject(new Error(`view exited ${code}: ${stderr}`)));
      });
      expect(stdout).toMatch(/harness-gym view: 9 episodes at /);
      const list = (await (await fetch(`${url}/api/episodes`)).json()) as { episodes: { episode_id: string; index: number }[]; warnings: string[] };
      expect(list.episodes.map((e) => e.episode_id)).toEqual(goodIds);
      expect(list.episodes.map((e) => e.index)).toEqual([0, 1, 2, 4, 5, 6, 8, 9, 10]);
      expect(list.warnings.filter((w) => / episode \d+: /.test(w))).toHaveLength(2);
      const detail = await fetch(`${url}/api/episodes/8`);
      expect(detail.status).toBe(200);
      expectTwoWarnings(stderr);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);

  it('a file whose every episode is bad exits 4 after one warning per episode', async () => {
    const only = join(tempDir('hg-bad-only-'), 'bad-0001.hgrec');
    const bytes = readFileSync(file);
    const read = readRecords(file);
    if (!read.ok) throw new Error(read.message);
    const rec = read.result.records[0].record as unknown as Record<string, unknown>;
    const header = bytes.subarray(0, packValue({ type: 'header', format: RECORD_FORMAT, version: RECORD_VERSION, server_version: '0.0.0', created_by: 'eval' }).length);
    writeFileSync(only, Buffer.concat([header, packValue({ ...rec, reward: null }), packValue({ ...rec, summary: 7 })]));
    const r = await cli(['inspect', only]);
    expect(r.status).toBe(4);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toEqual([
      `warning: ${only}: episode 0: reward: expected object, got null (skipped)`,
      `warning: ${only}: episode 1: summary: expected object, got number (skipped)`,
      expect.stringMatching(new RegExp(`^harness-gym inspect: ${only} holds no valid episode record \\(2 skipped`)),
    ]);
  });
});
