import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charLength, extractNumbers, normalizeForMatch, toHalfWidth } from '../../protocol/text.js';
import { Rng, deriveSeed } from '../../protocol/rng.js';

describe('extractNumbers', () => {
  it('reads integers, decimals, leading zeros, thousands separators and full-width digits', () => {
    expect(extractNumbers('3号链接直播价89.90元，原价1,299元，12月03日20:00开抢，库存０５件')).toEqual([3, 89.9, 1299, 12, 3, 20, 0, 5]);
    expect(extractNumbers('no digits here')).toEqual([]);
    expect(extractNumbers('SPF50+ PA++++')).toEqual([50]);
    expect(extractNumbers('2026-12-03T20:00:00+08:00')).toEqual([2026, 12, 3, 20, 0, 0, 8, 0]);
  });

  it('finds every integer written in decimal, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.constantFrom('元', ' yuan', '件', '号', ''), (n, unit) => {
        expect(extractNumbers(`价格${n}${unit}哦`)).toEqual([n]);
      }),
    );
  });
});

describe('normalizeForMatch and friends', () => {
  it('folds width, case, spaces and thousands separators', () => {
    expect(normalizeForMatch('Ｌｉｎｋ  3 costs 1,299 Yuan')).toBe('link3costs1299yuan');
    expect(toHalfWidth('ＡＢＣ１２３！')).toBe('ABC123!');
  });

  it('counts code points, not UTF-16 units', () => {
    expect(charLength('宝宝们😀')).toBe(4);
    expect(charLength('')).toBe(0);
  });
});

describe('Rng', () => {
  it('is a pure function of (seed, stream)', () => {
    const a = new Rng(42, 'world');
    const b = new Rng(42, 'world');
    const c = new Rng(42, 'task');
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(xs);
    expect(deriveSeed(42, 'x')).toBe(deriveSeed(42, 'x'));
    expect(deriveSeed(42, 'x')).not.toBe(deriveSeed(42, 'y'));
  });

  it('keeps helpers within their ranges', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 50 }), (seed, lo, span) => {
        const r = new Rng(seed, 's');
        const x = r.int(lo, lo + span);
        expect(x).toBeGreaterThanOrEqual(lo);
        expect(x).toBeLessThanOrEqual(lo + span);
        const items = Array.from({ length: span + 1 }, (_, i) => i);
        expect(r.shuffle(items).sort((p, q) => p - q)).toEqual(items);
        expect(items).toContain(r.pick(items));
        expect(['a', 'b']).toContain(r.weighted({ a: 1, b: 3 }));
      }),
    );
  });
});
