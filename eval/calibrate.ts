/**
 * Calibration: does a reward profile agree with reviewers? The counterpart of `audit` (which finds rewards
 * that pay for not doing the job): calibrate finds rewards that refuse to pay for doing it, and rewards
 * that pay for replies reviewers would not put on air.
 *
 * A corpus is recorded episodes (record files: they carry the finished trace and the task, so a corpus
 * survives changes to the generator) with a reviewer's grade per episode in a JSON Lines file:
 * `{"episode": ID, "grade": 0..1, "verdict": "air"|"fix"|"block", "why"?: string, "flawed"?: bool}`.
 * Every graded episode is rescored with the profile and compared with its grade.
 */
import { FILE_LIMITS, FileProblem, depthProblem, readText } from '../protocol/files.js';
import { z } from 'zod';
import type { RewardResult, Task, Trace } from '../protocol/domain.js';
import { createEpisode, generateTask, parseGeneratedTaskId } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import { envConfigFor } from '../recording/index.js';
import type { EpisodeRecordV1, LoadedRecord } from '../recording/index.js';
import { round6, scoreEpisode } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';

/** One reviewer's grade of one episode. */
export const GradeSchema = z.strictObject({
  episode: z.string().min(1).max(256),
  grade: z.number().min(0).max(1),
  verdict: z.enum(['air', 'fix', 'block']),
  why: z.string().max(2000).optional(),
  /** A deliberately flawed reply (the corpus's negative half). */
  flawed: z.boolean().optional(),
  /** What the flaw is, for flawed replies. */
  flaw: z.string().max(2000).optional(),
});
export type Grade = z.infer<typeof GradeSchema>;

/** Thresholds past which calibrate fails (exit 1). */
export interface CalibrationThresholds {
  /** Least share of episodes with |reward - grade| <= tolerance. */
  min_agreement: number;
  /** Most share of air-worthy episodes (grade >= 0.8) the reward pays below 0.5. */
  max_false_negatives: number;
  /** Most share of unairable episodes (grade <= 0.3) the reward pays 0.7 or more. */
  max_false_positives: number;
  /** Most mean reward of the flawed replies. */
  max_flawed_mean: number;
  /** |reward - grade| that still counts as agreement. */
  tolerance: number;
}

export const DEFAULT_THRESHOLDS: CalibrationThresholds = {
  min_agreement: 0.9,
  max_false_negatives: 0.05,
  max_false_positives: 0.05,
  max_flawed_mean: 0.3,
  tolerance: 0.2,
};

/** One episode's comparison. */
export interface CalibratedEpisode {
  episode: string;
  intent: string;
  locale: string;
  variant: string;
  grade: number;
  verdict: Grade['verdict'];
  reward: number;
  flawed: boolean;
  agrees: boolean;
  false_negative: boolean;
  false_positive: boolean;
  why?: string;
  /** The reward's reasons (component: reason) and caps, for a disagreement. */
  reasons: string[];
}

/** A slice's figures (by locale, intent, variant family). */
export interface SliceFigures {
  episodes: number;
  reward_mean: number;
  grade_mean: number;
  agreement: number;
}

/** The calibration report. */
export interface CalibrationReport {
  profile: string;
  episodes: number;
  graded_without_record: string[];
  records_without_grade: number;
  agreement: number;
  false_negatives: number;
  false_negative_rate: number;
  false_positives: number;
  false_positive_rate: number;
  spearman: number;
  reward_mean: number;
  grade_mean: number;
  flawed: { episodes: number; reward_mean: number | null };
  slices: { locale: Record<string, SliceFigures>; intent: Record<string, SliceFigures>; variant: Record<string, SliceFigures> };
  disagreements: CalibratedEpisode[];
  /** Every graded episode's reward beside its grade, in grades-file order (for rescoring comparisons). */
  scored: { episode: string; reward: number; grade: number }[];
  /**
   * Graded episodes left out because the generator or the harness changed under them since they were
   * played (`replayAgainstCurrent`): replay them to grade them again. Only with `rekey`.
   */
  stale: { episode: string; why: string }[];
  thresholds: CalibrationThresholds;
  failures: string[];
}

/** Read a grades file: one JSON object per line; every bad line is reported as `FILE:LINE: key: message`. */
export function readGrades(path: string): { ok: true; grades: Grade[] } | { ok: false; errors: string[] } {
  let text: string;
  try {
    text = readText(path, { maxBytes: FILE_LIMITS.grades_bytes, what: 'a grades file' });
  } catch (e) {
    if (e instanceof FileProblem) return { ok: false, errors: [e.missing ? `${path}: cannot read (ENOENT)` : e.message] };
    return { ok: false, errors: [`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`] };
  }
  const grades: Grade[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      errors.push(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
      return;
    }
    const deep = depthProblem(raw);
    if (deep !== null) {
      errors.push(`${path}:${i + 1}: ${deep}`);
      return;
    }
    const r = GradeSchema.safeParse(raw, {
      error: (iss) => (iss.code === 'invalid_type' && iss.input === undefined ? 'required key is missing' : undefined),
    });
    if (!r.success) {
      for (const issue of r.error.issues) errors.push(`${path}:${i + 1}: ${issue.path.join('.') || '(line)'}: ${issue.message}`);
      return;
    }
    if (seen.has(r.data.episode)) {
      errors.push(`${path}:${i + 1}: episode: "${r.data.episode}" is graded twice`);
      return;
    }
    seen.add(r.data.episode);
    grades.push(r.data);
  });
  if (errors.length > 0) return { ok: false, errors };
  if (grades.length === 0) return { ok: false, errors: [`${path}: no grades (one JSON object per line)`] };
  return { ok: true, grades };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Average ranks (ties share the mean of their positions), for Spearman's rho. */
function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) out[order[k][1]] = r;
    i = j + 1;
  }
  return out;
}

/** Spearman's rank correlation (Pearson's r of the average ranks); 0 when either side is constant. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  if (a.length < 2) return 0;
  const ra = ranks(a);
  const rb = ranks(b);
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

/** The reason lines behind a reward: each component's value and reasons, then the caps. */
export function rewardReasons(result: RewardResult): string[] {
  const out: string[] = [];
  for (const [name, d] of Object.entries(result.details)) out.push(`${name} ${d.value}: ${d.reasons.join('; ')}`);
  for (const c of result.caps ?? []) out.push(c);
  return out;
}

function variantLabel(r: LoadedRecord['record']): string {
  const v = r.variant as unknown;
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && typeof (v as { split?: unknown }).split === 'string') return `spec:${(v as { split: string }).split}`;
  return String(r.variant_id ?? 'unknown');
}

function slice(items: readonly CalibratedEpisode[], keyOf: (e: CalibratedEpisode) => string): Record<string, SliceFigures> {
  const groups = new Map<string, CalibratedEpisode[]>();
  for (const e of items) {
    const k = keyOf(e);
    const g = groups.get(k) ?? [];
    g.push(e);
    groups.set(k, g);
  }
  const out: Record<string, SliceFigures> = {};
  for (const k of [...groups.keys()].sort()) {
    const g = groups.get(k)!;
    out[k] = {
      episodes: g.length,
      reward_mean: round6(mean(g.map((e) => e.reward))),
      grade_mean: round6(mean(g.map((e) => e.grade))),
      agreement: round6(g.filter((e) => e.agrees).length / g.length),
    };
  }
  return out;
}

/**
 * Play a record's actions again in this build, the generated task's answer key made anew by the current
 * generator (`rekey`): what the episode scores against today's keys. The world the task was played in
 * is the same room (a generated task's world comes from its seed), so the recorded actions still mean
 * what they meant; the record's harness hash is not checked (a fix to the harness's texts keeps the
 * actions valid). Null when the actions no longer end the episode (a refused action, an early end).
 */
export function replayWithCurrentKeys(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): { trace: Trace; task: Task } | null {
  const r = replayAgainstCurrent(rec, base);
  return 'stale' in r ? null : r;
}

/**
 * `replayWithCurrentKeys`, saying why an episode cannot be scored against the current generator: its
 * grade was given to a reply in a room, a message and under rules that no longer exist when the generator
 * now builds another message for the seed, when a recorded call now fails, or when the rules the reply
 * met changed (a required ending, a banned word, a limit: the same reply is now judged by other hooks).
 * Such an episode is stale: `calibrate` leaves it out of the figures and names it.
 */
export function replayAgainstCurrent(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): { trace: Trace; task: Task } | { stale: string } {
  const ref = parseGeneratedTaskId(rec.source_task.id);
  let source: Task = rec.source_task;
  if (ref !== null && rec.source_task.world === undefined) {
    try {
      source = generateTask(ref.seed, ref.locale, { intent: ref.intent, split: ref.split });
    } catch {
      return { stale: 'the generator no longer builds this task' };
    }
    const was = rec.source_task;
    if (
      source.viewer_id !== was.viewer_id ||
      JSON.stringify(source.messages) !== JSON.stringify(was.messages) ||
      JSON.stringify(source.history) !== JSON.stringify(was.history)
    )
      return { stale: `the generator now asks another question for this seed: "${source.messages.join(' / ')}"` };
  }
  const created = createEpisode(envConfigFor(rec, base), {
    episode_id: rec.created_episode_id ?? rec.episode_id,
    seed: rec.seed,
    variant: rec.variant,
    options: { ...rec.options, rewards: rec.profile.name },
    task_override: source,
    variant_seed: rec.variant_seed,
  });
  if (!created.ok) return { stale: `the episode cannot be created again: ${created.error.message}` };
  const episode = created.episode;
  episode.reset();
  for (const taped of rec.steps) {
    if (episode.ended) return { stale: 'the episode now ends before its recorded actions do' };
    const r = episode.step(taped.action);
    if (!r.ok && taped.error === undefined) return { stale: 'a recorded action is now refused' };
  }
  if (!episode.ended) return { stale: 'the recorded actions no longer end the episode' };
  const trace = episode.trace();
  const rules = (t: Trace): string =>
    JSON.stringify([t.outcome, t.limits, t.required_ending ?? null, (t.rule_violations ?? []).map((v) => v.code).sort()]);
  if (rules(trace) !== rules(rec.trace))
    return { stale: `the rules the reply was judged by changed (recorded ${rules(rec.trace)}, now ${rules(trace)})` };
  return { trace, task: episode.params.task };
}

/** Options of `calibrate`. */
export interface CalibrateOptions {
  thresholds?: CalibrationThresholds;
  /** Score against the current generator's answer keys, the actions played again (`replayWithCurrentKeys`). */
  rekey?: boolean;
  /** Env config for `rekey` (the harness the corpus was played in). */
  base?: Partial<EnvConfig>;
}

/** Rescore every graded record with `profile` and compare it with its grade. */
export function calibrate(
  records: readonly LoadedRecord[],
  grades: readonly Grade[],
  profile: RewardProfile,
  registry: RewardRegistry,
  options: CalibrateOptions = {},
): CalibrationReport {
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const byId = new Map<string, LoadedRecord>();
  for (const r of records) byId.set(r.record.episode_id, r);
  const items: CalibratedEpisode[] = [];
  const missing: string[] = [];
  const stale: { episode: string; why: string }[] = [];
  for (const g of grades) {
    const rec = byId.get(g.episode);
    if (rec === undefined) {
      missing.push(g.episode);
      continue;
    }
    const r = rec.record;
    let scored: { trace: Trace; task: Task } = { trace: r.trace, task: r.task };
    if (options.rekey === true) {
      const again = replayAgainstCurrent(r, options.base);
      if ('stale' in again) {
        stale.push({ episode: g.episode, why: again.stale });
        continue;
      }
      scored = again;
    }
    const result = scoreEpisode(scored.trace, scored.task, profile, registry);
    const agrees = Math.abs(result.reward - g.grade) <= thresholds.tolerance + 1e-9;
    const item: CalibratedEpisode = {
      episode: g.episode,
      intent: r.task.intent,
      locale: r.task.locale,
      variant: variantLabel(r),
      grade: g.grade,
      verdict: g.verdict,
      reward: result.reward,
      flawed: g.flawed === true,
      agrees,
      false_negative: g.grade >= 0.8 && result.reward < 0.5,
      false_positive: g.grade <= 0.3 && result.reward >= 0.7,
      reasons: agrees ? [] : rewardReasons(result),
    };
    if (g.why !== undefined) item.why = g.why;
    items.push(item);
  }
  const positives = items.filter((e) => e.grade >= 0.8);
  const negatives = items.filter((e) => e.grade <= 0.3);
  const fn = items.filter((e) => e.false_negative).length;
  const fp = items.filter((e) => e.false_positive).length;
  const flawed = items.filter((e) => e.flawed);
  const agreement = items.length === 0 ? 0 : items.filter((e) => e.agrees).length / items.length;
  const report: CalibrationReport = {
    profile: profile.name,
    episodes: items.length,
    graded_without_record: missing,
    stale,
    records_without_grade: records.length - (grades.length - missing.length),
    agreement: round6(agreement),
    false_negatives: fn,
    false_negative_rate: round6(positives.length === 0 ? 0 : fn / positives.length),
    false_positives: fp,
    false_positive_rate: round6(negatives.length === 0 ? 0 : fp / negatives.length),
    spearman: round6(spearman(items.map((e) => e.reward), items.map((e) => e.grade))),
    reward_mean: round6(mean(items.map((e) => e.reward))),
    grade_mean: round6(mean(items.map((e) => e.grade))),
    flawed: { episodes: flawed.length, reward_mean: flawed.length === 0 ? null : round6(mean(flawed.map((e) => e.reward))) },
    slices: {
      locale: slice(items, (e) => e.locale),
      intent: slice(items, (e) => e.intent),
      variant: slice(items, (e) => e.variant),
    },
    disagreements: items.filter((e) => !e.agrees).sort((a, b) => Math.abs(b.reward - b.grade) - Math.abs(a.reward - a.grade)),
    scored: items.map((e) => ({ episode: e.episode, reward: e.reward, grade: e.grade })),
    thresholds,
    failures: [],
  };
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  if (items.length === 0) report.failures.push('no graded episode has a record');
  if (report.agreement < thresholds.min_agreement) report.failures.push(`agreement ${pct(report.agreement)} < ${pct(thresholds.min_agreement)}`);
  if (report.false_negative_rate > thresholds.max_false_negatives)
    report.failures.push(`false negatives ${pct(report.false_negative_rate)} > ${pct(thresholds.max_false_negatives)}`);
  if (report.false_positive_rate > thresholds.max_false_positives)
    report.failures.push(`false positives ${pct(report.false_positive_rate)} > ${pct(thresholds.max_false_positives)}`);
  if (report.flawed.reward_mean !== null && report.flawed.reward_mean > thresholds.max_flawed_mean)
    report.failures.push(`flawed replies' mean ${report.flawed.reward_mean} > ${thresholds.max_flawed_mean}`);
  return report;
}

/** The report as a person reads it. */
export function formatCalibration(r: CalibrationReport, opts: { all?: boolean } = {}): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const lines: string[] = [];
  lines.push(`calibrate: profile ${r.profile}, ${r.episodes} graded episodes`);
  lines.push(
    `  agreement (|reward - grade| <= ${r.thresholds.tolerance}): ${pct(r.agreement)}   ` +
      `false negatives: ${r.false_negatives} (${pct(r.false_negative_rate)} of grade >= 0.8)   ` +
      `false positives: ${r.false_positives} (${pct(r.false_positive_rate)} of grade <= 0.3)`,
  );
  lines.push(`  Spearman rank correlation: ${r.spearman}   reward mean ${r.reward_mean}   grade mean ${r.grade_mean}`);
  if (r.flawed.episodes > 0) lines.push(`  flawed replies: ${r.flawed.episodes}, reward mean ${r.flawed.reward_mean}`);
  for (const [name, s] of Object.entries(r.slices)) {
    lines.push(`  by ${name}:`);
    for (const [k, f] of Object.entries(s))
      lines.push(`    ${k.padEnd(16)} n=${String(f.episodes).padStart(3)}  reward ${f.reward_mean.toFixed(3)}  grade ${f.grade_mean.toFixed(3)}  agreement ${pct(f.agreement)}`);
  }
  if (r.graded_without_record.length > 0) lines.push(`  graded but not in the records: ${r.graded_without_record.join(', ')}`);
  if (r.stale.length > 0) {
    lines.push(`  stale (${r.stale.length}, left out: the generator or the harness changed since they were played; play them again):`);
    for (const x of opts.all ? r.stale : r.stale.slice(0, 10)) lines.push(`  - ${x.episode}: ${x.why}`);
    if (!opts.all && r.stale.length > 10) lines.push(`  - … ${r.stale.length - 10} more (--all lists them)`);
  }
  const shown = opts.all ? r.disagreements : r.disagreements.slice(0, 20);
  if (shown.length > 0) lines.push(`  disagreements (${r.disagreements.length}, largest first${opts.all ? '' : '; --all shows every one'}):`);
  for (const d of shown) {
    lines.push(`  - ${d.episode}: reward ${d.reward} vs grade ${d.grade} (${d.verdict}${d.flawed ? ', flawed' : ''})${d.why ? ` — reviewer: ${d.why}` : ''}`);
    for (const reason of d.reasons) lines.push(`      ${reason}`);
  }
  lines.push(r.failures.length === 0 ? 'calibrate: pass' : `calibrate: FAIL (${r.failures.join('; ')})`);
  return lines.join('\n');
}
