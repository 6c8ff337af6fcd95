/**
 * Text rules shared by the hooks (env/) and the rewards (rewards/), so that the verifier and the scorer
 * can never disagree about what counts as a number or a stated fact.
 */

const NUMBER_RE = /\d+(?:\.\d+)?/g;
// Thousands separators between digit groups ("1,299" -> "1299"); full-width digits are folded first.
const THOUSANDS_RE = /(\d),(?=\d{3}(?!\d))/g;

/** Fold full-width ASCII (０-９, Ａ-Ｚ, ％, ．...) to half-width, as viewers and TTS text mix both. */
export function toHalfWidth(text: string): string {
  return text.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/g, ' ');
}

/**
 * Every number stated in a text, as numbers: "03" equals 3 and "89.90" equals 89.9; thousands separators
 * are removed. Order of appearance, repeats kept.
 */
export function extractNumbers(text: string): number[] {
  const folded = toHalfWidth(text).replace(THOUSANDS_RE, '$1');
  const out: number[] = [];
  for (const m of folded.matchAll(NUMBER_RE)) out.push(Number(m[0]));
  return out;
}

/** Normalise text for fact matching: half-width, lower case, no whitespace, no thousands separators. */
export function normalizeForMatch(text: string): string {
  return toHalfWidth(text).toLowerCase().replace(THOUSANDS_RE, '$1').replace(/\s+/g, '');
}

/** Length as a person (and TTS) counts it: code points, not UTF-16 units. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
