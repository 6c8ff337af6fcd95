/**
 * A small bounded cache of generated worlds. A reset builds the same world twice (once to choose the task,
 * once for the episode); worlds are immutable (actions change only the `WorldState` overlay), so the second
 * build can be a lookup. Episodes hold their world weakly (env/episode.ts), so this is also what keeps the
 * worlds of recent episodes at hand. Bounded so that a long run never grows memory: insertion-ordered eviction.
 */
import type { Locale } from '../protocol/domain.js';
import { generateWorld } from './generate.js';
import type { World } from './world.js';

const MAX_WORLDS = 128;
const cache = new Map<number, World>();

/** `generateWorld(seed, locale)`, shared. Callers must treat the result as read-only. */
export function worldFor(seed: number, locale: Locale): World {
  // A numeric key (uint32 seed and a locale bit) is cheaper to hash than a `${seed}/${locale}` text.
  const key = (seed >>> 0) * 2 + (locale === 'en' ? 1 : 0);
  let world = cache.get(key);
  if (world === undefined) {
    world = generateWorld(seed, locale);
    if (cache.size >= MAX_WORLDS) cache.delete(cache.keys().next().value as number);
    cache.set(key, world);
  }
  return world;
}
