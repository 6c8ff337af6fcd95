/**
 * Deterministic lexical matching for search_products and search_faq: character bigrams for Chinese runs
 * (there are no word boundaries to split on) and words for Latin runs, so a mixed query such as
 * "SPF50 防晒" works in either locale. Score = number of distinct query tokens found in the document.
 */
import { toHalfWidth } from '../protocol/text.js';

// Sentence particles carry no topic; splitting runs on them keeps "能用吗" from matching every "...吗".
const PARTICLES = /[吗呢吧啊呀的了么嘛哦]/g;
const CJK_RUN = /[\u3400-\u9fff]+/g;
const LATIN_RUN = /[a-z0-9]+(?:\.[0-9]+)?/g;
const EN_STOP: ReadonlySet<string> = new Set(
  'a an the is are am it its do does did can could i me my you your we for of to and or with this that how what which in on at be have has there any will would should much many'.split(
    ' ',
  ),
);

/** The distinct search tokens of a text. */
export function searchTokens(text: string): Set<string> {
  const s = toHalfWidth(text).toLowerCase();
  const out = new Set<string>();
  for (const m of s.replace(PARTICLES, ' ').matchAll(CJK_RUN)) {
    const run = m[0];
    if (run.length === 1) out.add(run);
    for (let i = 0; i + 1 < run.length; i++) out.add(run.slice(i, i + 2));
  }
  for (const m of s.matchAll(LATIN_RUN)) {
    let w = m[0];
    if (EN_STOP.has(w) || (w.length < 2 && !/\d/.test(w))) continue;
    // Crude plural folding: "packs" matches "pack", never shortening short words ("gas", "yes").
    if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    out.add(w);
  }
  return out;
}

/** How many distinct query tokens the document contains. */
export function overlapScore(query: ReadonlySet<string>, doc: ReadonlySet<string>): number {
  let n = 0;
  for (const t of query) if (doc.has(t)) n++;
  return n;
}

/**
 * The `k` best documents with a positive score, best first; ties keep input order (callers pass
 * documents in a stable order such as link number), so results are deterministic.
 */
export function topK<T>(query: ReadonlySet<string>, docs: readonly { item: T; tokens: ReadonlySet<string> }[], k: number): T[] {
  const scored: { item: T; score: number; index: number }[] = [];
  docs.forEach((d, index) => {
    const score = overlapScore(query, d.tokens);
    if (score > 0) scored.push({ item: d.item, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, k).map((s) => s.item);
}
