/**
 * One resolution step from a reset request to an episode. A request is read and checked here, once:
 * the item's shape (`ResetItemSchema`), its variant (a preset name or a spec, parsed to a typed
 * `VariantChoice`), its options (the parser and reward profile looked up, faults, turn cap, locale,
 * observation) and its task reference. What comes out, a `ResetPlan`, is typed: `startEpisode` below it,
 * the session's groups and the recorder take parsed values and parse nothing again.
 *
 * The three players resolve through it: `SessionEnv` (a wire item, `resolveReset`), the in-process
 * `HarnessGymEnv` (its arguments as an item, `resolveReset`) and `createEpisode` (a request built in
 * code: eval, replay, benches; `resolveRequest`). Errors keep the order resets always reported them in:
 * the item's shape and a variant's range come first, before the session takes an id or draws a seed;
 * what the options and the variant mean is reported after (`ResetPlan.late`), as when the episode was built.
 *
 * This file sits above env.ts (which holds the config, task and variant resolution it builds with), so
 * that env.ts imports nothing from it and the import graph stays acyclic.
 */
import type { Locale } from '../protocol/domain.js';
import type { ErrorInfo } from '../protocol/errors.js';
import type { ResetItem } from '../protocol/wire.js';
import { ResetItemSchema, wireIssues } from '../protocol/wire.js';
import type { RewardProfile } from '../rewards/index.js';
import { Episode } from './episode.js';
import { PARSERS } from './parsers.js';
import type { ActionParser } from './parsers.js';
import { parseVariantChoice, resolveTask, variantFor } from './env.js';
import type { EnvConfig, EpisodeRequest, ResetOptions, SharedVariant, VariantChoice } from './env.js';

export type { VariantChoice } from './env.js';

/**
 * The config's default variant (`EnvConfig.defaultVariant`, parsed when the config was built). A config
 * spread with other defaults (`{...config, defaults: {...}}`) keeps the old `defaultVariant`: its `given`
 * is then not `defaults.variant`, and that variant is parsed here, for this reset.
 */
export function defaultVariantChoice(config: EnvConfig): ReturnType<typeof parseVariantChoice> {
  const d = config.defaultVariant;
  return d !== undefined && d.given === config.defaults.variant ? { ok: true, choice: d } : parseVariantChoice(config.defaults.variant);
}

/** Reset options resolved against a config: the objects an episode is built with. */
export interface ResolvedOptions {
  /** The options as given (records and wrappers keep them). */
  options: ResetOptions;
  locale: Locale;
  parser: ActionParser;
  profile: RewardProfile;
  faults: number;
  observation: 'delta' | 'full';
  /** The option's turn cap, when it gives one (the episode's is the least of it, the variant's and the server's). */
  max_turns?: number;
}

/**
 * Resolve options against a config: the parser and the reward profile looked up (a profile in a config
 * was checked against its registry when the config was built: `checkProfiles`, the reward loader), faults
 * and the turn cap checked (a wire item's schema already bounds them; a request built in code is checked
 * here). The first problem, in the order resets always reported them.
 */
export function resolveOptions(
  config: EnvConfig,
  options: ResetOptions,
): { ok: true; resolved: ResolvedOptions } | { ok: false; error: ErrorInfo } {
  const parserName = options.parser ?? config.defaults.parser;
  const parser = PARSERS.get(parserName);
  if (!parser) {
    return {
      ok: false,
      error: { code: 'INVALID_MESSAGE', message: `unknown parser "${parserName}"`, details: { parsers: [...PARSERS.keys()] } },
    };
  }
  const profileName = options.rewards ?? config.defaults.rewards;
  const profile = config.profiles.get(profileName);
  if (!profile) {
    return {
      ok: false,
      error: {
        code: 'INVALID_MESSAGE',
        message: `unknown reward profile "${profileName}"`,
        details: { profiles: [...config.profiles.keys()] },
      },
    };
  }
  const faults = options.faults ?? 0;
  if (!(faults >= 0 && faults <= 1)) return { ok: false, error: { code: 'INVALID_MESSAGE', message: 'options.faults must be in [0, 1]' } };
  if (options.max_turns !== undefined && !(Number.isInteger(options.max_turns) && options.max_turns >= 1)) {
    return { ok: false, error: { code: 'INVALID_MESSAGE', message: 'options.max_turns must be a positive integer' } };
  }
  const resolved: ResolvedOptions = {
    options,
    locale: options.locale ?? config.defaults.locale,
    parser,
    profile,
    faults,
    observation: options.observation ?? config.defaults.observation,
  };
  if (options.max_turns !== undefined) resolved.max_turns = options.max_turns;
  return { ok: true, resolved };
}

/** A wire item's options, less what the session handles (`group_share`, `oracle_hints`), copied as given. */
function episodeOptions(opts: NonNullable<ResetItem['options']>): ResetOptions {
  const options: ResetOptions = {};
  if (opts.parser !== undefined) options.parser = opts.parser;
  if (opts.max_turns !== undefined) options.max_turns = opts.max_turns;
  if (opts.locale !== undefined) options.locale = opts.locale;
  if (opts.rewards !== undefined) options.rewards = opts.rewards;
  if (opts.faults !== undefined) options.faults = opts.faults;
  if (opts.observation !== undefined) options.observation = opts.observation;
  return options;
}

/** A reset item, resolved: what a session needs to place it (ids, seed, group) and to build its episode. */
export interface ResetPlan {
  /** The item as the schema read it (its `episode_id`, `seed`, `group_id`, task selector). */
  item: ResetItem;
  /** The item's variant, parsed; absent when it names none (its group's or the default applies). */
  variant?: VariantChoice;
  /** The options, resolved; null when `late` says why they could not be. */
  resolved: ResolvedOptions | null;
  /** The options as given (what wrappers and records keep). */
  options: ResetOptions;
  group_share?: 'task' | 'task+variant';
  oracle_hints: boolean;
  /**
   * What is wrong with what the item means (its parser, profile or variant), reported once the session
   * took the item's id and drew its seed: the order resets always had (seed streams advance for it).
   */
  late: ErrorInfo | null;
}

/**
 * Resolve a raw reset item against a config: `{ok: false}` for what fails the item before anything is
 * taken for it (its shape, `options.oracle_hints` on a server that does not allow them, a variant's
 * range), else the plan (which may carry a `late` error).
 */
export function resolveReset(
  raw: unknown,
  config: EnvConfig,
  allowHints: boolean,
): { ok: true; plan: ResetPlan } | { ok: false; error: ErrorInfo } {
  const parsed = ResetItemSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'INVALID_MESSAGE', message: 'the reset item fails the schema', details: { issues: wireIssues(parsed.error.issues) } },
    };
  }
  const item = parsed.data;
  const opts = item.options ?? {};
  if (opts.oracle_hints === true && !allowHints) {
    return {
      ok: false,
      error: {
        code: 'INVALID_MESSAGE',
        message: 'options.oracle_hints is not allowed by this server',
        details: { issues: [{ path: ['options', 'oracle_hints'], message: 'not allowed by this server' }] },
      },
    };
  }
  const variant = item.variant === undefined ? undefined : parseVariantChoice(item.variant);
  if (variant !== undefined && !variant.ok && variant.range !== undefined) {
    return { ok: false, error: { code: 'INVALID_VARIANT', message: variant.message, details: variant.range } };
  }
  const options = episodeOptions(opts);
  const resolved = resolveOptions(config, options);
  const plan: ResetPlan = {
    item,
    resolved: resolved.ok ? resolved.resolved : null,
    options,
    oracle_hints: opts.oracle_hints === true,
    late: resolved.ok ? null : resolved.error,
  };
  if (variant !== undefined) {
    if (variant.ok) plan.variant = variant.choice;
    else plan.late ??= { code: 'INVALID_VARIANT', message: variant.message };
  }
  if (opts.group_share !== undefined) plan.group_share = opts.group_share;
  return { ok: true, plan };
}

/** An episode, fully resolved: what `startEpisode` builds (nothing in it is parsed again). */
export interface EpisodePlan {
  episode_id: string;
  seed: number;
  /** The task selector (ignored with `task_override`). */
  task?: EpisodeRequest['task'];
  /** The effective variant: the item's, its group's or the default. */
  variant: VariantChoice;
  /** The options, resolved (held, not copied field by field: a reset builds one plan). */
  resolved: ResolvedOptions;
  /** GRPO groups: the group's task, reused instead of picking one from `task`. */
  task_override?: EpisodeRequest['task_override'];
  /** Seed of the variant sampler; defaults to `seed`. */
  variant_seed?: number;
  /** GRPO groups sharing "task+variant": the first member's variant (see `EpisodeRequest.variant_override`). */
  variant_override?: SharedVariant;
}

/** Build an episode (not yet reset) from a plan: the task picked, the variant realised; or the task's error. */
export function startEpisode(config: EnvConfig, plan: EpisodePlan): { ok: true; episode: Episode } | { ok: false; error: ErrorInfo } {
  const task = plan.task_override ? { ok: true as const, task: plan.task_override } : resolveTask(config, plan, plan.resolved.locale);
  if (!task.ok) return task;
  // The harness speaks the task's language (a task file may carry its own locale).
  const variant = plan.variant_override
    ? plan.variant_override
    : variantFor(plan.variant.spec, task.task, plan.variant_seed ?? plan.seed, config.operators, config.harness, config.variantPool);
  const { harness, map, variant_id } = variant.variant;
  // The cap is the least of the option, the variant's own limit and the server's (a larger option is clamped).
  const opts = plan.resolved;
  const maxTurns = Math.min(opts.max_turns ?? Infinity, harness.limits.max_turns, config.limits.max_turns);
  const episode = new Episode({
    episode_id: plan.episode_id,
    seed: plan.seed,
    task: variant.task,
    source_task: task.task,
    harness,
    canonical: config.harness.get(task.task.locale),
    map,
    variant_id,
    variant_pool: config.variantPool,
    parser: opts.parser,
    max_turns: maxTurns,
    max_errors: config.limits.max_errors,
    faults: opts.faults,
    observation: opts.observation,
    profile: opts.profile,
    registry: config.registry,
    ...(plan.variant_override ? { world: plan.variant_override.world } : {}),
  });
  return { ok: true, episode };
}

/**
 * Resolve a request built in code (eval, replay, benches, tests): its options, then its variant (the
 * request's or the default), each once; the first problem as a typed error.
 */
export function resolveRequest(config: EnvConfig, req: EpisodeRequest): { ok: true; plan: EpisodePlan } | { ok: false; error: ErrorInfo } {
  const resolved = resolveOptions(config, req.options ?? {});
  if (!resolved.ok) return resolved;
  const variant = req.variant === undefined ? defaultVariantChoice(config) : parseVariantChoice(req.variant);
  if (!variant.ok) return { ok: false, error: { code: 'INVALID_VARIANT', message: variant.message } };
  const plan: EpisodePlan = { episode_id: req.episode_id, seed: req.seed, variant: variant.choice, resolved: resolved.resolved };
  if (req.task !== undefined) plan.task = req.task;
  if (req.task_override !== undefined) plan.task_override = req.task_override;
  if (req.variant_seed !== undefined) plan.variant_seed = req.variant_seed;
  if (req.variant_override !== undefined) plan.variant_override = req.variant_override;
  return { ok: true, plan };
}

/** Build an episode (not yet reset) from a request, or the item's typed error (`resolveRequest`, then `startEpisode`). */
export function createEpisode(config: EnvConfig, req: EpisodeRequest): { ok: true; episode: Episode } | { ok: false; error: ErrorInfo } {
  const plan = resolveRequest(config, req);
  return plan.ok ? startEpisode(config, plan.plan) : plan;
}

/** What a player fixed for a planned item: its id and seed, and what its group shares (`EpisodePlan`'s fields). */
export type Placement = Pick<EpisodePlan, 'episode_id' | 'seed' | 'task_override' | 'variant_seed' | 'variant_override'> & {
  /** The variant the item plays: its own, or its group's; absent: the default. */
  variant?: VariantChoice;
};

/**
 * A planned item's episode plan, once its player placed it: its `late` error if it has one, else the plan
 * with the effective variant (the placement's, else the config's default).
 */
export function planEpisode(
  config: EnvConfig,
  plan: ResetPlan,
  at: Placement,
): { ok: true; plan: EpisodePlan } | { ok: false; error: ErrorInfo } {
  if (plan.late !== null || plan.resolved === null)
    return { ok: false, error: plan.late ?? { code: 'INTERNAL', message: 'unresolved options' } };
  let variant = at.variant;
  if (variant === undefined) {
    const d = defaultVariantChoice(config);
    if (!d.ok) return { ok: false, error: { code: 'INVALID_VARIANT', message: d.message } };
    variant = d.choice;
  }
  const out: EpisodePlan = { episode_id: at.episode_id, seed: at.seed, variant, resolved: plan.resolved };
  if (plan.item.task !== undefined) out.task = plan.item.task;
  if (at.task_override !== undefined) out.task_override = at.task_override;
  if (at.variant_seed !== undefined) out.variant_seed = at.variant_seed;
  if (at.variant_override !== undefined) out.variant_override = at.variant_override;
  return { ok: true, plan: out };
}
