/**
 * Prompt operators: block and item order, numeric limits, header/separator/item styles, paraphrased
 * instructions, irrelevant context, and the viewer's message.
 *
 * Task preservation: limits move only within LIMIT_RANGES and never below what the task's reference
 * reply needs; the prompt prints `harness.limits`, so what it states is what the hooks enforce.
 * Paraphrases keep every `{{placeholder}}` and tool name of the text they replace. Message operators
 * touch filler words and punctuation only (never a digit, a title or a spec word) and leave the history
 * alone; they replace `draft.task` instead of mutating it, because the task object is shared.
 */
import type { Task } from '../../protocol/domain.js';
import type { HeaderStyle, PromptBlock } from '../../protocol/harness.js';
import { LIMIT_RANGES, hookKind } from '../../protocol/harness.js';
import { charLength } from '../../protocol/text.js';
import type { HarnessTransform, TransformContext, VariantDraft } from '../types.js';
import { mentionsName, numberMarker, poolFor, reorder, reorderNumbered, share, stringMemo } from './kit.js';
import type { SplitPool } from './kit.js';
import {
  IRRELEVANT_CONTEXT,
  ITEM_STYLES,
  MESSAGE_PREFIXES,
  MESSAGE_SUFFIXES,
  MESSAGE_TAILS,
  MESSAGE_TYPOS,
  SEPARATORS,
} from './pools-prompt.js';
import type { Typo } from './pools-prompt.js';
import { blockParaphrases, needsWordings } from './wordings.js';

/** Header styles (the base style, Markdown, is in neither half, so the change is always visible). */
export const HEADER_STYLES: SplitPool<HeaderStyle> = { train: ['brackets', 'plain'], eval: ['xml'] };

/** Reply-length limits each split may choose: round tens in train, fives in eval (disjoint). */
export function replyLimitPool(split: 'train' | 'eval', lo: number): number[] {
  const out: number[] = [];
  const { min, max } = LIMIT_RANGES.reply_max_chars;
  for (let v = Math.max(min, lo); v <= max; v++) if (v % 10 === (split === 'train' ? 0 : 5)) out.push(v);
  return out;
}

/** Turn caps each split may choose: even in train, odd in eval (disjoint). */
export function turnLimitPool(split: 'train' | 'eval'): number[] {
  const out: number[] = [];
  const { min, max } = LIMIT_RANGES.max_turns;
  for (let v = min; v <= max; v++) if (v % 2 === (split === 'train' ? 0 : 1)) out.push(v);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

const PLACEHOLDER_RE = /\{\{(\w+)\}\}/g;

/** What a text must keep when paraphrased: its placeholders and the tool names it mentions. */
function anchors(text: string, tools: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(PLACEHOLDER_RE)) out.add(m[0]);
  for (const t of tools) if (mentionsTool(text, t)) out.add(t);
  return out;
}

/**
 * Whether `text` mentions tool `t` between identifier boundaries. The name is a regex pattern here (as it
 * always was): a name of plain characters, like every real tool name, is matched literally without
 * compiling anything; any other keeps its pattern meaning.
 */
function mentionsTool(text: string, t: string): boolean {
  if (isLiteralPattern(t)) return mentionsName(text, t);
  return new RegExp(`(?<![A-Za-z0-9_\\-])${t}(?![A-Za-z0-9_\\-])`).test(text);
}

/** Whether a name means itself as a regex pattern (no character to escape), once per name. */
const isLiteralPattern = stringMemo((name: string): boolean => escapeRe(name) === name);

/** Memos of `anchors`, per tool list (see anchorsFor). */
const anchorMemos = new Map<string, (text: string) => ReadonlySet<string>>();

/**
 * `anchors` for one tool list (a base harness's tool names), once per text: the texts compared are the
 * base harness's and the paraphrase pools', every reset. Bounded, like the memo per text.
 */
function anchorsFor(tools: readonly string[]): (text: string) => ReadonlySet<string> {
  const key = JSON.stringify(tools);
  let memo = anchorMemos.get(key);
  if (memo === undefined) {
    if (anchorMemos.size >= 16) anchorMemos.clear();
    memo = stringMemo((text) => anchors(text, tools));
    anchorMemos.set(key, memo);
  }
  return memo;
}

/** Whether `next` keeps every anchor of `prev`. */
function keepsAnchors(prev: string, next: string, anchorsOf: (text: string) => ReadonlySet<string>): boolean {
  const have = anchorsOf(next);
  for (const a of anchorsOf(prev)) if (!have.has(a)) return false;
  return true;
}

/** The task with other viewer messages (a fresh object: the caller's task is shared and frozen in spirit). */
function withMessages(task: Task, messages: string[]): Task {
  return { ...task, messages };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The matcher of a typo: whole words for English words, plain substrings otherwise. */
function typoPattern(t: Typo): string {
  return /^[A-Za-z']+$/.test(t.from) ? `(?<![A-Za-z0-9'])${escapeRe(t.from)}(?![A-Za-z0-9'])` : escapeRe(t.from);
}

/**
 * Each typo's matchers, compiled once: `any` to test a message (no `g` flag, so no `lastIndex` carries
 * over between messages) and `all` to replace every occurrence (`replace` resets a global regex itself).
 */
const typoMatchers = new WeakMap<Typo, { any: RegExp; all: RegExp }>();

function typoMatcher(t: Typo): { any: RegExp; all: RegExp } {
  let m = typoMatchers.get(t);
  if (m === undefined) {
    const pattern = typoPattern(t);
    m = { any: new RegExp(pattern), all: new RegExp(pattern, 'g') };
    typoMatchers.set(t, m);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------------

/** prompt.header.style: Markdown headers, 【】 brackets, XML tags or plain labels. */
const headerStyle: HarnessTransform = {
  name: 'prompt.header.style',
  family: 'prompt',
  description: 'header style of the prompt blocks (Markdown, 【】, XML, plain)',
  apply(draft, ctx) {
    draft.harness.prompt.header_style = ctx.rng.pick(poolFor(HEADER_STYLES, ctx.split));
  },
};

/** prompt.separator: what stands between blocks (---, ***, ====, ###...). */
const separator: HarnessTransform = {
  name: 'prompt.separator',
  family: 'prompt',
  description: 'separator between prompt blocks (---, ***, ====, ###)',
  apply(draft, ctx) {
    draft.harness.prompt.separator = ctx.rng.pick(poolFor(SEPARATORS, ctx.split));
  },
};

/** prompt.items.style: list items as numbered, bullets or prose. */
const itemsStyle: HarnessTransform = {
  name: 'prompt.items.style',
  family: 'prompt',
  description: 'list item style of prompt rules (numbered, bullets, prose)',
  apply(draft, ctx) {
    draft.harness.prompt.item_style = ctx.rng.pick(poolFor(ITEM_STYLES, ctx.split));
  },
};

/** Paraphrase one block in place; a part that would lose an anchor (or was already changed) is kept. */
function paraphraseBlock(block: PromptBlock, ctx: TransformContext, anchorsOf: (text: string) => ReadonlySet<string>): void {
  const pool = blockParaphrases(ctx.base, block.id, ctx.locale);
  if (!pool) return;
  const alt = ctx.rng.pick(poolFor(pool, ctx.split));
  if (alt.title !== undefined) block.title = alt.title;
  if (alt.template !== undefined && keepsAnchors(block.template, alt.template, anchorsOf)) block.template = alt.template;
  if (alt.items !== undefined) {
    // Items are replaced only while they are still the base ones: the paraphrase says the same rules.
    const baseItems = ctx.base.prompt.blocks.find((b) => b.id === block.id)?.items ?? [];
    const unchanged = block.items.length === baseItems.length && block.items.every((x, i) => x === baseItems[i]);
    if (unchanged && keepsAnchors(block.items.join('\n'), alt.items.join('\n'), anchorsOf)) block.items = alt.items.slice();
  }
}

/**
 * prompt.instructions.paraphrase: other block titles, templates and rule wordings (same meaning), from
 * paraphrases.yaml `blocks.<block>.<locale>`.
 */
const instructionsParaphrase: HarnessTransform = {
  name: 'prompt.instructions.paraphrase',
  family: 'prompt',
  description: 'paraphrase block titles, templates and rules (placeholders and tool names kept)',
  notApplicable: needsWordings(
    '<locale> prompt block paraphrases (blocks.<block>.<locale>)',
    (base) => base.prompt.blocks.some((b) => blockParaphrases(base, b.id, base.locale) !== undefined),
  ),
  apply(draft, ctx) {
    const anchorsOf = anchorsFor(ctx.base.tools.map((t) => t.function.name));
    const blocks = draft.harness.prompt.blocks.filter((b) => blockParaphrases(ctx.base, b.id, ctx.locale) !== undefined);
    if (blocks.length === 0) return;
    for (const b of ctx.rng.sample(blocks, share(blocks.length, ctx.intensity, ctx.rng))) paraphraseBlock(b, ctx, anchorsOf);
  },
};

/** prompt.items.shuffle: reorder the rules within blocks; items that carry numbers are renumbered. */
const itemsShuffle: HarnessTransform = {
  name: 'prompt.items.shuffle',
  family: 'prompt',
  description: 'reorder the items (rules) within prompt blocks',
  apply(draft, ctx) {
    const blocks = draft.harness.prompt.blocks.filter((b) => b.items.length > 1);
    if (blocks.length === 0) return;
    for (const b of ctx.rng.sample(blocks, share(blocks.length, ctx.intensity, ctx.rng))) {
      // Items that carry their own numbers (`1、...`) are numbered again in their new order.
      b.items = reorderNumbered(ctx.rng, b.items, numberMarker, (item, m) => m + item.slice((numberMarker(item) as string).length));
    }
  },
};

/** prompt.blocks.shuffle: reorder the blocks; the persona stays first half of the time. */
const blocksShuffle: HarnessTransform = {
  name: 'prompt.blocks.shuffle',
  family: 'prompt',
  description: 'reorder the prompt blocks (persona first or not)',
  apply(draft, ctx) {
    const blocks = draft.harness.prompt.blocks;
    const persona = blocks.find((b) => b.id === 'persona');
    if (persona && ctx.rng.chance(0.5)) {
      const rest = blocks.filter((b) => b !== persona);
      draft.harness.prompt.blocks = [persona, ...reorder(ctx.rng, rest)];
    } else {
      draft.harness.prompt.blocks = reorder(ctx.rng, blocks);
    }
  },
};

/** The shortest reply limit that keeps the task solvable: the reference reply, a margin, any required ending. */
export function minReplyLimit(draft: VariantDraft): number {
  const hook = draft.harness.hooks.find((h) => hookKind(h) === 'output_constraints' && h.enabled);
  const ending = hook?.params.required_ending;
  const endingLen = typeof ending === 'string' ? charLength(ending) : 0;
  return Math.max(LIMIT_RANGES.reply_max_chars.min, charLength(draft.task.answer_key.reference_reply) + 10 + endingLen);
}

/** prompt.limits: move reply_max_chars (and often max_turns) within LIMIT_RANGES. */
const limits: HarnessTransform = {
  name: 'prompt.limits',
  family: 'prompt',
  perTask: true,
  description: 'change reply_max_chars and max_turns within the legal range (the hooks follow)',
  apply(draft, ctx) {
    // A new limits object, not a change to it: per-task operators work on a compiled variant's shared parts.
    const lim = { ...draft.harness.limits };
    const replies = replyLimitPool(ctx.split, minReplyLimit(draft)).filter((v) => v !== lim.reply_max_chars);
    if (replies.length > 0) lim.reply_max_chars = ctx.rng.pick(replies);
    if (replies.length === 0 || ctx.rng.chance(0.5 + 0.5 * ctx.intensity)) {
      const turns = turnLimitPool(ctx.split).filter((v) => v !== lim.max_turns);
      lim.max_turns = ctx.rng.pick(turns);
    }
    draft.harness.limits = lim;
  },
};

/** prompt.context.irrelevant: append one to three paragraphs that say nothing about the task. */
const contextIrrelevant: HarnessTransform = {
  name: 'prompt.context.irrelevant',
  family: 'prompt',
  description: 'append 1-3 irrelevant paragraphs (notices, host chatter; no facts, no digits)',
  apply(draft, ctx) {
    const pool = poolFor(IRRELEVANT_CONTEXT[ctx.locale], ctx.split).filter((p) => !draft.harness.prompt.extra_context.includes(p));
    if (pool.length === 0) return;
    const n = Math.min(pool.length, ctx.rng.int(1, Math.max(1, Math.round(1 + 2 * ctx.intensity))));
    draft.harness.prompt.extra_context.push(...ctx.rng.sample(pool, n));
  },
};

/** prompt.message.typos: filler-word and punctuation typos in the viewer's message (never facts). */
const messageTypos: HarnessTransform = {
  name: 'prompt.message.typos',
  family: 'prompt',
  perTask: true,
  description: 'typos in the viewer message on filler words and punctuation only (吗->嘛, you->u)',
  apply(draft, ctx) {
    const messages = draft.task.messages.slice();
    const typos = poolFor(MESSAGE_TYPOS[ctx.locale], ctx.split);
    const applicable = typos.filter((t) => messages.some((m) => typoMatcher(t).any.test(m)));
    let changed = false;
    if (applicable.length > 0) {
      for (const t of ctx.rng.sample(applicable, share(applicable.length, ctx.intensity, ctx.rng))) {
        for (let i = 0; i < messages.length; i++) {
          const next = messages[i].replace(typoMatcher(t).all, () => t.to);
          if (next !== messages[i]) changed = true;
          messages[i] = next;
        }
      }
    }
    if (!changed && messages.length > 0) {
      // Nothing to misspell: a trailing flourish still changes the surface.
      const i = ctx.rng.int(0, messages.length - 1);
      messages[i] += ctx.rng.pick(poolFor(MESSAGE_TAILS[ctx.locale], ctx.split));
    }
    draft.task = withMessages(draft.task, messages);
  },
};

/** prompt.message.paraphrase: filler before and/or after the viewer's message (主播主播、/ hey host,). */
const messageParaphrase: HarnessTransform = {
  name: 'prompt.message.paraphrase',
  family: 'prompt',
  perTask: true,
  description: 'add filler before/after the viewer message (主播主播、, 请问一下, hey host, quick question:)',
  apply(draft, ctx) {
    const messages = draft.task.messages.slice();
    if (messages.length === 0) return;
    const mode = ctx.rng.pick(['prefix', 'suffix', 'both'] as const);
    if (mode !== 'suffix') {
      const i = ctx.rng.int(0, messages.length - 1);
      messages[i] = ctx.rng.pick(poolFor(MESSAGE_PREFIXES[ctx.locale], ctx.split)) + messages[i];
    }
    if (mode !== 'prefix') {
      const i = ctx.rng.int(0, messages.length - 1);
      const suffix = ctx.rng.pick(poolFor(MESSAGE_SUFFIXES[ctx.locale], ctx.split));
      const m = messages[i];
      const joiner = ctx.locale === 'en' ? ' ' : /[，。？！?!～~…]$/.test(m) ? '' : '，';
      messages[i] = m + joiner + suffix;
    }
    draft.task = withMessages(draft.task, messages);
  },
};

/** Prompt operators, in application order: styles, wording, order, limits, context, the message. */
export const PROMPT_OPS: readonly HarnessTransform[] = [
  headerStyle,
  separator,
  itemsStyle,
  instructionsParaphrase,
  itemsShuffle,
  blocksShuffle,
  limits,
  contextIrrelevant,
  messageTypos,
  messageParaphrase,
];
