import { readFileSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { RECORD_FORMAT, decodeRecordBytes, readRecords, readRecordFile, shouldRecord, unpackValue } from '../../recording/index.js';
import { recordInProcess, tempDir } from './helpers.js';

describe('record writer and reader', () => {
  it('writes a header then one value per finished episode, and reads them back', async () => {
    const dir = tempDir();
    const records = await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 5, seed: 10 });
    expect(records.map((r) => [r.record.episode_id, r.record.seed, r.index])).toEqual([
      ['eval-10', 10, 0],
      ['eval-11', 11, 1],
      ['eval-12', 12, 2],
      ['eval-13', 13, 3],
      ['eval-14', 14, 4],
    ]);
    const files = readdirSync(dir);
    expect(files).toEqual(['oracle-identity-10-0001.hgrec']);
    const read = readRecordFile(join(dir, files[0]));
    expect(read.warnings).toEqual([]);
    expect(read.headers).toEqual([
      { type: 'header', format: RECORD_FORMAT, version: 2, server_version: expect.any(String), created_by: 'eval' },
    ]);
    const rec = records[0].record;
    expect(rec.reward_profile).toBe('default');
    expect(Object.keys(rec.reward_modules).sort()).toEqual([
      'accuracy',
      'effectiveness',
      'hook_compliance',
      'skill_selection',
      'tool_rationality',
    ]);
    expect(rec.steps.length).toBe(rec.summary.turns);
    // The stored bytes are the hashed output: decode one and check its shape.
    const out = unpackValue(rec.steps[rec.steps.length - 1].out as Uint8Array) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['observation', 'reward', 'terminated', 'truncated', 'info']);
    expect(out.reward).toBe(rec.reward.reward);
  });

  it('rotates files by size, each with its own header, losing nothing', async () => {
    const dir = tempDir();
    const { Recorder } = await import('../../recording/index.js');
    const { defaultEnvConfig } = await import('../../env/index.js');
    const { POLICIES } = await import('../../policies/index.js');
    const { evaluate } = await import('../../eval/index.js');
    const env = defaultEnvConfig();
    const recorder = new Recorder({
      dir,
      sample: 1,
      stem: 'rot',
      created_by: 'eval',
      env: { limits: env.limits, defaults: env.defaults },
      max_file_bytes: 40_000,
    });
    evaluate({ policy: POLICIES.get('oracle')!, episodes: 8, seed: 1, variant: 'identity', recorder });
    await recorder.close();
    const files = readdirSync(dir).sort();
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const r = readRecordFile(join(dir, f));
      expect(r.headers.length).toBe(1);
      expect(r.warnings).toEqual([]);
    }
    const all = readRecords(dir);
    expect(all.ok && all.result.records.map((r) => r.record.seed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('keeps every complete record of a file cut at any byte, with a warning, never a throw', async () => {
    const dir = tempDir();
    await recordInProcess(dir, { policy: 'random', variant: 'identity', episodes: 4, seed: 3 });
    const file = join(dir, readdirSync(dir)[0]);
    const bytes = readFileSync(file);
    const full = decodeRecordBytes(bytes, file);
    expect(full.records.length).toBe(4);
    // Byte offsets where each record ends (record i is complete iff the cut is at or after ends[i]).
    const { packValue } = await import('../../recording/index.js');
    const headerLen = packValue(full.headers[0]).length;
    const ends: number[] = [];
    let at = headerLen;
    for (const r of full.records) {
      at += packValue(r.record).length;
      ends.push(at);
    }
    expect(at).toBe(bytes.length);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: bytes.length - 1 }), (cut) => {
        const r = decodeRecordBytes(bytes.subarray(0, cut), file);
        const complete = ends.filter((e) => e <= cut).length;
        expect(r.records.length).toBe(complete);
        expect(r.records.map((x) => x.record.seed)).toEqual(full.records.slice(0, complete).map((x) => x.record.seed));
        if (!ends.includes(cut)) expect(r.warnings.some((w) => w.includes('truncated or corrupt tail'))).toBe(true);
      }),
      { numRuns: 60 },
    );
    // A torn write at the end of a real file: complete records kept, a warning.
    appendFileSync(file, bytes.subarray(headerLen, headerLen + 100));
    const torn = readRecordFile(file);
    expect(torn.records.length).toBe(4);
    expect(torn.warnings).toEqual([expect.stringContaining('truncated or corrupt tail')]);
    writeFileSync(file, Buffer.alloc(0));
    expect(readRecordFile(file).warnings).toEqual([expect.stringContaining('empty file')]);
  });

  it('samples deterministically from the seed, near the rate', () => {
    const picked = (rate: number): number[] => [...Array(2000).keys()].filter((s) => shouldRecord(s, rate));
    expect(picked(0.25)).toEqual(picked(0.25));
    const n = picked(0.25).length;
    expect(n).toBeGreaterThan(400);
    expect(n).toBeLessThan(600);
    expect(picked(1).length).toBe(2000);
    expect(picked(0).length).toBe(0);
  });

  it('records only the sampled episodes of an eval run', async () => {
    const dir = tempDir();
    const records = await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 20, seed: 100, sample: 0.3 });
    const expected = [...Array(20).keys()].map((i) => 100 + i).filter((s) => shouldRecord(s, 0.3));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(20);
    expect(records.map((r) => r.record.seed)).toEqual(expected);
  });
});
