/**
 * A harness's own intent over a real socket (docs/HARNESS.md "Intents of your own"): a server on a worker
 * thread serving the restock harness names the intent in welcome's mix, resets by it, plays it (the oracle
 * scores 1 through the remote eval), records it, and the records replay identically in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateRemote } from '../../eval/index.js';
import { generateFor, harnessMix, mixShares } from '../../env/index.js';
import { loadHarnessDir } from '../../harness/index.js';
import { oraclePolicy } from '../../policies/index.js';
import type { Intent } from '../../protocol/domain.js';
import { readRecords, replayRecords } from '../../recording/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { writeRestockHarness } from '../harness/restock-intent-harness.js';
import { connect, testConfig } from './helpers.js';
import { cli } from '../cli/helpers.js';

const dirs: string[] = [];
const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hg-intent-srv-'));
  dirs.push(d);
  return d;
};

describe('a harness intent of its own on a worker thread', () => {
  it('is in welcome, resets by name, plays, records and replays identically', async () => {
    const harnessDir = writeRestockHarness(tmp());
    const recordDir = tmp();
    const loaded = loadHarnessDir(harnessDir);
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const set = loaded.harness;
    const app = buildServer(testConfig({ workers: 1, harness: harnessDir, record: { dir: recordDir } }));
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    const c = await connect(url);
    const w = await c.hello({});
    expect(w.defaults.task_mix).toEqual(mixShares(harnessMix(set)));
    expect(w.defaults.task_mix.restock_alert).toBe(Math.round((0.01 / 1.01) * 1e4) / 1e4);
    const info = (await (await fetch(url.replace(/\/$/, '') + '/v1/info')).json()) as { defaults: unknown };
    expect(info.defaults).toEqual(w.defaults);
    const r = await c.request({
      type: 'reset',
      id: 2,
      items: [
        { episode_id: 'r1', seed: 4, task: { intent: 'restock_alert' } },
        { episode_id: 'r2', seed: 4, task: { intent: 'restock_alerts' } },
      ],
    });
    expect(r.items[0].ok).toBe(true);
    const task = generateFor(set, 4, 'zh-CN', 'restock_alert' as Intent, 'train');
    expect(r.items[0].info.task_id).toBe('gen-train-zh-CN-4-restock_alert');
    expect(r.items[0].info.task_id).toBe(task?.id);
    expect(r.items[0].info.intent).toBe('restock_alert');
    expect(r.items[1]).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE', message: 'unknown intent "restock_alerts"; harness "mini-shop" serves product_qa, chitchat, restock_alert in zh-CN' } });
    // A task id regenerates the task on the worker too.
    const again = await c.request({
      type: 'reset',
      id: 3,
      items: [{ episode_id: 'r3', seed: 77, task: { id: 'gen-train-zh-CN-4-restock_alert' } }],
    });
    expect(again.items[0].info.task_id).toBe('gen-train-zh-CN-4-restock_alert');
    c.ws.close();

    const summary = await evaluateRemote({
      url: url.replace(/^http/, 'ws') + '/v1/env',
      policy: oraclePolicy,
      episodes: 6,
      seed: 10,
      variant: 'identity',
      intent: 'restock_alert',
      config: { harness: set },
    });
    expect(summary.intents).toEqual({ restock_alert: 6 });
    expect(summary.reward.mean).toBe(1);
    await closeServer(app);
    apps.pop();

    const recs = readRecords(recordDir);
    if (!recs.ok) throw new Error(recs.message);
    const played = recs.result.records.filter((x) => x.record.source_task.intent === 'restock_alert' && x.record.steps.length > 0);
    expect(played.length).toBe(6);
    const replay = replayRecords(played, { base: { harness: set } });
    expect([replay.episodes, replay.identical, replay.diverged]).toEqual([6, 6, 0]);
    // The records filter by it (a typo of a built-in intent is still refused).
    const inspected = await cli(['inspect', recordDir, '--summary', '--intent', 'restock_alert']);
    expect(inspected.stdout).toContain('intents:  restock_alert 6');
    const typo = await cli(['inspect', recordDir, '--summary', '--intent', 'chitchta']);
    expect(typo.stderr).toContain('--intent: "chitchta" is not one of product_qa');
    // eval --intent takes it in the harness that has it, and refuses it (exit 2) in one that has not.
    const evaluated = await cli([
      'eval',
      '--harness',
      harnessDir,
      '--intent',
      'restock_alert',
      '--episodes',
      '2',
      '--policy',
      'oracle',
      '--locale',
      'en',
    ]);
    expect(evaluated.stdout).toContain('restock_alert  2');
    const embedded = await cli(['eval', '--intent', 'restock_alert', '--episodes', '1']);
    expect([embedded.status, embedded.stderr.trim()]).toEqual([
      2,
      'harness-gym eval: --intent restock_alert: harness "live-commerce" has no such intent (intents: product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff)',
    ]);
  }, 60_000);
});
