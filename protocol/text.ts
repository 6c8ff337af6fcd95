/**
 * Text rules shared by the hooks (env/) and the rewards (rewards/), so that the verifier and the scorer
 * can never disagree about what counts as a number or a stated fact.
 */

// Thousands separators between digit groups ("1,299" -> "1299"); full-width digits are folded first.
const THOUSANDS_RE = /(\d),(?=\d{3}(?!\d))/g;

/** Fold full-width ASCII (０-９, Ａ-Ｚ, ％, ．...) to half-width, as viewers and TTS text mix both. */
export function toHalfWidth(text: string): string {
  return text.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/g, ' ');
}

/** A code unit as `toHalfWidth` folds it (only digits, ',' and '.' matter to `extractNumbers`). */
function halfWidthCode(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xff01 && c <= 0xff5e ? c - 0xfee0 : c;
}

/** Whether the folded code unit at `i` is an ASCII digit (false past either end). */
function digitAt(text: string, i: number): boolean {
  const c = halfWidthCode(text, i); // NaN past the ends
  return c >= 0x30 && c <= 0x39;
}

/** Whether the folded code unit at `i` is a comma that THOUSANDS_RE removes: `\d,` followed by exactly three digits. */
function separatorAt(text: string, i: number): boolean {
  return (
    halfWidthCode(text, i) === 0x2c &&
    digitAt(text, i - 1) &&
    digitAt(text, i + 1) &&
    digitAt(text, i + 2) &&
    digitAt(text, i + 3) &&
    !digitAt(text, i + 4)
  );
}

/** A digit in either width: where a number can start. */
const DIGIT_RE = /[0-9\uFF10-\uFF19]/g;

/** The end of a `\d+` run from `i` (a dropped separator between digits joins them). */
function digitsEnd(text: string, i: number): number {
  while (digitAt(text, i) || separatorAt(text, i)) i++;
  return i;
}

/**
 * Every number stated in a text, as numbers: "03" equals 3 and "89.90" equals 89.9; thousands separators
 * are removed. Order of appearance, repeats kept.
 *
 * The rule is a regex pipeline: fold to half width, drop the separators THOUSANDS_RE matches, then take
 * every match of /\d+(?:\.\d+)?/. It runs over every prompt and tool result, so this reads the numbers in
 * place instead, without building the folded copy (a separator's fate depends only on its neighbours):
 * the regex engine skips to each digit, the loop reads the number there. test/env/text.test.ts checks it
 * against the regexes.
 */
export function extractNumbers(text: string): number[] {
  const out: number[] = [];
  DIGIT_RE.lastIndex = 0;
  while (DIGIT_RE.test(text)) {
    const start = DIGIT_RE.lastIndex - 1;
    let end = digitsEnd(text, start);
    if (halfWidthCode(text, end) === 0x2e && digitAt(text, end + 1)) end = digitsEnd(text, end + 1);
    out.push(numberIn(text, start, end));
    DIGIT_RE.lastIndex = end; // the character at `end` ends the number: the search goes on from there
  }
  return out;
}

/** The value of the match `text[start, end)`: plain short integers by arithmetic, the rest via `Number`. */
function numberIn(text: string, start: number, end: number): number {
  let value = 0;
  let plain = true; // ASCII digits and '.' only: the match is its own folded text
  let integer = true;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0x30 && c <= 0x39) value = value * 10 + (c - 0x30);
    else if (c === 0x2e) integer = false;
    else plain = false;
  }
  // Up to 15 digits the arithmetic is exact (below 2^53); longer runs parse as Number would round them.
  if (plain && integer && end - start <= 15) return value;
  return Number(plain ? text.slice(start, end) : foldedNumber(text, start, end));
}

/** The text of a match as the regex pipeline sees it: folded, separators dropped. */
function foldedNumber(text: string, start: number, end: number): string {
  let s = '';
  for (let k = start; k < end; k++) if (!separatorAt(text, k)) s += String.fromCharCode(halfWidthCode(text, k));
  return s;
}

/** Whether a UTF-16 code unit is a regex `\w` character ([A-Za-z0-9_]), what template placeholder names are made of. */
export function isWordCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/** Normalise text for fact matching: half-width, lower case, no whitespace, no thousands separators. */
export function normalizeForMatch(text: string): string {
  return toHalfWidth(text).toLowerCase().replace(THOUSANDS_RE, '$1').replace(/\s+/g, '');
}

/**
 * Length as a person (and TTS) counts it: code points, not UTF-16 units. Counted as the string iterator
 * would (a surrogate pair is one code point, a lone surrogate one too) without making a string per step.
 */
export function charLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
