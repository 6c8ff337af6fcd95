import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../../protocol/rng.js';
import { SUB_KINDS } from '../../../env/tasks/index.js';
import type { SubKind } from '../../../env/tasks/index.js';
import { fill, weightedOrder } from '../../../env/tasks/kit.js';

/** `fill` as it was written first: one regex replace. */
function fillByRegex(template: string, vars: { [key: string]: string | number }): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = vars[k];
    if (v === undefined) throw new Error(`template placeholder {${k}} has no value`);
    return String(v);
  });
}

/** `weightedOrder` as it was written first: `rng.weighted` over a {name: weight} table per round. */
function weightedOrderByTable(rng: Rng, kinds: readonly SubKind[]): SubKind[] {
  const left = kinds.slice();
  const out: SubKind[] = [];
  while (left.length > 0) {
    const weights: { [k: string]: number } = {};
    for (const k of left) weights[k.name] = k.weight;
    const name = rng.weighted(weights);
    const i = left.findIndex((k) => k.name === name);
    out.push(left[i]);
    left.splice(i, 1);
  }
  return out;
}

const outcome = (f: () => string): string => {
  try {
    return `ok:${f()}`;
  } catch (e) {
    return `throws:${(e as Error).message}`;
  }
};

describe('kit fast paths', () => {
  it('fill agrees with the regex replace, including its errors', () => {
    const piece = fc.constantFrom('{', '}', 'n', 'price', '_', '9', '号', ' ', 'link', '{n}', '{price}', '{x}', '{{n}}', '{}');
    const template = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
    const vars = fc.record(
      { n: fc.integer({ min: 0, max: 30 }), price: fc.constantFrom('89.9', '129', ''), _: fc.constant('u') },
      { requiredKeys: ['n'] },
    );
    fc.assert(
      fc.property(template, vars, (t, v) => {
        expect(outcome(() => fill(t, v))).toBe(outcome(() => fillByRegex(t, v)));
      }),
      { numRuns: 5_000 },
    );
  });

  it('weightedOrder draws what the table-per-round version draws', () => {
    for (const kinds of Object.values(SUB_KINDS)) {
      expect(new Set(kinds.map((k) => k.name)).size).toBe(kinds.length); // the shortcut assumes unique names
      for (let seed = 0; seed < 200; seed++) {
        const a = new Rng(seed, 'order');
        const b = new Rng(seed, 'order');
        expect(weightedOrder(a, kinds).map((k) => k.name)).toEqual(weightedOrderByTable(b, kinds).map((k) => k.name));
        expect(a.next()).toBe(b.next()); // and leaves the stream in the same place
      }
    }
  });
});
