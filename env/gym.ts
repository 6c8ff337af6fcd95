/**
 * `HarnessGymEnv`, a Gymnasium-style single-episode API for TypeScript callers. Its reset resolves through
 * the same step a server session uses (env/reset-plan.ts `resolveReset`), so in-process and remote runs
 * agree on what a reset means and which errors it gets.
 */
import { EnvError } from '../protocol/errors.js';
import { defaultEnvConfig } from './env.js';
import type { EnvConfig, EpisodeRequest, ResetOptions } from './env.js';
import type { Episode, Observation, StepOutput } from './episode.js';
import { planEpisode, resolveReset, startEpisode } from './reset-plan.js';

/** Arguments of `HarnessGymEnv.reset`, as Gymnasium names them. */
export interface EnvResetArgs {
  seed: number;
  options?: ResetOptions & { task?: EpisodeRequest['task']; variant?: unknown };
}

/**
 * A Gymnasium-style single environment for TypeScript callers:
 * `reset({seed, options}) -> {observation, info}`, `step(action) -> {observation, reward, terminated,
 * truncated, info}`. Errors throw `EnvError` with the wire code (`RESET_NEEDED` before reset or after the
 * end, as Gymnasium's `OrderEnforcing` raises `ResetNeeded`).
 */
export class HarnessGymEnv {
  readonly config: EnvConfig;
  #episode: Episode | null = null;

  constructor(config: Partial<EnvConfig> = {}) {
    this.config = defaultEnvConfig(config);
  }

  /** The live episode (for privileged policies and tests). */
  get episode(): Episode | null {
    return this.#episode;
  }

  reset(args: EnvResetArgs): { observation: Observation; info: Record<string, unknown> } {
    const { task, variant, ...options } = args.options ?? {};
    // The arguments are a reset item (less its id, always "local"), checked as a server checks one.
    const item = { seed: args.seed, task, variant, options };
    const resolved = resolveReset(item, this.config, false);
    if (!resolved.ok) throw new EnvError(resolved.error);
    const planned = planEpisode(this.config, resolved.plan, {
      episode_id: 'local',
      seed: args.seed,
      ...(resolved.plan.variant !== undefined ? { variant: resolved.plan.variant } : {}),
    });
    if (!planned.ok) throw new EnvError(planned.error);
    const created = startEpisode(this.config, planned.plan);
    if (!created.ok) throw new EnvError(created.error);
    this.#episode = created.episode;
    return created.episode.reset();
  }

  step(action: unknown): StepOutput {
    if (!this.#episode) throw new EnvError({ code: 'RESET_NEEDED', message: 'call reset before step' });
    const result = this.#episode.step(action);
    if (!result.ok) throw new EnvError(result.error);
    const { ok: _ok, ...out } = result;
    return out;
  }

  /**
   * `step` that awaits async reward modules (an LLM judge) on the final step; for profiles without them
   * it returns what `step` would. Same errors as `step` (as a rejected promise).
   */
  async stepAsync(action: unknown): Promise<StepOutput> {
    if (!this.#episode) throw new EnvError({ code: 'RESET_NEEDED', message: 'call reset before step' });
    const result = await this.#episode.stepAsync(action);
    if (!result.ok) throw new EnvError(result.error);
    const { ok: _ok, ...out } = result;
    return out;
  }
}
