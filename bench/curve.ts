/**
 * The latency curve: server-side step p50/p99 and the client's round trip p50/p99 at several
 * live-episode counts, each on a fresh server with the concurrency phase's workload (think time, jitter,
 * groups), and the largest count the box holds.
 *
 * The listed counts (default 256, 1,024, 4,096, 16,384) always run, in ascending order; the concurrency
 * phase's own count is reused rather than run again. Then the search: if a listed count did not hold, the
 * doublings between the last count that held and it run in ascending order (8,192 between 4,096 and
 * 16,384); if every listed count held, the doublings above the largest up to `curve_max` (32,768, 65,536).
 * The search stops at the first count that does not hold, and starts no count once the curve has used its
 * time budget. A count holds when every episode got live, nothing failed and the server-side step p99 is
 * at most `curve_p99_limit_ms`.
 */
import { CURVE_HARD_MAX } from './args.js';
import type { ConcurrencyResult, Log } from './load.js';
import { round } from './stats.js';

/** One point of the curve, as the summary's `latency_curve` holds it. */
export interface CurvePoint {
  /** Live episodes offered. */
  live: number;
  /** A listed count (else a search step). */
  listed: boolean;
  /** Every episode live, no failure, server-side step p99 within the limit. */
  held: boolean;
  /** Why it did not hold (null when it held). */
  why_not: string | null;
  /** The least `harness_gym_episodes_live` sampled in the steady phase. */
  concurrent_episodes: number | null;
  ramp_complete: boolean;
  failures: number;
  server_p50_ms: number | null;
  server_p99_ms: number | null;
  rtt_p50_ms: number | null;
  rtt_p99_ms: number | null;
  /** Client round trip of the steady phase's reset items (ms). */
  reset_rtt_p50_ms: number | null;
  reset_rtt_p99_ms: number | null;
  steady_steps_per_s: number | null;
  steady_resets_per_s: number | null;
  rss_per_episode_kb: number | null;
  /** Server CPU per item answered and per frame answered, and items per frame (load.ts `ConcurrencyResult`). */
  server_cpu_us_per_item: number | null;
  server_cpu_us_per_frame: number | null;
  items_per_frame: number | null;
  connections: number;
  steady_s: number | null;
}

/** The summary's curve keys. */
export interface CurveSummary {
  latency_curve: CurvePoint[];
  /** The largest count that held with every smaller count run also held; null when the smallest did not hold. */
  max_live_held: number | null;
  /** What ended the search: the first count that did not hold and why, the budget, or the ceiling. */
  curve_stopped_by: string | null;
}

/** Whether a run held its count (see the module comment), and why not. */
export function holds(live: number, r: ConcurrencyResult, p99LimitMs: number): { held: boolean; why_not: string | null } {
  const why: string[] = [];
  if (!r.ramp_complete) why.push('the ramp did not get every episode live');
  if (r.concurrent_episodes !== null && r.concurrent_episodes < live) why.push(`${r.concurrent_episodes} live of ${live}`);
  if (r.failures.total > 0) why.push(`${r.failures.total} failures`);
  if (r.step_p99_ms === null) why.push('no server-side step p99');
  else if (r.step_p99_ms > p99LimitMs) why.push(`server-side step p99 ${Math.round(r.step_p99_ms)} ms > ${p99LimitMs} ms`);
  return { held: why.length === 0, why_not: why.length === 0 ? null : why.join('; ') };
}

/** A concurrency run as a curve point. */
export function curvePoint(live: number, listed: boolean, connections: number, r: ConcurrencyResult, p99LimitMs: number): CurvePoint {
  const h = holds(live, r, p99LimitMs);
  return {
    live,
    listed,
    held: h.held,
    why_not: h.why_not,
    concurrent_episodes: r.concurrent_episodes,
    ramp_complete: r.ramp_complete,
    failures: r.failures.total,
    server_p50_ms: round(r.step_p50_ms, 3),
    server_p99_ms: round(r.step_p99_ms, 3),
    rtt_p50_ms: round(r.rtt_p50_ms, 3),
    rtt_p99_ms: round(r.rtt_p99_ms, 3),
    reset_rtt_p50_ms: round(r.reset_rtt_p50_ms, 3),
    reset_rtt_p99_ms: round(r.reset_rtt_p99_ms, 3),
    steady_steps_per_s: round(r.steady_steps_per_s, 1),
    steady_resets_per_s: round(r.steady_resets_per_s, 1),
    rss_per_episode_kb: round(r.rss_per_episode_kb, 2),
    server_cpu_us_per_item: round(r.server_cpu_us_per_item, 1),
    server_cpu_us_per_frame: round(r.server_cpu_us_per_frame, 1),
    items_per_frame: round(r.items_per_frame, 2),
    connections,
    steady_s: round(r.steady_s, 2),
  };
}

/** The doublings of `from` strictly between `from` and `to` (exclusive), capped at `max`. */
export function doublingsBetween(from: number, to: number, max: number): number[] {
  const out: number[] = [];
  for (let x = from * 2; x < to && x <= max; x *= 2) out.push(x);
  return out;
}

/** The next search counts once the listed counts ran: between the last held and the first not held, or above the largest. */
export function searchCounts(listed: readonly CurvePoint[], curveMax: number): number[] {
  const max = Math.min(curveMax, CURVE_HARD_MAX);
  if (listed.length === 0 || max <= 0) return [];
  const sorted = [...listed].sort((a, b) => a.live - b.live);
  const firstBad = sorted.findIndex((p) => !p.held);
  if (firstBad < 0) {
    const top = sorted[sorted.length - 1].live;
    return doublingsBetween(top, Infinity, max);
  }
  if (firstBad === 0) return [];
  return doublingsBetween(sorted[firstBad - 1].live, sorted[firstBad].live, max);
}

/** The largest count held with every smaller point held. */
export function maxLiveHeld(points: readonly CurvePoint[]): number | null {
  let best: number | null = null;
  for (const p of [...points].sort((a, b) => a.live - b.live)) {
    if (!p.held) break;
    best = p.live;
  }
  return best;
}

/** What the curve needs from the suite. */
export interface CurveOptions {
  /** Listed counts (ascending or not). */
  listed: readonly number[];
  curveMax: number;
  p99LimitMs: number;
  budgetS: number;
  /** Connections of a point of `live` episodes. */
  connectionsFor(live: number): number;
  /** Results already measured (the concurrency phase's count), reused instead of run again. */
  reuse: ReadonlyMap<number, ConcurrencyResult>;
  /** Run one point on a fresh server. */
  run(live: number): Promise<ConcurrencyResult>;
  log?: Log;
}

/** Run the curve: listed counts, then the search. */
export async function runCurve(o: CurveOptions): Promise<CurveSummary> {
  const log = o.log ?? (() => undefined);
  const started = performance.now();
  const measure = async (live: number, listed: boolean): Promise<CurvePoint> => {
    const reused = o.reuse.get(live);
    if (!reused) log(`curve: ${live} live episodes${listed ? '' : ' (search)'}`);
    const r = reused ?? (await o.run(live));
    const p = curvePoint(live, listed, o.connectionsFor(live), r, o.p99LimitMs);
    log(
      `  curve ${live}${reused ? ' (the concurrency phase)' : ''}: server p50 ${p.server_p50_ms ?? '?'} ms, p99 ${p.server_p99_ms ?? '?'} ms; ` +
        `rtt p50 ${p.rtt_p50_ms ?? '?'} ms, p99 ${p.rtt_p99_ms ?? '?'} ms; ${p.held ? 'held' : `not held (${p.why_not})`}`,
    );
    return p;
  };
  const points: CurvePoint[] = [];
  for (const live of [...new Set(o.listed)].sort((a, b) => a - b)) points.push(await measure(live, true));
  let stoppedBy: string | null = null;
  for (const live of searchCounts(points, o.curveMax)) {
    if ((performance.now() - started) / 1000 >= o.budgetS) {
      stoppedBy = `time budget (${o.budgetS} s) spent before ${live}`;
      break;
    }
    const p = await measure(live, false);
    points.push(p);
    if (!p.held) break;
  }
  points.sort((a, b) => a.live - b.live);
  if (stoppedBy === null) {
    const bad = points.find((p) => !p.held);
    if (bad) stoppedBy = `${bad.live}: ${bad.why_not}`;
    else if (points.length > 0)
      stoppedBy = o.curveMax > 0 ? `ceiling (${Math.min(o.curveMax, CURVE_HARD_MAX)})` : 'no search (curve_max 0)';
  }
  return { latency_curve: points, max_live_held: maxLiveHeld(points), curve_stopped_by: stoppedBy };
}
