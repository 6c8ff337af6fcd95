/**
 * The environment's config (harness, tasks, rewards, limits, defaults) and what a reset builds with: the
 * task it picks and the variant it realises. Reset requests are resolved into episodes by
 * env/reset-plan.ts (one step shared by sessions, `HarnessGymEnv` in env/gym.ts and `createEpisode`), so
 * in-process and remote runs agree.
 */
import type { Intent, Locale, Split, Task } from '../protocol/domain.js';
import { INTENTS } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import type { SurfaceMap } from '../protocol/surface.js';
import { IdentityMap } from '../protocol/surface.js';
import type { ErrorInfo } from '../protocol/errors.js';
import type { ResetOptionsWire, VariantSpec as VariantSpecWire } from '../protocol/wire.js';
import { EnvError } from '../protocol/errors.js';
import { embeddedHarness } from '../harness/index.js';
import type { HarnessSet } from '../harness/index.js';
import {
  FAMILIES,
  OPERATORS,
  PRESET_NAMES,
  VARIANT_POOL,
  buildVariant,
  compiledVariantSlots,
  onPoolStarted,
  parseVariant,
  prepareVariantSlot,
  variantPoolKey,
  variantSlotCompiled,
} from '../harness-variants/index.js';
import type { VariantSpec } from '../harness-variants/index.js';
import type { HarnessTransform } from '../harness-variants/index.js';
import { DEFAULT_PROFILE, defaultRegistry, validateProfile } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';
import type { Episode } from './episode.js';
import type { World } from '../mock-services/index.js';
import { GeneratorTaskSource, mixIntent, mixShares, splitsOf, taskSplitFor } from './tasks/index.js';
import type { IntentMix, TaskSource, TaskSplit, VariantSplit } from './tasks/index.js';

/** Server-wide limits that bound every episode (PROTOCOL.md `welcome.limits`). */
export interface EpisodeLimits {
  /** Hard cap on assistant turns; an episode's cap is the least of this, the variant's and the option. */
  max_turns: number;
  /** Tool errors after which an episode is truncated with `error_cap`. */
  max_errors: number;
}

/** Defaults applied when a reset item leaves an option out (PROTOCOL.md `welcome.defaults`). */
export interface EnvDefaults {
  /** A preset name or a VariantSpec (the server's `defaults.variant`); `welcome.defaults.variant` is its name or compact JSON. */
  variant: string | VariantSpecWire;
  parser: string;
  observation: 'delta' | 'full';
  locale: Locale;
  rewards: string;
  /**
   * The task split of reset items whose task selector names none (the server's `defaults.task_split`):
   * `train`, the held-out `eval`, or `all` (each episode's split drawn from its seed, env/tasks/mix.ts
   * `taskSplitFor`). Absent (records made before it): `train`.
   */
  task_split?: TaskSplit;
  /**
   * The intent mix of reset items that name no intent (the server's `defaults.task_mix`, normalised by
   * env/tasks/mix.ts `parseMix`). Absent: the production mix (`INTENT_WEIGHTS`), and task files keep their
   * own rule (the seed-th matching task of any intent).
   */
  task_mix?: IntentMix;
}

/** Everything episode resolution needs. Built once, then shared (frozen) by every episode. */
export interface EnvConfig {
  /** The harness episodes are played in (its variants are drawn from it): the embedded one by default. */
  harness: HarnessSet;
  taskSource: TaskSource;
  registry: RewardRegistry;
  profiles: ReadonlyMap<string, RewardProfile>;
  limits: EpisodeLimits;
  defaults: EnvDefaults;
  /** HSA operators that augmented variants may use (all of them by default; tests and reports narrow it). */
  operators: readonly HarnessTransform[];
  /**
   * Compiled variants kept per variant spec (harness-variants/build.ts `VARIANT_POOL`, the server's
   * `variant_pool`): a reset draws one by its variant seed, then fits it to its task. 0: none kept, each
   * reset compiles its own. Part of what a seed means: records carry it and replay uses theirs.
   */
  variantPool: number;
  /**
   * `defaults.variant` parsed (a `VariantChoice`), built with the config: resets that name no variant
   * play it without parsing it again (env/reset-plan.ts `defaultVariantChoice`). `given` is
   * `defaults.variant` itself.
   */
  defaultVariant: VariantChoice;
}

/** A variant as resolved once: what was given (records and groups keep it) and what it means. */
export interface VariantChoice {
  /** The variant as given: a preset name or a spec object (what records carry). */
  readonly given: string | VariantSpecWire;
  /** What it means: `null` for the base harness. */
  readonly spec: VariantSpec | null;
  /** The preset it names, when it names one. */
  readonly preset?: string;
}

/** A variant field parsed into a `VariantChoice`, or why it is not one (`range`: a range error's details). */
export function parseVariantChoice(
  variant: unknown,
): { ok: true; choice: VariantChoice } | { ok: false; message: string; range?: Record<string, unknown> } {
  const parsed = parseVariant(variant);
  if (!parsed.ok) return parsed;
  const choice: VariantChoice =
    parsed.preset === undefined
      ? { given: variant as VariantSpecWire, spec: parsed.spec }
      : { given: variant as string, spec: parsed.spec, preset: parsed.preset };
  return { ok: true, choice };
}

/** A config's default variant parsed, or a TypeError naming it (a config's defaults are checked where it is built). */
export function defaultChoiceOf(variant: string | VariantSpecWire): VariantChoice {
  const parsed = parseVariantChoice(variant);
  if (!parsed.ok) throw new TypeError(`defaults.variant: ${parsed.message}`);
  return parsed.choice;
}

export const DEFAULT_LIMITS: EpisodeLimits = { max_turns: 12, max_errors: 6 };
export const DEFAULT_DEFAULTS: EnvDefaults = {
  variant: 'identity',
  parser: 'auto',
  observation: 'delta',
  locale: 'zh-CN',
  rewards: 'default',
  task_split: 'train',
};

/** The split of a variant (a preset name or a spec): the spec's `split`, `none` for the base harness; null when it is not a variant. */
export function variantSplitOf(variant: unknown): VariantSplit | null {
  const parsed = parseVariant(variant);
  if (!parsed.ok) return null;
  return parsed.spec === null ? 'none' : parsed.spec.split;
}

/**
 * Check profiles given in code as a profile file is checked (rewards/profile.ts `validateProfile`): a
 * misspelt module or parameter, a gate on a module the profile lacks, a weight that is not finite. Throws
 * an `EnvError` (`INVALID_MESSAGE`) naming the profile and every problem; `details.errors` lists them.
 */
export function checkProfiles(profiles: ReadonlyMap<string, RewardProfile>, registry: RewardRegistry): void {
  const errors: string[] = [];
  for (const [name, profile] of profiles) {
    if (profile === DEFAULT_PROFILE) continue;
    const v = validateProfile(profile, registry);
    if (!v.ok) for (const e of v.errors) errors.push(`profile "${name}": ${e}`);
    else if (profile.name !== name) errors.push(`profile "${name}": its name is "${profile.name}"`);
  }
  if (errors.length > 0) {
    throw new EnvError({ code: 'INVALID_MESSAGE', message: `invalid reward profile: ${errors.join('; ')}`, details: { errors } });
  }
}

/**
 * A config with the embedded defaults: generated tasks, the built-in reward modules and profile. Profiles
 * given here are validated against the registry like a profile file (`checkProfiles`; throws on a bad one).
 */
export function defaultEnvConfig(overrides: Partial<EnvConfig> = {}): EnvConfig {
  const registry = overrides.registry ?? defaultRegistry();
  const harness = overrides.harness ?? embeddedHarness();
  if (overrides.profiles !== undefined) checkProfiles(overrides.profiles, registry);
  const defaults = overrides.defaults ?? DEFAULT_DEFAULTS;
  const given = overrides.defaultVariant;
  return {
    harness,
    taskSource: overrides.taskSource ?? new GeneratorTaskSource(harness),
    registry,
    profiles: overrides.profiles ?? new Map([[DEFAULT_PROFILE.name, DEFAULT_PROFILE]]),
    limits: overrides.limits ?? DEFAULT_LIMITS,
    defaults,
    operators: overrides.operators ?? OPERATORS,
    variantPool: overrides.variantPool ?? VARIANT_POOL,
    defaultVariant: given !== undefined && given.given === defaults.variant ? given : defaultChoiceOf(defaults.variant),
  };
}

/** Reset options an episode is created with (PROTOCOL.md `ResetItem.options`, less what the session handles). */
export type ResetOptions = Omit<ResetOptionsWire, 'group_share' | 'oracle_hints'>;

/** A resolved reset request: the seed is always known here (the server draws missing ones). */
export interface EpisodeRequest {
  episode_id: string;
  seed: number;
  task?: { id?: string; intent?: string; split?: Split };
  variant?: unknown;
  options?: ResetOptions;
  /** GRPO groups: the group's task, reused by every member instead of picking one from `task`. */
  task_override?: Task;
  /** Seed of the variant sampler; defaults to `seed`. A `group_share: "task"` member passes its own. */
  variant_seed?: number;
  /**
   * GRPO groups sharing "task+variant": the variant the group's first member resolved (the same task,
   * seed and variant would build it again, identical), with the task as it presents it. Members then
   * share the variant's harness and map instead of each building and holding their own.
   */
  variant_override?: SharedVariant;
}

/** A harness as the policy sees it, with its map back to canonical form. */
export interface ResolvedVariant {
  variant_id: string;
  harness: Harness;
  map: SurfaceMap;
}

/**
 * What episodes of one task, seed and variant can share: the resolved variant, the task as it presents
 * it, and the task's world. An episode alone holds its world weakly (regenerating it when collected);
 * episodes that share one hold it, so a group pays one world for all its members and never regenerates it.
 */
export interface SharedVariant {
  variant: ResolvedVariant;
  task: Task;
  world: World;
}

/** What an episode's variant is, to share it with another episode of the same task, seed and variant. */
export function sharedVariantOf(episode: Episode): SharedVariant {
  const p = episode.params;
  return { variant: { variant_id: p.variant_id, harness: p.harness, map: p.map }, task: p.task, world: episode.world };
}

const identityMaps = new WeakMap<object, IdentityMap>();

/** The identity variant: the base harness itself (the fixed-harness baseline). */
export function identityVariant(locale: Locale, set: HarnessSet = embeddedHarness()): ResolvedVariant {
  const harness = set.get(locale);
  let map = identityMaps.get(harness);
  if (!map) {
    map = new IdentityMap(
      harness.tools.map((t) => t.function.name),
      harness.skills.map((s) => s.name),
    );
    identityMaps.set(harness, map);
  }
  return { variant_id: 'identity', harness, map };
}

/** A pool `prepareVariantsInBackground` finished: its locale and preset, the slots it compiled itself, and how long it took. */
export interface PreparedPool {
  locale: Locale;
  /** The preset (`train`, `eval`) or, for the default variant given as a spec, its JSON. */
  variant: string;
  slots: number;
  ms: number;
}

/**
 * Compile, in the background, the rest of each variant pool a server draws from, once a reset has drawn
 * from it: the pools of the `train` and `eval` presets and of the default variant when it is a spec, in
 * each locale of the harness. A few slots per turn of the event loop, so that requests are not held up; a
 * reset that draws a slot not compiled yet compiles it itself. A pool that no reset draws from is never
 * compiled: a pool holds megabytes per thread that holds episodes, and compiling all four at start (two
 * presets, two locales) kept four times what a trainer on one preset and one locale uses (figures: bench/RESULTS.md "Design measurements cited by the code"). Returns a function that stops it (a server's close).
 */
export function prepareVariantsInBackground(config: EnvConfig, onPrepared?: (done: PreparedPool) => void): () => void {
  const pool = config.variantPool;
  if (pool === 0) return () => {};
  const wanted: { base: Harness; locale: Locale; variant: string; spec: VariantSpec; key: string }[] = [];
  // The two presets, and the config's default variant as it was parsed with the config.
  const choices = [parseVariantChoice('train'), parseVariantChoice('eval'), { ok: true as const, choice: config.defaultVariant }];
  for (const parsed of choices) {
    if (!parsed.ok) continue;
    const { given, spec } = parsed.choice;
    if (spec === null || spec.seed !== undefined) continue;
    const key = variantPoolKey(spec, pool);
    if (wanted.some((w) => w.key === key)) continue;
    const variant = typeof given === 'string' ? given : JSON.stringify(given);
    for (const locale of config.harness.locales) wanted.push({ base: config.harness.get(locale), locale, variant, spec, key });
  }
  // Pools drawn from and not finished, oldest first; the first is the one being compiled.
  const queue: typeof wanted = [];
  let slot = 0;
  let compiled = 0;
  let started = 0;
  let timer: NodeJS.Immediate | null = null;
  const turn = () => {
    timer = null;
    const until = performance.now() + 2;
    while (queue.length > 0 && performance.now() < until) {
      const job = queue[0];
      if (slot >= pool) {
        queue.shift();
        onPrepared?.({ locale: job.locale, variant: job.variant, slots: compiled, ms: performance.now() - started });
        slot = 0;
        compiled = 0;
        started = performance.now();
        continue;
      }
      if (!variantSlotCompiled(job.base, job.spec, slot, pool, config.operators)) {
        prepareVariantSlot(job.base, job.spec, slot, pool, config.operators);
        compiled++;
      }
      slot++;
    }
    if (queue.length > 0) timer = setImmediate(turn);
  };
  const want = (base: Harness, key: string) => {
    const job = wanted.find((w) => w.base === base && w.key === key);
    if (job === undefined || queue.includes(job)) return;
    if (queue.length === 0) started = performance.now();
    queue.push(job);
    timer ??= setImmediate(turn);
  };
  const stopListening = onPoolStarted((p) => {
    if (p.pool === pool && p.operators === config.operators) want(p.base, p.key);
  });
  // Pools already drawn from before this started (another environment in the same thread).
  for (const w of wanted) if (compiledVariantSlots(w.base, w.spec, pool, config.operators) > 0) want(w.base, w.key);
  return () => {
    stopListening();
    if (timer !== null) clearImmediate(timer);
    timer = null;
    queue.length = 0;
  };
}

/** Variant presets (`welcome.variant_presets`). */
export const VARIANT_PRESETS: readonly string[] = PRESET_NAMES;

/** Operator families a VariantSpec may enable (`welcome.variant_families`). */
export const VARIANT_FAMILIES: readonly string[] = FAMILIES;

/**
 * Resolve a reset item's `variant` (preset name or spec) for a task: the identity harness, or an
 * augmented one built from the spec with `seed` (the spec's own seed wins).
 */
export function resolveVariant(
  variant: unknown,
  task: Task,
  seed: number,
  operators: readonly HarnessTransform[] = OPERATORS,
  set: HarnessSet = embeddedHarness(),
  pool: number = VARIANT_POOL,
): { ok: true; variant: ResolvedVariant; task: Task } | { ok: false; error: ErrorInfo } {
  const parsed = parseVariant(variant);
  if (!parsed.ok) return { ok: false, error: { code: 'INVALID_VARIANT', message: parsed.message } };
  return { ok: true, ...variantFor(parsed.spec, task, seed, operators, set, pool) };
}

/**
 * A parsed variant (`null`: the base harness) realised for a task with `seed` (the spec's own seed wins):
 * the identity harness, or an augmented one built from the spec. What `resolveVariant` and a reset plan
 * (env/reset-plan.ts) build with; it parses nothing.
 */
export function variantFor(
  spec: VariantSpec | null,
  task: Task,
  seed: number,
  operators: readonly HarnessTransform[],
  set: HarnessSet,
  pool: number,
): { variant: ResolvedVariant; task: Task } {
  if (spec === null) return { variant: identityVariant(task.locale, set), task };
  const built = buildVariant(set.get(task.locale), spec, seed, task, operators, pool);
  if (built.identity) return { variant: identityVariant(task.locale, set), task };
  return { variant: { variant_id: built.variant_id, harness: built.harness, map: built.map }, task: built.task };
}

/** Resolve the task for a reset item. */
export function resolveTask(
  config: EnvConfig,
  req: EpisodeRequest,
  locale: Locale,
): { ok: true; task: Task } | { ok: false; error: ErrorInfo } {
  const sel = req.task ?? {};
  // The built-in intents and the harness's own (docs/HARNESS.md "Intents of your own").
  const known: readonly string[] =
    config.harness.bindings.customIntents.length === 0 ? INTENTS : [...INTENTS, ...config.harness.bindings.customIntents];
  if (sel.intent !== undefined && !known.includes(sel.intent)) {
    // Name the intents a reset can ask for here (docs/HARNESS.md "Intents of your own"): those the task
    // source serves in this locale (and the selector's split, or either), else every known one.
    const source = config.taskSource;
    const splits: readonly Split[] = sel.split === 'train' || sel.split === 'eval' ? [sel.split] : ['train', 'eval'];
    const served = source.served === undefined ? known : known.filter((i) => splits.some((sp) => (source.served as NonNullable<TaskSource['served']>).call(source, locale, sp).includes(i as Intent)));
    return {
      ok: false,
      error: {
        code: 'INVALID_MESSAGE',
        message: `unknown intent "${sel.intent}"; harness "${config.harness.identity.name}" serves ${served.join(', ') || 'none'} in ${locale}`,
        details: { intents: known, served },
      },
    };
  }
  // A selector without a split gets the default's (all: drawn from the seed); without an intent, the
  // default mix draws it. A task id names its task whatever the defaults.
  const byId = sel.id !== undefined;
  const split = sel.split ?? (byId ? undefined : taskSplitFor(req.seed, config.defaults.task_split ?? 'train'));
  const mix = byId || sel.intent !== undefined ? undefined : config.defaults.task_mix;
  const picked = config.taskSource.pick(
    req.seed,
    { id: sel.id, intent: sel.intent as Task['intent'] | undefined, split, ...(mix !== undefined ? { mix } : {}) },
    locale,
  );
  if (!picked.ok) return { ok: false, error: { code: picked.code, message: picked.message } };
  return { ok: true, task: picked.task };
}

/**
 * What is wrong with a config's task defaults for its task source, one line each naming the key: a mix
 * that gives weight to no intent the source serves in some locale and split the defaults reach (every reset
 * there would be `UNKNOWN_TASK`), and, with `split`, a task split the source has no task of in a locale
 * it serves. `locales` (default: the harness's) are the locales checked; those where the source serves
 * nothing at all are left out. Empty: fine. The CLI checks its `--task-split` and `--mix` with it too.
 */
export function taskDefaultProblems(config: EnvConfig, check: { split?: boolean; locales?: readonly Locale[] } = {}): string[] {
  const source = config.taskSource;
  if (source.served === undefined || (config.defaults.task_mix === undefined && check.split !== true)) return [];
  const served = (locale: Locale, split: Split) => (source.served as NonNullable<TaskSource['served']>).call(source, locale, split);
  const choice = config.defaults.task_split ?? 'train';
  const mix = config.defaults.task_mix;
  const name = source.name === 'generator' ? `harness "${config.harness.identity.name}"` : source.name;
  const out: string[] = [];
  // A snake_case key that is no built-in intent passes parseMix as a harness's own: it must be one here.
  if (mix !== undefined) {
    const own = new Set<string>(config.harness.bindings.customIntents);
    for (const l of config.harness.locales) for (const sp of ['train', 'eval'] as const) for (const i of served(l, sp)) own.add(i);
    for (const k of Object.keys(mix)) {
      if (!(INTENTS as readonly string[]).includes(k) && !own.has(k))
        out.push(
          `defaults.task_mix: unknown intent "${k}": ${name} has no such intent (intents: ${[...INTENTS, ...[...own].filter((i) => !(INTENTS as readonly string[]).includes(i))].join(', ')})`,
        );
    }
  }
  for (const locale of check.locales ?? config.harness.locales) {
    if (!config.harness.locales.includes(locale)) continue;
    if (served(locale, 'train').length === 0 && served(locale, 'eval').length === 0) continue;
    for (const split of splitsOf(choice)) {
      const intents = served(locale, split);
      if (intents.length === 0) {
        const other: Split = split === 'train' ? 'eval' : 'train';
        if (check.split)
          out.push(
            `defaults.task_split: ${choice}, but ${name} has no ${split} task in locale ${locale} (it has ${other} tasks); give task split ${other}`,
          );
        continue;
      }
      if (mix !== undefined && mixIntent(0, intents, mix) === undefined) {
        out.push(
          `defaults.task_mix: gives weight only to ${Object.keys(mixShares(mix)).join(', ')}, and ${name} serves none of them in locale ${locale}, split ${split} (it serves ${intents.join(', ')})`,
        );
      }
    }
  }
  return out;
}
