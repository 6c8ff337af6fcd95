import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { charLength, extractNumbers, toHalfWidth } from '../../protocol/text.js';

/**
 * The rule as regexes: drop thousands separators (an ASCII comma in the integer part before exactly three
 * digits, of either width), fold, take every number match.
 */
function byRegex(text: string): number[] {
  const folded = toHalfWidth(text.replace(/(?<![.．][0-9０-９]*)([0-9０-９]),(?=[0-9０-９]{3}(?![0-9０-９]))/g, '$1'));
  return [...folded.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}

// Texts dense in what matters to numbers: ASCII and full-width digits, separators, points, spaces, CJK.
const piece = fc.constantFrom('0', '1', '7', '9', '０', '５', '９', ',', '，', '.', '．', ' ', '\u3000', '元', 'a', 'Ａ', '%', '-', '😀');
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('extractNumbers', () => {
  it('agrees with the regex pipeline on random texts', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(extractNumbers(t)).toEqual(byRegex(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (t) => {
        expect(extractNumbers(t)).toEqual(byRegex(t));
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads separators, decimals and full-width forms', () => {
    expect(extractNumbers('1,299元，现价８９．９０，库存1,2345件，1,234,567，1.2.3')).toEqual([1299, 89.9, 1, 2345, 1234567, 1.2, 3]);
    expect(extractNumbers('no numbers')).toEqual([]);
    expect(extractNumbers('007 and 3.50.')).toEqual([7, 3.5]);
  });

  it('reads a Chinese comma as punctuation, never as a separator, and nothing after a point as one', () => {
    expect(extractNumbers('201.9，538')).toEqual([201.9, 538]);
    expect(extractNumbers('价格201，库存538件')).toEqual([201, 538]);
    expect(extractNumbers('1.234,567')).toEqual([1.234, 567]);
    expect(extractNumbers('１,２９９元')).toEqual([1299]);
  });
});

describe('charLength', () => {
  it('counts what the string iterator counts (pairs as one, lone surrogates as one)', () => {
    const unit = fc.constantFrom('a', '价', '\ud83d', '\ude00', '😀', '\udbff\udfff', ' ');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 20 }), (parts) => {
        const t = parts.join('');
        expect(charLength(t)).toBe([...t].length);
      }),
      { numRuns: 5_000 },
    );
  });
});
