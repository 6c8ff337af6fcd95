/**
 * Shared building blocks of the task generator: the builder contract, locale helpers, price and time
 * wording, and small answer-key constructors. Every intent module (env/tasks/intents/*.ts) builds on these,
 * so the rules that keep answer keys honest (exact fact strings, numbers only from evidence, replies
 * within the base limit) live in one place.
 */
import type {
  AnswerKey,
  CallRequirement,
  CanonicalCall,
  Fact,
  HistoryLine,
  Locale,
  ToolOutcome,
  WorldState,
} from '../../protocol/domain.js';
import { emptyWorldState } from '../../protocol/domain.js';
import type { Rng } from '../../protocol/rng.js';
import { charLength, isWordCode } from '../../protocol/text.js';
import { REFERENCE_MAX_CHARS } from '../../protocol/harness.js';
import type { Product, Sku, Viewer, World } from '../../mock-services/index.js';
import { linkName } from '../prompt.js';

/** The longest reference reply (code points): reference replies must fit it, and a base harness allows it. */
export { REFERENCE_MAX_CHARS };

/** What a builder gets: the world, the locale, its random stream and optional constraints. */
export interface BuildContext {
  world: World;
  locale: Locale;
  rng: Rng;
  /** The product being presented (room.current_link): its facts are in the prompt. */
  current: Product;
  /**
   * When set, the task must be asked by this viewer (multi-intent parts share one viewer). A builder that
   * cannot serve this viewer returns null.
   */
  viewer?: Viewer;
  /**
   * Ask the mock services (on a fresh state overlay) what a call returns, so that facts derived from
   * service logic (return eligibility, FAQ search) are exactly what the policy will see.
   */
  /** Multi-intent parts: prefer the shortest reference wording, so that two answers fit one reply. */
  compact?: boolean;
  call: (name: string, args: { [key: string]: unknown }, viewerId: string) => ToolOutcome;
}

/** A finished draft: everything of a Task except the id and the world/split bookkeeping. */
export interface Draft {
  /** The sub-kind that produced it (e.g. `price_other`), for debugging and tests. */
  sub_kind: string;
  viewer_id: string;
  messages: string[];
  history: HistoryLine[];
  answer_key: AnswerKey;
}

/** A sub-kind builder: a draft, or null when the world does not support this sub-kind. */
export type Builder = (ctx: BuildContext) => Draft | null;

/** A sub-kind with its sampling weight within its intent. */
export interface SubKind {
  name: string;
  weight: number;
  build: Builder;
}

/** Choose by locale. */
export function L<T>(locale: Locale, zh: T, en: T): T {
  return locale === 'en' ? en : zh;
}

/**
 * Fill `{name}` placeholders (name: `\w+`). A missing key is a generator bug, so it throws. This is
 * `template.replace(/\{(\w+)\}/g, ...)` done by hand: a task fills a dozen templates.
 */
export function fill(template: string, vars: { [key: string]: string | number }): string {
  let at = template.indexOf('{');
  if (at < 0) return template;
  let out = '';
  let done = 0;
  while (at >= 0) {
    let end = at + 1;
    while (isWordCode(template.charCodeAt(end))) end++;
    if (end > at + 1 && template.charCodeAt(end) === 0x7d /* } */) {
      const k = template.slice(at + 1, end);
      const v = vars[k];
      if (v === undefined) throw new Error(`template placeholder {${k}} has no value`);
      out += template.slice(done, at) + String(v);
      done = end + 1;
      at = template.indexOf('{', done);
    } else {
      at = template.indexOf('{', at + 1);
    }
  }
  return out + template.slice(done);
}

/** Pick one paraphrase template and fill it. */
export function say(rng: Rng, templates: readonly string[], vars: { [key: string]: string | number } = {}): string {
  return fill(rng.pick(templates), vars);
}

/**
 * Fill a reference-reply template: a random paraphrase, or the shortest one when the context is compact
 * (multi-intent parts share the 120-character budget).
 */
export function sayRef(ctx: BuildContext, templates: readonly string[], vars: { [key: string]: string | number } = {}): string {
  if (!ctx.compact) return say(ctx.rng, templates, vars);
  let best = fill(templates[0], vars);
  for (const t of templates.slice(1)) {
    const s = fill(t, vars);
    if (charLength(s) < charLength(best)) best = s;
  }
  return best;
}

/** A price as the tool results and the prompt print it: `89.90` -> "89.9" (String(Number(x))). */
export function price(x: number): string {
  return String(Number(x));
}

/** "3号链接" / "link 3", exactly as the prompt names links (one wording for prompt and replies). */
export { linkName };

/** The fact that a link number is named: "3号" / "link 3". */
export function linkFact(key: string, n: number, locale: Locale): Fact {
  return { key, values: L(locale, [`${n}号`], [`link ${n}`]) };
}

/** Strip spaces from a zh spec text ("蓝色 M" -> "蓝色M"), the way viewers type it; en keeps spaces. */
export function specWords(sku: Sku, locale: Locale): string {
  return locale === 'en' ? sku.spec_text : sku.spec_text.replace(/\s+/g, '');
}

/** Wall-clock parts of an ISO-8601 local time, read from the text itself (never via the host's clock). */
export interface ClockParts {
  month: number;
  day: number;
  hour: number;
  /** Two digits, as written in the ISO string. */
  minute: string;
}

/** Parse "2026-12-03T20:00:00+08:00" into its local wall-clock parts; null when malformed. */
export function clockParts(iso: string): ClockParts | null {
  const m = /^\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!m) return null;
  return { month: Number(m[1]), day: Number(m[2]), hour: Number(m[3]), minute: m[4] };
}

const EN_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A time as a reply says it, using only digits that the ISO string contains: "12月3日20点" / "12月3日20点30分",
 * "Dec 3, 20:00". Returns the phrase and the facts that state the time of day.
 */
export function sayClock(iso: string, locale: Locale): { phrase: string; values: string[] } | null {
  const c = clockParts(iso);
  if (!c) return null;
  const hm = `${c.hour}:${c.minute}`;
  // An afternoon or evening time said the way people say it ("8:30 pm", "晚上8点30") is the same time.
  const h12 = c.hour > 12 ? c.hour - 12 : c.hour;
  const pm = c.hour >= 12;
  if (locale === 'en') {
    const twelve = pm ? (c.minute === '00' ? [`${h12}:00 pm`, `${h12} pm`, `${h12}pm`] : [`${h12}:${c.minute} pm`, `${h12}:${c.minute}pm`]) : [];
    return { phrase: `${EN_MONTHS[c.month - 1]} ${c.day}, ${hm}`, values: [hm, ...twelve] };
  }
  const zhTime = c.minute === '00' ? `${c.hour}点` : `${c.hour}点${c.minute}分`;
  const values = c.minute === '00' ? [`${c.hour}点`, hm] : [`${c.hour}点${c.minute}`, hm];
  if (pm) {
    const at = c.minute === '00' ? `${h12}点` : `${h12}点${c.minute}`;
    const parts = c.hour >= 18 ? ['晚上', '晚'] : c.hour === 12 ? ['中午'] : ['下午'];
    for (const p of parts) values.push(`${p}${at}`);
  }
  return { phrase: `${c.month}月${c.day}日${zhTime}`, values };
}

/** A call requirement with one acceptable form. */
export function req(name: string, args: { [key: string]: unknown }): CallRequirement {
  return { any_of: [{ name, arguments: args }] };
}

/** A call requirement with several acceptable forms. */
export function reqAny(...calls: CanonicalCall[]): CallRequirement {
  return { any_of: calls };
}

/** `get_product` by link number or by item id: either identifies the product. */
export function reqProduct(p: Product): CallRequirement {
  return reqAny({ name: 'get_product', arguments: { link_no: p.link_no } }, { name: 'get_product', arguments: { item_id: p.item_id } });
}

/** The parts of an answer key a builder sets; the rest default to "nothing expected". */
export interface KeyParts {
  expect?: AnswerKey['expect'];
  reply_skills: string[];
  strategy_skills?: string[];
  required_calls?: CallRequirement[];
  /** Complete calls when a requirement leaves a required argument free; defaults to each requirement's first form. */
  solution?: CanonicalCall[];
  optional_tools?: string[];
  required_facts?: Fact[];
  forbidden_facts?: Fact[];
  /** The other reading of an ambiguous request: the facts a reply answering instead of asking back states. */
  answer_instead?: AnswerKey['answer_instead'];
  expected_state?: Partial<WorldState>;
  /** Changes either reading allows (made or not). */
  optional_state?: Partial<WorldState>;
  cta?: boolean;
  reference_reply: string;
}

/** Complete an answer key with defaults, in the interface's key order (stable JSON). */
export function answerKey(p: KeyParts): AnswerKey {
  const state = emptyWorldState();
  return {
    expect: p.expect ?? 'answer',
    reply_skills: p.reply_skills,
    strategy_skills: p.strategy_skills ?? [],
    required_calls: p.required_calls ?? [],
    solution: p.solution ?? (p.required_calls ?? []).map((r) => r.any_of[0]),
    optional_tools: p.optional_tools ?? [],
    required_facts: p.required_facts ?? [],
    forbidden_facts: p.forbidden_facts ?? [],
    ...(p.answer_instead !== undefined ? { answer_instead: p.answer_instead } : {}),
    expected_state: {
      issued_coupons: p.expected_state?.issued_coupons ?? state.issued_coupons,
      pushed_cards: p.expected_state?.pushed_cards ?? state.pushed_cards,
      handoffs: p.expected_state?.handoffs ?? state.handoffs,
      refusals: p.expected_state?.refusals ?? state.refusals,
    },
    ...(p.optional_state !== undefined ? { optional_state: p.optional_state } : {}),
    cta: p.cta ?? false,
    reference_reply: p.reference_reply,
  };
}

/** A draft, or null when the reference reply breaks the base length limit (the builder then yields). */
export function draft(sub_kind: string, viewer_id: string, messages: string[], history: HistoryLine[], key: KeyParts): Draft | null {
  // English replies start with a capital even when the template opens with a name like "link 3".
  const first = key.reference_reply.charCodeAt(0);
  const reference_reply =
    first >= 0x61 && first <= 0x7a ? String.fromCharCode(first - 0x20) + key.reference_reply.slice(1) : key.reference_reply;
  if (charLength(reference_reply) > REFERENCE_MAX_CHARS) return null;
  return { sub_kind, viewer_id, messages, history, answer_key: answerKey({ ...key, reference_reply }) };
}

/** The asking viewer: the fixed one when the context has it, else a random viewer of the world. */
export function anyViewer(ctx: BuildContext): Viewer {
  return ctx.viewer ?? ctx.rng.pick(ctx.world.viewers);
}

/** Products other than the one on screen, in lineup order. */
export function otherProducts(ctx: BuildContext): Product[] {
  return ctx.world.products.filter((p) => p.link_no !== ctx.current.link_no);
}

/** A product by item id. */
export function productById(world: World, itemId: string): Product | undefined {
  return world.products.find((p) => p.item_id === itemId);
}

/**
 * Split an answer into clauses a reply can quote: the reply states the answer when it contains any clause
 * of 4+ code points (or the whole answer when it has no such clause).
 */
export function answerFactValues(answer: string): string[] {
  const clauses = answer
    .split(/[，。；！？、,.;!?]+/)
    .map((s) => s.trim())
    .filter((s) => charLength(s) >= 4);
  const out = [...new Set(clauses)];
  return out.length > 0 ? out : [answer.trim()];
}

/**
 * The first message (in random order) for which `search_faq {question: message, item_id}` surfaces the
 * FAQ: a task whose own wording cannot find its answer would be unanswerable. Null when none does.
 */
export function surfacingMessage(
  ctx: BuildContext,
  viewerId: string,
  itemId: string,
  faqId: string,
  candidates: readonly string[],
): string | null {
  for (const m of ctx.rng.shuffle(candidates)) {
    const out = ctx.call('search_faq', { question: m, item_id: itemId }, viewerId);
    const results = out.ok ? ((out.data as { results?: { faq_id: string }[] }).results ?? []) : [];
    if (results.some((r) => r.faq_id === faqId)) return m;
  }
  return null;
}

/** Pick the sub-kind order by weight without replacement (the first that fits the world wins). */
export function weightedOrder(rng: Rng, kinds: readonly SubKind[]): SubKind[] {
  const left = kinds.slice();
  const out: SubKind[] = [];
  while (left.length > 0) {
    // `rng.weighted` over {name: weight} of the kinds left (names are unique), draw for draw: one
    // `next()`, weights subtracted in order, the last kind as the fallback; without building the table.
    let total = 0;
    for (const k of left) total += k.weight;
    let x = rng.next() * total;
    let i = 0;
    for (; i < left.length - 1; i++) {
      x -= left[i].weight;
      if (x < 0) break;
    }
    out.push(left[i]);
    left.splice(i, 1);
  }
  return out;
}
