/**
 * No variant serves a canonical name it renamed (docs/HARNESS.md, "Skills" and "Validation"): over 200
 * seeds of each of the train and eval presets, in the embedded harness, examples/harness-v2, examples/harness-v3 and the team
 * fixture, no observation (the rendered system prompt, every skill body the load tool returns, every tool
 * as the policy receives it) holds a renamed tool name or digit-holding skill name as a whole token, a
 * renamed skill name in backticks, or a bare renamed skill name where it reads as the skill
 * (`bareSkillReferences`). A harness whose texts name a skill bare in such a place is refused by
 * `validate` with the fix; served anyway (built in memory, past the loader), it would leak.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, cpSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultEnvConfig } from '../../env/index.js';
import { renderSystemPrompt } from '../../env/prompt.js';
import type { HarnessSet } from '../../harness/index.js';
import { bareSkillReferences, embeddedHarness, isIdentifierName, loadHarnessDir } from '../../harness/index.js';
import { PRESETS, buildVariant } from '../../harness-variants/index.js';
import { worldFor } from '../../mock-services/index.js';
import type { Locale } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { writeTeamHarness } from '../policies/team-harness.js';
import { propertyRuns } from '../property-runs.js';
import { loadDir as load } from '../harness/load-dir.js';

const SEEDS = propertyRuns(200);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function team(): string {
  const d = writeTeamHarness();
  dirs.push(d);
  return d;
}

const ID = /[A-Za-z0-9_-]/;

/** Each whole-token occurrence of `name` in `text`: whether it stands in backticks, and its line. */
function occurrences(text: string, name: string): { quoted: boolean; line: string }[] {
  const out: { quoted: boolean; line: string }[] = [];
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const b = text[at - 1];
    const a = text[at + name.length];
    if ((b !== undefined && ID.test(b)) || (a !== undefined && ID.test(a))) continue;
    const start = text.lastIndexOf('\n', at) + 1;
    const end = text.indexOf('\n', at);
    out.push({ quoted: b === '`' && a === '`', line: text.slice(start, end === -1 ? undefined : end) });
  }
  return out;
}

/** What the policy is served in an episode of `h`: the prompt, the loadable skill bodies, the tools. */
function observations(h: Harness, task: Parameters<typeof renderSystemPrompt>[2]): string[] {
  return [
    renderSystemPrompt(h, worldFor(task.world_seed, task.locale), task),
    ...h.skills.map((s) => s.body),
    ...h.tools.map((t) => JSON.stringify(t)),
  ];
}

/** The leaks of one variant: `name: line` for each canonical name it renamed that its observations still show as a name. */
function leaks(h: Harness, tables: { skills: Record<string, string>; tools: Record<string, string> }, texts: readonly string[], loader: string): string[] {
  const out: string[] = [];
  const surface = new Set([...h.skills.map((s) => s.name), ...h.tools.map((t) => t.function.name)]);
  const loaders = [tables.tools[loader] ?? loader];
  const check = (name: string, anywhere: boolean) => {
    if (surface.has(name)) return;
    for (const text of texts) {
      for (const o of occurrences(text, name)) {
        if (anywhere || o.quoted || bareSkillReferences(o.line, [name], loaders).length > 0) out.push(`${name}: ${o.line}`);
      }
    }
  };
  for (const c of Object.keys(tables.tools)) check(c, true);
  for (const c of Object.keys(tables.skills)) check(c, isIdentifierName(c));
  return out;
}

/** Episodes (of `seeds`, both presets) whose variant renamed something, and those that leaked, with examples. */
function sweep(set: HarnessSet, seeds: number, edit: (h: Harness) => Harness = (h) => h): { renamed: number; leaked: number; examples: string[] } {
  const env = defaultEnvConfig({ harness: set });
  const loader = set.bindings.loadSkillTool ?? 'load_skill';
  let renamed = 0;
  let leaked = 0;
  const examples: string[] = [];
  for (const preset of ['train', 'eval'] as const) {
    for (let seed = 0; seed < seeds; seed++) {
      const locale: Locale = seed % 2 === 0 ? 'zh-CN' : 'en';
      const picked = env.taskSource.pick(seed, {}, locale);
      if (!picked.ok) throw new Error(picked.message);
      const v = buildVariant(edit(set.get(locale)), PRESETS[preset]!, seed, picked.task);
      if (Object.keys(v.tables.skills).length + Object.keys(v.tables.tools).length === 0) continue;
      renamed++;
      const found = leaks(v.harness, v.tables, observations(v.harness, v.task), loader);
      if (found.length > 0) {
        leaked++;
        if (examples.length < 5) examples.push(`${preset} seed ${seed}: ${found[0]}`);
      }
    }
  }
  return { renamed, leaked, examples };
}

describe('no variant serves a canonical name it renamed', () => {
  const harnesses: [string, () => HarnessSet][] = [
    ['embedded', () => embeddedHarness()],
    ['examples/harness-v2', () => load(resolve(import.meta.dirname, '../../examples/harness-v2'))],
    ['examples/harness-v3', () => load(resolve(import.meta.dirname, '../../examples/harness-v3'))],
    ['team fixture', () => load(team())],
  ];
  for (const [label, get] of harnesses) {
    it(`${label}: ${SEEDS} seeds of train and of eval`, () => {
      const r = sweep(get(), SEEDS);
      expect(r.renamed).toBeGreaterThan(SEEDS);
      expect(r.examples).toEqual([]);
      expect(r.leaked).toBe(0);
    });
  }

  it('the detector finds the leak of bare references when they are served past validate', () => {
    // The team fixture's skill bodies with their backticks around skill names dropped, in memory.
    const set = load(team());
    const names = set.get('zh-CN').skills.map((s) => s.name);
    const strip = (h: Harness): Harness => ({
      ...h,
      skills: h.skills.map((s) => ({ ...s, body: names.reduce((b, n) => b.replaceAll(`\`${n}\``, n), s.body) })),
    });
    const r = sweep(set, 40, strip);
    expect(r.leaked).toBeGreaterThan(0);
  });
});

describe('validate refuses a bare skill name that reads as the name', () => {
  it('names the file, the key, the name, why it reads as the name and the fix', () => {
    const dir = team();
    for (const locale of ['zh-CN', 'en']) {
      for (const f of readdirSync(join(dir, 'skills', locale))) {
        const p = join(dir, 'skills', locale, f);
        writeFileSync(p, readFileSync(p, 'utf8').replaceAll('`goods-facts`', 'goods-facts'));
      }
    }
    const r = loadHarnessDir(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toContain(
      'skills/en/allowed-asks.md: body: "goods-facts" stands bare where it reads as the skill\'s name (it is followed by "skill"); variants rename a skill name made of words only in backticks, so a renamed variant would still show "goods-facts": write `goods-facts` (or reword it as plain prose)',
    );
    expect(r.errors).toContain(
      'skills/zh-CN/allowed-asks.md: body: "goods-facts" stands bare where it reads as the skill\'s name (it follows "技能"); variants rename a skill name made of words only in backticks, so a renamed variant would still show "goods-facts": write `goods-facts` (or reword it as plain prose)',
    );
    expect(r.errors.every((e) => e.includes('"goods-facts"'))).toBe(true);
  });

  it('reads plain prose as prose and names in reference places as names', () => {
    const names = ['after-sales', 'promotion', 'order-care'];
    const refs = (t: string) => bareSkillReferences(t, names, ['load_skill']).map((r) => r.name);
    // Prose (the embedded harness's own sentences).
    expect(refs('Answer price, stock, shipping and after-sales policy.')).toEqual([]);
    expect(refs('Mention only gifts configured in the promotion, while stocks last.')).toEqual([]);
    expect(refs('Handle order-care questions from viewers who already ordered.')).toEqual([]);
    // References.
    expect(refs('Load the after-sales skill first.')).toEqual(['after-sales']);
    expect(refs('load promotion before you answer')).toEqual(['promotion']);
    expect(refs('Call load_skill with order-care.')).toEqual(['order-care']);
    expect(refs('Load the reply skill for each part: promotion for offers.')).toEqual(['promotion']);
    expect(refs('售后问题用 after-sales 技能回答。')).toEqual(['after-sales']);
    expect(refs('请改用 promotion。')).toEqual(['promotion']);
    // Backticked, or part of a longer identifier: not bare.
    expect(refs('Load the `after-sales` skill first.')).toEqual([]);
    expect(refs('Load the after-sales-v1 skill first.')).toEqual([]);
  });
});

describe('a skill name that holds a digit is renamed wherever it stands', () => {
  it('bare and backticked, in every skill body that names it', () => {
    const src = team();
    const dir = mkdtempSync(join(tmpdir(), 'hg-digit-'));
    dirs.push(dir);
    cpSync(src, dir, { recursive: true });
    // order-care becomes order-care2, named bare in a prose line of another skill.
    for (const locale of ['zh-CN', 'en']) {
      const skills = join(dir, 'skills', locale);
      renameSync(join(skills, 'order-care.md'), join(skills, 'order-care2.md'));
      for (const f of readdirSync(skills)) {
        const p = join(skills, f);
        let t = readFileSync(p, 'utf8').replace(/(?<![A-Za-z0-9_-])order-care(?![A-Za-z0-9_-])/g, 'order-care2');
        if (f === 'goods-facts.md') t = t.trimEnd() + '\n\nQuestions about a past order belong to order-care2.\n';
        writeFileSync(p, t);
      }
    }
    // The manifest's bindings, and the wordings' key (paraphrases hold no digit: their prose keeps "order-care").
    const manifest = join(dir, 'harness.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/(?<![A-Za-z0-9_-])order-care(?![A-Za-z0-9_-])/g, 'order-care2'));
    const wordings = join(dir, 'paraphrases.yaml');
    writeFileSync(wordings, readFileSync(wordings, 'utf8').replace(/^ {2}order-care:$/m, '  order-care2:'));
    const set = load(dir);
    let renamed = 0;
    for (let seed = 0; seed < 200 && renamed < 20; seed++) {
      const locale: Locale = seed % 2 === 0 ? 'zh-CN' : 'en';
      const env = defaultEnvConfig({ harness: set });
      const picked = env.taskSource.pick(seed, {}, locale);
      if (!picked.ok) throw new Error(picked.message);
      const v = buildVariant(set.get(locale), PRESETS.train!, seed, picked.task);
      const surface = v.tables.skills['order-care2'];
      const facts = v.harness.skills.find((s) => s.body.includes('past order') || s.body.includes('Questions about'));
      if (surface === undefined || facts === undefined || locale !== 'en') continue;
      renamed++;
      expect(facts.body).toContain(`belong to ${surface}.`);
      for (const text of observations(v.harness, v.task)) expect(occurrences(text, 'order-care2')).toEqual([]);
    }
    expect(renamed).toBeGreaterThan(0);
  });
});
