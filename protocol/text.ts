/**
 * Text rules shared by the hooks (env/) and the rewards (rewards/), so that the verifier and the scorer
 * can never disagree about what counts as a number or a stated fact.
 */

// Thousands separators between digit groups ("1,299" -> "1299"): an ASCII comma in a number's integer
// part followed by exactly three digits. A full-width comma is Chinese punctuation ("201.9，538" is two
// numbers), and nothing after a decimal point is a separator. Matched on the text as written (digits of
// either width), before folding.
const THOUSANDS_RE = /(?<![.\uFF0E][0-9\uFF10-\uFF19]*)([0-9\uFF10-\uFF19]),(?=[0-9\uFF10-\uFF19]{3}(?![0-9\uFF10-\uFF19]))/g;

/** Fold full-width ASCII (０-９, Ａ-Ｚ, ％, ．...) to half-width, as viewers and TTS text mix both. */
export function toHalfWidth(text: string): string {
  // A reply is folded by several readers in a row (hooks, facts, claims, prices): the last one is kept.
  if (text === lastHalfIn) return lastHalfOut;
  lastHalfIn = text;
  lastHalfOut = halfWidthOf(text);
  return lastHalfOut;
}

let lastHalfIn = '';
let lastHalfOut = '';

function halfWidthOf(text: string): string {
  // Most texts have no full-width form at all: one scan, and the text itself back.
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0xff01 && c <= 0xff5e) || c === 0x3000) break;
  }
  if (i === text.length) return text;
  let out = text.slice(0, i);
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += c >= 0xff01 && c <= 0xff5e ? String.fromCharCode(c - 0xfee0) : c === 0x3000 ? ' ' : text[i];
  }
  return out;
}

// A number as the `extractNumbers` pipeline finds it, matched in the text as written: digits of either width,
// with the thousands separators THOUSANDS_RE drops (an ASCII comma followed by exactly three digits), then
// optionally a point of either width and more digits (no separators there).
const DIGIT = '[0-9\\uFF10-\\uFF19]';
const INTEGER = `${DIGIT}(?:${DIGIT}|(?<![.\\uFF0E]${DIGIT}*),(?=${DIGIT}{3}(?!${DIGIT})))*`;
const NUMBER_RE = new RegExp(`${INTEGER}(?:[.\\uFF0E]${DIGIT}+)?`, 'g');

/**
 * Every number stated in a text, as numbers: "03" equals 3 and "89.90" equals 89.9; thousands separators
 * are removed. Order of appearance, repeats kept.
 *
 * The rule is a pipeline: drop the separators THOUSANDS_RE matches, fold to half width, then take every
 * match of /\d+(?:\.\d+)?/. It runs over every prompt and tool result, so NUMBER_RE finds the same numbers
 * in one regex call on the text as written, and only a match with full-width forms or separators is
 * folded (test/env/text.test.ts checks the two against each other).
 */
export function extractNumbers(text: string): number[] {
  const matches = text.match(NUMBER_RE);
  const out: number[] = [];
  if (matches !== null) for (let i = 0; i < matches.length; i++) out.push(numberOf(matches[i]));
  return out;
}

/** The value of a NUMBER_RE match: short plain integers by arithmetic, the rest via `Number` (folded if needed). */
function numberOf(match: string): number {
  let value = 0;
  let integer = true;
  for (let k = 0; k < match.length; k++) {
    const c = match.charCodeAt(k);
    if (c >= 0x30 && c <= 0x39) value = value * 10 + (c - 0x30);
    else if (c === 0x2e) integer = false;
    else return Number(folded(match)); // a full-width form or a separator
  }
  // Up to 15 digits the arithmetic is exact (below 2^53); longer runs parse as Number would round them.
  return integer && match.length <= 15 ? value : Number(match);
}

/** A match as the pipeline sees it: half-width, separators dropped (every comma in a match is one). */
function folded(match: string): string {
  let s = '';
  for (let k = 0; k < match.length; k++) {
    const c = match.charCodeAt(k);
    if (c !== 0x2c) s += String.fromCharCode(c >= 0xff01 && c <= 0xff5e ? c - 0xfee0 : c);
  }
  return s;
}

/** Whether a UTF-16 code unit is a regex `\w` character ([A-Za-z0-9_]), what template placeholder names are made of. */
export function isWordCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/** Normalise text for fact matching: half-width, lower case, no whitespace, no thousands separators. */
export function normalizeForMatch(text: string): string {
  // A reply is normalised by several checks in a row (its hooks, then the prompt's stated rules): the
  // last one is kept.
  if (text !== lastNormalizedIn) {
    lastNormalizedOut = toHalfWidth(text.replace(THOUSANDS_RE, '$1')).toLowerCase().replace(/\s+/g, '');
    lastNormalizedIn = text;
  }
  return lastNormalizedOut;
}

let lastNormalizedIn = '';
let lastNormalizedOut = '';

const HAN_CHAR_RE = /^\p{Script=Han}$/u;
/** Per BMP code unit: 0 not classified yet, 1 Han, 2 not Han (filled as characters are first seen). */
const hanTable = new Uint8Array(0x10000);
/** The first code unit of the Han script (CJK Radicals Supplement): everything below is not Han. */
const FIRST_HAN = 0x2e80;

/**
 * How many characters of a text are of the Han script and how many are Latin letters ([A-Za-z]): what
 * `text.match(/\p{Script=Han}/gu)` and `text.match(/[A-Za-z]/g)` count, without making an array of every
 * match. A BMP character is classified by the same regex the first time it is seen, then looked up; an
 * astral one (a surrogate pair) by the regex every time.
 */
export function scriptCounts(text: string): Readonly<{ han: number; latin: number }> {
  if (text === lastCountsIn) return lastCounts;
  let han = 0;
  let latin = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < FIRST_HAN) {
      if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        if (HAN_CHAR_RE.test(text.slice(i, i + 2))) han++;
        i++;
        continue;
      }
    }
    let kind = hanTable[c];
    if (kind === 0) hanTable[c] = kind = HAN_CHAR_RE.test(String.fromCharCode(c)) ? 1 : 2;
    if (kind === 1) han++;
  }
  lastCountsIn = text;
  lastCounts = Object.freeze({ han, latin });
  return lastCounts;
}

let lastCountsIn = '';
let lastCounts: Readonly<{ han: number; latin: number }> = Object.freeze({ han: 0, latin: 0 });

const isAlnumCode = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);

/**
 * Whether `text` states `term` as fact matching reads it: both normalised as `normalizeForMatch` does
 * (so "¥ 1,299" states "¥1299"), and the term is not the tail or the inside of a longer word or number:
 * a term that begins with a Latin letter or a digit must not follow one ("AI" is not stated by "details",
 * "99" not by "199"); a number must end where the reply's number ends, trailing decimal zeros aside
 * ("89.9" is stated by "89.90", "99" neither by "990" nor by "99.5"), and is never joined across a
 * space ("8 9.9" does not state "89.9"); a short word (three letters or fewer) must end too ("AI" is not
 * stated by "aim"). Longer words may run on, as English
 * inflects ("thank" in "thanks", "medicine" before an ending appended without a space). A space that the
 * normalisation removed still counts as a break ("AI host" states "AI").
 */
export function statesTerm(text: string, term: string): boolean {
  const n = needleOf(term);
  const needle = n.text;
  if (needle.length === 0) return false;
  const { hay, breaks } = haystackOf(text);
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    const startOk = !n.edgeStart || at === 0 || !isAlnumCode(hay.charCodeAt(at - 1)) || breaks.includes(at);
    let endOk = true;
    if (end < hay.length && !breaks.includes(end)) {
      if (n.endsInDigit) endOk = n.decimal ? decimalEndOk(hay, end) : numberEndOk(hay, end);
      else if (n.shortWord) endOk = !isAlnumCode(hay.charCodeAt(end));
    }
    // Digits that whitespace separated are two numbers, not one ("8 9.9" does not state "89.9").
    if (startOk && endOk && !spansNumberBreak(hay, breaks, at, end)) return true;
  }
  return false;
}

/**
 * What follows a number that ends in its decimals (`hay[end]`, not a break) lets it end there: "89.9" is
 * stated by "89.90" (trailing zeros of its decimals) and "89.9元", not by "89.95" or "89.905". As it was
 * written, `!/^0*[0-9]/.test(rest.replace(/^0+(?![0-9])/, ''))` over the 16 characters `rest` after
 * `end`: a run of zeros that a non-digit (or the window's end) follows goes; then no digit may follow.
 */
function decimalEndOk(hay: string, end: number): boolean {
  const w = Math.min(end + REST_WINDOW, hay.length);
  let j = end;
  while (j < w && hay.charCodeAt(j) === 0x30) j++;
  if (j > end) return j === w || !isDigitCode(hay.charCodeAt(j));
  return !isDigitCode(hay.charCodeAt(end));
}

/**
 * What follows a whole number lets it end there: "99" is stated by "99.0" and "99.00", not by "990" or
 * "99.5". As it was written, `!/^[0-9]/.test(rest) && !/^\.0*[1-9]/.test(rest)` over the 16 characters
 * `rest` after `end`.
 */
function numberEndOk(hay: string, end: number): boolean {
  if (isDigitCode(hay.charCodeAt(end))) return false;
  if (hay.charCodeAt(end) !== 0x2e) return true;
  const w = Math.min(end + REST_WINDOW, hay.length);
  let k = end + 1;
  while (k < w && hay.charCodeAt(k) === 0x30) k++;
  // A zero run was skipped: a digit after it is 1-9.
  return !(k < w && isDigitCode(hay.charCodeAt(k)));
}

/** How far past a match statesTerm looks to decide whether a number ends there (characters). */
const REST_WINDOW = 16;

/** Whether a dropped space inside [at, end) stood between two digits. */
function spansNumberBreak(hay: string, breaks: readonly number[], at: number, end: number): boolean {
  for (const b of breaks) {
    if (b > at && b < end && isDigitCode(hay.charCodeAt(b - 1)) && isDigitCode(hay.charCodeAt(b))) return true;
  }
  return false;
}

const isDigitCode = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** A term as `statesTerm` looks for it: normalised, with what decides where a match may start and end. */
interface Needle {
  text: string;
  /** It begins with a Latin letter or a digit: it must not follow one. */
  edgeStart: boolean;
  /** It ends in a digit: what follows must not continue the number. */
  endsInDigit: boolean;
  /** Three Latin letters or fewer: it must end where the word ends. */
  shortWord: boolean;
  /** It ends in a decimal part ("89.9", "12."). */
  decimal: boolean;
}

// Terms are facts' values (names, prices, codes) and repeat across episodes: normalised once each.
const needles = new Map<string, Needle>();
const MAX_NEEDLES = 4096;

function needleOf(term: string): Needle {
  let needle = needles.get(term);
  if (needle === undefined) {
    const text = normalizeForMatch(term);
    needle = {
      text,
      edgeStart: isAlnumCode(text.charCodeAt(0)),
      endsInDigit: isDigitCode(text.charCodeAt(text.length - 1)),
      shortWord: text.length <= 3 && /^[a-z]+$/.test(text),
      decimal: /[0-9]\.[0-9]*$/.test(text),
    };
    if (needles.size >= MAX_NEEDLES) needles.clear();
    needles.set(term, needle);
  }
  return needle;
}

/** A text as `statesTerm` searches it: normalised, and where the whitespace it dropped stood. */
interface Haystack {
  text: string;
  hay: string;
  breaks: readonly number[];
}

// A reply is searched for every fact and every value of a fact in a row: its haystack is made once.
let lastHaystack: Haystack | null = null;

function haystackOf(text: string): Haystack {
  if (lastHaystack !== null && lastHaystack.text === text) return lastHaystack;
  const pre = toHalfWidth(text.replace(THOUSANDS_RE, '$1')).toLowerCase();
  let hay = '';
  const breaks: number[] = [];
  let pending = false;
  for (const ch of pre) {
    if (/\s/u.test(ch)) {
      pending = true;
      continue;
    }
    if (pending) breaks.push(hay.length);
    pending = false;
    hay += ch;
  }
  lastHaystack = { text, hay, breaks };
  return lastHaystack;
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

/** Levenshtein distance between two strings ("did you mean" suggestions). */
export function editDistance(a: string, b: string): number {
  // One row of the dynamic-programming table, updated in place.
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}
