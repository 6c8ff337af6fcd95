/**
 * Episode wrappers in the Gymnasium sense (Farama-Foundation/Gymnasium `gymnasium/core.py` `Wrapper`,
 * `wrappers/common.py` `RecordEpisodeStatistics`): each wraps an episode and changes one thing, and the
 * player (a server session, `eval`, replay) composes them once per episode. Behaviour that decorates an
 * episode lives here, not as flags in the transport.
 *
 * - `EpisodeWrapper`: forwards everything; a wrapper overrides what it changes.
 * - `ActionHints`: adds `info.oracle_action`, the next action of an advisor that knows the answer key
 *   (the reference oracle, for `options.oracle_hints`), to every observation but the last.
 * The recording wrapper (`RecordEpisode`) lives in recording/, which knows the record format.
 */
import type { Harness } from '../protocol/harness.js';
import type { SurfaceMap } from '../protocol/surface.js';
import type { Task } from '../protocol/domain.js';
import type { Episode, Observation, ResetOutput, StepResult } from './episode.js';
import type { ResetOptions } from './env.js';
import type { VariantChoice } from './reset-plan.js';

/** An episode as its player drives it: the Gymnasium API of one episode, and the episode underneath. */
export interface EpisodeHandle {
  /** The innermost episode (its params, trace and reward). */
  readonly episode: Episode;
  readonly ended: boolean;
  /** True when the final step should use `stepAsync` (a profile with an async reward module). */
  readonly needsAsyncScoring: boolean;
  reset(): ResetOutput;
  step(action: unknown): StepResult;
  stepAsync(action: unknown): Promise<StepResult>;
}

/** A wrapper that changes nothing: subclasses override what they change. */
export class EpisodeWrapper implements EpisodeHandle {
  protected readonly inner: EpisodeHandle;

  constructor(inner: EpisodeHandle) {
    this.inner = inner;
  }

  get episode(): Episode {
    return this.inner.episode;
  }

  get ended(): boolean {
    return this.inner.ended;
  }

  get needsAsyncScoring(): boolean {
    return this.inner.needsAsyncScoring;
  }

  reset(): ResetOutput {
    return this.inner.reset();
  }

  step(action: unknown): StepResult {
    return this.inner.step(action);
  }

  stepAsync(action: unknown): Promise<StepResult> {
    return this.inner.stepAsync(action);
  }
}

/** What a hint advisor is started with (the shape of a reference policy's start: policies/policy.ts). */
export interface AdvisorStart {
  seed: number;
  /** How the advisor writes its actions: structured messages, or text in the parser's format. */
  parser: 'openai' | 'hermes' | 'qwen3_xml';
  observation: Observation;
  info: Record<string, unknown>;
  /** The answer key and the variant's surface names. */
  privileged: { task: Task; map: SurfaceMap; harness: Harness; canonical: Harness };
}

/** Starts an advisor for one episode (the oracle's `start`). */
export type Advisor = (start: AdvisorStart) => { act(observation: Observation, info: Record<string, unknown>): unknown };

/** The action format a privileged policy should write for an episode's parser (`auto` reads messages). */
export function actionFormat(parserName: string): AdvisorStart['parser'] {
  return parserName === 'hermes' || parserName === 'qwen3_xml' ? parserName : 'openai';
}

/** The privileged view of an episode: what the oracle (and any privileged policy) may read. */
export function privilegedView(episode: Episode): AdvisorStart['privileged'] {
  const p = episode.params;
  return { task: p.task, map: p.map, harness: p.harness, canonical: p.canonical };
}

/** `info.oracle_action` on every observation but the final one: the advisor's next action. */
export class ActionHints extends EpisodeWrapper {
  readonly #advisor: Advisor;
  #instance: ReturnType<Advisor> | null = null;

  constructor(inner: EpisodeHandle, advisor: Advisor) {
    super(inner);
    this.#advisor = advisor;
  }

  override reset(): ResetOutput {
    const out = this.inner.reset();
    const p = this.episode.params;
    this.#instance = this.#advisor({
      seed: p.seed,
      parser: actionFormat(p.parser.name),
      observation: out.observation,
      info: out.info,
      privileged: privilegedView(this.episode),
    });
    out.info.oracle_action = this.#instance.act(out.observation, out.info);
    return out;
  }

  override step(action: unknown): StepResult {
    return this.#hint(this.inner.step(action));
  }

  override async stepAsync(action: unknown): Promise<StepResult> {
    return this.#hint(await this.inner.stepAsync(action));
  }

  #hint(r: StepResult): StepResult {
    if (r.ok && !(r.terminated || r.truncated) && this.#instance !== null) r.info.oracle_action = this.#instance.act(r.observation, r.info);
    return r;
  }
}

/** What a player resolved for an episode before creating it (what wrappers, records and replay need). */
export interface EpisodeStart {
  /** The id the player lists the episode under. */
  episode_id: string;
  seed: number;
  /** The variant as resolved: the item's (or its group's), or the default when it had none. */
  variant: VariantChoice;
  /** The variant sampler's seed (`seed`, or a `group_share: "task"` member's own). */
  variant_seed: number;
  /** Options as passed to `createEpisode`. */
  options: ResetOptions;
  /** The client asked for `info.oracle_action`. */
  oracle_hints: boolean;
}

/**
 * How a player wraps the episodes it creates: the composition of wrappers, decided once (by the server's
 * config, by `eval`'s flags) and applied per episode. `close` flushes what the wrappers hold (a record
 * file) when the player is done.
 */
export interface EpisodeWrapping {
  wrap(episode: Episode, start: EpisodeStart): EpisodeHandle;
  close(): Promise<void> | null;
}
