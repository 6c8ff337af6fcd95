/**
 * The async scoring path: profiles that use a module with `scoreAsync` (an LLM judge) are scored by
 * awaiting those modules first, then combining exactly as `scoreEpisode` does. The combination is not
 * re-implemented: each async module's settled detail is replayed through a constant synchronous module in
 * an overlay registry, so weights, gates, range checks, failure containment and rounding stay in one
 * place (score.ts), and profiles without async modules never come here (their results stay byte-identical).
 */
import type { RewardDetail, RewardResult, Task, Trace } from '../protocol/domain.js';
import { RewardRegistry } from './registry.js';
import { readingOf, scoreEpisode } from './score.js';
import type { AsyncScoreContext, RewardModule, RewardProfile } from './types.js';

/** True when some module of `profile` has a `scoreAsync` (the episode must be scored on the async path). */
export function needsAsyncScoring(profile: RewardProfile, registry: RewardRegistry): boolean {
  for (const entry of profile.modules) {
    if (typeof registry.get(entry.name)?.scoreAsync === 'function') return true;
  }
  return false;
}

/** A sync module that replays a settled async outcome (a detail, or the error it threw). */
function replay(m: RewardModule, settled: { detail: RewardDetail } | { error: unknown }): RewardModule {
  return {
    name: m.name,
    version: m.version,
    segment: m.segment,
    score(): RewardDetail {
      if ('error' in settled) throw settled.error;
      return settled.detail;
    },
  };
}

/**
 * Score a finished episode, awaiting the async modules of the profile concurrently. Never rejects: a
 * module whose `scoreAsync` rejects or resolves out of range is a failed component, as on the sync path.
 */
export async function scoreEpisodeAsync(trace: Trace, asked: Task, profile: RewardProfile, registry: RewardRegistry): Promise<RewardResult> {
  // The reading the reply took (an ambiguous request answered instead of asked back), as the sync path reads it.
  const task = readingOf(trace, asked);
  const ctx: AsyncScoreContext = { module: (name) => registry.get(name) };
  const settled = new Map<string, RewardModule>();
  await Promise.all(
    profile.modules.map(async (entry) => {
      const m = registry.get(entry.name);
      if (m === undefined || typeof m.scoreAsync !== 'function') return;
      try {
        const detail = await m.scoreAsync(trace, task, entry.params ?? {}, ctx);
        settled.set(entry.name, replay(m, { detail }));
      } catch (error) {
        settled.set(entry.name, replay(m, { error }));
      }
    }),
  );
  if (settled.size === 0) return scoreEpisode(trace, task, profile, registry);
  const overlay = new RewardRegistry();
  for (const m of registry.list()) overlay.register(settled.get(m.name) ?? m);
  return scoreEpisode(trace, task, profile, overlay);
}
