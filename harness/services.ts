/**
 * Custom service modules (docs/HARNESS.md "Custom services"): `services/<name>.mjs` of a harness
 * directory answers the tools its manifest binds to `custom.<name>`. The contract mirrors custom reward
 * modules: a default export `{ name, version, call }`, checked when the harness loads, so a broken module
 * is a start-up error naming its file. Modules are loaded synchronously (`require` of an ES module, which
 * Node 20.19+ supports for modules without top-level await), once per process and file content.
 *
 * A module that exports `initial_state` is stateful (docs/HARNESS.md "Stateful services"): its calls may
 * return `{ ok: true, result, state }`, the module's new state. States are JSON checked here, copied and
 * deep-frozen, so a module can neither hand the episode a live object it mutates later nor mutate the
 * state it is shown; the episode holds them in `WorldState.custom` (env/custom-state.ts).
 */
import type { Locale, ToolErrorCode, ToolOutcome, WorldState } from '../protocol/domain.js';
import { TOOL_ERROR_CODES } from '../protocol/domain.js';
import { deepFreeze } from '../protocol/objects.js';
import { loadModuleFile } from './module-file.js';

/**
 * Limits of a stateful service's state (docs/HARNESS.md "Stateful services"): its JSON text in UTF-8
 * bytes, and its nesting depth. A state beyond them is refused (the call fails with CONFLICT naming the
 * module; the state stays what it was). It travels in every record's trace, so it stays small.
 */
export const CUSTOM_STATE_LIMITS = { max_bytes: 64 * 1024, max_depth: 32 } as const;

/** What a custom service is given with each call (read-only; only a stateful service's `state` answer changes anything). */
export interface CustomServiceContext {
  /** The episode's world: products, room, orders, coupons, promotions (mock-services `World`). */
  world: unknown;
  /** The episode's world state so far (coupons issued, cards pushed, hand-offs, refusals). */
  state: Readonly<WorldState>;
  /** The viewer the agent is answering. */
  viewer_id: string;
  /** The episode's locale. */
  locale: Locale;
  /** A stateful service's current state (deep-frozen JSON); absent for a read-only service. */
  custom_state?: unknown;
}

/**
 * What a custom service returns: a result, or a typed error (codes of PROTOCOL.md's tool errors). A
 * stateful service may add `state`, its new state (JSON); without it the state stays as it was.
 */
export type CustomServiceAnswer =
  | { ok: true; result: unknown; state?: unknown }
  | { ok: false; error: { code: string; message: string; field?: string } };

/** A loaded custom service module. */
export interface CustomService {
  readonly name: string;
  readonly version: string;
  /** Answer a call of `tool` (the harness's name) with arguments already checked against its schema. */
  call(tool: string, args: Record<string, unknown>, ctx: CustomServiceContext): CustomServiceAnswer;
  /** Whether the module exports `initial_state` (its calls may change its state). */
  readonly stateful: boolean;
  /** The exported `initial_state`: a checked, frozen JSON value, or a function `(world) => JSON`. */
  readonly initial_state?: unknown;
}

/** A checked state: a deep-frozen JSON copy, or what is wrong with it. */
export type StateCheck = { ok: true; value: unknown } | { ok: false; message: string };

function jsonProblem(v: unknown, path: string, depth: number): string | null {
  if (depth > CUSTOM_STATE_LIMITS.max_depth) return `${path || '(state)'}: nested deeper than ${CUSTOM_STATE_LIMITS.max_depth} levels`;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return null;
  if (typeof v === 'number') return Number.isFinite(v) ? null : `${path || '(state)'}: ${String(v)} is not a finite number`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = jsonProblem(v[i], `${path}[${i}]`, depth + 1);
      if (p !== null) return p;
    }
    return null;
  }
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return `${path || '(state)'}: not a plain object (${(v as object).constructor?.name ?? 'unknown'})`;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = jsonProblem(x, path ? `${path}.${k}` : k, depth + 1);
      if (p !== null) return p;
    }
    return null;
  }
  return `${path || '(state)'}: a ${typeof v} is not JSON`;
}

/**
 * Check a state a module gave (plain objects, arrays, strings, finite numbers, booleans, null; within
 * `CUSTOM_STATE_LIMITS`) and copy it deep-frozen: the copy is what the episode holds, records and scores.
 */
export function checkCustomState(value: unknown): StateCheck {
  if (value === undefined) return { ok: false, message: '(state): undefined is not JSON' };
  const problem = jsonProblem(value, '', 0);
  if (problem !== null) return { ok: false, message: problem };
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > CUSTOM_STATE_LIMITS.max_bytes) {
    return { ok: false, message: `${bytes} bytes of JSON, over the limit of ${CUSTOM_STATE_LIMITS.max_bytes}` };
  }
  return { ok: true, value: deepFreeze(JSON.parse(text) as unknown) };
}

/** A stateful service's state at the start of an episode in `world`: `initial_state` checked (a function is called). */
export function initialCustomState(service: CustomService, world: unknown): StateCheck {
  const init = service.initial_state;
  if (typeof init !== 'function') return { ok: true, value: init };
  let value: unknown;
  try {
    value = (init as (w: unknown) => unknown)(world);
  } catch (err) {
    return { ok: false, message: `initial_state(world) failed: ${(err as Error).message}` };
  }
  const checked = checkCustomState(value);
  return checked.ok ? checked : { ok: false, message: `initial_state(world): ${checked.message}` };
}

const cache = new Map<string, CustomService>();

/**
 * Load `services/<name>.mjs` of `dir`, or push `services/<name>.mjs: key: message` errors. A module that
 * fails to import, lacks a field or names itself otherwise is refused.
 */
export function loadCustomService(dir: string, name: string, errors: string[]): CustomService | undefined {
  const rel = `services/${name}.mjs`;
  const before = errors.length;
  const loaded = loadModuleFile(dir, rel, name, { what: 'a service module', missing: `harness.yaml binds a tool to custom.${name}, which is answered by this module`, shape: '{ name, version, call(tool, args, ctx) }' }, cache, errors);
  if (loaded === undefined) return undefined;
  if ('cached' in loaded) return loaded.cached;
  const { key, ns, m } = loaded;
  if (typeof m.call !== 'function') errors.push(`${rel}: default.call: must be a function (tool, args, ctx) => { ok, result } | { ok: false, error }`);
  // `initial_state` on the default export, or as a named export beside it.
  const init = 'initial_state' in m ? m.initial_state : ns.initial_state;
  const initKey = 'initial_state' in m ? 'default.initial_state' : 'initial_state';
  let initial: unknown = init;
  if (init !== undefined && typeof init !== 'function') {
    const checked = checkCustomState(init);
    if (checked.ok) initial = checked.value;
    else errors.push(`${rel}: ${initKey}: must be a JSON value or a function (world) => JSON: ${checked.message}`);
  }
  if (errors.length > before) return undefined;
  const service: CustomService = Object.freeze({
    name,
    version: m.version as string,
    call: m.call as CustomService['call'],
    stateful: init !== undefined,
    ...(init !== undefined ? { initial_state: initial } : {}),
  });
  cache.set(key, service);
  return service;
}

/**
 * Call a custom service and turn its answer into a ToolOutcome. A throw, an unknown error code or a
 * malformed answer is the service's fault: it becomes a typed error naming the module, never a crash.
 */
export function callCustomService(
  service: CustomService,
  tool: string,
  args: Record<string, unknown>,
  ctx: CustomServiceContext,
): ToolOutcome & { state?: unknown } {
  let answer: unknown;
  try {
    answer = service.call(tool, args, ctx);
  } catch (err) {
    return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service failed (${service.name}: ${(err as Error).message})` } };
  }
  const a = answer as Partial<CustomServiceAnswer> | null;
  if (a && a.ok === true && 'result' in a) {
    // Results travel as JSON: drop what JSON would (functions, undefined) so traces stay data.
    const data = JSON.parse(JSON.stringify(a.result ?? null)) as unknown;
    if (!('state' in a) || a.state === undefined) return { ok: true, data };
    if (!service.stateful) {
      return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service ${service.name} returned a state, but it exports no initial_state (a read-only service changes nothing)` } };
    }
    const state = checkCustomState(a.state);
    if (!state.ok) return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service ${service.name} returned a state the episode cannot keep: ${state.message}` } };
    return { ok: true, data, state: state.value };
  }
  if (a && a.ok === false && a.error && typeof a.error.message === 'string') {
    const code = (TOOL_ERROR_CODES as readonly string[]).includes(a.error.code) ? (a.error.code as ToolErrorCode) : 'CONFLICT';
    const error = typeof a.error.field === 'string' ? { code, message: a.error.message, field: a.error.field } : { code, message: a.error.message };
    return { ok: false, error };
  }
  return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service ${service.name} gave no answer of the form { ok, result }` } };
}
