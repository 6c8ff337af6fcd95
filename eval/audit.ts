/**
 * The reward audit (`harness-gym audit`): plays every blind reward-hacking strategy (policies/blind.ts)
 * against a reward profile on each preset, beside the oracle and the memorizer, and reports per strategy
 * the mean, p90 and max reward and the intent where it scores best. A strategy above the thresholds is a
 * reward a policy can farm without doing the job: the audit fails. It also fails when the oracle does not
 * score 1.0 on every preset (the reward would punish the right answer) or when the memorizer's drop from
 * identity to an augmented preset is under the minimum gap (the signal HSA trains on would be gone).
 *
 * Episodes are in-process and deterministic: episode i of every policy uses seed `seed + i` and locale
 * `locales[i % locales.length]`, so every policy meets the same tasks.
 */
import type { Locale } from '../protocol/domain.js';
import { defaultEnvConfig, mixShares, variantSplitOf } from '../env/index.js';
import type { EnvConfig, IntentMix, TaskSplit, VariantSplit } from '../env/index.js';
import { BLIND_DESCRIPTIONS, BLIND_POLICIES, memorizerFor, oraclePolicy } from '../policies/index.js';
import type { Policy } from '../policies/index.js';
import { playEpisode } from './evaluate.js';
import type { EpisodeRecord } from './evaluate.js';

/** What to audit. */
export interface AuditOptions {
  /** Called after each episode (a progress bar): episodes done, the total, and the episode's reward. */
  onProgress?: (done: number, total: number, reward: number) => void;
  /** The environment config (reward registry and profiles, task source); default: the embedded one. */
  config?: Partial<EnvConfig>;
  /** Profile name (`options.rewards`); default: the config's default profile. */
  rewards?: string;
  presets?: readonly string[];
  /** Episodes per policy and preset. */
  episodes?: number;
  seed?: number;
  locales?: readonly Locale[];
  /** A blind strategy fails when its mean exceeds this (default 0.15)... */
  maxMean?: number;
  /** ...or its p90 over the tasks that need facts does (default 0.5; see `AuditRow.p90_factual`). */
  maxP90?: number;
  /** The memorizer's least acceptable drop from identity on an augmented preset (default 0.4). */
  minGap?: number;
  /** Only these strategies (default: all). */
  strategies?: readonly string[];
  /** The task split (default `train`; `all`: each episode's drawn from its seed). Each preset keeps its own variant split. */
  taskSplit?: TaskSplit;
  /** The intent mix (default: the production mix). */
  mix?: IntentMix;
}

/** One policy on one preset. */
export interface AuditRow {
  policy: string;
  kind: 'blind' | 'reference';
  preset: string;
  /** The preset's variant split (`none`: identity, the base harness). */
  variant_split: VariantSplit;
  episodes: number;
  mean: number;
  p90: number;
  /**
   * The p90 over the episodes whose task needs facts of the room (every intent but chit-chat). A greeting,
   * a compliment or "what's your name?" is answered well by a generic pleasantry, so a blind strategy
   * may score there by doing the job; elsewhere a high p90 is a slice of the reward it farms.
   */
  p90_factual: number;
  max: number;
  /** The intent where the policy's mean is highest, and that mean. */
  best_intent: { intent: string; mean: number };
}

/** The audit's result. */
export interface AuditReport {
  profile: string;
  presets: string[];
  /** The task split played (every preset on the same tasks). */
  task_split: TaskSplit;
  /** The intent mix (non-zero shares). */
  mix: Partial<Record<string, number>>;
  episodes: number;
  thresholds: { max_mean: number; max_p90: number; min_gap: number };
  rows: AuditRow[];
  /** Why the audit fails, one line each (empty: it passes). */
  failures: string[];
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Nearest-rank quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

function rowOf(policy: string, kind: AuditRow['kind'], preset: string, records: readonly EpisodeRecord[]): AuditRow {
  const rewards = records.map((r) => r.reward).sort((a, b) => a - b);
  const byIntent = new Map<string, number[]>();
  for (const r of records) {
    const list = byIntent.get(r.intent) ?? [];
    list.push(r.reward);
    byIntent.set(r.intent, list);
  }
  let best = { intent: '-', mean: -1 };
  for (const [intent, list] of [...byIntent].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const m = list.reduce((s, x) => s + x, 0) / list.length;
    if (m > best.mean) best = { intent, mean: round(m) };
  }
  const mean = rewards.length === 0 ? 0 : rewards.reduce((s, x) => s + x, 0) / rewards.length;
  const factual = records
    .filter((r) => r.intent !== 'chitchat')
    .map((r) => r.reward)
    .sort((a, b) => a - b);
  return {
    policy,
    kind,
    preset,
    variant_split: variantSplitOf(preset) ?? 'none',
    episodes: records.length,
    mean: round(mean),
    p90: round(quantile(rewards, 0.9)),
    p90_factual: round(quantile(factual, 0.9)),
    max: round(rewards.at(-1) ?? 0),
    best_intent: best,
  };
}

/** Run the audit. */
export function runAudit(opts: AuditOptions = {}): AuditReport {
  const config = defaultEnvConfig(opts.config);
  const presets = [...(opts.presets ?? ['identity', 'train', 'eval'])];
  const episodes = opts.episodes ?? 200;
  const seed = opts.seed ?? 1;
  const locales = opts.locales ?? ['zh-CN', 'en'];
  const thresholds = { max_mean: opts.maxMean ?? 0.15, max_p90: opts.maxP90 ?? 0.5, min_gap: opts.minGap ?? 0.4 };
  const names = opts.strategies ?? [...BLIND_POLICIES.keys()];
  const unknown = names.filter((n) => !BLIND_POLICIES.has(n));
  if (unknown.length > 0) throw new RangeError(`unknown strategies: ${unknown.join(', ')} (known: ${[...BLIND_POLICIES.keys()].join(', ')})`);
  const profile = opts.rewards ?? config.defaults.rewards;
  const taskSplit = opts.taskSplit ?? 'train';

  const total = presets.length * (2 + names.length) * episodes;
  let done = 0;
  const play = (policy: Policy, preset: string): EpisodeRecord[] => {
    const out: EpisodeRecord[] = [];
    for (let i = 0; i < episodes; i++) {
      const s = (seed + i) >>> 0;
      out.push(
        playEpisode(
          config,
          { policy, episodes: 1, seed: s, variant: preset, locale: locales[i % locales.length], rewards: profile, taskSplit, ...(opts.mix ? { mix: opts.mix } : {}) },
          s,
        ),
      );
      opts.onProgress?.(++done, total, (out[out.length - 1] as EpisodeRecord).reward);
    }
    return out;
  };

  const rows: AuditRow[] = [];
  const failures: string[] = [];
  for (const preset of presets) {
    for (const ref of [oraclePolicy, memorizerFor(config.harness)]) rows.push(rowOf(ref.name, 'reference', preset, play(ref, preset)));
    for (const name of names) rows.push(rowOf(name, 'blind', preset, play(BLIND_POLICIES.get(name) as Policy, preset)));
  }
  for (const r of rows) {
    if (r.kind === 'blind' && r.mean > thresholds.max_mean) {
      failures.push(`${r.policy} on ${r.preset}: mean ${r.mean} > ${thresholds.max_mean} (best on ${r.best_intent.intent}: ${r.best_intent.mean})`);
    }
    if (r.kind === 'blind' && r.p90_factual > thresholds.max_p90) {
      failures.push(`${r.policy} on ${r.preset}: p90 over tasks that need facts ${r.p90_factual} > ${thresholds.max_p90}`);
    }
    if (r.policy === 'oracle' && r.mean < 1) failures.push(`oracle on ${r.preset}: mean ${r.mean} < 1 (the reward punishes the reference solution)`);
  }
  const memo = (preset: string) => rows.find((r) => r.policy === 'memorizer' && r.preset === preset)?.mean;
  const base = memo('identity');
  if (base !== undefined) {
    for (const preset of presets.filter((p) => p !== 'identity')) {
      const gap = round(base - (memo(preset) ?? base));
      if (gap < thresholds.min_gap) failures.push(`memorizer gap on ${preset}: ${gap} < ${thresholds.min_gap} (identity ${base}, ${preset} ${memo(preset)})`);
    }
  }
  return { profile, presets, task_split: taskSplit, mix: mixShares(opts.mix), episodes, thresholds, rows, failures };
}

/** The report as a person reads it: a table per preset, then the verdict. */
export function formatAudit(report: AuditReport): string {
  const mix = Object.entries(report.mix)
    .map(([i, w]) => `${i}=${w}`)
    .join(',');
  const production = JSON.stringify(report.mix) === JSON.stringify(mixShares(undefined));
  const out: string[] = [
    `reward audit: profile "${report.profile}", ${report.episodes} episodes per policy and preset, task split ${report.task_split}${production ? '' : `, mix ${mix}`}`,
  ];
  const t = report.thresholds;
  out.push(`thresholds: blind mean <= ${t.max_mean}, p90 over tasks that need facts (p90f) <= ${t.max_p90}; oracle 1.0; memorizer gap >= ${t.min_gap}`);
  for (const preset of report.presets) {
    out.push(
      '',
      `preset ${preset} (variant split ${variantSplitOf(preset) ?? 'none'})`,
      `  ${'policy'.padEnd(22)} ${'mean'.padStart(7)} ${'p90'.padStart(7)} ${'p90f'.padStart(7)} ${'max'.padStart(7)}  best intent`,
    );
    for (const r of report.rows.filter((x) => x.preset === preset)) {
      const flag = r.kind === 'blind' && (r.mean > t.max_mean || r.p90_factual > t.max_p90) ? '  <- FAILS' : '';
      const label = r.kind === 'reference' ? `${r.policy} (reference)` : r.policy;
      const cols = [r.mean, r.p90, r.p90_factual, r.max].map((x) => x.toFixed(4).padStart(7)).join(' ');
      out.push(`  ${label.padEnd(22)} ${cols}  ${r.best_intent.intent} (${r.best_intent.mean})${flag}`);
    }
  }
  out.push('', report.failures.length === 0 ? 'PASS' : `FAIL (${report.failures.length}):`);
  for (const f of report.failures) out.push(`  ${f}`);
  return out.join('\n') + '\n';
}

/** What each blind strategy does, for `audit --list`. */
export function auditStrategies(): { name: string; description: string }[] {
  return [...BLIND_DESCRIPTIONS].map(([name, description]) => ({ name, description }));
}
