/**
 * The state of stateful custom services (docs/HARNESS.md "Stateful services"). A module that exports
 * `initial_state` owns one JSON value per episode, `WorldState.custom[<module>]`, set at creation from
 * `initial_state` (a function of the world is called once) and replaced by the `state` a successful call
 * returns. Read-only modules take none of this path: their episodes keep their bytes, and no fault is
 * drawn for their calls. A stateful call draws its fault like a built-in service's (one number per call,
 * mock-services `drawFault`): a TIMEOUT or PERMISSION_DENIED never reaches the module, a MALFORMED_OUTPUT
 * runs it and drops its state, so a failed call leaves the state as it was (a retry behaves like the
 * first attempt).
 */
import type { ToolOutcome, TraceCall, WorldState } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import { callCustomService, harnessSetOf, initialCustomState } from '../harness/index.js';
import type { CustomService, CustomServiceContext } from '../harness/index.js';
import { drawFault, faultOutcome, malformedOutcome } from '../mock-services/index.js';
import type { FaultOptions, World } from '../mock-services/index.js';
import { stableJson } from '../protocol/stable-json.js';

/** Why a module's `initial_state(world)` failed, per episode overlay (the module's calls then fail naming it). */
const brokenStates = new WeakMap<WorldState, Map<string, string>>();

/**
 * Give an episode's overlay the initial states of its harness's stateful services (`state.custom`), or
 * leave it untouched when the harness has none. `world` is asked only then.
 */
export function initCustomStates(state: WorldState, canonical: Harness, world: () => World): void {
  let custom: { [module: string]: unknown } | undefined;
  for (const [name, service] of harnessSetOf(canonical).services) {
    if (!service.stateful) continue;
    custom ??= {};
    const init = initialCustomState(service, world());
    if (init.ok) {
      custom[name] = init.value;
    } else {
      // Errors are data: the episode runs, the module's state is null and each of its calls says why.
      custom[name] = null;
      let broken = brokenStates.get(state);
      if (broken === undefined) brokenStates.set(state, (broken = new Map()));
      broken.set(name, init.message);
    }
  }
  if (custom !== undefined) state.custom = custom;
}

/**
 * Call a custom service; for a stateful one, with its state, the episode's faults, and its new state
 * applied to `state` (the change returned for the trace). A read-only one is called as it always was.
 */
export function callCustomWithState(
  service: CustomService,
  tool: string,
  args: Record<string, unknown>,
  ctx: CustomServiceContext,
  state: WorldState,
  faults: FaultOptions | undefined,
): { outcome: ToolOutcome; change?: NonNullable<TraceCall['state_change']> } {
  if (!service.stateful) {
    const out = callCustomService(service, tool, args, ctx);
    if (out.ok) return { outcome: { ok: true, data: out.data } };
    return { outcome: out };
  }
  const name = service.name;
  const broken = brokenStates.get(state)?.get(name);
  if (broken !== undefined) {
    return { outcome: { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service ${name} has no state in this episode (${broken})` } } };
  }
  const fault = drawFault(faults);
  if (fault !== undefined && fault !== 'MALFORMED_OUTPUT') return { outcome: faultOutcome(tool, fault) };
  const custom = (state.custom ??= {});
  const before = custom[name] ?? null;
  const out = callCustomService(service, tool, args, { ...ctx, custom_state: before });
  const outcome: ToolOutcome = out.ok ? { ok: true, data: out.data } : out;
  // The module answered, but the answer was lost on the way: the action did not happen.
  if (fault === 'MALFORMED_OUTPUT') return { outcome: malformedOutcome(tool, outcome) };
  if (!out.ok || out.state === undefined || stableJson(out.state) === stableJson(before)) return { outcome };
  custom[name] = out.state;
  return { outcome, change: { module: name, before, after: out.state } };
}
