/**
 * Run a reference policy over many episodes in-process and summarise: the figures `harness-gym eval`
 * prints. Episode i uses seed `seed + i` (Gymnasium's batched-seed convention).
 */
import type { Locale } from '../protocol/domain.js';
import { EnvError } from '../protocol/errors.js';
import type { Split } from '../protocol/domain.js';
import { defaultEnvConfig, harnessMix, mixShares, privilegedView, resolveRequest, startEpisode, taskSplitFor, variantSplitOf } from '../env/index.js';
import type { EnvConfig, EpisodeHandle, EpisodeRequest, IntentMix, ResetOptions, TaskSplit, VariantSplit } from '../env/index.js';
import type { VariantSpec } from '../harness-variants/index.js';
import type { Policy } from '../policies/index.js';
import { RecordEpisode } from '../recording/index.js';
import type { EpisodeRecorder } from '../recording/index.js';

/** What to evaluate. */
export interface EvalOptions {
  policy: Policy;
  episodes: number;
  seed: number;
  /** A preset name, or a VariantSpec object. */
  variant: string | VariantSpec;
  locale?: Locale;
  parser?: string;
  faults?: number;
  intent?: string;
  /**
   * The task split (default `train`): every episode names its split in its reset (`all`: drawn from its
   * seed, env/tasks/mix.ts `taskSplitFor`), so a server's own default never applies. Independent of the
   * variant's split.
   */
  taskSplit?: TaskSplit;
  /** The intent mix of episodes (no `intent`): default the production mix. */
  mix?: IntentMix;
  rewards?: string;
  config?: Partial<EnvConfig>;
  /** Records episodes (`eval --record`): fed the reset, every action and output, and the end. */
  recorder?: EpisodeRecorder;
  /** Called after each episode (a progress bar): episodes done, the total, and the episode's reward. */
  onProgress?: (done: number, total: number, reward: number) => void;
}

/** The eval summary line (the remote eval prints the same). */
export interface EvalSummary {
  policy: string;
  variant: string;
  /** The task split asked for (`train`, `eval` or `all`). */
  task_split: TaskSplit;
  /** The variant's split: the held-out harness side (`none`: the base harness). */
  variant_split: VariantSplit;
  /** The intent mix episodes were drawn with (non-zero shares). */
  mix: Partial<Record<string, number>>;
  episodes: number;
  /** Episodes played per task split (the split of each episode's task). */
  task_splits: Partial<Record<Split, number>>;
  reward: { mean: number; p10: number; p50: number };
  components: Record<string, number>;
  intents: Record<string, number>;
  outcomes: Record<string, number>;
  /** Item-level errors (an action the environment refused); 0 for a well-behaved policy. */
  errors: number;
}

/** One finished episode, as the aggregation needs it. */
export interface EpisodeRecord {
  reward: number;
  components: Record<string, number>;
  intent: string;
  outcome: string;
  errors: number;
  /** The split of the episode's task. */
  task_split: Split;
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Nearest-rank quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx];
}

function sortedCounts(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...counts.keys()].sort()) out[k] = counts.get(k) as number;
  return out;
}

/** What the episodes of a summary were drawn from: the task split and mix (default `train`, production). */
export interface SummaryAxes {
  taskSplit?: TaskSplit;
  mix?: IntentMix;
}

/** Aggregate finished episodes into the summary (shared with the remote eval). */
export function summarize(policy: string, variant: string | VariantSpec, records: readonly EpisodeRecord[], axes: SummaryAxes = {}): EvalSummary {
  const rewards = records.map((r) => r.reward).sort((a, b) => a - b);
  const compSums = new Map<string, number>();
  const intents = new Map<string, number>();
  const outcomes = new Map<string, number>();
  const splits = new Map<string, number>();
  let errors = 0;
  for (const r of records) {
    splits.set(r.task_split, (splits.get(r.task_split) ?? 0) + 1);
    for (const [k, v] of Object.entries(r.components)) compSums.set(k, (compSums.get(k) ?? 0) + v);
    intents.set(r.intent, (intents.get(r.intent) ?? 0) + 1);
    outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
    errors += r.errors;
  }
  const n = records.length || 1;
  const components: Record<string, number> = {};
  for (const [k, v] of compSums) components[k] = round(v / n);
  return {
    policy,
    variant: variantLabel(variant),
    task_split: axes.taskSplit ?? 'train',
    variant_split: variantSplitOf(variant) ?? 'none',
    mix: mixShares(axes.mix),
    episodes: records.length,
    task_splits: sortedCounts(splits),
    reward: { mean: round(rewards.reduce((a, b) => a + b, 0) / n), p10: round(quantile(rewards, 0.1)), p50: round(quantile(rewards, 0.5)) },
    components,
    intents: sortedCounts(intents),
    outcomes: sortedCounts(outcomes),
    errors,
  };
}

/** Hard stop for a policy that never ends an episode (the env's turn cap ends it long before). */
const MAX_STEPS_GUARD = 64;

/**
 * The task selector of an eval episode: its split always (the run's, `all` drawn from the seed), and its
 * intent when forced; with a mix, the intent the mix draws in `config`'s task source (what a server with
 * that source would serve: a remote eval sends it, so the server's own default mix never applies).
 */
export function evalTaskSelector(
  config: EnvConfig,
  opts: Pick<EvalOptions, 'intent' | 'taskSplit' | 'mix' | 'locale'>,
  seed: number,
): { ok: true; task: NonNullable<EpisodeRequest['task']> } | { ok: false; error: { code: string; message: string } } {
  const split = taskSplitFor(seed, opts.taskSplit ?? 'train');
  if (opts.intent) return { ok: true, task: { split, intent: opts.intent } };
  if (opts.mix === undefined) return { ok: true, task: { split } };
  const picked = config.taskSource.pick(seed, { split, mix: opts.mix }, opts.locale ?? config.defaults.locale);
  if (!picked.ok) return { ok: false, error: { code: picked.code, message: picked.message } };
  return { ok: true, task: { split, intent: picked.task.intent } };
}

/** The config an eval plays in: with a mix, the mix as the default of resets that name no intent. */
function withMix(config: EnvConfig, mix: IntentMix | undefined): EnvConfig {
  if (mix === undefined || config.defaults.task_mix === mix) return config;
  return { ...config, defaults: { ...config.defaults, task_mix: mix } };
}

/** Play one episode in-process; returns its record. `config` is the env config (`defaultEnvConfig(opts.config)`). */
export function playEpisode(config: EnvConfig, opts: EvalOptions, seed: number): EpisodeRecord {
  const options: ResetOptions = {};
  if (opts.locale) options.locale = opts.locale;
  if (opts.parser) options.parser = opts.parser;
  if (opts.faults !== undefined) options.faults = opts.faults;
  if (opts.rewards) options.rewards = opts.rewards;
  // The split is always named (a config's default never applies); the mix draws the intent as a server
  // with it as its default would.
  const split = taskSplitFor(seed, opts.taskSplit ?? 'train');
  const task = opts.intent ? { split, intent: opts.intent } : { split };
  const env = withMix(config, opts.mix);
  const planned = resolveRequest(env, { episode_id: 'local', seed, task, variant: opts.variant, options });
  if (!planned.ok) throw new EnvError(planned.error);
  const created = startEpisode(env, planned.plan);
  if (!created.ok) throw new EnvError(created.error);
  // The same wrappers as a server session's (server/compose.ts): recording when asked.
  const start = { episode_id: `eval-${seed}`, seed, variant: planned.plan.variant, variant_seed: seed, options, oracle_hints: false };
  const episode: EpisodeHandle = opts.recorder ? new RecordEpisode(created.episode, opts.recorder, start) : created.episode;
  const { observation, info } = episode.reset();
  const params = episode.episode.params;
  const instance = opts.policy.start({
    seed,
    parser: params.parser.name === 'auto' ? 'openai' : params.parser.name,
    observation,
    info,
    privileged: opts.policy.privileged ? privilegedView(episode.episode) : undefined,
  });
  let obs = observation;
  let lastInfo = info;
  let errors = 0;
  for (let i = 0; i < MAX_STEPS_GUARD; i++) {
    const action = instance.act(obs, lastInfo);
    const result = episode.step(action);
    if (!result.ok) {
      errors++;
      continue;
    }
    obs = result.observation;
    lastInfo = result.info;
    if (result.terminated || result.truncated) {
      return {
        reward: result.reward,
        components: (result.info.reward_components ?? {}) as Record<string, number>,
        intent: String(result.info.intent),
        outcome: String(result.info.outcome),
        errors,
        task_split: params.source_task.split,
      };
    }
  }
  return { reward: 0, components: {}, intent: String(info.intent), outcome: 'max_turns', errors: errors + 1, task_split: params.source_task.split };
}

/** How a summary names the variant: the preset, or the spec as compact JSON. */
export function variantLabel(variant: string | VariantSpec): string {
  return typeof variant === 'string' ? variant : JSON.stringify(variant);
}

/** Evaluate a policy in-process. */
export function evaluate(opts: EvalOptions): EvalSummary {
  const config = defaultEnvConfig(opts.config);
  const records: EpisodeRecord[] = [];
  for (let i = 0; i < opts.episodes; i++) {
    records.push(playEpisode(config, opts, (opts.seed + i) >>> 0));
    opts.onProgress?.(i + 1, opts.episodes, (records[i] as EpisodeRecord).reward);
  }
  return summarize(opts.policy.name, opts.variant, records, { taskSplit: opts.taskSplit, mix: opts.mix ?? harnessMix(config.harness) });
}
