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
  /** Gates: when component `module` is below `below`, the composite is capped at `cap`. */
  gates: RewardGate[];
}
