/**
 * `mentionsName` (operators ask whether a text names a skill or a tool) answers without compiling a
 * regex per name; it must answer exactly what the regex it replaced answered.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mentionsName } from '../../harness-variants/ops/kit.js';

function reference(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_\\-])${escaped}(?![A-Za-z0-9_\\-])`).test(text);
}

const PARTS = ['a', 'b', 'ab', 'a-b', 'a_b', '1', '-', '_', ' ', '.', '`', '\n', '商品', '😀', 'product-qa', 'qa'];
const textArb = fc.array(fc.constantFrom(...PARTS), { maxLength: 12 }).map((p) => p.join(''));
const nameArb = fc.array(fc.constantFrom(...PARTS), { maxLength: 3 }).map((p) => p.join(''));

describe('mentionsName equals its regex formulation', () => {
  it('on random texts and names (identifiers or not, empty included)', () => {
    fc.assert(
      fc.property(textArb, nameArb, (text, name) => {
        expect(mentionsName(text, name)).toBe(reference(text, name));
      }),
      { numRuns: 20000 },
    );
  });
});
