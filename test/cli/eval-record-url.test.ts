/**
 * `eval --record DIR --url ...` records (it used to record nothing, silently): the records hold what the
 * server sent, `replay` accepts them and replays them identically in-process, and they list the same
 * episodes as an in-process `eval --record`, in the same order (episode order: cli/record-order.ts), though
 * the remote episodes finish in any order. A server whose replies differ from this build's stops the
 * run (exit 5) instead of leaving records that would not replay.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecords } from '../../recording/index.js';
import { OPERATORS } from '../../harness-variants/index.js';
import { defaultServerConfig, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure, tempDir } from './helpers.js';

let srv: TestServer;
let short: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  // Non-default caps shape the outputs: the records must carry the server's.
  short = await startTestServer({ limits: { max_turns: 3, max_errors: 2 } });
});
afterAll(async () => {
  await srv.close();
  await short.close();
});

function recordedIds(dir: string): string[] {
  const r = readRecords(dir);
  if (!r.ok) throw new Error(r.message);
  return r.result.records.map((x) => x.record.episode_id);
}

describe('eval --record --url', () => {
  it('records what the server sent; replay finds every episode identical; the same episodes in the same order as in-process', async () => {
    const remoteDir = tempDir('hg-rec-url-');
    const localDir = tempDir('hg-rec-local-');
    const args = ['eval', '--policy', 'oracle', '--episodes', '24', '--seed', '11', '--variant', 'train', '--faults', '0.2', '--record-sample', '0.5', '--json'];
    const [remote, local] = await Promise.all([cli([...args, '--url', srv.url, '--record', remoteDir]), cli([...args, '--record', localDir])]);
    expect([remote.status, local.status]).toEqual([0, 0]);
    expect(remote.stdout).toBe(local.stdout);
    const ids = recordedIds(localDir);
    expect(ids.length).toBeGreaterThan(4);
    expect(recordedIds(remoteDir)).toEqual(ids);
    expect(remote.stderr).toBe(`harness-gym eval: recorded ${ids.length} episodes in ${remoteDir}\n`);
    expect(readdirSync(remoteDir)).toEqual(['eval-url-oracle-s11-n24-0001.hgrec']);
    const replay = await cli(['replay', remoteDir, '--json']);
    expect(replay.status).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual({ episodes: ids.length, identical: ids.length, diverged: 0 });
  }, 120_000);

  it('a server with other turn and error caps: the records carry them and replay identically', async () => {
    const dir = tempDir('hg-rec-url-caps-');
    const r = await cli(['eval', '--policy', 'random', '--episodes', '20', '--variant', '{"families":["hooks","prompt"],"intensity":0.5}', '--url', short.url, '--record', dir, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).outcomes.max_turns).toBeGreaterThan(0);
    const read = readRecords(dir);
    expect(read.ok && read.result.records.every((x) => x.record.env.limits.max_turns === 3 && x.record.env.limits.max_errors === 2)).toBe(true);
    const replay = await cli(['replay', dir, '--json']);
    expect(JSON.parse(replay.stdout)).toEqual({ episodes: 20, identical: 20, diverged: 0 });
  }, 120_000);
});

describe('eval --record --url against a server that differs from this build', () => {
  let other: RunningServer;
  let url: string;
  beforeAll(async () => {
    // Fewer operators: its train variants are not this build's.
    other = await startServer(defaultServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent' }), { env: { operators: OPERATORS.slice(0, 2) } });
    url = `ws://127.0.0.1:${new URL(other.url).port}/v1/env`;
  });
  afterAll(async () => {
    await other.close();
  });

  it('stops with one line and exit 5 rather than write records that would not replay', async () => {
    const dir = tempDir('hg-rec-url-other-');
    const r = await cli(['eval', '--episodes', '4', '--variant', 'train', '--url', url, '--record', dir]);
    expect(expectFailure(r, EXIT.run, 'eval')).toMatch(/differs from this build's: the server runs another version or config/);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});
