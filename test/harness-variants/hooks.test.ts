import { SEEDS, SPLITS, LOCALES, opFrom, cases, expectDisjoint, expectOracleScoresOne } from './kit.js';
import { describe, expect, it } from 'vitest';
import type { HookViolation, Locale, Split } from '../../protocol/domain.js';
import type { Harness, HookSpec } from '../../protocol/harness.js';
import { LIMIT_RANGES } from '../../protocol/harness.js';
import { charLength, extractNumbers, normalizeForMatch } from '../../protocol/text.js';
import { loadBaseHarness } from '../../harness/index.js';
import { buildVariant } from '../../harness-variants/index.js';
import type { BuiltVariant, HarnessTransform, VariantSpec } from '../../harness-variants/index.js';
import { HOOK_OPS, REPLY_LIMIT_SLACK } from '../../harness-variants/ops/hooks.js';
import {
  ENDING_STATEMENTS,
  FEEDBACK_STYLES,
  FORBIDDEN_STATEMENTS,
  FORBIDDEN_WORDS,
  LANGUAGE_STATEMENTS,
  REQUIRED_ENDINGS,
  TOGGLEABLE_CHECKS,
} from '../../harness-variants/ops/pools-hooks.js';
import { feedbackMessage, generateTask, runReplyHooks } from '../../env/index.js';
import { renderSystemPrompt } from '../../env/prompt.js';
import { worldFor } from '../../mock-services/index.js';
import { memorizerPolicy, oraclePolicy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';

const op = (name: string): HarnessTransform => opFrom(HOOK_OPS, name);

function spec(split: Split): VariantSpec {
  return { families: ['hooks'], intensity: 1, split };
}

function build(ops: HarnessTransform | HarnessTransform[], seed: number, locale: Locale, split: Split): BuiltVariant {
  return buildVariant(loadBaseHarness(locale), spec(split), seed, generateTask(seed, locale), Array.isArray(ops) ? ops : [ops]);
}

function hook(h: Harness, id: string): HookSpec {
  const found = h.hooks.find((x) => x.id === id);
  if (!found) throw new Error(`no hook ${id}`);
  return found;
}

function promptOf(v: BuiltVariant, seed: number, locale: Locale): string {
  const task = generateTask(seed, locale);
  return renderSystemPrompt(v.harness, worldFor(task.world_seed, locale), task);
}

function outputRules(h: Harness): string[] {
  return h.prompt.blocks.find((b) => b.id === 'output_rules')?.items ?? [];
}

/** Per operator: whether its effect shows on the built variant (compared with the base harness). */
const EFFECTS: Record<string, (v: BuiltVariant, base: Harness) => boolean> = {
  'hooks.feedback.style': (v, b) => v.harness.retry.feedback_style !== b.retry.feedback_style,
  'hooks.feedback.locale': (v, b) => v.harness.retry.feedback_locale !== b.retry.feedback_locale,
  'hooks.retry.count': (v, b) => v.harness.retry.max_retries !== b.retry.max_retries,
  'hooks.retry.mode': (v, b) => v.harness.retry.mode !== b.retry.mode,
  'hooks.checks.toggle': (v, b) => JSON.stringify(v.harness.hooks) !== JSON.stringify(b.hooks),
  'hooks.checks.order': (v, b) => v.harness.hooks.map((h) => h.id).join() !== b.hooks.map((h) => h.id).join(),
  'hooks.constraint.forbidden_words': (v) =>
    hook(v.harness, 'output_constraints').enabled && Array.isArray(hook(v.harness, 'output_constraints').params.forbidden_words),
  'hooks.constraint.ending': (v) =>
    hook(v.harness, 'output_constraints').enabled && typeof hook(v.harness, 'output_constraints').params.required_ending === 'string',
  'hooks.constraint.language': (v) =>
    hook(v.harness, 'output_constraints').enabled && typeof hook(v.harness, 'output_constraints').params.language === 'string',
};

describe('hook operators: registry', () => {
  it('has the nine hook operators, each with an effect check, in the hooks family', () => {
    expect(HOOK_OPS.map((o) => o.name).sort()).toEqual(Object.keys(EFFECTS).sort());
    for (const o of HOOK_OPS) expect(o.family).toBe('hooks');
  });
});

describe.each(HOOK_OPS.map((o) => [o.name, o] as const))('%s', (name, o) => {
  it('keeps the oracle at exactly 1 alone at intensity 1 (both splits, both locales)', () => {
    for (const split of SPLITS) for (const locale of LOCALES) expectOracleScoresOne(o, split, locale);
  });

  it('is deterministic and visible on every seed; tools, skills and task are untouched', () => {
    for (const { seed, locale, split } of cases()) {
      const a = build(o, seed, locale, split);
      const b = build(o, seed, locale, split);
      expect(JSON.stringify([a.harness, a.tables, a.task])).toBe(JSON.stringify([b.harness, b.tables, b.task]));
      expect(a.applied).toEqual([name]);
      const base = loadBaseHarness(locale);
      expect(EFFECTS[name](a, base), `${split}/${locale}/${seed}`).toBe(true);
      expect(a.harness.tools).toEqual(base.tools);
      expect(a.harness.skills).toEqual(base.skills);
      expect(a.task).toEqual(generateTask(seed, locale));
    }
  });

  it('keeps the essential checks on and the limits in range and stated', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(o, seed, locale, split);
      for (const id of ['tool_args', 'skill_required', 'prohibited_phrases', 'factual_risk', 'reply_format'])
        expect(hook(v.harness, id).enabled, id).toBe(true);
      expect(hook(v.harness, 'reply_format').params.checks).toEqual(expect.arrayContaining(['TOO_LONG', 'EMPTY_REPLY']));
      const { reply_max_chars, max_turns } = v.harness.limits;
      expect(reply_max_chars).toBeGreaterThanOrEqual(LIMIT_RANGES.reply_max_chars.min);
      expect(reply_max_chars).toBeLessThanOrEqual(LIMIT_RANGES.reply_max_chars.max);
      expect(max_turns).toBeGreaterThanOrEqual(LIMIT_RANGES.max_turns.min);
      expect(max_turns).toBeLessThanOrEqual(LIMIT_RANGES.max_turns.max);
      const numbers = extractNumbers(promptOf(v, seed, locale));
      expect(numbers).toContain(reply_max_chars);
      expect(numbers).toContain(max_turns);
    }
  });
});

describe('hook operators: invariants', () => {
  it('feedback.style picks a style of the split other than the current one', () => {
    for (const { seed, locale, split } of cases()) {
      const style = build(op('hooks.feedback.style'), seed, locale, split).harness.retry.feedback_style;
      expect(FEEDBACK_STYLES[split]).toContain(style);
    }
  });

  it('feedback.locale gives feedback in the other language, templates included', () => {
    const violation: HookViolation = { hook: 'reply_format', code: 'TOO_LONG', message: '', evidence: '130/120' };
    for (const locale of LOCALES) {
      const v = build(op('hooks.feedback.locale'), 4, locale, 'train');
      const other: Locale = locale === 'en' ? 'zh-CN' : 'en';
      expect(v.harness.retry.feedback_locale).toBe(other);
      expect(v.harness.retry.templates).toEqual(loadBaseHarness(other).retry.templates);
      const text = feedbackMessage(v.harness.retry, [violation]);
      expect(/\p{Script=Han}/u.test(text)).toBe(other === 'zh-CN');
      expect(text).toBe(feedbackMessage(loadBaseHarness(other).retry, [violation]));
    }
  });

  it('retry.count stays in 0..2; retry.mode flips block to auto_correct', () => {
    for (const { seed, locale, split } of cases()) {
      const n = build(op('hooks.retry.count'), seed, locale, split).harness.retry.max_retries;
      expect([0, 2]).toContain(n);
      expect(build(op('hooks.retry.mode'), seed, locale, split).harness.retry.mode).toBe('auto_correct');
    }
  });

  it('checks.toggle only switches off checks of its split pool', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('hooks.checks.toggle'), seed, locale, split);
      const base = loadBaseHarness(locale);
      const off: string[] = [];
      for (const h of base.hooks) {
        const now = hook(v.harness, h.id);
        if (h.enabled && !now.enabled) off.push(h.id);
        if (h.id === 'reply_format') {
          for (const c of h.params.checks as string[]) if (!(now.params.checks as string[]).includes(c)) off.push(`reply_format:${c}`);
        }
      }
      expect(off.length).toBeGreaterThanOrEqual(1);
      expect(off.length).toBeLessThanOrEqual(2);
      for (const k of off) expect(TOGGLEABLE_CHECKS[split]).toContain(k);
    }
  });

  it('checks.order permutes only the reply hooks', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('hooks.checks.order'), seed, locale, split);
      const base = loadBaseHarness(locale);
      base.hooks.forEach((h, i) => {
        if (h.stage !== 'reply') expect(v.harness.hooks[i]).toEqual(h);
        else expect(v.harness.hooks[i].stage).toBe('reply');
      });
      expect(v.harness.hooks.map((h) => h.id).sort()).toEqual(base.hooks.map((h) => h.id).sort());
    }
  });

  it('forbidden_words: pool words the reference reply never says, stated in the prompt; the reference passes', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('hooks.constraint.forbidden_words'), seed, locale, split);
      const words = hook(v.harness, 'output_constraints').params.forbidden_words as string[];
      expect(words.length).toBeGreaterThanOrEqual(1);
      expect(words.length).toBeLessThanOrEqual(2);
      const ref = v.task.answer_key.reference_reply;
      for (const w of words) {
        expect(FORBIDDEN_WORDS[locale][split]).toContain(w);
        expect(normalizeForMatch(ref).includes(normalizeForMatch(w))).toBe(false);
        expect(promptOf(v, seed, locale)).toContain(w);
      }
      const stated = outputRules(v.harness).at(-1) as string;
      expect(FORBIDDEN_STATEMENTS[locale][split].some((t) => stated.startsWith(t.split('{words}')[0]))).toBe(true);
      const checks = runReplyHooks([hook(v.harness, 'output_constraints')], ctxFor(ref, locale, v));
      expect(checks).toEqual([]);
      // The constraint bites: a reply with the word is flagged.
      const bad = runReplyHooks([hook(v.harness, 'output_constraints')], ctxFor(`${ref}${words[0]}`, locale, v));
      expect(bad.map((x) => x.code)).toEqual(['FORBIDDEN_WORD']);
    }
  });

  it('ending: stated, and the limit fits reference + slack + ending', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('hooks.constraint.ending'), seed, locale, split);
      const ending = hook(v.harness, 'output_constraints').params.required_ending as string;
      expect(REQUIRED_ENDINGS[locale][split]).toContain(ending);
      const ref = v.task.answer_key.reference_reply;
      expect(v.harness.limits.reply_max_chars).toBeGreaterThanOrEqual(charLength(ref) + REPLY_LIMIT_SLACK + charLength(ending));
      expect(v.harness.limits.reply_max_chars).toBeGreaterThanOrEqual(loadBaseHarness(locale).limits.reply_max_chars);
      expect(promptOf(v, seed, locale)).toContain(ending);
      expect(outputRules(v.harness)).toContain(
        ENDING_STATEMENTS[locale][split].map((t) => t.replace('{ending}', ending)).find((s) => outputRules(v.harness).includes(s)),
      );
      expect(runReplyHooks([hook(v.harness, 'output_constraints')], ctxFor(ref + ending, locale, v))).toEqual([]);
      expect(runReplyHooks([hook(v.harness, 'output_constraints')], ctxFor(ref, locale, v)).map((x) => x.code)).toEqual(['MISSING_ENDING']);
    }
  });

  it('ending raises a limit that a long reference would not fit, and avoids forbidden words', () => {
    const task = generateTask(9, 'zh-CN');
    const long = { ...task, answer_key: { ...task.answer_key, reference_reply: '这'.repeat(150) } };
    const v = buildVariant(loadBaseHarness('zh-CN'), spec('train'), 9, long, [op('hooks.constraint.ending')]);
    const ending = hook(v.harness, 'output_constraints').params.required_ending as string;
    expect(v.harness.limits.reply_max_chars).toBe(150 + REPLY_LIMIT_SLACK + charLength(ending));
    const tooLong = { ...task, answer_key: { ...task.answer_key, reference_reply: '这'.repeat(188) } };
    const w = buildVariant(loadBaseHarness('zh-CN'), spec('train'), 9, tooLong, [op('hooks.constraint.ending')]);
    expect(hook(w.harness, 'output_constraints').enabled).toBe(false);
    for (let seed = 0; seed < SEEDS; seed++) {
      const both = build([op('hooks.constraint.forbidden_words'), op('hooks.constraint.ending')], seed, 'zh-CN', 'eval');
      const p = hook(both.harness, 'output_constraints').params;
      if (typeof p.required_ending !== 'string') continue;
      for (const word of p.forbidden_words as string[])
        expect(normalizeForMatch(p.required_ending).includes(normalizeForMatch(word))).toBe(false);
    }
  });

  it("language requires the harness's own language and states it", () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('hooks.constraint.language'), seed, locale, split);
      expect(hook(v.harness, 'output_constraints').params.language).toBe(locale);
      expect(LANGUAGE_STATEMENTS[locale][split]).toContain(outputRules(v.harness).at(-1));
    }
  });

  it('the three constraints together keep the oracle at 1 and state three rules', () => {
    const ops = [op('hooks.constraint.forbidden_words'), op('hooks.constraint.ending'), op('hooks.constraint.language')];
    for (const split of SPLITS) {
      for (const locale of LOCALES) {
        const s = evaluate({
          policy: oraclePolicy,
          episodes: SEEDS,
          seed: 7,
          locale,
          variant: spec(split) as unknown as string,
          config: { operators: ops },
        });
        expect(s.reward.mean).toBe(1);
        const v = build(ops, 7, locale, split);
        expect(outputRules(v.harness).length).toBe(outputRules(loadBaseHarness(locale)).length + 3);
      }
    }
  });
});

describe('hook operators: pools', () => {
  it('train and eval halves never share an entry', () => {
    expectDisjoint(FEEDBACK_STYLES, 'feedback styles');
    expectDisjoint(TOGGLEABLE_CHECKS, 'toggleable checks');
    for (const l of LOCALES) {
      expectDisjoint(FORBIDDEN_WORDS[l], `forbidden words ${l}`);
      expectDisjoint(REQUIRED_ENDINGS[l], `endings ${l}`);
      expectDisjoint(FORBIDDEN_STATEMENTS[l], `forbidden statements ${l}`);
      expectDisjoint(ENDING_STATEMENTS[l], `ending statements ${l}`);
      expectDisjoint(LANGUAGE_STATEMENTS[l], `language statements ${l}`);
    }
  });

  it('endings pass every base reply check on their own and carry no digits', () => {
    for (const l of LOCALES) {
      for (const e of [...REQUIRED_ENDINGS[l].train, ...REQUIRED_ENDINGS[l].eval]) {
        expect(extractNumbers(e)).toEqual([]);
        const base = loadBaseHarness(l);
        const found = runReplyHooks(base.hooks, { ...ctxFor(e, l, null), reply_skill_loaded: true });
        expect(found, e).toEqual([]);
      }
    }
  });
});

describe('hook operators: the memorizer notices', () => {
  it('a required ending blocks the base-habit memorizer', () => {
    const s = evaluate({
      policy: memorizerPolicy,
      episodes: 30,
      seed: 1,
      variant: spec('train') as unknown as string,
      config: { operators: [op('hooks.constraint.ending')] },
    });
    expect(s.reward.mean).toBeLessThan(0.5);
  });
});

function ctxFor(reply: string, locale: Locale, v: BuiltVariant | null) {
  return {
    reply,
    locale,
    limits: v?.harness.limits ?? loadBaseHarness(locale).limits,
    evidence_numbers: new Set<number>(),
    reply_skill_loaded: true,
    special_cosmetic_in_scope: false,
    called_tools: new Set<string>(),
  };
}
