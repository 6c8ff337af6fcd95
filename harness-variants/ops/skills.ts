/**
 * Skill operators: names, descriptions, rule layout and order, distractors and near-duplicates,
 * masking, and disclosure.
 *
 * Task preservation: no operator removes or hides a skill the task needs (its reply and strategy skills);
 * renamed skills keep their description (an opaque name is never paired with a dropped description);
 * decoys never take a canonical name and say plainly that they serve nothing here.
 */
import type { Locale } from '../../protocol/domain.js';
import type { Harness, Skill } from '../../protocol/harness.js';
import type { Rng } from '../../protocol/rng.js';
import type { HarnessTransform, TransformContext, VariantDraft } from '../types.js';
import type { NameSet, SplitPool } from './kit.js';
import { freshFrom, numberMarker, ownerMentions, opaqueName, poolFor, recase, reorder, reorderNumbered, share, stringMemo, usedNames } from './kit.js';
import {
  CASE_STYLES,
  DISTRACTOR_SKILLS,
  NEAR_DUPLICATE_PATTERNS,
  NEAR_DUPLICATE_TEXT,
  NUMBERING_STYLES,
  OPAQUE_PREFIXES,
  RULE_FORMATS,
} from './pools-skills.js';
import { needsWordings, skillDescriptions, skillNames } from './wordings.js';

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/** Canonical skills of the base harness still in the draft and not renamed yet, in draft order. */
function unrenamed(draft: VariantDraft, base: readonly Skill[]): string[] {
  const canonical = new Set(base.map((s) => s.name));
  return draft.harness.skills.map((s) => s.name).filter((n) => canonical.has(n) && draft.tables.skills[n] === undefined);
}

/** Every name a new skill must avoid: the draft's names and the base harness's canonical names. */
function takenNames(draft: VariantDraft, base: readonly Skill[]): NameSet {
  const used = usedNames(draft);
  for (const s of base) used.add(s.name);
  return used;
}

/**
 * A rename table without some keys: a new dictionary-mode object (see build.ts `table`) with the other
 * entries in their order.
 */
function tableWithout(t: Record<string, string>, drop: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = { first: '', last: '' };
  delete out.first;
  delete out.last;
  for (const k in t) if (Object.hasOwn(t, k) && !drop.has(k)) out[k] = t[k];
  return out;
}

/** The skill names the task needs: never masked, never left without an identifying description. */
function neededSkills(draft: VariantDraft): Set<string> {
  const key = draft.task.answer_key;
  return new Set([...key.reply_skills, ...key.strategy_skills]);
}

/**
 * A rule line of a skill body: a list marker (any the base or an operator writes) and the rule text.
 * Title lines (`# ...`), blank lines and the example line are not rules.
 */
const RULE_MARKERS = [
  '[-•*·→+] ',
  '\\d+(?:\\. |\\) |）|、)',
  '\\(\\d+\\) ',
  '（\\d+）',
  '\\[\\d+\\] ',
  '第\\d+条：',
  '规则\\d+：',
  'Rule \\d+: ',
  'Step \\d+: ',
];
const RULE_RE = new RegExp(`^(${RULE_MARKERS.join('|')})(.*)$`);

interface BodyLine {
  rule: boolean;
  marker: string;
  text: string;
}

/** A body's lines and the length of its longest run of consecutive rules, once per body text (shared). */
const parsedBody = stringMemo((body: string): { lines: readonly Readonly<BodyLine>[]; longestRun: number } => {
  const lines = body.split('\n').map((line) => {
    const m = RULE_RE.exec(line);
    return m ? { rule: true, marker: m[1], text: m[2] } : { rule: false, marker: '', text: line };
  });
  return { lines, longestRun: Math.max(0, ...ruleRuns(lines).map(([a, b]) => b - a)) };
});

/** The lines of a body, to edit. */
function parseBody(body: string): BodyLine[] {
  return parsedBody(body).lines.map((l) => ({ rule: l.rule, marker: l.marker, text: l.text }));
}

function renderBody(lines: readonly BodyLine[]): string {
  return lines.map((l) => (l.rule ? `${l.marker}${l.text}` : l.text)).join('\n');
}

/** Index ranges [start, end) of consecutive rule lines. */
function ruleRuns(lines: readonly BodyLine[]): [number, number][] {
  const runs: [number, number][] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i].rule) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j].rule) j++;
    runs.push([i, j]);
    i = j;
  }
  return runs;
}

/** Skills whose body has at least one run of `min` or more rules. */
function skillsWithRules(draft: VariantDraft, min = 1): Skill[] {
  return draft.harness.skills.filter((s) => parsedBody(s.body).longestRun >= min);
}

/** Rename some of the unrenamed skills, each with `name(canonical)` (null: leave it). */
function renameSome(
  draft: VariantDraft,
  rng: Rng,
  intensity: number,
  base: readonly Skill[],
  name: (n: string, used: NameSet) => string | null,
): void {
  const used = takenNames(draft, base);
  const names = unrenamed(draft, base);
  if (names.length === 0) return;
  // Each skill independently, so that several rename operators together leave a mix of styles.
  const p = 0.25 + 0.35 * intensity;
  let picked = names.filter(() => rng.chance(p));
  if (picked.length === 0) picked = [rng.pick(names)];
  for (const n of picked) {
    const fresh = name(n, used);
    if (fresh !== null) draft.tables.skills[n] = fresh;
  }
}

// ---------------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------------

const skillTexts = (s: object): readonly string[] => [(s as Skill).body, (s as Skill).description];
const promptTexts = (p: object): readonly string[] => (p as Harness['prompt']).blocks.flatMap((b) => [b.template, ...b.items]);

/**
 * The skills of a list whose texts mention `name` (`ownerMentions`), kept per list: the mask runs on
 * every reset over its compiled variant's list (shared by the pool slot, replaced and never changed in
 * place by per-task operators) and asks about the same names. A list whose length changed is asked again.
 */
function mentioners(skills: readonly Skill[], name: string): readonly Skill[] {
  let kept = mentionMemo.get(skills);
  if (kept === undefined || kept.length !== skills.length) mentionMemo.set(skills, (kept = { length: skills.length, byName: new Map() }));
  let found = kept.byName.get(name);
  if (found === undefined) kept.byName.set(name, (found = skills.filter((s) => ownerMentions(s, skillTexts, name))));
  return found;
}

const mentionMemo = new WeakMap<readonly Skill[], { length: number; byName: Map<string, readonly Skill[]> }>();

/** skills.mask: remove skills the task does not need (and that no kept skill text names). */
const mask: HarnessTransform = {
  name: 'skills.mask',
  family: 'skills',
  perTask: true,
  description: 'remove some skills the task does not need (never a reply or strategy skill it uses)',
  apply(draft, ctx) {
    const needed = neededSkills(draft);
    const canonical = new Set(ctx.base.skills.map((s) => s.name));
    const candidates = draft.harness.skills.map((s) => s.name).filter((n) => canonical.has(n) && !needed.has(n));
    if (candidates.length === 0) return;
    // Remove at most half of the candidates: the agent still has to choose among several skills.
    const n = Math.max(1, Math.min(Math.floor(candidates.length / 2), share(candidates.length, ctx.intensity, ctx.rng) - 1));
    const removed = new Set(ctx.rng.sample(candidates, n));
    // A kept skill that names a removed one would point at nothing: keep what kept text mentions.
    for (let changed = true; changed;) {
      changed = false;
      for (const r of [...removed]) {
        const named = mentioners(draft.harness.skills, r).some((s) => !removed.has(s.name));
        const inPrompt = ownerMentions(draft.harness.prompt, promptTexts, r);
        if (named || inPrompt) {
          removed.delete(r);
          changed = true;
        }
      }
    }
    draft.harness.skills = draft.harness.skills.filter((s) => !removed.has(s.name));
    // The renames without the removed skills, in a new table (the compiled variant's is shared).
    if ([...removed].some((r) => Object.hasOwn(draft.tables.skills, r))) {
      draft.tables = { ...draft.tables, skills: tableWithout(draft.tables.skills, removed) };
    }
  },
};

/**
 * Rename some skills to names of the base harness's `kind` pools (paraphrases.yaml). Skills are picked
 * among all the unrenamed ones, wordings or not (which are picked does not depend on the file); a picked
 * skill without a pool keeps its name.
 */
function renameFromPools(draft: VariantDraft, ctx: TransformContext, kind: 'synonyms' | 'locale_names'): void {
  renameSome(draft, ctx.rng, ctx.intensity, ctx.base.skills, (n, used) => {
    const pool = skillNames(ctx.base, n, kind);
    return pool ? freshFrom(ctx.rng, poolFor(pool, ctx.split), used) : null;
  });
}

/** Whether a skill of the base harness has a pool of `kind`. */
const hasSkillNames = (kind: 'synonyms' | 'locale_names') => (base: Harness) =>
  base.skills.some((s) => skillNames(base, s.name, kind) !== undefined);

/** skills.rename.semantic: rename some skills to meaningful synonyms (paraphrases.yaml `skills.<skill>.synonyms`). */
const renameSemantic: HarnessTransform = {
  name: 'skills.rename.semantic',
  family: 'skills',
  description: 'rename skills to semantic synonyms (product-qa -> item-answers)',
  notApplicable: needsWordings('skill synonyms (skills.<skill>.synonyms)', hasSkillNames('synonyms')),
  apply(draft, ctx) {
    renameFromPools(draft, ctx, 'synonyms');
  },
};

/** skills.rename.opaque: opaque ids such as `s_3f9a2c`; the description stays to identify the skill. */
const renameOpaque: HarnessTransform = {
  name: 'skills.rename.opaque',
  family: 'skills',
  description: 'rename skills to opaque ids (product-qa -> s_3f9a2c); descriptions identify them',
  apply(draft, ctx) {
    const prefix = ctx.rng.pick(poolFor(OPAQUE_PREFIXES, ctx.split));
    renameSome(draft, ctx.rng, ctx.intensity, ctx.base.skills, (_n, used) => opaqueName(ctx.rng, prefix, used));
  },
};

/** skills.rename.locale: Chinese names (商品答疑) or pinyin (shangpin-dayi) (paraphrases.yaml `skills.<skill>.locale_names`). */
const renameLocale: HarnessTransform = {
  name: 'skills.rename.locale',
  family: 'skills',
  description: 'rename skills to Chinese or pinyin names (product-qa -> 商品答疑, shangpin-dayi)',
  notApplicable: needsWordings('locale-style skill names (skills.<skill>.locale_names)', hasSkillNames('locale_names')),
  apply(draft, ctx) {
    renameFromPools(draft, ctx, 'locale_names');
  },
};

/** skills.rename.case: another case style (product_qa, productQa, PRODUCT_QA, ProductQa, product.qa). */
const renameCase: HarnessTransform = {
  name: 'skills.rename.case',
  family: 'skills',
  description: 'rename skills to another case style (product-qa -> product_qa, productQa, ProductQa)',
  apply(draft, ctx) {
    const styles = poolFor(CASE_STYLES, ctx.split);
    renameSome(draft, ctx.rng, ctx.intensity, ctx.base.skills, (n, used) =>
      // A one-word name looks the same in most styles: only styles that change it count.
      freshFrom(
        ctx.rng,
        [...new Set(styles.map((s) => recase(n, s)))].filter((x) => x !== n),
        used,
      ),
    );
  },
};

/**
 * skills.describe.paraphrase: another wording of some skills' descriptions (same meaning), from
 * paraphrases.yaml `skills.<skill>.description.<locale>`.
 */
const describeParaphrase: HarnessTransform = {
  name: 'skills.describe.paraphrase',
  family: 'skills',
  description: 'paraphrase skill descriptions (held-out templates in eval)',
  notApplicable: needsWordings('<locale> skill descriptions (skills.<skill>.description.<locale>)', (base) =>
    base.skills.some((s) => skillDescriptions(base, s.name, base.locale) !== undefined),
  ),
  apply(draft, ctx) {
    const targets = draft.harness.skills.filter((s) => skillDescriptions(ctx.base, s.name, ctx.locale) !== undefined);
    if (targets.length === 0) return;
    for (const s of ctx.rng.sample(targets, share(targets.length, ctx.intensity, ctx.rng))) {
      s.description = ctx.rng.pick(poolFor(skillDescriptions(ctx.base, s.name, ctx.locale) as SplitPool<string>, ctx.split));
    }
  },
};

/**
 * skills.rules.shuffle: reorder the rule lines inside bodies; title and example stay where they are, and
 * numbered rules are numbered 1..n again in their new order (`reorderNumbered`).
 */
const rulesShuffle: HarnessTransform = {
  name: 'skills.rules.shuffle',
  family: 'skills',
  description: 'reorder rule lines within skill bodies (title and example stay in place; numbered rules renumbered)',
  apply(draft, ctx) {
    const targets = skillsWithRules(draft, 2);
    if (targets.length === 0) return;
    for (const s of ctx.rng.sample(targets, share(targets.length, ctx.intensity, ctx.rng))) {
      const lines = parseBody(s.body);
      for (const [a, b] of ruleRuns(lines)) {
        if (b - a < 2) continue;
        // Numbered rules are numbered again in their new order (their markers stay in place).
        const run = reorderNumbered(ctx.rng, lines.slice(a, b), (l) => numberMarker(l.marker), (l, m) => ({ ...l, marker: m }));
        lines.splice(a, b - a, ...run);
      }
      s.body = renderBody(lines);
    }
  },
};

/** skills.rules.numbering: number the rules (1. / 第1条： / Step 1: ...). */
const rulesNumbering: HarnessTransform = {
  name: 'skills.rules.numbering',
  family: 'skills',
  description: 'number the rules of skill bodies (1. / (1) / 第1条：/ Step 1:)',
  apply(draft, ctx) {
    const targets = skillsWithRules(draft);
    if (targets.length === 0) return;
    const style = ctx.rng.pick(poolFor(NUMBERING_STYLES[ctx.locale], ctx.split));
    for (const s of ctx.rng.sample(targets, share(targets.length, ctx.intensity, ctx.rng))) {
      const lines = parseBody(s.body);
      for (const [a, b] of ruleRuns(lines)) {
        for (let i = a; i < b; i++) lines[i].marker = style.replace('{n}', String(i - a + 1));
      }
      s.body = renderBody(lines);
    }
  },
};

function sentence(text: string, locale: Locale): string {
  const t = text.trim();
  if (/[。.!！?？；;：:]$/.test(t)) return t;
  return t + (locale === 'en' ? '.' : '。');
}

/** skills.rules.format: other list markers, or the rules as one prose paragraph. */
const rulesFormat: HarnessTransform = {
  name: 'skills.rules.format',
  family: 'skills',
  description: 'rewrite skill rules as other bullets or as prose',
  apply(draft, ctx) {
    const targets = skillsWithRules(draft);
    if (targets.length === 0) return;
    const format = ctx.rng.pick(poolFor(RULE_FORMATS, ctx.split));
    for (const s of ctx.rng.sample(targets, share(targets.length, ctx.intensity, ctx.rng))) {
      const lines = parseBody(s.body);
      const runs = ruleRuns(lines);
      if (format === 'prose' || format === 'prose-semicolon') {
        // Replace each run by one paragraph, back to front so that indices stay valid.
        for (const [a, b] of runs.reverse()) {
          const texts = lines.slice(a, b).map((l) => {
            // A numbered rule keeps its number in the sentence; a bullet is dropped.
            const keep = /^[-•*·→+] $/.test(l.marker) ? '' : l.marker;
            return keep + l.text;
          });
          const para =
            format === 'prose'
              ? texts.map((t) => sentence(t, ctx.locale)).join(ctx.locale === 'en' ? ' ' : '')
              : texts.map((t) => t.replace(/[。.；;]$/, '')).join(ctx.locale === 'en' ? '; ' : '；') + (ctx.locale === 'en' ? '.' : '。');
          lines.splice(a, b - a, { rule: false, marker: '', text: para });
        }
      } else {
        for (const l of lines) if (l.rule && /^[-•*·→+] $/.test(l.marker)) l.marker = format;
      }
      s.body = renderBody(lines);
    }
  },
};

/** skills.distractor: add one to three irrelevant skills (host-side routines that answer no viewer). */
const distractor: HarnessTransform = {
  name: 'skills.distractor',
  family: 'skills',
  description: 'add 1-3 irrelevant skills (lottery host, weather segment, countdown...)',
  apply(draft, ctx) {
    const used = takenNames(draft, ctx.base.skills);
    const pool = poolFor(DISTRACTOR_SKILLS, ctx.split).filter((d) => !used.has(d.name));
    const n = Math.min(pool.length, ctx.rng.int(1, Math.max(1, Math.round(1 + 2 * ctx.intensity))));
    for (const d of ctx.rng.sample(pool, n)) {
      used.add(d.name);
      const text = d.text[ctx.locale];
      draft.harness.skills.push({
        name: d.name,
        description: text.description,
        kind: 'strategy',
        intents: [],
        body: text.body,
        metadata: {},
      });
    }
  },
};

/** The separator a look-alike name uses, matching the style of the real name. */
function separatorOf(name: string): string {
  if (name.includes('_')) return '_';
  if (name.includes('.')) return '.';
  return '-';
}

/**
 * skills.near_duplicate: a deprecated look-alike of a reply skill, whose body says not to use it, put
 * anywhere in the list. Per task: half of the time it imitates a skill the task needs.
 */
const nearDuplicate: HarnessTransform = {
  name: 'skills.near_duplicate',
  family: 'skills',
  perTask: true,
  description: 'add a deprecated look-alike of a reply skill (described as disabled)',
  apply(draft, ctx) {
    const used = takenNames(draft, ctx.base.skills);
    const replyNames = new Set(ctx.base.skills.filter((s) => s.kind === 'reply').map((s) => s.name));
    const present = draft.harness.skills.filter((s) => replyNames.has(s.name));
    if (present.length === 0) return;
    // Prefer a skill the task needs half of the time: the look-alike is then a real trap.
    const needed = present.filter((s) => draft.task.answer_key.reply_skills.includes(s.name));
    const first = needed.length > 0 && ctx.rng.chance(0.5) ? ctx.rng.pick(needed) : ctx.rng.pick(present);
    const others = present.filter((s) => s !== first);
    const extra = ctx.intensity > 0.5 && others.length > 0 && ctx.rng.chance(ctx.intensity - 0.5) ? [ctx.rng.pick(others)] : [];
    for (const target of [first, ...extra]) {
      const surface = draft.tables.skills[target.name] ?? target.name;
      const han = /\p{Script=Han}/u.test(surface);
      const patterns = poolFor(han ? NEAR_DUPLICATE_PATTERNS.han : NEAR_DUPLICATE_PATTERNS.ascii, ctx.split);
      const sep = separatorOf(surface);
      const name = freshFrom(
        ctx.rng,
        patterns.map((p) => p.replace('{n}', surface).replace('{s}', sep)),
        used,
      );
      if (name === null) continue;
      const text = NEAR_DUPLICATE_TEXT[ctx.locale];
      // Anywhere in the list: the operator runs on every reset, after the compiled skills order. A new
      // list, not a change to it: per-task operators work on a compiled variant's shared parts.
      const skills = draft.harness.skills.slice();
      draft.harness.skills = skills;
      skills.splice(ctx.rng.int(0, skills.length), 0, {
        name,
        description: text.description.replace('{d}', () => target.description).replace('{c}', () => target.name),
        kind: 'strategy',
        intents: [],
        body: text.body.replace('{c}', () => target.name),
        metadata: { deprecated: true },
      });
    }
  },
};

/** skills.order.shuffle: present the skills in another order. */
const orderShuffle: HarnessTransform = {
  name: 'skills.order.shuffle',
  family: 'skills',
  description: 'reorder the skills list',
  apply(draft, ctx) {
    draft.harness.skills = reorder(ctx.rng, draft.harness.skills);
  },
};

/** skills.disclosure.inline: the skills index shows every body inline instead of descriptions only. */
const disclosureInline: HarnessTransform = {
  name: 'skills.disclosure.inline',
  family: 'skills',
  description: 'show skill bodies inline in the prompt instead of descriptions only',
  apply(draft) {
    draft.harness.prompt.skills_disclosure = 'inline';
  },
};

/** Skill operators, in application order: removal, renames, text, decoys, order, disclosure. */
export const SKILL_OPS: readonly HarnessTransform[] = [
  mask,
  renameSemantic,
  renameOpaque,
  renameLocale,
  renameCase,
  describeParaphrase,
  rulesShuffle,
  rulesNumbering,
  rulesFormat,
  distractor,
  nearDuplicate,
  orderShuffle,
  disclosureInline,
];
