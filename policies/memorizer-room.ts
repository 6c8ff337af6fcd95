/**
 * The memorizer's reading of the system prompt, fitted to ONE harness: the harness it was "fine-tuned" on.
 *
 * What the memorizer knows of a prompt is what a model trained on that harness alone would have seen:
 * - the harness's own prompt texts (prompt.yaml, per locale): each block's header as the harness's header
 *   style writes it, and the literal lines of its template and items. These are the landmarks it finds
 *   its way by: a line of the prompt that is one of them says which block it is in, and which language
 *   the room speaks;
 * - how each placeholder of a template is rendered (env/prompt.ts, the same for every harness): the
 *   product on screen as six lines starting "3号链接 TITLE (商品ID: it_x, 在售)", the lineup lines, the
 *   FAQ lines "问: Q 答: A", the room line with "当前时间: …", the viewer line (naming the viewer id as
 *   the harness's `field_names` does). Each fact is read in the block whose template holds its
 *   placeholder, wherever on the line the template puts it;
 * - the persona line as its template writes it ("…「{{persona_name}}」…").
 *
 * A block none of whose landmarks appears leaves its facts unread, so a variant that restyles the headers
 * and rewords a block's lines (HSA's prompt family) makes the memorizer miss what that block holds, as a
 * small model fine-tuned on one harness would; an edit of one template line leaves the block's other
 * landmarks, and the reading, in place. Nothing here reads the variant or adapts to the observation:
 * the landmarks come from the identity harness only.
 */
import type { Locale } from '../protocol/domain.js';
import type { Harness, HeaderStyle } from '../protocol/harness.js';
import type { HarnessSet } from '../harness/index.js';
import { embeddedHarness } from '../harness/index.js';

/** One line of the lineup. */
export interface LineupEntry {
  link_no: number;
  title: string;
  item_id: string;
}

/** The product on screen, as far as the prompt states it. Numbers are kept as the prompt prints them. */
export interface CurrentProduct extends LineupEntry {
  live_price: string;
  /** Attributes in prompt order. */
  attributes: [name: string, value: string][];
  /** SKU spec texts ("蓝色 M"). */
  specs: string[];
  ship_hours: string;
  ships_from: string;
  seven_day_return: boolean;
  exclusions: string[];
}

/** Everything the memorizer reads from the prompt. Fields it could not read are empty / null. */
export interface RoomFacts {
  locale: Locale;
  persona: string;
  current: CurrentProduct | null;
  lineup: LineupEntry[];
  faq: { question: string; answer: string }[];
  /** Simulated "now" (ISO text), or '' when absent. */
  now: string;
  viewer_id: string;
  nickname: string;
  membership: 'none' | 'member' | 'vip';
}

interface Labels {
  currentHeader: string;
  currentLine: RegExp;
  lineupLine: RegExp;
  brandLine: RegExp;
  specs: string;
  attrSep: string;
  ship: RegExp;
  sevenDayNo: string;
  exclusions: string;
  faqLine: RegExp;
  now: RegExp;
  viewer: RegExp;
  persona: RegExp;
  member: Record<string, RoomFacts['membership']>;
}

const LABELS: Record<Locale, Labels> = {
  'zh-CN': {
    currentHeader: '当前讲解的商品：',
    currentLine: /^(\d+)号链接 (.+) \(商品ID: (\S+), [^)]+\)$/,
    lineupLine: /^(\d+)号链接 (.+) \(商品ID: (\S+)\)$/,
    brandLine: /直播价: ([\d.]+)/,
    specs: '可选规格: ',
    attrSep: '；',
    ship: /^发货: 付款后(\d+)小时内发货；([^；]+)/,
    sevenDayNo: '不支持七天无理由退货',
    exclusions: '不退情形: ',
    faqLine: /^问: (.+?) 答: (.+)$/,
    now: /当前时间: (\S+)/,
    viewer: /^当前提问观众: (.+) \(viewer_id: ([^,\s]+), (.+)\)$/,
    persona: /「(.+?)」/,
    member: { 非会员: 'none', 会员: 'member', VIP会员: 'vip' },
  },
  en: {
    currentHeader: 'Now presenting:',
    currentLine: /^link (\d+) (.+) \(item id: (\S+), [^)]+\)$/,
    lineupLine: /^link (\d+) (.+) \(item id: (\S+)\)$/,
    brandLine: /live price: (?:from )?([\d.]+)/,
    specs: 'options: ',
    attrSep: '; ',
    ship: /^shipping: ships within (\d+) hours of payment; ([^;]+)/,
    sevenDayNo: 'no seven-day no-reason returns',
    exclusions: 'not returnable: ',
    faqLine: /^Q: (.+?) A: (.+)$/,
    now: /current time: (\S+)/,
    viewer: /^viewer asking: (.+) \(viewer_id: ([^,\s]+), (.+)\)$/,
    persona: /You are "(.+?)"/,
    member: { 'not a member': 'none', member: 'member', 'VIP member': 'vip' },
  },
};

/** The product's six lines, from its head line: head, prices, attributes, options, shipping, after-sales. */
function parseCurrentLines(lines: readonly string[], L: Labels): CurrentProduct | null {
  const head = L.currentLine.exec(lines[0] ?? '');
  if (!head) return null;
  const [brand = '', attrs = '', specs = '', ship = '', after = ''] = lines.slice(1, 6);
  const attributes: [string, string][] = [];
  for (const part of attrs.split(L.attrSep)) {
    const i = part.indexOf(': ');
    if (i > 0) attributes.push([part.slice(0, i), part.slice(i + 2)]);
  }
  const shipM = L.ship.exec(ship);
  const ranged = /起|: from /.test(brand);
  const exclIdx = after.indexOf(L.exclusions);
  return {
    link_no: Number(head[1]),
    title: head[2],
    item_id: head[3],
    live_price: L.brandLine.exec(brand)?.[1] ?? '',
    attributes,
    // Options that cost different amounts carry their price after the name ("90 softgels 74.9").
    specs: specs.startsWith(L.specs) ? specs.slice(L.specs.length).split(' / ').map((x) => (ranged ? x.replace(/ \d+(?:\.\d+)?$/, '') : x)) : [],
    ship_hours: shipM?.[1] ?? '',
    ships_from: shipM?.[2] ?? '',
    seven_day_return: !after.includes(L.sevenDayNo),
    exclusions: exclIdx >= 0 ? after.slice(exclIdx + L.exclusions.length).split('、') : [],
  };
}

/** The placeholders whose rendered facts the memorizer reads. */
type FactKey = 'persona_name' | 'current_product' | 'lineup' | 'faq' | 'room' | 'viewer';
const FACT_KEYS: readonly FactKey[] = ['persona_name', 'current_product', 'lineup', 'faq', 'room', 'viewer'];

/**
 * A landmark: a whole prompt line (trimmed: a header, a template line without placeholder), the start of
 * one (a template line whose placeholder follows its text), or text within one (an item, which the item
 * style numbers, bullets or runs into prose).
 */
interface Landmark {
  text: string;
  at: 'line' | 'start' | 'within';
}

/** One block of the fitted harness as the memorizer knows it. */
interface BlockFit {
  landmarks: Landmark[];
  facts: Set<FactKey>;
}

/** The fitted harness's prompt in one locale. */
interface LocaleFit {
  locale: Locale;
  labels: Labels;
  blocks: BlockFit[];
  /** The persona line of the template as a pattern (persona name in group 1), or null when no template states it. */
  persona: RegExp | null;
}

const PLACEHOLDER = /\{\{(\w+)\}\}/g;
/** Landmarks shorter than this (after trimming) say too little to find a block by. */
const MIN_LANDMARK = 2;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The header line a header style writes (env/prompt.ts renders the same). */
function headerLine(title: string, style: HeaderStyle): string {
  switch (style) {
    case 'markdown':
      return `## ${title}`;
    case 'xml':
      return `<${title}>`;
    case 'brackets':
      return `【${title}】`;
    case 'plain':
      return `${title}:`;
  }
}

/** The memorised landmarks of one template or item text: its literal lines, and the literal starts of lines a placeholder ends. */
function landmarksOf(text: string, out: Landmark[]): void {
  for (const raw of text.split('\n')) {
    const at = raw.indexOf('{{');
    const literal = (at < 0 ? raw : raw.slice(0, at)).trim();
    if ([...literal].length < MIN_LANDMARK) continue;
    out.push({ text: literal, at: at < 0 ? 'line' : 'start' });
  }
}

function fitLocale(h: Harness, locale: Locale): LocaleFit {
  const labels = LABELS[locale];
  const viewerId = escapeRe(h.field_names?.viewer_id ?? 'viewer_id');
  const L: Labels = {
    ...labels,
    viewer:
      locale === 'en'
        ? new RegExp(`viewer asking: (.+) \\(${viewerId}: ([^,\\s]+), (.+)\\)$`)
        : new RegExp(`当前提问观众: (.+) \\(${viewerId}: ([^,\\s]+), (.+)\\)$`),
  };
  let persona: RegExp | null = null;
  const blocks: BlockFit[] = h.prompt.blocks.map((b) => {
    const landmarks: Landmark[] = [];
    if (b.title.trim()) {
      landmarks.push({ text: headerLine(b.title, h.prompt.header_style).trim(), at: 'line' });
      if (h.prompt.header_style === 'xml') landmarks.push({ text: `</${b.title}>`.trim(), at: 'line' });
    }
    landmarksOf(b.template, landmarks);
    // Items are landmarks wherever they stand on a line (the item style puts "- ", "1. " or prose around them).
    for (const item of b.items) {
      const literal = item.split('{{')[0].trim();
      if ([...literal].length >= MIN_LANDMARK + 4) landmarks.push({ text: literal, at: 'within' });
    }
    const facts = new Set<FactKey>();
    for (const text of [b.template, ...b.items]) {
      for (const m of text.matchAll(PLACEHOLDER)) if ((FACT_KEYS as readonly string[]).includes(m[1])) facts.add(m[1] as FactKey);
    }
    if (persona === null && facts.has('persona_name')) {
      const line = b.template.split('\n').find((l) => l.includes('{{persona_name}}')) ?? '';
      let src = '';
      let done = 0;
      for (const m of line.matchAll(PLACEHOLDER)) {
        src += escapeRe(line.slice(done, m.index));
        src += m[1] === 'persona_name' && !src.includes('(.+?)') ? '(.+?)' : '.*?';
        done = (m.index ?? 0) + m[0].length;
      }
      src += escapeRe(line.slice(done));
      persona = new RegExp(src.trim());
    }
    return { landmarks, facts };
  });
  return { locale, labels: L, blocks, persona };
}

/** A landmark found on a prompt line: the line and the block it marks. */
interface Hit {
  line: number;
  block: number;
}

function hitsOf(lines: readonly string[], fit: LocaleFit): Hit[] {
  const hits: Hit[] = [];
  lines.forEach((line, i) => {
    fit.blocks.forEach((b, bi) => {
      if (b.landmarks.some((l) => (l.at === 'line' ? line === l.text : l.at === 'start' ? line.startsWith(l.text) : line.includes(l.text)))) hits.push({ line: i, block: bi });
    });
  });
  return hits;
}

/**
 * The lines each block may hold: around each of its landmarks, up to the nearest landmark of another
 * block on either side. A block with no landmark in the prompt holds nothing.
 */
function regionsOf(hits: readonly Hit[], lineCount: number, blockCount: number): Set<number>[] {
  const regions = Array.from({ length: blockCount }, () => new Set<number>());
  for (const h of hits) {
    let lo = 0;
    let hi = lineCount - 1;
    for (const o of hits) {
      if (o.block === h.block) continue;
      if (o.line < h.line) lo = Math.max(lo, o.line + 1);
      else if (o.line > h.line) hi = Math.min(hi, o.line - 1);
    }
    for (let i = lo; i <= hi; i++) regions[h.block].add(i);
  }
  return regions;
}

/** How a memorizer fitted to one harness reads that harness's system prompt. */
export interface RoomReader {
  read(system: string): RoomFacts;
}

function readRoom(system: string, fits: readonly LocaleFit[]): RoomFacts {
  const lines = system.split('\n').map((l) => l.trim());
  // The room's language: the locale whose landmarks the prompt shows most (the first one on a tie).
  let fit = fits[0];
  let hits = hitsOf(lines, fit);
  for (const f of fits.slice(1)) {
    const h = hitsOf(lines, f);
    if (h.length > hits.length) [fit, hits] = [f, h];
  }
  const L = fit.labels;
  const regions = regionsOf(hits, lines.length, fit.blocks.length);
  /** The prompt's lines (in order) in the blocks whose template holds a fact's placeholder. */
  const linesOf = (key: FactKey): string[] => {
    const at = new Set<number>();
    fit.blocks.forEach((b, bi) => {
      if (b.facts.has(key)) for (const i of regions[bi]) at.add(i);
    });
    return [...at].sort((a, b) => a - b).map((i) => lines[i]);
  };

  let current: CurrentProduct | null = null;
  const productLines = linesOf('current_product');
  for (let i = 0; i < productLines.length && current === null; i++) {
    const line = productLines[i];
    const m = unanchoredAt(L.currentLine, line);
    if (m >= 0) current = parseCurrentLines([line.slice(m), ...productLines.slice(i + 1, i + 6)], L);
  }
  const lineup: LineupEntry[] = [];
  for (const line of linesOf('lineup')) {
    const at = unanchoredAt(L.lineupLine, line);
    const l = at >= 0 ? L.lineupLine.exec(line.slice(at)) : null;
    if (l) lineup.push({ link_no: Number(l[1]), title: l[2], item_id: l[3] });
  }
  const faq: RoomFacts['faq'] = [];
  for (const line of linesOf('faq')) {
    const at = unanchoredAt(L.faqLine, line);
    const f = at >= 0 ? L.faqLine.exec(line.slice(at)) : null;
    if (f) faq.push({ question: f[1], answer: f[2] });
  }
  let now = '';
  for (const line of linesOf('room')) now ||= L.now.exec(line)?.[1] ?? '';
  let viewer_id = '';
  let nickname = '';
  let membership: RoomFacts['membership'] = 'none';
  for (const line of linesOf('viewer')) {
    const v = L.viewer.exec(line);
    if (v && !viewer_id) {
      nickname = v[1];
      viewer_id = v[2];
      membership = L.member[v[3]] ?? 'none';
    }
  }
  let persona = '';
  if (fit.persona) for (const line of linesOf('persona_name')) persona ||= fit.persona.exec(line)?.[1] ?? '';
  return { locale: fit.locale, persona, current, lineup, faq, now, viewer_id, nickname, membership };
}

/**
 * Where on a line a line pattern (anchored with ^) matches: at the start, or after a template's inline
 * label ("▶ 正在讲解：3号链接 …"), at a letter, digit or "问" that does not continue a word; -1 if nowhere.
 */
function unanchoredAt(re: RegExp, line: string): number {
  for (let i = 0; i < line.length; i++) {
    if (i > 0 && (!/[\dA-Za-z问]/.test(line[i]) || /[\dA-Za-z]/.test(line[i - 1]))) continue;
    if (re.test(i === 0 ? line : line.slice(i))) return i;
  }
  return -1;
}

const readers = new WeakMap<HarnessSet, RoomReader>();

/**
 * The reader of a memorizer fitted to a harness: that harness's prompt texts in each of its locales (the
 * served identity harness, never a variant).
 */
export function roomReaderFor(set: HarnessSet): RoomReader {
  let r = readers.get(set);
  if (!r) {
    const fits = set.locales.map((locale) => fitLocale(set.get(locale), locale));
    r = { read: (system) => readRoom(system, fits) };
    readers.set(set, r);
  }
  return r;
}

/** The prompt read as the embedded harness's memorizer reads it. */
export function parseRoom(system: string): RoomFacts {
  return roomReaderFor(embeddedHarness()).read(system);
}
