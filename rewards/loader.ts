/**
 * Reward profiles and custom modules from files, and the catalog the server swaps on SIGHUP.
 *
 * Only paths named in the server's own config reach this file (never a path sent over the wire).
 * Every error names the file (and, for profiles, the key), and nothing is half-applied: a reward set
 * is built completely in a fresh registry and swapped in only when all of it validated. Errors are
 * collected, not returned at the first one: a designer fixing a file learns everything wrong with it
 * (and with the other files) from one start-up or one SIGHUP, not one problem per round.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDocument } from 'yaml';
import { FILE_LIMITS, FileProblem, depthProblem, listFiles, parseMessage, readBytes, readText } from '../protocol/files.js';
import { createLlmJudgeModule } from './modules/llm-judge.js';
import type { LlmJudgeOptions } from './modules/llm-judge.js';
import { stableJson } from '../protocol/stable-json.js';
import { DEFAULT_PROFILE, validateProfile } from './profile.js';
import { defaultRegistry } from './registry.js';
import type { RewardRegistry } from './registry.js';
import type { RewardModule, RewardProfile } from './types.js';
import { deepFreeze, isRecord } from '../protocol/objects.js';

/** Module names are snake_case registry keys, like the built-ins. */
const MODULE_NAME = /^[a-z][a-z0-9_]*$/;

/** Outcome of loading one profile file. */
export type ProfileFileResult = { ok: true; profile: RewardProfile } | { ok: false; errors: string[] };

/** Outcome of loading a module directory. */
export type ModuleDirResult = { ok: true; modules: RewardModule[] } | { ok: false; errors: string[] };

/**
 * Read a JSON or YAML file (by extension) into a value, or the reasons (naming the file) it failed.
 * YAML reports every syntax error of the file (each with its line and column); JSON.parse stops at the
 * first. A file with syntax errors is not validated further: what it would contain is unknown.
 */
function readStructured(path: string): { ok: true; value: unknown } | { ok: false; errors: string[] } {
  const ext = extname(path).toLowerCase();
  if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml') return { ok: false, errors: [`${path}: unknown profile format "${ext}" (use .json, .yaml or .yml)`] };
  let text: string;
  try {
    text = readText(path, { maxBytes: FILE_LIMITS.settings_bytes, what: 'a reward profile' });
  } catch (e) {
    return { ok: false, errors: [e instanceof FileProblem ? e.message : `${path}: cannot read (${(e as Error).message})`] };
  }
  let value: unknown;
  try {
    if (ext === '.json') value = JSON.parse(text);
    else {
      const doc = parseDocument(text);
      if (doc.errors.length > 0) return { ok: false, errors: doc.errors.map((e) => `${path}: ${parseMessage(e)}`) };
      value = doc.toJS();
    }
  } catch (e) {
    // JSON syntax, or a YAML alias that resolves to nothing (found only when converting).
    return { ok: false, errors: [`${path}: ${parseMessage(e)}`] };
  }
  const deep = depthProblem(value);
  if (deep !== null) return { ok: false, errors: [`${path}: ${deep}`] };
  return { ok: true, value };
}

/** A profile file's outcome, and the name it declares when it has one (for the duplicate-name check). */
function readProfile(path: string, registry: RewardRegistry): { result: ProfileFileResult; name: string | undefined } {
  const read = readStructured(path);
  if (!read.ok) return { result: read, name: undefined };
  const raw = read.value;
  const name = isRecord(raw) && typeof raw.name === 'string' && raw.name.length > 0 ? raw.name : undefined;
  const v = validateProfile(raw, registry);
  if (!v.ok) return { result: { ok: false, errors: v.errors.map((e) => `${path}: ${e}`) }, name };
  return { result: v, name };
}

/**
 * Load one profile file (JSON or YAML, one profile per file) and validate it against `registry`:
 * the shape (strict keys; `gates` optional), known and unique modules, gates on the profile's modules,
 * and each module's own `checkParams`. Every error of the file comes in the one result, each reading
 * `FILE: key: message`. Never throws.
 */
export function loadProfileFile(path: string, registry: RewardRegistry): ProfileFileResult {
  return readProfile(path, registry).result;
}

/** Problems with a value exported as a reward module (empty when it is one). */
export function checkModuleShape(value: unknown): string[] {
  if (!isRecord(value)) return ['is not an object'];
  const errors: string[] = [];
  const name = typeof value.name === 'string' ? value.name : undefined;
  if (name === undefined || !MODULE_NAME.test(name)) errors.push(`name must be a snake_case string (got ${JSON.stringify(value.name)})`);
  if (typeof value.version !== 'string' || value.version.length === 0) errors.push('version must be a non-empty string');
  if (value.segment !== 'tool' && value.segment !== 'reply')
    errors.push(`segment must be "tool" or "reply" (got ${JSON.stringify(value.segment)})`);
  if (typeof value.score !== 'function') errors.push('score must be a function (trace, task, params) => {value, reasons}');
  if (value.scoreAsync !== undefined && typeof value.scoreAsync !== 'function') errors.push('scoreAsync, when present, must be a function');
  if (value.checkParams !== undefined && typeof value.checkParams !== 'function')
    errors.push('checkParams, when present, must be a function');
  return errors;
}

/** The module files of a directory: every `*.js` / `*.mjs`, sorted by name (a stable registration order). */
function moduleFiles(dir: string): { ok: true; files: string[] } | { ok: false; errors: string[] } {
  let entries;
  try {
    entries = listFiles(dir, (n) => n.endsWith('.js') || n.endsWith('.mjs'));
  } catch (e) {
    return { ok: false, errors: [`${dir}: cannot read module directory (${e instanceof FileProblem ? e.reason : (e as Error).message})`] };
  }
  // A module is code the server runs: a regular file inside the directory, of a bounded size.
  const errors: string[] = [];
  for (const e of entries) {
    if (e.problem !== undefined) errors.push(`${e.path}: ${e.problem}`);
    else {
      try {
        const st = statSync(e.path);
        if (st.size > FILE_LIMITS.module_bytes) errors.push(`${e.path}: too large (a reward module may have at most ${FILE_LIMITS.module_bytes / (1024 * 1024)} MiB)`);
      } catch (err) {
        errors.push(`${e.path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, files: entries.map((e) => e.path) };
}

/**
 * Import a module file. The URL carries the file's mtime and size: Node caches ESM by URL, so an
 * unchanged file is not evaluated again on reload, and an edited one is (each edit costs one cached
 * module for the life of the process, a fair price for reload without restart).
 */
async function importFresh(file: string): Promise<Record<string, unknown>> {
  const st = statSync(file);
  const url = `${pathToFileURL(resolve(file)).href}?v=${st.mtimeMs}-${st.size}`;
  return (await import(url)) as Record<string, unknown>;
}

/**
 * Load every `*.js` / `*.mjs` file of `dir` as reward modules (the default export, or the named exports
 * `module` / `modules`; each may be one module or an array) and register them in `registry`, but only
 * when all of them are valid: a file that fails to import, exports nothing usable, or repeats a name is
 * an error naming the file, and then nothing is registered. A module may replace a built-in by name.
 */
export async function loadModuleDir(dir: string, registry: RewardRegistry): Promise<ModuleDirResult> {
  const { errors, modules } = await readModuleDir(dir);
  if (errors.length > 0) return { ok: false, errors };
  for (const m of modules) registry.register(m);
  return { ok: true, modules };
}

/** Every problem of a module directory, and the valid modules it holds (even when there are problems). */
async function readModuleDir(dir: string): Promise<{ errors: string[]; modules: RewardModule[] }> {
  const listed = moduleFiles(dir);
  if (!listed.ok) return { errors: listed.errors, modules: [] };
  const errors: string[] = [];
  const found: { file: string; module: RewardModule }[] = [];
  const seen = new Map<string, string>();
  for (const file of listed.files) {
    let ns: Record<string, unknown>;
    try {
      ns = await importFresh(file);
    } catch (e) {
      errors.push(`${file}: cannot import (${(e as Error).message})`);
      continue;
    }
    const exported: [string, unknown][] = [];
    for (const key of ['default', 'module', 'modules']) {
      const v = ns[key];
      if (v === undefined) continue;
      if (Array.isArray(v)) v.forEach((m, i) => exported.push([`${key}[${i}]`, m]));
      else exported.push([key, v]);
    }
    if (exported.length === 0) {
      errors.push(`${file}: exports no reward module (expected a default export, or a named export "module" or "modules")`);
      continue;
    }
    // The same object exported twice (default and `module`) is one module.
    const unique = new Set<unknown>();
    for (const [key, value] of exported) {
      if (unique.has(value)) continue;
      unique.add(value);
      const problems = checkModuleShape(value);
      if (problems.length > 0) {
        for (const p of problems) errors.push(`${file}: export ${key}: ${p}`);
        continue;
      }
      const m = value as RewardModule;
      const prior = seen.get(m.name);
      if (prior !== undefined) {
        errors.push(`${file}: export ${key}: module "${m.name}" is also defined in ${prior}`);
        continue;
      }
      seen.set(m.name, file);
      found.push({ file, module: m });
    }
  }
  return { errors, modules: found.map((f) => f.module) };
}

/** Where reward files come from (the server config's `rewards` block). */
export interface RewardSources {
  /** Profile files (JSON or YAML), loaded in order after the built-in `default`. */
  profiles: readonly string[];
  /** Directories of custom module files, loaded in order (a later module may replace an earlier one). */
  module_dirs: readonly string[];
}

/** A complete, validated reward set: the registry and the profiles by name. Immutable once built. */
export interface RewardSet {
  registry: RewardRegistry;
  profiles: ReadonlyMap<string, RewardProfile>;
  /**
   * `sha256:<hex>` of what scores: every module's name, version and segment, every profile as loaded,
   * and the bytes of every custom module file. Equal sets give equal hashes, on every thread.
   */
  hash: string;
}


/** The hash of a reward set (`RewardSet.hash`); `moduleFiles` are the custom module files it was loaded from. */
export function rewardSetHash(registry: RewardRegistry, profiles: ReadonlyMap<string, RewardProfile>, moduleFiles: readonly string[] = []): string {
  const h = createHash('sha256');
  for (const m of registry.list()) h.update(`module ${m.name} ${m.version} ${m.segment}\n`);
  for (const name of [...profiles.keys()].sort()) h.update(`profile ${stableJson(profiles.get(name))}\n`);
  for (const file of moduleFiles) {
    let bytes: Buffer;
    try {
      bytes = readBytes(file, { maxBytes: FILE_LIMITS.module_bytes, what: 'a reward module' });
    } catch {
      bytes = Buffer.alloc(0);
    }
    h.update(`file ${createHash('sha256').update(bytes).digest('hex')}\n`);
  }
  return `sha256:${h.digest('hex')}`;
}

/** The built-in set's hash: what `welcome` names when a server loads no reward files. */
export function builtinRewardSetHash(registry: RewardRegistry): string {
  return rewardSetHash(registry, new Map([[DEFAULT_PROFILE.name, DEFAULT_PROFILE]]));
}

/** Options of `loadRewardSet`. */
export interface RewardSetOptions {
  /** Settings of the `llm_judge` module registered in every set (api_key comes from the entry point). */
  judge?: LlmJudgeOptions;
}

/**
 * Build a reward set from files: the built-in modules, `llm_judge`, the modules of every directory,
 * then the built-in `default` profile and every profile file (a file may redefine `default`; two files
 * may not define the same name). All errors are collected; on any error nothing is returned.
 */
export async function loadRewardSet(
  sources: RewardSources,
  opts: RewardSetOptions = {},
): Promise<{ ok: true; set: RewardSet } | { ok: false; errors: string[] }> {
  const registry = registryWithJudge(opts.judge);
  const errors: string[] = [];
  const files: string[] = [];
  for (const dir of sources.module_dirs) {
    const listed = moduleFiles(dir);
    if (listed.ok) files.push(...listed.files);
    // The valid modules of a directory with errors are registered too: this registry is thrown away on
    // any error, and profiles naming them should not report them unknown on top of the real problem.
    const r = await readModuleDir(dir);
    errors.push(...r.errors);
    for (const m of r.modules) registry.register(m);
  }
  // Profiles are validated against the complete registry (custom modules included), so a module file
  // that failed to load can also surface as "unknown reward module" in a profile: both are reported.
  const profiles = new Map<string, RewardProfile>([[DEFAULT_PROFILE.name, DEFAULT_PROFILE]]);
  const from = new Map<string, string>();
  for (const path of sources.profiles) {
    const { result, name } = readProfile(path, registry);
    if (!result.ok) errors.push(...result.errors);
    // A file with other errors still claims its name, so a clash is reported in the same round.
    if (name === undefined) continue;
    const prior = from.get(name);
    if (prior !== undefined) {
      errors.push(`${path}: name: profile "${name}" is also defined in ${prior}`);
      continue;
    }
    from.set(name, path);
    if (result.ok) profiles.set(name, deepFreeze(result.profile));
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, set: { registry, profiles, hash: rewardSetHash(registry, profiles, files) } };
}

/** Outcome of a reload: the new profile names, or every error (the old set stays in force). */
export type ReloadOutcome = { ok: true; profiles: string[]; generation: number; hash: string } | { ok: false; errors: string[] };

/** A loaded set not yet in force (`RewardCatalog.prepare`), or why it could not be loaded. */
export type PreparedRewards = { ok: true; set: RewardSet } | { ok: false; errors: string[] };

/**
 * The reward set a server runs with, and its reload. `reload()` re-reads every file, validates it all,
 * and only then swaps the set atomically (listeners see the new one); a bad file leaves the old set in
 * force. Episodes hold their own profile and registry from reset on, so in-flight episodes finish with
 * the set they started with. Reloads are serialised (a second SIGHUP waits for the first).
 */
export class RewardCatalog {
  readonly sources: RewardSources;
  readonly #opts: RewardSetOptions;
  #current: RewardSet;
  #generation = 0;
  #listeners = new Set<(set: RewardSet) => void>();
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(sources: RewardSources, opts: RewardSetOptions, set: RewardSet) {
    this.sources = { profiles: [...sources.profiles], module_dirs: [...sources.module_dirs] };
    this.#opts = opts;
    this.#current = set;
  }

  /** Load the files once (start-up): the catalog, or every error (the server must not start). */
  static async load(
    sources: RewardSources,
    opts: RewardSetOptions = {},
  ): Promise<{ ok: true; catalog: RewardCatalog } | { ok: false; errors: string[] }> {
    const r = await loadRewardSet(sources, opts);
    if (!r.ok) return r;
    return { ok: true, catalog: new RewardCatalog(sources, opts, r.set) };
  }

  /** The set in force now. */
  get current(): RewardSet {
    return this.#current;
  }

  /** Successful reloads so far (0 after start-up). */
  get generation(): number {
    return this.#generation;
  }

  /** Call `listener` with each new set after a successful reload; returns the unsubscribe function. */
  onSwap(listener: (set: RewardSet) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Re-read and validate the files without putting them in force: the first phase of a reload that
   * several threads must make together (each prepares, then all commit or none). Never rejects.
   */
  prepare(): Promise<PreparedRewards> {
    const run = this.#chain.then(async (): Promise<PreparedRewards> => {
      try {
        return await loadRewardSet(this.sources, this.#opts);
      } catch (e) {
        return { ok: false, errors: [`reload failed: ${(e as Error).message}`] };
      }
    });
    this.#chain = run;
    return run;
  }

  /** Put a prepared set in force (listeners see it). */
  commit(set: RewardSet): ReloadOutcome {
    this.#current = set;
    this.#generation++;
    // A listener is the server swapping its env config; one that throws must not undo the swap for others.
    for (const l of this.#listeners) {
      try {
        l(set);
      } catch {
        /* the listener's own problem; the catalog has swapped */
      }
    }
    return { ok: true, profiles: [...set.profiles.keys()], generation: this.#generation, hash: set.hash };
  }

  /** Re-read, validate, swap (one thread's reload: `prepare` then `commit`). Never rejects. */
  async reload(): Promise<ReloadOutcome> {
    const r = await this.prepare();
    return r.ok ? this.commit(r.set) : r;
  }
}

/** A registry with the built-ins and `llm_judge` (what a profile file may name without module dirs). */
export function registryWithJudge(judge: LlmJudgeOptions = {}): RewardRegistry {
  const registry = defaultRegistry();
  registry.register(createLlmJudgeModule({ ...judge, resolve: (n) => registry.get(n) }));
  return registry;
}
