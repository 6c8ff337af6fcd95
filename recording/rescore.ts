/**
 * Offline rescoring: score every recorded trace again with another reward profile, without re-running
 * the episodes (a record carries the finished canonical trace and the task the episode was scored on).
 *
 * Figures per component are the component's weighted score, `weight x value`: the points it puts into
 * the composite's numerator. A profile that zeroes one weight therefore changes exactly that component's
 * figures; a profile that changes a module's params changes its values. "Changed rank" counts episodes
 * whose competition rank (1 + the number of episodes scoring strictly higher) moved.
 */
import { scoreEpisode, defaultRegistry, round6 } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';
import type { EpisodeRecordV1 } from './format.js';
import type { LoadedRecord } from './reader.js';

/** Old and new figures of one component (or of the composite). */
export interface RescoreFigure {
  old_weight: number | null;
  new_weight: number | null;
  /** Mean of `weight x value` under the recorded profiles (null when no episode had the component). */
  old_mean: number | null;
  new_mean: number | null;
  /** Mean raw module value, before weighting. */
  old_value_mean: number | null;
  new_value_mean: number | null;
  /** Episodes whose rank by this figure changed. */
  changed_rank: number;
}

/** The rescoring report. */
export interface RescoreReport {
  profile: string;
  episodes: number;
  overall: { old_mean: number; new_mean: number; changed_rank: number; changed: number };
  components: Record<string, RescoreFigure>;
}

function weightOf(p: RewardProfile, name: string): number | null {
  const m = p.modules.find((x) => x.name === name);
  return m === undefined ? null : m.weight;
}

/** Competition ranks, higher score first; an absent score ranks last. */
function ranks(scores: readonly (number | null)[]): number[] {
  const vals = scores.map((s) => (s === null ? -Infinity : s));
  return vals.map((v) => 1 + vals.filter((w) => w > v).length);
}

function mean(xs: readonly (number | null)[]): number | null {
  const present = xs.filter((x): x is number => x !== null);
  return present.length === 0 ? null : round6(present.reduce((a, b) => a + b, 0) / present.length);
}

function changedRanks(a: readonly (number | null)[], b: readonly (number | null)[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  let n = 0;
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) n++;
  return n;
}

/** A record scored with a new profile (the rest of the record unchanged). */
export function rescoreRecord(rec: EpisodeRecordV1, profile: RewardProfile, registry: RewardRegistry): EpisodeRecordV1 {
  const reward = scoreEpisode(rec.trace, rec.task, profile, registry);
  const modules: Record<string, string> = {};
  for (const m of profile.modules) modules[m.name] = registry.get(m.name)?.version ?? 'unknown';
  return {
    ...rec,
    reward,
    reward_profile: profile.name,
    profile,
    reward_modules: modules,
    summary: { ...rec.summary, reward: reward.reward },
  };
}

/** Rescore records with `profile`; returns the report and the re-scored records. */
export function rescore(
  records: readonly LoadedRecord[],
  profile: RewardProfile,
  registry: RewardRegistry = defaultRegistry(),
): { report: RescoreReport; records: EpisodeRecordV1[] } {
  const rescored = records.map((r) => rescoreRecord(r.record, profile, registry));
  const names: string[] = [];
  for (const r of records) for (const m of r.record.profile.modules) if (!names.includes(m.name)) names.push(m.name);
  for (const m of profile.modules) if (!names.includes(m.name)) names.push(m.name);

  const components: Record<string, RescoreFigure> = {};
  for (const name of names) {
    const oldW = records.map((r) => weightOf(r.record.profile, name));
    const newW = weightOf(profile, name);
    const oldV = records.map((r) => r.record.reward.components[name] ?? null);
    const newV = rescored.map((r) => r.reward.components[name] ?? null);
    const oldS = oldV.map((v, i) => (v === null || oldW[i] === null ? null : round6(v * (oldW[i] as number))));
    const newS = newV.map((v) => (v === null || newW === null ? null : round6(v * newW)));
    const distinctOld = [...new Set(oldW.map(String))];
    components[name] = {
      old_weight: distinctOld.length === 1 ? (oldW[0] ?? null) : null,
      new_weight: newW,
      old_mean: mean(oldS),
      new_mean: mean(newS),
      old_value_mean: mean(oldV),
      new_value_mean: mean(newV),
      changed_rank: changedRanks(oldS, newS),
    };
  }
  const oldR = records.map((r) => r.record.reward.reward);
  const newR = rescored.map((r) => r.reward.reward);
  let changed = 0;
  for (let i = 0; i < oldR.length; i++) if (oldR[i] !== newR[i]) changed++;
  return {
    report: {
      profile: profile.name,
      episodes: records.length,
      overall: { old_mean: mean(oldR) ?? 0, new_mean: mean(newR) ?? 0, changed_rank: changedRanks(oldR, newR), changed },
      components,
    },
    records: rescored,
  };
}

/** The report as a table. */
export function formatRescore(r: RescoreReport): string {
  const fmt = (x: number | null): string => (x === null ? '-' : x.toFixed(4));
  const rows: string[][] = [['component', 'old w', 'new w', 'old mean', 'new mean', 'changed rank']];
  for (const [k, f] of Object.entries(r.components)) {
    rows.push([k, fmt(f.old_weight), fmt(f.new_weight), fmt(f.old_mean), fmt(f.new_mean), String(f.changed_rank)]);
  }
  rows.push(['overall', '', '', fmt(r.overall.old_mean), fmt(r.overall.new_mean), String(r.overall.changed_rank)]);
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const lines = rows.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  return `rescored ${r.episodes} episodes with profile "${r.profile}" (${r.overall.changed} rewards changed)\n${lines.join('\n')}\n`;
}
