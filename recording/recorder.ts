/**
 * Taping episodes: `Recorder` decides (deterministically, from the seed) which episodes to record, a
 * tape collects each action with the bytes and hash of what the environment answered, and a finished
 * tape becomes one `EpisodeRecordV1` handed to the session's `RecordWriter` (created on first use).
 *
 * The server and `playEpisode` both drive it the same way: `begin` after reset, `step` after every
 * action, `end` once the episode terminated or was truncated. Episodes closed or freed before their end
 * are simply dropped (their tape is never ended).
 */
import { harnessSetOf } from '../harness/index.js';
import { packageIdentity } from '../protocol/package.js';
import { EpisodeWrapper } from '../env/index.js';
import type { Episode, EnvDefaults, EpisodeHandle, EpisodeLimits, ResetOptions, ResetOutput, StepResult, VariantChoice } from '../env/index.js';
import { parseVariant } from '../harness-variants/index.js';
import { RECORD_VERSION, hashResetOutput, hashStepOutput, shouldRecord } from './format.js';
import type { EpisodeRecordV1, RecordedStep, RecordSummary } from './format.js';
import { RecordWriter } from './writer.js';

/** What the caller resolved for an episode before creating it (what replay must feed back). */
export interface RecordStart {
  /** The id the record is listed under, when not the episode's own (in-process episodes are all "local"). */
  episode_id?: string;
  seed: number;
  /** The variant as resolved (the item's, or the default when it had none), parsed once by the player. */
  variant: VariantChoice;
  /** `req.variant_seed ?? seed`. */
  variant_seed: number;
  /** Options as passed to `createEpisode`. */
  options: ResetOptions;
  /** True when the caller adds `oracle_action` to outputs. */
  oracle_hints?: boolean;
}

/** A step output, or the error the environment refused the action with. */
export type TapedOutput =
  | { ok: true; observation: unknown; reward: number; terminated: boolean; truncated: boolean; info: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string } };

/** The hook a player calls into (server sessions and `playEpisode`). */
export interface EpisodeRecorder {
  /** Start taping an episode just reset; null when sampling leaves it out. */
  begin(start: RecordStart, episode: Episode, reset: { observation: unknown; info: Record<string, unknown> }): EpisodeTape | null;
  /** Queue a finished tape for writing. */
  end(tape: EpisodeTape): void;
}

/** Variant label, families and split of a record's variant field, for the list view (a record read back). */
export function describeVariant(variant: unknown): { label: string; families: string[]; split: string } {
  const parsed = parseVariant(variant);
  if (!parsed.ok) return { label: 'invalid', families: [], split: 'none' };
  return describeChoice(parsed);
}

/** Variant label, families and split of a parsed variant. */
export function describeChoice(v: Pick<VariantChoice, 'spec' | 'preset'>): { label: string; families: string[]; split: string } {
  if (v.spec === null) return { label: v.preset ?? 'identity', families: [], split: 'none' };
  return { label: v.preset ?? 'spec', families: [...v.spec.families], split: v.spec.split };
}

/** One episode being taped. */
export class EpisodeTape {
  readonly episode: Episode;
  readonly start: RecordStart;
  readonly #reset: { hash: string; out: Buffer };
  readonly #steps: RecordedStep[] = [];

  constructor(start: RecordStart, episode: Episode, reset: { observation: unknown; info: Record<string, unknown> }) {
    this.start = start;
    this.episode = episode;
    this.#reset = hashResetOutput(reset);
  }

  /** Tape one action and the environment's answer (hash it now: callers may reuse the objects). */
  step(action: unknown, out: TapedOutput): void {
    if (!out.ok) {
      this.#steps.push({ action, error: { code: out.error.code, message: out.error.message } });
      return;
    }
    const { hash, out: bytes } = hashStepOutput(out);
    this.#steps.push({ action, hash, out: bytes });
  }

  /** The finished record. Call after the episode ended. */
  toRecord(ctx: { env: { limits: EpisodeLimits; defaults: EnvDefaults }; server_version: string; created_by: string }): EpisodeRecordV1 {
    const ep = this.episode;
    const p = ep.params;
    const reward = ep.reward;
    if (!reward) throw new Error('EpisodeTape.toRecord before the episode ended');
    const trace = ep.trace();
    const modules: Record<string, string> = {};
    for (const m of p.profile.modules) modules[m.name] = p.registry.get(m.name)?.version ?? 'unknown';
    const hooks = new Set<string>();
    const codes = new Set<string>();
    for (const t of trace.turns) {
      for (const v of t.hook_violations) {
        hooks.add(v.hook);
        codes.add(v.code);
      }
    }
    const variant = describeChoice(this.start.variant);
    const summary: RecordSummary = {
      intent: p.task.intent,
      outcome: trace.outcome,
      reward: reward.reward,
      turns: ep.turn,
      variant_label: variant.label,
      variant_families: variant.families,
      hooks_violated: [...hooks].sort(),
      violation_codes: [...codes].sort(),
      locale: p.task.locale,
      task_split: p.source_task.split,
      variant_split: variant.split,
    };
    return {
      type: 'episode',
      episode_id: this.start.episode_id ?? p.episode_id,
      created_episode_id: p.episode_id,
      seed: this.start.seed,
      variant: this.start.variant.given,
      variant_seed: this.start.variant_seed,
      variant_id: p.variant_id,
      task_split: p.source_task.split,
      variant_split: variant.split,
      record_version: RECORD_VERSION,
      variant_pool: p.variant_pool,
      options: this.start.options,
      oracle_hints: this.start.oracle_hints === true,
      task: p.task,
      source_task: p.source_task,
      env: ctx.env,
      harness: { ...harnessSetOf(p.canonical).identity },
      reward_profile: p.profile.name,
      profile: p.profile,
      reward_modules: modules,
      server_version: ctx.server_version,
      created_by: ctx.created_by,
      reset: this.#reset,
      steps: this.#steps,
      reward,
      trace,
      summary,
    };
  }
}

/** Options of a `Recorder`. */
export interface RecorderOptions {
  dir: string;
  /** Fraction of episodes recorded, in [0, 1]. */
  sample: number;
  /** File name stem (e.g. the session id). */
  stem: string;
  /** `serve` or `eval`. */
  created_by: string;
  /** The env limits and defaults episodes are created with (recorded for replay). */
  env: { limits: EpisodeLimits; defaults: EnvDefaults };
  max_file_bytes?: number;
  server_version?: string;
  onError?: (e: unknown) => void;
}

/** Samples, tapes and writes episodes; the writer is created when the first record is written. */
export class Recorder implements EpisodeRecorder {
  readonly #opts: RecorderOptions;
  readonly #version: string;
  #writer: RecordWriter | null = null;
  #recorded = 0;

  constructor(opts: RecorderOptions) {
    this.#opts = opts;
    this.#version = opts.server_version ?? packageIdentity().version;
  }

  /** Episodes queued for writing so far. */
  get recorded(): number {
    return this.#recorded;
  }

  /** Files written so far. */
  get files(): readonly string[] {
    return this.#writer?.files ?? [];
  }

  begin(start: RecordStart, episode: Episode, reset: { observation: unknown; info: Record<string, unknown> }): EpisodeTape | null {
    if (!shouldRecord(start.seed, this.#opts.sample)) return null;
    return new EpisodeTape(start, episode, reset);
  }

  end(tape: EpisodeTape): void {
    if (!tape.episode.ended) return;
    const record = tape.toRecord({ env: this.#opts.env, server_version: this.#version, created_by: this.#opts.created_by });
    if (!this.#writer) {
      this.#writer = new RecordWriter({
        dir: this.#opts.dir,
        stem: this.#opts.stem,
        server_version: this.#version,
        created_by: this.#opts.created_by,
        max_file_bytes: this.#opts.max_file_bytes,
        onError: this.#opts.onError,
      });
    }
    this.#writer.append(record);
    this.#recorded++;
  }

  /** Write what is buffered. */
  flush(): Promise<void> {
    return this.#writer?.flush() ?? Promise.resolve();
  }

  /** Flush and close the writer. */
  close(): Promise<void> {
    return this.#writer?.close() ?? Promise.resolve();
  }
}

/**
 * The recording wrapper: tapes the episode's reset output and every action with what it got, and hands the
 * finished tape to the recorder when the episode ends. It sits outside every wrapper that changes outputs
 * (hints), so a record holds exactly what the client received.
 */
export class RecordEpisode extends EpisodeWrapper {
  readonly #recorder: EpisodeRecorder;
  readonly #start: RecordStart;
  #tape: EpisodeTape | null = null;

  constructor(inner: EpisodeHandle, recorder: EpisodeRecorder, start: RecordStart) {
    super(inner);
    this.#recorder = recorder;
    this.#start = start;
  }

  override reset(): ResetOutput {
    const out = this.inner.reset();
    this.#tape = this.#recorder.begin(this.#start, this.episode, out);
    return out;
  }

  override step(action: unknown): StepResult {
    return this.#taped(action, this.inner.step(action));
  }

  override async stepAsync(action: unknown): Promise<StepResult> {
    return this.#taped(action, await this.inner.stepAsync(action));
  }

  #taped(action: unknown, r: StepResult): StepResult {
    const tape = this.#tape;
    if (tape === null) return r;
    tape.step(action, r);
    if (r.ok && (r.terminated || r.truncated)) {
      this.#recorder.end(tape);
      this.#tape = null;
    }
    return r;
  }
}
