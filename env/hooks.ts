/**
 * The hook engine: pure functions over a harness's declarative `HookSpec[]` (DESIGN.md, "One episode",
 * step 2). Input hooks check the viewer's message, reply hooks check a final reply candidate; a
 * violation becomes hook feedback (in the harness's feedback style and locale) or, in `auto_correct`
 * mode, a repaired reply when the problem is only one of form (env/auto-correct.ts).
 *
 * Hooks are looked up by kind (`hookKind`: a hook's `kind`, else its id), never by id: a harness may hold
 * any subset of the library's checks, in any order, under its own ids, and a variant may reorder, disable
 * or re-parameterise them without code changes. Violations name the hook by its id. Every kind, the
 * library's (BUILTIN_HOOK_KINDS) and a harness's hook modules (`kind: module`, `moduleKind`), implements
 * one interface, HookKindImpl, and the runners dispatch over it alone: a module hook is checked, rendered
 * in feedback and scored exactly as a built-in one. Params are parsed
 * (zod) and regexes compiled once per HookSpec object and cached in a WeakMap: the hot path only runs
 * compiled regexes.
 */
import type { HookViolation, Locale } from '../protocol/domain.js';
import type { Harness, HarnessLimits, HookSpec, HookStage, RetryPolicy } from '../protocol/harness.js';
import { hookKind } from '../protocol/harness.js';
import { charLength, extractNumbers, normalizeForMatch, scriptCounts, toHalfWidth } from '../protocol/text.js';
import { deepFreeze } from '../protocol/objects.js';
import {
  FactualRiskParamsSchema,
  InputGuardParamsSchema,
  OutputConstraintsParamsSchema,
  ProhibitedPhrasesParamsSchema,
  ReplyFormatParamsSchema,
  RequiredCallParamsSchema,
  HOOK_KIND_STAGES,
  HOOK_PARAM_SCHEMAS,
  HOOK_MODULE_FAILED,
} from '../harness/index.js';
import type { HookKind, HookModule, HookModuleCall, HookModuleInput, OutputConstraintsParams, ReplyFormatParams, RequiredCallParams } from '../harness/index.js';

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
  /**
   * What module hooks read (docs/HARNESS.md "Hook modules"); given by the episode when the harness has
   * module hooks. `calls`: the episode's calls so far, canonical; `world`: the episode's world;
   * `modules`: the harness's hook modules by name (a module hook whose module is absent reports
   * HOOK_MODULE_FAILED).
   */
  calls?: readonly HookModuleCall[];
  world?: unknown;
  modules?: HookModules;
}

/** A harness's hook modules by module name (`HarnessSet.hookModules`). */
export type HookModules = ReadonlyMap<string, HookModule>;

/** What an input-stage hook reads: the viewer's message (the merged danmaku window). */
export interface InputHookInput {
  message: string;
  locale: Locale;
  world?: unknown;
  modules?: HookModules;
}

/** What a tool_args-stage hook reads: one call, canonical, before its service answers. */
export interface ToolArgsHookInput {
  /** The harness's own (canonical) tool name. */
  tool: string;
  /** The arguments, canonical, parsed. */
  arguments: Readonly<Record<string, unknown>>;
  locale: Locale;
  /** The tool schema's objection to the arguments (the tool router validates), if any. */
  schema_error?: { message: string; evidence: string };
  world?: unknown;
  modules?: HookModules;
}

/** The input of each stage a hook can run at. */
export interface HookStageInputs {
  input: InputHookInput;
  tool_args: ToolArgsHookInput;
  reply: ReplyHookContext;
}

/** A stage the engine runs hooks at. */
export type RunStage = keyof HookStageInputs;

/**
 * The one interface every hook kind implements, the library's own and a harness's modules alike: the
 * runners below dispatch over it and nothing else. `check` pushes a violation per objection; `message`
 * renders a code's message in a locale (feedback re-renders violations in the feedback locale), or
 * undefined when the kind does not know the code.
 */
export interface HookKindImpl {
  readonly kind: string;
  /** The stages the kind runs at (a hook's stage must be one). */
  readonly stages: readonly HookStage[];
  /** Problems of a hook's params, one `path: message` line each (none when valid). */
  paramErrors(params: unknown): string[];
  check<S extends RunStage>(spec: HookSpec, stage: S, input: HookStageInputs[S], out: HookViolation[]): void;
  message(spec: HookSpec, code: string, evidence: string | undefined, locale: Locale): string | undefined;
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
    [HOOK_MODULE_FAILED]: (e) => `钩子模块运行出错（${e}）`,
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
    [HOOK_MODULE_FAILED]: (e) => `A hook module failed (${e})`,
  },
};

/**
 * The message the hook `spec` renders for `code` in `locale` through its kind (required_call and module
 * hooks declare their own), if it knows the code.
 */
function declaredBy(spec: HookSpec, code: string, evidence: string | undefined, locale: Locale, modules?: HookModules): string | undefined {
  return implOf(spec, modules)?.message(spec, code, evidence, locale);
}

/**
 * The human-readable description of a violation in `locale`: the message the first hook of `hooks` that
 * declares the code gives (required_call, module hooks), else the library's; codes neither knows: the code.
 */
export function describeViolation(
  code: string,
  evidence: string | undefined,
  locale: Locale,
  hooks: readonly HookSpec[] = [],
  modules?: HookModules,
): string {
  for (const h of hooks) {
    const kind = hookKind(h);
    if (kind !== 'required_call' && kind !== 'module') continue;
    const declared = declaredBy(h, code, evidence, locale, modules);
    if (declared !== undefined) return declared;
  }
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

// ---------------------------------------------------------------------------------------------------
// The library's kinds, each a HookKindImpl
// ---------------------------------------------------------------------------------------------------

function zodErrors(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }, params: unknown): string[] {
  const r = schema.safeParse(params);
  if (r.success) return [];
  return (r.error?.issues ?? []).map((i) => `${i.path.length === 0 ? '(params)' : i.path.map(String).join('.')}: ${i.message}`);
}

/**
 * A library kind: its stage (harness/names.ts HOOK_KIND_STAGES), its params schema (harness/schema.ts),
 * its check at that stage, and the library's messages (pure functions of code and evidence).
 */
function builtin<S extends RunStage>(
  kind: HookKind,
  check: (spec: HookSpec, input: HookStageInputs[S], out: HookViolation[]) => void,
  message: HookKindImpl['message'] = (_spec, code, evidence, locale) => MESSAGES[locale][code]?.(evidence ?? ''),
): HookKindImpl {
  const stage = HOOK_KIND_STAGES[kind] as S;
  return Object.freeze({
    kind,
    stages: Object.freeze([stage]),
    paramErrors: (params: unknown) => zodErrors(HOOK_PARAM_SCHEMAS[kind], params),
    check<T extends RunStage>(spec: HookSpec, at: T, input: HookStageInputs[T], out: HookViolation[]): void {
      if ((at as RunStage) === stage) check(spec, input as unknown as HookStageInputs[S], out);
    },
    message,
  });
}

function checkInputGuard(spec: HookSpec, input: InputHookInput, out: HookViolation[]): void {
  const max = compileOnce(spec, compileMaxInput);
  if (input.message.trim() === '') {
    out.push(violation(spec.id, 'EMPTY_INPUT', input.locale));
    return;
  }
  const len = charLength(input.message);
  if (len > max) out.push(violation(spec.id, 'INPUT_TOO_LONG', input.locale, `${len}/${max}`));
}

/** tool_args: reports the tool schema's objection, which the tool router finds (it also fails the call). */
function checkToolArgs(spec: HookSpec, input: ToolArgsHookInput, out: HookViolation[]): void {
  const e = input.schema_error;
  if (e !== undefined) out.push({ hook: spec.id, code: 'INVALID_ARGUMENTS', message: e.message, evidence: e.evidence });
}

/** The library's hook kinds, by kind name. */
export const BUILTIN_HOOK_KINDS: ReadonlyMap<string, HookKindImpl> = new Map<string, HookKindImpl>([
  ['input_guard', builtin<'input'>('input_guard', checkInputGuard)],
  ['tool_args', builtin<'tool_args'>('tool_args', checkToolArgs)],
  [
    'skill_required',
    builtin<'reply'>('skill_required', (spec, ctx, out) => {
      if (!ctx.reply_skill_loaded) out.push(violation(spec.id, 'SKILL_NOT_LOADED', ctx.locale));
    }),
  ],
  ['reply_format', builtin<'reply'>('reply_format', checkFormat)],
  ['prohibited_phrases', builtin<'reply'>('prohibited_phrases', checkPhrases)],
  ['factual_risk', builtin<'reply'>('factual_risk', checkNumbers)],
  ['output_constraints', builtin<'reply'>('output_constraints', checkConstraints)],
  [
    'required_call',
    builtin<'reply'>('required_call', checkRequiredCall, (spec, code, _evidence, locale) => {
      if (spec.params.code !== code) return undefined;
      const message = (spec.params.message as Partial<Record<Locale, unknown>> | undefined)?.[locale];
      return typeof message === 'string' ? message : undefined;
    }),
  ],
]);

// ---------------------------------------------------------------------------------------------------
// Module hooks: a harness's hooks/<module>.mjs adapted to the same interface
// ---------------------------------------------------------------------------------------------------

const frozenWorlds = new WeakMap<object, unknown>();

/** A frozen copy of the episode's world, once per world object: a module reads it and cannot change it. */
function readOnlyWorld(world: unknown): unknown {
  if (world === null || typeof world !== 'object') return world ?? null;
  let out = frozenWorlds.get(world);
  if (out === undefined) frozenWorlds.set(world, (out = deepFreeze(structuredClone(world))));
  return out;
}

const moduleImpls = new WeakMap<HookModule, HookKindImpl>();

function failed(spec: HookSpec, name: string, detail: string, locale: Locale): HookViolation {
  return violation(spec.id, HOOK_MODULE_FAILED, locale, `${name}: ${detail}`);
}

/** The module's violations of one check, validated; a throw or a malformed answer is one HOOK_MODULE_FAILED. */
function runModule(m: HookModule, spec: HookSpec, input: HookModuleInput, locale: Locale, world: unknown, out: HookViolation[]): void {
  let answer: unknown;
  try {
    answer = m.check(input, spec.params, Object.freeze({ locale, hook: spec.id, world: readOnlyWorld(world) }));
  } catch (err) {
    out.push(failed(spec, m.name, `check threw: ${err instanceof Error ? err.message : String(err)}`, locale));
    return;
  }
  if (!Array.isArray(answer)) {
    out.push(failed(spec, m.name, 'check must return a list of { code, evidence? }', locale));
    return;
  }
  const found: HookViolation[] = [];
  for (const v of answer as unknown[]) {
    const code = (v as { code?: unknown } | null)?.code;
    const evidence = (v as { evidence?: unknown } | null)?.evidence;
    if (typeof code !== 'string' || !Object.hasOwn(m.codes, code)) {
      out.push(failed(spec, m.name, `check returned the code ${JSON.stringify(code)}, which its codes do not declare`, locale));
      return;
    }
    if (evidence !== undefined && typeof evidence !== 'string') {
      out.push(failed(spec, m.name, `the evidence of ${code} must be a string`, locale));
      return;
    }
    const message = m.codes[code][locale];
    found.push(evidence === undefined ? { hook: spec.id, code, message } : { hook: spec.id, code, message, evidence });
  }
  out.push(...found);
}

/** A hook module as a hook kind: its stages, its params schema, its check and its codes' messages. */
export function moduleKind(m: HookModule): HookKindImpl {
  let impl = moduleImpls.get(m);
  if (impl !== undefined) return impl;
  impl = Object.freeze({
    kind: 'module',
    stages: m.stages,
    paramErrors: (params: unknown) => m.paramErrors(params),
    check<T extends RunStage>(spec: HookSpec, at: T, input: HookStageInputs[T], out: HookViolation[]): void {
      if (!(m.stages as readonly string[]).includes(at)) return;
      if (at === 'reply') {
        const ctx = input as ReplyHookContext;
        runModule(m, spec, { stage: 'reply', reply: ctx.reply, calls: ctx.calls ?? [] }, ctx.locale, ctx.world, out);
      } else if (at === 'input') {
        const i = input as InputHookInput;
        runModule(m, spec, { stage: 'input', message: i.message }, i.locale, i.world, out);
      } else {
        const t = input as ToolArgsHookInput;
        runModule(m, spec, { stage: 'tool_args', tool: t.tool, arguments: deepFreeze(structuredClone(t.arguments)) }, t.locale, t.world, out);
      }
    },
    message(_spec: HookSpec, code: string, _evidence: string | undefined, locale: Locale): string | undefined {
      return Object.hasOwn(m.codes, code) ? m.codes[code][locale] : undefined;
    },
  });
  moduleImpls.set(m, impl);
  return impl;
}

/** A module hook whose module is not among `modules`: every check reports it, naming the module. */
function missingModule(name: string): HookKindImpl {
  return {
    kind: 'module',
    stages: ['input', 'tool_args', 'reply'],
    paramErrors: () => [],
    check<T extends RunStage>(spec: HookSpec, at: T, input: HookStageInputs[T], out: HookViolation[]): void {
      if (spec.stage === at) out.push(failed(spec, name, 'the module is not loaded', (input as { locale: Locale }).locale));
    },
    message: () => undefined,
  };
}

/** The kind a hook runs: the library's by `hookKind`, or its module's; undefined for a kind unknown here. */
export function implOf(spec: HookSpec, modules?: HookModules): HookKindImpl | undefined {
  const kind = hookKind(spec);
  if (kind !== 'module') return BUILTIN_HOOK_KINDS.get(kind);
  const m = spec.module === undefined ? undefined : modules?.get(spec.module);
  return m === undefined ? missingModule(spec.module ?? '(none)') : moduleKind(m);
}

/** Run the enabled hooks of `stage` on its input, in the hooks' order; every violation, in order. */
function runStage<S extends RunStage>(hooks: readonly HookSpec[], stage: S, input: HookStageInputs[S], modules: HookModules | undefined): HookViolation[] {
  const out: HookViolation[] = [];
  for (const spec of hooks) {
    if (!spec.enabled || spec.stage !== stage) continue;
    implOf(spec, modules)?.check(spec, stage, input, out);
  }
  return out;
}

/**
 * Run the enabled reply-stage hooks on a reply candidate, in the hooks' order. Returns every violation
 * (empty when the reply passes). Hooks of a kind this engine does not know are skipped.
 */
export function runReplyHooks(hooks: readonly HookSpec[], ctx: ReplyHookContext): HookViolation[] {
  return runStage(hooks, 'reply', ctx, ctx.modules);
}

/**
 * Run the enabled tool_args-stage hooks on one call whose arguments the tool's schema accepted (module
 * hooks: the library's tool_args kind reports the schema's objection, which the router passes itself).
 */
export function runToolArgsHooks(hooks: readonly HookSpec[], input: ToolArgsHookInput): HookViolation[] {
  return runStage(hooks, 'tool_args', input, input.modules);
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
 * `locale` (the episode's; Chinese by default). `more`: what module hooks read (the world, the modules).
 */
export function runInputHooks(
  hooks: readonly HookSpec[],
  message: string,
  locale: Locale = 'zh-CN',
  more: { world?: unknown; modules?: HookModules } = {},
): HookViolation[] {
  return runStage(hooks, 'input', { message, locale, ...more }, more.modules);
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
 * A violation's message in `locale`: the one its hook's kind renders (required_call and module hooks
 * declare their own), else the library's;
 * for a code neither knows, the message the violation was reported with.
 */
function messageIn(v: HookViolation, locale: Locale, hooks: readonly HookSpec[], modules?: HookModules): string {
  const spec = hooks.length > 0 ? hooks.find((h) => h.id === v.hook) : undefined;
  const declared = spec === undefined ? undefined : declaredBy(spec, v.code, v.evidence, locale, modules);
  if (declared !== undefined) return declared;
  const describe = MESSAGES[locale][v.code];
  return describe ? describe(v.evidence ?? '') : v.message;
}

function feedbackLine(retry: RetryPolicy, v: HookViolation, hooks: readonly HookSpec[], modules?: HookModules): string {
  const message = messageIn(v, retry.feedback_locale, hooks, modules);
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
 * messages (required_call, module hooks), from `hooks` (the harness's hooks: pass them whenever such a hook
 * may have objected) and `modules` (the harness's hook modules). Empty string when no violations.
 */
export function feedbackMessage(
  retry: RetryPolicy,
  violations: readonly HookViolation[],
  hooks: readonly HookSpec[] = [],
  modules?: HookModules,
): string {
  if (violations.length === 0) return '';
  const lines = violations.map((v) => feedbackLine(retry, v, hooks, modules));
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
