import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvidenceNumbers } from '../../env/evidence.js';

describe('EvidenceNumbers (env/evidence.ts)', () => {
  it('is the set of the shared numbers then the added ones, in a Set’s order, without copying the shared ones', () => {
    const num = fc.oneof(fc.integer({ min: -5, max: 40 }), fc.double({ noNaN: true, min: 0, max: 10 }));
    fc.assert(
      fc.property(
        fc.array(num, { maxLength: 40 }),
        fc.array(num, { maxLength: 40 }),
        fc.array(num, { maxLength: 20 }),
        (base, added, probes) => {
          const shared: ReadonlySet<number> = new Set(base);
          const layered = new EvidenceNumbers();
          layered.setBase(shared);
          const plain = new Set<number>(shared);
          for (const n of added) {
            expect(layered.add(n)).toBe(layered);
            plain.add(n);
          }
          expect([...layered]).toEqual([...plain]);
          expect([...layered.values()]).toEqual([...plain.values()]);
          expect([...layered.keys()]).toEqual([...plain.keys()]);
          expect([...layered.entries()]).toEqual([...plain.entries()]);
          expect(layered.size).toBe(plain.size);
          for (const n of [...probes, ...base, ...added]) expect(layered.has(n)).toBe(plain.has(n));
          const seen: number[] = [];
          layered.forEach((v, k, set) => {
            expect(k).toBe(v);
            expect(set).toBe(layered);
            seen.push(v);
          });
          expect(seen).toEqual([...plain]);
          // The shared set is read, never written.
          expect([...shared]).toEqual([...new Set(base)]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is empty before a base is set, and refuses a base once numbers were added', () => {
    const e = new EvidenceNumbers();
    expect(e.size).toBe(0);
    expect([...e]).toEqual([]);
    expect(e.has(1)).toBe(false);
    e.setBase(new Set([1, 2]));
    e.setBase(new Set([3])); // nothing added yet: still allowed
    expect([...e]).toEqual([3]);
    e.add(4);
    expect(() => e.setBase(new Set([5]))).toThrow(/after numbers were added/);
  });

  it('lists its numbers in ascending order as sorting the set would, the shared ones sorted once', () => {
    const num = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e6 }));
    fc.assert(
      fc.property(fc.array(num, { maxLength: 120 }), fc.array(num, { maxLength: 30 }), (base, added) => {
        const shared: ReadonlySet<number> = new Set(base);
        const a = new EvidenceNumbers();
        a.setBase(shared);
        const b = new EvidenceNumbers();
        b.setBase(shared);
        for (const n of added) a.add(n);
        const expected = [...a].sort((x, y) => x - y);
        expect(a.sorted()).toEqual(expected);
        // A second episode of the same room: the shared part's sorted copy is reused, never handed out.
        const first = b.sorted();
        first.push(-1);
        expect(b.sorted()).toEqual([...shared].sort((x, y) => x - y));
        expect(a.sorted()).not.toBe(a.sorted());
      }),
      { numRuns: 300 },
    );
  });
});
