/**
 * Auto-correction (a hook retry policy's `auto_correct` mode): when every violation of a reply is one of
 * form (too long, Markdown, emoji, leaked thinking), the environment repairs the reply instead of asking
 * for a retry, as production's output hooks do. Repairs only remove text; a repaired reply is re-checked
 * against the harness's reply hooks (env/hooks.ts) before it may be accepted.
 */
import type { HookViolation, Locale } from '../protocol/domain.js';
import type { HookSpec } from '../protocol/harness.js';
import { extractNumbers } from '../protocol/text.js';
import { runReplyHooks } from './hooks.js';
import type { ReplyHookContext } from './hooks.js';

/** Codes that are about form only, so the environment may repair them in `auto_correct` mode. */
export const CORRECTABLE_CODES: ReadonlySet<string> = new Set(['TOO_LONG', 'MARKDOWN', 'EMOJI', 'THINK_LEAK']);

const THINK_BLOCK_RE = /<\s*(think|thinking|reasoning)\s*>[\s\S]*?<\s*\/\s*\1\s*>/giu;
const THINK_UNTIL_CLOSE_RE = /^[\s\S]*?<\s*\/\s*(?:think|thinking|reasoning)\s*>/iu;
const THINK_OPEN_TO_END_RE = /<\s*(?:think|thinking|reasoning)\s*>[\s\S]*$/iu;
const EMOJI_RE = /(?![\u00A9\u00AE\u2122\u203C\u2049])\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}]|\uFE0F|\u200D/gu;
const SENTENCE_END = new Set(['。', '！', '？', '!', '?', '；', ';', '.']);
const SOFT_BREAK = new Set(['，', '、', ',', ' ', '：', ':']);
const JOIN_PUNCT_RE = /[。！？，；：、,.!?;:]$/u;

// Removing text between two parts of a number would fuse them ("8😀9" -> "89"): leave a space there.
const NUMBERISH_RE = /[\d.,]/u;

function removeKeepingNumbersApart(text: string, re: RegExp): string {
  return text.replace(re, (m: string, ...rest: unknown[]) => {
    const offset = rest.find((x) => typeof x === 'number') as number;
    const before = text[offset - 1];
    const after = text[offset + m.length];
    return before !== undefined && after !== undefined && NUMBERISH_RE.test(before) && NUMBERISH_RE.test(after) ? ' ' : '';
  });
}

function stripThink(text: string): string {
  let t = removeKeepingNumbersApart(text, THINK_BLOCK_RE);
  t = t.replace(THINK_UNTIL_CLOSE_RE, ''); // a close tag without its opener (template already opened it)
  return t.replace(THINK_OPEN_TO_END_RE, ''); // an opener never closed: everything after is reasoning
}

function stripMarkdownLine(line: string): string | null {
  if (/^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/u.test(line)) return null; // horizontal rule
  if (/^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/u.test(line)) return null; // table separator
  // Markers nest ("> - 1. text"): strip until nothing changes.
  let l = line;
  for (let prev = ''; prev !== l;) {
    prev = l;
    l = l
      .replace(/^\s{0,3}#{1,6}\s+/u, '')
      .replace(/^\s*>\s?/u, '')
      .replace(/^\s*[-*+•]\s+/u, '')
      .replace(/^\s*\d{1,2}(?:[.)]\s+|、)/u, '');
  }
  if (/^\s*\|.*\|\s*$/u.test(l)) {
    l = l
      .trim()
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim())
      .filter(Boolean)
      .join(' ');
  }
  return l.trim();
}

function stripMarkdown(text: string, locale: Locale): string {
  let inline = text.replace(/\[([^\]\n]+)\]\([^)\n]+\)/gu, '$1');
  inline = removeKeepingNumbersApart(inline, /`+|\*+|_{2,}/gu);
  const lines = inline
    .split('\n')
    .map(stripMarkdownLine)
    .filter((l): l is string => l !== null && l !== '');
  // Lines become one spoken sentence: join with a pause unless the line already ends in punctuation.
  let out = '';
  for (const l of lines) {
    if (out === '') out = l;
    else if (JOIN_PUNCT_RE.test(out)) out += locale === 'en' ? ` ${l}` : l;
    else out += locale === 'en' ? `, ${l}` : `，${l}`;
  }
  return out;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c) && !/\p{Script=Han}/u.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Cut to `max` code points at a sentence end, else a soft break, else a word edge; never inside a number. */
function truncate(text: string, max: number, locale: Locale): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const half = Math.floor(max / 2);
  // A "." or "," between digits belongs to a number (89.9, 1,299), not to the sentence.
  const inNumber = (i: number) => isDigit(chars[i - 1]) && isDigit(chars[i + 1]);
  for (let i = max - 1; i >= half; i--) {
    if (SENTENCE_END.has(chars[i]) && !inNumber(i))
      return chars
        .slice(0, i + 1)
        .join('')
        .trim();
  }
  for (let i = max - 1; i >= half; i--) {
    if (SOFT_BREAK.has(chars[i]) && !inNumber(i)) {
      return chars.slice(0, i).join('').trimEnd() + (locale === 'en' ? '.' : '。');
    }
  }
  let cut = max;
  for (;;) {
    const prev = chars[cut - 1];
    const next = chars[cut];
    if (cut === 0) break;
    if (isWordChar(prev) && isWordChar(next))
      cut--; // inside a word or a digit run
    else if ((prev === '.' || prev === ',') && isDigit(next))
      cut--; // "89.|9"
    else if (isDigit(prev) && (next === '.' || next === ',') && isDigit(chars[cut + 1]))
      cut--; // "89|.9"
    else break;
  }
  return chars.slice(0, cut).join('').trim();
}

/**
 * Repair a reply whose only problems are of form (`CORRECTABLE_CODES`): drop reasoning, Markdown and
 * emoji, then cut to the length limit at a sentence or clause boundary (never inside a number). Returns
 * null when some violation is not of form (a prohibited phrase, an ungrounded number, a missing skill)
 * or nothing speakable is left. With no violations the reply is returned unchanged.
 *
 * Pass the harness's `hooks` to have the result re-checked: then a non-null result is guaranteed to pass
 * every enabled reply hook (null otherwise), so the caller may accept it as is.
 */
export function autoCorrect(
  reply: string,
  violations: readonly HookViolation[],
  ctx: ReplyHookContext,
  hooks?: readonly HookSpec[],
): string | null {
  if (violations.length === 0) return reply;
  if (violations.some((v) => !CORRECTABLE_CODES.has(v.code))) return null;
  // One removal can expose another ("😀| a |" becomes a table row): clean until nothing changes.
  let text = reply;
  for (let prev = ''; prev !== text;) {
    prev = text;
    text = removeKeepingNumbersApart(stripThink(text), EMOJI_RE);
    text = stripMarkdown(text, ctx.locale)
      .replace(/[ \t]{2,}/gu, ' ')
      .trim();
  }
  text = truncate(text, ctx.limits.reply_max_chars, ctx.locale);
  if (text === '') return null;
  // Repairs only remove text, so a number in the result that the reply did not state means two numbers
  // were fused somewhere: refuse rather than broadcast a number nobody wrote.
  const stated = new Set(extractNumbers(reply));
  if (extractNumbers(text).some((n) => !stated.has(n))) return null;
  if (hooks !== undefined && runReplyHooks(hooks, { ...ctx, reply: text }).length > 0) return null;
  return text;
}
