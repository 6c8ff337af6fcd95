/**
 * The episode side of the server: each session's episodes, GRPO groups, seed stream and recorder, and
 * the application of `reset`, `step` and `close` batches to them (PROTOCOL.md "Sessions", "Episodes").
 *
 * A `Shard` holds the episode state of many sessions. The server runs one shard on its main thread
 * (`workers: 0`), or one per worker thread (server/shards.ts): a session is bound to one shard for its
 * whole life, so its episodes never cross a thread boundary (a train episode holds ~60 KB of variant
 * harness, world and answer key; cloning that per step would cost more than the step itself). Everything
 * here is plain data in, plain data out: the same code answers in-process and inside a worker.
 *
 * Metric updates are not made here (the prom-client registry lives on the main thread): a shard counts
 * into `ShardStats`, which the caller takes after each request and adds to the server's metrics.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Task } from '../protocol/domain.js';
import type { ErrorCode } from '../protocol/errors.js';
import { Rng, deriveSeed } from '../protocol/rng.js';
import { stableJson } from '../protocol/stable-json.js';
import type { Closed, RequestId, ResetItem, WireError } from '../protocol/wire.js';
import { ResetItemSchema, StepItemSchema, wireIssues } from '../protocol/wire.js';
import { createEpisode, sharedVariantOf } from '../env/index.js';
import type { EnvConfig, Episode, EpisodeRequest, Observation, ResetOptions, SharedVariant, StepResult } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import { Recorder } from '../recording/index.js';
import type { EpisodeTape } from '../recording/index.js';
import type { PolicyInstance } from '../policies/index.js';
import type { ServerConfig } from './config.js';

/** A request that passed the edge schema, ready to apply. */
export type SessionRequest =
  | { type: 'reset'; id: RequestId; items: unknown[] }
  | { type: 'step'; id: RequestId; items: unknown[] }
  | { type: 'close'; id: RequestId; episode_ids: string[] }
  | { type: 'ping'; id: RequestId };

/** One unclosed episode, and its oracle when the client asked for hints. */
interface LiveEpisode {
  episode: Episode;
  oracle: PolicyInstance | null;
  /** The episode's recording until it ends; null when not recorded (off, or not sampled). */
  tape: EpisodeTape | null;
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
  /** The effective variant (the item's, or the server default), as given. */
  variant: unknown;
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

/** A failed item (PROTOCOL.md `ItemError`). */
export interface ItemErrorValue {
  ok: false;
  episode_id?: string;
  error: WireError;
}

/** A started episode, as `reset_result` carries it. */
export interface ResetOkValue {
  ok: true;
  episode_id: string;
  observation: Observation;
  info: Record<string, unknown>;
}

/** A taken step, as `step_result` carries it. */
export interface StepOkValue {
  ok: true;
  episode_id: string;
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

/** What a shard counted since the last `takeStats` (added to the server's metrics by the caller). */
export interface ShardStats {
  resets: number;
  steps: number;
  /** Work of each step item, seconds (`harness_gym_step_seconds`). */
  stepSeconds: number[];
  /** Item errors by code (frame-level errors are counted by the connection). */
  errors: Partial<Record<ErrorCode, number>>;
  /** Final rewards: `[component, value]`, the composite as `total`. */
  rewards: [string, number][];
  /** Episodes freed by `close` requests. */
  closed: number;
}

/** Empty stats. */
export function emptyStats(): ShardStats {
  return { resets: 0, steps: 0, stepSeconds: [], errors: {}, rewards: [], closed: 0 };
}

/** What a shard needs from its host. */
export interface ShardOptions {
  config: ServerConfig;
  /** The environment config new resets use (read per reset: a reward reload swaps it). */
  env: () => EnvConfig;
  log: Logger;
  /** Batch items applied between two yields to the event loop. */
  yieldEvery: number;
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Longest stretch of one batch's work between two yields (ms): other sessions' frames (and, within a
 * session, steps that do not wait for this batch) run in between, so a big reset batch adds at most about
 * this much to their latency.
 */
const YIELD_AFTER_MS = 2;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `episode_id` of a raw item, when it can be read. */
export function rawEpisodeId(raw: unknown): string | undefined {
  // An empty id is still the id the item named: its error echoes it (docs/PROTOCOL.md "ItemError").
  return isRecord(raw) && typeof raw.episode_id === 'string' ? raw.episode_id : undefined;
}

/** The episode state of many sessions, and the request handlers that act on it. */
export class Shard {
  readonly config: ServerConfig;
  readonly log: Logger;
  readonly yieldEvery: number;
  readonly #env: () => EnvConfig;
  readonly #sessions = new Map<string, ShardSession>();
  /** Record writers still flushing after their session was freed (`drain` waits for them). */
  readonly #recordCloses = new Set<Promise<void>>();
  stats: ShardStats = emptyStats();

  constructor(opts: ShardOptions) {
    this.config = opts.config;
    this.log = opts.log;
    this.yieldEvery = Math.max(1, Math.floor(opts.yieldEvery));
    this.#env = opts.env;
  }

  get env(): EnvConfig {
    return this.#env();
  }

  /** Sessions held. */
  get sessions(): number {
    return this.#sessions.size;
  }

  /** Unclosed episodes of a session (0 for one this shard does not hold). */
  episodeCount(sessionId: string): number {
    return this.#sessions.get(sessionId)?.episodeCount ?? 0;
  }

  /** The counts since the last call, and a fresh set. */
  takeStats(): ShardStats {
    const s = this.stats;
    this.stats = emptyStats();
    return s;
  }

  /**
   * Apply one request of a session. The session's state is made on its first request from the seed of
   * its stream (`streamSeed`); requests of one session must not overlap (the caller queues them).
   */
  apply(sessionId: string, streamSeed: number, req: SessionRequest): Promise<object> | object {
    let s = this.#sessions.get(sessionId);
    if (!s) {
      s = new ShardSession(this, sessionId, streamSeed);
      this.#sessions.set(sessionId, s);
    }
    switch (req.type) {
      case 'reset':
        return s.reset(req.id, req.items);
      case 'step':
        return s.step(req.id, req.items);
      case 'close':
        return s.close(req.id, req.episode_ids);
      case 'ping':
        return { type: 'pong', id: req.id };
    }
  }

  /** Free a session's episodes; returns how many there were. Finished episodes' records are flushed. */
  free(sessionId: string): number {
    const s = this.#sessions.get(sessionId);
    if (!s) return 0;
    this.#sessions.delete(sessionId);
    const closing = s.free();
    if (closing) {
      const tracked = closing.catch(() => undefined).finally(() => this.#recordCloses.delete(tracked));
      this.#recordCloses.add(tracked);
    }
    return s.freed;
  }

  /** Free every session (shutdown); resolves when every record file is flushed. */
  async drain(): Promise<number> {
    let n = 0;
    for (const id of [...this.#sessions.keys()]) n += this.free(id);
    await Promise.all([...this.#recordCloses]);
    return n;
  }

  countError(code: ErrorCode): void {
    this.stats.errors[code] = (this.stats.errors[code] ?? 0) + 1;
  }
}

/** One session's episode state inside a shard. */
class ShardSession {
  readonly id: string;
  readonly log: Logger;
  readonly #shard: Shard;
  readonly #rng: Rng;
  readonly #episodes = new Map<string, LiveEpisode>();
  readonly #groups = new Map<string, Group>();
  /** Groups in `#groups` with no open episode. */
  #closedGroups = 0;
  #nextEpisode = 1;
  /** The session's recorder, made for the first episode reset while recording is on. */
  #recorder: Recorder | null = null;
  /** Episodes held when freed. */
  freed = 0;

  constructor(shard: Shard, id: string, streamSeed: number) {
    this.id = id;
    this.#shard = shard;
    this.#rng = new Rng(streamSeed, 'session-seeds');
    this.log = shard.log.child({ session: id });
  }

  get episodeCount(): number {
    return this.#episodes.size;
  }

  /** Drop every episode; returns the recorder's flush when there is one (unfinished episodes are not recorded). */
  free(): Promise<void> | null {
    this.freed = this.#episodes.size;
    this.#episodes.clear();
    this.#groups.clear();
    this.#closedGroups = 0;
    return this.#recorder ? this.#recorder.close() : null;
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

  /** Log an unexpected exception with a fresh trace id, returned for the reply's `details.trace_id`. */
  #trace(e: unknown): string {
    const trace_id = randomUUID();
    this.log.error({ err: e, trace_id }, 'internal error');
    return trace_id;
  }

  #itemError(episode_id: string | undefined, code: ErrorCode, message: string, details?: unknown): ItemErrorValue {
    this.#shard.countError(code);
    const error: WireError = details === undefined ? { code, message } : { code, message, details };
    return episode_id === undefined ? { ok: false, error } : { ok: false, episode_id, error };
  }

  /** Run one item's work; an exception becomes that item's INTERNAL error (never a crash). */
  #guard<T>(ctx: { episode_id?: string }, work: () => T): T | ItemErrorValue {
    try {
      return work();
    } catch (e) {
      return this.#itemError(ctx.episode_id, 'INTERNAL', 'internal error', { trace_id: this.#trace(e) });
    }
  }

  // ---------------------------------------------------------------------------------------------
  // reset
  // ---------------------------------------------------------------------------------------------

  async reset(id: RequestId, items: unknown[]): Promise<{ type: 'reset_result'; id: RequestId; items: (ResetOkValue | ItemErrorValue)[] }> {
    const out: (ResetOkValue | ItemErrorValue)[] = [];
    const seen = new Set<string>();
    let slice = performance.now();
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && (i % this.#shard.yieldEvery === 0 || performance.now() - slice > YIELD_AFTER_MS)) {
        await yieldToLoop();
        slice = performance.now();
      }
      const ctx: { episode_id?: string } = { episode_id: rawEpisodeId(items[i]) };
      out.push(this.#guard(ctx, () => this.#resetOne(items[i], seen, ctx)));
    }
    return { type: 'reset_result', id, items: out };
  }

  #resetOne(raw: unknown, seen: Set<string>, ctx: { episode_id?: string }): ResetOkValue | ItemErrorValue {
    const shard = this.#shard;
    const parsed = ResetItemSchema.safeParse(raw);
    if (!parsed.success) {
      return this.#itemError(ctx.episode_id, 'INVALID_MESSAGE', 'the reset item fails the schema', {
        issues: wireIssues(parsed.error.issues),
      });
    }
    const item: ResetItem = parsed.data;
    const opts = item.options ?? {};
    if (opts.oracle_hints === true && !shard.config.allow_oracle_hints) {
      return this.#itemError(ctx.episode_id, 'INVALID_MESSAGE', 'options.oracle_hints is not allowed by this server', {
        issues: [{ path: ['options', 'oracle_hints'], message: 'not allowed by this server' }],
      });
    }
    if (isRecord(item.variant)) {
      const spec = item.variant as { intensity: number; identity_share?: number };
      if (!(spec.intensity >= 0 && spec.intensity <= 1)) {
        return this.#itemError(ctx.episode_id, 'INVALID_VARIANT', 'variant.intensity must be in [0, 1]', { intensity: spec.intensity });
      }
      if (spec.identity_share !== undefined && !(spec.identity_share >= 0 && spec.identity_share <= 1)) {
        return this.#itemError(ctx.episode_id, 'INVALID_VARIANT', 'variant.identity_share must be in [0, 1]', {
          identity_share: spec.identity_share,
        });
      }
    }

    // Episode ids: a live one, or a second item for the same id in this frame, is a duplicate. An ended,
    // unclosed id may be reset again: the new episode replaces it (and does not add to the count).
    let existing: LiveEpisode | undefined;
    if (item.episode_id !== undefined) {
      if (seen.has(item.episode_id)) {
        return this.#itemError(item.episode_id, 'DUPLICATE_EPISODE', `episode "${item.episode_id}" appears twice in this frame`);
      }
      seen.add(item.episode_id);
      existing = this.#episodes.get(item.episode_id);
      if (existing && !existing.episode.ended) {
        return this.#itemError(
          item.episode_id,
          'DUPLICATE_EPISODE',
          `episode "${item.episode_id}" is live; close it or step it to the end first`,
        );
      }
    }
    if (!existing && this.#episodes.size >= shard.config.limits.max_episodes) {
      return this.#itemError(ctx.episode_id, 'CAPACITY_REACHED', 'the session is at max_episodes', {
        max_episodes: shard.config.limits.max_episodes,
      });
    }

    // Groups: the first successful member fixes the task (and, with "task+variant", seed and variant).
    const share = opts.group_share ?? 'task+variant';
    const group = item.group_id === undefined ? undefined : this.#groups.get(item.group_id);
    let seed: number;
    let variant: unknown = item.variant;
    let variantSeed: number | undefined;
    let taskOverride: Task | undefined;
    let variantOverride: SharedVariant | undefined;
    if (group) {
      const conflict = (path: string, message: string) =>
        this.#itemError(ctx.episode_id, 'INVALID_MESSAGE', `conflicts with group "${item.group_id}": ${message}`, {
          issues: [{ path: path.split('.'), message }],
        });
      if (opts.group_share !== undefined && opts.group_share !== group.share) {
        return conflict('options.group_share', `the group shares "${group.share}"`);
      }
      taskOverride = group.task;
      if (group.share === 'task+variant') {
        if (item.seed !== undefined && item.seed !== group.seed) return conflict('seed', `the group's seed is ${group.seed}`);
        if (item.variant !== undefined && stableJson(item.variant) !== stableJson(group.variant)) {
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
        variant = item.variant ?? group.variant;
        variantSeed = seed;
      }
      group.members++;
    } else {
      seed = item.seed ?? this.#rng.uint32();
    }

    const episode_id = item.episode_id ?? this.#makeId(seen);
    ctx.episode_id = episode_id;
    const options: ResetOptions = {};
    if (opts.parser !== undefined) options.parser = opts.parser;
    if (opts.max_turns !== undefined) options.max_turns = opts.max_turns;
    if (opts.locale !== undefined) options.locale = opts.locale;
    if (opts.rewards !== undefined) options.rewards = opts.rewards;
    if (opts.faults !== undefined) options.faults = opts.faults;
    if (opts.observation !== undefined) options.observation = opts.observation;
    const req: EpisodeRequest = { episode_id, seed, options };
    if (item.task !== undefined) req.task = item.task;
    if (variant !== undefined) req.variant = variant;
    if (taskOverride !== undefined) req.task_override = taskOverride;
    if (variantSeed !== undefined) req.variant_seed = variantSeed;
    if (variantOverride !== undefined) req.variant_override = variantOverride;

    const created = createEpisode(shard.env, req);
    if (!created.ok) return this.#itemError(episode_id, created.error.code, created.error.message, created.error.details);
    const episode = created.episode;
    const { observation, info } = episode.reset();

    let oracle: PolicyInstance | null = null;
    if (opts.oracle_hints === true) {
      const p = episode.params;
      oracle = oraclePolicy.start({
        seed,
        parser: p.parser.name === 'hermes' || p.parser.name === 'qwen3_xml' ? p.parser.name : 'openai',
        observation,
        info,
        privileged: { task: p.task, map: p.map, harness: p.harness },
      });
      info.oracle_action = oracle.act(observation, info);
    }
    if (item.group_id !== undefined && !group) {
      this.#groups.set(item.group_id, {
        open: 0,
        share,
        seed,
        variant: item.variant ?? shard.env.defaults.variant,
        task: episode.params.source_task,
        members: 1,
        founder: share === 'task+variant' ? new WeakRef(episode) : null,
      });
    }
    let tape: EpisodeTape | null = null;
    if (shard.config.record.dir !== null) {
      tape = this.#recorderFor().begin(
        {
          seed,
          variant: variant ?? shard.env.defaults.variant,
          variant_seed: variantSeed ?? seed,
          options,
          oracle_hints: opts.oracle_hints === true,
        },
        episode,
        { observation, info },
      );
    }
    const joined = item.group_id === undefined ? null : (this.#groups.get(item.group_id) ?? null);
    if (joined !== null) {
      if (joined.open === 0 && group !== undefined) this.#closedGroups--; // a late member reopens it
      joined.open++;
    }
    this.#release(existing);
    this.#episodes.set(episode_id, { episode, oracle, tape, group: joined });
    shard.stats.resets++;
    return { ok: true, episode_id, observation, info };
  }

  /** The session's recorder (one writer per session; its files appear with the first finished episode). */
  #recorderFor(): Recorder {
    if (!this.#recorder) {
      const shard = this.#shard;
      this.#recorder = new Recorder({
        dir: shard.config.record.dir as string,
        sample: shard.config.record.sample,
        max_file_bytes: shard.config.record.max_file_bytes,
        stem: `session-${this.id}`,
        created_by: 'serve',
        env: { limits: shard.env.limits, defaults: shard.env.defaults },
        onError: (e) => this.log.warn({ err: e }, 'recording failed'),
      });
    }
    return this.#recorder;
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

  // ---------------------------------------------------------------------------------------------
  // step
  // ---------------------------------------------------------------------------------------------

  async step(id: RequestId, items: unknown[]): Promise<{ type: 'step_result'; id: RequestId; items: (StepOkValue | ItemErrorValue)[] }> {
    const out: (StepOkValue | ItemErrorValue)[] = [];
    const seen = new Set<string>();
    let slice = performance.now();
    // Final steps of episodes whose profile has an async reward module (an LLM judge) return promises:
    // the frame's reply waits for them, but they run concurrently while the other items are applied.
    let pending: Promise<void>[] | null = null;
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && (i % this.#shard.yieldEvery === 0 || performance.now() - slice > YIELD_AFTER_MS)) {
        await yieldToLoop();
        slice = performance.now();
      }
      const ctx: { episode_id?: string } = { episode_id: rawEpisodeId(items[i]) };
      const r = this.#guard(ctx, () => this.#stepOne(items[i], seen, ctx));
      if (r instanceof Promise) {
        const at = out.length;
        // A placeholder keeps the item's position; it is replaced before the reply is encoded.
        out.push({ ok: false, error: { code: 'INTERNAL', message: 'pending' } });
        (pending ??= []).push(
          r.then(
            (v) => {
              out[at] = v;
            },
            (e: unknown) => {
              out[at] = this.#itemError(ctx.episode_id, 'INTERNAL', 'internal error', { trace_id: this.#trace(e) });
            },
          ),
        );
      } else {
        out.push(r);
      }
    }
    if (pending !== null) await Promise.all(pending);
    return { type: 'step_result', id, items: out };
  }

  #stepOne(
    raw: unknown,
    seen: Set<string>,
    ctx: { episode_id?: string },
  ): StepOkValue | ItemErrorValue | Promise<StepOkValue | ItemErrorValue> {
    const parsed = StepItemSchema.safeParse(raw);
    if (!parsed.success) {
      return this.#itemError(ctx.episode_id, 'INVALID_MESSAGE', 'the step item fails the schema', {
        issues: wireIssues(parsed.error.issues),
      });
    }
    const episode_id = parsed.data.episode_id;
    ctx.episode_id = episode_id;
    if (seen.has(episode_id))
      return this.#itemError(episode_id, 'DUPLICATE_EPISODE', `episode "${episode_id}" appears twice in this frame`);
    seen.add(episode_id);
    const live = this.#episodes.get(episode_id);
    if (!live) return this.#itemError(episode_id, 'UNKNOWN_EPISODE', `no episode "${episode_id}" in this session`);
    const t0 = performance.now();
    const action = parsed.data.action;
    if (live.episode.needsAsyncScoring) {
      return live.episode.stepAsync(action).then((r) => this.#stepDone(live, episode_id, action, r, t0));
    }
    return this.#stepDone(live, episode_id, action, live.episode.step(action), t0);
  }

  /** Book-keeping after a step (sync, or once an async final score settled): metrics, oracle, recording. */
  #stepDone(live: LiveEpisode, episode_id: string, action: unknown, r: StepResult, t0: number): StepOkValue | ItemErrorValue {
    const shard = this.#shard;
    if (!r.ok) {
      live.tape?.step(action, r);
      return this.#itemError(episode_id, r.error.code, r.error.message, r.error.details);
    }
    const { observation, reward, terminated, truncated, info } = r;
    if (terminated || truncated) {
      shard.stats.rewards.push(['total', reward]);
      const components = info.reward_components;
      if (isRecord(components)) {
        for (const [k, v] of Object.entries(components)) if (typeof v === 'number') shard.stats.rewards.push([k, v]);
      }
    } else if (live.oracle) {
      info.oracle_action = live.oracle.act(observation, info);
    }
    if (live.tape) {
      live.tape.step(action, { ok: true, observation, reward, terminated, truncated, info });
      if (terminated || truncated) {
        this.#recorder?.end(live.tape);
        live.tape = null;
      }
    }
    shard.stats.steps++;
    shard.stats.stepSeconds.push((performance.now() - t0) / 1000);
    return { ok: true, episode_id, observation, reward, terminated, truncated, info };
  }

  // ---------------------------------------------------------------------------------------------
  // close
  // ---------------------------------------------------------------------------------------------

  close(id: RequestId, ids: string[]): Closed {
    const shard = this.#shard;
    const closed: string[] = [];
    const unknown: string[] = [];
    const done = new Set<string>();
    for (const eid of ids) {
      if (done.has(eid)) continue; // a repeated id is reported once
      done.add(eid);
      const live = this.#episodes.get(eid);
      if (live !== undefined) {
        this.#episodes.delete(eid);
        this.#release(live);
        closed.push(eid);
      } else unknown.push(eid);
    }
    shard.stats.closed += closed.length;
    return { type: 'closed', id, episode_ids: closed, unknown };
  }
}
