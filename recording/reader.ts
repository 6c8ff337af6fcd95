/**
 * Reading record files back. A file is a stream of MessagePack values; a truncated or corrupt tail (a
 * crash mid-write) stops the read of that file with a warning, and every complete record before it is
 * kept: one torn write never costs the whole file. An episode value of the wrong shape (a tampered or
 * foreign record: a field missing or of another type, recording/schema.ts) is skipped with a warning
 * `FILE: episode N: what is wrong`, and the read goes on: one bad episode never costs the others.
 */
import { statSync } from 'node:fs';
import { FILE_LIMITS, FileProblem, listFiles, readBytes } from '../protocol/files.js';
import { RECORD_EXT, isEpisodeRecord, isFileHeader, recordUnpackr } from './format.js';
import type { EpisodeRecordV1, RecordFileHeader } from './format.js';
import { episodeRecordProblem } from './schema.js';

/** One record, and where it came from. */
export interface LoadedRecord {
  file: string;
  /** Index within its file (0 = the first episode after the header). */
  index: number;
  record: EpisodeRecordV1;
}

/** What reading one or more files gave. */
export interface ReadResult {
  files: string[];
  headers: RecordFileHeader[];
  records: LoadedRecord[];
  /** Problems that did not stop the read (a truncated tail, an unknown value, an unreadable file, a skipped episode). */
  warnings: string[];
  /** Episodes skipped for their shape (each has its warning). */
  skipped: number;
}

/**
 * The record files of a path: the file itself, or a directory's `*.hgrec` files sorted by name. Entries
 * of a directory that cannot be read as records (a FIFO, a device, a link out of the directory, a name
 * that differs from another only in case) are left out, each with a warning.
 */
export function listRecordFiles(path: string): { ok: true; files: string[]; warnings: string[] } | { ok: false; message: string } {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    return { ok: false, message: `${path}: ${(e as Error).message}` };
  }
  if (!st.isDirectory()) return { ok: true, files: [path], warnings: [] };
  try {
    const entries = listFiles(path, (n) => n.endsWith(RECORD_EXT));
    return {
      ok: true,
      files: entries.filter((e) => e.problem === undefined).map((e) => e.path),
      warnings: entries.filter((e) => e.problem !== undefined).map((e) => `${e.path}: ${e.problem} (skipped)`),
    };
  } catch (e) {
    return { ok: false, message: e instanceof FileProblem ? e.message : `${path}: ${(e as Error).message}` };
  }
}

/** Whether a decoded value is a map that says it is an episode (its shape is checked apart). */
function isEpisodeValue(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { type?: unknown }).type === 'episode';
}

/** Decode one file's bytes. Never throws. */
export function decodeRecordBytes(bytes: Uint8Array, file: string): ReadResult {
  const out: ReadResult = { files: [file], headers: [], records: [], warnings: [], skipped: 0 };
  if (bytes.length === 0) {
    out.warnings.push(`${file}: empty file`);
    return out;
  }
  let index = 0;
  let first = true;
  let consumed = 0;
  try {
    recordUnpackr().unpackMultiple(bytes as Buffer, (value: unknown, _start?: number, end?: number) => {
      if (end !== undefined) consumed = end;
      if (first) {
        first = false;
        if (isFileHeader(value)) {
          out.headers.push(value);
          return;
        }
        out.warnings.push(`${file}: no file header (reading anyway)`);
      }
      if (isEpisodeValue(value)) {
        // A complete value that says it is an episode: check its shape; a bad one is skipped, keeping its index.
        const problem = episodeRecordProblem(value);
        if (problem === null && isEpisodeRecord(value)) out.records.push({ file, index, record: value });
        else {
          out.skipped++;
          out.warnings.push(`${file}: episode ${index}: ${problem ?? 'not an episode record'} (skipped)`);
        }
        index++;
      } else if (isFileHeader(value)) out.headers.push(value);
      else {
        // Garbage decodes as small values byte by byte: the rest of the file cannot be trusted.
        const at = _start ?? consumed;
        out.warnings.push(
          `${file}: truncated or corrupt tail at byte ${at} (${bytes.length - at} bytes skipped; ${out.records.length} complete records kept): not an episode record`,
        );
        return false;
      }
    });
  } catch (e) {
    const at = (e as { lastPosition?: number }).lastPosition ?? consumed;
    // A value nested thousands deep overflows the decoder's stack: say what it is, not how it failed.
    const why = e instanceof RangeError && /call stack/.test(e.message) ? 'a value nested too deep to read' : (e as Error).message;
    out.warnings.push(`${file}: truncated or corrupt tail at byte ${at} (${bytes.length - at} bytes skipped; ${out.records.length} complete records kept): ${why}`);
  }
  return out;
}

/**
 * Read one file. Never throws: an unreadable file is a warning (a special file or one over
 * `FILE_LIMITS.record_bytes` among them: it is never opened for a blocking read, nor read whole).
 */
export function readRecordFile(file: string): ReadResult {
  let bytes: Buffer;
  try {
    bytes = readBytes(file, { maxBytes: FILE_LIMITS.record_bytes, what: 'a record file' });
  } catch (e) {
    const why = e instanceof FileProblem ? e.reason : (e as Error).message;
    return { files: [file], headers: [], records: [], warnings: [`${file}: cannot read (${why})`], skipped: 0 };
  }
  return decodeRecordBytes(bytes, file);
}

/** Read a file or every record file of a directory. */
export function readRecords(path: string): { ok: true; result: ReadResult } | { ok: false; message: string } {
  const listed = listRecordFiles(path);
  if (!listed.ok) return listed;
  const result: ReadResult = { files: [], headers: [], records: [], warnings: [...listed.warnings], skipped: 0 };
  for (const f of listed.files) {
    const r = readRecordFile(f);
    result.files.push(f);
    // Appended one by one: a spread of a file's hundred thousand records would overflow the stack.
    for (const h of r.headers) result.headers.push(h);
    for (const rec of r.records) result.records.push(rec);
    for (const w of r.warnings) result.warnings.push(w);
    result.skipped += r.skipped;
  }
  return { ok: true, result };
}
