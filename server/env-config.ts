/**
 * The environment config a server thread plays its episodes with, built by one function from the
 * serialisable server config, on the main thread and in every episode worker alike: the harness, the task
 * files, the limits, the defaults and the variant pool all come from the config, so the threads agree by
 * construction. What cannot cross to a worker (reward modules are code) each thread loads itself from
 * the same files and passes in as a `RewardSet`; in-memory overrides (`ServerDeps.env`) exist only on
 * the main thread, which then runs no workers.
 */
import { defaultEnvConfig } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import type { HarnessSet } from '../harness/index.js';
import type { RewardSet } from '../rewards/index.js';
import type { ServerConfig } from './config.js';
import { defaultsOf, harnessOf, taskSourceOf } from './config.js';

/** What a thread adds to the server config: objects it loaded or was given. */
export interface EnvParts {
  /** The harness, when the thread already loaded it (`harnessOf(config)` otherwise). */
  harness?: HarnessSet;
  /** The reward set loaded from `config.rewards` (the built-in registry and profile when absent). */
  rewards?: RewardSet;
  /** In-memory overrides (a task source, a registry, profiles, defaults): main thread only. */
  overrides?: Partial<Omit<EnvConfig, 'limits'>>;
}

/** The environment config of a server thread (see the module header). */
export function serverEnvConfig(config: ServerConfig, parts: EnvParts = {}): EnvConfig {
  const harness = parts.harness ?? harnessOf(config);
  const set = parts.rewards;
  return defaultEnvConfig({
    harness,
    ...taskSourceOf(config, harness),
    ...parts.overrides,
    ...(set === undefined ? {} : { registry: set.registry, profiles: set.profiles }),
    limits: { max_turns: config.limits.max_turns, max_errors: config.limits.max_errors },
    ...defaultsOf(config),
  });
}

/** The same environment with another reward set (a reload): one object, swapped in with one assignment. */
export function withRewards(env: EnvConfig, set: RewardSet): EnvConfig {
  return { ...env, registry: set.registry, profiles: set.profiles };
}
