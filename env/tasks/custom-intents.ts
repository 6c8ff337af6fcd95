/**
 * Tasks of a harness's own intents (docs/HARNESS.md "Intents of your own: intents/<module>.mjs"): a task
 * template module of the harness directory makes them, in the room the built-in generator would use for the
 * same seed and split, with a seeded stream of its own, so they are drawn beside the built-in intents by
 * weight and regenerated from their task ids like any generated task.
 *
 * A module is code a team wrote: what it returns is data to check, never trusted. Every task it makes is
 * checked with the task files' schema (`TaskSchema`) and against the harness (`harnessTaskProblems`), and
 * a throw, a wrong shape or a key naming a tool the harness lacks is a typed error naming the module, the
 * seed and the field, never a crash. `checkIntentModules` runs each module over a few seeds when the
 * harness's tasks load, so a broken module refuses the harness at start-up.
 */
import type { CanonicalCall, Intent, Locale, Split, Task, ToolOutcome } from '../../protocol/domain.js';
import { emptyWorldState, isBuiltinIntent } from '../../protocol/domain.js';
import { Rng, deriveSeed } from '../../protocol/rng.js';
import type { World } from '../../mock-services/index.js';
import { callService, worldFor } from '../../mock-services/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { bindingLabel, callCustomService } from '../../harness/index.js';
import type { IntentExample } from '../../harness/index.js';
import { provideIntentExamples } from '../../harness/index.js';
import { TaskSchema } from './schema.js';
import { generatedTaskId, taskWorldSeed } from './generate.js';
import { harnessTaskProblems } from './harness-check.js';
import { withCustomWeights } from './mix.js';
import type { IntentMix } from './mix.js';

/** What `generate(ctx)` of a task template module is given. Everything in it is the module's to read. */
export interface IntentContext {
  /** The intent being made. */
  intent: string;
  /** The task's seed; `rng` is already seeded from it (stream `task/build/<intent>`). */
  seed: number;
  split: Split;
  /** The task's locale: the language of its message and reference reply. */
  locale: Locale;
  /** The harness's locales. */
  locales: readonly Locale[];
  /** Which room this is (0, then 1, 2... after `generate` returned null: a seed-derived sequence of rooms). */
  attempt: number;
  /** The seeded stream: `next()`, `int(lo, hi)`, `chance(p)`, `pick(items)`, `shuffle(items)`, `sample(items, n)`, `weighted({k: w})`. */
  rng: Rng;
  /** The episode's world (a copy): products, room, viewers, orders, coupons, flash sales... (docs/HARNESS.md "The world object"). */
  world: World;
  /** A viewer of the room, drawn for this task (the task's default asker). */
  viewer: World['viewers'][number];
  /** The product on screen. */
  current: World['products'][number];
  /** The reply skill harness.yaml binds to the intent. */
  skill: string;
  /** The harness's tools by what answers them: `{'inventory.check_stock': 'stock_lookup', 'custom.restock-eta': 'restock_eta'}`. */
  tools: Readonly<Record<string, string>>;
  /** The harness's strategy skills by built-in role (`multi-intent`, `refusal-whitelist`, ...). */
  strategies: Readonly<Record<string, string>>;
  /** Call a harness tool on a throwaway state (as the asking viewer, or `viewer_id`): what the agent would read. */
  call(tool: string, args: Record<string, unknown>, viewer_id?: string): ToolOutcome;
}

/** A task of a custom intent, or why none could be made (`message` names the module and the field). */
export type CustomTaskResult = { ok: true; task: Task; sub_kind: string; kind: string } | { ok: false; message: string };

/** How many rooms a seed tries when `generate` returns null (the built-in generator's count). */
const WORLD_ATTEMPTS = 16;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field that may be given per locale (`{zh-CN: ..., en: ...}`) or in the task's locale alone. */
function localized(v: unknown, locale: Locale): unknown {
  return isObj(v) && Object.keys(v).every((k) => k === 'zh-CN' || k === 'en') && Object.keys(v).length > 0 ? v[locale] : v;
}

function callFor(set: HarnessSet, world: World, locale: Locale, asker: string): IntentContext['call'] {
  return (tool, args, viewer_id = asker) => {
    const b = set.bindings.tools.get(tool);
    if (b === undefined) return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `${tool} is not a tool of the harness` } };
    const state = emptyWorldState();
    if (b.kind === 'builtin') return callService(b.op, args, { world, state, viewer_id });
    const service = set.services.get(b.module);
    if (service === undefined) return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `no service ${b.module}` } };
    return callCustomService(service, tool, args, { world, state, viewer_id, locale });
  };
}

function bindingMaps(set: HarnessSet): { tools: Record<string, string>; strategies: Record<string, string> } {
  const tools: Record<string, string> = {};
  for (const [name, b] of set.bindings.tools) if (!Object.hasOwn(tools, bindingLabel(b))) tools[bindingLabel(b)] = name;
  return { tools: Object.freeze(tools), strategies: Object.freeze(Object.fromEntries(set.bindings.strategies)) };
}

/**
 * The task of a custom intent for `(seed, locale, split)`: the module's draft in the seed's room (or the next
 * of a seed-derived sequence of rooms while it returns null), checked. Deterministic when the module is.
 */
export function generateCustom(set: HarnessSet, seed: number, locale: Locale, intent: Intent, split: Split): CustomTaskResult {
  const mod = set.intentModules.get(intent);
  const binding = set.bindings.intents.get(intent);
  if (mod === undefined || binding?.skill === undefined || isBuiltinIntent(intent)) {
    return { ok: false, message: `harness "${set.identity.name}" has no intent ${intent} of its own` };
  }
  const where = `${mod.file}: generate (seed ${seed}, ${locale}, ${split})`;
  const { tools, strategies } = bindingMaps(set);
  const harness = set.get(locale);
  for (let attempt = 0; attempt < WORLD_ATTEMPTS; attempt++) {
    const worldSeed = attempt === 0 ? taskWorldSeed(seed, split) : deriveSeed(taskWorldSeed(seed, split), `retry:${attempt}`);
    // The module gets a copy: the cached world is shared by every episode of the process.
    const world = structuredClone(worldFor(worldSeed, locale));
    const rng = new Rng(seed, `task/build/${intent}`);
    const viewer = new Rng(seed, `task/viewer/${intent}`).pick(world.viewers);
    const current = world.products.find((p) => p.link_no === world.room.current_link) ?? world.products[0];
    const ctx: IntentContext = {
      intent,
      seed,
      split,
      locale,
      locales: set.locales,
      attempt,
      rng,
      world,
      viewer,
      current,
      skill: binding.skill,
      tools,
      strategies,
      call: callFor(set, worldFor(worldSeed, locale), locale, viewer.viewer_id),
    };
    let out: unknown;
    try {
      out = mod.generate(ctx);
    } catch (err) {
      return { ok: false, message: `${where}: (module): threw: ${(err as Error)?.message ?? String(err)}` };
    }
    if (out === null || out === undefined) continue;
    if (!isObj(out))
      return {
        ok: false,
        message: `${where}: (task): must return a task object or null, got ${Array.isArray(out) ? 'an array' : typeof out}`,
      };
    const known = new Set(['sub_kind', 'viewer_id', 'messages', 'history', 'answer_key']);
    for (const k of Object.keys(out))
      if (!known.has(k))
        return { ok: false, message: `${where}: ${k}: unknown field (a task has sub_kind, viewer_id, messages, history, answer_key)` };
    const key = out.answer_key;
    if (!isObj(key)) return { ok: false, message: `${where}: answer_key: required, an object` };
    const msgs = localized(out.messages, locale);
    if (msgs === undefined)
      return { ok: false, message: `${where}: messages: required (a string, a list of strings, or either per locale)` };
    const draft = {
      id: generatedTaskId(seed, locale, intent, split),
      intent,
      locale,
      split,
      world_seed: worldSeed,
      viewer_id: out.viewer_id ?? viewer.viewer_id,
      messages: typeof msgs === 'string' ? [msgs] : msgs,
      history: out.history ?? [],
      answer_key: {
        expect: 'answer',
        reply_skills: [binding.skill],
        strategy_skills: [],
        required_calls: [],
        solution: [],
        optional_tools: [],
        required_facts: [],
        forbidden_facts: [],
        expected_state: emptyWorldState(),
        cta: false,
        ...key,
        reference_reply: localized(key.reference_reply, locale),
      },
    };
    const parsed = TaskSchema.safeParse(draft);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, message: `${where}: ${issue.path.map(String).join('.') || '(task)'}: ${issue.message}` };
    }
    const task = parsed.data;
    if (!world.viewers.some((v) => v.viewer_id === task.viewer_id)) {
      return { ok: false, message: `${where}: viewer_id: "${task.viewer_id}" is none of the room's viewers` };
    }
    const problems = harnessTaskProblems(task, harness);
    if (problems.length > 0) return { ok: false, message: `${where}: ${problems[0]}` };
    // No SUB_KINDS entry builds it: the module's own sub-kind (or its name) is what `mix --sub-kinds` counts.
    const sub = typeof out.sub_kind === 'string' && /^[a-z][a-z0-9_]*$/.test(out.sub_kind) ? out.sub_kind : mod.name;
    return { ok: true, task, sub_kind: sub, kind: sub };
  }
  return { ok: false, message: `${where}: returned null in ${WORLD_ATTEMPTS} rooms: no room fits` };
}

/**
 * The production mix of a harness: `INTENT_WEIGHTS` with the harness's own intents at their weights (1 is
 * a handoff's share); undefined (the production mix itself) for a harness without intents of its own.
 */
export function harnessMix(set: HarnessSet): IntentMix | undefined {
  const own = set.bindings.customIntents;
  if (own.length === 0) return undefined;
  return withCustomWeights(new Map(own.map((i) => [i, set.bindings.intents.get(i)?.weight ?? 1])));
}

/** How many seeds per locale and split a module is tried with when the harness's tasks load. */
export const TRIAL_SEEDS = 4;

const trials = new WeakMap<HarnessSet, string[]>();

/**
 * Run each task template module of the harness for the first `TRIAL_SEEDS` seeds of each locale and split:
 * the first problem of each module, named by its file (an empty list: every module made valid tasks).
 * Memoised per harness.
 */
export function checkIntentModules(set: HarnessSet): string[] {
  const hit = trials.get(set);
  if (hit) return hit;
  const errors: string[] = [];
  for (const intent of set.intentModules.keys()) {
    let problem: string | undefined;
    for (const locale of set.locales) {
      for (const split of ['train', 'eval'] as const) {
        for (let seed = 0; seed < TRIAL_SEEDS && problem === undefined; seed++) {
          const r = generateCustom(set, seed, locale, intent, split);
          if (!r.ok) problem = r.message;
        }
      }
    }
    if (problem !== undefined) errors.push(problem);
  }
  trials.set(set, errors);
  return errors;
}

const examples = new WeakMap<object, Map<string, readonly IntentExample[]>>();

/**
 * Examples of a custom intent for the memorizer (harness/intents.ts `intentExamples`): the tasks of train
 * seeds 0..count-1, their worlds, and what their solution's calls return.
 */
function examplesOf(setObj: object, intent: string, locale: Locale, count: number): readonly IntentExample[] {
  const set = setObj as HarnessSet;
  let memo = examples.get(set);
  if (!memo) examples.set(set, (memo = new Map()));
  const k = `${intent}/${locale}/${count}`;
  const hit = memo.get(k);
  if (hit) return hit;
  const out: IntentExample[] = [];
  if (set.intentModules?.has(intent as Intent) && set.locales.includes(locale)) {
    for (let seed = 0; seed < count; seed++) {
      const r = generateCustom(set, seed, locale, intent as Intent, 'train');
      if (!r.ok) continue;
      const world = worldFor(r.task.world_seed, locale);
      const call = callFor(set, world, locale, r.task.viewer_id);
      const results = r.task.answer_key.solution.map((c: CanonicalCall) => {
        const o = call(c.name, c.arguments);
        return o.ok ? o.data : null;
      });
      out.push({ task: r.task, world, results });
    }
  }
  memo.set(k, out);
  return out;
}

provideIntentExamples(examplesOf);
