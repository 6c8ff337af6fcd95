import { SEEDS, SPLITS, LOCALES, opFrom, cases, expectDisjoint, expectOracleScoresOne } from './kit.js';
import { describe, expect, it } from 'vitest';
import type { Locale, Split, Task } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { LIMIT_RANGES } from '../../protocol/harness.js';
import { charLength, extractNumbers } from '../../protocol/text.js';
import { embeddedHarness, loadBaseHarness } from '../../harness/index.js';
import type { BlockWording as BlockParaphrase } from '../../harness/index.js';
import { buildVariant } from '../../harness-variants/index.js';
import type { BuiltVariant, HarnessTransform } from '../../harness-variants/index.js';
import { HEADER_STYLES, PROMPT_OPS, replyLimitPool, turnLimitPool } from '../../harness-variants/ops/prompt.js';
import {
  IRRELEVANT_CONTEXT,
  ITEM_STYLES,
  MESSAGE_PREFIXES,
  MESSAGE_SUFFIXES,
  MESSAGE_TAILS,
  MESSAGE_TYPOS,
  SEPARATORS,
} from '../../harness-variants/ops/pools-prompt.js';
import type { SplitPool } from '../../harness-variants/ops/kit.js';
import { generateTask } from '../../env/tasks/index.js';
import { renderSystemPrompt } from '../../env/prompt.js';
import { worldFor } from '../../mock-services/index.js';

const op = (name: string): HarnessTransform => opFrom(PROMPT_OPS, name);

/** The embedded harness's block paraphrases (harness/paraphrases.yaml `blocks`), in the shape of the table they replaced. */
const BLOCK_PARAPHRASES: Record<string, Record<Locale, SplitPool<BlockParaphrase>>> = {};
for (const [id, byLocale] of Object.entries(embeddedHarness().paraphrases?.blocks ?? {})) {
  if (byLocale['zh-CN'] && byLocale.en) BLOCK_PARAPHRASES[id] = { 'zh-CN': byLocale['zh-CN'], en: byLocale.en };
}

function build(o: HarnessTransform, seed: number, locale: Locale, split: Split): { v: BuiltVariant; base: Harness; task: Task } {
  const base = loadBaseHarness(locale);
  const task = generateTask(seed, locale);
  return { v: buildVariant(base, { families: ['prompt'], intensity: 1, split }, seed, task, [o]), base, task };
}

function prompt(h: Harness, task: Task): string {
  return renderSystemPrompt(h, worldFor(task.world_seed, task.locale), task);
}

function half<T>(pool: SplitPool<T>, split: Split): readonly T[] {
  return split === 'eval' ? pool.eval : pool.train;
}

/** Titles and spec words of a task's world that its message names. */
function factsNamed(task: Task): string[] {
  const world = worldFor(task.world_seed, task.locale);
  const text = task.messages.join('\n');
  const out: string[] = [];
  for (const p of world.products) {
    for (const f of [p.title, p.brand, ...p.skus.map((k) => k.spec_text), ...p.skus.flatMap((k) => k.spec_text.split(' '))]) {
      if (f && text.includes(f)) out.push(f);
    }
  }
  return out;
}

describe.each(PROMPT_OPS.map((o) => [o.name, o] as const))('%s alone at intensity 1', (_name, o) => {
  it.each(SPLITS.flatMap((split) => LOCALES.map((locale) => [split, locale] as const)))(
    'the oracle scores exactly 1 (%s, %s)',
    (split, locale) => expectOracleScoresOne(o, split, locale),
  );

  it('is deterministic, changes what the policy sees and leaves names and history alone', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base, task } = build(o, seed, locale, split);
      const again = build(o, seed, locale, split).v;
      expect(v.applied).toEqual([o.name]);
      expect(JSON.stringify([v.harness, v.tables, v.task])).toBe(JSON.stringify([again.harness, again.tables, again.task]));
      const seen = (h: Harness, t: Task): string => prompt(h, t) + '\n' + t.messages.join('\n');
      expect(seen(v.harness, v.task)).not.toBe(seen(base, task));
      expect(v.task.history).toEqual(task.history);
      expect(v.task.answer_key).toEqual(task.answer_key);
      expect(v.harness.skills).toEqual(base.skills);
      expect(v.harness.tools).toEqual(base.tools);
      expect(v.harness.hooks).toEqual(base.hooks);
      // Block ids are what other operators and the renderer rely on.
      expect(v.harness.prompt.blocks.map((b) => b.id).sort()).toEqual(base.prompt.blocks.map((b) => b.id).sort());
    }
  });
});

describe('prompt styles', () => {
  it('header, separator and item styles come from their split and are never the base style', () => {
    for (const { seed, locale, split } of cases()) {
      const h = build(op('prompt.header.style'), seed, locale, split).v.harness.prompt;
      expect(half(HEADER_STYLES, split)).toContain(h.header_style);
      const s = build(op('prompt.separator'), seed, locale, split);
      expect(half(SEPARATORS, split)).toContain(s.v.harness.prompt.separator);
      expect(s.v.harness.prompt.separator).not.toBe(s.base.prompt.separator);
      const i = build(op('prompt.items.style'), seed, locale, split);
      expect(half(ITEM_STYLES, split)).toContain(i.v.harness.prompt.item_style);
      expect(i.v.harness.prompt.item_style).not.toBe(i.base.prompt.item_style);
    }
  });
});

describe('prompt order', () => {
  it('blocks.shuffle permutes the same blocks', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('prompt.blocks.shuffle'), seed, locale, split);
      expect(v.harness.prompt.blocks.map((b) => b.id)).not.toEqual(base.prompt.blocks.map((b) => b.id));
      expect([...v.harness.prompt.blocks].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        [...base.prompt.blocks].sort((a, b) => a.id.localeCompare(b.id)),
      );
    }
  });

  it('items.shuffle permutes items within their own block', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('prompt.items.shuffle'), seed, locale, split);
      let moved = 0;
      v.harness.prompt.blocks.forEach((b, i) => {
        const before = base.prompt.blocks[i];
        expect(b.id).toBe(before.id);
        expect([...b.items].sort()).toEqual([...before.items].sort());
        if (b.items.join('\n') !== before.items.join('\n')) moved++;
      });
      expect(moved).toBeGreaterThan(0);
    }
  });
});

describe('prompt.instructions.paraphrase', () => {
  it('keeps every placeholder and tool name, draws text from its split, and states the limits', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base, task } = build(op('prompt.instructions.paraphrase'), seed, locale, split);
      let changed = 0;
      for (const b of v.harness.prompt.blocks) {
        const before = base.prompt.blocks.find((x) => x.id === b.id);
        if (!before) throw new Error(b.id);
        const ph = (t: string): string[] => [...t.matchAll(/\{\{\w+\}\}/g)].map((m) => m[0]).sort();
        expect(ph(b.template + b.items.join(''))).toEqual(ph(before.template + before.items.join('')));
        for (const tool of ['load_skill']) {
          if ((before.template + before.items.join('')).includes(tool)) expect(b.template + b.items.join('')).toContain(tool);
        }
        expect(b.items.length).toBe(before.items.length);
        if (b.title !== before.title) {
          changed++;
          const titles = half(BLOCK_PARAPHRASES[b.id][locale], split).map((p) => p.title);
          expect(titles).toContain(b.title);
        }
      }
      expect(changed).toBeGreaterThan(0);
      const text = prompt(v.harness, v.task);
      expect(extractNumbers(text)).toContain(v.harness.limits.reply_max_chars);
      expect(extractNumbers(text)).toContain(v.harness.limits.max_turns);
      expect(text).not.toBe(prompt(base, task));
    }
  });

  it('paraphrases carry no digits and keep the anchors of the base text they replace', () => {
    for (const locale of LOCALES) {
      const base = loadBaseHarness(locale);
      for (const [id, byLocale] of Object.entries(BLOCK_PARAPHRASES)) {
        const before = base.prompt.blocks.find((b) => b.id === id);
        if (!before) throw new Error(id);
        for (const alt of [...byLocale[locale].train, ...byLocale[locale].eval]) {
          const text = `${alt.title ?? ''}${alt.template ?? ''}${(alt.items ?? []).join('')}`;
          expect(text).not.toMatch(/\d/);
          if (alt.template !== undefined) {
            for (const m of before.template.matchAll(/\{\{\w+\}\}/g)) expect(alt.template).toContain(m[0]);
            if (before.template.includes('load_skill')) expect(alt.template).toContain('load_skill');
          }
          if (alt.items !== undefined) {
            expect(alt.items.length).toBe(before.items.length);
            for (const m of before.items.join('').matchAll(/\{\{\w+\}\}/g)) expect(alt.items.join('')).toContain(m[0]);
            if (before.items.join('').includes('load_skill')) expect(alt.items.join('')).toContain('load_skill');
          }
        }
      }
    }
  });
});

describe('prompt.limits', () => {
  it('moves limits within range, never below the reference reply + 10, and the prompt states them', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base, task } = build(op('prompt.limits'), seed, locale, split);
      const { reply_max_chars: r, max_turns: t } = v.harness.limits;
      expect(r).not.toBe(base.limits.reply_max_chars);
      expect(r).toBeGreaterThanOrEqual(LIMIT_RANGES.reply_max_chars.min);
      expect(r).toBeLessThanOrEqual(LIMIT_RANGES.reply_max_chars.max);
      expect(r).toBeGreaterThanOrEqual(charLength(task.answer_key.reference_reply) + 10);
      expect(t).toBeGreaterThanOrEqual(LIMIT_RANGES.max_turns.min);
      expect(t).toBeLessThanOrEqual(LIMIT_RANGES.max_turns.max);
      expect(r % 10).toBe(split === 'train' ? 0 : 5);
      if (t !== base.limits.max_turns) expect(t % 2).toBe(split === 'train' ? 0 : 1);
      const text = prompt(v.harness, v.task);
      const rule = v.harness.prompt.blocks.find((b) => b.id === 'output_rules');
      expect(rule?.items.some((i) => i.includes('{{reply_max_chars}}'))).toBe(true);
      expect(text).toContain(locale === 'en' ? `at most ${r} characters` : `不超过${r}个字`);
      expect(text).toContain(locale === 'en' ? `at most ${t} steps` : `最多${t}步`);
    }
  });

  it('leaves room for a required ending that the hooks already demand', () => {
    const base = loadBaseHarness('zh-CN');
    const ending = '，喜欢的宝宝冲呀';
    const withEnding: Harness = {
      ...base,
      hooks: base.hooks.map((h) => (h.id === 'output_constraints' ? { ...h, enabled: true, params: { required_ending: ending } } : h)),
    };
    for (let seed = 0; seed < SEEDS; seed++) {
      const task = generateTask(seed, 'zh-CN');
      const v = buildVariant(withEnding, { families: ['prompt'], intensity: 1, split: 'eval' }, seed, task, [op('prompt.limits')]);
      expect(v.harness.limits.reply_max_chars).toBeGreaterThanOrEqual(
        charLength(task.answer_key.reference_reply) + 10 + charLength(ending),
      );
    }
  });

  it('the split pools are disjoint', () => {
    expect(replyLimitPool('train', 0).filter((x) => replyLimitPool('eval', 0).includes(x))).toEqual([]);
    expect(turnLimitPool('train').filter((x) => turnLimitPool('eval').includes(x))).toEqual([]);
    expect(replyLimitPool('eval', 0).length).toBeGreaterThan(5);
  });
});

describe('prompt.context.irrelevant', () => {
  it('appends 1-3 paragraphs of its split and locale, with no digits', () => {
    for (const { seed, locale, split } of cases()) {
      const { v } = build(op('prompt.context.irrelevant'), seed, locale, split);
      const extra = v.harness.prompt.extra_context;
      expect(extra.length).toBeGreaterThanOrEqual(1);
      expect(extra.length).toBeLessThanOrEqual(3);
      for (const p of extra) {
        expect(half(IRRELEVANT_CONTEXT[locale], split)).toContain(p);
        expect(p).not.toMatch(/\d/);
        expect(p).not.toMatch(/价|券|元|price|coupon|yuan|discount/i);
      }
    }
  });
});

describe('viewer message operators', () => {
  it.each([['prompt.message.typos'], ['prompt.message.paraphrase']])(
    '%s keeps every number, title and spec word of the message',
    (name) => {
      for (const { seed, locale, split } of cases()) {
        const { v, task } = build(op(name), seed, locale, split);
        expect(v.task.messages.length).toBe(task.messages.length);
        expect(v.task.messages).not.toEqual(task.messages);
        const before = task.messages.join('\n');
        const after = v.task.messages.join('\n');
        expect(extractNumbers(after)).toEqual(extractNumbers(before));
        for (const f of factsNamed(task)) expect(after).toContain(f);
        for (const m of v.task.messages) expect(m).not.toContain('\n');
      }
    },
  );

  it('typos come from the split and locale pool (or a trailing flourish)', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, task } = build(op('prompt.message.typos'), seed, locale, split);
      const typos = half(MESSAGE_TYPOS[locale], split);
      const tails = half(MESSAGE_TAILS[locale], split);
      v.task.messages.forEach((m, i) => {
        const orig = task.messages[i];
        if (m === orig) return;
        const tail = tails.find((t) => m === orig + t);
        if (tail) return;
        expect(typos.some((t) => m.includes(t.to))).toBe(true);
      });
    }
  });

  it('paraphrase adds a prefix and/or suffix of its split and locale around the original words', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, task } = build(op('prompt.message.paraphrase'), seed, locale, split);
      const prefixes = half(MESSAGE_PREFIXES[locale], split);
      const suffixes = half(MESSAGE_SUFFIXES[locale], split);
      v.task.messages.forEach((m, i) => {
        const orig = task.messages[i];
        expect(m).toContain(orig);
        const [pre, post] = [m.slice(0, m.indexOf(orig)), m.slice(m.indexOf(orig) + orig.length)];
        if (pre) expect(prefixes).toContain(pre);
        if (post) expect(suffixes.some((s) => post.endsWith(s) && post.length - s.length <= 1)).toBe(true);
      });
    }
  });

  it('never misspells a product title or spec word of any generated world', () => {
    const typos = LOCALES.flatMap((l) => [...MESSAGE_TYPOS[l].train, ...MESSAGE_TYPOS[l].eval].map((t) => [l, t.from] as const));
    for (let seed = 0; seed < 60; seed++) {
      for (const [locale, from] of typos) {
        const world = worldFor(seed, locale);
        const re = /^[A-Za-z']+$/.test(from) ? new RegExp(`(?<![A-Za-z0-9'])${from}(?![A-Za-z0-9'])`) : null;
        for (const p of world.products) {
          for (const text of [p.title, p.brand, ...p.skus.map((k) => k.spec_text)]) {
            expect(re ? re.test(text) : text.includes(from)).toBe(false);
          }
        }
      }
    }
  });
});

describe('prompt pools', () => {
  it('train and eval halves are disjoint for every pool', () => {
    expectDisjoint(HEADER_STYLES);
    expectDisjoint(SEPARATORS);
    expectDisjoint(ITEM_STYLES);
    for (const byLocale of Object.values(BLOCK_PARAPHRASES)) {
      for (const pool of Object.values(byLocale)) {
        // Each part separately: a title, a template or a rule list is never shared by the two halves.
        const parts = (p: BlockParaphrase): string[] => [
          `t:${p.title ?? ''}`,
          ...(p.template === undefined ? [] : [`p:${p.template}`]),
          ...(p.items ?? []).map((i) => `i:${i}`),
        ];
        const train = new Set(pool.train.flatMap(parts));
        expect(pool.eval.flatMap(parts).filter((x) => train.has(x))).toEqual([]);
      }
    }
    for (const table of [IRRELEVANT_CONTEXT, MESSAGE_PREFIXES, MESSAGE_SUFFIXES, MESSAGE_TAILS])
      for (const pool of Object.values(table)) expectDisjoint(pool);
    for (const pool of Object.values(MESSAGE_TYPOS)) expectDisjoint(pool, undefined, (t) => `${t.from}->${t.to}`);
  });

  it('message fillers and typos add no digits', () => {
    for (const table of [MESSAGE_PREFIXES, MESSAGE_SUFFIXES, MESSAGE_TAILS]) {
      for (const pool of Object.values(table)) for (const s of [...pool.train, ...pool.eval]) expect(s).not.toMatch(/\d/);
    }
    for (const pool of Object.values(MESSAGE_TYPOS)) for (const t of [...pool.train, ...pool.eval]) expect(t.from + t.to).not.toMatch(/\d/);
  });
});
