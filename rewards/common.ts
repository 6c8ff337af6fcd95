/**
 * Helpers shared by the built-in modules: stable serialisation, multiset comparison of world state,
 * fact matching and the phrase patterns that recognise refusals, questions and calls to action.
 * Text rules themselves (numbers, normalisation, length) come from protocol/text.ts so that the hooks
 * and the rewards can never disagree.
 */
import type { Fact, Locale, Trace, TraceCall, WorldState } from '../protocol/domain.js';
import { editDistance, scriptCounts, statesTerm, toHalfWidth } from '../protocol/text.js';
import { stableJson } from '../protocol/stable-json.js';
import { factStatedInMeaning, hasMeaning, type MeaningOptions } from './meaning.js';

/** Tool errors that are the environment's fault (injected faults): never held against the policy. */
export const INJECTED_FAULTS: ReadonlySet<string> = new Set(['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT']);

/** The env-handled pseudo-tool: neither a required nor an irrelevant call. */
export const LOAD_SKILL = 'load_skill';

/** The trace's name of a built-in operation's tool (`load_skill`, `refuse_request`, ...): its harness may rename it. */
export function toolOf(trace: Trace, op: string): string {
  return trace.tool_operations?.[op] ?? op;
}

/** Every tool call of the trace except skill loads, in order. */
export function toolCalls(trace: Trace): TraceCall[] {
  const out: TraceCall[] = [];
  const load = toolOf(trace, LOAD_SKILL);
  for (const turn of trace.turns) for (const call of turn.calls) if (call.name !== load) out.push(call);
  return out;
}

/**
 * Whether the reply states a fact: any of its values, read for meaning (rewards/meaning.ts: its numbers
 * and most of its content words, in any order, in each locale's equivalent forms, with the same
 * polarity). A value with no content word and no number (a bare "hi") is matched as a term, as
 * `statesTerm` reads it (normalised, not inside a longer word or number).
 */
export function factStated(reply: string, fact: Fact, locale: Locale, opts: MeaningOptions = LOOSE): boolean {
  // The modules of one score ask about the same reply and the same facts (accuracy, then effectiveness):
  // the answers for the last reply are kept, per fact object and reading.
  const mode = opts === LOOSE ? 'loose' : opts.assertedOnly === true && opts.listPriceFraming !== true && opts.coverage === undefined ? 'asserted' : null;
  if (mode !== null) {
    if (reply !== lastStatedReply || locale !== lastStatedLocale) {
      lastStatedReply = reply;
      lastStatedLocale = locale;
      lastStated.loose = new WeakMap();
      lastStated.asserted = new WeakMap();
    }
    const known = lastStated[mode].get(fact);
    if (known !== undefined) return known;
    const answer = statedNow(reply, fact, locale, opts);
    lastStated[mode].set(fact, answer);
    return answer;
  }
  return statedNow(reply, fact, locale, opts);
}

const LOOSE: MeaningOptions = Object.freeze({ loose: true });
let lastStatedReply = '';
let lastStatedLocale = '';
const lastStated: { loose: WeakMap<Fact, boolean>; asserted: WeakMap<Fact, boolean> } = { loose: new WeakMap(), asserted: new WeakMap() };

function statedNow(reply: string, fact: Fact, locale: Locale, opts: MeaningOptions): boolean {
  // A claim the reply must make also counts in the value's own words, as 2.0 read it ("No end time has
  // been announced" answers "when do you go offline?"); a wrong claim that happens to hold them is left to
  // the forbidden facts, which read polarity strictly. Checked first: the common case (a price, a count, a
  // name copied as the tools give it) then needs no reading for meaning.
  if (opts.loose === true) for (const v of fact.values) if (statesTerm(reply, v)) return true;
  if (factStatedInMeaning(reply, fact, locale, opts)) return true;
  // A value with no content word and no number (a bare "hi") is matched as a term.
  if (opts.loose !== true) for (const v of fact.values) if (!hasMeaning(v, locale) && statesTerm(reply, v)) return true;
  return false;
}

/** A forbidden fact that is a price the list shows: "down from 85.9" frames it, and claims nothing. */
export function isListPriceFact(fact: Fact): boolean {
  return /(?:^|:)list_price_as_live$/.test(fact.key);
}

/** Whether the reply states a forbidden fact (a claim it must not make: framing as the list price exempts a list price). */
export function forbiddenStated(reply: string, fact: Fact, locale: Locale): boolean {
  return factStated(reply, fact, locale, { listPriceFraming: isListPriceFact(fact), assertedOnly: true });
}

/**
 * The reply less every verbatim copy of the viewer's messages: what the reply says in its own words. A
 * required fact counts only there, so that repeating the question ("主播是AI吗") does not state its answer.
 */
export function ownWords(reply: string, messages: readonly string[]): string {
  let out = reply;
  for (const m of messages) {
    const quote = m.trim();
    if (quote.length >= 2) out = out.split(quote).join(' ');
  }
  return out;
}

/** The difference between two multisets of string keys (sorted, so reasons are stable). */
export interface MultisetDiff {
  missing: string[];
  unexpected: string[];
}

/** Multiset difference: keys expected but absent (`missing`) and present but not expected (`unexpected`). */
export function multisetDiff(expected: readonly string[], actual: readonly string[]): MultisetDiff {
  const counts = new Map<string, number>();
  for (const k of expected) counts.set(k, (counts.get(k) ?? 0) + 1);
  const unexpected: string[] = [];
  for (const k of actual) {
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else unexpected.push(k);
  }
  const missing: string[] = [];
  for (const [k, n] of counts) for (let i = 0; i < n; i++) missing.push(k);
  return { missing: missing.sort(), unexpected: unexpected.sort() };
}

const emptyState: WorldState = { issued_coupons: [], pushed_cards: [], handoffs: [], refusals: [] };

/** Per-field differences between an expected and an actual overlay; only fields that differ appear. */
export type StateDiff = Partial<Record<keyof WorldState, MultisetDiff>>;

/**
 * Compare two overlays order-insensitively, as tau-bench compares final database state. Hand-off
 * reasons are free text and not compared; a hand-off is keyed by its order id (or null). Changes in
 * `optional` (the task allows them) do not count as unexpected.
 */
export function diffWorldState(
  expected: WorldState,
  actual: WorldState,
  optional?: Partial<WorldState>,
  initialCustom: { readonly [module: string]: unknown } | undefined = actual.custom,
): StateDiff {
  const keyed: Record<Exclude<keyof WorldState, 'custom'>, (s: WorldState) => string[]> = {
    issued_coupons: (s) => s.issued_coupons.map((c) => `${c.viewer_id}:${c.coupon_id}`),
    pushed_cards: (s) => s.pushed_cards.map((n) => String(n)),
    handoffs: (s) => s.handoffs.map((h) => `order:${h.order_id ?? 'null'}`),
    refusals: (s) => s.refusals.map((r) => r.category),
  };
  const out: StateDiff = {};
  for (const field of ['issued_coupons', 'pushed_cards', 'handoffs', 'refusals'] as const) {
    const d = multisetDiff(keyed[field](expected), keyed[field](actual));
    // A change the task allows but does not expect is neither missing nor unexpected.
    const allowed = optional?.[field] === undefined ? [] : keyed[field]({ ...emptyState, [field]: optional[field] } as WorldState);
    if (allowed.length > 0) d.unexpected = multisetDiff(allowed, d.unexpected).unexpected;
    if (d.missing.length > 0 || d.unexpected.length > 0) out[field] = d;
  }
  if (expected.custom !== undefined || actual.custom !== undefined || optional?.custom !== undefined) {
    const d = diffCustomState(expected.custom ?? {}, actual.custom ?? {}, optional?.custom ?? {}, initialCustom ?? {});
    if (d.missing.length > 0 || d.unexpected.length > 0) out.custom = d;
  }
  return out;
}

/** A state as a reason shows it: stable JSON, cut to 200 characters. */
function shownState(module: string, value: unknown): string {
  const text = stableJson(value);
  return `${module}: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
}

/**
 * Stateful custom services' final states against the key (docs/HARNESS.md "Stateful services"): by deep
 * equality of each module's whole state (object keys in any order, arrays in order). A module the key
 * names must end in the expected state (or in its `optional_state` one); a module it does not name must
 * end as it started (or in its `optional_state` one). `missing` lists the expected states not reached,
 * `unexpected` the states reached that nothing allowed (a change not asked for, or the wrong one).
 */
function diffCustomState(
  expected: { readonly [m: string]: unknown },
  actual: { readonly [m: string]: unknown },
  optional: { readonly [m: string]: unknown },
  initial: { readonly [m: string]: unknown },
): MultisetDiff {
  const missing: string[] = [];
  const unexpected: string[] = [];
  const modules = [...new Set([...Object.keys(expected), ...Object.keys(actual), ...Object.keys(optional)])].sort();
  for (const m of modules) {
    const named = Object.hasOwn(expected, m);
    const got = Object.hasOwn(actual, m) ? stableJson(actual[m]) : undefined;
    const start = Object.hasOwn(initial, m) ? stableJson(initial[m]) : got;
    const allowed = [named ? stableJson(expected[m]) : start];
    if (Object.hasOwn(optional, m)) allowed.push(stableJson(optional[m]));
    if (got !== undefined && allowed.includes(got)) continue;
    if (named) missing.push(shownState(m, expected[m]));
    // Unchanged with a change expected is only missing; any other end state is a change nothing allowed.
    if (got !== undefined && (!named || got !== start)) unexpected.push(shownState(m, actual[m]));
  }
  return { missing, unexpected };
}

/**
 * The stateful services' states at the start of a traced episode: a module's first recorded change's
 * `before`, or its final state when no call changed it.
 */
export function initialCustomStates(trace: Trace): { [module: string]: unknown } | undefined {
  const final = trace.final_state.custom;
  if (final === undefined) return undefined;
  const out: { [module: string]: unknown } = { ...final };
  const seen = new Set<string>();
  for (const turn of trace.turns) {
    for (const call of turn.calls) {
      const c = call.state_change;
      if (c === undefined || seen.has(c.module)) continue;
      seen.add(c.module);
      out[c.module] = c.before;
    }
  }
  return out;
}

// Pattern matching runs on half-width, lower-cased text (whitespace kept: English phrases need it).
// The modules of one score ask about the same reply several times in a row: the last fold is kept.
let lastFoldIn = '';
let lastFoldOut = '';

function fold(text: string): string {
  if (text !== lastFoldIn) {
    lastFoldOut = toHalfWidth(text).toLowerCase();
    lastFoldIn = text;
  }
  return lastFoldOut;
}

// "无法/不能提供" is read as (无法|不能)+(提供|回答|帮): a bare 无法/不能 also appears in legitimate
// after-sales answers ("已超过7天，不能无理由退货"), which must not count as a refusal.
const REFUSAL_RE =
  /(无法|不能|没法|没办法)(提供|回答|帮|透露|告诉)|不方便(回答|透露)|抱歉[^。！？!?]{0,12}(不能|无法|不可以|不方便|没办法|不支持)|\bi (can['’]t|cannot|am unable to|am not able to)\b|\bi['’]m (unable|not able) to\b|\b(can['’]t|cannot|unable to) help\b/;

/** Whether a reply is phrased as a refusal (used to detect over-refusal on answerable tasks). */
export function refusalPhrased(reply: string): boolean {
  return REFUSAL_RE.test(fold(reply));
}

// A refusal that points somewhere useful: another product, the detail page, a doctor, customer service.
// The risk-refusal skill's own alternatives count: "价格以直播间页面为准" / "the price shown in the live room is the price".
const ALTERNATIVE_RE =
  /可以|建议|推荐|欢迎|看看|了解|咨询|其他|不过|换成|为准|页面|客服|医生|\b(can(?!['’]t)|could|instead|recommend|suggest|happy to|feel free|check|welcome|however|but|shown|on the page|live room|doctor|customer service)\b/;

/** Whether a (refusing) reply offers an alternative. */
export function offersAlternative(reply: string): boolean {
  return ALTERNATIVE_RE.test(fold(reply));
}

/** Whether a reply asks a question (full-width or ASCII question mark). */
export function asksQuestion(reply: string): boolean {
  return /[?？]/.test(reply);
}

const CTA_RE = /链接|拍|下单|领|抢|点击|购物车|小黄车|车里|入手|\b(link|order|grab|claim|cart|tap|checkout|check out|buy|snag|pick (it|one|them) up)/;

/** Whether a reply contains a call to action (go to link N, grab the coupon, place the order). */
export function hasCallToAction(reply: string): boolean {
  return CTA_RE.test(fold(reply));
}

/** Read a numeric parameter, falling back to `fallback` when absent or not a finite number. */
export function numParam(params: Readonly<Record<string, unknown>>, key: string, fallback: number): number {
  const v = params[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** Clamp to [0, 1]. */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/**
 * Whether a reply is spoken in the task's language: a Chinese room needs Chinese (at most three Latin
 * letters per Han character, which leaves room for brand and model names but not for an English reply
 * with a Chinese call to action appended), an English room English (no more Han characters than Latin
 * letters).
 */
export function inLanguage(reply: string, locale: 'zh-CN' | 'en'): boolean {
  const { han, latin } = scriptCounts(reply);
  return locale === 'zh-CN' ? han * 3 >= latin : han <= latin;
}

/**
 * A built-in module's `checkParams`: every key must be one of its documented parameters (a typo such as
 * `per_violaton` names the known ones and the nearest) and every value a finite number.
 */
export function numericParamsChecker(defaults: Readonly<Record<string, number>>): (params: Readonly<Record<string, unknown>>) => string[] {
  const known = Object.keys(defaults);
  return (params) => {
    const problems: string[] = [];
    for (const [k, v] of Object.entries(params)) {
      if (!Object.hasOwn(defaults, k)) {
        const near = known.find((x) => editDistance(x, k) <= 2);
        problems.push(`${k}: unknown parameter${near !== undefined ? ` (did you mean ${near}?)` : ''}; known: ${known.join(', ')}`);
      } else if (typeof v !== 'number' || !Number.isFinite(v)) {
        problems.push(`${k}: must be a finite number (got ${typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v))})`);
      }
    }
    return problems;
  };
}


/**
 * Visit every leaf (string or number) of every successful tool result of a trace, with the name of the
 * field that holds it (an array's items keep their field's name), to depth 8.
 */
export function forEachResultLeaf(trace: Trace, visit: (leaf: string | number, field: string) => void): void {
  for (const turn of trace.turns) for (const c of turn.calls) if (c.ok) forEachLeaf(c.result, visit);
}

/** Visit every leaf (string or number) of a value, with the name of the field that holds it, to depth 8. */
export function forEachLeaf(value: unknown, visit: (leaf: string | number, field: string) => void, field = '', depth = 0): void {
  if (depth > 8) return;
  if (typeof value === 'string' || typeof value === 'number') visit(value, field);
  else if (Array.isArray(value)) for (const v of value) forEachLeaf(v, visit, field, depth + 1);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) forEachLeaf(v, visit, k, depth + 1);
}
