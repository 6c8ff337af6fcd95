/**
 * Whether a reply states a fact's content, not its wording.
 *
 * A fact value ("92% modal, 8% spandex", "该订单已经在退款处理中", "seven-day no-reason returns are
 * supported") is read into atoms: its numbers, and its content words (English: words less function
 * words, lightly stemmed; Chinese: the character pairs of each run of Han characters). Each locale's
 * equivalent forms are first folded to one concept ("7-day", "seven days" and "七天" are one concept;
 * "sold out", "out of stock", "没货" and "卖完了" are "not in stock"). A value is stated when some span of
 * one to three consecutive clauses of the reply holds every number of the value and at least
 * `coverage` of its content atoms, in any order, with the same polarity: a negated claim ("it hasn't
 * shipped") is not the claim ("has shipped"), and the negation of a negation is the claim.
 *
 * `factStated` in common.ts answers first by the exact term (as before); this module decides what the
 * exact term misses. Nothing here is tuned to a harness: the concepts are words of the language.
 */
import type { Fact, Locale } from '../protocol/domain.js';
import { extractNumbers, toHalfWidth } from '../protocol/text.js';

/** The default share of a value's content atoms a span must hold (numbers are always all required). */
export const DEFAULT_COVERAGE = 0.6;
/** The share of a Chinese value's content characters a span must hold, read character by character. */
const CHAR_COVERAGE = 0.7;

// A concept is written as one private-use character, so that the English word splitter and the Chinese
// pair maker both treat it as one indivisible atom.
const CONCEPTS = [
  'IN_STOCK',
  'SHIPPED',
  'DELIVERED',
  'SEVEN_DAY',
  'NO_REASON',
  'NO_MINIMUM',
  'HUMAN',
  'THANKS',
  'RETURN',
  'NEUTRAL',
  'AI',
  'LIVE_PRICE',
  'LIST_PRICE',
  'COUPON',
  'FREE_SHIPPING',
  'WARRANTY',
] as const;
type Concept = (typeof CONCEPTS)[number];
const MARK: Record<Concept, string> = Object.fromEntries(CONCEPTS.map((c, i) => [c, String.fromCharCode(0xe000 + i)])) as Record<
  Concept,
  string
>;
const NEUTRAL = MARK.NEUTRAL;

/**
 * Equivalent forms per locale, longest first within a table: [pattern, replacement]. A replacement may
 * carry a negation word ("not <IN_STOCK>") so that "sold out" and "not in stock" become one reading.
 * English patterns run on lower-cased text with contractions expanded ("hasn't" -> "has not").
 */
// Each form lists words one of which its pattern needs: a text holding none is not scanned for it (most
// replies hold few of the forms; a substring test is much cheaper than a pattern of \b alternations).
const EN_FORMS: ReadonlyArray<[RegExp, string, readonly string[]]> = [
  // Idioms that contain a negation word but negate nothing.
  [/\bno (?:problem|worries|worry|rush|pressure)\b/g, NEUTRAL, ['no ']],
  [/\bnot only\b/g, NEUTRAL, ['not only']],
  [/\bno[- ]questions[- ]asked\b/g, MARK.NO_REASON, ['question']],
  [/\bno[- ]reason\b/g, MARK.NO_REASON, ['reason']],
  [/\b(?:no|zero)[- ](?:minimum|threshold|min)(?: spend| purchase| order)?\b/g, MARK.NO_MINIMUM, ['min', 'threshold']],
  [/\bwithout (?:a |any )?(?:minimum|threshold)(?: spend)?\b/g, MARK.NO_MINIMUM, ['without']],
  [/\b(?:7|seven)[- ]days?\b/g, MARK.SEVEN_DAY, ['day']],
  [/\bout of stock\b|\bsold[- ]out\b|\bnone left\b|\bunavailable\b|\bno (?:more )?stock\b|\bgone\b/g, ` not ${MARK.IN_STOCK} `, ['stock', 'sold', 'none', 'unavailable', 'gone']],
  [/\bin[- ]stock\b|\bavailable\b|\bstill (?:have|has|got) (?:it|some|stock)\b|\b(?:are|is) (?:still )?left\b|\bleft in stock\b/g, MARK.IN_STOCK, ['stock', 'available', 'still', 'left']],
  [/\bwill (?:be )?ship(?:ped)?\b|\bships? (?:with)?in\b|\bonce (?:it'?s )?paid\b/g, NEUTRAL, ['ship', 'paid']],
  // A shipment something waits for is not one made ("once it ships you'll get the tracking number").
  [/\b(?:once|after|when|until|before) (?:it|they|the (?:order|parcel|package)) (?:is |are |has |have )?(?:been )?ship(?:s|ped)?\b/g, NEUTRAL, ['ship']],
  // A count left is a stock claim ("7 left").
  [/(\d+) (?:are |is )?left\b/g, `$1 ${MARK.IN_STOCK}`, ['left']],
  [/\bawaiting shipment\b|\bwaiting to (?:be )?ship(?:ped)?\b|\byet to (?:be )?ship(?:ped)?\b/g, ` not ${MARK.SHIPPED} `, ['ship']],
  [/\bship(?:ped|s)? out\b|\bshipped\b|\bdispatched\b|\bsent out\b|\bon (?:its|the) way\b|\bin transit\b/g, MARK.SHIPPED, ['ship', 'dispatch', 'sent', 'way', 'transit']],
  [/\bdelivered\b|\barrived\b|\bsigned for\b/g, MARK.DELIVERED, ['deliver', 'arrived', 'signed']],
  [/\bcustomer (?:service|support|care)\b|\bsupport team\b|\bservice team\b|\bafter-sales team\b|\bhuman\b|\breal person\b|\b(?:an |a )?(?:agent|specialist|staff|colleague)s?\b/g, MARK.HUMAN, ['customer', 'support', 'service', 'team', 'human', 'person', 'agent', 'specialist', 'staff', 'colleague']],
  [/\bthank(?:s| you)?\b|\bappreciate\b/g, MARK.THANKS, ['thank', 'apprecia']],
  // Asking for one's money back is a return here: "you can request a refund" answers "can I return it?".
  [/\breturn(?:s|ed|ing)?\b|\bsend (?:it|them) back\b|\brefund(?:s|ed|ing)?\b|\bmoney back\b/g, MARK.RETURN, ['return', 'back', 'refund']],
  [/\bdigital (?:host|human|avatar)\b|\bvirtual (?:host|avatar)?\b|\bavatar\b|\bai\b/g, MARK.AI, ['digital', 'virtual', 'avatar', 'ai']],
  [/\blive price\b|\bprice (?:right )?now\b|\btoday'?s price\b|\bin the live room\b/g, MARK.LIVE_PRICE, ['price', 'live']],
  [/\blist price\b|\boriginal(?:ly)?(?: price)?\b|\bregular(?:ly| price)?\b|\bdown from\b|\busually\b|\bnormally\b|\binstead of\b|\bwas\b/g, MARK.LIST_PRICE, ['list', 'original', 'regular', 'down from', 'usually', 'normally', 'instead', 'was']],
  [/\bfree (?:shipping|delivery)\b|\bships free\b/g, MARK.FREE_SHIPPING, ['free']],
];

const ZH_FORMS: ReadonlyArray<[RegExp, string]> = [
  // A shipment promised for later is not a shipment made ("付款后72小时内会从广州发出").
  [/((?:会|将|才会?|就会?|后)[^，。！？；]{0,14}?)发(?:货|出)/g, `$1${NEUTRAL}`],
  // ...and so is one that something waits for ("发货后订单里就能看到运单号").
  [/发(?:货|出)(?:之)?后/g, NEUTRAL],
  // A count left is a stock claim ("还剩460件", "还有7件").
  [/(?:还剩|剩余|还有)(?=\d)/g, MARK.IN_STOCK],
  [/没问题|不客气|不好意思|不错|不锈钢|不同|不仅|不过|不用担心|无线|无缝|无添加|无糖|无痕|无香|非常|别的|别人|未来/g, NEUTRAL],
  [/七天|7天/g, MARK.SEVEN_DAY],
  [/无理由/g, MARK.NO_REASON],
  [/无门槛|没有门槛|不限门槛/g, MARK.NO_MINIMUM],
  [/售罄|卖完了?|卖光了?|抢光了?|断货|缺货|无货|没(?:有)?(?:货|库存|现货)/g, `不${MARK.IN_STOCK}`],
  [/有(?:现)?货|现货|有库存|还有(?:的|库存)?|库存充足/g, MARK.IN_STOCK],
  [/待发货/g, `未${MARK.SHIPPED}`],
  [/(?:已经?)?发(?:货|出)了?|寄出|在路上|运输(?:途)?中/g, MARK.SHIPPED],
  [/(?:已经?)?(?:签收|送达)/g, MARK.DELIVERED],
  [/人工(?:客服)?|客服|专人|售后同事|工作人员|售后团队/g, MARK.HUMAN],
  [/谢谢|感谢|多谢|谢啦/g, MARK.THANKS],
  [/退款|退货|退回|退掉|可以退(?![款货回掉])|能退(?![款货回掉])|退/g, MARK.RETURN],
  [/数字人|虚拟主播|AI主播|ai/g, MARK.AI],
  [/直播价|到手价|现在(?:只要|是)?|今天(?:只要)?/g, MARK.LIVE_PRICE],
  [/原价|划线价|日常价|专柜价|吊牌价|平时|之前/g, MARK.LIST_PRICE],
  [/包邮|免运费/g, MARK.FREE_SHIPPING],
];

const EN_NUMBER_WORDS: Record<string, string> = {
  one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10', twelve: '12',
};
const ZH_DIGITS: Record<string, string> = { 一: '1', 两: '2', 二: '2', 三: '3', 四: '4', 五: '5', 六: '6', 七: '7', 八: '8', 九: '9', 十: '10' };

// Function words: they carry no content of a fact. Modal verbs ("can") and negations stay out of this
// list on purpose: "can be returned" keeps "can", and negation is read as polarity.
const EN_STOP = new Set(
  (
    'a an the is are was were be been being am it its it\'s this that these those to of for in on at by with and or but so as from ' +
    'your you yours my me i we our us they them their he she his her do does did have has had just also very really right now here ' +
    'there yes yeah ok okay sure oh well all any some one ones if than then which who what when where how about into up out too ' +
    'only still yet more most much many get got please let lets let\'s our ours will would can could'
  ).split(' '),
);
// "can" and "will" are listed above for stemming symmetry; these keep them as content anyway.
const EN_KEEP = new Set(['can', 'could', 'will']);


function expandContractions(s: string): string {
  // Most replies have no apostrophe and no "cannot": nothing to expand, no scan.
  if (!/['’‘`]|cannot/.test(s)) return s;
  return s
    .replace(/[’‘`]/g, "'")
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/\b(\w+)n't\b/g, '$1 not')
    .replace(/\bcannot\b/g, 'can not');
}

function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es') && !w.endsWith('ses')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** A text folded for reading: half-width, lower case, each locale's equivalent forms as concepts. */
function fold(text: string, locale: Locale): string {
  // A word boundary the text lost ("1 yearThanks for watching!", an ending appended without a space).
  let s = toHalfWidth(text).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (locale === 'en') {
    s = expandContractions(s);
    s = s.replace(/\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b(?=[- ](?:year|month|week|day|hour|pack|piece|bag|bottle|box|tablet|softgel|capsule|time)s?\b)/g, (w) => EN_NUMBER_WORDS[w]);
    for (const [re, to, needs] of EN_FORMS) {
      let present = false;
      for (let k = 0; k < needs.length && !present; k++) present = s.includes(needs[k]);
      if (present) s = s.replace(re, ` ${to} `);
    }
  } else {
    s = s.replace(/([一两二三四五六七八九十])(?=(?:个月|年|天|片|粒|次|包|袋|瓶|盒|件|小时|周))/g, (d) => ZH_DIGITS[d]);
    s = s.replace(/(\d+)点半/g, '$1点30');
    for (const [re, to] of ZH_FORMS) s = s.replace(re, to);
  }
  return s;
}

// Clause breaks: sentence and clause punctuation of both scripts (a decimal point between digits is not one).
const CLAUSE_RE = /[!?;,。！？；，、:：\n]+|\.(?!\d)|\s[-–—]\s/;

interface Reading {
  numbers: number[];
  /** Chinese only: each content character with its polarities (a looser reading, for claims a reply must make). */
  chars: Map<string, number>;
  /**
   * Each content atom with the polarities it occurs in, as bits: PLAIN, NEGATED (an odd number of
   * negation words shortly before it: three words in English, three characters in Chinese).
   */
  atoms: Map<string, number>;
  listCue: boolean;
}

function isHan(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf);
}

const isMark = (c: number): boolean => c >= 0xe000 && c <= 0xe0ff;
const EN_NEG_WORD = /^(?:not|no|never|none|nothing|without|nor)$/;

// Polarities as bits of one number per atom (no Set per atom: a reply has a few hundred).
const PLAIN = 1;
const NEGATED = 2;

function addAtom(atoms: Map<string, number>, atom: string, negated: boolean): void {
  atoms.set(atom, (atoms.get(atom) ?? 0) | (negated ? NEGATED : PLAIN));
}

/** How far back a negation reaches: words in English, characters in Chinese. */
const NEG_REACH = 3;

/** Where a scan puts what it reads: a value's Reading, or a reply's clause masks. */
interface Sink {
  atom(atom: string, negated: boolean, asserted: boolean): void;
  char(ch: string, negated: boolean, asserted: boolean): void;
}

/**
 * Read a folded text's atoms into `sink`. `reply`: a reply offers every character of its Chinese runs
 * (`char`, where a value's lone character is looked up); a value's lone character is an atom of its own.
 */
function scan(s: string, locale: Locale, reply: boolean, sink: Sink): void {
  if (locale === 'en') {
    // Words and concepts in order; a negation reaches the next few words of its clause.
    const tokens = s.match(/[a-z]+|[\ue000-\ue0ff]|[0-9]+(?:\.[0-9]+)?|[,;:]/g) ?? [];
    const negAt: number[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t === ',' || t === ';' || t === ':') {
        negAt.length = 0; // a negation does not reach into the next clause of a span
        continue;
      }
      if (EN_NEG_WORD.test(t)) {
        negAt.push(i);
        continue;
      }
      let negs = 0;
      for (const j of negAt) if (i - j <= NEG_REACH) negs++;
      const c = t.charCodeAt(0);
      let atom: string | null = null;
      if (isMark(c)) atom = t !== NEUTRAL ? t : null;
      else if (c >= 0x61 && t.length >= 2 && (!EN_STOP.has(t) || EN_KEEP.has(t))) atom = stem(t);
      if (atom !== null) sink.atom(atom, negs % 2 === 1, negAt.length % 2 === 0);
    }
    return;
  }
  // negs[i]: negations before position i; clauseNegs[i]: those since the clause began.
  const negs = new Uint16Array(s.length + 1);
  const clauseNegs = new Uint16Array(s.length + 1);
  for (let k = 0; k < s.length; k++) {
    const neg = zhClass(s.charCodeAt(k)) === ZH_NEG ? 1 : 0;
    negs[k + 1] = negs[k] + neg;
    clauseNegs[k + 1] = s[k] === ',' ? 0 : clauseNegs[k] + neg;
  }
  const negatedAt = (i: number): boolean => (negs[i] - negs[Math.max(0, i - NEG_REACH)]) % 2 === 1;
  // Whether the negations since the clause began cancel out (none, or a double one): the clause
  // asserts what follows.
  const assertedAt = (i: number): boolean => clauseNegs[i] % 2 === 0;
  let runStart = -1;
  let runEnd = -1;
  const flush = (): void => {
    if (runStart < 0) return;
    const n = runEnd - runStart;
    if (n === 1 && !reply) sink.atom(s[runStart], negatedAt(runStart), assertedAt(runStart));
    for (let i = runStart; i < runEnd; i++) sink.char(s[i], negatedAt(i), assertedAt(i));
    for (let i = runStart; i + 1 < runEnd; i++) sink.atom(s.slice(i, i + 2), negatedAt(i), assertedAt(i));
    runStart = -1;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (zhClass(c) === ZH_CONTENT) {
      // A run is contiguous in the text, so its pairs are pairs of the text.
      if (runStart >= 0 && runEnd !== i) flush();
      if (runStart < 0) runStart = i;
      runEnd = i + 1;
    } else {
      flush();
      if (isMark(c) && s[i] !== NEUTRAL) sink.atom(s[i], negatedAt(i), assertedAt(i));
    }
  }
  flush();
  for (const m of s.matchAll(/[a-z]{2,}/g)) sink.atom(m[0], negatedAt(m.index ?? 0), assertedAt(m.index ?? 0));
}

/** A value's reading. */
function readFolded(s: string, locale: Locale): Reading {
  const atoms = new Map<string, number>();
  const chars = new Map<string, number>();
  scan(s, locale, false, {
    atom(atom, negated) {
      addAtom(atoms, atom, negated);
    },
    char(ch, negated) {
      addAtom(chars, ch, negated);
    },
  });
  return { numbers: extractNumbers(s), chars, atoms, listCue: s.includes(MARK.LIST_PRICE) };
}

// Chinese function characters: particles and negations carry no content (negation is read as polarity).
const ZH_FUNCTION = new Set([...'的了吗呢啊呀哦吧嘛哈啦么是在和与及也都就很还这那个您你我们他她它把被给让对着过又再才已经将会要能可以不没未无别非']);

const ZH_NEG_CHARS = new Set([...'不没未无别非']);

// Per BMP code unit, what a character is to the Chinese reader: 0 other, 1 content (Han, not a function
// character), 2 function, 3 negation (also a function character). A table, not a Set of one-character
// strings per lookup: a reply is read character by character.
const ZH_OTHER = 0;
const ZH_CONTENT = 1;
const ZH_NEG = 3;
const zhTable = (() => {
  const t = new Uint8Array(0x10000);
  for (let c = 0x3400; c <= 0x9fff; c++) if (isHan(c)) t[c] = ZH_CONTENT;
  for (const ch of ZH_FUNCTION) t[ch.charCodeAt(0)] = 2;
  for (const ch of ZH_NEG_CHARS) t[ch.charCodeAt(0)] = ZH_NEG;
  return t;
})();
const zhClass = (c: number): number => (c < 0x10000 ? zhTable[c] : ZH_OTHER);


/**
 * A reply read clause by clause; a span of two or three consecutive clauses is the union of their
 * readings (a negation never reaches past its clause), merged on first need: most facts are stated in one
 * clause, so most replies never merge.
 */
/**
 * Per atom of a reply: the clauses (bits) it occurs in plain, negated, and asserted. Asserted: said in a
 * clause with no negation before it (or a double one). A claim the reply declines ("I can't say it's the
 * best ever", "不能说能治失眠") is no assertion, however far the negation stands from it: forbidden claims
 * are read there.
 */
type Bits = [plain: number, negated: number, asserted: number];

function mark(map: Map<string, Bits>, key: string, bit: number, negated: boolean, asserted: boolean): void {
  let b = map.get(key);
  if (b === undefined) map.set(key, (b = [0, 0, 0]));
  if (negated) b[1] |= bit;
  else b[0] |= bit;
  if (asserted) b[2] |= bit;
}

/** Clause bits: a reply of more than 31 clauses keeps its tail in the last bit. */
const MAX_CLAUSES = 31;

/**
 * A reply read once, clause by clause, into one map of atoms whose bits say in which clauses each
 * occurs (plain, negated, asserted): a span of one to three consecutive clauses is a mask, the whole reply
 * the full mask. Read on first need: a value whose numbers or atoms are not in the folded text at all is
 * decided without reading.
 */
class ReplyReading {
  readonly #locale: Locale;
  /** The folded text: every atom of every clause is a substring of it. */
  readonly folded: string;
  /** Every number of the folded reply. */
  readonly numbers: number[];
  #read = false;
  count = 0;
  readonly clauseNumbers: number[][] = [];
  readonly atoms = new Map<string, Bits>();
  readonly chars = new Map<string, Bits>();
  listMask = 0;

  constructor(folded: string, locale: Locale) {
    this.folded = folded;
    this.#locale = locale;
    this.numbers = extractNumbers(folded);
  }

  read(): this {
    if (this.#read) return this;
    this.#read = true;
    const atoms = this.atoms;
    const chars = this.chars;
    let bit = 0;
    const sink: Sink = {
      atom: (atom, negated, asserted) => mark(atoms, atom, bit, negated, asserted),
      char: (ch, negated, asserted) => mark(chars, ch, bit, negated, asserted),
    };
    for (const c of this.folded.split(CLAUSE_RE)) {
      if (c.trim().length === 0) continue;
      const at = Math.min(this.count, MAX_CLAUSES - 1);
      bit = 1 << at;
      scan(c, this.#locale, true, sink);
      if (at === this.count) this.clauseNumbers.push(extractNumbers(c));
      else for (const n of extractNumbers(c)) this.clauseNumbers[at].push(n);
      if (c.includes(MARK.LIST_PRICE)) this.listMask |= bit;
      if (this.count < MAX_CLAUSES) this.count++;
    }
    return this;
  }
}

let lastReplyKey = '';
let lastReply: ReplyReading | null = null;

function readReply(reply: string, locale: Locale): ReplyReading {
  const key = `${locale}\u0000${reply}`;
  if (key === lastReplyKey && lastReply !== null) return lastReply;
  lastReplyKey = key;
  lastReply = new ReplyReading(fold(reply, locale), locale);
  return lastReply;
}

const valueCache = new Map<string, Reading>();

function readValue(value: string, locale: Locale): Reading {
  // One map per locale: no key string to build per lookup.
  const cache = locale === 'en' ? valueCacheEn : valueCache;
  let r = cache.get(value);
  if (r === undefined) {
    r = readFolded(fold(value, locale), locale);
    if (cache.size > 50_000) cache.clear();
    cache.set(value, r);
  }
  return r;
}

const valueCacheEn = new Map<string, Reading>();

/** How a value is matched: `claim` (a required fact) or `forbidden` (a claim that must not be made). */
export interface MeaningOptions {
  coverage?: number;
  /** A claim the reply must make (not a forbidden one): Chinese may also match character by character. */
  loose?: boolean;
  /**
   * A claim the reply must not make: it counts only where the reply asserts it, not in a clause that
   * declines it however far the negation stands ("I can't say it's the best ever").
   */
  assertedOnly?: boolean;
  /**
   * For a forbidden price: a span that frames the number as the list price ("down from 85.9", "原价85.9")
   * does not claim it as the live price.
   */
  listPriceFraming?: boolean;
}

/**
 * How many of a value's atoms the clauses in `mask` hold with the same polarity ("has not shipped" is
 * not "has shipped"). With `assertedOnly`, a plain atom counts only where the reply asserts it (no
 * negation earlier in its clause). A value's lone Chinese character is looked up among the reply's
 * characters when it is no atom of the span.
 */
function hits(r: ReplyReading, want: Map<string, number>, mask: number, assertedOnly: boolean): number {
  let hit = 0;
  for (const [atom, bits] of want) {
    let seen = r.atoms.get(atom);
    if ((seen === undefined || ((seen[0] | seen[1]) & mask) === 0) && atom.length === 1) seen = r.chars.get(atom);
    if (seen === undefined) continue;
    if ((bits & NEGATED) !== 0 && (seen[1] & mask) !== 0) hit++;
    else if ((bits & PLAIN) !== 0 && (seen[0] & mask) !== 0 && (!assertedOnly || (seen[2] & mask) !== 0)) hit++;
  }
  return hit;
}

/** How many of a value's characters the clauses in `mask` hold with the same polarity. */
function charHits(r: ReplyReading, want: Map<string, number>, mask: number): number {
  let hit = 0;
  for (const [ch, bits] of want) {
    const seen = r.chars.get(ch);
    if (seen === undefined) continue;
    if (((bits & NEGATED) !== 0 && (seen[1] & mask) !== 0) || ((bits & PLAIN) !== 0 && (seen[0] & mask) !== 0)) hit++;
  }
  return hit;
}

const needed = (size: number, coverage: number): number => (size === 1 ? 1 : Math.max(1, Math.ceil(coverage * size - 1e-9)));

function spanStates(r: ReplyReading, mask: number, v: Reading, coverage: number, opts: MeaningOptions): boolean {
  for (const n of v.numbers) {
    let found = false;
    for (let i = 0; i < r.count && !found; i++) if ((mask & (1 << i)) !== 0 && r.clauseNumbers[i].includes(n)) found = true;
    if (!found) return false;
  }
  if (v.atoms.size > 0) {
    // Chinese claims a reply must make may also be read character by character ("单瓶100ml以内能随身带上
    // 飞机" states "单瓶100ml以内可以随身携带登机"), at a higher share; forbidden claims never are.
    const byChars = opts.loose === true && v.chars.size >= 3 && charHits(r, v.chars, mask) >= needed(v.chars.size, CHAR_COVERAGE);
    if (!byChars && hits(r, v.atoms, mask, opts.assertedOnly === true) < needed(v.atoms.size, coverage)) return false;
  } else if (v.numbers.length === 0) {
    return false;
  }
  if (opts.listPriceFraming === true && (r.listMask & mask) !== 0 && !v.listCue) return false;
  return true;
}

/** A necessary condition of `spanStates` on the whole text, by substrings alone (polarity aside). */
function mayState(folded: string, v: Reading, coverage: number, opts: MeaningOptions): boolean {
  if (v.atoms.size === 0) return true;
  let hit = 0;
  for (const atom of v.atoms.keys()) if (folded.includes(atom)) hit++;
  if (hit >= needed(v.atoms.size, coverage)) return true;
  if (opts.loose !== true || v.chars.size < 3) return false;
  let chars = 0;
  for (const c of v.chars.keys()) if (folded.includes(c)) chars++;
  return chars >= needed(v.chars.size, CHAR_COVERAGE);
}

/** Whether the reply states `value` in meaning (see the module comment). */
export function statesMeaning(reply: string, value: string, locale: Locale, opts: MeaningOptions = {}): boolean {
  const v = readValue(value, locale);
  if (v.atoms.size === 0 && v.numbers.length === 0) return false;
  const coverage = opts.coverage ?? DEFAULT_COVERAGE;
  const r = readReply(reply, locale);
  // A number the reply never says, or too few of the value's atoms anywhere in its text (an atom a reading
  // finds is a substring of the folded text: a stem is a prefix of its word, a pair a run of its clause):
  // no span states the value, and the clauses need not be read.
  for (const n of v.numbers) if (!r.numbers.includes(n)) return false;
  if (!mayState(r.folded, v, coverage, opts)) return false;
  // Spans only lose atoms and numbers against the whole reply; the list-price framing is the one check
  // that a larger span can fail where a smaller one passes, so it is left out here.
  r.read();
  const n = r.count;
  if (n === 0 || !spanStates(r, (1 << n) - 1, v, coverage, { ...opts, listPriceFraming: false })) return false;
  for (let width = 1; width <= 3; width++) {
    for (let i = 0; i + width <= n; i++) if (spanStates(r, ((1 << width) - 1) << i, v, coverage, opts)) return true;
  }
  return false;
}

/** Whether the reply states any value of the fact in meaning. */
export function factStatedInMeaning(reply: string, fact: Fact, locale: Locale, opts: MeaningOptions = {}): boolean {
  for (const v of fact.values) if (statesMeaning(reply, v, locale, opts)) return true;
  return false;
}

/** Whether a value has content to read (a number or a content word); a bare "hi" has none. */
export function hasMeaning(value: string, locale: Locale): boolean {
  const v = readValue(value, locale);
  return v.atoms.size > 0 || v.numbers.length > 0;
}
