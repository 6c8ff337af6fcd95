/**
 * Hook modules (docs/HARNESS.md "Hook modules"): `hooks/<name>.mjs` of a harness directory is a check a
 * `kind: module` hook binds, for rules the library's kinds cannot state (a stop hook that needs matching
 * arguments or a call order). The contract mirrors custom services and reward modules: a default export
 * `{ name, version, stages, params?, codes, check }`, checked when the harness loads, so a broken module
 * is a start-up error naming its file. Loaded synchronously (`require` of an ES module, Node 20.19+, no
 * top-level await), once per process and file content, as custom services are (harness/services.ts).
 *
 * This file loads and validates; env/hooks.ts adapts a module to the hook engine's kind interface, the
 * one the library's own kinds implement, and runs it.
 */
import { deepFreeze } from '../protocol/objects.js';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import AjvModule from 'ajv';
import type { Locale } from '../protocol/domain.js';
import { LOCALES } from '../protocol/domain.js';
import { loadModuleFile } from './module-file.js';

// ajv ships CommonJS with a default export; under NodeNext the class sits on `.default`.
const Ajv = (AjvModule as unknown as { default: typeof AjvType }).default ?? (AjvModule as unknown as typeof AjvType);
const ajv = new Ajv({ allErrors: true, strict: false });

/** The stages a hook module may run at. */
export const HOOK_MODULE_STAGES = ['input', 'tool_args', 'reply'] as const;

/** A stage a hook module runs at. */
export type HookModuleStage = (typeof HOOK_MODULE_STAGES)[number];

/** A hook module's violation code: upper case and underscores. */
export const HOOK_MODULE_CODE_RE = /^[A-Z][A-Z_]*$/;

/** The code a module hook reports when its module throws or returns something malformed at run time. */
export const HOOK_MODULE_FAILED = 'HOOK_MODULE_FAILED';

/** One call of the episode so far, as a reply-stage module reads it (canonical names, canonical arguments). */
export interface HookModuleCall {
  /** The harness's own (canonical) tool name. */
  tool: string;
  /** The parsed arguments, canonical; null when they could not be parsed. */
  arguments: Readonly<Record<string, unknown>> | null;
  /** The arguments were accepted: the call reached its service, whatever it answered (required_call's rule). */
  accepted: boolean;
  /** The service answered with a result. */
  ok: boolean;
  /** The result data, when ok. */
  result?: unknown;
  /** The tool error code, when not ok. */
  error?: string;
}

/** What a module's `check` is given, by stage. */
export type HookModuleInput =
  | { stage: 'input'; message: string }
  | { stage: 'tool_args'; tool: string; arguments: Readonly<Record<string, unknown>> }
  | { stage: 'reply'; reply: string; calls: readonly HookModuleCall[] };

/** What a module's `check` is given besides its input (read-only). */
export interface HookModuleContext {
  /** The episode's locale. */
  locale: Locale;
  /** The hook's id in hooks.yaml. */
  hook: string;
  /** The episode's world (products, room, orders, coupons), frozen; null where no episode world exists. */
  world: unknown;
}

/** A loaded, validated hook module. */
export interface HookModule {
  readonly name: string;
  readonly version: string;
  /** `hooks/<name>.mjs`, for messages. */
  readonly file: string;
  readonly stages: readonly HookModuleStage[];
  /** Feedback text per code and locale (no final punctuation). */
  readonly codes: Readonly<Record<string, Readonly<Record<Locale, string>>>>;
  /** The module's check, as exported: callers guard it (env/hooks.ts). */
  readonly check: (input: HookModuleInput, params: unknown, ctx: HookModuleContext) => unknown;
  /** `params` against the module's JSON Schema: one `path: message` line per problem (none when valid). */
  paramErrors(params: unknown): string[];
}

const cache = new Map<string, HookModule>();

const FINAL_PUNCT_RE = /[。．.！!？?；;，,]$/u;

function ajvLine(e: ErrorObject): string {
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  return `${path === '' ? '(params)' : path}: ${e.message ?? 'invalid'}`;
}

/**
 * Load `hooks/<name>.mjs` of `dir`, or push `hooks/<name>.mjs: key: message` errors. `reserved` are the
 * library's violation codes, which a module may not report.
 */
export function loadHookModule(dir: string, name: string, reserved: readonly string[], errors: string[]): HookModule | undefined {
  const rel = `hooks/${name}.mjs`;
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
    errors.push(`${rel}: (file): "${name}" is not a module name (^[a-z0-9][a-z0-9_-]*$)`);
    return undefined;
  }
  const before = errors.length;
  const loaded = loadModuleFile(dir, rel, name, { what: 'a hook module', missing: `hooks.yaml binds a hook to module ${name}, which is this file`, shape: '{ name, version, stages, params?, codes, check(input, params, ctx) }' }, cache, errors);
  if (loaded === undefined) return undefined;
  if ('cached' in loaded) return loaded.cached;
  const { key, m } = loaded;
  if (typeof m.check !== 'function') errors.push(`${rel}: default.check: must be a function (input, params, ctx) => [{ code, evidence? }]`);
  const stages = m.stages;
  if (!Array.isArray(stages) || stages.length === 0 || !stages.every((s) => (HOOK_MODULE_STAGES as readonly unknown[]).includes(s))) {
    errors.push(`${rel}: default.stages: must be a non-empty list of ${HOOK_MODULE_STAGES.join(', ')}`);
  }
  const codes = m.codes;
  if (codes === null || typeof codes !== 'object' || Array.isArray(codes) || Object.keys(codes).length === 0) {
    errors.push(`${rel}: default.codes: must be an object { CODE: { zh-CN: text, en: text } } with at least one code`);
  } else {
    for (const [code, texts] of Object.entries(codes as Record<string, unknown>)) {
      const at = `${rel}: default.codes.${code}`;
      if (!HOOK_MODULE_CODE_RE.test(code)) errors.push(`${at}: must match ^[A-Z][A-Z_]*$`);
      else if (reserved.includes(code) || code === HOOK_MODULE_FAILED) errors.push(`${at}: ${code} is a code of the library's own hooks; give this module a code of its own`);
      for (const locale of LOCALES) {
        const text = (texts as Record<string, unknown> | null)?.[locale];
        if (typeof text !== 'string' || text.trim() === '') errors.push(`${at}.${locale}: must be a non-empty string`);
        else if (FINAL_PUNCT_RE.test(text.trim())) errors.push(`${at}.${locale}: must not end with punctuation (the feedback templates add it)`);
      }
    }
  }
  let validate: ValidateFunction | undefined;
  if (m.params !== undefined) {
    try {
      if (m.params === null || typeof m.params !== 'object') throw new Error('must be a JSON Schema object');
      validate = ajv.compile(m.params as object);
    } catch (err) {
      errors.push(`${rel}: default.params: not a valid JSON Schema: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (errors.length > before) return undefined;
  const check = m.check as HookModule['check'];
  const module: HookModule = Object.freeze({
    name,
    version: m.version as string,
    file: rel,
    stages: Object.freeze([...(stages as HookModuleStage[])]),
    codes: deepCopyFrozen(codes) as HookModule['codes'],
    check,
    paramErrors(params: unknown): string[] {
      if (validate === undefined || validate(params)) return [];
      return (validate.errors ?? []).map(ajvLine);
    },
  });
  cache.set(key, module);
  return module;
}

function deepCopyFrozen(v: unknown): unknown {
  return deepFreeze(JSON.parse(JSON.stringify(v)) as unknown);
}

