/**
 * Tasks for any harness (docs/HARNESS.md "Tasks"). The generator and its answer keys speak the embedded
 * harness's names; a harness binds its own names to the same roles (harness/bindings.ts), so a generated
 * task is carried over into them (`adaptTask`), and a task the harness cannot serve (it needs a tool no
 * tool of the harness answers, or an intent the harness does not bind) is never produced: the seed is
 * redrawn instead, deterministically. Intents a harness binds with `generate: false` are served from the
 * harness's own task files (`tasks/*.jsonl` of its directory).
 */
import type { Intent, Locale, Split, Task } from '../../protocol/domain.js';
import { INTENTS, isBuiltinIntent } from '../../protocol/domain.js';
import { deriveSeed } from '../../protocol/rng.js';
import type { HarnessBindings, HarnessSet } from '../../harness/index.js';
import { EMBEDDED_SKILL_INTENT } from '../../harness/index.js';
import { generateTask, generateTaskWithKind, generatedTaskId } from './generate.js';
import { checkIntentModules, generateCustom } from './custom-intents.js';

/**
 * A generated task in a harness's names, or null when the harness cannot serve it. The identity for a
 * harness whose bindings are the embedded ones.
 */
export function adaptTask(task: Task, b: HarnessBindings): Task | null {
  if (b.identity) return task;
  const key = task.answer_key;
  const reply: string[] = [];
  if (task.intent === 'multi_intent') {
    for (const s of key.reply_skills) {
      // Every part's intent must be one the generator serves (not one left to the harness's task files).
      const part = EMBEDDED_SKILL_INTENT[s];
      const mapped = part === undefined || b.intents.get(part)?.generate !== true ? undefined : b.skillFor(s);
      if (mapped === undefined) return null;
      if (!reply.includes(mapped)) reply.push(mapped);
    }
  } else if (key.reply_skills.length > 0) {
    const mapped = b.intents.get(task.intent)?.skill;
    if (mapped === undefined) return null;
    reply.push(mapped);
  }
  const strategy: string[] = [];
  for (const s of key.strategy_skills) {
    const mapped = b.strategies.get(s);
    if (mapped !== undefined && !strategy.includes(mapped) && !reply.includes(mapped)) strategy.push(mapped);
  }
  const requiredCalls: Task['answer_key']['required_calls'] = [];
  for (const r of key.required_calls) {
    const anyOf = r.any_of.flatMap((c) => {
      const name = b.toolOf(c.name);
      return name === undefined ? [] : [{ name, arguments: c.arguments }];
    });
    if (anyOf.length === 0) return null;
    requiredCalls.push({ any_of: anyOf });
  }
  const solution: Task['answer_key']['solution'] = [];
  for (const c of key.solution) {
    const name = b.toolOf(c.name);
    if (name === undefined) return null;
    solution.push({ name, arguments: c.arguments });
  }
  const optional = key.optional_tools.flatMap((t) => {
    const name = b.toolOf(t);
    return name === undefined ? [] : [name];
  });
  if ((reply.length > 0 || strategy.length > 0) && b.loadSkillTool === undefined) return null;
  // The answering reading of an ambiguous request names its skills by the intents they serve.
  let answerInstead = key.answer_instead;
  if (answerInstead !== undefined) {
    const skills = answerInstead.reply_skills.map((s) => b.skillFor(s));
    answerInstead = skills.every((s): s is string => s !== undefined) ? { ...answerInstead, reply_skills: skills } : undefined;
  }
  const adapted: Task['answer_key'] = { ...key, reply_skills: reply, strategy_skills: strategy, required_calls: requiredCalls, solution, optional_tools: optional };
  if (answerInstead === undefined) delete adapted.answer_instead;
  else adapted.answer_instead = answerInstead;
  return { ...task, answer_key: adapted };
}

/** How many seeds a task of a served intent may try before the harness is said not to serve it. */
const SERVE_ATTEMPTS = 48;

/**
 * The generated task of `(seed, locale, intent, split)` in the harness's names, or null when none of the
 * seed's redraws fits the harness. Deterministic: the task id (which carries `seed`) regenerates it.
 */
export function generateFor(set: HarnessSet, seed: number, locale: Locale, intent: Intent, split: Split): Task | null {
  const b = set.bindings;
  if (b.identity && isBuiltinIntent(intent)) return generateTask(seed, locale, { intent, split });
  return generateForWithKind(set, seed, locale, intent, split)?.task ?? null;
}

/** `generateFor` with the sub-kind that built the task (the traffic-mix measurement counts them). */
export function generateForWithKind(set: HarnessSet, seed: number, locale: Locale, intent: Intent, split: Split): { task: Task; sub_kind: string; kind: string } | null {
  const b = set.bindings;
  if (!isBuiltinIntent(intent)) {
    // A harness's own intent: its module makes the task in the harness's names (no translation).
    const made = generateCustom(set, seed, locale, intent, split);
    return made.ok ? { task: made.task, sub_kind: made.sub_kind, kind: made.kind } : null;
  }
  if (b.identity) return generateTaskWithKind(seed, locale, { intent, split });
  if (b.intents.get(intent)?.generate !== true) return null;
  for (let k = 0; k < SERVE_ATTEMPTS; k++) {
    const s = k === 0 ? seed : deriveSeed(seed, `serve:${k}`);
    const built = generateTaskWithKind(s, locale, { intent, split });
    const adapted = adaptTask(built.task, b);
    if (adapted) return { task: k === 0 ? adapted : { ...adapted, id: generatedTaskId(seed, locale, intent, split) }, sub_kind: built.sub_kind, kind: built.kind };
  }
  return null;
}

const servedMemo = new WeakMap<HarnessSet, Map<string, readonly Intent[]>>();

/**
 * The intents the generator serves for a harness, in INTENTS order: bound with `generate` (the default),
 * and with at least one generated task that fits the harness among the first seeds.
 */
export function generatedIntents(set: HarnessSet, locale: Locale, split: Split): readonly Intent[] {
  let memo = servedMemo.get(set);
  if (!memo) servedMemo.set(set, (memo = new Map()));
  const key = `${locale}/${split}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const builtin: Intent[] = INTENTS.filter((intent) => {
    if (set.bindings.intents.get(intent)?.generate !== true) return false;
    if (set.bindings.identity) return true;
    for (let seed = 0; seed < 8; seed++) if (generateFor(set, seed, locale, intent, split)) return true;
    return false;
  });
  // The harness's own intents, after the built-in ones in harness.yaml order, when their modules passed
  // their trial (a harness whose module fails is refused at start-up; a served list never offers it).
  const custom = checkIntentModules(set).length > 0 ? [] : set.bindings.customIntents.filter((i) => set.intentModules.has(i) && set.locales.includes(locale));
  const out = custom.length === 0 ? builtin : [...builtin, ...custom];
  memo.set(key, out);
  return out;
}
