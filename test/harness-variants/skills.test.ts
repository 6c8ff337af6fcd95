import { SEEDS, SPLITS, LOCALES, opFrom, cases, expectDisjoint, expectOracleScoresOne } from './kit.js';
import { describe, expect, it } from 'vitest';
import type { Locale, Split } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { embeddedHarness, loadBaseHarness } from '../../harness/index.js';
import { buildVariant } from '../../harness-variants/index.js';
import type { BuiltVariant, HarnessTransform } from '../../harness-variants/index.js';
import { SKILL_OPS } from '../../harness-variants/ops/skills.js';
import {
  CASE_STYLES,
  DISTRACTOR_SKILLS,
  NEAR_DUPLICATE_PATTERNS,
  NUMBERING_STYLES,
  OPAQUE_PREFIXES,
  RULE_FORMATS,
} from '../../harness-variants/ops/pools-skills.js';
import type { SplitPool } from '../../harness-variants/ops/kit.js';
import { generateTask } from '../../env/tasks/index.js';
import { renderSystemPrompt } from '../../env/prompt.js';
import { worldFor } from '../../mock-services/index.js';

const CANONICAL = loadBaseHarness('zh-CN').skills.map((s) => s.name);

/** The embedded harness's wordings (harness/paraphrases.yaml), in the shape of the tables they replaced. */
function wordings<W, T>(table: Readonly<Record<string, W>>, get: (w: W) => T | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, w] of Object.entries(table)) {
    const x = get(w);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

const SKILL_WORDINGS = embeddedHarness().paraphrases?.skills ?? {};
const SKILL_SYNONYMS: Record<string, SplitPool<string>> = wordings(SKILL_WORDINGS, (w) => w.synonyms);
const SKILL_LOCALE_NAMES: Record<string, SplitPool<string>> = wordings(SKILL_WORDINGS, (w) => w.locale_names);
const SKILL_DESCRIPTIONS: Record<string, Record<Locale, SplitPool<string>>> = wordings(SKILL_WORDINGS, (w) =>
  w.description?.['zh-CN'] && w.description.en ? { 'zh-CN': w.description['zh-CN'], en: w.description.en } : undefined,
);

const op = (name: string): HarnessTransform => opFrom(SKILL_OPS, name);

/** Build `op` alone at full intensity for seed `seed`. */
function build(o: HarnessTransform, seed: number, locale: Locale, split: Split): { v: BuiltVariant; base: Harness } {
  const base = loadBaseHarness(locale);
  const task = generateTask(seed, locale);
  return { v: buildVariant(base, { families: ['skills'], intensity: 1, split }, seed, task, [o]), base };
}

/** Every (seed, locale, split) combination a check runs over. */

const RULE_LINE = /^(?:[-•*·→+] |\d+(?:\. |\) |）|、)|\(\d+\) |（\d+）|\[\d+\] |第\d+条：|规则\d+：|Rule \d+: |Step \d+: )(.*)$/;

function ruleTexts(body: string): string[] {
  return body
    .split('\n')
    .map((l) => RULE_LINE.exec(l)?.[1])
    .filter((x): x is string => x !== undefined);
}

function nonRuleLines(body: string): string[] {
  return body.split('\n').filter((l) => !RULE_LINE.test(l));
}

describe.each(SKILL_OPS.map((o) => [o.name, o] as const))('%s alone at intensity 1', (_name, o) => {
  it.each(SPLITS.flatMap((split) => LOCALES.map((locale) => [split, locale] as const)))(
    'the oracle scores exactly 1 (%s, %s)',
    (split, locale) => expectOracleScoresOne(o, split, locale),
  );

  it('is deterministic and always applies', () => {
    for (const { seed, locale, split } of cases()) {
      const a = build(o, seed, locale, split).v;
      const b = build(o, seed, locale, split).v;
      expect(a.applied).toEqual([o.name]);
      expect(JSON.stringify([a.harness, a.tables, a.task])).toBe(JSON.stringify([b.harness, b.tables, b.task]));
    }
  });

  it('changes the harness the policy sees, and keeps every skill the task needs', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(o, seed, locale, split);
      expect(JSON.stringify(v.harness.skills) !== JSON.stringify(base.skills) || v.harness.prompt.skills_disclosure === 'inline').toBe(
        true,
      );
      const key = generateTask(seed, locale).answer_key;
      for (const s of [...key.reply_skills, ...key.strategy_skills]) {
        const surface = v.map.skillToSurface(s);
        expect(surface).toBeDefined();
        expect(v.harness.skills.some((x) => x.name === surface)).toBe(true);
      }
      // Renames round-trip and never reuse a canonical name for another skill.
      for (const [c, s] of Object.entries(v.tables.skills)) {
        expect(v.map.skillToCanonical(s)).toBe(c);
        expect(CANONICAL.includes(s)).toBe(false);
      }
      // Skill names stay unique (a decoy never shadows a real skill).
      const names = v.harness.skills.map((s) => s.name);
      expect(new Set(names).size).toBe(names.length);
      // The message and the limits are never a skill operator's business.
      expect(v.task.messages).toEqual(generateTask(seed, locale).messages);
      expect(v.harness.limits).toEqual(base.limits);
    }
  });
});

describe('skill renames', () => {
  it('semantic, opaque, locale and case names come from their own split and style', () => {
    for (const { seed, locale, split } of cases()) {
      const sem = build(op('skills.rename.semantic'), seed, locale, split).v.tables.skills;
      expect(Object.keys(sem).length).toBeGreaterThan(0);
      for (const [c, s] of Object.entries(sem)) expect(split === 'eval' ? SKILL_SYNONYMS[c].eval : SKILL_SYNONYMS[c].train).toContain(s);

      const opq = build(op('skills.rename.opaque'), seed, locale, split).v.tables.skills;
      expect(Object.keys(opq).length).toBeGreaterThan(0);
      const prefixes = split === 'eval' ? OPAQUE_PREFIXES.eval : OPAQUE_PREFIXES.train;
      for (const s of Object.values(opq)) expect(prefixes.some((p) => new RegExp(`^${p}[0-9a-f]{6}$`).test(s))).toBe(true);

      const loc = build(op('skills.rename.locale'), seed, locale, split).v.tables.skills;
      expect(Object.keys(loc).length).toBeGreaterThan(0);
      for (const [c, s] of Object.entries(loc))
        expect(split === 'eval' ? SKILL_LOCALE_NAMES[c].eval : SKILL_LOCALE_NAMES[c].train).toContain(s);

      const cas = build(op('skills.rename.case'), seed, locale, split).v.tables.skills;
      expect(Object.keys(cas).length).toBeGreaterThan(0);
      for (const [c, s] of Object.entries(cas)) {
        expect(s).not.toBe(c);
        // Same words, other separators or capitals.
        expect(s.replace(/[-_.]/g, '').toLowerCase()).toBe(c.replace(/-/g, ''));
      }
    }
  });

  it('an opaque or renamed skill keeps its description, and the prompt names it by its new name only', () => {
    const { v } = build(op('skills.rename.opaque'), 3, 'zh-CN', 'train');
    const task = generateTask(3, 'zh-CN');
    const prompt = renderSystemPrompt(v.harness, worldFor(task.world_seed, 'zh-CN'), v.task);
    const base = loadBaseHarness('zh-CN');
    for (const [c, s] of Object.entries(v.tables.skills)) {
      const skill = v.harness.skills.find((x) => x.name === s);
      expect(skill?.description).toBe(base.skills.find((x) => x.name === c)?.description);
      expect(prompt).toContain(`${s}: `);
      expect(prompt).not.toContain(`${c}: `);
    }
  });
});

describe('skills.describe.paraphrase', () => {
  it('draws descriptions from its split and locale, for known skills only', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.describe.paraphrase'), seed, locale, split);
      let changed = 0;
      for (const s of v.harness.skills) {
        const before = base.skills.find((x) => x.name === s.name)?.description;
        if (s.description === before) continue;
        changed++;
        const pool = SKILL_DESCRIPTIONS[s.name][locale];
        expect(split === 'eval' ? pool.eval : pool.train).toContain(s.description);
        expect(s.description).not.toMatch(/\d/);
      }
      expect(changed).toBeGreaterThan(0);
    }
  });
});

describe('skill rule layout', () => {
  it('rules.shuffle reorders rules but keeps the same rules, title and example in place', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.rules.shuffle'), seed, locale, split);
      let reordered = 0;
      for (const s of v.harness.skills) {
        const b = base.skills.find((x) => x.name === s.name);
        if (!b) continue;
        expect([...ruleTexts(s.body)].sort()).toEqual([...ruleTexts(b.body)].sort());
        expect(nonRuleLines(s.body)).toEqual(nonRuleLines(b.body));
        if (s.body !== b.body) reordered++;
      }
      expect(reordered).toBeGreaterThan(0);
    }
  });

  it('rules.numbering numbers rules 1..n in one style of its split, text unchanged', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.rules.numbering'), seed, locale, split);
      const styles = split === 'eval' ? NUMBERING_STYLES[locale].eval : NUMBERING_STYLES[locale].train;
      let numbered = 0;
      for (const s of v.harness.skills) {
        const b = base.skills.find((x) => x.name === s.name);
        if (!b || s.body === b.body) continue;
        numbered++;
        expect(ruleTexts(s.body)).toEqual(ruleTexts(b.body));
        const lines = s.body.split('\n').filter((l) => RULE_LINE.test(l));
        const style = styles.find((st) => lines[0].startsWith(st.replace('{n}', '1')));
        expect(style).toBeDefined();
        lines.forEach((l, i) => expect(l.startsWith((style as string).replace('{n}', String(i + 1)))).toBe(true));
      }
      expect(numbered).toBeGreaterThan(0);
    }
  });

  it('rules.format rewrites markers or turns rules into prose without losing a rule', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.rules.format'), seed, locale, split);
      const formats = split === 'eval' ? RULE_FORMATS.eval : RULE_FORMATS.train;
      let changed = 0;
      for (const s of v.harness.skills) {
        const b = base.skills.find((x) => x.name === s.name);
        if (!b || s.body === b.body) continue;
        changed++;
        const marked = s.body.split('\n').filter((l) => RULE_LINE.test(l));
        if (marked.length > 0) {
          expect(formats.some((f) => marked.every((l) => l.startsWith(f)))).toBe(true);
        } else {
          // Prose: every rule's words are still in the body, title and example kept.
          for (const r of ruleTexts(b.body)) expect(s.body).toContain(r.replace(/[。.；;]$/, ''));
          expect(s.body.split('\n')[0]).toBe(b.body.split('\n')[0]);
          expect(s.body.split('\n').at(-1)).toBe(b.body.split('\n').at(-1));
        }
      }
      expect(changed).toBeGreaterThan(0);
    }
  });
});

describe('decoy skills', () => {
  it('distractors add 1-3 strategy skills from the split, never a canonical name, with no map entry', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.distractor'), seed, locale, split);
      const added = v.harness.skills.filter((s) => !base.skills.some((b) => b.name === s.name));
      expect(added.length).toBeGreaterThanOrEqual(1);
      expect(added.length).toBeLessThanOrEqual(3);
      const pool = (split === 'eval' ? DISTRACTOR_SKILLS.eval : DISTRACTOR_SKILLS.train).map((d) => d.name);
      for (const s of added) {
        expect(pool).toContain(s.name);
        expect(s.kind).toBe('strategy');
        expect(CANONICAL).not.toContain(s.name);
        expect(v.map.skillToCanonical(s.name)).toBeUndefined();
        // Written in the harness's language.
        expect(/\p{Script=Han}/u.test(s.description)).toBe(locale === 'zh-CN');
      }
    }
  });

  it('a near-duplicate looks like a reply skill, says it is disabled and points to the real one', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.near_duplicate'), seed, locale, split);
      const added = v.harness.skills.filter((s) => !base.skills.some((b) => b.name === s.name));
      expect(added.length).toBeGreaterThanOrEqual(1);
      for (const s of added) {
        const target = base.skills.find((b) => b.kind === 'reply' && s.name.includes(b.name));
        expect(target).toBeDefined();
        const patterns = split === 'eval' ? NEAR_DUPLICATE_PATTERNS.ascii.eval : NEAR_DUPLICATE_PATTERNS.ascii.train;
        expect(patterns.map((p) => p.replace('{n}', (target as { name: string }).name).replace('{s}', '-'))).toContain(s.name);
        expect(s.kind).toBe('strategy');
        expect(s.description).toMatch(locale === 'en' ? /DEPRECATED/ : /已停用/);
        expect(s.body).toContain((target as { name: string }).name);
        expect(s.body).toMatch(locale === 'en' ? /never reply from it/ : /不要按它回复/);
        expect(v.map.skillToCanonical(s.name)).toBeUndefined();
      }
    }
  });

  it('a near-duplicate follows its target when the target was renamed first', () => {
    const ops = [op('skills.rename.locale'), op('skills.near_duplicate')];
    for (let seed = 0; seed < SEEDS; seed++) {
      const task = generateTask(seed, 'zh-CN');
      const v = buildVariant(loadBaseHarness('zh-CN'), { families: ['skills'], intensity: 1, split: 'train' }, seed, task, ops);
      const dups = v.harness.skills.filter((s) => s.metadata.deprecated === true);
      for (const d of dups) {
        const real = v.harness.skills.find((s) => s !== d && d.name.includes(s.name) && d.body.includes(s.name));
        expect(real).toBeDefined();
      }
    }
  });
});

describe('skills.mask', () => {
  it('removes only skills the task does not need and that no kept skill names; removed skills leave the map', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.mask'), seed, locale, split);
      const key = generateTask(seed, locale).answer_key;
      const removed = base.skills.filter((b) => !v.harness.skills.some((s) => s.name === b.name)).map((s) => s.name);
      expect(removed.length).toBeGreaterThan(0);
      expect(v.harness.skills.length).toBeGreaterThan(base.skills.length / 2);
      for (const r of removed) {
        expect(key.reply_skills).not.toContain(r);
        expect(key.strategy_skills).not.toContain(r);
        expect(v.map.skillToSurface(r)).toBeUndefined();
        for (const s of v.harness.skills) expect(new RegExp(`(?<![\\w-])${r}(?![\\w-])`).test(s.body)).toBe(false);
      }
    }
  });
});

describe('skills.order.shuffle and skills.disclosure.inline', () => {
  it('order.shuffle permutes the same skills', () => {
    for (const { seed, locale, split } of cases()) {
      const { v, base } = build(op('skills.order.shuffle'), seed, locale, split);
      expect(v.harness.skills.map((s) => s.name)).not.toEqual(base.skills.map((s) => s.name));
      expect([...v.harness.skills].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
        [...base.skills].sort((a, b) => a.name.localeCompare(b.name)),
      );
    }
  });

  it('disclosure.inline puts every skill body into the prompt', () => {
    const { v } = build(op('skills.disclosure.inline'), 5, 'en', 'train');
    const task = generateTask(5, 'en');
    const prompt = renderSystemPrompt(v.harness, worldFor(task.world_seed, 'en'), v.task);
    expect(v.harness.prompt.skills_disclosure).toBe('inline');
    for (const s of v.harness.skills) expect(prompt).toContain(s.body.trim());
  });
});

describe('skill pools', () => {
  it('train and eval halves are disjoint for every pool', () => {
    for (const pool of Object.values(SKILL_SYNONYMS)) expectDisjoint(pool);
    for (const pool of Object.values(SKILL_LOCALE_NAMES)) expectDisjoint(pool);
    for (const byLocale of Object.values(SKILL_DESCRIPTIONS)) for (const pool of Object.values(byLocale)) expectDisjoint(pool);
    for (const pool of Object.values(NUMBERING_STYLES)) expectDisjoint(pool);
    expectDisjoint(CASE_STYLES);
    expectDisjoint(OPAQUE_PREFIXES);
    expectDisjoint(RULE_FORMATS);
    expectDisjoint(DISTRACTOR_SKILLS, undefined, (d) => d.name);
    expectDisjoint(NEAR_DUPLICATE_PATTERNS.ascii);
    expectDisjoint(NEAR_DUPLICATE_PATTERNS.han);
    // Names from different tables never collide either (a synonym is never another skill's Chinese name).
    const all = [
      ...Object.values(SKILL_SYNONYMS).flatMap((p) => [...p.train, ...p.eval]),
      ...Object.values(SKILL_LOCALE_NAMES).flatMap((p) => [...p.train, ...p.eval]),
      ...DISTRACTOR_SKILLS.train.map((d) => d.name),
      ...DISTRACTOR_SKILLS.eval.map((d) => d.name),
    ];
    expect(new Set(all).size).toBe(all.length);
    for (const n of all) expect(CANONICAL).not.toContain(n);
  });

  it('descriptions and decoy texts carry no digits', () => {
    const texts = [
      ...Object.values(SKILL_DESCRIPTIONS).flatMap((l) => Object.values(l).flatMap((p) => [...p.train, ...p.eval])),
      ...[...DISTRACTOR_SKILLS.train, ...DISTRACTOR_SKILLS.eval].flatMap((d) =>
        Object.values(d.text).flatMap((t) => [t.description, t.body]),
      ),
    ];
    for (const t of texts) expect(t).not.toMatch(/\d/);
  });
});
