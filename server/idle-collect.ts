/**
 * Heap upkeep for a shard worker thread, and for the main thread, after episodes are freed.
 *
 * Why: after a storm of sessions that reset a few `train` episodes each and drop, a worker's live heap is
 * back to its caches once collected, but V8 does not collect it: an idle worker allocates nothing, so no
 * GC runs, and V8's memory reducer, which needs a low allocation rate over its recent samples, fires only
 * after its 100 s watchdog. Until then the storm's garbage stays, the next storm grows the heap again on
 * top of it, and storms in a row plateau far above the idle footprint. The main thread (`workers: 0`) sees
 * enough activity to reduce on its own.
 *
 * So a worker that freed episodes and then has no task for `IDLE_COLLECT_MS` runs one full GC (the
 * `gc()` function V8 exposes with `--expose-gc`, taken from a fresh vm context): a pause, but on a thread
 * that is idle, never while it is working. Repeated storms then reuse the same pages instead of growing the
 * heap, which stays flat after a small rise. The main thread does the same once no request has been in
 * flight for as long after sessions ended (without it, its heap crept up from storm to storm)
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Quiet time after the last task before a worker that freed episodes collects (ms). */
export const IDLE_COLLECT_MS = 1000;

let gcFunction: (() => void) | null = null;

/** V8's `gc()`, exposed for this process's new contexts once (the flag changes nothing else). */
export function fullGc(): () => void {
  if (gcFunction === null) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  return gcFunction;
}

/** Tracks a worker's tasks and collects once it has been idle after freeing episodes. */
export class IdleCollector {
  readonly #delayMs: number;
  readonly #onCollect: (ms: number) => void;
  #inFlight = 0;
  #freedSinceCollect = 0;
  #timer: NodeJS.Timeout | null = null;
  /** Collections run so far (tests, diagnostics). */
  collections = 0;

  constructor(opts: { delayMs?: number; onCollect?: (ms: number) => void } = {}) {
    this.#delayMs = opts.delayMs ?? IDLE_COLLECT_MS;
    this.#onCollect = opts.onCollect ?? (() => {});
  }

  /** A task starts: no collection while it runs. */
  begin(): void {
    this.#inFlight++;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  /** A task ended, having freed `freed` episodes. */
  end(freed: number): void {
    this.#inFlight--;
    this.noteFreed(freed);
  }

  /** Episodes (or sessions) were freed outside a task. */
  noteFreed(n: number): void {
    this.#freedSinceCollect += n;
    if (this.#inFlight === 0 && this.#freedSinceCollect > 0) this.#arm();
  }

  #arm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#collect(), this.#delayMs);
    this.#timer.unref();
  }

  #collect(): void {
    this.#timer = null;
    if (this.#inFlight > 0) return;
    this.#freedSinceCollect = 0;
    const t0 = performance.now();
    fullGc()();
    this.collections++;
    this.#onCollect(performance.now() - t0);
  }
}
