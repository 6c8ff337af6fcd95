/**
 * The task consistency check (`harness-gym consistency`): do the tasks agree with the harness they are
 * played in, and with themselves? A careful agent follows the skills it is served and the data it is
 * shown; a key that scores what the skills instruct as wrong, or data that says two things, pays the
 * careful agent less than a lucky one. Every finding names the task, its seed and both sides.
 *
 * Kinds (`Contradiction.code`):
 * - key against skills: `CALL_NOT_INSTRUCTED` (a required call or state change no served skill names),
 *   `INSTRUCTED_CALL_IRRELEVANT` (a look-up tool a served skill tells the agent to use is scored
 *   irrelevant), `DISCOVERY_IRRELEVANT` (the key needs a tool that only discovery offers, but scores the
 *   discovery call irrelevant);
 * - key against the message: `FACT_NOT_ASKED` (a required fact the message does not ask for),
 *   `FACT_UNSEEN` (a required fact whose numbers nothing the agent sees contains), `FORBIDDEN_FACT_IN_DATA` (a
 *   forbidden number that an option of a product in scope names: a right answer would state it),
 *   `MESSAGE_AGAINST_DATA` (the viewer says something the data denies);
 * - data against data: `ATTRIBUTE_AGAINST_SKUS`, `FAQ_AGAINST_DATA` (an FAQ that says an item sold without
 *   seven-day returns can be returned, or names an option the item is not sold in), `POLICY_SELF_CONTRADICTS`
 *   (exceptions to seven-day returns listed for an item sold without them), `PRICE_AGAINST_SKUS`, `PRICE_OF_SOLD_OUT`,
 *   `RETURN_RESULT_SELF_CONTRADICTS`, `COUPON_LISTING_HIDES_STATE`, `COUPON_FOR_SOLD_OUT`;
 * - the harness's rules against its own texts (base and every compiled preset variant):
 *   `BANNED_WORD_IN_HARNESS_TEXT` (a forbidden word the skills or the prompt use), `ENDING_AGAINST_KIND`
 *   (a sales ending required on a reply that must not sell: a question back, a hand-off, a refusal, bad news).
 */
import type { Intent, Locale, Split, Task, ToolOutcome } from '../protocol/domain.js';
import { emptyWorldState } from '../protocol/domain.js';
import type { Harness, Skill } from '../protocol/harness.js';
import { hookKind } from '../protocol/harness.js';
import { extractNumbers, normalizeForMatch } from '../protocol/text.js';
import { callCustomService, embeddedHarness, harnessSetOf } from '../harness/index.js';
import type { HarnessSet } from '../harness/index.js';
import { PRESETS, buildVariant, isSalesEnding } from '../harness-variants/index.js';
import type { World } from '../mock-services/index.js';
import { callService, optionCodes, worldOfTask } from '../mock-services/index.js';
import { MARKETING_TOOLS, generateFor, generatedIntents, loadHarnessTasks, productPriceLine, renderSystemPrompt, toolMentions } from '../env/index.js';
export { toolMentions };

/** One contradiction: what disagrees with what, where. */
export interface Contradiction {
  code: ContradictionCode;
  /** The task id (or `world <seed>` for data found outside a task). */
  task: string;
  seed: number | null;
  locale: Locale;
  /** The two sides, each readable on its own. */
  a: string;
  b: string;
}

export const CONTRADICTION_CODES = [
  'CALL_NOT_INSTRUCTED',
  'INSTRUCTED_CALL_IRRELEVANT',
  'DISCOVERY_IRRELEVANT',
  'FACT_NOT_ASKED',
  'FACT_UNSEEN',
  'FORBIDDEN_FACT_IN_DATA',
  'MESSAGE_AGAINST_DATA',
  'ATTRIBUTE_AGAINST_SKUS',
  'FAQ_AGAINST_DATA',
  'POLICY_SELF_CONTRADICTS',
  'PRICE_AGAINST_SKUS',
  'PRICE_OF_SOLD_OUT',
  'RETURN_RESULT_SELF_CONTRADICTS',
  'COUPON_LISTING_HIDES_STATE',
  'COUPON_FOR_SOLD_OUT',
  'BANNED_WORD_IN_HARNESS_TEXT',
  'ENDING_AGAINST_KIND',
] as const;
export type ContradictionCode = (typeof CONTRADICTION_CODES)[number];

/** The check's report. */
export interface ConsistencyReport {
  harness: string;
  tasks: number;
  task_files: number;
  worlds: number;
  variants: number;
  /** Contradictions by code (every code listed, zeros included). */
  counts: Record<ContradictionCode, number>;
  total: number;
  /** The first contradictions of each code (at most `examples` per code). */
  examples: Contradiction[];
}

/** What to check. */
export interface ConsistencyOptions {
  seeds: number;
  from?: number;
  locales?: readonly Locale[];
  splits?: readonly Split[];
  harness?: HarnessSet;
  /** Compile the preset variants per task and check their rules too (default true). */
  variants?: boolean;
  /** Examples kept per code (default 3). */
  examples?: number;
}

// ---------------------------------------------------------------------------------------------------
// Skills: which tools they tell the agent to call
// ---------------------------------------------------------------------------------------------------

/** The tools whose calls change the world: required because of their effect, never "look-ups". */
const EFFECT_OPS = new Set(['issue_coupon', 'push_link_card', 'handoff_to_human', 'refuse_request', 'load_skill', 'discover_tools']);

// ---------------------------------------------------------------------------------------------------
// Messages: which facts they ask for, what they claim
// ---------------------------------------------------------------------------------------------------

/** Facts that answer one kind of question: a key may require them only when the message asks it. */
const ASKS: Readonly<Record<string, { zh: RegExp; en: RegExp }>> = {
  live_price: { zh: /多少|价|钱|米|便宜|贵|优惠/, en: /how much|price|cost|cheap|expensive|\$|deal|discount/i },
  tracking_no: { zh: /到哪|物流|快递|单号|还没到|查/, en: /where|track|shipping|arriv|deliver/i },
  stock: { zh: /有货|还有|货|卖完|库存|能拍|没了|剩/, en: /stock|available|left|sold out|any |still have|got /i },
  stock_status: { zh: /有货|还有|货|卖完|库存|能拍|没了|剩/, en: /stock|available|left|sold out|any |still have|got /i },
};

/** What a message claims about an order, and the statuses that make the claim true. */
const ORDER_CLAIMS: readonly { zh: RegExp; en: RegExp; statuses: readonly string[]; says: string }[] = [
  { zh: /还没到|没收到|怎么还不到/, en: /hasn't arrived|has not arrived|not arrived|still waiting/i, statuses: ['shipped'], says: 'the parcel is on its way but late' },
  {
    zh: /收到的|收到就|到了发现|用了两天|用了.{0,3}就坏/,
    en: /arrived damaged|I got is broken|received the|broke already|after using/i,
    statuses: ['delivered', 'refunding'],
    says: 'the goods were received',
  },
];

// ---------------------------------------------------------------------------------------------------

const ZH_UNITS = '粒|片|包|袋|瓶|支|盒|条|只|罐|贴|枚|颗';
// An option names its count ("180粒", "60 tablets"); an attribute states a pack as "1.0g×90粒" / "1.0 g x 90 softgels"
// (a dose such as "每次1粒" is not a pack size).
const OPTION_ZH = new RegExp(`(\\d+)\\s*(${ZH_UNITS})`, 'g');
const PACK_ZH = new RegExp(`[×xX*]\\s*(\\d+)\\s*(${ZH_UNITS})`, 'g');
const EN_UNITS = 'softgels?|tablets?|capsules?|bags?|packs?|sachets?|bottles?|boxes?|pieces?|sticks?|pads?|patches?|cans?';
const OPTION_EN = new RegExp(`(\\d+)\\s+(${EN_UNITS})\\b`, 'gi');
const PACK_EN = new RegExp(`(?:^|\\s)[x×*]\\s*(\\d+)\\s+(${EN_UNITS})\\b`, 'gi');

function counts(text: string, locale: Locale, pack: boolean): { n: number; unit: string }[] {
  const re = pack ? (locale === 'en' ? PACK_EN : PACK_ZH) : locale === 'en' ? OPTION_EN : OPTION_ZH;
  const out: { n: number; unit: string }[] = [];
  for (const m of text.matchAll(re)) out.push({ n: Number(m[1]), unit: m[2].toLowerCase().replace(/(?:es|s)$/, '') });
  return out;
}

/** An FAQ answer that says the item can be returned (some way) within the seven days. */
const RETURNABLE_SAID = /可以七天无理由|未拆封可以|标准款可以|可以退|7-day returns|can be returned|(?:unopened|sealed)[^;.]*\bcan\b|standard ones can/i;

/** What the world check reads through (tests plant a faulty service or prompt line here). */
export interface WorldSeams {
  call?: typeof callService;
  priceLine?: typeof productPriceLine;
}

/** Data against data, in one world (rooms are shared by many tasks: checked once each). */
export function worldContradictions(world: World, locale: Locale, seams: WorldSeams = {}): Omit<Contradiction, 'task' | 'seed' | 'locale'>[] {
  const out: Omit<Contradiction, 'task' | 'seed' | 'locale'>[] = [];
  const call = seams.call ?? callService;
  const priceLine = seams.priceLine ?? productPriceLine;
  const probe = (name: string, args: { [k: string]: unknown }, viewer: string): ToolOutcome =>
    call(name, args, { world, state: emptyWorldState(), viewer_id: viewer });
  for (const p of world.products) {
    const skuCounts = p.skus.flatMap((s) => counts(s.spec_text, locale, false));
    for (const [k, v] of Object.entries(p.attributes)) {
      for (const c of counts(v, locale, true)) {
        const same = skuCounts.filter((s) => s.unit === c.unit);
        if (same.length > 0 && !same.some((s) => s.n === c.n))
          out.push({
            code: 'ATTRIBUTE_AGAINST_SKUS',
            a: `${p.item_id} attribute ${k}: ${v}`,
            b: `its SKUs: ${p.skus.map((s) => s.spec_text).join(' / ')}`,
          });
      }
    }
    if (!p.after_sales.seven_day_return && p.after_sales.return_exclusions.length > 0)
      out.push({
        code: 'POLICY_SELF_CONTRADICTS',
        a: `${p.item_id} is sold without seven-day returns`,
        b: `its policy lists exceptions to them: ${p.after_sales.return_exclusions.join('; ')}`,
      });
    if (!p.after_sales.seven_day_return)
      for (const f of p.faq)
        if (RETURNABLE_SAID.test(f.answer))
          out.push({
            code: 'FAQ_AGAINST_DATA',
            a: `${p.item_id}'s FAQ ${f.faq_id}: "${f.answer}"`,
            b: `the product is sold without seven-day returns`,
          });
    const sold = p.skus.map((s) => s.spec_text).join(' ');
    for (const f of p.faq) {
      const missing = optionCodes(f.answer).filter((c) => !sold.includes(c));
      if (missing.length > 0)
        out.push({
          code: 'FAQ_AGAINST_DATA',
          a: `${p.item_id}'s FAQ ${f.faq_id} names option ${missing.join(', ')}: "${f.answer}"`,
          b: `its options: ${p.skus.map((s) => s.spec_text).join(' / ')}`,
        });
    }
    const prices = [...new Set(p.skus.map((s) => s.price))];
    const line = priceLine(p, locale);
    if (prices.length > 1 && !/起|\bfrom\b/i.test(line))
      out.push({
        code: 'PRICE_AGAINST_SKUS',
        a: `the prompt states one live price for ${p.item_id}: ${line}`,
        b: `its SKUs cost ${p.skus.map((s) => `${s.spec_text} ${s.price}`).join(' / ')}`,
      });
    const onSale = p.skus.filter((s) => s.stock > 0);
    if (p.status === 'on_sale' && onSale.length > 0 && !onSale.some((s) => s.price === p.live_price))
      out.push({
        code: 'PRICE_OF_SOLD_OUT',
        a: `${p.item_id}'s live price ${p.live_price} is the price of sold-out SKUs only`,
        b: `in stock: ${onSale.map((s) => `${s.spec_text} ${s.price}`).join(' / ')}`,
      });
  }
  for (const v of world.viewers) {
    const listed = probe('list_orders', { viewer_id: v.viewer_id }, v.viewer_id);
    if (!listed.ok) continue;
    for (const o of (listed.data as { orders?: { order_id: string }[] }).orders ?? []) {
      const r = probe('check_return_eligibility', { order_id: o.order_id }, v.viewer_id);
      if (!r.ok) continue;
      const d = r.data as { eligible: boolean; reason_code: string; reason: string; deadline?: string };
      if (d.deadline !== undefined && !d.eligible && d.reason_code !== 'WINDOW_EXPIRED')
        out.push({
          code: 'RETURN_RESULT_SELF_CONTRADICTS',
          a: `${o.order_id}: not returnable (${d.reason_code}: ${d.reason})`,
          b: `the same result gives a return deadline ${d.deadline}`,
        });
      if (d.deadline !== undefined && d.eligible && d.deadline < world.now)
        out.push({ code: 'RETURN_RESULT_SELF_CONTRADICTS', a: `${o.order_id}: returnable`, b: `its deadline ${d.deadline} has passed (now ${world.now})` });
    }
  }
  const anyViewer = world.viewers[0]?.viewer_id ?? 'v_0';
  const promos = probe('get_promotions', {}, anyViewer);
  if (promos.ok) {
    for (const c of (promos.data as { coupons?: { coupon_id: string; valid_from?: string; remaining?: number }[] }).coupons ?? []) {
      const full = world.coupons.find((x) => x.coupon_id === c.coupon_id);
      if (full === undefined) continue;
      const notYet = full.valid_from > world.now;
      const spent = full.remaining <= 0;
      if ((notYet && c.valid_from === undefined) || (spent && c.remaining === undefined))
        out.push({
          code: 'COUPON_LISTING_HIDES_STATE',
          a: `get_promotions lists coupon ${c.coupon_id} as running`,
          b: notYet ? `it is not valid until ${full.valid_from}` : 'it has run out',
        });
      if (full.scope.kind === 'items') {
        const items = full.scope.item_ids.map((id) => world.products.find((p) => p.item_id === id));
        if (items.length > 0 && items.every((p) => p !== undefined && p.status === 'sold_out'))
          out.push({ code: 'COUPON_FOR_SOLD_OUT', a: `coupon ${c.coupon_id} applies only to ${full.scope.item_ids.join(', ')}`, b: 'every one of them is sold out' });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------------

type Finding = Omit<Contradiction, 'task' | 'seed' | 'locale'>;

/** Whether a harness tool is a plain look-up (not an effect, not the environment's). */
function isLookup(set: HarnessSet, tool: string): boolean {
  const op = set.bindings.opOf(tool);
  if (op !== undefined) return !EFFECT_OPS.has(op);
  // A custom tool is a look-up unless its module is stateful (its calls change the world, as effects do).
  const b = set.bindings.tools.get(tool);
  return b !== undefined && !(b.kind === 'custom' && set.services.get(b.module)?.stateful === true);
}

/** The tools only discovery offers, in a harness (empty when it has no discovery tool). */
function hiddenTools(set: HarnessSet, h: Harness): Set<string> {
  if (set.bindings.discoverTool === undefined) return new Set();
  // The tools the router hides until discovery (env/tool-router.ts), by the operation each answers.
  return new Set(h.tools.map((t) => t.function.name).filter((n) => (MARKETING_TOOLS as readonly string[]).includes(set.bindings.opOf(n) ?? '')));
}

/** The key against the skills it serves, the message and the data: contradictions of one task. */
export function taskContradictions(task: Task, set: HarnessSet): Finding[] {
  const out: Finding[] = [];
  const h = set.get(task.locale);
  const key = task.answer_key;
  const toolNames = h.tools.map((t) => t.function.name);
  const served = [...key.reply_skills, ...key.strategy_skills]
    .map((n) => h.skills.find((s) => s.name === n))
    .filter((s): s is Skill => s !== undefined);
  const mentions = new Map<string, 'call' | 'avoid'>();
  for (const s of served) for (const [t, m] of toolMentions(s.body, toolNames)) if (m === 'call' || !mentions.has(t)) mentions.set(t, m);
  const skillNames = served.map((s) => s.name).join(', ') || '(none)';

  // Required calls and required effects must be instructed by a served skill.
  const load = set.bindings.loadSkillTool;
  for (const r of key.required_calls) {
    const names = [...new Set(r.any_of.map((c) => c.name))];
    if (names.every((n) => n === load)) continue;
    if (!names.some((n) => mentions.get(n) === 'call'))
      out.push({ code: 'CALL_NOT_INSTRUCTED', a: `the key requires ${names.join(' or ')}`, b: `no served skill (${skillNames}) tells the agent to call it` });
  }
  const effects: [Exclude<keyof typeof key.expected_state, 'custom'>, string][] = [
    ['issued_coupons', 'issue_coupon'],
    ['pushed_cards', 'push_link_card'],
    ['handoffs', 'handoff_to_human'],
    ['refusals', 'refuse_request'],
  ];
  for (const [field, op] of effects) {
    const tool = set.bindings.toolOf(op);
    if (key.expected_state[field].length === 0 || tool === undefined) continue;
    if (mentions.get(tool) !== 'call')
      out.push({ code: 'CALL_NOT_INSTRUCTED', a: `the key expects the effect of ${tool} (${field})`, b: `no served skill (${skillNames}) tells the agent to call it` });
  }
  // A stateful custom service's expected state: one of the tools bound to its module must be instructed.
  for (const module of Object.keys(key.expected_state.custom ?? {})) {
    const tools = [...set.bindings.tools].filter(([, b]) => b.kind === 'custom' && b.module === module).map(([t]) => t);
    const required = key.required_calls.some((r) => r.any_of.some((c) => tools.includes(c.name))); // reported above
    if (tools.length > 0 && !required && !tools.some((t) => mentions.get(t) === 'call'))
      out.push({ code: 'CALL_NOT_INSTRUCTED', a: `the key expects the state of custom.${module} (${tools.join(' or ')})`, b: `no served skill (${skillNames}) tells the agent to call it` });
  }

  // What the reward counts as relevant (rewards/modules/tool-rationality.ts).
  const relevant = new Set<string>(key.optional_tools);
  for (const r of key.required_calls) for (const c of r.any_of) relevant.add(c.name);
  const exp = key.expected_state;
  const toolOf = (op: string) => set.bindings.toolOf(op) ?? op;
  if (key.expect === 'refuse' || exp.refusals.length > 0) relevant.add(toolOf('refuse_request'));
  if (key.expect === 'handoff' || exp.handoffs.length > 0) relevant.add(toolOf('handoff_to_human'));
  if (exp.issued_coupons.length > 0 || (key.optional_state?.issued_coupons?.length ?? 0) > 0) relevant.add(toolOf('issue_coupon'));
  if (exp.pushed_cards.length > 0) relevant.add(toolOf('push_link_card'));
  for (const [t, m] of mentions) {
    if (m !== 'call' || relevant.has(t)) continue;
    if (isLookup(set, t))
      out.push({ code: 'INSTRUCTED_CALL_IRRELEVANT', a: `served skill (${skillNames}) tells the agent to call ${t}`, b: `the key scores ${t} an irrelevant call` });
  }
  const discover = set.bindings.discoverTool;
  if (discover !== undefined && !relevant.has(discover)) {
    const hidden = hiddenTools(set, h);
    const needs = [...relevant].filter((t) => hidden.has(t));
    if (needs.length > 0)
      out.push({ code: 'DISCOVERY_IRRELEVANT', a: `the key allows or requires ${needs.join(', ')}, offered only after ${discover}`, b: `it scores ${discover} irrelevant` });
  }

  // Facts against the message.
  const said = [...task.messages, ...task.history.filter((l) => l.role === 'user').map((l) => l.content)].join('\n');
  if (key.expect === 'answer') {
    for (const f of key.required_facts) {
      const bare = f.key.replace(/^m\d+:/, '');
      const cue = ASKS[bare];
      if (cue && !(task.locale === 'en' ? cue.en : cue.zh).test(said))
        out.push({ code: 'FACT_NOT_ASKED', a: `the key requires ${f.key} (${f.values.join(' / ')})`, b: `the viewer asks: "${task.messages.join(' / ')}"` });
    }
  }
  const world = worldOfTask(task);
  const evidence = evidenceNumbers(task, h, world);
  for (const f of key.required_facts) {
    if (!f.values.some((v) => extractNumbers(v).every((n) => evidence.has(n))))
      out.push({ code: 'FACT_UNSEEN', a: `the key requires ${f.key} = ${f.values.join(' / ')}`, b: 'no tool result of the solution, nor the prompt, nor the message contains its numbers' });
  }
  // A forbidden number that names an option of a product in the task's scope ("90 softgels" at a list price
  // of 90): a correct reply naming the option would state the forbidden fact.
  const scoped = world.products.filter(
    (p) =>
      p.link_no === world.room.current_link ||
      key.solution.some((c) => c.arguments.link_no === p.link_no || c.arguments.item_id === p.item_id),
  );
  for (const f of key.forbidden_facts) {
    for (const v of f.values) {
      const n = /^\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : null;
      if (n === null) continue;
      const hit = scoped.find((p) => p.skus.some((k) => extractNumbers(k.spec_text).includes(n)));
      if (hit)
        out.push({
          code: 'FORBIDDEN_FACT_IN_DATA',
          a: `the key forbids ${f.key} = ${v}`,
          b: `${hit.item_id}'s options name it: ${hit.skus.map((k) => k.spec_text).join(' / ')}`,
        });
    }
  }
  for (const claim of ORDER_CLAIMS) {
    if (!(task.locale === 'en' ? claim.en : claim.zh).test(task.messages.join('\n'))) continue;
    const orders = world.orders.filter((o) => o.viewer_id === task.viewer_id);
    const asked = orders.filter((o) => task.messages.some((m) => m.includes(world.products.find((p) => p.item_id === o.item_id)?.title ?? '\u0000')));
    for (const o of asked.length > 0 ? asked : orders) {
      if (!claim.statuses.includes(o.status))
        out.push({ code: 'MESSAGE_AGAINST_DATA', a: `the viewer says ${claim.says}: "${task.messages.join(' / ')}"`, b: `order ${o.order_id} is ${o.status} (placed ${o.placed_at})` });
    }
  }
  return out;
}

/** Every number the agent can see for a task: the prompt, the messages, the history and the solution's results. */
function evidenceNumbers(task: Task, h: Harness, world: World): Set<number> {
  const texts = [renderSystemPrompt(h, world, task, true), ...task.messages, ...task.history.map((l) => l.content)];
  const state = emptyWorldState();
  const set = harnessSetOf(h);
  // A tool bound to a custom service is answered by the harness's module, as in an episode.
  const call = (name: string, args: Record<string, unknown>, st: typeof state) => {
    const b = set.bindings.tools.get(name);
    const svc = b?.kind === 'custom' ? set.services.get(b.module) : undefined;
    if (svc !== undefined) return callCustomService(svc, name, args, { world, state: st, viewer_id: task.viewer_id, locale: task.locale });
    return callService(set.bindings.opOf(name) ?? name, args, { world, state: st, viewer_id: task.viewer_id });
  };
  for (const c of task.answer_key.solution) {
    const r = call(c.name, c.arguments, state);
    texts.push(JSON.stringify(r.ok ? r.data : r));
  }
  // Each required look-up, in any of its forms.
  for (const r of task.answer_key.required_calls)
    for (const c of r.any_of) {
      const out = call(c.name, c.arguments, emptyWorldState());
      if (out.ok) texts.push(JSON.stringify(out.data));
    }
  return new Set(texts.flatMap((t) => extractNumbers(t)));
}

// ---------------------------------------------------------------------------------------------------
// Rules against texts
// ---------------------------------------------------------------------------------------------------

/** The harness's stated rules against its own texts, for one task's compiled harness. */
export function ruleContradictions(h: Harness, task: Task, label: string): Finding[] {
  const out: Finding[] = [];
  const hook = h.hooks.find((x) => hookKind(x) === 'output_constraints' && x.enabled);
  if (hook === undefined) return out;
  const words = Array.isArray(hook.params.forbidden_words) ? (hook.params.forbidden_words as string[]) : [];
  if (words.length > 0) {
    const texts: [string, string][] = h.skills.flatMap((s): [string, string][] => [
      [`skill ${s.name} (description)`, s.description],
      [`skill ${s.name}`, s.body],
    ]);
    for (const b of h.prompt.blocks) {
      if (b.id === 'output_rules') continue;
      texts.push([`prompt block ${b.id}`, [b.title, b.template, ...b.items].join('\n')]);
    }
    for (const w of words) {
      const nw = normalizeForMatch(w);
      for (const [where, text] of texts) {
        if (!normalizeForMatch(text).includes(nw)) continue;
        out.push({ code: 'BANNED_WORD_IN_HARNESS_TEXT', a: `${label}: the prompt bans "${w}"`, b: `${where} uses it: "${excerpt(text, w)}"` });
        break;
      }
    }
  }
  const ending = hook.params.required_ending;
  if (typeof ending === 'string' && isSalesEnding(ending)) {
    const key = task.answer_key;
    if (key.expect !== 'answer' || !key.cta)
      out.push({
        code: 'ENDING_AGAINST_KIND',
        a: `${label}: every reply must end with the sales line "${ending}"`,
        b: `this task's reply ${key.expect === 'answer' ? 'must not push a sale (no call to action expected)' : `is a ${key.expect}`}: "${key.reference_reply}"`,
      });
  }
  return out;
}

function excerpt(text: string, word: string): string {
  const i = text.indexOf(word);
  const at = i < 0 ? 0 : Math.max(0, i - 20);
  return text.slice(at, at + 60).replace(/\n/g, ' ');
}

// ---------------------------------------------------------------------------------------------------

/** The tasks the check covers: generated tasks of every served intent, then every task file line. */
function* tasksOf(set: HarnessSet, opts: ConsistencyOptions): Generator<{ task: Task; seed: number | null }> {
  const from = opts.from ?? 0;
  const locales = (opts.locales ?? set.locales).filter((l) => set.locales.includes(l));
  const splits = opts.splits ?? ['train', 'eval'];
  for (const locale of locales)
    for (const split of splits) {
      const intents = generatedIntents(set, locale, split);
      for (let i = 0; i < opts.seeds; i++) {
        const seed = (from + i) >>> 0;
        // The production mix decides the intent; every served intent also gets its share of seeds so rare
        // ones (handoff, whitelist) are checked as often as common ones.
        const intent: Intent = intents[i % intents.length];
        const task = generateFor(set, seed, locale, intent, split);
        if (task) yield { task, seed };
      }
    }
  const files = loadHarnessTasks(set);
  if (files.ok && files.source) for (const task of files.source.tasks()) if (locales.includes(task.locale)) yield { task, seed: null };
}

/** Run the check. Deterministic. */
export function runConsistency(opts: ConsistencyOptions): ConsistencyReport {
  const set = opts.harness ?? embeddedHarness();
  const keep = opts.examples ?? 3;
  const counts = Object.fromEntries(CONTRADICTION_CODES.map((c) => [c, 0])) as Record<ContradictionCode, number>;
  const examples: Contradiction[] = [];
  const report: ConsistencyReport = { harness: set.identity.name, tasks: 0, task_files: 0, worlds: 0, variants: 0, counts, total: 0, examples };
  const add = (f: Finding, task: string, seed: number | null, locale: Locale): void => {
    counts[f.code]++;
    report.total++;
    if (examples.filter((e) => e.code === f.code).length < keep) examples.push({ ...f, task, seed, locale });
  };
  const worldsSeen = new Set<string>();
  for (const { task, seed } of tasksOf(set, opts)) {
    report.tasks++;
    if (seed === null) report.task_files++;
    for (const f of taskContradictions(task, set)) add(f, task.id, seed, task.locale);
    const wkey = `${task.locale}/${task.world_seed}/${task.world === undefined ? '' : task.id}`;
    if (!worldsSeen.has(wkey)) {
      worldsSeen.add(wkey);
      report.worlds++;
      for (const f of worldContradictions(worldOfTask(task), task.locale)) add(f, `world ${task.world_seed}`, seed, task.locale);
    }
    const base = set.get(task.locale);
    for (const f of ruleContradictions(base, task, 'base harness')) add(f, task.id, seed, task.locale);
    if (opts.variants !== false && seed !== null) {
      for (const preset of ['train', 'eval'] as const) {
        const spec = PRESETS[preset];
        if (!spec) continue;
        const v = buildVariant(base, spec, seed, task);
        report.variants++;
        for (const f of ruleContradictions(v.harness, v.task, `preset ${preset} (${v.variant_id})`)) add(f, task.id, seed, task.locale);
      }
    }
  }
  return report;
}

/** The report as a person reads it. */
export function formatConsistency(r: ConsistencyReport): string {
  const lines = [
    `consistency of harness "${r.harness}": ${r.tasks} tasks (${r.task_files} from task files), ${r.worlds} rooms, ${r.variants} compiled variants`,
  ];
  for (const c of CONTRADICTION_CODES) lines.push(`  ${c.padEnd(32)} ${r.counts[c]}`);
  lines.push(r.total === 0 ? 'no contradictions' : `${r.total} contradictions; first of each kind:`);
  for (const e of r.examples) {
    lines.push(`- ${e.code} ${e.task}${e.seed !== null ? ` (seed ${e.seed}, ${e.locale})` : ` (${e.locale})`}`);
    lines.push(`    ${e.a}`);
    lines.push(`    ${e.b}`);
  }
  return lines.join('\n') + '\n';
}
