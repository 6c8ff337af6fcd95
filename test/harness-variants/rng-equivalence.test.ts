/**
 * `Rng` inlines Alea; its streams must stay bit-identical to seedrandom's `alea` keyed the same way,
 * because every recorded episode and variant id depends on them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import seedrandom from 'seedrandom';
import { Rng, deriveSeed } from '../../protocol/rng.js';
import { OPERATORS } from '../../harness-variants/index.js';

/** The reference: seedrandom's alea with the key `Rng` documents. */
function reference(seed: number, stream: string): seedrandom.PRNG {
  return seedrandom.alea(`${seed >>> 0}/${stream}`);
}

const STREAMS = ['', 'world', 'apply:tools.rename.semantic', 'op:skills.mask', 'derive:task', '商品/链接', 'a\u0000b', '😀 emoji'];
const SEEDS = [0, 1, 42, 0x7fffffff, 0x80000000, 0xffffffff, 2654435761, -1, 123456789012];

describe('Rng equals seedrandom alea', () => {
  it('gives the same floats, draw for draw', () => {
    for (const seed of SEEDS) {
      for (const stream of STREAMS) {
        const ours = new Rng(seed, stream);
        const ref = reference(seed, stream);
        for (let i = 0; i < 200; i++) expect(Object.is(ours.next(), ref())).toBe(true);
      }
    }
  });

  it('gives the same uint32s and derived seeds', () => {
    for (const seed of SEEDS) {
      for (const stream of STREAMS) {
        const ours = new Rng(seed, stream);
        const ref = reference(seed, stream);
        for (let i = 0; i < 50; i++) expect(ours.uint32()).toBe(ref.int32() >>> 0);
        expect(deriveSeed(seed, stream)).toBe(reference(seed, `derive:${stream}`).int32() >>> 0);
      }
    }
  });

  it('gives the same streams when consecutive keys share prefixes (the first pass resumes from them)', () => {
    const streams = [
      ...OPERATORS.map((o) => `apply:${o.name}`),
      ...OPERATORS.map((o) => `op:${o.name}`),
      'a',
      'ab',
      'a',
      '',
      'abc',
      'ab',
      'ab',
    ];
    for (const seeds of [[7], [7, 8], [0xffffffff, 7, 7, 12345]]) {
      streams.forEach((stream, i) => {
        const seed = seeds[i % seeds.length];
        const ours = new Rng(seed, stream);
        const ref = reference(seed, stream);
        for (let k = 0; k < 5; k++) expect(Object.is(ours.next(), ref())).toBe(true);
      });
    }
  });

  it('gives the same streams however their first draws interleave', () => {
    // Streams made first, drawn later and out of order: each seeds itself on its own first draw.
    const made = OPERATORS.map((o, i) => ({ ours: new Rng(i % 3, `op:${o.name}`), ref: reference(i % 3, `op:${o.name}`) }));
    for (const i of [...made.keys()].reverse()) expect(Object.is(made[i].ours.next(), made[i].ref())).toBe(true);
    for (const m of made) expect(Object.is(m.ours.next(), m.ref())).toBe(true);
  });

  it('agrees over random keys and mixed helpers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.string({ unit: 'grapheme', maxLength: 40 }), (seed, stream) => {
        const ours = new Rng(seed, stream);
        const ref = reference(seed, stream);
        const items = [0, 1, 2, 3, 4, 5, 6, 7];
        expect(ours.int(3, 17)).toBe(3 + Math.floor(ref() * 15));
        expect(ours.chance(0.6)).toBe(ref() < 0.6);
        expect(ours.pick(items)).toBe(items[Math.floor(ref() * items.length)]);
        const shuffled = items.slice();
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = Math.floor(ref() * (i + 1));
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        expect(ours.shuffle(items)).toEqual(shuffled);
        expect(ours.uint32()).toBe(ref.int32() >>> 0);
        expect(Object.is(ours.next(), ref())).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
