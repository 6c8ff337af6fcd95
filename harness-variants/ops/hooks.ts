/**
 * Hook operators: retry policy, feedback structure and language, which checks run and in what order,
 * and IFEval-style output constraints.
 *
 * Task preservation: the oracle's reply (the task's reference reply, plus a required ending when one is
 * set) passes every check a variant enables. A constraint is only enabled together with a sentence in
 * the prompt's output_rules block that states it, forbidden words are never words of the reference
 * reply, and a required ending comes with a reply limit that fits it (reference + 10 + ending).
 *
 * Hooks are found by kind (`hookKind`), since a harness names its hooks as it likes, and a harness may
 * lack any of them: an operator whose hook is absent changes nothing. required_call hooks (a harness's
 * own stop hooks) are task-relevant: no operator disables, edits or moves them. Module hooks (a harness's
 * `hooks/<module>.mjs`) belong to the task too: never disabled or edited; their feedback follows the
 * style, mode and locale operators (the module declares a message per locale), and the order operator
 * moves them among the other reply checks.
 */
import { harnessSetOf } from '../../harness/index.js';
import type { Locale } from '../../protocol/domain.js';
import type { HookSpec, PromptBlock } from '../../protocol/harness.js';
import { LIMIT_RANGES, hookKind } from '../../protocol/harness.js';
import { charLength, normalizeForMatch } from '../../protocol/text.js';
import { ownTextsOf } from '../own-texts.js';
import type { HarnessTransform, TransformContext, VariantDraft } from '../types.js';
import { poolFor, reorder, stringMemo } from './kit.js';
import {
  ENDING_STATEMENTS,
  FEEDBACK_STYLES,
  FORBIDDEN_STATEMENTS,
  FORBIDDEN_WORDS,
  LANGUAGE_STATEMENTS,
  OUTPUT_RULES_TITLE,
  REQUIRED_ENDINGS,
  isSalesEnding,
  TOGGLEABLE_CHECKS,
} from './pools-hooks.js';

/** Slack a reply limit keeps above the reference reply (the checker's rule). */
export const REPLY_LIMIT_SLACK = 10;

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/** The harness's hook of this kind (one at most, but for required_call, which operators leave alone). */
function hook(draft: VariantDraft, kind: string): HookSpec | undefined {
  return draft.harness.hooks.find((h) => hookKind(h) === kind);
}

/**
 * Replace the output_constraints hook with an enabled copy whose params are `params(old params)`; false
 * when the harness has none. The hook and the list are replaced, not changed: a per-task operator works
 * on a compiled variant's parts, which every episode of its pool slot shares.
 */
function setConstraints(draft: VariantDraft, params: (old: HookSpec['params']) => HookSpec['params']): boolean {
  const hooks = draft.harness.hooks;
  const i = hooks.findIndex((h) => hookKind(h) === 'output_constraints');
  if (i < 0) return false;
  const next = hooks.slice();
  next[i] = { ...hooks[i], enabled: true, params: params(hooks[i].params) };
  draft.harness.hooks = next;
  return true;
}

/** Whether the texts of the draft's harness the policy reads besides the output rules use `word` (normalised). */
function ownTextsHold(draft: VariantDraft, word: string): boolean {
  return draft.ownTexts !== undefined ? draft.ownTexts.holds(draft.harness, word) : ownTextsOf(draft.harness).includes(word);
}

/** The ending the variant already requires, if any. */
function requiredEnding(draft: VariantDraft): string | undefined {
  const h = hook(draft, 'output_constraints');
  const e = h?.enabled ? h.params.required_ending : undefined;
  return typeof e === 'string' ? e : undefined;
}

/** The reply the oracle will give under this draft: the reference reply, with the ending appended. */
function oracleReply(draft: VariantDraft, ending = requiredEnding(draft)): string {
  const ref = draft.task.answer_key.reference_reply;
  return ending === undefined || ref.endsWith(ending) ? ref : ref + ending;
}

/**
 * State a rule in the prompt's output_rules block (in the harness's locale). The block is re-created
 * when a prompt operator removed it: a constraint that is enforced must be stated.
 */
function stateRule(draft: VariantDraft, locale: Locale, text: string): void {
  // The prompt, its block list and the block are replaced, not changed (see setConstraints).
  const prompt = draft.harness.prompt;
  const i = prompt.blocks.findIndex((b) => b.id === 'output_rules');
  const blocks = prompt.blocks.slice();
  if (i < 0) {
    const created: PromptBlock = { id: 'output_rules', title: OUTPUT_RULES_TITLE[locale], template: '', items: [text] };
    blocks.push(created);
  } else blocks[i] = { ...blocks[i], items: [...blocks[i].items, text] };
  draft.harness.prompt = { ...prompt, blocks };
}

function quoteAll(words: readonly string[], locale: Locale): string {
  return locale === 'en' ? words.map((w) => `"${w}"`).join(', ') : words.map((w) => `“${w}”`).join('');
}

function otherLocale(l: Locale): Locale {
  return l === 'en' ? 'zh-CN' : 'en';
}

/** A pool word as the hook matches it, normalised once per word. */
const normalizedWord = stringMemo(normalizeForMatch);

// ---------------------------------------------------------------------------------------------------
// Feedback and retry
// ---------------------------------------------------------------------------------------------------

/** hooks.feedback.style: feedback as natural language, a JSON decision or tagged text. */
const feedbackStyle: HarnessTransform = {
  name: 'hooks.feedback.style',
  family: 'hooks',
  description: 'hook feedback structure (natural language, JSON decision, tagged)',
  apply(draft, ctx) {
    const pool = poolFor(FEEDBACK_STYLES, ctx.split);
    const other = pool.filter((s) => s !== draft.harness.retry.feedback_style);
    draft.harness.retry.feedback_style = ctx.rng.pick(other.length > 0 ? other : pool);
  },
};

/**
 * hooks.feedback.locale: hook feedback in the other language (templates and messages both), as a
 * bilingual team's tooling may answer. Not pooled: with two locales there is one choice.
 */
const feedbackLocale: HarnessTransform = {
  name: 'hooks.feedback.locale',
  family: 'hooks',
  description: 'hook feedback in the other language (zh <-> en)',
  apply(draft, ctx) {
    const to = otherLocale(draft.harness.retry.feedback_locale);
    draft.harness.retry.feedback_locale = to;
    draft.harness.retry.templates = { ...harnessSetOf(ctx.base).get(to).retry.templates };
  },
};

/** hooks.retry.count: how many retries a blocked reply gets (0-2), always a change. Not pooled. */
const retryCount: HarnessTransform = {
  name: 'hooks.retry.count',
  family: 'hooks',
  description: 'number of retries after a blocked reply (0-2)',
  apply(draft, ctx) {
    const current = draft.harness.retry.max_retries;
    draft.harness.retry.max_retries = ctx.rng.pick([0, 1, 2].filter((n) => n !== current));
  },
};

/** hooks.retry.mode: block (feedback and a retry) or auto_correct (form problems repaired). Not pooled. */
const retryMode: HarnessTransform = {
  name: 'hooks.retry.mode',
  family: 'hooks',
  description: 'retry mode: block vs auto-correct',
  apply(draft) {
    draft.harness.retry.mode = draft.harness.retry.mode === 'block' ? 'auto_correct' : 'block';
  },
};

// ---------------------------------------------------------------------------------------------------
// Which checks, in what order
// ---------------------------------------------------------------------------------------------------

const withoutCheckMemo = new WeakMap<object, Map<string, HookSpec['params']>>();

/**
 * The params without one check: one frozen object per (params object, check), so that the variants that
 * drop the same check share it, and the hook engine compiles it once (it caches by params object).
 */
function withoutCheck(params: HookSpec['params'], check: string): HookSpec['params'] {
  let byCheck = withoutCheckMemo.get(params);
  if (byCheck === undefined) withoutCheckMemo.set(params, (byCheck = new Map()));
  let out = byCheck.get(check);
  if (out === undefined) {
    out = Object.freeze({ ...params, checks: (params.checks as string[]).filter((c) => c !== check) });
    byCheck.set(check, out);
  }
  return out;
}

/** hooks.checks.toggle: switch off one or two non-essential checks (see TOGGLEABLE_CHECKS). */
const checksToggle: HarnessTransform = {
  name: 'hooks.checks.toggle',
  family: 'hooks',
  description: 'disable one or two non-essential checks (input guard, form-only reply checks)',
  apply(draft, ctx) {
    const pool = poolFor(TOGGLEABLE_CHECKS, ctx.split);
    for (const key of ctx.rng.sample(pool, ctx.rng.int(1, Math.min(2, pool.length)))) {
      const [kind, check] = key.split(':');
      const h = hook(draft, kind);
      if (h === undefined) continue;
      if (check === undefined) {
        h.enabled = false;
      } else if (Array.isArray(h.params.checks)) {
        h.params = withoutCheck(h.params, check);
      }
    }
  },
};

/**
 * hooks.checks.order: run the reply hooks in another order (feedback lists violations in that order).
 * required_call hooks keep their places.
 */
const checksOrder: HarnessTransform = {
  name: 'hooks.checks.order',
  family: 'hooks',
  description: 'order of the reply checks',
  apply(draft, ctx) {
    const hooks = draft.harness.hooks;
    const slots = hooks.map((h, i) => (h.stage === 'reply' && hookKind(h) !== 'required_call' ? i : -1)).filter((i) => i >= 0);
    const order = reorder(
      ctx.rng,
      slots.map((i) => hooks[i]),
    );
    slots.forEach((slot, k) => {
      hooks[slot] = order[k];
    });
  },
};

// ---------------------------------------------------------------------------------------------------
// IFEval-style output constraints
// ---------------------------------------------------------------------------------------------------

/**
 * hooks.constraint.forbidden_words: one or two words the reply must not use (matched like the hook
 * does, on normalised text), never a word of the oracle's reply; stated in output_rules.
 */
const forbiddenWords: HarnessTransform = {
  name: 'hooks.constraint.forbidden_words',
  family: 'hooks',
  perTask: true,
  description: 'IFEval constraint: forbidden words (stated in the prompt)',
  apply(draft, ctx) {
    const said = normalizeForMatch(oracleReply(draft));
    const h = hook(draft, 'output_constraints');
    const already = Array.isArray(h?.params.forbidden_words) ? (h?.params.forbidden_words as string[]) : [];
    // A word the harness's own texts use (a skill's example reply, the persona's style) is not banned: the
    // prompt would forbid what the skills it serves model ("哦" in an example reply, "亲" in "亲切").
    const pool = poolFor(FORBIDDEN_WORDS[ctx.locale], ctx.split).filter(
      (w) => !said.includes(normalizedWord(w)) && !already.includes(w) && !ownTextsHold(draft, normalizedWord(w)),
    );
    const words = ctx.rng.sample(pool, ctx.rng.int(1, 2));
    if (words.length === 0 || h === undefined) return;
    setConstraints(draft, (params) => ({ ...params, forbidden_words: [...already, ...words] }));
    stateRule(draft, ctx.locale, pick(ctx, FORBIDDEN_STATEMENTS).replace('{words}', quoteAll(words, ctx.locale)));
  },
};

/**
 * hooks.constraint.ending: every reply ends with a fixed phrase; the oracle appends it. The reply limit
 * is raised when needed so that reference + slack + ending fits (an ending that cannot fit within the
 * legal range is not chosen); an ending with a forbidden word is not chosen either.
 */
const ending: HarnessTransform = {
  name: 'hooks.constraint.ending',
  family: 'hooks',
  perTask: true,
  description: 'IFEval constraint: required ending (stated in the prompt; limit made to fit)',
  apply(draft, ctx) {
    if (requiredEnding(draft) !== undefined) return;
    const h = hook(draft, 'output_constraints');
    const forbidden =
      h?.enabled && Array.isArray(h.params.forbidden_words) ? (h.params.forbidden_words as string[]).map(normalizeForMatch) : [];
    const ref = draft.task.answer_key.reference_reply;
    const refLength = charLength(ref);
    const fits = (e: string) => refLength + REPLY_LIMIT_SLACK + charLength(e) <= LIMIT_RANGES.reply_max_chars.max;
    // Without forbidden words every ending is clean: the reply is normalised only when there are some.
    const clean = (e: string) => {
      if (forbidden.length === 0) return true;
      const said = normalizeForMatch(ref + e);
      return forbidden.every((w) => !said.includes(w));
    };
    // A sales ending ("Happy shopping!") closes only replies that invite a purchase: never a question back,
    // a hand-off, a refusal or bad news.
    const sells = draft.task.answer_key.expect === 'answer' && draft.task.answer_key.cta;
    const pool = poolFor(REQUIRED_ENDINGS[ctx.locale], ctx.split).filter((e) => fits(e) && clean(e) && (sells || !isSalesEnding(e)));
    if (pool.length === 0 || h === undefined) return;
    const chosen = ctx.rng.pick(pool);
    setConstraints(draft, (params) => ({ ...params, required_ending: chosen }));
    const need = charLength(oracleReply(draft, chosen)) + REPLY_LIMIT_SLACK;
    const limits = draft.harness.limits;
    if (limits.reply_max_chars < need) draft.harness.limits = { ...limits, reply_max_chars: need };
    stateRule(draft, ctx.locale, pick(ctx, ENDING_STATEMENTS).replace('{ending}', chosen));
  },
};

/** hooks.constraint.language: the reply must be in the harness's language; stated in output_rules. */
const language: HarnessTransform = {
  name: 'hooks.constraint.language',
  family: 'hooks',
  description: "IFEval constraint: reply language (the harness's own; stated in the prompt)",
  apply(draft, ctx) {
    const h = hook(draft, 'output_constraints');
    if (h === undefined) return;
    // An already stated language needs no new rule (the hook is enabled all the same).
    if (h.params.language === ctx.locale) {
      setConstraints(draft, (params) => params);
      return;
    }
    setConstraints(draft, (params) => ({ ...params, language: ctx.locale }));
    stateRule(draft, ctx.locale, pick(ctx, LANGUAGE_STATEMENTS));
  },
};

function pick(ctx: TransformContext, table: Readonly<Record<Locale, { train: readonly string[]; eval: readonly string[] }>>): string {
  return ctx.rng.pick(poolFor(table[ctx.locale], ctx.split));
}

/**
 * Hook operators, in application order: retry and feedback, which checks run, the constraints (the
 * ending after the forbidden words, so it avoids them), and the order of the reply checks last.
 */
export const HOOK_OPS: readonly HarnessTransform[] = [
  feedbackStyle,
  feedbackLocale,
  retryCount,
  retryMode,
  checksToggle,
  forbiddenWords,
  ending,
  language,
  checksOrder,
];
