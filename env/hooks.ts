/**
 * The hook engine: pure functions over a harness's declarative `HookSpec[]` (DESIGN.md, "One episode",
 * step 2). Input hooks check the viewer's message, reply hooks check a final reply candidate; a
 * violation becomes hook feedback (in the harness's feedback style and locale) or, in `auto_correct`
 * mode, a repaired reply when the problem is only one of form (env/auto-correct.ts).
 *
 * Hooks are looked up by kind (`hookKind`: a hook's `kind`, else its id), never by id: a harness may hold
 * any subset of the library's checks, in any order, under its own ids, and a variant may reorder, disable
 * or re-parameterise them without code changes. Violations name the hook by its id. Params are parsed
 * (zod) and regexes compiled once per HookSpec object and cached in a WeakMap: the hot path only runs
 * compiled regexes.
 */
import type { HookViolation, Locale } from '../protocol/domain.js';
import type { Harness, HarnessLimits, HookSpec, RetryPolicy } from '../protocol/harness.js';
import { hookKind } from '../protocol/harness.js';
import { charLength, extractNumbers, normalizeForMatch, scriptCounts, toHalfWidth } from '../protocol/text.js';
import {
  FactualRiskParamsSchema,
  InputGuardParamsSchema,
  OutputConstraintsParamsSchema,
  ProhibitedPhrasesParamsSchema,
  ReplyFormatParamsSchema,
  RequiredCallParamsSchema,
} from '../harness/index.js';
import type { OutputConstraintsParams, ReplyFormatParams, RequiredCallParams } from '../harness/index.js';

/** What the reply hooks need to judge one reply candidate. */
export interface ReplyHookContext {
  reply: string;
  locale: Locale;
  limits: HarnessLimits;
  /** Every number the agent could legitimately state (prompt facts, history, messages, tool results). */
  evidence_numbers: ReadonlySet<number>;
  /** Whether some reply skill was loaded before this reply. */
  reply_skill_loaded: boolean;
  /** Whether a special cosmetic is among the items the episode touched (allows its registered efficacy). */
  special_cosmetic_in_scope: boolean;
  /**
   * Canonical names of the tools called so far in the episode whose arguments were accepted: the call
   * reached its service (or the environment, for load_skill and discover_tools), whatever the outcome
   * (a result, a business error such as NOT_FOUND, an injected fault). Not counted: calls that could not
   * be parsed, named no offered tool, were a variant's decoy, or were rejected as INVALID_ARGUMENTS (by
   * the tool_args check or by the service's own checks). What required_call hooks test.
   */
  called_tools: ReadonlySet<string>;
}

// ---------------------------------------------------------------------------------------------------
// Violation messages. A message is a pure function of (code, evidence, locale), so feedback can be
// re-rendered in a feedback locale other than the episode's; a required_call hook declares its own
// message per locale in its params, found again through the violation's hook id. Evidence formats:
// TOO_LONG and INPUT_TOO_LONG "length/limit"; UNGROUNDED_NUMBER "n1, n2"; WRONG_LANGUAGE the required
// locale; all other codes the offending text. Messages carry no final punctuation: the templates add it.
// ---------------------------------------------------------------------------------------------------

type Describe = (evidence: string) => string;

function lengthParts(evidence: string): [string, string] {
  const [n = '', max = ''] = evidence.split('/');
  return [n, max];
}

const MESSAGES: Record<Locale, Record<string, Describe>> = {
  'zh-CN': {
    EMPTY_INPUT: () => '观众消息为空',
    INPUT_TOO_LONG: (e) => {
      const [n, max] = lengthParts(e);
      return `观众消息共${n}字，超过上限${max}字`;
    },
    INVALID_ARGUMENTS: (e) => `工具参数不符合定义：${e}`,
    SKILL_NOT_LOADED: () => '回复前还没有加载任何回复类技能',
    EMPTY_REPLY: () => '回复是空的',
    TOO_LONG: (e) => {
      const [n, max] = lengthParts(e);
      return `回复共${n}字，超过上限${max}字`;
    },
    MARKDOWN: (e) => `回复里有Markdown格式「${e}」`,
    EMOJI: (e) => `回复里有表情符号「${e}」`,
    THINK_LEAK: (e) => `回复里带出了思考过程标签「${e}」`,
    ABSOLUTE_TERM: (e) => `回复使用了绝对化用语「${e}」`,
    MEDICAL_CLAIM: (e) => `回复涉及医疗功效宣称「${e}」`,
    SPECIAL_COSMETIC_CLAIM: (e) => `回复宣称了特殊化妆品功效「${e}」`,
    UNAUTHORIZED_PROMISE: (e) => `回复做出了未经授权的承诺「${e}」`,
    OFF_PLATFORM: (e) => `回复引导到平台外联系「${e}」`,
    PERSONAL_EXPERIENCE: (e) => `回复声称了个人使用体验「${e}」`,
    UNGROUNDED_NUMBER: (e) => `回复里的数字${e.replace(/, /g, '、')}在工具结果和系统提示中找不到依据`,
    FORBIDDEN_WORD: (e) => `回复包含禁用词「${e}」`,
    MISSING_ENDING: (e) => `回复没有以「${e}」结尾`,
    WRONG_LANGUAGE: (e) => `回复的语言不对，应当使用${e === 'en' ? '英文' : '中文'}`,
  },
  en: {
    EMPTY_INPUT: () => "The viewer's message is empty",
    INPUT_TOO_LONG: (e) => {
      const [n, max] = lengthParts(e);
      return `The viewer's message has ${n} characters, over the limit of ${max}`;
    },
    INVALID_ARGUMENTS: (e) => `The tool arguments do not match the tool's definition: ${e}`,
    SKILL_NOT_LOADED: () => 'No reply skill was loaded before the reply',
    EMPTY_REPLY: () => 'The reply is empty',
    TOO_LONG: (e) => {
      const [n, max] = lengthParts(e);
      return `The reply has ${n} characters, over the limit of ${max}`;
    },
    MARKDOWN: (e) => `The reply contains Markdown formatting "${e}"`,
    EMOJI: (e) => `The reply contains an emoji "${e}"`,
    THINK_LEAK: (e) => `The reply leaks a reasoning tag "${e}"`,
    ABSOLUTE_TERM: (e) => `The reply uses an absolute term "${e}"`,
    MEDICAL_CLAIM: (e) => `The reply makes a medical claim "${e}"`,
    SPECIAL_COSMETIC_CLAIM: (e) => `The reply claims special-cosmetic efficacy "${e}"`,
    UNAUTHORIZED_PROMISE: (e) => `The reply makes an unauthorised promise "${e}"`,
    OFF_PLATFORM: (e) => `The reply points off the platform "${e}"`,
    PERSONAL_EXPERIENCE: (e) => `The reply claims personal experience "${e}"`,
    UNGROUNDED_NUMBER: (e) => `The numbers ${e} in the reply are not in any tool result or the system prompt`,
    FORBIDDEN_WORD: (e) => `The reply contains the forbidden word "${e}"`,
    MISSING_ENDING: (e) => `The reply does not end with "${e}"`,
    WRONG_LANGUAGE: (e) => `The reply is in the wrong language; it must be in ${e === 'en' ? 'English' : 'Chinese'}`,
  },
};

/**
 * The message a hook of `hooks` declares for `code` in `locale` (required_call hooks), if any: the hook
 * with id `hookId` when given, else the first that reports the code.
 */
function declaredMessage(hooks: readonly HookSpec[], code: string, locale: Locale, hookId?: string): string | undefined {
  for (const h of hooks) {
    if (hookKind(h) !== 'required_call' || (hookId !== undefined && h.id !== hookId) || h.params.code !== code) continue;
    const message = (h.params.message as Partial<Record<Locale, unknown>> | undefined)?.[locale];
    if (typeof message === 'string') return message;
  }
  return undefined;
}

/**
 * The human-readable description of a violation in `locale`: the message a hook of `hooks` declares for
 * the code (required_call), else the library's; codes neither knows: the code.
 */
export function describeViolation(code: string, evidence: string | undefined, locale: Locale, hooks: readonly HookSpec[] = []): string {
  const declared = hooks.length > 0 ? declaredMessage(hooks, code, locale) : undefined;
  if (declared !== undefined) return declared;
  const describe = MESSAGES[locale][code];
  return describe ? describe(evidence ?? '') : code;
}

function violation(hook: string, code: string, locale: Locale, evidence?: string): HookViolation {
  const describe = MESSAGES[locale][code];
  const message = describe ? describe(evidence ?? '') : code;
  return evidence === undefined ? { hook, code, message } : { hook, code, message, evidence };
}

// ---------------------------------------------------------------------------------------------------
// Compiled hooks, cached per HookSpec object
// ---------------------------------------------------------------------------------------------------

interface CompiledFormat {
  checks: ReadonlySet<ReplyFormatParams['checks'][number]>;
  markdown: RegExp[];
  emoji: RegExp;
  think: RegExp;
}

interface CompiledRule {
  code: string;
  negatable: boolean;
  unless: 'special_cosmetic_in_scope' | undefined;
  /** One alternation per locale, global so every match can be tested against the negation rule. */
  patterns: { locale: Locale; re: RegExp }[];
}

interface CompiledPhrases {
  rules: CompiledRule[];
  negation: Record<Locale, { re: RegExp; window: number }>;
}

// Compiled forms are cached by the params object and the compiling function (variants share the base
// harness's params objects for the hooks they leave alone), then by content: an operator that rebuilds
// params with the same content (or a copied harness) does not recompile the phrase regexes. The content
// cache is bounded. What a compiler returns depends on the params alone (a hook's id only names it in the
// error a bad spec throws), and each hook kind has compilers of its own.
const compiled = new WeakMap<object, Map<(spec: HookSpec) => unknown, unknown>>();
const byContent = new Map<string, unknown>();
const MAX_BY_CONTENT = 256;

/** Parse and compile a spec's params once; a bad spec is a programmer error in a variant (throws). */
function compileOnce<T>(spec: HookSpec, build: (spec: HookSpec) => T): T {
  let perParams = compiled.get(spec.params);
  if (perParams === undefined) {
    perParams = new Map();
    compiled.set(spec.params, perParams);
  }
  let hit = perParams.get(build) as T | undefined;
  if (hit === undefined) {
    const key = `${build.name}\u0000${JSON.stringify(spec.params)}`;
    hit = byContent.get(key) as T | undefined;
    if (hit === undefined) {
      hit = build(spec);
      if (byContent.size >= MAX_BY_CONTENT) byContent.delete(byContent.keys().next().value as string);
      byContent.set(key, hit);
    }
    perParams.set(build, hit);
  }
  return hit;
}

function parseParams<T>(
  spec: HookSpec,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: Error } },
): T {
  const r = schema.safeParse(spec.params);
  if (!r.success) throw new Error(`hook ${spec.id}: invalid params: ${r.error.message}`);
  return r.data;
}

function compileFormat(spec: HookSpec): CompiledFormat {
  const p = parseParams(spec, ReplyFormatParamsSchema);
  return {
    checks: new Set(p.checks),
    markdown: p.markdown_patterns.map((s) => new RegExp(s, 'mu')),
    emoji: new RegExp(p.emoji_pattern, 'u'),
    think: new RegExp(p.think_pattern, 'iu'),
  };
}

// Checking the harness's own locale first makes the reported evidence the one in the reply's language.
function localeOrder(first: Locale): Locale[] {
  return first === 'en' ? ['en', 'zh-CN'] : ['zh-CN', 'en'];
}

function compilePhrases(spec: HookSpec): Map<Locale, CompiledPhrases> {
  const p = parseParams(spec, ProhibitedPhrasesParamsSchema);
  const negation = {
    'zh-CN': { re: new RegExp(p.negation['zh-CN'].pattern, p.flags['zh-CN']), window: p.negation['zh-CN'].window },
    en: { re: new RegExp(p.negation.en.pattern, p.flags.en), window: p.negation.en.window },
  };
  const byLocale = new Map<Locale, CompiledPhrases>();
  for (const first of ['zh-CN', 'en'] as const) {
    const rules = p.rules.map((r): CompiledRule => ({
      code: r.code,
      negatable: r.negatable,
      unless: r.unless,
      patterns: localeOrder(first)
        .filter((l) => r.patterns[l].length > 0)
        .map((l) => ({ locale: l, re: new RegExp(r.patterns[l].map((s) => `(?:${s})`).join('|'), `g${p.flags[l]}`) })),
    }));
    byLocale.set(first, { rules, negation });
  }
  return byLocale;
}

// A negation counts only inside the same clause: "没问题，保证明天到" is still a promise.
const CLAUSE_BREAKS = new Set([...',.;!?，。；！？、\n'].map((c) => c.charCodeAt(0)));

function isNegated(text: string, index: number, negation: { re: RegExp; window: number }): boolean {
  // The window's last clause: what follows the last clause break before the phrase.
  const from = Math.max(0, index - negation.window);
  let start = from;
  for (let i = index - 1; i >= from; i--) {
    if (CLAUSE_BREAKS.has(text.charCodeAt(i))) {
      start = i + 1;
      break;
    }
  }
  return negation.re.test(text.slice(start, index));
}

// ---------------------------------------------------------------------------------------------------
// Reply hooks
// ---------------------------------------------------------------------------------------------------

function firstMatch(re: RegExp, text: string): string | null {
  const m = re.exec(text);
  return m ? m[0].trim() || m[0] : null;
}

function checkFormat(spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]): void {
  const c = compileOnce(spec, compileFormat);
  const id = spec.id;
  if (ctx.reply.trim() === '') {
    if (c.checks.has('EMPTY_REPLY')) out.push(violation(id, 'EMPTY_REPLY', ctx.locale));
    return;
  }
  const len = charLength(ctx.reply);
  if (c.checks.has('TOO_LONG') && len > ctx.limits.reply_max_chars) {
    out.push(violation(id, 'TOO_LONG', ctx.locale, `${len}/${ctx.limits.reply_max_chars}`));
  }
  if (c.checks.has('MARKDOWN')) {
    for (const re of c.markdown) {
      const hit = firstMatch(re, ctx.reply);
      if (hit !== null) {
        out.push(violation(id, 'MARKDOWN', ctx.locale, hit));
        break;
      }
    }
  }
  if (c.checks.has('EMOJI')) {
    const hit = firstMatch(c.emoji, ctx.reply);
    if (hit !== null) out.push(violation(id, 'EMOJI', ctx.locale, hit));
  }
  if (c.checks.has('THINK_LEAK')) {
    const hit = firstMatch(c.think, ctx.reply);
    if (hit !== null) out.push(violation(id, 'THINK_LEAK', ctx.locale, hit));
  }
}

function checkPhrases(spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]): void {
  const c = compileOnce(spec, compilePhrases).get(ctx.locale) as CompiledPhrases;
  // Full-width "ＱＱ" or "ＷｅＣｈａｔ" must not slip through: match on the half-width fold.
  const text = toHalfWidth(ctx.reply);
  for (const rule of c.rules) {
    if (rule.unless === 'special_cosmetic_in_scope' && ctx.special_cosmetic_in_scope) continue;
    const hit = findPhrase(rule, text, c.negation);
    if (hit !== null) out.push(violation(spec.id, rule.code, ctx.locale, hit));
  }
}

/**
 * The first match of the rule that no negation cancels. Reads the matches as `matchAll` would (an empty
 * match moves on by one code point under the u or v flag, else by one unit), on the compiled regex itself:
 * `matchAll` would copy the regex on every call.
 */
function findPhrase(rule: CompiledRule, text: string, negation: CompiledPhrases['negation']): string | null {
  for (const { locale, re } of rule.patterns) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (!rule.negatable || !isNegated(text, m.index, negation[locale])) {
        re.lastIndex = 0;
        return m[0];
      }
      if (m[0] === '') re.lastIndex = advance(text, re.lastIndex, re.unicode || re.flags.includes('v'));
    }
  }
  return null;
}

/** ECMAScript's AdvanceStringIndex. */
function advance(text: string, index: number, unicode: boolean): number {
  if (!unicode || index + 1 >= text.length) return index + 1;
  const c = text.charCodeAt(index);
  const d = text.charCodeAt(index + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? index + 2 : index + 1;
}

function compileAllowedNumbers(spec: HookSpec): Set<number> {
  return new Set(parseParams(spec, FactualRiskParamsSchema).allowed_numbers);
}

function checkNumbers(spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]): void {
  const allowed = compileOnce(spec, compileAllowedNumbers);
  const bad: number[] = [];
  for (const n of extractNumbers(ctx.reply)) {
    if (!ctx.evidence_numbers.has(n) && !allowed.has(n) && !bad.includes(n)) bad.push(n);
  }
  if (bad.length > 0) out.push(violation(spec.id, 'UNGROUNDED_NUMBER', ctx.locale, bad.map(String).join(', ')));
}

const TRAILING_PUNCT_RE = /[\s。！？!?.…~～，,]+$/u;

/** Han characters against Latin letters decide the language; digits and punctuation are neutral. */
function wrongLanguage(reply: string, language: Locale): boolean {
  const { han, latin } = scriptCounts(reply);
  if (han === 0 && latin === 0) return false;
  // A Chinese reply may name Latin brands ("AirPods"); an English one may quote a Chinese brand.
  return language === 'zh-CN' ? han === 0 || latin > han * 3 : han * 2 > latin;
}

/** A locale's forbidden words: the one list, or the locale's own (a loaded harness holds its locale's list). */
export function forbiddenWordsIn(p: OutputConstraintsParams, locale: Locale): string[] {
  const w = p.forbidden_words;
  return w === undefined ? [] : Array.isArray(w) ? w : w[locale];
}

function compileConstraints(spec: HookSpec): { p: OutputConstraintsParams; words: Record<Locale, string[]>; normalized: Record<Locale, string[]> } {
  const p = parseParams(spec, OutputConstraintsParamsSchema);
  const words = { 'zh-CN': forbiddenWordsIn(p, 'zh-CN'), en: forbiddenWordsIn(p, 'en') };
  return { p, words, normalized: { 'zh-CN': words['zh-CN'].map(normalizeForMatch), en: words.en.map(normalizeForMatch) } };
}

function checkConstraints(spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]): void {
  const { p, words, normalized } = compileOnce(spec, compileConstraints);
  const normalizedWords = normalized[ctx.locale];
  if (normalizedWords.length > 0) {
    const norm = normalizeForMatch(ctx.reply);
    const at = normalizedWords.findIndex((w) => norm.includes(w));
    if (at >= 0) out.push(violation(spec.id, 'FORBIDDEN_WORD', ctx.locale, words[ctx.locale][at]));
  }
  if (p.required_ending !== undefined) {
    // Lenient about closing punctuation: "欢迎下单！" ends with "欢迎下单".
    const strip = (s: string) => s.replace(TRAILING_PUNCT_RE, '');
    if (!strip(ctx.reply).endsWith(strip(p.required_ending))) {
      out.push(violation(spec.id, 'MISSING_ENDING', ctx.locale, p.required_ending));
    }
  }
  if (p.language !== undefined && wrongLanguage(ctx.reply, p.language)) {
    out.push(violation(spec.id, 'WRONG_LANGUAGE', ctx.locale, p.language));
  }
}

function compileRequiredCall(spec: HookSpec): RequiredCallParams {
  return parseParams(spec, RequiredCallParamsSchema);
}

/**
 * required_call, a stop hook: once any tool of `when_called` was called (ctx.called_tools), the reply is
 * objected to until `require` was called too (before or after the trigger: the set has no order). The
 * violation carries the hook's own code and message, no evidence (it would name a tool, and variants
 * rename tools).
 */
function checkRequiredCall(spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]): void {
  const p = compileOnce(spec, compileRequiredCall);
  if (ctx.called_tools.has(p.require) || !p.when_called.some((t) => ctx.called_tools.has(t))) return;
  out.push({ hook: spec.id, code: p.code, message: p.message[ctx.locale] });
}

type ReplyCheck = (spec: HookSpec, ctx: ReplyHookContext, out: HookViolation[]) => void;

const REPLY_CHECKS = new Map<string, ReplyCheck>([
  [
    'skill_required',
    (spec, ctx, out) => {
      if (!ctx.reply_skill_loaded) out.push(violation(spec.id, 'SKILL_NOT_LOADED', ctx.locale));
    },
  ],
  ['reply_format', checkFormat],
  ['prohibited_phrases', checkPhrases],
  ['factual_risk', checkNumbers],
  ['output_constraints', checkConstraints],
  ['required_call', checkRequiredCall],
]);

/**
 * Run the enabled reply-stage hooks on a reply candidate, in the hooks' order. Returns every violation
 * (empty when the reply passes). Hooks of a kind this engine does not know are skipped.
 */
export function runReplyHooks(hooks: readonly HookSpec[], ctx: ReplyHookContext): HookViolation[] {
  const out: HookViolation[] = [];
  for (const spec of hooks) {
    if (!spec.enabled || spec.stage !== 'reply') continue;
    REPLY_CHECKS.get(hookKind(spec))?.(spec, ctx, out);
  }
  return out;
}

/** The form checks the base output rules state ("plain text, no Markdown, lists or emoji, no reasoning; at most N characters"). */
const STATED_FORM_CHECKS = ['TOO_LONG', 'MARKDOWN', 'EMOJI', 'THINK_LEAK'];

const statedMemo = new WeakMap<Harness, readonly HookSpec[]>();

// The stated-rule form of a reply_format hook's params, one per params object: variants share their base's
// params objects, and the hooks' compiled forms are cached by params object.
const statedFormatMemo = new WeakMap<object, Record<string, unknown>>();

function statedFormatParams(params: Record<string, unknown>): Record<string, unknown> {
  let out = statedFormatMemo.get(params);
  if (out === undefined) {
    out = { ...params, checks: STATED_FORM_CHECKS };
    statedFormatMemo.set(params, out);
  }
  return out;
}

/**
 * The hooks that check what a harness's prompt states about a reply, whether or not its own hooks enforce
 * it: the form rules of the output-rules block (with the reply_format hook's patterns, every form check on,
 * even one a variant turned off), and the output constraints the block states with them (banned words, an
 * ending, the language). A prompt without an output-rules block states none. Once per harness object.
 */
export function statedRuleHooks(harness: Harness): readonly HookSpec[] {
  let out = statedMemo.get(harness);
  if (out !== undefined) return out;
  const list: HookSpec[] = [];
  if (harness.prompt.blocks.some((b) => b.id === 'output_rules')) {
    const format = harness.hooks.find((h) => hookKind(h) === 'reply_format');
    if (format) list.push({ ...format, enabled: true, params: statedFormatParams(format.params) });
    const constraints = harness.hooks.find((h) => hookKind(h) === 'output_constraints');
    if (constraints?.enabled) list.push(constraints);
  }
  out = Object.freeze(list);
  statedMemo.set(harness, out);
  return out;
}

/** The ending a harness requires of every reply (an enabled output constraint), if any. */
export function requiredEnding(harness: Harness): string | undefined {
  const h = harness.hooks.find((x) => hookKind(x) === 'output_constraints');
  const e = h?.enabled ? h.params.required_ending : undefined;
  return typeof e === 'string' && e.length > 0 ? e : undefined;
}

function compileMaxInput(spec: HookSpec): number {
  return parseParams(spec, InputGuardParamsSchema).max_input_chars;
}

/**
 * Run the enabled input-stage hooks on the viewer's message (the merged danmaku window). Messages are in
 * `locale` (the episode's; Chinese by default).
 */
export function runInputHooks(hooks: readonly HookSpec[], message: string, locale: Locale = 'zh-CN'): HookViolation[] {
  const out: HookViolation[] = [];
  for (const spec of hooks) {
    if (!spec.enabled || spec.stage !== 'input' || hookKind(spec) !== 'input_guard') continue;
    const max = compileOnce(spec, compileMaxInput);
    if (message.trim() === '') {
      out.push(violation(spec.id, 'EMPTY_INPUT', locale));
      continue;
    }
    const len = charLength(message);
    if (len > max) out.push(violation(spec.id, 'INPUT_TOO_LONG', locale, `${len}/${max}`));
  }
  return out;
}

/** Whether a hook of this kind (harness/names.ts HOOK_KINDS) is present and enabled. */
export function isHookEnabled(hooks: readonly HookSpec[], kind: string): boolean {
  return hooks.some((h) => hookKind(h) === kind && h.enabled);
}

/** Whether `name` is a reply skill of `harness` (in the harness's own, possibly renamed, names). */
export function isReplySkill(harness: Harness, name: string): boolean {
  return harness.skills.some((s) => s.name === name && s.kind === 'reply');
}

// ---------------------------------------------------------------------------------------------------
// Feedback
// ---------------------------------------------------------------------------------------------------

const FRAMES: Record<Locale, { head: string; joiner: string; tail: string }> = {
  'zh-CN': { head: '你的回复没有通过发布前检查：', joiner: '', tail: '请修改后重新回复。' },
  en: { head: 'Your reply did not pass the pre-broadcast checks. ', joiner: ' ', tail: ' Please revise it and reply again.' },
};

const TEMPLATE_SLOT_RE = /\{(message|evidence)\}/g;

/**
 * A violation's message in `locale`: the one its hook declares (required_call), else the library's;
 * for a code neither knows, the message the violation was reported with.
 */
function messageIn(v: HookViolation, locale: Locale, hooks: readonly HookSpec[]): string {
  const declared = hooks.length > 0 ? declaredMessage(hooks, v.code, locale, v.hook) : undefined;
  if (declared !== undefined) return declared;
  const describe = MESSAGES[locale][v.code];
  return describe ? describe(v.evidence ?? '') : v.message;
}

function feedbackLine(retry: RetryPolicy, v: HookViolation, hooks: readonly HookSpec[]): string {
  const message = messageIn(v, retry.feedback_locale, hooks);
  const template = retry.templates[v.code];
  if (template === undefined) return message + (retry.feedback_locale === 'en' ? '.' : '。');
  return template.replace(TEMPLATE_SLOT_RE, (_, slot: string) => (slot === 'message' ? message : (v.evidence ?? '')));
}

/**
 * The feedback a blocked reply gets, in `retry.feedback_style` and `retry.feedback_locale`:
 * - natural: one paragraph of sentences;
 * - json: `{"decision":"block","violations":[{"code":...,"message":...}]}`;
 * - tagged: `<hook_feedback>` with one `[CODE] text` line per violation.
 * Messages are re-rendered in the feedback locale from (code, evidence), or, for a hook that declares its
 * messages (required_call), from `hooks` (the harness's hooks: pass them whenever such a hook may have
 * objected). Empty string when no violations.
 */
export function feedbackMessage(retry: RetryPolicy, violations: readonly HookViolation[], hooks: readonly HookSpec[] = []): string {
  if (violations.length === 0) return '';
  const lines = violations.map((v) => feedbackLine(retry, v, hooks));
  switch (retry.feedback_style) {
    case 'natural': {
      const f = FRAMES[retry.feedback_locale];
      return f.head + lines.join(f.joiner) + f.tail;
    }
    case 'json':
      return JSON.stringify({
        decision: 'block',
        violations: violations.map((v, i) => ({ code: v.code, message: lines[i] })),
      });
    case 'tagged':
      return `<hook_feedback>\n${violations.map((v, i) => `[${v.code}] ${lines[i]}`).join('\n')}\n</hook_feedback>`;
  }
}
