/**
 * A harness with a stateful custom service (test/harness/restock-harness.ts) served over a real socket
 * from a worker thread: the oracle scores 1 with faults on; the records hold the state (the trace's final
 * state and each call's change) and replay bit-exactly in-process; after the module's file changes, the
 * harness hash changes and replay refuses the records, naming both harnesses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlTaskSource } from '../../env/index.js';
import { evaluateRemote } from '../../eval/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import { loadHarnessDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { formatEpisodeView, inspectRecord, readRecords, replayRecords } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { testConfig } from '../server/helpers.js';
import { restockProducts, restockTaskFile, writeRestockHarness } from '../harness/restock-harness.js';

const dirs: string[] = [];
let harnessDir: string;
let harness: HarnessSet;
let records: LoadedRecord[];
let mean: number;

function load(dir: string): HarnessSet {
  const r = loadHarnessDir(dir);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.harness;
}

beforeAll(async () => {
  harnessDir = mkdtempSync(join(tmpdir(), 'hg-stateful-srv-'));
  const recordDir = mkdtempSync(join(tmpdir(), 'hg-stateful-rec-'));
  dirs.push(harnessDir, recordDir);
  writeRestockHarness(harnessDir);
  harness = load(harnessDir);
  const app = buildServer(testConfig({ harness: harnessDir, tasks: [restockTaskFile(harnessDir)], workers: 1, record: { dir: recordDir } }));
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const ws = url.replace(/^http/, 'ws') + '/v1/env';
    const tasks = JsonlTaskSource.fromFiles([restockTaskFile(harnessDir)], harness.get('zh-CN'));
    if (!tasks.ok) throw new Error(tasks.errors.join('\n'));
    const summary = await evaluateRemote({
      url: ws,
      policy: oraclePolicy,
      episodes: 12,
      seed: 5,
      variant: 'train',
      locale: 'zh-CN',
      faults: 0.4,
      taskSplit: 'all',
      batch: 4,
      config: { harness, taskSource: tasks.source },
    });
    mean = summary.reward.mean;
  } finally {
    await closeServer(app);
  }
  const r = readRecords(recordDir);
  if (!r.ok) throw new Error(r.message);
  expect(r.result.warnings).toEqual([]);
  records = r.result.records;
}, 120_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a stateful service served from a worker, recorded and replayed', () => {
  it('the oracle scores 1; every record ends with the subscription, and its trace shows the change', () => {
    expect(mean).toBe(1);
    expect(records.length).toBe(12);
    const sub = { subscriptions: [{ viewer_id: 'vw_mini01', product_id: restockProducts().wanted }] };
    for (const { record } of records) {
      expect(record.harness).toEqual({ ...harness.identity });
      expect(record.trace.final_state.custom).toEqual({ restock: sub });
      const changes = record.trace.turns.flatMap((t) => t.calls).flatMap((c) => (c.state_change ? [c.state_change] : []));
      expect(changes).toEqual([{ module: 'restock', before: { subscriptions: [] }, after: sub }]);
    }
    // Faults were drawn for the stateful calls, and the retried calls changed the state once.
    expect(records.some((r) => r.record.trace.turns.some((t) => t.calls.some((c) => c.name === 'subscribe_restock' && !c.ok)))).toBe(true);
  });

  it('replays every record bit-exactly with the harness it was made with', () => {
    const summary = replayRecords(records, { base: { harness } });
    expect(summary.results.filter((r) => r.divergence !== undefined).map((r) => r.divergence?.message)).toEqual([]);
    expect(summary.identical).toBe(records.length);
  });

  it('inspect shows the expected custom state', () => {
    const text = formatEpisodeView(inspectRecord(records[0].record, { harness }));
    const sub = { subscriptions: [{ viewer_id: 'vw_mini01', product_id: restockProducts().wanted }] };
    expect(text).toContain(`expected state: custom.restock ${JSON.stringify(sub)}`);
  });

  it('refuses the records once the module changed (the harness hash names it)', () => {
    const edited = mkdtempSync(join(tmpdir(), 'hg-stateful-edit-'));
    dirs.push(edited);
    writeRestockHarness(edited);
    const file = join(edited, 'services', 'restock.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('subscribed: true', 'subscribed: true, notice: 1'));
    const changed = load(edited);
    expect(changed.identity.hash).not.toBe(harness.identity.hash);
    const summary = replayRecords(records, { base: { harness: changed } });
    expect(summary.identical).toBe(0);
    expect(summary.results[0].divergence?.message).toBe(
      `cannot rebuild the episode: the record was made with harness "mini-shop" 0.1.0 (${harness.identity.hash}), ` +
        `this replay has "mini-shop" 0.1.0 (${changed.identity.hash}); give that harness's directory with --harness DIR`,
    );
  });
});
