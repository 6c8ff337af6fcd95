/**
 * Two runs side by side (`harness-gym view A --compare B`): what a reward designer reads after
 * `rescore --out` (the same episodes under another profile) and a trainer after a checkpoint (the same
 * seeds and variants played by another policy). Episodes are paired by seed, variant id and task id, the
 * n-th of a key in A with the n-th in B (record order), so a run repeated in both directories pairs
 * episode by episode and an episode only one run has is counted, not paired.
 *
 * Everything the route returns is bounded whatever the records hold: at most `MAX_MOVED` moved episodes,
 * `MAX_REASONS` reason lines per component and side, each cut at `MAX_REASON_CHARS` characters; the
 * per-component, per-intent and per-family tables have one row per name the records use.
 */
import { basename } from 'node:path';
import type { LoadedRecord } from '../reader.js';
import type { EpisodeRecordV1 } from '../format.js';

/** The most moved episodes a compare answer may list. */
export const MAX_MOVED = 100;
/** The moved episodes listed when the request does not say. */
export const DEFAULT_MOVED = 20;
/** Reason lines per component and side in a reason diff. */
export const MAX_REASONS = 20;
/** Characters per reason line. */
export const MAX_REASON_CHARS = 400;

/** Means of one slice (a component, an intent or a variant family) over the paired episodes. */
export interface CompareFigure {
  name: string;
  /** Paired episodes in the slice (for a component: pairs where both sides scored it). */
  n: number;
  a: number | null;
  b: number | null;
  /** `b - a`; null when a side has no value. */
  delta: number | null;
}

/** One component of a moved episode: both values and the reasons only one side gave. */
export interface ComponentDiff {
  name: string;
  a: number | null;
  b: number | null;
  delta: number | null;
  /** Reasons in A and not in B (bounded). */
  removed: string[];
  /** Reasons in B and not in A (bounded). */
  added: string[];
}

/** One paired episode, as the "moved most" table shows it. */
export interface MovedEpisode {
  episode_id: string;
  seed: number;
  intent: string;
  variant_id: string;
  /** Where each side's record is: `file` and `index` (A's is the viewer's episode link). */
  a: { file: string; index: number; key: number; reward: number; caps: string[]; outcome: string };
  b: { file: string; index: number; reward: number; caps: string[]; outcome: string };
  delta: number;
  components: ComponentDiff[];
}

/** What `/api/compare` answers. */
export interface CompareReport {
  a: { path: string; episodes: number; profiles: string[] };
  b: { path: string; episodes: number; profiles: string[] };
  paired: number;
  only_a: number;
  only_b: number;
  reward: CompareFigure;
  components: CompareFigure[];
  intents: CompareFigure[];
  families: CompareFigure[];
  /** The paired episodes whose reward moved most (|Δ| descending, then A's record order), at most `limit`. */
  moved: MovedEpisode[];
}

/** The key episodes are paired by. */
function pairKey(rec: EpisodeRecordV1): string {
  return `${rec.seed}\u0000${rec.variant_id}\u0000${rec.source_task.id}`;
}

/** Pairs of A and B records (A's position in its list with each). */
export function pairRecords(a: readonly LoadedRecord[], b: readonly LoadedRecord[]): { pairs: [number, LoadedRecord, LoadedRecord][]; onlyB: number } {
  const queues = new Map<string, LoadedRecord[]>();
  for (const r of b) {
    const k = pairKey(r.record);
    const q = queues.get(k);
    if (q) q.push(r);
    else queues.set(k, [r]);
  }
  const pairs: [number, LoadedRecord, LoadedRecord][] = [];
  a.forEach((r, key) => {
    const q = queues.get(pairKey(r.record));
    const other = q?.shift();
    if (other) pairs.push([key, r, other]);
  });
  return { pairs, onlyB: b.length - pairs.length };
}

function figure(name: string, xs: readonly [number | null, number | null][]): CompareFigure {
  const both = xs.filter((x): x is [number, number] => x[0] !== null && x[1] !== null);
  if (both.length === 0) return { name, n: 0, a: null, b: null, delta: null };
  let sa = 0;
  let sb = 0;
  for (const [x, y] of both) {
    sa += x;
    sb += y;
  }
  const a = sa / both.length;
  const b = sb / both.length;
  return { name, n: both.length, a, b, delta: b - a };
}

function cut(s: string): string {
  return s.length > MAX_REASON_CHARS ? s.slice(0, MAX_REASON_CHARS - 1) + '…' : s;
}

function minus(xs: readonly string[], ys: readonly string[]): string[] {
  const other = new Set(ys);
  return xs.filter((x) => !other.has(x)).slice(0, MAX_REASONS).map(cut);
}

function familiesOf(rec: EpisodeRecordV1): string[] {
  return rec.summary.variant_families.length ? rec.summary.variant_families : ['identity'];
}

function namesOf(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/** Compare two runs; `limit` moved episodes (clamped to [0, MAX_MOVED]). */
export function compareRuns(
  a: { path: string; records: readonly LoadedRecord[] },
  b: { path: string; records: readonly LoadedRecord[] },
  limit = DEFAULT_MOVED,
): CompareReport {
  const { pairs, onlyB } = pairRecords(a.records, b.records);
  const reward = figure(
    'reward',
    pairs.map(([, x, y]) => [x.record.reward.reward, y.record.reward.reward]),
  );
  const componentNames: string[] = [];
  for (const [, x, y] of pairs)
    for (const n of [...Object.keys(x.record.reward.components), ...Object.keys(y.record.reward.components)])
      if (!componentNames.includes(n)) componentNames.push(n);
  const components = componentNames.map((n) =>
    figure(
      n,
      pairs.map(([, x, y]) => [x.record.reward.components[n] ?? null, y.record.reward.components[n] ?? null]),
    ),
  );
  const slice = (names: string[], has: (rec: EpisodeRecordV1, name: string) => boolean): CompareFigure[] =>
    names.map((n) =>
      figure(
        n,
        pairs.filter(([, x]) => has(x.record, n)).map(([, x, y]) => [x.record.reward.reward, y.record.reward.reward]),
      ),
    );
  const intents = slice(namesOf(pairs.map(([, x]) => x.record.summary.intent)), (r, n) => r.summary.intent === n);
  const families = slice(namesOf(pairs.flatMap(([, x]) => familiesOf(x.record))), (r, n) => familiesOf(r).includes(n));

  const n = Math.max(0, Math.min(MAX_MOVED, Math.floor(Number.isFinite(limit) ? limit : DEFAULT_MOVED)));
  const order = pairs
    .map((p) => ({ p, d: p[2].record.reward.reward - p[1].record.reward.reward }))
    .sort((x, y) => Math.abs(y.d) - Math.abs(x.d) || x.p[0] - y.p[0])
    .slice(0, n);
  const moved = order.map(({ p: [key, x, y], d }): MovedEpisode => {
    const ra = x.record.reward;
    const rb = y.record.reward;
    const names = [...Object.keys(ra.components), ...Object.keys(rb.components).filter((c) => !(c in ra.components))];
    return {
      episode_id: x.record.episode_id,
      seed: x.record.seed,
      intent: x.record.summary.intent,
      variant_id: x.record.variant_id,
      a: { file: basename(x.file), index: x.index, key, reward: ra.reward, caps: (ra.caps ?? []).slice(0, MAX_REASONS).map(cut), outcome: x.record.summary.outcome },
      b: { file: basename(y.file), index: y.index, reward: rb.reward, caps: (rb.caps ?? []).slice(0, MAX_REASONS).map(cut), outcome: y.record.summary.outcome },
      delta: d,
      components: names.map((c) => {
        const va = ra.components[c] ?? null;
        const vb = rb.components[c] ?? null;
        const reasonsA = ra.details[c]?.reasons ?? [];
        const reasonsB = rb.details[c]?.reasons ?? [];
        return { name: c, a: va, b: vb, delta: va !== null && vb !== null ? vb - va : null, removed: minus(reasonsA, reasonsB), added: minus(reasonsB, reasonsA) };
      }),
    };
  });
  const profiles = (rs: readonly LoadedRecord[]): string[] => namesOf(rs.map((r) => r.record.reward_profile)).slice(0, 20);
  return {
    a: { path: a.path, episodes: a.records.length, profiles: profiles(a.records) },
    b: { path: b.path, episodes: b.records.length, profiles: profiles(b.records) },
    paired: pairs.length,
    only_a: a.records.length - pairs.length,
    only_b: onlyB,
    reward,
    components,
    intents,
    families,
    moved,
  };
}
