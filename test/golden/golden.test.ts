/**
 * The golden digest and corpus (test/golden/script.ts, corpus.ts): every reply frame of the scripted
 * sessions hashes to what `digest.json` holds, in-process and on worker threads, and every recorded
 * episode of `corpus/` replays identically. A failure names the session and the first differing frame;
 * a change that means to alter output regenerates both with `npm run golden:update`, in its own commit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { readRecords, replayRecords } from '../../recording/index.js';
import { CORPUS_DIR } from './corpus.js';
import { GOLDEN_SESSIONS, runGolden } from './script.js';

const digest = JSON.parse(readFileSync(join(import.meta.dirname, 'digest.json'), 'utf8')) as { sessions: Record<string, string[]> };

function firstDifference(got: string[], want: string[]): string {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `frame ${i} of ${want.length} (got ${got.length} frames)`;
  return 'none';
}

describe('golden digest', () => {
  it('names every session of the script', () => {
    expect(Object.keys(digest.sessions).sort()).toEqual(GOLDEN_SESSIONS.map((s) => s.name).sort());
  });

  for (const s of GOLDEN_SESSIONS) {
    it(`${s.name}: every reply frame is the golden one`, async () => {
      const got = (await runGolden(s)).frames;
      const want = digest.sessions[s.name] ?? [];
      expect(firstDifference(got, want), `${s.name}: first difference`).toBe('none');
    });
  }

  it('worker shards answer the golden frames too', async () => {
    for (const s of GOLDEN_SESSIONS.filter((g) => g.name === 'oracle-msgpack' || g.name === 'item-errors')) {
      const got = (await runGolden(s, { workers: 1 })).frames;
      expect(firstDifference(got, digest.sessions[s.name] ?? []), `${s.name} on a worker`).toBe('none');
    }
  });
});

describe('golden corpus', () => {
  it('every recorded episode replays identically', () => {
    const read = readRecords(CORPUS_DIR);
    if (!read.ok) throw new Error(read.message);
    const { records, warnings } = read.result;
    expect(warnings).toEqual([]);
    expect(records.length).toBeGreaterThanOrEqual(60);
    const summary = replayRecords(records);
    const diverged = summary.results.filter((r) => !r.identical).map((r) => `${r.file}#${r.index}: ${r.divergence?.message}`);
    expect(diverged).toEqual([]);
    expect(summary.identical).toBe(records.length);
  });
});
