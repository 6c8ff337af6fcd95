/**
 * A Prometheus summary of latencies over a sliding window, on Node's native HDR histograms
 * (`perf_hooks.createHistogram`), for the two per-item latency metrics a server observes on every frame
 * (`harness_gym_step_latency_seconds`, `harness_gym_reset_latency_seconds`).
 *
 * prom-client's own `Summary` keeps a t-digest per age bucket and pushes each value into all six: a
 * red-black tree node and a centroid object per push and bucket, and a rebuilt tree every 1,000 values.
 * Under load that was a sizeable share of the main thread's busy time and of what its heap promoted, so it
 * set the pace of the main thread's mark-compacts, whose pauses hold every reply passing through it
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 * Here an observation is a native `record` into the current slice's histogram and allocates nothing; a
 * scrape merges the slices.
 *
 * The exposition is a prom-client summary's: `{quantile="q"}` lines, then `_sum` and `_count` (both
 * cumulative, as prom-client's are). The window is prom-client's too: `ageBuckets` slices of
 * `maxAgeSeconds / ageBuckets`, so a read covers the last (ageBuckets - 1) slices and the current one.
 * Values are recorded in microseconds with three significant digits (HDR's "highest equivalent value":
 * a quantile reads at most 0.1% above the value it stands for), from 1 µs up to an hour; a longer one is
 * recorded as an hour. An empty window reads 0 at every quantile, as prom-client's does.
 */
import { createHistogram } from 'node:perf_hooks';
import type { RecordableHistogram } from 'node:perf_hooks';
import type { Metric, Registry } from 'prom-client';

/** The recorded range, in microseconds. */
const LOWEST_US = 1;
const HIGHEST_US = 3_600_000_000;
const FIGURES = 3;

export interface LatencySummaryOptions {
  name: string;
  help: string;
  /** Quantiles exported, each in (0, 1]. */
  percentiles: readonly number[];
  maxAgeSeconds: number;
  ageBuckets: number;
  registers?: readonly Registry[];
  /** The clock in milliseconds (tests move it); `performance.now` by default. */
  now?: () => number;
}

interface ExportedValue {
  labels: Record<string, number>;
  value: number;
  metricName?: string;
}

function histogram(): RecordableHistogram {
  return createHistogram({ lowest: LOWEST_US, highest: HIGHEST_US, figures: FIGURES });
}

/** A label-less summary of durations in seconds over a sliding window (see the module comment). */
export class LatencySummary {
  readonly name: string;
  readonly help: string;
  readonly type = 'summary';
  readonly aggregator = 'sum';
  readonly #percentiles: readonly number[];
  readonly #slices: RecordableHistogram[];
  readonly #sliceMs: number;
  readonly #now: () => number;
  #current = 0;
  #sliceStart: number;
  #count = 0;
  #sum = 0;

  constructor(opts: LatencySummaryOptions) {
    if (!Number.isInteger(opts.ageBuckets) || opts.ageBuckets < 1)
      throw new RangeError(`ageBuckets must be a positive integer, not ${opts.ageBuckets}`);
    if (!(opts.maxAgeSeconds > 0)) throw new RangeError(`maxAgeSeconds must be positive, not ${opts.maxAgeSeconds}`);
    for (const p of opts.percentiles) if (!(p > 0 && p <= 1)) throw new RangeError(`a percentile must be in (0, 1], not ${p}`);
    this.name = opts.name;
    this.help = opts.help;
    this.#percentiles = [...opts.percentiles];
    this.#slices = Array.from({ length: opts.ageBuckets }, histogram);
    this.#sliceMs = (opts.maxAgeSeconds * 1000) / opts.ageBuckets;
    this.#now = opts.now ?? (() => performance.now());
    this.#sliceStart = this.#now();
    for (const r of opts.registers ?? []) r.registerMetric(this as unknown as Metric);
  }

  /** Items observed since the start (or the last `reset`). */
  get count(): number {
    return this.#count;
  }

  /** `n` observations of `seconds` (one frame's items answered together); throws on a value that is not finite. */
  observe(seconds: number, n = 1): void {
    if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
    if (!(n >= 1)) return;
    const slice = this.#slices[this.#rotate()] as RecordableHistogram;
    const us = Math.min(HIGHEST_US, Math.max(LOWEST_US, Math.round(seconds * 1e6)));
    for (let i = 0; i < n; i++) slice.record(us);
    this.#count += n;
    this.#sum += seconds * n;
  }

  /** The window's q-quantile in seconds (0 when the window is empty). */
  quantile(q: number): number {
    return this.#merged().percentile(q * 100) / 1e6;
  }

  /** What prom-client's registry reads (`Registry.metrics`, `getMetricsAsJSON`). */
  async get(): Promise<{ name: string; help: string; type: string; values: ExportedValue[]; aggregator: string }> {
    const merged = this.#merged();
    const values: ExportedValue[] = this.#percentiles.map((q) => ({ labels: { quantile: q }, value: merged.percentile(q * 100) / 1e6 }));
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.#sum });
    values.push({ metricName: `${this.name}_count`, labels: {}, value: this.#count });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Forget every observation (`Registry.resetMetrics`). */
  reset(): void {
    for (const s of this.#slices) s.reset();
    this.#count = 0;
    this.#sum = 0;
    this.#current = 0;
    this.#sliceStart = this.#now();
  }

  /** The current slice's index, after starting as many new slices (each emptied) as the clock passed. */
  #rotate(): number {
    const elapsed = this.#now() - this.#sliceStart;
    if (elapsed < this.#sliceMs) return this.#current;
    const steps = Math.floor(elapsed / this.#sliceMs);
    const n = this.#slices.length;
    for (let i = 0; i < Math.min(steps, n); i++) {
      this.#current = (this.#current + 1) % n;
      (this.#slices[this.#current] as RecordableHistogram).reset();
    }
    this.#sliceStart += steps * this.#sliceMs;
    return this.#current;
  }

  /** Every slice of the window in one histogram (made per read: a scrape, not a hot path). */
  #merged(): RecordableHistogram {
    this.#rotate();
    const all = histogram();
    for (const s of this.#slices) if (s.count > 0) all.add(s);
    return all;
  }
}
