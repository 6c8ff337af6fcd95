/**
 * Data of the hook operators: feedback styles, toggleable checks, IFEval-style constraint vocabularies
 * and the sentences that state a constraint in the prompt. Training and held-out halves never share an
 * entry (the tests assert it).
 */
import type { Locale } from '../../protocol/domain.js';
import type { FeedbackStyle } from '../../protocol/harness.js';
import type { SplitPool } from './kit.js';

/** Feedback structures (hooks.feedback.style). */
export const FEEDBACK_STYLES: SplitPool<FeedbackStyle> = { train: ['natural', 'json'], eval: ['tagged'] };

/**
 * Checks hooks.checks.toggle may switch off: the input guard and the form-only reply checks. Never
 * tool_args or skill_required (the task's protocol), never TOO_LONG or EMPTY_REPLY (the prompt states the
 * length limit, and a stated limit is an enforced one), never prohibited_phrases or factual_risk (a
 * broadcast incident is not a matter of style), never output_constraints (enabled only with a statement).
 * `reply_format:X` removes check X from reply_format's `checks`.
 */
export const TOGGLEABLE_CHECKS: SplitPool<string> = {
  train: ['input_guard', 'reply_format:THINK_LEAK'],
  eval: ['reply_format:EMOJI', 'reply_format:MARKDOWN'],
};

/**
 * Forbidden words (hooks.constraint.forbidden_words): fillers a host habitually says, so the constraint
 * bites. A word is used only when the task's reference reply does not contain it.
 */
export const FORBIDDEN_WORDS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['宝宝', '哦', '亲', '家人们', '闭眼入', '冲鸭', '抓紧'],
    eval: ['呀', '啦', '姐妹们', '老铁', '手慢无', '划算', '喜欢'],
  },
  en: {
    train: ['grab', 'guys', 'awesome', 'super', 'go ahead'],
    eval: ['folks', 'amazing', 'fantastic', 'hurry', 'right away'],
  },
};

/**
 * Required endings (hooks.constraint.ending). Each has words, not only punctuation: the check ignores
 * closing punctuation, so "~" or "!" alone would constrain nothing. No digits (they would be ungrounded
 * numbers), nothing a phrase rule forbids.
 */
export const REQUIRED_ENDINGS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['欢迎下单', '感谢观看', '喜欢就下单吧'],
    eval: ['祝您购物愉快', '记得关注直播间'],
  },
  en: {
    train: ['Thanks for watching!', 'Happy shopping!'],
    eval: ['Enjoy the show!', 'See you at checkout!'],
  },
};

const SALES_ENDING_RE = /shopping|checkout|check out|order|cart|grab|buy|购物|下单|拍|链接|购物车|小黄车|抢|入手/i;

/**
 * Whether an ending sells ("Happy shopping!", "喜欢就下单吧"): such an ending is required only of replies that
 * invite a purchase (hooks.constraint.ending), and the consistency check flags one on any other reply.
 */
export function isSalesEnding(ending: string): boolean {
  return SALES_ENDING_RE.test(ending);
}

/** How the prompt states forbidden words; `{words}` is the quoted list. */
export const FORBIDDEN_STATEMENTS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['回复里不要出现这些词：{words}。', '禁用词：{words}，任何回复都不能使用。'],
    eval: ['以下词语本场直播不允许说：{words}。'],
  },
  en: {
    train: ['Do not use these words in a reply: {words}.', 'Banned words, never to appear in a reply: {words}.'],
    eval: ['The following words may not be said in this stream: {words}.'],
  },
};

/** How the prompt states the required ending; `{ending}` is the ending. */
export const ENDING_STATEMENTS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['每条回复都以“{ending}”结尾。', '回复的最后一句固定为“{ending}”。'],
    eval: ['请让每条回复以“{ending}”收尾。'],
  },
  en: {
    train: ['End every reply with "{ending}".', 'Every reply must finish with "{ending}".'],
    eval: ['Close each reply with the words "{ending}".'],
  },
};

/** How the prompt states the required language (always the harness's own). */
export const LANGUAGE_STATEMENTS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['只用中文回复。', '回复语言必须是中文。'],
    eval: ['请全程使用中文作答。'],
  },
  en: {
    train: ['Reply in English only.', 'The reply language must be English.'],
    eval: ['Answer in English throughout.'],
  },
};

/** The output_rules block's title, for a harness whose prompt lost the block (it is re-added). */
export const OUTPUT_RULES_TITLE: Readonly<Record<Locale, string>> = { 'zh-CN': '输出要求', en: 'Output rules' };
