/**
 * The HSA checker (`harness-gym check`): the environment's proof that augmentation is sound, over many
 * seeds and every family alone and all together.
 *
 * - determinism: the same spec, seed and task build the identical harness, map tables and task;
 * - task preservation: the oracle's reward on the variant equals its reward on the base harness;
 * - round trip: every rename maps back (names, and the oracle's arguments through argsToSurface/argsToCanonical);
 * - information: the variant keeps what a real agent needs (an identifying name or description for each
 *   needed tool, the needed skills, the limits and output constraints stated in the prompt, the facts of the
 *   viewer's message).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Locale, Task } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import { hookKind } from '../protocol/harness.js';
import { extractNumbers, normalizeForMatch } from '../protocol/text.js';
import { embeddedHarness, harnessSetOf } from '../harness/index.js';
import type { HarnessSet } from '../harness/index.js';
import { FAMILIES, PRESETS, buildVariant } from '../harness-variants/index.js';
import type { BuiltVariant, VariantSpec } from '../harness-variants/index.js';
import { worldOfTask } from '../mock-services/index.js';
import { defaultEnvConfig, renderSystemPrompt } from '../env/index.js';
import { playEpisode } from './evaluate.js';
import { oraclePolicy } from '../policies/index.js';

/** The checker's summary line. */
export interface CheckReport {
  determinism: { checked: number; failures: number };
  task_preservation: { checked: number; max_delta: number };
  round_trip: { checked: number; failures: number };
  information: { checked: number; failures: number };
  /** The first few failures, readable (empty when all pass). */
  examples: string[];
}

/** What to check. */
export interface CheckOptions {
  /** Called after each seed (a progress bar): seeds done and the total. */
  onProgress?: (done: number, total: number) => void;
  seeds: number;
  /** First seed (default 0). */
  from?: number;
  locales?: readonly Locale[];
  /** The harness to check (default: the embedded one). */
  harness?: HarnessSet;
}

/** The specs every seed is checked under: each family alone at full intensity, and the presets. */
export function checkSpecs(): { name: string; spec: VariantSpec }[] {
  const out: { name: string; spec: VariantSpec }[] = [];
  for (const f of FAMILIES) {
    out.push({ name: `${f}/train`, spec: { families: [f], intensity: 1, split: 'train' } });
    out.push({ name: `${f}/eval`, spec: { families: [f], intensity: 1, split: 'eval' } });
  }
  for (const preset of ['train', 'eval']) {
    const spec = PRESETS[preset];
    if (spec) out.push({ name: preset, spec });
  }
  out.push({ name: 'all/max', spec: { families: [...FAMILIES], intensity: 1, split: 'train' } });
  return out;
}

const OPAQUE_RE = /^[a-z]{1,3}_[0-9a-f]{4,}$/i;

/** Why a variant lost information the task needs (empty when it kept everything). */
export function informationProblems(v: BuiltVariant, base: Harness, original: Task): string[] {
  const problems: string[] = [];
  const key = original.answer_key;
  const loadSkill = harnessSetOf(base).bindings.loadSkillTool;
  const needsSkills = key.reply_skills.length + key.strategy_skills.length > 0;
  const neededTools = new Set([...(needsSkills && loadSkill !== undefined ? [loadSkill] : []), ...key.solution.map((c) => c.name)]);
  for (const t of neededTools) {
    const surface = v.map.toolToSurface(t);
    const schema = v.harness.tools.find((x) => x.function.name === surface);
    if (surface === undefined || schema === undefined) {
      problems.push(`needed tool ${t} is missing`);
      continue;
    }
    if (OPAQUE_RE.test(surface) && !schema.function.description)
      problems.push(`needed tool ${t} has an opaque name (${surface}) and no description`);
  }
  for (const s of [...key.reply_skills, ...key.strategy_skills]) {
    const surface = v.map.skillToSurface(s);
    if (surface === undefined || !v.harness.skills.some((x) => x.name === surface)) problems.push(`needed skill ${s} is missing`);
  }
  const world = worldOfTask(original);
  const prompt = renderSystemPrompt(v.harness, world, v.task);
  const { reply_max_chars, max_turns } = v.harness.limits;
  for (const [name, n] of [
    ['reply_max_chars', reply_max_chars],
    ['max_turns', max_turns],
  ] as const) {
    const stated = base.prompt.blocks.some((b) => b.template.includes(`{{${name}}}`) || b.items.some((i) => i.includes(`{{${name}}}`)));
    if (stated && !extractNumbers(prompt).includes(n)) problems.push(`limit ${name}=${n} is enforced but not stated in the prompt`);
  }
  const constraints = v.harness.hooks.find((h) => hookKind(h) === 'output_constraints' && h.enabled);
  if (constraints) {
    const folded = normalizeForMatch(prompt);
    const words = (constraints.params.forbidden_words ?? []) as string[];
    for (const w of words) if (!folded.includes(normalizeForMatch(w))) problems.push(`forbidden word "${w}" is enforced but not stated`);
    const ending = constraints.params.required_ending;
    if (typeof ending === 'string' && !folded.includes(normalizeForMatch(ending)))
      problems.push(`required ending "${ending}" is enforced but not stated`);
  }
  const before = original.messages.join('\n');
  const after = v.task.messages.join('\n');
  const digitsBefore = extractNumbers(before).sort((a, b) => a - b);
  const digitsAfter = extractNumbers(after).sort((a, b) => a - b);
  if (!isDeepStrictEqual(digitsBefore, digitsAfter)) problems.push(`the viewer's message changed its numbers: "${before}" -> "${after}"`);
  for (const p of world.products) {
    if (before.includes(p.title) && !after.includes(p.title)) problems.push(`the viewer's message lost the product title "${p.title}"`);
  }
  return problems;
}

/** Why the variant's renames do not round-trip (empty when they all do). */
export function roundTripProblems(v: BuiltVariant, task: Task): string[] {
  const problems: string[] = [];
  for (const t of Object.keys(v.tables.tools)) {
    const s = v.map.toolToSurface(t);
    if (s === undefined || v.map.toolToCanonical(s) !== t) problems.push(`tool ${t} -> ${s} does not map back`);
  }
  for (const k of Object.keys(v.tables.skills)) {
    const s = v.map.skillToSurface(k);
    if (s === undefined || v.map.skillToCanonical(s) !== k) problems.push(`skill ${k} -> ${s} does not map back`);
  }
  const surfaces = [...Object.values(v.tables.tools), ...Object.values(v.tables.skills)];
  if (new Set(surfaces).size !== surfaces.length) problems.push('two canonical names share a surface name');
  const fieldSurfaces = Object.values(v.tables.fields);
  if (new Set(fieldSurfaces).size !== fieldSurfaces.length) problems.push('two fields share a surface name');
  for (const call of task.answer_key.solution) {
    const back = v.map.argsToCanonical(call.name, v.map.argsToSurface(call.name, call.arguments));
    if (!isDeepStrictEqual(back, call.arguments))
      problems.push(`arguments of ${call.name} do not round-trip: ${JSON.stringify(call.arguments)} -> ${JSON.stringify(back)}`);
  }
  return problems;
}

/** Run the checker. Deterministic: the same options print the same report. */
export function runCheck(opts: CheckOptions): CheckReport {
  const report: CheckReport = {
    determinism: { checked: 0, failures: 0 },
    task_preservation: { checked: 0, max_delta: 0 },
    round_trip: { checked: 0, failures: 0 },
    information: { checked: 0, failures: 0 },
    examples: [],
  };
  const note = (msg: string): void => {
    if (report.examples.length < 10) report.examples.push(msg);
  };
  const specs = checkSpecs();
  const locales = opts.locales ?? ['zh-CN', 'en'];
  const harness = opts.harness ?? embeddedHarness();
  const env = defaultEnvConfig({ harness });
  const from = opts.from ?? 0;
  for (let i = 0; i < opts.seeds; i++) {
    const seed = (from + i) >>> 0;
    const locale = locales[i % locales.length];
    const base = harness.get(locale);
    // The task an episode of this seed plays: the harness's own (generated in its names, or from its task files).
    const picked = env.taskSource.pick(seed, {}, locale);
    if (!picked.ok) throw new RangeError(`check: no task for seed ${seed} (${locale}): ${picked.message}`);
    const task = picked.task;
    const identity = playEpisode(env, { policy: oraclePolicy, episodes: 1, seed, variant: 'identity', locale }, seed);
    for (const { name, spec } of specs) {
      const a = buildVariant(base, spec, seed, task);
      const b = buildVariant(base, spec, seed, task);
      report.determinism.checked++;
      if (JSON.stringify([a.harness, a.tables, a.task, a.variant_id]) !== JSON.stringify([b.harness, b.tables, b.task, b.variant_id])) {
        report.determinism.failures++;
        note(`determinism: ${name} seed ${seed} built two different harnesses`);
      }
      report.round_trip.checked++;
      const rt = roundTripProblems(a, task);
      if (rt.length > 0) {
        report.round_trip.failures++;
        note(`round_trip: ${name} seed ${seed}: ${rt[0]}`);
      }
      report.information.checked++;
      const info = informationProblems(a, base, task);
      if (info.length > 0) {
        report.information.failures++;
        note(`information: ${name} seed ${seed}: ${info[0]}`);
      }
      const played = playEpisode(env, { policy: oraclePolicy, episodes: 1, seed, variant: spec, locale }, seed);
      report.task_preservation.checked++;
      const delta = Math.abs(played.reward - identity.reward);
      if (delta > report.task_preservation.max_delta) report.task_preservation.max_delta = Math.round(delta * 1e6) / 1e6;
      if (delta > 0) note(`task_preservation: ${name} seed ${seed}: ${identity.reward} -> ${played.reward}`);
    }
    opts.onProgress?.(i + 1, opts.seeds);
  }
  return report;
}
