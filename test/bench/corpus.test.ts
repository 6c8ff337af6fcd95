import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Corpus } from '../../bench/corpus.js';

const item = (reward: number) => ({ ok: true, episode_id: 'e1', observation: { text: '在庫あり' }, reward, terminated: reward > 0 });

describe('bench corpus', () => {
  it('round-trips through its file and compares item by item, whatever order items were recorded in', () => {
    const a = new Corpus();
    a.record('e1', 1, item(0));
    a.record('e1', 2, item(1));
    a.record('e2', 1, item(0.5));
    const dir = mkdtempSync(join(tmpdir(), 'hg-corpus-'));
    try {
      a.write(join(dir, 'c.msgpack'));
      const read = Corpus.read(join(dir, 'c.msgpack'));
      expect([...read.items.keys()]).toEqual([...a.items.keys()]);
      expect(read.sameAs(a)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const reordered = new Corpus();
    reordered.record('e2', 1, item(0.5));
    reordered.record('e1', 2, item(1));
    reordered.record('e1', 1, item(0));
    expect(a.sameAs(reordered)).toBe(true);

    const changed = new Corpus();
    changed.record('e1', 1, item(0));
    changed.record('e1', 2, item(0.9));
    changed.record('e2', 1, item(0.5));
    expect(a.sameAs(changed)).toBe(false);

    const missing = new Corpus();
    missing.record('e1', 1, item(0));
    missing.record('e1', 2, item(1));
    expect(a.sameAs(missing)).toBe(false);
    missing.record('e3', 1, item(0.5));
    expect(a.sameAs(missing)).toBe(false);
  });
});
