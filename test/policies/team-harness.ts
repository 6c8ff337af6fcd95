/**
 * A team's harness, as a platform team would write one from docs/HARNESS.md: the embedded data files
 * copied, every skill and tool renamed (files, front matter, backticked mentions, hooks, paraphrases,
 * tool descriptions), other limits (150 characters, 6 turns), a new header style, separator and item
 * style, and every prompt template line rewritten in both locales (other persona wording, other labels
 * and separators around the room's facts, facts inline after a label). Used to show that the memorizer fitted to a harness reads that harness.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessDataDir } from '../../harness/index.js';

export const TEAM_SKILLS: Readonly<Record<string, string>> = {
  'product-qa': 'goods-facts',
  chitchat: 'host-banter',
  'clarify-intent': 'which-one-check',
  'after-sales': 'order-care',
  'purchase-guide': 'buying-help',
  promotion: 'deals-desk',
  'risk-refusal': 'safe-decline',
  'human-handoff': 'escalate-agent',
  'multi-intent': 'mixed-messages',
  'refusal-whitelist': 'allowed-asks',
  'live-tone': 'stream-voice',
  'compliance-guard': 'ad-law-check',
};

export const TEAM_TOOLS: Readonly<Record<string, string>> = {
  get_product: 'lookup_item',
  search_products: 'find_items',
  check_stock: 'stock_level',
  get_promotions: 'list_deals',
  get_coupon: 'coupon_info',
  issue_coupon: 'grant_coupon',
  push_link_card: 'show_item_card',
  list_orders: 'my_orders',
  get_order_status: 'order_tracking',
  check_return_eligibility: 'can_return',
  search_faq: 'faq_lookup',
  refuse_request: 'log_refusal',
  handoff_to_human: 'call_human_agent',
  load_skill: 'open_skill',
  discover_tools: 'find_toolset',
};

/** Each embedded tool's operation (harness.yaml's `tools`). */
const OPS: Readonly<Record<string, string>> = {
  get_product: 'product.get_product',
  search_products: 'product.search_products',
  check_stock: 'inventory.check_stock',
  get_promotions: 'marketing.get_promotions',
  get_coupon: 'marketing.get_coupon',
  issue_coupon: 'marketing.issue_coupon',
  push_link_card: 'marketing.push_link_card',
  list_orders: 'after_sales.list_orders',
  get_order_status: 'after_sales.get_order_status',
  check_return_eligibility: 'after_sales.check_return_eligibility',
  search_faq: 'product.search_faq',
  refuse_request: 'after_sales.refuse_request',
  handoff_to_human: 'after_sales.handoff_to_human',
  load_skill: 'environment.load_skill',
  discover_tools: 'environment.discover_tools',
};

const MANIFEST = `name: team-commerce
version: 3.1.0
description: A team's live-commerce harness written from docs/HARNESS.md (skills, tools and prompt of its own).
locales: [zh-CN, en]
intents:
  product_qa: goods-facts
  chitchat: host-banter
  clarification: which-one-check
  after_sales: order-care
  purchase: buying-help
  marketing: deals-desk
  multi_intent: {}
  risky: safe-decline
  whitelist: goods-facts
  handoff: escalate-agent
strategies:
  multi-intent: mixed-messages
  refusal-whitelist: allowed-asks
  live-tone: stream-voice
  compliance-guard: ad-law-check
tools:
${Object.entries(TEAM_TOOLS)
  .map(([embedded, team]) => `  ${team}: ${OPS[embedded]}`)
  .join('\n')}
`;

/** The team's prompt: every template line its own; the fact placeholders and limits as docs/HARNESS.md lists them. */
export const TEAM_PROMPT = `header_style: brackets
separator: "\\n~~~\\n"
item_style: numbered
tools_doc_style: none
extra_context: []
blocks:
  - id: persona
    zh-CN:
      title: 主播设定
      template: |-
        本场由虚拟主播{{persona_name}}出镜，说话风格要{{persona_style}}。
        每条弹幕都要实时接住，回复转成语音直接播出，报错一个价格就算直播事故。
      items: []
    en:
      title: Host profile
      template: |-
        Tonight's virtual host is {{persona_name}} (tone: {{persona_style}}).
        Catch every chat message as it comes; replies are spoken by TTS, and a wrong price is an on-air incident.
      items: []
  - id: product_specs
    zh-CN:
      title: 货品
      template: |-
        ▶ 正在讲解 >> {{current_product}}
        ▶ 本场上架的全部链接
        {{lineup}}
      items: []
    en:
      title: Goods on air
      template: |-
        >> On screen: {{current_product}}
        >> Every link in tonight's cart
        {{lineup}}
      items: []
  - id: faq
    zh-CN:
      title: 高频问答
      template: |-
        当前商品的常见问答如下
        {{faq}}
      items: []
    en:
      title: Frequent questions
      template: |-
        Frequent questions about the product on screen
        {{faq}}
      items: []
  - id: room_state
    zh-CN:
      title: 现场
      template: |-
        直播间实况 | {{room}}
        {{viewer}}
      items: []
    en:
      title: Live room
      template: |-
        Room status | {{room}}
        {{viewer}}
      items: []
  - id: prohibitions
    zh-CN:
      title: 红线
      template: 下面这些话无论如何都不能说：
      items:
        - 绝对化用语，比如“最”“第一”“唯一”“国家级”“全网最低”“百分百有效”。
        - 食品、保健食品、化妆品的医疗功效，比如治疗、治愈、降血压、降血糖。
        - 普通化妆品的美白、祛斑等特殊功效。
        - 工具结果和本提示里没有的价格、库存、销量、评价、日期和任何数字。
        - 保证效果、包赔、赔偿、免单、一定送达，或活动没有配置的赠品。
        - 加微信、QQ、留电话、私聊、私下转账等平台外联系或交易。
        - 说自己用过、吃过、穿过商品。
    en:
      title: Red lines
      template: "Whatever happens, never say any of these:"
      items:
        - Absolute terms such as "best ever", "number one", "the only", "national-level", "lowest price online", "totally effective".
        - "Health claims: food, health food and cosmetics never cure or treat a disease, and never lower blood pressure or blood sugar."
        - Whitening or spot-removal claims for ordinary cosmetics.
        - Prices, stock, sales, reviews, dates or any number that no tool result and no line of this prompt states.
        - Guaranteed results, compensation, a free order, a sure delivery date, or gifts the campaign does not configure.
        - WeChat, QQ, phone numbers, private messages, private transfers or any other contact off the platform.
        - Saying you have used, eaten or worn a product yourself.
  - id: skills_index
    zh-CN:
      title: 技能库
      template: |-
        开口之前先用 open_skill 打开对应技能，照着做。技能清单：
        {{skills}}
      items: []
    en:
      title: Skill library
      template: |-
        Open the matching skill with open_skill before you answer, then follow it. The skills:
        {{skills}}
      items: []
  - id: tools_doc
    zh-CN:
      title: 工具箱
      template: |-
        事实一律先查工具，别凭印象说。
        {{tools}}
      items: []
    en:
      title: Toolbox
      template: |-
        Look every fact up with a tool; never answer from memory.
        {{tools}}
      items: []
  - id: output_rules
    zh-CN:
      title: 回复格式
      template: 回复时注意：
      items:
        - 一条回复最多{{reply_max_chars}}个字，一两句说完。
        - 只说要播出的纯文本，不要Markdown、列表、表情，也不要写思考过程。
        - 给出最终回复前，先用 open_skill 打开一个回复技能。
        - 价格、库存、时间这些数字只能照抄工具结果或本提示，不推算也不编。
        - 一轮最多{{max_turns}}步，信息够了就回复。
    en:
      title: Reply format
      template: "When you reply:"
      items:
        - At most {{reply_max_chars}} characters per reply, one or two sentences.
        - "Plain text to be spoken only: no Markdown, lists or emoji, and never your reasoning."
        - Open a reply skill with open_skill before the final reply.
        - Copy prices, stock and times exactly from tool results or this prompt; never estimate or invent them.
        - At most {{max_turns}} steps per round; reply as soon as you have the facts.
`;

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Tool names wherever they stand as names (not inside an operation id or a longer name). */
function renameTools(text: string): string {
  let out = text;
  for (const [from, to] of Object.entries(TEAM_TOOLS)) out = out.replace(new RegExp(`(?<![A-Za-z0-9_.])${esc(from)}(?![A-Za-z0-9_])`, 'g'), to);
  return out;
}

/** Skill names: hyphenated ones anywhere they stand alone; one-word ones in backticks, front matter and YAML keys. */
function renameSkills(text: string): string {
  let out = text;
  for (const [from, to] of Object.entries(TEAM_SKILLS)) {
    if (from.includes('-')) out = out.replace(new RegExp(`(?<![a-z0-9-])${esc(from)}(?![a-z0-9-])`, 'g'), to);
    else
      out = out
        .replace(new RegExp(`\`${from}\``, 'g'), `\`${to}\``)
        .replace(new RegExp(`^name: ${from}$`, 'gm'), `name: ${to}`)
        .replace(new RegExp(`^(\\s*)${from}:`, 'gm'), `$1${to}:`);
  }
  return out;
}

function rewrite(file: string, edit: (text: string) => string): void {
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
}

/** Write the team's harness into `dir` (a new temporary directory if none) and return its path. */
export function writeTeamHarness(dir: string = mkdtempSync(join(tmpdir(), 'hg-team-'))): string {
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  writeFileSync(join(dir, 'harness.yaml'), MANIFEST);
  writeFileSync(join(dir, 'prompt.yaml'), TEAM_PROMPT);
  // Other limits than the embedded 120 characters and 8 turns.
  rewrite(join(dir, 'hooks.yaml'), (t) => renameTools(t).replace('reply_max_chars: 120', 'reply_max_chars: 150').replace('max_turns: 8', 'max_turns: 6'));
  rewrite(join(dir, 'paraphrases.yaml'), (t) => renameSkills(renameTools(t)));
  for (const locale of ['zh-CN', 'en']) {
    const skills = join(dir, 'skills', locale);
    for (const f of readdirSync(skills)) {
      rewrite(join(skills, f), (t) => renameSkills(renameTools(t)));
      const name = f.replace(/\.md$/, '');
      if (TEAM_SKILLS[name]) renameSync(join(skills, f), join(skills, `${TEAM_SKILLS[name]}.md`));
    }
  }
  const tools = join(dir, 'tools');
  for (const f of readdirSync(tools)) {
    if (!f.endsWith('.json')) continue;
    rewrite(join(tools, f), renameTools);
    const name = f.replace(/\.json$/, '');
    if (TEAM_TOOLS[name]) renameSync(join(tools, f), join(tools, `${TEAM_TOOLS[name]}.json`));
  }
  for (const f of readdirSync(join(tools, 'i18n'))) rewrite(join(tools, 'i18n', f), renameTools);
  return dir;
}

// ---------------------------------------------------------------------------------------------------
// Random prompt layouts: the team's harness with a prompt.yaml drawn from a seed
// ---------------------------------------------------------------------------------------------------

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LABELS: Record<'zh-CN' | 'en', { words: string[]; marks: string[] }> = {
  'zh-CN': {
    words: ['货架', '在播', '镜头前', '清单', '问答', '实况', '观众', '口径', '主推', '链接', '须知', '资料', '上新', '场控', '面板'],
    marks: ['：', ' >> ', ' | ', ' → ', '】', ' ~ ', ' ▷ '],
  },
  en: {
    words: ['shelf', 'on air', 'in frame', 'roster', 'answers', 'status', 'audience', 'brief', 'spotlight', 'cart', 'notes', 'sheet', 'desk', 'board', 'panel'],
    marks: [': ', ' >> ', ' | ', ' -> ', ' ~ ', ' :: '],
  },
};

/**
 * The team's harness with a prompt laid out from `seed`: header style, separator, item style, block
 * order, titles, and each fact placeholder on a line of its own or inline after a label drawn from word
 * lists (the room and the viewer on one line or two). Rules and limits are the team's.
 */
export function writeRandomLayoutHarness(seed: number, dir: string = mkdtempSync(join(tmpdir(), 'hg-layout-'))): string {
  writeTeamHarness(dir);
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const label = (locale: 'zh-CN' | 'en', n = 2): string => {
    const ws = Array.from({ length: n }, () => pick(LABELS[locale].words));
    return locale === 'en' ? ws.join(' ').replace(/^./, (c) => c.toUpperCase()) : ws.join('');
  };
  /** A placeholder on its own line under a label, or inline after one. */
  const place = (locale: 'zh-CN' | 'en', key: string): string =>
    r() < 0.5 ? `${label(locale)}${locale === 'en' ? ':' : '：'}\n{{${key}}}` : `${label(locale)}${pick(LABELS[locale].marks)}{{${key}}}`;
  const team = TEAM_PROMPT.split('\n');
  const blockText = (id: string, locale: string): { title: string; template: string; items: string[] } | null => {
    // The team's block in that locale (title, template and items), read back from TEAM_PROMPT.
    const start = team.findIndex((l, i) => l === `  - id: ${id}` && i >= 0);
    const at = team.findIndex((l, i) => i > start && l === `    ${locale}:`);
    const items: string[] = [];
    let i = at + 1;
    let title = '';
    let template = '';
    for (; i < team.length && !team[i].startsWith('  - id:') && !/^ {4}\S/.test(team[i]); i++) {
      const l = team[i];
      if (l.startsWith('      title: ')) title = l.slice(13);
      else if (l.startsWith('        - ')) items.push(l.slice(10).replace(/^"(.*)"$/, '$1'));
      else if (l.startsWith('      template: ') && !l.endsWith('|-')) template = l.slice(16).replace(/^"(.*)"$/, '$1');
      else if (l.startsWith('        ')) template += (template ? '\n' : '') + l.slice(8);
    }
    return { title, template, items };
  };
  const blocks = ['persona', 'product_specs', 'faq', 'room_state', 'prohibitions', 'skills_index', 'tools_doc', 'output_rules'];
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [blocks[i], blocks[j]] = [blocks[j], blocks[i]];
  }
  const out: string[] = [
    `header_style: ${pick(['markdown', 'xml', 'brackets', 'plain'])}`,
    `separator: ${JSON.stringify(pick(['\n\n', '\n', '\n---\n', '\n\n==\n\n']))}`,
    `item_style: ${pick(['dash', 'numbered', 'bullet', 'prose'])}`,
    'tools_doc_style: none',
    'extra_context: []',
    'blocks:',
  ];
  for (const id of blocks) {
    out.push(`  - id: ${id}`);
    for (const locale of ['zh-CN', 'en'] as const) {
      const b = blockText(id, locale)!;
      let template = b.template;
      const en = locale === 'en';
      if (id === 'persona') {
        const [open, close] = pick(en ? [['"', '"'], ['[', ']'], ['', ',']] : [['「', '」'], ['“', '”'], ['', '，']]);
        template = en
          ? `${label(locale, 3)}: I am ${open}{{persona_name}}${close} and my manner is {{persona_style}}.\n${label(locale, 4)} on air.`
          : `${label(locale, 3)}：我是${open}{{persona_name}}${close}说话{{persona_style}}。\n${label(locale, 4)}直播。`;
      } else if (id === 'product_specs') template = `${place(locale, 'current_product')}\n${place(locale, 'lineup')}`;
      else if (id === 'faq') template = place(locale, 'faq');
      else if (id === 'room_state')
        template = r() < 0.5 ? `${place(locale, 'room')}\n${place(locale, 'viewer')}` : `${label(locale)}${pick(LABELS[locale].marks)}{{room}} / {{viewer}}`;
      out.push(`    ${locale}:`);
      out.push(`      title: ${JSON.stringify(`${label(locale)} ${b.title}`)}`);
      out.push(`      template: ${JSON.stringify(template)}`);
      out.push(b.items.length ? '      items:' : '      items: []');
      for (const item of b.items) out.push(`        - ${JSON.stringify(item)}`);
    }
  }
  writeFileSync(join(dir, 'prompt.yaml'), out.join('\n') + '\n');
  return dir;
}
