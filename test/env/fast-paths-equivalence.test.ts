/**
 * The step path's hand-written fast paths agree with what they replace: the prohibited-phrase search
 * (once `matchAll` per rule and a regex scan for the clause break) and the assistant-message check (once
 * the zod schema alone). Each reference below is the replaced code, kept here as the specification.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HookViolation, Locale } from '../../protocol/domain.js';
import type { HookSpec } from '../../protocol/harness.js';
import { toHalfWidth } from '../../protocol/text.js';
import { loadBaseHarness } from '../../harness/index.js';
import { runReplyHooks } from '../../env/hooks.js';
import type { ReplyHookContext } from '../../env/hooks.js';
import { AssistantMessageSchema, PARSERS } from '../../env/parsers.js';

interface PhraseParams {
  flags: Record<Locale, string>;
  negation: Record<Locale, { pattern: string; window: number }>;
  rules: { code: string; negatable: boolean; unless?: string; patterns: Record<Locale, string[]> }[];
}

/** The replaced search: every rule's first match, in rule order, skipping negated matches of negatable rules. */
function referencePhrases(p: PhraseParams, locale: Locale, reply: string, cosmetic: boolean): [string, string][] {
  const text = toHalfWidth(reply);
  const order: Locale[] = locale === 'en' ? ['en', 'zh-CN'] : ['zh-CN', 'en'];
  const negated = (index: number, l: Locale): boolean => {
    const n = p.negation[l];
    let before = text.slice(Math.max(0, index - n.window), index);
    let last = -1;
    for (const m of before.matchAll(/[,.;!?，。；！？、\n]/g)) last = m.index;
    if (last >= 0) before = before.slice(last + 1);
    return new RegExp(n.pattern, p.flags[l]).test(before);
  };
  const out: [string, string][] = [];
  for (const rule of p.rules) {
    if (rule.unless === 'special_cosmetic_in_scope' && cosmetic) continue;
    let hit: string | null = null;
    for (const l of order.filter((x) => rule.patterns[x].length > 0)) {
      const re = new RegExp(rule.patterns[l].map((s) => `(?:${s})`).join('|'), `g${p.flags[l]}`);
      for (const m of text.matchAll(re)) {
        if (rule.negatable && negated(m.index, l)) continue;
        hit = m[0];
        break;
      }
      if (hit !== null) break;
    }
    if (hit !== null) out.push([rule.code, hit]);
  }
  return out;
}

const base = { 'zh-CN': loadBaseHarness('zh-CN'), en: loadBaseHarness('en') };

function phrasesFound(hooks: readonly HookSpec[], locale: Locale, reply: string, cosmetic: boolean): [string, string][] {
  const ctx: ReplyHookContext = {
    reply,
    locale,
    limits: base[locale].limits,
    evidence_numbers: new Set(),
    reply_skill_loaded: true,
    special_cosmetic_in_scope: cosmetic,
    called_tools: new Set(),
  };
  return runReplyHooks(hooks, ctx)
    .filter((v: HookViolation) => v.hook === 'prohibited_phrases')
    .map((v) => [v.code, v.evidence ?? '']);
}

// Pieces that the base rules and negations match, clause breaks, full-width forms and filler.
const PIECES = [
  '保证',
  '不能保证',
  '包赔',
  '最低价',
  '最近',
  '第一',
  '第一次',
  '绝对',
  '治愈',
  '美白',
  '加我',
  '微信',
  'ＱＱ',
  'QQ',
  '我用过',
  '不会',
  '没法',
  '，',
  '。',
  '！',
  '\n',
  ' ',
  '宝宝',
  '这款',
  '明天到',
  '好',
  '𠮷',
  'best ever',
  'the best',
  "can't",
  'not',
  'guarantee',
  'cure',
  'WeChat',
  'number one',
  '#1',
  'cheapest',
  ', ',
  '. ',
  'ok',
  'we',
];
const replyArb = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { maxLength: 14 }).map((a) => a.join(''));

describe('prohibited-phrase search', () => {
  it('finds what the matchAll search found, on the base hooks, over random replies', () => {
    fc.assert(
      fc.property(replyArb, fc.constantFrom<Locale>('zh-CN', 'en'), fc.boolean(), (reply, locale, cosmetic) => {
        const hooks = base[locale].hooks;
        const params = hooks.find((h) => h.id === 'prohibited_phrases')?.params as unknown as PhraseParams;
        expect(phrasesFound(hooks, locale, reply, cosmetic)).toEqual(referencePhrases(params, locale, reply, cosmetic));
      }),
      { numRuns: 1500 },
    );
  });

  it('steps over negated empty matches by code point under the u flag, and by unit without it', () => {
    const params = (flag: 'i' | 'iu'): PhraseParams => ({
      flags: { 'zh-CN': flag, en: flag },
      negation: { 'zh-CN': { pattern: '不', window: 3 }, en: { pattern: 'no', window: 3 } },
      rules: [{ code: 'ABSOLUTE_TERM', negatable: true, patterns: { 'zh-CN': ['x*', '.x'], en: [] } }],
    });
    const replies = fc.array(fc.constantFrom('不', 'x', '𠮷', 'a', '，', 'no'), { maxLength: 10 }).map((a) => a.join(''));
    fc.assert(
      fc.property(replies, fc.constantFrom<'i' | 'iu'>('i', 'iu'), (reply, flag) => {
        const p = params(flag);
        const hooks = base['zh-CN'].hooks.map((h) =>
          h.id === 'prohibited_phrases' ? { ...h, params: p as unknown as HookSpec['params'] } : h,
        );
        expect(phrasesFound(hooks, 'zh-CN', reply, false)).toEqual(referencePhrases(p, 'zh-CN', reply, false));
      }),
      { numRuns: 800 },
    );
  });
});

describe('assistant-message check', () => {
  it('parses exactly what the schema-checked parse gave, over random and broken messages', () => {
    const text = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.constant('<tool_call>{"name":"get_product","arguments":{"link_no":1}}</tool_call>'),
    );
    const call = fc.record(
      {
        id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(undefined)),
        type: fc.constantFrom(undefined, 'function', 'tool', null),
        function: fc.oneof(
          fc.record(
            {
              name: fc.oneof(fc.constantFrom('get_product', 'load_skill'), fc.integer()),
              arguments: fc.oneof(fc.constant('{"link_no":2}'), fc.string({ maxLength: 6 }), fc.constant({})),
            },
            { requiredKeys: [] },
          ),
          fc.constant(null),
          fc.string(),
        ),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const message = fc.oneof(
      fc.record(
        {
          role: fc.constantFrom('assistant', 'user', undefined),
          content: text,
          reasoning_content: text,
          tool_calls: fc.oneof(fc.constant(undefined), fc.constant(null), fc.array(call, { maxLength: 3 }), fc.constant('x')),
          other: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    let valid = 0;
    fc.assert(
      fc.property(message, fc.constantFrom('auto', 'openai', 'hermes', 'qwen3_xml'), (m, mode) => {
        const parser = PARSERS.get(mode);
        if (!parser) throw new Error(mode);
        const got = parser.parse({ message: m }, 2);
        const checked = AssistantMessageSchema.safeParse(m); // the check before the fast path: the schema alone
        if (checked.success) valid++;
        // With the schema's stripped copy, the parse is the one before the fast path; without, its error.
        const want = checked.success ? parser.parse({ message: checked.data }, 2) : got;
        expect(got).toEqual(want);
        if (!checked.success) expect(got).toMatchObject({ ok: false });
        else expect(JSON.stringify(got)).not.toContain('invalid assistant message');
      }),
      { numRuns: 3000 },
    );
    expect(valid).toBeGreaterThan(100); // the well-formed case is well covered
  });
});
