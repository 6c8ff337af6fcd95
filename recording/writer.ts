/**
 * The append-only record writer: one per server session (or per `eval --record` run). Records are
 * encoded at once (so later mutation cannot change them) and buffered in memory; a short unref'd timer,
 * or the buffer passing a size, flushes them with `fs.promises` in the background, so a step never waits
 * for the disk. A crash loses at most what is in the buffer: the episodes that finished in the last few
 * milliseconds, and the episodes in progress, which are not recorded until they end anyway.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES, RECORD_EXT, RECORD_FORMAT, RECORD_VERSION, packValue } from './format.js';
import type { EpisodeRecordV1, RecordFileHeader } from './format.js';

/** Options of a `RecordWriter`. */
export interface RecordWriterOptions {
  /** Directory of the files (created when missing). */
  dir: string;
  /** File name stem; files are `<stem>-0001.hgrec`, `<stem>-0002.hgrec`, ... */
  stem: string;
  server_version: string;
  created_by: string;
  /** Rotate to a new file before a record would take the file past this size (default 64 MiB). */
  max_file_bytes?: number;
  /** Milliseconds a finished record may wait in memory (default 25). */
  flush_delay_ms?: number;
  /** Flush at once when the buffer passes this many bytes (default 1 MiB). */
  flush_bytes?: number;
  /** Told about a failed write (the writer keeps going; the lost records are counted). */
  onError?: (e: unknown) => void;
}

/** Appends records to size-rotated files, off the hot path. */
export class RecordWriter {
  readonly #opts: Required<Omit<RecordWriterOptions, 'onError'>> & Pick<RecordWriterOptions, 'onError'>;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | null = null;
  #chain: Promise<void> = Promise.resolve();
  #fileIndex = 0;
  #fileBytes = 0;
  #filePath: string | null = null;
  #madeDir = false;
  #written = 0;
  #failed = 0;
  readonly #files: string[] = [];

  constructor(opts: RecordWriterOptions) {
    this.#opts = {
      ...opts,
      max_file_bytes: opts.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES,
      flush_delay_ms: opts.flush_delay_ms ?? 25,
      flush_bytes: opts.flush_bytes ?? 1024 * 1024,
    };
  }

  /** Files this writer created, in order. */
  get files(): readonly string[] {
    return this.#files;
  }

  /** Records written to disk so far (and records lost to write errors). */
  get stats(): { written: number; failed: number; pending: number } {
    return { written: this.#written, failed: this.#failed, pending: this.#pending.length };
  }

  /** Queue one finished episode. Never blocks and never throws on I/O (errors go to `onError`). */
  append(record: EpisodeRecordV1): void {
    const bytes = packValue(record);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= this.#opts.flush_bytes) this.#flushSoon(0);
    else this.#flushSoon(this.#opts.flush_delay_ms);
  }

  /** Write everything buffered; resolves when it is on disk (or failed). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (batch.length > 0) this.#chain = this.#chain.then(() => this.#write(batch));
    return this.#chain;
  }

  /**
   * Flush what is buffered. Idempotent; a record appended later (a request of an ending session that was
   * already queued) is still written, by the usual timer.
   */
  close(): Promise<void> {
    return this.flush();
  }

  #flushSoon(delay: number): void {
    if (this.#timer && delay > 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.flush(), delay);
    // A pending flush must not keep a finished process alive; `close()` flushes explicitly.
    this.#timer.unref();
  }

  #header(): Buffer {
    const header: RecordFileHeader = {
      type: 'header',
      format: RECORD_FORMAT,
      version: RECORD_VERSION,
      server_version: this.#opts.server_version,
      created_by: this.#opts.created_by,
    };
    return packValue(header);
  }

  #newFile(): Buffer {
    this.#fileIndex++;
    this.#filePath = join(this.#opts.dir, `${this.#opts.stem}-${String(this.#fileIndex).padStart(4, '0')}${RECORD_EXT}`);
    this.#files.push(this.#filePath);
    const header = this.#header();
    this.#fileBytes = header.length;
    return header;
  }

  async #write(batch: Buffer[]): Promise<void> {
    let done = 0;
    try {
      if (!this.#madeDir) {
        await mkdir(this.#opts.dir, { recursive: true });
        this.#madeDir = true;
      }
      // Group the batch by target file: a record that would pass the limit starts a new file (a record
      // bigger than the limit still gets a file of its own rather than being dropped).
      let chunk: Buffer[] = [];
      let count = 0;
      const writeChunk = async (): Promise<void> => {
        if (chunk.length === 0) return;
        await appendFile(this.#filePath as string, Buffer.concat(chunk));
        this.#written += count;
        done += count;
        chunk = [];
        count = 0;
      };
      for (const rec of batch) {
        if (this.#filePath === null) chunk.push(this.#newFile());
        else if (this.#fileBytes + rec.length > this.#opts.max_file_bytes && this.#fileBytes > this.#header().length) {
          await writeChunk();
          chunk.push(this.#newFile());
        }
        chunk.push(rec);
        count++;
        this.#fileBytes += rec.length;
      }
      await writeChunk();
    } catch (e) {
      this.#failed += batch.length - done;
      this.#opts.onError?.(e);
    }
  }
}
