/**
 * `textRewriter` matches only spans and the names variants renamed; it must rewrite exactly what the
 * regex formulation it replaced rewrote (kept here as the reference), which read every identifier run:
 * unbalanced and over-long backtick spans, newlines, adjacent spans, names that are prefixes of others or
 * not identifiers at all, and rewriters made before others added names (or made the set start afresh).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadBaseHarness } from '../../harness/index.js';
import { textRewriter } from '../../harness-variants/index.js';
import type { RenameTables } from '../../harness-variants/index.js';
import { propertyRuns } from '../property-runs.js';

/** The regex rewriter textRewriter used to be, with skill names that hold `_` or a digit rewritten bare too. */
function referenceRewriter(tables: RenameTables): (text: string) => string {
  const bare = new Map<string, string>();
  for (const [c, s] of Object.entries(tables.tools)) bare.set(c, s);
  for (const [c, s] of Object.entries(tables.fields)) if (c.includes('_')) bare.set(c, s);
  const quoted = new Map<string, string>();
  for (const [c, s] of Object.entries(tables.skills)) quoted.set(c, s);
  // A skill name that holds "_" or a digit is no word: rewritten bare too (after tools and fields).
  for (const [c, s] of Object.entries(tables.skills)) if (/[_0-9]/.test(c) && !bare.has(c)) bare.set(c, s);
  if (bare.size === 0 && quoted.size === 0) return (t) => t;
  const rewriteBare = (text: string): string => (bare.size === 0 ? text : text.replace(/[A-Za-z0-9_-]+/g, (m) => bare.get(m) ?? m));
  return (text) =>
    text.replace(/`[^`\n]{1,80}`|[A-Za-z0-9_-]+/g, (m) => {
      if (m.charCodeAt(0) !== 96) return bare.get(m) ?? m;
      const inner = m.slice(1, -1);
      const skill = quoted.get(inner);
      return skill !== undefined ? `\`${skill}\`` : `\`${rewriteBare(inner)}\``;
    });
}

/** Names and texts from a small alphabet, so that names collide with the text's runs often. */
// A 78-character part makes names of 79 to 81 characters, either side of the 80-character span limit.
const NAME_PARTS = ['a', 'b', 'ab', 'a_b', 'get_x', 'x-y', 'q', '1', '商', 'a b', 'a.b', '`', '', 'y'.repeat(78)];
// Now and then a numbered name, so that more names are renamed than the rewriter keeps matchers for.
const nameArb = fc.oneof(
  { arbitrary: fc.array(fc.constantFrom(...NAME_PARTS), { minLength: 1, maxLength: 3 }).map((p) => p.join('')), weight: 9 },
  { arbitrary: fc.integer({ min: 0, max: 99_999 }).map((i) => `n${i}`), weight: 2 },
);
const tableArb = fc.dictionary(nameArb, nameArb, { maxKeys: 5 });
const tablesArb: fc.Arbitrary<RenameTables> = fc.record({
  tools: tableArb,
  skills: tableArb,
  fields: tableArb,
  nest: fc.constant({}),
  extra_params: fc.constant({}),
  decoys: fc.constant([]),
});
const TEXT_PARTS = [...NAME_PARTS, ...NAME_PARTS.map((p) => `\`${p}\``), '`', '``', '\n', ' ', '，', '_', '-', '.', 'get_x_v0', '😀'];
const textArb = fc.array(fc.constantFrom(...TEXT_PARTS), { maxLength: 30 }).map((p) => p.join(''));

describe('textRewriter equals the regex formulation', () => {
  it('on random tables and texts', () => {
    fc.assert(
      fc.property(tablesArb, tablesArb, fc.array(textArb, { minLength: 1, maxLength: 5 }), (tables, later, texts) => {
        const ours = textRewriter(tables);
        const ref = referenceRewriter(tables);
        // Texts kept as stable: their tokens are found once and reused by later rewriters (and runs).
        const stable = new Set(texts);
        const oursKept = textRewriter(tables, stable);
        // Another rewriter, made after, may rebuild the matchers: the first one keeps working.
        const oursLater = textRewriter(later);
        const oursLaterKept = textRewriter(later, stable);
        const refLater = referenceRewriter(later);
        for (const t of texts) {
          expect(ours(t)).toBe(ref(t));
          expect(oursKept(t)).toBe(ref(t));
          expect(oursLater(t)).toBe(refLater(t));
          expect(oursLaterKept(t)).toBe(refLater(t));
          expect(oursKept(t)).toBe(ref(t));
        }
      }),
      // Enough distinct names that the set of renamed names starts afresh along the way.
      { numRuns: propertyRuns(3000) },
    );
  });

  it('on every text of the base harnesses with realistic renames', () => {
    const tables: RenameTables = {
      tools: { get_product: 'query_item', check_stock: 't_3f9a2c', load_skill: 'openSkill', search_faq: 'SEARCH_FAQ' },
      skills: { promotion: 'deals', 'product-qa': 's_00ff00', 'after-sales': '售后服务' },
      fields: { item_id: 'goods_id', link_no: 'link_number', reason: 'cause', live_price: 'stream_price' },
      nest: {},
      extra_params: {},
      decoys: [],
    };
    const ours = textRewriter(tables);
    const ref = referenceRewriter(tables);
    for (const locale of ['zh-CN', 'en'] as const) {
      const h = loadBaseHarness(locale);
      const texts = [
        ...h.skills.flatMap((s) => [s.body, s.description]),
        ...h.tools.flatMap((t) => [
          t.function.description ?? '',
          ...Object.values(t.function.parameters.properties ?? {}).map((p) => String((p as { description?: string }).description ?? '')),
        ]),
        ...h.prompt.blocks.flatMap((b) => [b.title, b.template, ...b.items]),
      ];
      let changed = 0;
      for (const t of texts) {
        expect(ours(t)).toBe(ref(t));
        if (ours(t) !== t) changed++;
      }
      expect(changed).toBeGreaterThan(5);
    }
  });
});
