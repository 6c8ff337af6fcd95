/**
 * The reward contract: a module scores one finished canonical trace against its task; a profile says
 * which modules count, with what weight, and which gates cap the composite.
 *
 * Modules see only the `Trace` and the `Task` (DESIGN.md, "rewards/ sees only the finished canonical
 * trace and the task"), so a module can be swapped or reweighted without touching the server.
 */
import type { RewardDetail, Task, Trace } from '../protocol/domain.js';

/** Which segment score a module feeds: the report trains tool calls and replies as separate groups. */
export type RewardSegment = 'tool' | 'reply';

/** One scoring module. `score` must be pure and deterministic and return a value in [0, 1]. */
export interface RewardModule {
  /** Registry key, snake_case (e.g. `accuracy`). */
  readonly name: string;
  /** Semver-ish version of the scoring rule, bumped when scores change for the same trace. */
  readonly version: string;
  /** Which segment score the module feeds. */
  readonly segment: RewardSegment;
  /** Score a finished trace. `params` come from the profile entry (empty object when absent). */
  score(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>): RewardDetail;
  /**
   * Optional asynchronous scorer (an LLM judge, a remote classifier). The async scoring path
   * (`Episode.stepAsync`, `HarnessGymEnv.stepAsync`, the server) awaits it instead of calling `score`;
   * `score` stays the answer of the synchronous path, so a module with `scoreAsync` still needs one
   * (typically a documented fallback). Like `score`, it should resolve to a value in [0, 1]; a
   * rejection or an out-of-range value marks the component failed for that episode.
   */
  scoreAsync?(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>, ctx: AsyncScoreContext): Promise<RewardDetail>;
  /**
   * Optional check of a profile entry's `params`, run when a profile file is loaded, so a typo in a
   * judge's `timeout_ms` is a start-up error rather than a failed component per episode. Returns one
   * message per problem (`key: message`), empty when the params are fine.
   */
  checkParams?(params: Readonly<Record<string, unknown>>): string[];
}

/** What the async scoring path hands a module's `scoreAsync` besides the trace. */
export interface AsyncScoreContext {
  /** Another module of the registry the episode scores with (e.g. a judge's fallback), if registered. */
  module(name: string): RewardModule | undefined;
}

/** One module entry in a profile. */
export interface RewardProfileModule {
  name: string;
  /** Non-negative weight in the composite's weighted mean. */
  weight: number;
  /** Module-specific parameters (e.g. penalty sizes); passed to `score` as is. */
  params?: Record<string, unknown>;
}

/** A gate: when component `module` is below `below`, the composite is capped at `cap`. */
export interface RewardGate {
  module: string;
  below: number;
  cap: number;
}

/** A named choice of modules, weights and gates. */
export interface RewardProfile {
  name: string;
  modules: RewardProfileModule[];
  /**
   * Gates: when component `module` is below `below`, the composite is capped at `cap`. Empty for no
   * gates (a profile file may leave the key out; the loaded profile then has `[]`).
   */
  gates: RewardGate[];
}
