/**
 * The files commands read and write, checked before the work starts: an output directory that can be
 * written, and a record input (`replay`, `inspect`, `rescore`, `view`) that holds records. A missing or
 * unusable path is the same error with the same exit code (4) and the same words in every command,
 * the words `startViewer` uses (recording/view/server.ts).
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readRecords } from '../recording/index.js';
import type { LoadedRecord } from '../recording/index.js';
import { fileError } from './errors.js';

/** What to give instead of a path without records. */
export const RECORD_INPUT_HINT =
  'give a directory of record files (*.hgrec, as `harness-gym serve --record DIR` or `harness-gym eval --record DIR` write them) or one such file';

/**
 * Make a directory and its missing parents one level at a time. (`mkdirSync(dir, {recursive: true})`
 * never returns under /proc on Node 20: it retries the ENOENT there forever.)
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) mkdirSync(d);
}

/** A directory records can be written to (made when missing), or a file error saying why not. */
export function writableDir(dir: string, flag: string): void {
  try {
    makeDirs(dir);
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw fileError(`${flag} ${dir}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a writable directory`);
  }
}

/**
 * The records of a file or directory, warnings (a torn tail) printed on stderr; a file error when the
 * path does not exist, cannot be read, holds no record file or is not one.
 */
export function loadRecordInput(path: string): LoadedRecord[] {
  if (!existsSync(path)) throw fileError(`${path} does not exist: ${RECORD_INPUT_HINT}`);
  let loaded: ReturnType<typeof readRecords>;
  try {
    loaded = readRecords(path);
  } catch (e) {
    throw fileError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${RECORD_INPUT_HINT}`);
  }
  if (!loaded.ok) throw fileError(`${loaded.message}: ${RECORD_INPUT_HINT}`);
  const r = loaded.result;
  if (r.files.length === 0) throw fileError(`${path} holds no record file: ${RECORD_INPUT_HINT}`);
  // A file without a header or a record is not one (a torn record file keeps its header).
  if (r.headers.length === 0 && r.records.length === 0) throw fileError(`${path} is not a record file: ${RECORD_INPUT_HINT}`);
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  // Every episode was skipped for its shape (each warned above): nothing to work on is a file problem.
  if (r.records.length === 0 && r.skipped > 0) {
    throw fileError(`${path} holds no valid episode record (${r.skipped} skipped, see the warnings above): ${RECORD_INPUT_HINT}`);
  }
  return r.records;
}
