/**
 * Prometheus metrics, one registry per server instance (so that tests can build many servers). Gauges
 * are computed when scraped from the server's own state, so no code path has to keep them in step.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LatencySummary } from './latency-summary.js';

/** Why episodes were freed (`harness_gym_episodes_freed_total{reason}`). */
export type FreeReason = 'closed' | 'ended_session' | 'grace_expired' | 'idle';

/** The server's metrics. */
export interface ServerMetrics {
  readonly registry: Registry;
  readonly freed: Counter<'reason'>;
  readonly resets: Counter;
  readonly steps: Counter;
  readonly errors: Counter<'code'>;
  readonly stepSeconds: Histogram;
  readonly stepLatency: LatencySummary;
  readonly resetLatency: LatencySummary;
  readonly reward: Histogram<'component'>;
  readonly slowReaders: Counter;
  readonly workerFailures: Counter;
  readonly malformedFrames: Counter;
  readonly workerRecycles: Counter;
  /** Each episode thread's live heap after its last full collection, and its limit (server/heap-budget.ts). */
  readonly heapLive: Gauge<'shard'>;
  readonly heapLimit: Gauge<'shard'>;
  /** `items` step items answered `seconds` after their frame arrived (`stepLatency`, one call per frame). */
  observeStepLatency(seconds: number, items: number): void;
  /** The same for reset items (`resetLatency`): where an overloaded server's queue shows when workers start steps first. */
  observeResetLatency(seconds: number, items: number): void;
  /** Each item's server-side work (`stepSeconds`), in one call per frame. */
  observeStepSeconds(values: readonly number[]): void;
  /** Final rewards `[component, value]` (`reward{component}`), in one call per frame. */
  observeRewards(pairs: readonly (readonly [string, number])[]): void;
}

/** What the gauges read when scraped. */
export interface GaugeSources {
  sessions(): number;
  episodesLive(): number;
}

/** Create the registry and every metric. */
export function createMetrics(sources: GaugeSources): ServerMetrics {
  const registry = new Registry();
  new Gauge({
    name: 'harness_gym_sessions',
    help: 'Sessions held (attached, or dropped and waiting for a resume)',
    registers: [registry],
    collect() {
      this.set(sources.sessions());
    },
  });
  new Gauge({
    name: 'harness_gym_episodes_live',
    help: 'Unclosed episodes over all sessions (ended ones included until closed)',
    registers: [registry],
    collect() {
      this.set(sources.episodesLive());
    },
  });
  const freed = new Counter({
    name: 'harness_gym_episodes_freed_total',
    help: 'Episodes freed, by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // Pre-create the label values so that a scrape shows every reason from the start.
  for (const r of ['closed', 'ended_session', 'grace_expired', 'idle'] satisfies FreeReason[]) freed.inc({ reason: r }, 0);
  const resets = new Counter({ name: 'harness_gym_resets_total', help: 'Episodes started', registers: [registry] });
  const steps = new Counter({ name: 'harness_gym_steps_total', help: 'Steps applied', registers: [registry] });
  const errors = new Counter({
    name: 'harness_gym_errors_total',
    help: 'Error replies (frame-level and item-level), by code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const stepSeconds = new Histogram({
    name: 'harness_gym_step_seconds',
    help: 'Server-side work of one step item',
    buckets: [0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1],
    registers: [registry],
  });
  // What a trainer waits for: frame receipt to reply written, per item (queueing behind other requests
  // of the session and, with workers, the worker round trip included). A sliding window, so that a
  // start-up burst does not stay in the quantiles forever (server/latency-summary.ts: prom-client's
  // Summary allocated per observation enough to set the main thread's collections going).
  const latency = (kind: 'step' | 'reset'): LatencySummary =>
    new LatencySummary({
      name: `harness_gym_${kind}_latency_seconds`,
      help: `Server-side latency of a ${kind} item: frame received to reply written (last 60 s)`,
      percentiles: [0.5, 0.9, 0.99, 0.999],
      maxAgeSeconds: 60,
      ageBuckets: 6,
      registers: [registry],
    });
  const stepLatency = latency('step');
  // Resets too: a worker starts the steps it holds first (config `scheduling`), so under load this is
  // where the wait goes.
  const resetLatency = latency('reset');
  const slowReaders = new Counter({
    name: 'harness_gym_slow_reader_disconnects_total',
    help: 'Connections cut because their unsent replies stayed above send_buffer.high_water_bytes',
    registers: [registry],
  });
  const workerFailures = new Counter({
    name: 'harness_gym_worker_failures_total',
    help: 'Requests whose worker task failed (their items were answered with INTERNAL)',
    registers: [registry],
  });
  const malformedFrames = new Counter({
    name: 'harness_gym_malformed_frames_total',
    help: 'Connections cut for a WebSocket protocol error (bad mask, bad opcode, invalid UTF-8, oversized frame)',
    registers: [registry],
  });
  const workerRecycles = new Counter({
    name: 'harness_gym_worker_recycles_total',
    help: 'Shard workers replaced because they held no session and their heap had grown (their memory goes back)',
    registers: [registry],
  });
  // Set from each answer's reading (ServerCore.noteHeap); labelled by thread: a worker's index, or "main".
  const shardGauge = (name: string, help: string): Gauge<'shard'> =>
    new Gauge({ name, help, labelNames: ['shard'] as const, registers: [registry] });
  const heapLive = shardGauge(
    'harness_gym_shard_heap_live_bytes',
    'Live heap of each episode thread after its last full collection, as of its last answer',
  );
  const heapLimit = shardGauge(
    'harness_gym_shard_heap_limit_bytes',
    "Heap limit of each episode thread (worker_heap_mb, or V8's); new episodes are refused above 70% of it",
  );
  // process_resident_memory_bytes, heap sizes, event-loop lag: what a scaling question starts from.
  collectDefaultMetrics({ register: registry });
  const reward = new Histogram({
    name: 'harness_gym_reward',
    help: 'Final rewards: each component, and the composite as component="total"',
    labelNames: ['component'] as const,
    buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
    registers: [registry],
  });
  return {
    registry,
    freed,
    resets,
    steps,
    errors,
    stepSeconds,
    stepLatency,
    resetLatency,
    reward,
    slowReaders,
    workerFailures,
    malformedFrames,
    workerRecycles,
    heapLive,
    heapLimit,
    observeStepLatency: (seconds, n) => stepLatency.observe(seconds, n),
    observeResetLatency: (seconds, n) => resetLatency.observe(seconds, n),
    observeStepSeconds: histogramEach(stepSeconds),
    observeRewards: histogramByLabel(reward, 'component'),
  };
}

// -------------------------------------------------------------------------------------------------
// Per-frame observations. A step frame carries up to max_batch items and the step histogram counts
// items: through the public API that is one `observe` per item. This reaches into prom-client's state for
// the label-less histogram (prom-client is pinned, and the shape is checked: anything else falls back to
// one `observe` per item), so a frame costs one pass. The exposition is the same. (The latency summaries
// take a frame's items in one call of their own: server/latency-summary.ts.)
// -------------------------------------------------------------------------------------------------

interface HistogramState {
  bucketValues: Record<string, number>;
  count: number;
  sum: number;
}

/** prom-client's state of a label-less metric (its hash map's one entry), or null when it is not there. */
function labelless(metric: object): unknown {
  const map = (metric as { hashMap?: Record<string, unknown> }).hashMap;
  return typeof map === 'object' && map !== null ? (map[''] ?? null) : null;
}

/** The histogram's label-less state when it has prom-client 15's shape for these bounds, else null. */
function histogramState(histogram: Histogram, upper: readonly number[]): HistogramState | null {
  const state = labelless(histogram) as HistogramState | null;
  return state !== null && isHistogramState(state, upper) ? state : null;
}

/** Whether a histogram's state has prom-client 15's shape for these bounds. */
function isHistogramState(state: HistogramState, upper: readonly number[]): boolean {
  if (typeof state !== 'object' || state === null || typeof state.count !== 'number' || typeof state.sum !== 'number') return false;
  const buckets = state.bucketValues as unknown;
  if (typeof buckets !== 'object' || buckets === null) return false;
  for (const b of upper) if (typeof (buckets as Record<string, unknown>)[b] !== 'number') return false;
  return true;
}

/** Add one value to a histogram state of prom-client 15's shape for these bounds (see `histogramEach`). */
function addTo(state: HistogramState, upper: readonly number[], v: number): void {
  const buckets = state.bucketValues;
  // prom-client: the first bound the value is at or under; past the last one, only the count (+Inf).
  for (let i = 0; i < upper.length; i++) {
    const b = upper[i] as number;
    if (v <= b) {
      buckets[b] = (buckets[b] as number) + 1;
      break;
    }
  }
  state.sum += v;
  state.count += 1;
}

/**
 * `observe({[label]: value}, v)` for each pair, through prom-client's state for that label value when it
 * has prom-client 15's shape (its hash map's key for one label is `${label}:${value},`), else through
 * `observe`, which also makes the state on a label value's first observation. A final step carries five
 * or six reward components; through the public API each observation builds the labels' hash string and a
 * labels-and-value object on the main thread.
 */
function histogramByLabel<L extends string>(histogram: Histogram<L>, label: L): (pairs: readonly (readonly [string, number])[]) => void {
  const bounds = (histogram as unknown as { upperBounds?: unknown }).upperBounds;
  const upper = Array.isArray(bounds) && bounds.every((b) => typeof b === 'number') ? (bounds as number[]) : null;
  const keys = new Map<string, string>();
  return (pairs) => {
    const map = (histogram as unknown as { hashMap?: Record<string, unknown> }).hashMap;
    for (const [value, v] of pairs) {
      let key = keys.get(value);
      if (key === undefined) keys.set(value, (key = `${label}:${value},`));
      const state = upper !== null && typeof map === 'object' && map !== null ? (map[key] as HistogramState | undefined) : undefined;
      if (state === undefined || upper === null || !Number.isFinite(v) || !isHistogramState(state, upper)) {
        histogram.observe({ [label]: value } as Partial<Record<L, string>>, v);
        continue;
      }
      addTo(state, upper, v);
    }
  };
}


/** `observe(v)` for each value, in one pass over the histogram's state. */
function histogramEach(histogram: Histogram): (values: readonly number[]) => void {
  const bounds = (histogram as unknown as { upperBounds?: unknown }).upperBounds;
  const upper = Array.isArray(bounds) && bounds.every((b) => typeof b === 'number') ? (bounds as number[]) : null;
  return (values) => {
    const state = upper === null ? null : histogramState(histogram, upper);
    if (state === null || upper === null) {
      for (const v of values) histogram.observe(v);
      return;
    }
    for (const v of values) {
      if (!Number.isFinite(v)) {
        histogram.observe(v); // throws prom-client's TypeError
        continue;
      }
      addTo(state, upper, v);
    }
  };
}
