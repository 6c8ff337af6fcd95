/**
 * The part every module of a harness directory shares (services/, hooks/, intents/): read the file within
 * the directory's size limit, load it synchronously (`require` of an ES module, Node 20.19+, no top-level
 * await) once per process and file content, and check that its default export is an object with the file's
 * `name` and a non-empty `version`. Each problem goes to `errors` as `<rel>: <key>: <what>`.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FILE_LIMITS, FileProblem, readBytes } from '../protocol/files.js';

const require = createRequire(import.meta.url);

/** How a kind of module is described in its errors. */
export interface ModuleKind {
  /** `a service module`, `a hook module`, ...: the file reader's word for it. */
  what: string;
  /** The "missing" message's reason: what binds the file. */
  missing: string;
  /** The default export's shape, for the error when it is not an object. */
  shape: string;
}

/** A module read and loaded, its name and version checked: its cache key, namespace and default export. */
export interface LoadedModule {
  key: string;
  ns: Record<string, unknown>;
  m: Record<string, unknown>;
}

/**
 * Load `rel` of `dir`. Returns the cached value when the same file content was loaded before, undefined when
 * it cannot be loaded (the problem pushed), or the loaded module, with a wrong name or version already
 * pushed to `errors` (the caller checks the rest and caches what it builds under `key`).
 */
export function loadModuleFile<T>(
  dir: string,
  rel: string,
  name: string,
  kind: ModuleKind,
  cache: ReadonlyMap<string, T>,
  errors: string[],
): { cached: T } | LoadedModule | undefined {
  const file = join(dir, rel);
  let bytes: Buffer;
  try {
    bytes = readBytes(file, { maxBytes: FILE_LIMITS.module_bytes, what: kind.what, within: dir });
  } catch (err) {
    if (err instanceof FileProblem && !err.missing) errors.push(`${rel}: (file): ${err.reason}`);
    else errors.push(`${rel}: (file): missing: ${kind.missing}`);
    return undefined;
  }
  const key = `${file}\0${createHash('sha256').update(bytes).digest('hex')}`;
  const hit = cache.get(key);
  if (hit) return { cached: hit };
  let ns: Record<string, unknown>;
  try {
    ns = require(file) as Record<string, unknown>;
  } catch (err) {
    errors.push(`${rel}: (file): cannot load: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
  const m = ns.default as Record<string, unknown> | undefined;
  if (m === null || typeof m !== 'object') {
    errors.push(`${rel}: default: must export default an object ${kind.shape}`);
    return undefined;
  }
  if (m.name !== name) errors.push(`${rel}: default.name: must be "${name}" (the file name), got ${JSON.stringify(m.name)}`);
  if (typeof m.version !== 'string' || m.version.length === 0) errors.push(`${rel}: default.version: must be a non-empty string`);
  return { key, ns, m };
}
