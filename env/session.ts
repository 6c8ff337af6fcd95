/**
 * A session's episodes, batched (docs/PROTOCOL.md "Sessions", "Episodes", "Groups"): `SessionEnv` applies
 * `reset`, `step` and `close` batches of raw wire items to the episodes of one session, with the
 * session's seed stream, server-made `ep-N` ids, GRPO groups, the `max_episodes` cap, per-item errors
 * and the episode wrappers of its player. It is plain data in and out, testable without a socket: the
 * server keeps one per session (on its main thread or in the worker the session is pinned to) and does
 * nothing else with an episode.
 *
 * Every reset item is resolved once (env/reset-plan.ts `resolveReset`: its shape, variant and options),
 * and a step item's shape is checked once, here (`StepItemSchema`). An item's error fails that item alone,
 * in request order.
 */
import { randomUUID } from 'node:crypto';
import type { Task } from '../protocol/domain.js';
import type { ErrorCode } from '../protocol/errors.js';
import { itemError } from '../protocol/errors.js';
import { Rng, deriveSeed } from '../protocol/rng.js';
import { stableJson } from '../protocol/stable-json.js';
import type { ItemError, ResetItem } from '../protocol/wire.js';
import { StepItemSchema, isWireId, wireIssues } from '../protocol/wire.js';
import { sharedVariantOf } from './env.js';
import type { EnvConfig, SharedVariant } from './env.js';
import { planEpisode, resolveReset, startEpisode } from './reset-plan.js';
import type { Placement, ResetPlan, VariantChoice } from './reset-plan.js';
import { resetNeeded } from './episode.js';
import { actionShapeProblem } from './parsers.js';
import type { Episode, Observation, StepResult } from './episode.js';
import type { EpisodeHandle, EpisodeWrapping } from './wrappers.js';
import { isRecord } from '../protocol/objects.js';

/** A started episode, as `reset_result` carries it. */
export interface ResetOk {
  ok: true;
  episode_id: string;
  observation: Observation;
  info: Record<string, unknown>;
}

/** A taken step, as `step_result` carries it. */
export interface StepOk {
  ok: true;
  episode_id: string;
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

/** What a `close` batch did. */
export interface CloseOutcome {
  episode_ids: string[];
  unknown: string[];
}

/** What a session counted since the host last took the counts (the server adds them to its metrics). */
export interface SessionStats {
  resets: number;
  steps: number;
  /** Work of each step item, seconds (`harness_gym_step_seconds`). */
  stepSeconds: number[];
  /** Item errors by code. */
  errors: Partial<Record<ErrorCode, number>>;
  /** Final rewards: `[component, value]`, the composite as `total`. */
  rewards: [string, number][];
  /** Episodes freed by `close`. */
  closed: number;
}

/** Empty counts. */
export function emptyStats(): SessionStats {
  return { resets: 0, steps: 0, stepSeconds: [], errors: {}, rewards: [], closed: 0 };
}

/** Where a session logs what it cannot answer otherwise (a pino logger fits). */
export interface SessionLog {
  error(obj: object, msg: string): void;
}

/** What a `SessionEnv` is made with. */
export interface SessionEnvOptions {
  /** The environment config new resets use (read per reset: a reward reload swaps it). */
  env: () => EnvConfig;
  /** Seed of the session's stream (seedless items draw from it). */
  streamSeed: number;
  /** Unclosed episodes a session may hold (`limits.max_episodes`). */
  maxEpisodes: number;
  /** Whether `options.oracle_hints` is honoured (a server configured for testing). */
  allowHints: boolean;
  /** How the player wraps each episode (hints, recording). */
  wrapping: EpisodeWrapping;
  /** Where counts go (the host swaps the object when it takes them). */
  stats: () => SessionStats;
  log: SessionLog;
  /** Batch items applied between two yields to the event loop. */
  yieldEvery: number;
  /**
   * Whether the thread has memory for one more episode: null when it has, else the refusal's details
   * (a new episode is then `CAPACITY_REACHED`, and so is an action over `STEP_ADMIT_CHARS`;
   * server/heap-budget.ts). Absent: always admitted.
   */
  admit?: () => object | null;
}

/**
 * Actions longer than this (characters) are refused with `CAPACITY_REACHED` (reason memory) while the
 * thread is short of memory; shorter ones always go on. Far above a reply (the harness's reply limit is a
 * few hundred characters) with a few tool calls.
 */
export const STEP_ADMIT_CHARS = 4096;

/** An action's characters as a step would keep them (text, or content, reasoning and calls); 0 for a malformed one. */
function actionChars(action: unknown): number {
  if (typeof action !== 'object' || action === null) return 0;
  const a = action as { text?: unknown; message?: unknown };
  if (typeof a.text === 'string') return a.text.length;
  const m = a.message as { content?: unknown; reasoning_content?: unknown; tool_calls?: unknown } | null | undefined;
  if (typeof m !== 'object' || m === null) return 0;
  let n = (typeof m.content === 'string' ? m.content.length : 0) + (typeof m.reasoning_content === 'string' ? m.reasoning_content.length : 0);
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls as { function?: { arguments?: unknown } }[]) {
      const args = c?.function?.arguments;
      n += typeof args === 'string' ? args.length : 0;
    }
  }
  return n;
}

/** What a session steps an unclosed episode through: its wrapped handle, or `ENDED` once it ended. */
type Steppable = Pick<EpisodeHandle, 'ended' | 'needsAsyncScoring' | 'step' | 'stepAsync'>;

/**
 * What a session keeps of an episode once it ended: a step on it is RESET_NEEDED, as the episode itself
 * answers, and nothing else is asked of it until it is closed or reset again. An ended episode still
 * counts toward `max_episodes` until then, and trainers leave many so (a GRPO group waits for its last
 * member): this way each holds nothing but its map entry, instead of its trace, transcript and reward
 * (hundreds of objects, which the GC would copy or mark for as long as the episode stays unclosed) (figures: bench/RESULTS.md "Design measurements cited by the code").
 * A wrapper sees every step of its episode up to the final one (a record ends there).
 */
const ENDED: Steppable = {
  ended: true,
  needsAsyncScoring: false,
  step: () => resetNeeded(),
  stepAsync: async () => resetNeeded(),
};

/** One unclosed episode. */
interface LiveEpisode {
  handle: Steppable;
  /** The GRPO group the episode was reset in, if any. */
  group: Group | null;
}

/**
 * Groups a session remembers after their last episode was closed: a late member still joins them, and a
 * session that makes new groups for ever (a GRPO run) does not grow without bound. Groups with an open
 * episode are always kept.
 */
export const MAX_CLOSED_GROUPS = 4096;

/** A GRPO group: what its first member fixed for the others. */
interface Group {
  share: 'task' | 'task+variant';
  seed: number;
  /** The effective variant (the item's, or the default), parsed. */
  variant: VariantChoice;
  /** The task before any variant presented it (members' variants present it their own way). */
  task: Task;
  /** Members reset so far (names each "task"-share member's own variant seed). */
  members: number;
  /** Members not closed yet (reset, ended or not). */
  open: number;
  /**
   * "task+variant": the first member, whose built variant the others share instead of building it again.
   * Held weakly: a group outlives its episodes (the session keeps it), and once its first member is closed
   * and collected a later member builds the variant again, identical.
   */
  founder: WeakRef<Episode> | null;
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Longest stretch of one batch's work between two yields (ms): other sessions' frames (and, within a
 * session, steps that do not wait for this batch) run in between, so a big reset batch adds at most about
 * this much to their latency.
 */
const YIELD_AFTER_MS = 2;

/**
 * The `episode_id` of a raw item, when it can be read (an empty id is still the id the item named). An id
 * over `max_id_chars` is not read: the item fails the schema, and its error does not echo the id back.
 */
export function rawEpisodeId(raw: unknown): string | undefined {
  return isRecord(raw) && isWireId(raw.episode_id) ? raw.episode_id : undefined;
}

/** The episodes of one session. Requests must not overlap (the caller queues them). */
export class SessionEnv {
  readonly #opts: SessionEnvOptions;
  readonly #rng: Rng;
  readonly #episodes = new Map<string, LiveEpisode>();
  readonly #groups = new Map<string, Group>();
  /** Groups in `#groups` with no open episode. */
  #closedGroups = 0;
  #nextEpisode = 1;

  constructor(opts: SessionEnvOptions) {
    this.#opts = opts;
    this.#rng = new Rng(opts.streamSeed, 'session-seeds');
  }

  /** Unclosed episodes (ended ones included): what counts toward `max_episodes`. */
  get episodeCount(): number {
    return this.#episodes.size;
  }

  /** Drop every episode; returns how many there were, and the wrappers' flush (a record file). */
  free(): { freed: number; closing: Promise<void> | null } {
    const freed = this.#episodes.size;
    this.#episodes.clear();
    this.#groups.clear();
    this.#closedGroups = 0;
    return { freed, closing: this.#opts.wrapping.close() };
  }

  // ---------------------------------------------------------------------------------------------
  // reset
  // ---------------------------------------------------------------------------------------------

  /** Start a batch of episodes: one result per item, in order. */
  async reset(items: readonly unknown[]): Promise<(ResetOk | ItemError)[]> {
    const out: (ResetOk | ItemError)[] = [];
    const seen = new Set<string>();
    let slice = performance.now();
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && (i % this.#opts.yieldEvery === 0 || performance.now() - slice > YIELD_AFTER_MS)) {
        await yieldToLoop();
        slice = performance.now();
      }
      const ctx: { episode_id?: string } = { episode_id: rawEpisodeId(items[i]) };
      out.push(this.#guard(ctx, () => this.#resetOne(items[i], seen, ctx)));
    }
    return out;
  }

  #resetOne(raw: unknown, seen: Set<string>, ctx: { episode_id?: string }): ResetOk | ItemError {
    const config = this.#opts.env();
    const resolved = resolveReset(raw, config, this.#opts.allowHints);
    if (!resolved.ok) return this.#error(ctx.episode_id, resolved.error.code, resolved.error.message, resolved.error.details);
    const plan = resolved.plan;
    const item = plan.item;
    const admitted = this.#admit(item, seen, ctx);
    if (!admitted.ok) return admitted.error;
    const placed = this.#place(plan, seen, ctx);
    if (!placed.ok) return placed.error;
    const { at, group } = placed;

    const planned = planEpisode(config, plan, at);
    if (!planned.ok) return this.#error(at.episode_id, planned.error.code, planned.error.message, planned.error.details);
    const created = startEpisode(config, planned.plan);
    if (!created.ok) return this.#error(at.episode_id, created.error.code, created.error.message, created.error.details);
    const episode = created.episode;
    const variant = planned.plan.variant;
    const handle = this.#opts.wrapping.wrap(episode, {
      episode_id: at.episode_id,
      seed: at.seed,
      variant,
      variant_seed: at.variant_seed ?? at.seed,
      options: plan.options,
      oracle_hints: plan.oracle_hints,
    });
    const { observation, info } = handle.reset();
    const joined = this.#book(item, group, episode, variant, at.seed, admitted.existing, plan.group_share ?? 'task+variant');
    this.#episodes.set(at.episode_id, { handle, group: joined });
    this.#opts.stats().resets++;
    return { ok: true, episode_id: at.episode_id, observation, info };
  }

  /**
   * Whether the item may start an episode: its id not a duplicate (a live one, or a second item for the
   * same id in this frame; an ended, unclosed id may be reset again, replacing it without adding to the
   * count), the session under `max_episodes`, the thread's memory admitting one more.
   */
  #admit(item: ResetItem, seen: Set<string>, ctx: { episode_id?: string }): { ok: true; existing?: LiveEpisode } | { ok: false; error: ItemError } {
    let existing: LiveEpisode | undefined;
    if (item.episode_id !== undefined) {
      if (seen.has(item.episode_id)) {
        return { ok: false, error: this.#error(item.episode_id, 'DUPLICATE_EPISODE', `episode "${item.episode_id}" appears twice in this frame`) };
      }
      seen.add(item.episode_id);
      existing = this.#episodes.get(item.episode_id);
      if (existing && !existing.handle.ended) {
        return { ok: false, error: this.#error(item.episode_id, 'DUPLICATE_EPISODE', `episode "${item.episode_id}" is live; close it or step it to the end first`) };
      }
    }
    if (!existing && this.#episodes.size >= this.#opts.maxEpisodes) {
      return { ok: false, error: this.#error(ctx.episode_id, 'CAPACITY_REACHED', 'the session is at max_episodes', { max_episodes: this.#opts.maxEpisodes }) };
    }
    const refusal = existing ? null : (this.#opts.admit?.() ?? null);
    if (refusal !== null) {
      return {
        ok: false,
        error: this.#error(ctx.episode_id, 'CAPACITY_REACHED', 'the server is short of memory for new episodes; retry later or close episodes', refusal),
      };
    }
    return existing === undefined ? { ok: true } : { ok: true, existing };
  }

  /**
   * Where the item goes: its seed, its id (server-made when it names none) and what its group shares. The
   * first successful member of a group fixes the task (and, with "task+variant", seed and variant).
   */
  #place(plan: ResetPlan, seen: Set<string>, ctx: { episode_id?: string }): { ok: true; at: Placement; group?: Group } | { ok: false; error: ItemError } {
    const item = plan.item;
    const group = item.group_id === undefined ? undefined : this.#groups.get(item.group_id);
    let seed: number;
    let variant: VariantChoice | undefined = plan.variant;
    let variantSeed: number | undefined;
    let taskOverride: Task | undefined;
    let variantOverride: SharedVariant | undefined;
    if (group) {
      const conflict = (path: string, message: string) => ({
        ok: false as const,
        error: this.#error(ctx.episode_id, 'INVALID_MESSAGE', `conflicts with group "${item.group_id}": ${message}`, {
          issues: [{ path: path.split('.'), message }],
        }),
      });
      if (plan.group_share !== undefined && plan.group_share !== group.share) {
        return conflict('options.group_share', `the group shares "${group.share}"`);
      }
      taskOverride = group.task;
      if (group.share === 'task+variant') {
        if (item.seed !== undefined && item.seed !== group.seed) return conflict('seed', `the group's seed is ${group.seed}`);
        if (item.variant !== undefined && stableJson(item.variant) !== stableJson(group.variant.given)) {
          return conflict('variant', "the group's variant differs");
        }
        seed = group.seed;
        variant = group.variant;
        const founder = group.founder?.deref();
        if (founder !== undefined) variantOverride = sharedVariantOf(founder);
      } else {
        // "task": the same task, each member its own variant. Members after the first draw nothing from
        // the session stream (PROTOCOL.md "ResetItem.seed"): a member's variant seed derives from the group.
        seed = item.seed ?? deriveSeed(group.seed, `member:${group.members}`);
        variant = plan.variant ?? group.variant;
        variantSeed = seed;
      }
      group.members++;
    } else {
      seed = item.seed ?? this.#rng.uint32();
    }
    const episode_id = item.episode_id ?? this.#makeId(seen);
    ctx.episode_id = episode_id;
    const at: Placement = { episode_id, seed };
    if (variant !== undefined) at.variant = variant;
    if (taskOverride !== undefined) at.task_override = taskOverride;
    if (variantSeed !== undefined) at.variant_seed = variantSeed;
    if (variantOverride !== undefined) at.variant_override = variantOverride;
    return group === undefined ? { ok: true, at } : { ok: true, at, group };
  }

  /**
   * The books after a reset: the group its first member founds, the group's open count, the replaced
   * episode released. Returns the episode's group.
   */
  #book(
    item: ResetItem,
    group: Group | undefined,
    episode: Episode,
    variant: VariantChoice,
    seed: number,
    existing: LiveEpisode | undefined,
    share: 'task' | 'task+variant',
  ): Group | null {
    if (item.group_id !== undefined && !group) {
      this.#groups.set(item.group_id, {
        open: 0,
        share,
        seed,
        variant,
        task: episode.params.source_task,
        members: 1,
        founder: share === 'task+variant' ? new WeakRef(episode) : null,
      });
    }
    const joined = item.group_id === undefined ? null : (this.#groups.get(item.group_id) ?? null);
    if (joined !== null) {
      if (joined.open === 0 && group !== undefined) this.#closedGroups--; // a late member reopens it
      joined.open++;
    }
    this.#release(existing);
    return joined;
  }

  /** A server-made episode id: `ep-<n>`, deterministic per session, never one in use. */
  #makeId(seen: Set<string>): string {
    for (;;) {
      const id = `ep-${this.#nextEpisode++}`;
      if (!this.#episodes.has(id) && !seen.has(id)) {
        seen.add(id);
        return id;
      }
    }
  }

  /** An episode leaves the session (closed, or replaced by a new reset of its id). */
  #release(live: LiveEpisode | undefined): void {
    const g = live?.group;
    if (!g || --g.open > 0) return;
    // Past the bound by a quarter, forget the oldest closed groups down to it (amortised over the quarter).
    if (++this.#closedGroups <= MAX_CLOSED_GROUPS + MAX_CLOSED_GROUPS / 4) return;
    for (const [id, old] of this.#groups) {
      if (this.#closedGroups <= MAX_CLOSED_GROUPS) break;
      if (old.open === 0) {
        this.#groups.delete(id);
        this.#closedGroups--;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // step
  // ---------------------------------------------------------------------------------------------

  /** Take one assistant turn in each of a batch of episodes: one result per item, in order. */
  async step(items: readonly unknown[]): Promise<(StepOk | ItemError)[]> {
    const out: (StepOk | ItemError)[] = [];
    const seen = new Set<string>();
    let slice = performance.now();
    // Final steps of episodes whose profile has an async reward module (an LLM judge) return promises:
    // the frame's reply waits for them, but they run concurrently while the other items are applied.
    let pending: Promise<void>[] | null = null;
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && (i % this.#opts.yieldEvery === 0 || performance.now() - slice > YIELD_AFTER_MS)) {
        await yieldToLoop();
        slice = performance.now();
      }
      const ctx: { episode_id?: string } = { episode_id: rawEpisodeId(items[i]) };
      const r = this.#guard(ctx, () => this.#stepOne(items[i], seen, ctx));
      if (r instanceof Promise) {
        const at = out.length;
        // A placeholder keeps the item's position; it is replaced before the reply is encoded.
        out.push(itemError(undefined, { code: 'INTERNAL', message: 'pending' }));
        (pending ??= []).push(
          r.then(
            (v) => {
              out[at] = v;
            },
            (e: unknown) => {
              out[at] = this.#error(ctx.episode_id, 'INTERNAL', 'internal error', { trace_id: this.#trace(e) });
            },
          ),
        );
      } else {
        out.push(r);
      }
    }
    if (pending !== null) await Promise.all(pending);
    return out;
  }

  #stepOne(raw: unknown, seen: Set<string>, ctx: { episode_id?: string }): StepOk | ItemError | Promise<StepOk | ItemError> {
    const parsed = StepItemSchema.safeParse(raw);
    if (!parsed.success) {
      return this.#error(ctx.episode_id, 'INVALID_MESSAGE', 'the step item fails the schema', { issues: wireIssues(parsed.error.issues) });
    }
    const episode_id = parsed.data.episode_id;
    ctx.episode_id = episode_id;
    if (seen.has(episode_id)) return this.#error(episode_id, 'DUPLICATE_EPISODE', `episode "${episode_id}" appears twice in this frame`);
    seen.add(episode_id);
    const live = this.#episodes.get(episode_id);
    if (!live) return this.#error(episode_id, 'UNKNOWN_EPISODE', `no episode "${episode_id}" in this session`);
    const t0 = performance.now();
    const action = parsed.data.action;
    // Refused before the episode (and its recorder, which tapes every action as sent) keeps it.
    const shape = actionShapeProblem(action);
    if (shape !== null) return this.#error(episode_id, 'INVALID_ACTION', shape);
    // Under memory pressure a live episode still takes ordinary actions, but not large ones: the limits let
    // each step keep up to max_action_chars, and a session full of episodes stepped so is what would run
    // the thread out of memory. The episode is unchanged; the client may retry after retry_after_ms.
    if (!live.handle.ended && actionChars(action) > STEP_ADMIT_CHARS) {
      const refusal = this.#opts.admit?.() ?? null;
      if (refusal !== null) {
        return this.#error(
          episode_id,
          'CAPACITY_REACHED',
          `the server is short of memory for actions over ${STEP_ADMIT_CHARS} characters; retry later, close episodes or send a shorter action`,
          refusal,
        );
      }
    }
    if (live.handle.needsAsyncScoring) return live.handle.stepAsync(action).then((r) => this.#stepDone(live, episode_id, r, t0));
    return this.#stepDone(live, episode_id, live.handle.step(action), t0);
  }

  /** Counts after a step (sync, or once an async final score settled). */
  #stepDone(live: LiveEpisode, episode_id: string, r: StepResult, t0: number): StepOk | ItemError {
    if (!r.ok) return this.#error(episode_id, r.error.code, r.error.message, r.error.details);
    const stats = this.#opts.stats();
    const { observation, reward, terminated, truncated, info } = r;
    if (terminated || truncated) {
      live.handle = ENDED;
      stats.rewards.push(['total', reward]);
      const components = info.reward_components;
      if (isRecord(components)) {
        for (const [k, v] of Object.entries(components)) if (typeof v === 'number') stats.rewards.push([k, v]);
      }
    }
    stats.steps++;
    stats.stepSeconds.push((performance.now() - t0) / 1000);
    return { ok: true, episode_id, observation, reward, terminated, truncated, info };
  }

  // ---------------------------------------------------------------------------------------------
  // close
  // ---------------------------------------------------------------------------------------------

  /** Free episodes by id: which were closed and which were unknown (a repeated id is reported once). */
  close(ids: readonly string[]): CloseOutcome {
    const closed: string[] = [];
    const unknown: string[] = [];
    const done = new Set<string>();
    for (const eid of ids) {
      if (done.has(eid)) continue;
      done.add(eid);
      const live = this.#episodes.get(eid);
      if (live !== undefined) {
        this.#episodes.delete(eid);
        this.#release(live);
        closed.push(eid);
      } else unknown.push(eid);
    }
    this.#opts.stats().closed += closed.length;
    return { episode_ids: closed, unknown };
  }

  // ---------------------------------------------------------------------------------------------

  /** A failed item, counted by code. */
  #error(episode_id: string | undefined, code: ErrorCode, message: string, details?: unknown): ItemError {
    const stats = this.#opts.stats();
    stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    return itemError(episode_id, { code, message, details });
  }

  /** Log an unexpected exception with a fresh trace id, returned for the reply's `details.trace_id`. */
  #trace(e: unknown): string {
    const trace_id = randomUUID();
    this.#opts.log.error({ err: e, trace_id }, 'internal error');
    return trace_id;
  }

  /** Run one item's work; an exception becomes that item's INTERNAL error (never a crash). */
  #guard<T>(ctx: { episode_id?: string }, work: () => T): T | ItemError {
    try {
      return work();
    } catch (e) {
      return this.#error(ctx.episode_id, 'INTERNAL', 'internal error', { trace_id: this.#trace(e) });
    }
  }
}
