/**
 * Custom service modules (docs/HARNESS.md "Custom services"): `services/<name>.mjs` of a harness
 * directory answers the tools its manifest binds to `custom.<name>`. The contract mirrors custom reward
 * modules: a default export `{ name, version, call }`, checked when the harness loads, so a broken module
 * is a start-up error naming its file. Modules are loaded synchronously (`require` of an ES module, which
 * Node 20.19+ supports for modules without top-level await), once per process and file content.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Locale, ToolErrorCode, ToolOutcome, WorldState } from '../protocol/domain.js';
import { TOOL_ERROR_CODES } from '../protocol/domain.js';
import { FILE_LIMITS, FileProblem, readBytes } from '../protocol/files.js';

const require = createRequire(import.meta.url);

/** What a custom service is given with each call (read-only; a service changes nothing). */
export interface CustomServiceContext {
  /** The episode's world: products, room, orders, coupons, promotions (mock-services `World`). */
  world: unknown;
  /** The episode's world state so far (coupons issued, cards pushed, hand-offs, refusals). */
  state: Readonly<WorldState>;
  /** The viewer the agent is answering. */
  viewer_id: string;
  /** The episode's locale. */
  locale: Locale;
}

/** What a custom service returns: a result, or a typed error (codes of PROTOCOL.md's tool errors). */
export type CustomServiceAnswer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; field?: string } };

/** A loaded custom service module. */
export interface CustomService {
  readonly name: string;
  readonly version: string;
  /** Answer a call of `tool` (the harness's name) with arguments already checked against its schema. */
  call(tool: string, args: Record<string, unknown>, ctx: CustomServiceContext): CustomServiceAnswer;
}

const cache = new Map<string, CustomService>();

/**
 * Load `services/<name>.mjs` of `dir`, or push `services/<name>.mjs: key: message` errors. A module that
 * fails to import, lacks a field or names itself otherwise is refused.
 */
export function loadCustomService(dir: string, name: string, errors: string[]): CustomService | undefined {
  const rel = `services/${name}.mjs`;
  const file = join(dir, rel);
  let bytes: Buffer;
  try {
    bytes = readBytes(file, { maxBytes: FILE_LIMITS.module_bytes, what: 'a service module', within: dir });
  } catch (err) {
    if (err instanceof FileProblem && !err.missing) errors.push(`${rel}: (file): ${err.reason}`);
    else errors.push(`${rel}: (file): missing: harness.yaml binds a tool to custom.${name}, which is answered by this module`);
    return undefined;
  }
  const key = `${file}\0${createHash('sha256').update(bytes).digest('hex')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let ns: Record<string, unknown>;
  try {
    ns = require(file) as Record<string, unknown>;
  } catch (err) {
    errors.push(`${rel}: (file): cannot load: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
  const m = ns.default as Record<string, unknown> | undefined;
  if (m === null || typeof m !== 'object') {
    errors.push(`${rel}: default: must export default an object { name, version, call(tool, args, ctx) }`);
    return undefined;
  }
  const before = errors.length;
  if (m.name !== name) errors.push(`${rel}: default.name: must be "${name}" (the file name), got ${JSON.stringify(m.name)}`);
  if (typeof m.version !== 'string' || m.version.length === 0) errors.push(`${rel}: default.version: must be a non-empty string`);
  if (typeof m.call !== 'function') errors.push(`${rel}: default.call: must be a function (tool, args, ctx) => { ok, result } | { ok: false, error }`);
  if (errors.length > before) return undefined;
  const service = Object.freeze({ name, version: m.version as string, call: m.call as CustomService['call'] });
  cache.set(key, service);
  return service;
}

/**
 * Call a custom service and turn its answer into a ToolOutcome. A throw, an unknown error code or a
 * malformed answer is the service's fault: it becomes a typed error naming the module, never a crash.
 */
export function callCustomService(service: CustomService, tool: string, args: Record<string, unknown>, ctx: CustomServiceContext): ToolOutcome {
  let answer: unknown;
  try {
    answer = service.call(tool, args, ctx);
  } catch (err) {
    return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service failed (${service.name}: ${(err as Error).message})` } };
  }
  const a = answer as Partial<CustomServiceAnswer> | null;
  if (a && a.ok === true && 'result' in a) {
    // Results travel as JSON: drop what JSON would (functions, undefined) so traces stay data.
    return { ok: true, data: JSON.parse(JSON.stringify(a.result ?? null)) as unknown };
  }
  if (a && a.ok === false && a.error && typeof a.error.message === 'string') {
    const code = (TOOL_ERROR_CODES as readonly string[]).includes(a.error.code) ? (a.error.code as ToolErrorCode) : 'CONFLICT';
    const error = typeof a.error.field === 'string' ? { code, message: a.error.message, field: a.error.field } : { code, message: a.error.message };
    return { ok: false, error };
  }
  return { ok: false, error: { code: 'CONFLICT', message: `${tool}: the service ${service.name} gave no answer of the form { ok, result }` } };
}
