/**
 * The system-prompt pipeline: assembles the prompt per request from the harness's declarative
 * `PromptSpec` (block order, titles, templates, header and item styles) and the room's facts, the way the
 * production pipeline does (DESIGN.md, "One episode", step 1). Nothing here names a skill or a tool: both
 * come from the harness, so a variant's renames show up in the prompt without code changes.
 */
import type { Harness, PromptBlock, PromptSpec, Skill } from '../protocol/harness.js';
import type { Locale, Task, ToolSchema } from '../protocol/domain.js';
import type { Product, Viewer, World } from '../mock-services/index.js';
import { isWordCode } from '../protocol/text.js';

interface Labels {
  link: string;
  itemId: string;
  livePrice: string;
  listPrice: string;
  brand: string;
  specs: string;
  shipping: string;
  afterSales: string;
  status: Record<Product['status'], string>;
  shipsWithin: (h: number) => string;
  freeShipping: string;
  sevenDay: (yes: boolean) => string;
  insurance: (yes: boolean) => string;
  priceProtection: (days: number) => string;
  exclusions: string;
  viewers: string;
  currentLink: string;
  now: string;
  viewer: string;
  membership: Record<Viewer['membership'], string>;
  q: string;
  a: string;
  sep: string;
}

const LABELS: Record<Locale, Labels> = {
  'zh-CN': {
    link: '号链接',
    itemId: '商品ID',
    livePrice: '直播价',
    listPrice: '原价',
    brand: '品牌',
    specs: '可选规格',
    shipping: '发货',
    afterSales: '售后',
    status: { on_sale: '在售', sold_out: '已售罄', presale: '预售' },
    shipsWithin: (h) => `付款后${h}小时内发货`,
    freeShipping: '包邮',
    sevenDay: (yes) => (yes ? '支持七天无理由退货' : '不支持七天无理由退货'),
    insurance: (yes) => (yes ? '有运费险' : '无运费险'),
    priceProtection: (d) => (d > 0 ? `价保${d}天` : '无价保'),
    exclusions: '不退情形',
    viewers: '在线人数',
    currentLink: '当前讲解',
    now: '当前时间',
    viewer: '当前提问观众',
    membership: { none: '非会员', member: '会员', vip: 'VIP会员' },
    q: '问',
    a: '答',
    sep: '；',
  },
  en: {
    link: '',
    itemId: 'item id',
    livePrice: 'live price',
    listPrice: 'list price',
    brand: 'brand',
    specs: 'options',
    shipping: 'shipping',
    afterSales: 'after-sales',
    status: { on_sale: 'on sale', sold_out: 'sold out', presale: 'presale' },
    shipsWithin: (h) => `ships within ${h} hours of payment`,
    freeShipping: 'free shipping',
    sevenDay: (yes) => (yes ? 'seven-day no-reason returns' : 'no seven-day no-reason returns'),
    insurance: (yes) => (yes ? 'return-shipping insurance included' : 'no return-shipping insurance'),
    priceProtection: (d) => (d > 0 ? `price protection ${d} days` : 'no price protection'),
    exclusions: 'not returnable',
    viewers: 'viewers online',
    currentLink: 'now presenting',
    now: 'current time',
    viewer: 'viewer asking',
    membership: { none: 'not a member', member: 'member', vip: 'VIP member' },
    q: 'Q',
    a: 'A',
    sep: '; ',
  },
};

/** "3号链接" or "link 3", as the room says it. */
export function linkName(n: number, locale: Locale): string {
  return locale === 'en' ? `link ${n}` : `${n}号链接`;
}

/** Whether a product's options cost different amounts (the prompt then gives a "from" price and each option's). */
function pricesDiffer(p: Product): boolean {
  return p.skus.some((k) => k.price !== p.skus[0].price);
}

/**
 * The prompt's price line of a product: brand, live price and list price. Where the options cost different
 * amounts the live price is the cheapest option's, said as a "from" price ("89.9起", "from 89.9").
 */
export function productPriceLine(p: Product, locale: Locale): string {
  const L = LABELS[locale];
  const live = pricesDiffer(p) ? (locale === 'en' ? `from ${p.live_price}` : `${p.live_price}起`) : String(p.live_price);
  return `${L.brand}: ${p.brand}${L.sep}${L.livePrice}: ${live}${L.sep}${L.listPrice}: ${p.list_price}`;
}

function renderProduct(p: Product, locale: Locale): string {
  const L = LABELS[locale];
  const ranged = pricesDiffer(p);
  const attrs = Object.keys(p.attributes)
    .map((k) => `${k}: ${p.attributes[k]}`)
    .join(L.sep);
  const s = p.shipping;
  const a = p.after_sales;
  const shipping = [L.shipsWithin(s.ship_within_hours), s.ships_from, s.carrier, s.free_shipping ? L.freeShipping : '']
    .filter(Boolean)
    .join(L.sep);
  const after = [L.sevenDay(a.seven_day_return), L.insurance(a.return_shipping_insurance), L.priceProtection(a.price_protection_days)];
  if (a.return_exclusions.length > 0) after.push(`${L.exclusions}: ${a.return_exclusions.join('、')}`);
  return [
    `${linkName(p.link_no, locale)} ${p.title} (${L.itemId}: ${p.item_id}, ${L.status[p.status]})`,
    productPriceLine(p, locale),
    attrs,
    `${L.specs}: ${p.skus.map((k) => (ranged ? `${k.spec_text} ${k.price}` : k.spec_text)).join(' / ')}`,
    `${L.shipping}: ${shipping}`,
    `${L.afterSales}: ${after.join(L.sep)}`,
  ].join('\n');
}

/** Placeholder values for one request. */
export interface PromptFacts {
  persona_name: string;
  persona_style: string;
  current_product: string;
  lineup: string;
  faq: string;
  room: string;
  viewer: string;
  skills: string;
  tools: string;
  reply_max_chars: string;
  max_turns: string;
}

// Skills indexes of frozen skill lists (the loader deep-freezes the shared base harness), by disclosure
// mode: the identity harness shows the same index on every request.
const FROZEN_INDEXES = [new WeakMap<readonly Skill[], string>(), new WeakMap<readonly Skill[], string>()];

/**
 * A skill's index line, kept per skill object: a per-task operator gives a reset a new skills list (a
 * skill masked, a look-alike added) whose other skills are the compiled variant's, shared reset after
 * reset. The line is made again if the skill's name or description is no longer the one it was made from.
 */
function indexLine(s: Skill): string {
  const kept = indexLines.get(s);
  if (kept !== undefined && kept.name === s.name && kept.description === s.description) return kept.line;
  const line = `${s.name}: ${s.description}`;
  indexLines.set(s, { name: s.name, description: s.description, line });
  return line;
}

const indexLines = new WeakMap<Skill, { name: string; description: string; line: string }>();

/** Render the skills index: one line per skill, description only (or the body inline when a variant says so). */
export function renderSkillsIndex(skills: readonly Skill[], inlineBodies: boolean): string {
  const memo = Object.isFrozen(skills) ? FROZEN_INDEXES[inlineBodies ? 1 : 0] : undefined;
  let text = memo?.get(skills);
  if (text === undefined) {
    text = skills.map((s) => (inlineBodies ? `${s.name}: ${s.description}\n${s.body.trim()}` : indexLine(s))).join('\n');
    memo?.set(skills, text);
  }
  return text;
}

function jsonTypeName(schema: unknown): string {
  const t = (schema as { type?: unknown } | undefined)?.type;
  return typeof t === 'string' ? t : 'any';
}

/**
 * Tool documentation inside the prompt, in the spec's style (the API's `tools` list is always sent too).
 * Made once per frozen tool list and style: the base harness's, and a compiled variant's (shared by every
 * episode of its pool slot), come back on every reset.
 */
export function renderToolsDoc(tools: readonly ToolSchema[], style: PromptSpec['tools_doc_style']): string {
  if (!Object.isFrozen(tools)) return makeToolsDoc(tools, style);
  let byStyle = toolsDocMemo.get(tools);
  if (byStyle === undefined) toolsDocMemo.set(tools, (byStyle = {}));
  return (byStyle[style] ??= makeToolsDoc(tools, style));
}

const toolsDocMemo = new WeakMap<readonly ToolSchema[], Partial<Record<PromptSpec['tools_doc_style'], string>>>();

function makeToolsDoc(tools: readonly ToolSchema[], style: PromptSpec['tools_doc_style']): string {
  switch (style) {
    case 'none':
      return '';
    case 'json':
      return tools.map((t) => JSON.stringify(t.function)).join('\n');
    case 'xml':
      return tools
        .map((t) => {
          const props = (t.function.parameters.properties ?? {}) as Record<string, unknown>;
          const params = Object.keys(props)
            .map((k) => `<param name="${k}" type="${jsonTypeName(props[k])}"/>`)
            .join('');
          const desc = t.function.description ? `<description>${t.function.description}</description>` : '';
          return `<tool name="${t.function.name}">${desc}${params}</tool>`;
        })
        .join('\n');
    case 'signatures':
      return tools
        .map((t) => {
          const props = (t.function.parameters.properties ?? {}) as Record<string, unknown>;
          const required = new Set((t.function.parameters.required ?? []) as string[]);
          const params = Object.keys(props)
            .map((k) => `${k}${required.has(k) ? '' : '?'}: ${jsonTypeName(props[k])}`)
            .join(', ');
          const desc = t.function.description ? `  # ${t.function.description}` : '';
          return `${t.function.name}(${params})${desc}`;
        })
        .join('\n');
  }
}

/** The facts of a room that no harness changes: every prompt of one room shows the same ones. */
export interface RoomFacts {
  current_product: string;
  lineup: string;
  faq: string;
  room: string;
}

/**
 * The room's own facts: the product on screen, the lineup, the on-screen product's FAQ, the room's state.
 * Made once per world and locale (worlds are read-only, and generated tasks share a pool of rooms).
 */
export function roomFacts(world: World, locale: Locale): RoomFacts {
  let byLocale = roomMemo.get(world);
  if (byLocale === undefined) roomMemo.set(world, (byLocale = {}));
  return (byLocale[locale] ??= makeRoomFacts(world, locale));
}

const roomMemo = new WeakMap<World, Partial<Record<Locale, RoomFacts>>>();

function makeRoomFacts(world: World, locale: Locale): RoomFacts {
  const L = LABELS[locale];
  const current = world.products.find((p) => p.link_no === world.room.current_link) ?? world.products[0];
  const lineup = world.products.map((p) => `${linkName(p.link_no, locale)} ${p.title} (${L.itemId}: ${p.item_id})`).join('\n');
  const faq = current.faq.map((f) => `${L.q}: ${f.question} ${L.a}: ${f.answer}`).join('\n');
  const room = `${L.viewers}: ${world.room.viewer_count}${L.sep}${L.currentLink}: ${linkName(world.room.current_link, locale)}${L.sep}${L.now}: ${world.now}`;
  return { current_product: renderProduct(current, locale), lineup, faq, room };
}

/** The asking viewer's line, naming the viewer id as the harness names that field. */
export function viewerFact(harness: Harness, world: World, task: Task): string {
  const L = LABELS[task.locale];
  const viewer = world.viewers.find((v) => v.viewer_id === task.viewer_id);
  const viewerIdLabel = harness.field_names?.viewer_id ?? 'viewer_id';
  return viewer
    ? `${L.viewer}: ${viewer.nickname} (${viewerIdLabel}: ${viewer.viewer_id}, ${L.membership[viewer.membership]})`
    : `${L.viewer}: ${viewerIdLabel} ${task.viewer_id}`;
}

/**
 * Gather the facts a prompt can show for this task's room and viewer. `room` lets a caller that renders
 * several prompts of one room (an episode: the variant's and the canonical one) compute its facts once.
 */
export function promptFacts(
  harness: Harness,
  world: World,
  task: Task,
  inlineSkillBodies = false,
  room: RoomFacts = roomFacts(world, task.locale),
): PromptFacts {
  return {
    persona_name: world.room.persona.name,
    persona_style: world.room.persona.style,
    current_product: room.current_product,
    lineup: room.lineup,
    faq: room.faq,
    room: room.room,
    viewer: viewerFact(harness, world, task),
    skills: renderSkillsIndex(harness.skills, inlineSkillBodies || harness.prompt.skills_disclosure === 'inline'),
    tools: renderToolsDoc(harness.tools, harness.prompt.tools_doc_style),
    reply_max_chars: String(harness.limits.reply_max_chars),
    max_turns: String(harness.limits.max_turns),
  };
}

/**
 * Replace each `{{key}}` (key: `\w+`) whose key is a fact with its value; anything else stays as written.
 * This is `template.replace(/\{\{(\w+)\}\}/g, ...)` done by hand: most templates and items have no
 * placeholder at all, and those return unchanged after one `indexOf`.
 */
function fill(template: string, facts: PromptFacts): string {
  if (template.indexOf('{{') < 0) return template;
  let out = '';
  for (const part of fillParts(template, facts)) out += part;
  return out;
}

/**
 * `fill(template, facts).trim()`, without the copy `trim` makes: a filled template is a chain of
 * concatenations, and trimming it flattens the whole text (a block holding the skills index or the tools
 * doc is kilobytes) only for the prompt's join to copy it again. The parts are trimmed instead (the first
 * and last that are not all whitespace; `trimStart` / `trimEnd` strip what `trim` strips) and concatenated.
 */
function fillTrimmed(template: string, facts: PromptFacts): string {
  if (template.indexOf('{{') < 0) return template.trim();
  const parts = fillParts(template, facts);
  let first = 0;
  for (; first < parts.length; first++) {
    const t = parts[first].trimStart();
    if (t.length > 0) {
      parts[first] = t;
      break;
    }
  }
  let last = parts.length - 1;
  for (; last >= first; last--) {
    const t = parts[last].trimEnd();
    if (t.length > 0) {
      parts[last] = t;
      break;
    }
  }
  let out = '';
  for (let i = first; i <= last; i++) out += parts[i];
  return out;
}

/** The pieces `fill` concatenates: the template's text between placeholders and each placeholder's fact. */
function fillParts(template: string, facts: PromptFacts): string[] {
  const parts: string[] = [];
  let at = template.indexOf('{{');
  let done = 0;
  while (at >= 0) {
    let end = at + 2;
    while (isWordCode(template.charCodeAt(end))) end++;
    const key = template.slice(at + 2, end);
    if (end > at + 2 && template.startsWith('}}', end) && Object.hasOwn(facts, key)) {
      if (at > done) parts.push(template.slice(done, at));
      parts.push(facts[key as keyof PromptFacts]);
      done = end + 2;
      at = template.indexOf('{{', done);
    } else {
      // Not a placeholder here; the regex would try again one character later ("{{{x}}").
      at = template.indexOf('{{', at + 1);
    }
  }
  if (done < template.length) parts.push(template.slice(done));
  return parts;
}

function renderItems(items: readonly string[], style: PromptSpec['item_style'], facts: PromptFacts, locale: Locale): string {
  const filled = items.map((i) => fill(i, facts));
  switch (style) {
    case 'dash':
      return filled.map((i) => `- ${i}`).join('\n');
    case 'bullet':
      return filled.map((i) => `• ${i}`).join('\n');
    case 'numbered':
      return filled.map((i, n) => `${n + 1}. ${i}`).join('\n');
    case 'prose': {
      // Join rules into running sentences, the way a hand-written prompt reads.
      const end = locale === 'en' ? '.' : '。';
      return filled.map((i) => (/[。.!！?？]$/.test(i) ? i : i + end)).join(locale === 'en' ? ' ' : '');
    }
  }
}

function renderHeader(title: string, style: PromptSpec['header_style']): [string, string] {
  switch (style) {
    case 'markdown':
      return [`## ${title}`, ''];
    case 'xml':
      return [`<${title}>`, `</${title}>`];
    case 'brackets':
      return [`【${title}】`, ''];
    case 'plain':
      return [`${title}:`, ''];
  }
}

function renderBlock(block: PromptBlock, spec: PromptSpec, facts: PromptFacts, locale: Locale): string | null {
  const body = fillTrimmed(block.template, facts);
  const hasItems = block.items.length > 0;
  if (!body && !hasItems) return null;
  // Concatenated, not joined: the prompt's final join copies the text once for all blocks.
  const items = hasItems ? renderItems(block.items, spec.item_style, facts, locale) : '';
  const content = body && hasItems ? `${body}\n${items}` : body || items;
  const [open, close] = renderHeader(block.title, spec.header_style);
  return close ? `${open}\n${content}\n${close}` : `${open}\n${content}`;
}

/** Assemble the system prompt: blocks in the spec's order, then any extra (irrelevant) context. `room` as in `promptFacts`. */
export function renderSystemPrompt(
  harness: Harness,
  world: World,
  task: Task,
  inlineSkillBodies = false,
  room: RoomFacts = roomFacts(world, task.locale),
): string {
  const facts = promptFacts(harness, world, task, inlineSkillBodies, room);
  const spec = harness.prompt;
  const out: string[] = [];
  for (const block of spec.blocks) {
    const text = renderBlock(block, spec, facts, task.locale);
    if (text !== null) out.push(text);
  }
  for (const extra of spec.extra_context) out.push(extra);
  return out.join(spec.separator);
}
