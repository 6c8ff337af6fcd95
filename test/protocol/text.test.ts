import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charLength, extractNumbers, normalizeForMatch, statesTerm, toHalfWidth } from '../../protocol/text.js';
import { ownWords } from '../../rewards/common.js';
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

describe('statesTerm', () => {
  it('matches a term as normalised text, not inside a longer word or number', () => {
    const cases: [string, string, boolean][] = [
      ['Thanks for asking, check the link for details.', 'AI', false],
      ['I am an AI host', 'AI', true],
      ["yes, I'm AI-powered", 'AI', true],
      ['主播是AI数字人', 'AI', true],
      ['aim high', 'AI', false],
      ['now ¥ 1,299 only', '¥1299', true],
      ['now 199', '99', false],
      ['now 990', '99', false],
      ['now ¥99!', '99', true],
      ['Aw, thanks!', 'thank', true],
      ['cannot replace medicineThanks for watching!', 'cannot replace medicine', true],
      ['支持七天无理由退货', '七天无理由', true],
      ['ＡＩ主播', 'ai', true],
      ['digital host here', 'digital host', true],
      ['digitalhost', 'digital host', true],
      ['anything', '', false],
      ['Link 1 is 89.90 today', '89.9', true],
      ['89.900', '89.9', true],
      ['89.95', '89.9', false],
      ['只要99.5元', '99', false],
      ['只要99.0元', '99', true],
      ['8 9.9, go', '89.9', false],
    ];
    for (const [text, term, stated] of cases) expect([text, term, statesTerm(text, term)]).toEqual([text, term, stated]);
  });

  it('agrees with substring matching of normalised text whenever the term holds no digit and does not begin with a Latin letter', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ minLength: 1, maxLength: 6 }), (text, term) => {
        const n = normalizeForMatch(term);
        fc.pre(n.length > 0 && !/^[a-z0-9]/.test(n) && !/[0-9]/.test(n) && !/^[a-z]{1,3}$/.test(n));
        expect(statesTerm(text, term)).toBe(normalizeForMatch(text).includes(n));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ownWords', () => {
  it("removes verbatim copies of the viewer's messages", () => {
    expect(ownWords('姐妹们问一下，主播是AI吗祝您购物愉快', ['姐妹们问一下，主播是AI吗'])).toBe(' 祝您购物愉快');
    expect(ownWords('Yes, I am an AI host.', ['r you AI?'])).toBe('Yes, I am an AI host.');
    expect(ownWords('ok', ['a'])).toBe('ok');
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
