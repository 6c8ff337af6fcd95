/**
 * Prometheus metrics, one registry per server instance (so that tests can build many servers). Gauges
 * are computed when scraped from the server's own state, so no code path has to keep them in step.
 */
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';

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
  readonly stepLatency: Summary;
  readonly reward: Histogram<'component'>;
  readonly slowReaders: Counter;
  readonly workerFailures: Counter;
  readonly malformedFrames: Counter;
  readonly workerRecycles: Counter;
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
  // What a trainer waits for: frame receipt to reply written, per step item (queueing behind other
  // requests of the session and, with workers, the worker round trip included). A sliding window, so
  // that a start-up burst of resets does not stay in the quantiles forever.
  const stepLatency = new Summary({
    name: 'harness_gym_step_latency_seconds',
    help: 'Server-side latency of a step item: frame received to reply written (last 60 s)',
    percentiles: [0.5, 0.9, 0.99, 0.999],
    maxAgeSeconds: 60,
    ageBuckets: 6,
    registers: [registry],
  });
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
  // process_resident_memory_bytes, heap sizes, event-loop lag: what a scaling question starts from.
  collectDefaultMetrics({ register: registry });
  const reward = new Histogram({
    name: 'harness_gym_reward',
    help: 'Final rewards: each component, and the composite as component="total"',
    labelNames: ['component'] as const,
    buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
    registers: [registry],
  });
  return { registry, freed, resets, steps, errors, stepSeconds, stepLatency, reward, slowReaders, workerFailures, malformedFrames, workerRecycles };
}
