/** Shared helpers for the mock-services tests: worlds, contexts and hand-edited copies of them. */
import { emptyWorldState } from '../../protocol/domain.js';
import type { Locale, ToolOutcome, WorldState } from '../../protocol/domain.js';
import { generateWorld } from '../../mock-services/index.js';
import type { ServiceContext, World } from '../../mock-services/index.js';

/** A fresh, privately owned copy of the world of (seed, locale), safe to edit in a test. */
export function world(seed = 7, locale: Locale = 'zh-CN'): World {
  return structuredClone(generateWorld(seed, locale));
}

/** A context for `viewer_id` (the first viewer by default) with an empty overlay. */
export function ctxFor(w: World, viewer_id = w.viewers[0].viewer_id, state: WorldState = emptyWorldState()): ServiceContext {
  return { world: w, state, viewer_id };
}

/** The data of a successful outcome; fails the test with the error otherwise. */
export function dataOf(out: ToolOutcome): any {
  if (!out.ok) throw new Error(`expected ok, got ${JSON.stringify(out.error)}`);
  return out.data;
}

/** The error code and field of a failed outcome (messages are not part of the contract). */
export function errOf(out: ToolOutcome): { code: string; field?: string } {
  if (out.ok) throw new Error(`expected an error, got ${JSON.stringify(out.data)}`);
  return out.error.field === undefined ? { code: out.error.code } : { code: out.error.code, field: out.error.field };
}
