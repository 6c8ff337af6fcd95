/**
 * A session: the episodes, GRPO groups, seed stream and reply window of one client (PROTOCOL.md
 * "Sessions"). A session outlives its connection for `resume_grace_s` when the connection drops, so it
 * holds no socket of its own beyond a reference to the connection attached now.
 *
 * Requests are applied one at a time, in arrival order, through a promise chain: requests about the same
 * episode are then applied in arrival order for free, and a big batch yields to the event loop between
 * chunks so that other sessions, pings and the shutdown signal are not starved.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Task } from '../protocol/domain.js';
import type { ErrorCode } from '../protocol/errors.js';
import { Rng, deriveSeed } from '../protocol/rng.js';
import type { Closed, RequestId, ResetItem, WireError } from '../protocol/wire.js';
import { ResetItemSchema, StepItemSchema, wireIssues } from '../protocol/wire.js';
import { createEpisode } from '../env/index.js';
import type { Episode, EpisodeRequest, Observation, ResetOptions, StepResult } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import { Recorder } from '../recording/index.js';
import type { EpisodeTape } from '../recording/index.js';
import type { PolicyInstance } from '../policies/index.js';
import type { FreeReason } from './metrics.js';
import type { ServerCore } from './core.js';
import type { Connection } from './connection.js';

/** A request that passed the edge schema, ready to apply. */
export type SessionRequest =
  | { type: 'reset'; id: RequestId; items: unknown[] }
  | { type: 'step'; id: RequestId; items: unknown[] }
  | { type: 'close'; id: RequestId; episode_ids: string[] }
  | { type: 'ping'; id: RequestId };

/** A stored reply (replay window): the reply and its bytes in the encoding it went out in. */
interface StoredReply {
  reply: object;
  bytes: Buffer | string;
  binary: boolean;
}

/** One unclosed episode, and its oracle when the client asked for hints. */
interface LiveEpisode {
  episode: Episode;
  oracle: PolicyInstance | null;
  /** The episode's recording until it ends; null when not recorded (off, or not sampled). */
  tape: EpisodeTape | null;
}

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

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with sorted keys: equal values give equal strings (variant comparison within a group). */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isRecord(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Replay-window key: `1` and `"1"` are different ids. */
function idKey(id: RequestId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

/** The `episode_id` of a raw item, when it can be read. */
function rawEpisodeId(raw: unknown): string | undefined {
  return isRecord(raw) && typeof raw.episode_id === 'string' && raw.episode_id.length > 0 ? raw.episode_id : undefined;
}

/** One client's state. */
export class Session {
  readonly id: string;
  readonly log: Logger;
  readonly #core: ServerCore;
  readonly #rng: Rng;
  readonly #episodes = new Map<string, LiveEpisode>();
  readonly #groups = new Map<string, Group>();
  readonly #replay = new Map<string, StoredReply>();
  #nextEpisode = 1;
  #tail: Promise<void> = Promise.resolve();
  #busy = 0;
  #lastRequest = performance.now();
  #idleTimer: NodeJS.Timeout | null = null;
  #graceTimer: NodeJS.Timeout | null = null;
  /** The session's recorder, made for the first episode reset while recording is on. */
  #recorder: Recorder | null = null;
  /** The connection attached now; null while dropped (waiting for a resume). */
  conn: Connection | null = null;
  /** True once freed; a freed session is never reused. */
  ended = false;

  constructor(core: ServerCore, streamSeed: number) {
    this.id = randomUUID();
    this.#core = core;
    this.#rng = new Rng(streamSeed, 'session-seeds');
    this.log = core.log.child({ session: this.id });
  }

  /** Unclosed episodes (ended ones included): what counts toward `max_episodes`. */
  get episodeCount(): number {
    return this.#episodes.size;
  }

  /** Requests received and not yet answered. */
  get busy(): number {
    return this.#busy;
  }

  /** Attach a connection (a new session, or a resume): stops the grace timer, starts idle reaping. */
  attach(conn: Connection): void {
    this.conn = conn;
    conn.session = this;
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = null;
    this.touch();
    this.#armIdle(this.#core.config.limits.idle_timeout_s * 1000);
  }

  /** Detach the current connection (it closed, dropped, or another resumed the session). */
  detach(): void {
    if (this.conn) this.conn.session = null;
    this.conn = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  /** Keep a dropped session for `resume_grace_s`, then free it. */
  startGrace(): void {
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = setTimeout(() => this.#core.endSession(this, 'grace_expired'), this.#core.config.limits.resume_grace_s * 1000);
    this.#graceTimer.unref();
  }

  /** A request arrived: the session is not idle. */
  touch(): void {
    this.#lastRequest = performance.now();
  }

  /** Free every episode and stop every timer; returns how many episodes were freed. */
  free(): number {
    this.ended = true;
    this.detach();
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#graceTimer = null;
    const n = this.#episodes.size;
    // Unfinished episodes are not recorded; finished ones are flushed (shutdown waits for it).
    if (this.#recorder) this.#core.trackRecordClose(this.#recorder.close());
    this.#episodes.clear();
    this.#groups.clear();
    this.#replay.clear();
    return n;
  }

  /** Queue a validated request; its reply goes to `conn` (and into the replay window). */
  submit(conn: Connection, req: SessionRequest, binary: boolean): void {
    this.#busy++;
    this.#core.beginWork();
    this.#tail = this.#tail.then(() => this.#run(conn, req, binary));
  }

  // ---------------------------------------------------------------------------------------------
  // Request loop
  // ---------------------------------------------------------------------------------------------

  async #run(conn: Connection, req: SessionRequest, binary: boolean): Promise<void> {
    try {
      // After a resume, a re-sent request that was already answered gets the stored reply.
      if (conn.resumed) {
        const stored = this.#replay.get(idKey(req.id));
        if (stored) {
          conn.sendBytes(stored.binary === binary ? stored.bytes : this.#core.codec.encode(stored.reply, binary));
          return;
        }
      }
      let reply: object;
      try {
        reply = await this.#apply(req);
      } catch (e) {
        reply = this.#core.frameError(req.id, 'INTERNAL', 'internal error', { trace_id: this.#trace(e) });
      }
      let bytes: Buffer | string;
      try {
        bytes = this.#core.codec.encode(reply, binary);
      } catch (e) {
        reply = this.#core.frameError(req.id, 'INTERNAL', 'internal error (encoding)', { trace_id: this.#trace(e) });
        bytes = this.#core.codec.encode(reply, binary);
      }
      this.#remember(req.id, { reply, bytes, binary });
      conn.sendBytes(bytes);
    } catch (e) {
      // Never let the chain reject: a rejected tail would silence every later request of the session.
      this.#trace(e);
    } finally {
      this.#busy--;
      this.#core.endWork();
    }
  }

  #apply(req: SessionRequest): Promise<object> | object {
    switch (req.type) {
      case 'reset':
        return this.#reset(req.id, req.items);
      case 'step':
        return this.#step(req.id, req.items);
      case 'close':
        return this.#close(req.id, req.episode_ids);
      case 'ping':
        return { type: 'pong', id: req.id };
    }
  }

  #remember(id: RequestId, stored: StoredReply): void {
    const window = this.#core.config.limits.replay_window;
    if (window === 0) return;
    const key = idKey(id);
    this.#replay.delete(key);
    this.#replay.set(key, stored);
    while (this.#replay.size > window) {
      const oldest = this.#replay.keys().next().value as string;
      this.#replay.delete(oldest);
    }
  }

  /** Log an unexpected exception with a fresh trace id, returned for the reply's `details.trace_id`. */
  #trace(e: unknown): string {
    const trace_id = randomUUID();
    this.log.error({ err: e, trace_id }, 'internal error');
    return trace_id;
  }

  #itemError(episode_id: string | undefined, code: ErrorCode, message: string, details?: unknown): ItemErrorValue {
    this.#core.countError(code);
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

  async #reset(
    id: RequestId,
    items: unknown[],
  ): Promise<{ type: 'reset_result'; id: RequestId; items: (ResetOkValue | ItemErrorValue)[] }> {
    const out: (ResetOkValue | ItemErrorValue)[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % this.#core.yieldEvery === 0) await yieldToLoop();
      const ctx: { episode_id?: string } = { episode_id: rawEpisodeId(items[i]) };
      out.push(this.#guard(ctx, () => this.#resetOne(items[i], seen, ctx)));
    }
    return { type: 'reset_result', id, items: out };
  }

  #resetOne(raw: unknown, seen: Set<string>, ctx: { episode_id?: string }): ResetOkValue | ItemErrorValue {
    const core = this.#core;
    const parsed = ResetItemSchema.safeParse(raw);
    if (!parsed.success) {
      return this.#itemError(ctx.episode_id, 'INVALID_MESSAGE', 'the reset item fails the schema', {
        issues: wireIssues(parsed.error.issues),
      });
    }
    const item: ResetItem = parsed.data;
    const opts = item.options ?? {};
    if (opts.oracle_hints === true && !core.config.allow_oracle_hints) {
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
    if (!existing && this.#episodes.size >= core.config.limits.max_episodes) {
      return this.#itemError(ctx.episode_id, 'CAPACITY_REACHED', 'the session is at max_episodes', {
        max_episodes: core.config.limits.max_episodes,
      });
    }

    // Groups: the first successful member fixes the task (and, with "task+variant", seed and variant).
    const share = opts.group_share ?? 'task+variant';
    const group = item.group_id === undefined ? undefined : this.#groups.get(item.group_id);
    let seed: number;
    let variant: unknown = item.variant;
    let variantSeed: number | undefined;
    let taskOverride: Task | undefined;
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

    const created = createEpisode(core.env, req);
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
        share,
        seed,
        variant: item.variant ?? core.env.defaults.variant,
        task: episode.params.source_task,
        members: 1,
      });
    }
    let tape: EpisodeTape | null = null;
    if (core.config.record.dir !== null) {
      tape = this.#recorderFor().begin(
        {
          seed,
          variant: variant ?? core.env.defaults.variant,
          variant_seed: variantSeed ?? seed,
          options,
          oracle_hints: opts.oracle_hints === true,
        },
        episode,
        { observation, info },
      );
    }
    this.#episodes.set(episode_id, { episode, oracle, tape });
    core.metrics.resets.inc();
    return { ok: true, episode_id, observation, info };
  }

  /** The session's recorder (one writer per session; its files appear with the first finished episode). */
  #recorderFor(): Recorder {
    if (!this.#recorder) {
      const core = this.#core;
      this.#recorder = new Recorder({
        dir: core.config.record.dir as string,
        sample: core.config.record.sample,
        max_file_bytes: core.config.record.max_file_bytes,
        stem: `session-${this.id}`,
        created_by: 'serve',
        env: { limits: core.env.limits, defaults: core.env.defaults },
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

  async #step(id: RequestId, items: unknown[]): Promise<{ type: 'step_result'; id: RequestId; items: (StepOkValue | ItemErrorValue)[] }> {
    const out: (StepOkValue | ItemErrorValue)[] = [];
    const seen = new Set<string>();
    // Final steps of episodes whose profile has an async reward module (an LLM judge) return promises:
    // the frame's reply waits for them, but they run concurrently while the other items are applied.
    let pending: Promise<void>[] | null = null;
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % this.#core.yieldEvery === 0) await yieldToLoop();
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
    const core = this.#core;
    if (!r.ok) {
      live.tape?.step(action, r);
      return this.#itemError(episode_id, r.error.code, r.error.message, r.error.details);
    }
    const { observation, reward, terminated, truncated, info } = r;
    if (terminated || truncated) {
      core.metrics.reward.observe({ component: 'total' }, reward);
      const components = info.reward_components;
      if (isRecord(components)) {
        for (const [k, v] of Object.entries(components)) if (typeof v === 'number') core.metrics.reward.observe({ component: k }, v);
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
    core.metrics.steps.inc();
    core.metrics.stepSeconds.observe((performance.now() - t0) / 1000);
    return { ok: true, episode_id, observation, reward, terminated, truncated, info };
  }

  // ---------------------------------------------------------------------------------------------
  // close
  // ---------------------------------------------------------------------------------------------

  #close(id: RequestId, ids: string[]): Closed {
    const closed: string[] = [];
    const unknown: string[] = [];
    const done = new Set<string>();
    for (const eid of ids) {
      if (done.has(eid)) continue; // a repeated id is reported once
      done.add(eid);
      if (this.#episodes.delete(eid)) closed.push(eid);
      else unknown.push(eid);
    }
    if (closed.length > 0) this.#core.metrics.freed.inc({ reason: 'closed' satisfies FreeReason }, closed.length);
    return { type: 'closed', id, episode_ids: closed, unknown };
  }

  // ---------------------------------------------------------------------------------------------
  // idle reaping
  // ---------------------------------------------------------------------------------------------

  #armIdle(delayMs: number): void {
    if (this.#core.config.limits.idle_timeout_s === 0) return;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#checkIdle(), Math.max(1, delayMs));
    this.#idleTimer.unref();
  }

  #checkIdle(): void {
    this.#idleTimer = null;
    if (this.ended || !this.conn) return;
    const limitMs = this.#core.config.limits.idle_timeout_s * 1000;
    const idleMs = performance.now() - this.#lastRequest;
    // A session working on a long batch is not idle, however long ago the batch arrived.
    if (this.#busy > 0) return this.#armIdle(limitMs);
    if (idleMs < limitMs) return this.#armIdle(limitMs - idleMs);
    this.#core.reapIdle(this);
  }
}
