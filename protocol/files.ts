/**
 * The one way every input file is read (harness directories, task files, reward profiles and modules,
 * configs, mixes, grades, records): a regular file only (never a FIFO, a device, a socket or a
 * directory, which would hang a read or never end it), inside its directory when it was found by
 * listing one (a link that leads out is refused), no larger than its kind's limit (checked before a byte
 * is read, and again while reading, for files whose size is not known in advance), and, for text, valid
 * UTF-8. Parsed values are checked for depth (`depthProblem`) before recursive code walks them.
 *
 * Every failure is a `FileProblem`: the path and one reason, printed as `PATH: reason`. The callers turn it
 * into their own error line (a harness's `file: (file): reason`, a task file's `file:0: reason`), so a bad
 * file is refused with the same words wherever it is given. docs/DEPLOY.md "Threat model" lists the limits.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join, relative, sep, isAbsolute } from 'node:path';
import { isUtf8 } from 'node:buffer';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Limits per kind of file, in bytes (and nesting levels, entries). A file past its limit is refused
 * before it is parsed; the limits are far above what a real harness, task set or record needs.
 */
export const FILE_LIMITS = {
  /** `harness.yaml`, `prompt.yaml`, `hooks.yaml`, `paraphrases.yaml`, `tools/i18n/*.json`. */
  harness_yaml_bytes: 1 * MiB,
  /** One skill (`skills/<locale>/*.md`). */
  skill_bytes: 256 * KiB,
  /** One tool schema (`tools/*.json`). */
  tool_bytes: 256 * KiB,
  /** A custom service (`services/*.mjs`) or a reward module (`*.js`, `*.mjs`). */
  module_bytes: 8 * MiB,
  /** A task file (`--tasks`, a harness's `tasks/*.jsonl`), read a line at a time. */
  task_file_bytes: 256 * MiB,
  /** One line of a task file. */
  task_line_bytes: 1 * MiB,
  /** Tasks of one load (every task file of a server together). */
  max_tasks: 100_000,
  /** A reward profile, a config file, a traffic-mix file. */
  settings_bytes: 1 * MiB,
  /** A grades file (`calibrate`). */
  grades_bytes: 64 * MiB,
  /** One record file (`*.hgrec`; the recorder rotates at 64 MiB by default). */
  record_bytes: 1024 * MiB,
  /** Nesting of a parsed JSON or YAML value (objects and arrays). */
  max_depth: 64,
  /** Any other file of a harness directory (hashed for its identity). */
  other_bytes: 256 * MiB,
  /** Files of a harness directory, all folders together. */
  max_dir_files: 10_000,
  /** Folder nesting of a harness directory. */
  max_dir_depth: 8,
} as const;

/** A file that cannot be used, and why (one line; `message` reads `PATH: reason`). */
export class FileProblem extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'FileProblem';
    this.path = path;
    this.reason = reason;
  }

  /** Whether the file is simply not there (callers that know what it is for say so in their own words). */
  get missing(): boolean {
    return this.reason === MISSING;
  }
}

/** The reason of a path that does not exist. */
const MISSING = 'cannot read (ENOENT: no such file or directory)';

/** How a size reads in a message: bytes, KiB or MiB. */
export function formatBytes(n: number): string {
  if (n >= MiB) return `${Number((n / MiB).toFixed(1))} MiB`;
  if (n >= KiB) return `${Number((n / KiB).toFixed(1))} KiB`;
  return `${n} bytes`;
}

/** What a non-regular file is, for the message refusing it. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Options of a bounded read. */
export interface ReadOptions {
  /** The most bytes the file may have. */
  maxBytes: number;
  /** What the file is, for the size message (`a skill file`). */
  what: string;
  /** The directory the file must resolve inside (after links), when it was found in one. */
  within?: string;
}

/** Whether `path` (resolved) lies inside `dir` (resolved). */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * The problem with a directory entry as a file to read, or null: it must resolve (links followed) to a
 * regular file inside `within`. Does not open the file, so a FIFO never blocks.
 */
export function entryProblem(path: string, within?: string): string | null {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A dangling link is an entry that leads nowhere; a missing path is missing.
      try {
        if (lstatSync(path).isSymbolicLink()) return 'a link to nothing (its target does not exist)';
      } catch {
        // Missing indeed.
      }
      return MISSING;
    }
    if (code === 'ELOOP') return 'a loop of links';
    return `cannot read (${code ?? (e as Error).message})`;
  }
  if (within !== undefined) {
    let root: string;
    try {
      root = realpathSync(within);
    } catch {
      root = within;
    }
    if (!inside(root, real)) return `a link to ${real}, outside ${within}: only files inside the directory are read`;
  }
  return null;
}

/** Open a regular file for reading without ever blocking (O_NONBLOCK: a FIFO opens and is then refused). */
function openRegular(path: string, within?: string): { fd: number; size: number } {
  const problem = entryProblem(path, within);
  if (problem !== null) throw new FileProblem(path, problem);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new FileProblem(path, `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new FileProblem(path, `${kindOf(st)}, not a regular file: give a file`);
  }
  return { fd, size: st.size };
}

function tooLarge(path: string, size: number | string, opts: ReadOptions): FileProblem {
  const got = typeof size === 'number' ? formatBytes(size) : size;
  return new FileProblem(path, `too large (${got}; ${opts.what} may have at most ${formatBytes(opts.maxBytes)})`);
}

/** Read a whole file into bytes, within the limits of `opts`. Throws `FileProblem`. */
export function readBytes(path: string, opts: ReadOptions): Buffer {
  const { fd, size } = openRegular(path, opts.within);
  try {
    if (size > opts.maxBytes) throw tooLarge(path, size, opts);
    // The size stat gave, plus one byte to see a file that grew (or whose size is not known: /proc).
    let buf = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, Math.max(size + 1, 64 * KiB)));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        // Longer than stat said (a growing file, or one whose size is not known): grow up to the limit.
        const bigger = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > opts.maxBytes) throw tooLarge(path, `over ${formatBytes(opts.maxBytes)}`, opts);
    }
    return buf.subarray(0, n);
  } catch (e) {
    if (e instanceof FileProblem) throw e;
    throw new FileProblem(path, `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's bytes a chunk at a time, in bounded memory (one 256 KiB buffer, reused: a chunk is valid until
 * the next one is asked for). The file's problems (not a regular file, over `opts.maxBytes` before or while
 * reading, a read error) are thrown as `FileProblem`.
 */
function* chunks(path: string, opts: ReadOptions): Generator<Buffer> {
  const { fd, size } = openRegular(path, opts.within);
  try {
    if (size > opts.maxBytes) throw tooLarge(path, size, opts);
    const chunk = Buffer.allocUnsafe(256 * KiB);
    let total = 0;
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        throw new FileProblem(path, `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      if (got === 0) return;
      total += got;
      if (total > opts.maxBytes) throw tooLarge(path, `over ${formatBytes(opts.maxBytes)}`, opts);
      yield chunk.subarray(0, got);
    }
  } finally {
    closeSync(fd);
  }
}

/** Feed a file's bytes to `onChunk` a chunk at a time (hashing a large file in bounded memory). Throws `FileProblem`. */
export function forEachChunk(path: string, opts: ReadOptions, onChunk: (chunk: Buffer) => void): void {
  for (const c of chunks(path, opts)) onChunk(c);
}

/** The offset of the first byte that is not valid UTF-8 (the buffer is known to be invalid). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > bytes.length) return i;
    if (len > 1 && !isUtf8(bytes.subarray(i, i + len))) return i;
    i += len;
  }
  return bytes.length;
}

/** Bytes as UTF-8 text (a leading byte-order mark dropped), or the problem naming the first bad byte. */
export function utf8Text(bytes: Uint8Array): { ok: true; text: string } | { ok: false; reason: string } {
  if (!isUtf8(bytes)) return { ok: false, reason: `not valid UTF-8 (byte ${firstInvalidUtf8(bytes)}): save it as UTF-8` };
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { ok: true, text: Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.length - start).toString('utf8') };
}

/** Read a whole text file (UTF-8), within the limits of `opts`. Throws `FileProblem`. */
export function readText(path: string, opts: ReadOptions): string {
  const decoded = utf8Text(readBytes(path, opts));
  if (!decoded.ok) throw new FileProblem(path, decoded.reason);
  return decoded.text;
}

/** One line of a streamed text file: its text, or why it cannot be used (too long, not UTF-8). */
export type Line = { line: number; text: string } | { line: number; problem: string };

/**
 * The lines of a text file, read a chunk at a time (memory is one chunk and one line, whatever the file's
 * size): each line's number and text (`\r\n` or `\n`), or its problem. Blank lines are yielded too. The
 * file's own problems (not a regular file, too large) are thrown as `FileProblem` before or while reading.
 */
export function* readLines(path: string, opts: ReadOptions & { maxLineBytes: number }): Generator<Line> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let overlong = false;
  let line = 0;
  const finish = function* (tail: Buffer): Generator<Line> {
    line++;
    if (overlong || partBytes + tail.length > opts.maxLineBytes) {
      yield { line, problem: `line too long (over ${formatBytes(opts.maxLineBytes)}; a line may have at most ${formatBytes(opts.maxLineBytes)})` };
    } else {
      let bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
      const decoded = utf8Text(bytes);
      yield decoded.ok ? { line, text: decoded.text } : { line, problem: decoded.reason.replace(/\(byte (\d+)\)/, '(byte $1 of the line)') };
    }
    parts = [];
    partBytes = 0;
    overlong = false;
  };
  for (const chunk of chunks(path, opts)) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      yield* finish(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) {
      // The chunk's buffer is reused: the rest of a line is copied.
      const rest = chunk.subarray(start);
      if (overlong || partBytes + rest.length > opts.maxLineBytes) overlong = true;
      else parts.push(Buffer.from(rest));
      partBytes += rest.length;
    }
  }
  if (partBytes > 0 || overlong) yield* finish(Buffer.alloc(0));
}

/**
 * Why a parsed value is nested too deep for the code that walks it (objects and arrays deeper than
 * `max` levels), or null. Iterative: a value nested 100,000 levels is measured, not a stack overflow.
 */
export function depthProblem(value: unknown, max: number = FILE_LIMITS.max_depth): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) return `nested too deep (more than ${max} levels of objects and arrays)`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
  }
  return null;
}

/** A parser's message on one line; a stack overflow inside a parser (YAML nested thousands deep) reads as depth. */
export function parseMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/Maximum call stack size exceeded/.test(message)) return `nested too deep (more than ${FILE_LIMITS.max_depth} levels of objects and arrays)`;
  const line = message.split('\n', 1)[0];
  return line.endsWith(':') ? line.slice(0, -1) : line;
}

/** An entry of a listed directory: a file to read, or why it is refused. */
/**
 * Every file under `dir` (relative paths, sorted, dot-names left out), walking folders at most
 * `FILE_LIMITS.max_dir_depth` deep and listing at most `FILE_LIMITS.max_dir_files` files, and the
 * problems of entries that cannot be read as files (special files, links out of `dir`, loops).
 */
export function walkFiles(dir: string): { files: string[]; problems: string[] } {
  const files: string[] = [];
  const problems: string[] = [];
  const visit = (sub: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub)).sort();
    } catch (e) {
      problems.push(`${sub || '.'}: cannot list (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const rel = sub === '' ? name : `${sub}/${name}`;
      const path = join(dir, rel);
      const problem = entryProblem(path, dir);
      if (problem !== null) {
        problems.push(`${rel}: ${problem}`);
        continue;
      }
      let st: Stats;
      try {
        st = lstatSync(realpathSync(path));
      } catch (e) {
        problems.push(`${rel}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        continue;
      }
      if (st.isDirectory()) {
        if (lstatSync(path).isSymbolicLink()) problems.push(`${rel}: a link to a folder: give the folder itself`);
        else if (depth >= FILE_LIMITS.max_dir_depth) problems.push(`${rel}: folders nested more than ${FILE_LIMITS.max_dir_depth} deep`);
        else visit(rel, depth + 1);
      } else if (!st.isFile()) problems.push(`${rel}: ${kindOf(st)}, not a regular file`);
      else if (files.length >= FILE_LIMITS.max_dir_files) {
        problems.push(`${rel}: more than ${FILE_LIMITS.max_dir_files} files in the directory`);
        return;
      } else files.push(rel);
      if (problems.length > 100) return;
    }
  };
  visit('', 0);
  return { files, problems };
}

export type DirEntry = { name: string; path: string; problem?: string };

/**
 * The entries of a directory whose names pass `accept`, sorted by name, dot-names left out: each a
 * regular file inside `dir` (links followed), or refused with its problem; two names that differ only
 * in case are both refused (they are one file on macOS and Windows). Throws `FileProblem` when the
 * directory cannot be listed.
 */
export function listFiles(dir: string, accept: (name: string) => boolean): DirEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new FileProblem(dir, `cannot list (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const picked = names.filter((n) => !n.startsWith('.') && accept(n)).sort();
  const byFold = new Map<string, string[]>();
  for (const n of picked) {
    const k = n.toLowerCase();
    byFold.set(k, [...(byFold.get(k) ?? []), n]);
  }
  return picked.map((name): DirEntry => {
    const path = join(dir, name);
    const twins = (byFold.get(name.toLowerCase()) ?? []).filter((n) => n !== name);
    if (twins.length > 0) return { name, path, problem: `differs from ${twins.join(', ')} only in case: rename one (they are one file on macOS and Windows)` };
    const problem = entryProblem(path, dir);
    if (problem !== null) return { name, path, problem };
    let st: Stats;
    try {
      st = lstatSync(realpathSync(path));
    } catch (e) {
      return { name, path, problem: `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
    }
    return st.isFile() ? { name, path } : { name, path, problem: `${kindOf(st)}, not a regular file` };
  });
}
