/**
 * A bounded cache of generated worlds, least recently used out. A reset builds the same world twice (once
 * to choose the task, once for the episode); worlds are immutable (actions change only the `WorldState`
 * overlay), so the second build can be a lookup. Episodes hold their world weakly (env/episode.ts), so this
 * is also what keeps the worlds of the episodes being stepped at hand: a trainer stepping up to about a
 * thousand episodes in turn never regenerates one (a small cache regenerated nearly every world of episodes
 * stepped in turn, which the bench's env throughput showed (figures: bench/RESULTS.md "Design measurements cited by the code")), and since generated tasks draw
 * their rooms from a fixed pool, it holds every room a run uses. Bounded, so that a long run never grows
 * memory.
 */
import type { Locale, Task } from '../protocol/domain.js';
import { generateWorld } from './generate.js';
import type { World, WorldData } from './world.js';

/**
 * Worlds a process keeps (split between the isolates that hold episodes: see `setWorldCacheShare`): the
 * generator's rooms of both splits in both locales (env/tasks `WORLD_POOL`, 512 each), so that a process
 * serving them never builds a room twice; bounded in memory (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
export const WORLD_CACHE_SIZE = 2048;
const cache = new Map<number, World>();
let capacity = WORLD_CACHE_SIZE;

/**
 * Keep `1/shares` of `WORLD_CACHE_SIZE` in this isolate (at least 64). A server with N worker threads
 * runs N isolates, each with its own cache, and each steps only its own sessions' episodes: the same
 * share of episodes needs the same share of the cache, so the process holds one cache's worth of worlds
 * in all, not one per worker (a worker of two still holds the rooms of one locale's two splits).
 */
export function setWorldCacheShare(shares: number): void {
  capacity = Math.max(64, Math.ceil(WORLD_CACHE_SIZE / Math.max(1, shares)));
  while (cache.size > capacity) cache.delete(cache.keys().next().value as number);
}

/** `generateWorld(seed, locale)`, shared. Callers must treat the result as read-only. */
export function worldFor(seed: number, locale: Locale): World {
  // A numeric key (uint32 seed and a locale bit) is cheaper to hash than a `${seed}/${locale}` text.
  const key = (seed >>> 0) * 2 + (locale === 'en' ? 1 : 0);
  let world = cache.get(key);
  if (world === undefined) {
    world = generateWorld(seed, locale);
    if (cache.size >= capacity) cache.delete(cache.keys().next().value as number);
  } else {
    cache.delete(key); // to the young end
  }
  cache.set(key, world);
  return world;
}

// Inline worlds by the task's world data: a task file's tasks live as long as the server, and a task's
// variant copies (`{...task, messages}`) share its `world` object, so each inline world is built once.
const inline = new WeakMap<WorldData, World>();

/**
 * The world a task is played in: its inline `world` (docs/HARNESS.md "Tasks from production logs") with
 * the task's `world_seed` and locale, or else `worldFor(world_seed, locale)`. Read-only, like `worldFor`'s.
 */
export function worldOfTask(task: Pick<Task, 'world_seed' | 'locale' | 'world'>): World {
  const data = task.world;
  if (data === undefined) return worldFor(task.world_seed, task.locale);
  const seed = task.world_seed >>> 0;
  let world = inline.get(data);
  if (world === undefined || world.seed !== seed || world.locale !== task.locale) {
    world = { seed, locale: task.locale, ...data };
    inline.set(data, world);
  }
  return world;
}
