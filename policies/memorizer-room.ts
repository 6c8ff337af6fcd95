/**
 * The memorizer's reading of the system prompt. It knows only the BASE harness's rendering (env/prompt.ts
 * with harness/prompt.yaml): the current-product block, the lineup lines "3号链接 TITLE (商品ID: it_xxx)",
 * the FAQ lines "问: Q 答: A", the room line and the viewer line. These regexes are the memorised habit:
 * a variant that re-labels or reorders the prompt makes them miss, and the memorizer degrades as a small
 * model fine-tuned on one harness would. That is on purpose; nothing here adapts to the observation.
 */
import type { Locale } from '../protocol/domain.js';

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

/** The base prompt's language, told by its current-product header. */
export function detectLocale(system: string): Locale {
  return system.includes(LABELS['zh-CN'].currentHeader) ? 'zh-CN' : 'en';
}

function parseCurrent(lines: readonly string[], L: Labels): CurrentProduct | null {
  const start = lines.indexOf(L.currentHeader);
  if (start < 0) return null;
  const head = L.currentLine.exec(lines[start + 1] ?? '');
  if (!head) return null;
  const block = lines.slice(start + 2, start + 7);
  const [brand = '', attrs = '', specs = '', ship = '', after = ''] = block;
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

/** Read the base prompt's layout. */
export function parseRoom(system: string): RoomFacts {
  const locale = detectLocale(system);
  const L = LABELS[locale];
  const lines = system.split('\n').map((l) => l.trim());
  const lineup: LineupEntry[] = [];
  const faq: RoomFacts['faq'] = [];
  let viewer_id = '';
  let nickname = '';
  let membership: RoomFacts['membership'] = 'none';
  for (const line of lines) {
    const l = L.lineupLine.exec(line);
    if (l) lineup.push({ link_no: Number(l[1]), title: l[2], item_id: l[3] });
    const f = L.faqLine.exec(line);
    if (f) faq.push({ question: f[1], answer: f[2] });
    const v = L.viewer.exec(line);
    if (v) {
      nickname = v[1];
      viewer_id = v[2];
      membership = L.member[v[3]] ?? 'none';
    }
  }
  return {
    locale,
    persona: L.persona.exec(system)?.[1] ?? '',
    current: parseCurrent(lines, L),
    lineup,
    faq,
    now: L.now.exec(system)?.[1] ?? '',
    viewer_id,
    nickname,
    membership,
  };
}
