/**
 * The memory admission of the thread that holds episodes (the main thread with `workers: 0`, else each
 * shard worker): new episodes are refused with `CAPACITY_REACHED` (`details.reason: "memory"`) once the
 * thread's live heap, read after its last full collection, is above `HEAP_ADMIT_FRACTION` of its heap
 * limit. The limit is a worker's old-generation limit when it has one (`worker_heap_mb`, its
 * `resourceLimits.maxOldGenerationSizeMb`; V8's `heap_size_limit` adds the young generation's 48 MiB to
 * it, room that is not there for live objects), else V8's `heap_size_limit` (the main thread's follows
 * `node --max-old-space-size`). Without the admission a full heap is V8's
 * out-of-memory abort: the whole process with `workers: 0`, a worker and all its sessions' episodes with
 * workers; with it, the episodes already live go on and new ones get a typed error a client can retry.
 *
 * Live heap: `used_heap_size` as read right after a major (mark-compact) GC, which the thread's
 * `PerformanceObserver` reports; between two major GCs `used_heap_size` also counts garbage, which V8 will
 * collect before it needs the room, so it is not what decides. The reading is taken when the observer's
 * callback runs (soon after the GC, on the thread's event loop), so it also counts what was allocated in
 * between: a little high, on the safe side. A thread that refuses allocates little, so no major GC may
 * come to notice that episodes were closed: a refusal whose reading is older than `HEAP_RETRY_AFTER_MS`
 * first runs a full collection itself and reads again (at most once per that period, and only while the
 * thread is refusing: a full collection of a heap near its limit is a long pause, worth it only when the
 * alternative is refusing episodes on a stale reading)
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { resourceLimits } from 'node:worker_threads';
import { fullGc } from './idle-collect.js';

/**
 * The fraction of the heap limit above which the live heap admits no new episode. Below V8's own mark:
 * four mark-compacts in a row that leave the old generation at 80% or more of its limit, with the thread
 * spending most of its time in GC, abort it ("Ineffective mark-compacts near heap limit", heap.cc
 * `IsIneffectiveMarkCompact`), so admission stops short of 80% with room for a frame's garbage.
 */
export const HEAP_ADMIT_FRACTION = 0.7;

/** How long a refused client is told to wait before retrying (ms): about a major GC cycle under load. */
export const HEAP_RETRY_AFTER_MS = 1000;

const MIB = 1024 * 1024;

/** What a refusal says (`ItemError.details`). */
export interface HeapRefusal {
  reason: 'memory';
  /** The live heap after the last full collection, and the limit (MiB, one decimal). */
  heap_live_mb: number;
  heap_limit_mb: number;
  retry_after_ms: number;
}

/** The heap figures a budget reads (V8's, or a test's). */
export interface HeapReading {
  used: number;
  limit: number;
}

/** This thread's old-generation limit when it was given one (a worker's `resourceLimits`), in bytes. */
const OLD_LIMIT = typeof resourceLimits.maxOldGenerationSizeMb === 'number' ? resourceLimits.maxOldGenerationSizeMb * MIB : null;

function v8Reading(): HeapReading {
  const s = getHeapStatistics();
  return { used: s.used_heap_size, limit: OLD_LIMIT ?? s.heap_size_limit };
}

/** One thread's memory admission (see the module comment). */
export class HeapBudget {
  readonly #read: () => HeapReading;
  readonly #collect: () => void;
  readonly #now: () => number;
  /** When the reading was taken (ms, `now`). */
  #readAt: number;
  #observer: PerformanceObserver | null = null;
  /** The live heap after the last major GC (bytes; 0 before the first). */
  #live = 0;
  #limit: number;

  constructor(opts: { read?: () => HeapReading; collect?: () => void; now?: () => number } = {}) {
    this.#read = opts.read ?? v8Reading;
    this.#collect = opts.collect ?? (() => fullGc()());
    this.#now = opts.now ?? (() => performance.now());
    this.#limit = this.#read().limit;
    this.#readAt = this.#now();
  }

  /** Follow the thread's major GCs. */
  start(): this {
    if (this.#observer !== null) return this;
    this.#observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (isMajor(e)) this.afterMajorGc();
    });
    this.#observer.observe({ entryTypes: ['gc'] });
    return this;
  }

  stop(): void {
    this.#observer?.disconnect();
    this.#observer = null;
  }

  /** Take the reading a major GC leaves (the observer calls this; tests may too). */
  afterMajorGc(): void {
    const r = this.#read();
    this.#live = r.used;
    this.#limit = r.limit;
    this.#readAt = this.#now();
  }

  /** The live heap after the last major GC and the limit it is held to (bytes; live 0 before the first). */
  reading(): HeapReading {
    return { used: this.#live, limit: this.#limit };
  }

  /** Why a new episode may not be admitted now, or null when it may. */
  refusal(): HeapRefusal | null {
    if (!this.#over()) return null;
    if (this.#now() - this.#readAt >= HEAP_RETRY_AFTER_MS) {
      // A stale reading: episodes may have been closed since. Collect and read again.
      this.#collect();
      this.afterMajorGc();
      if (!this.#over()) return null;
    }
    return {
      reason: 'memory',
      heap_live_mb: Math.round((this.#live / MIB) * 10) / 10,
      heap_limit_mb: Math.round((this.#limit / MIB) * 10) / 10,
      retry_after_ms: HEAP_RETRY_AFTER_MS,
    };
  }

  #over(): boolean {
    return this.#live > HEAP_ADMIT_FRACTION * this.#limit;
  }
}

/**
 * Whether a worker task failed because its worker ran out of heap: Node ends a worker thread that reaches
 * its `resourceLimits` with `ERR_WORKER_OUT_OF_MEMORY`, and piscina rejects the worker's in-flight tasks
 * with that error. The admission above is meant to keep a worker from getting there; when it does anyway
 * (one frame's garbage on a nearly full heap), the request is answered as a memory shortage, not a bug.
 */
export function isWorkerOutOfMemory(e: unknown): boolean {
  return e instanceof Error && (e as Error & { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** What an item whose worker ran out of memory says: the heap was full, at its limit (MiB). */
export function outOfMemoryRefusal(limitMb: number): HeapRefusal {
  return { reason: 'memory', heap_live_mb: limitMb, heap_limit_mb: limitMb, retry_after_ms: HEAP_RETRY_AFTER_MS };
}

function isMajor(e: PerformanceEntry): boolean {
  const detail = (e as PerformanceEntry & { detail?: { kind?: number } }).detail;
  return detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}
