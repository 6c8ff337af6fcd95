/**
 * Record version 2 (compiled variants drawn from pools, rooms from a fixed pool): a seed means another
 * episode than under version 1, so replay refuses an older record with a message instead of replaying it
 * wrongly; a record carries the variant pool it was drawn from, and replay uses the record's.
 */
import { describe, expect, it } from 'vitest';
import { RECORD_VERSION, replayRecord } from '../../recording/index.js';
import { VARIANT_POOL } from '../../harness-variants/index.js';
import { recordInProcess, tempDir } from './helpers.js';

describe('record version', () => {
  it('records carry the record version and the variant pool; they replay identically', async () => {
    const records = await recordInProcess(tempDir(), { policy: 'oracle', variant: 'train', episodes: 3, seed: 11 });
    expect(RECORD_VERSION).toBe(2);
    for (const { record } of records) {
      expect(record.record_version).toBe(2);
      expect(record.variant_pool).toBe(VARIANT_POOL);
      expect(replayRecord(record).identical).toBe(true);
    }
  });

  it('a version 1 record (no record_version) is refused, naming both versions and what to do', async () => {
    const [{ record }] = await recordInProcess(tempDir(), { policy: 'oracle', variant: 'train', episodes: 1, seed: 5 });
    const old = { ...record, server_version: '0.1.0' };
    delete old.record_version;
    delete old.variant_pool;
    const r = replayRecord(old);
    expect(r.identical).toBe(false);
    expect(r.divergence).toEqual({
      step: 0,
      kind: 'create',
      message:
        'cannot rebuild the episode: the record is of record version 1 (written by harness-gym 0.1.0); this build replays version 2 ' +
        '(since version 2 a seed draws a compiled variant and a room from pools: the same seed means another episode); replay it with the version that wrote it, or record it again',
      diffs: [],
    });
  });

  it("replay builds the variant from the record's pool, not the default", async () => {
    const [{ record }] = await recordInProcess(tempDir(), { policy: 'oracle', variant: 'train', episodes: 1, seed: 8 });
    // The same record claiming another pool rebuilds another variant: the reset differs.
    const r = replayRecord({ ...record, variant_pool: 0 });
    expect(r.identical).toBe(false);
    expect(r.divergence?.step).toBe(0);
  });
});
