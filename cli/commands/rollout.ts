/**
 * `harness-gym rollout`: drive episodes on a running server with an OpenAI-compatible chat-completions
 * endpoint as the policy (client/rollout.ts), with a progress bar on stderr (TTY only) and a summary of
 * rewards by component, intent and variant family (`--json`: one line).
 *
 * Everything that can be checked before the first episode is: the URLs, the variant (with the server's
 * own `parseVariant`), that `--out` can be written. A run in which every episode failed exits 5 with the
 * most frequent reasons; a run with some failures lists them in its summary and exits 0.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { PARSERS } from '../../env/index.js';
import { formatRolloutSummary, runRollout } from '../../client/index.js';
import type { RolloutResult, RolloutSummary } from '../../client/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { recordTranscripts } from '../../eval/index.js';
import { Recorder } from '../../recording/index.js';
import { makeDirs, writableDir } from '../files.js';
import { harnessOption } from './harness.js';
import { harnessLabel } from '../../harness/index.js';
import { choiceOption, intArg, numberArg, rateArg, urlArg, urlListArg } from '../args.js';
import { fileError, runError, usageError } from '../errors.js';
import { serverFailure } from '../remote.js';
import { addVariantOptions, resolveVariantFlags } from '../variant-args.js';
import type { VariantFlags } from '../variant-args.js';
import { addTaskOptions, axesLine, checkTaskFlags } from '../task-args.js';
import type { TaskFlags } from '../task-args.js';
import { mixShares, parseMix, taskSplitFor, variantSplitOf } from '../../env/index.js';
import type { IntentMix } from '../../env/index.js';

/**
 * `--record DIR`: rebuild every finished episode in-process from its transcript, in the server's harness
 * and with its limits and defaults, and record it (eval/rollout-records.ts). Says on stderr how many.
 */
async function recordRun(result: RolloutResult, dir: string, harnessDir: string | undefined): Promise<void> {
  const config = defaultEnvConfig({
    ...harnessOption(harnessDir),
    limits: { max_turns: result.welcome.limits.max_turns, max_errors: result.welcome.limits.max_errors },
  });
  const served = result.welcome.harness;
  if (served !== undefined && served.hash !== config.harness.identity.hash) {
    throw fileError(
      `--record: the server serves harness ${harnessLabel(served)}, not ${harnessLabel(config.harness.identity)}; give its directory with --harness DIR`,
    );
  }
  makeDirs(dir);
  let failure: unknown;
  const recorder = new Recorder({
    dir,
    sample: 1,
    stem: `rollout-s${result.records[0]?.seed ?? 0}-n${result.records.length}`,
    created_by: 'rollout',
    env: { limits: config.limits, defaults: config.defaults },
    onError: (e) => (failure ??= e),
  });
  const made = recordTranscripts(result.records, config, recorder);
  await recorder.close();
  if (failure !== undefined) throw fileError(`--record ${dir}: writing the records failed (${(failure as Error).message})`);
  const skipped = Object.entries(made.skipped).map(([why, n]) => `${n} ${why}`);
  process.stderr.write(`harness-gym rollout: recorded ${made.recorded} episodes in ${dir}${skipped.length > 0 ? ` (not recorded: ${skipped.join('; ')})` : ''}\n`);
}

interface RolloutFlags extends VariantFlags, TaskFlags {
  url: string[];
  baseUrl: string;
  model: string;
  apiKey?: string;
  episodes: number;
  concurrency: number;
  groupSize: number;
  seed: number;
  locale?: Locale;
  parser?: string;
  record?: string;
  harness?: string;
  faults?: number;
  token?: string;
  out?: string;
  json?: boolean;
  timeout: number;
  retries: number;
  backoff: number;
  temperature?: number;
  maxTokens?: number;
  oracleHints?: boolean;
  rewards?: string;
}

/** A mix from the shares a welcome names (undefined: the production mix, or a server too old to say). */
function mixOfShares(shares: Record<string, number> | undefined): IntentMix | undefined {
  if (shares === undefined) return undefined;
  const parsed = parseMix(shares);
  return parsed.ok ? parsed.mix : undefined;
}

/** The line of a run in which every episode failed: how many, the most frequent reasons, what to check. */
export function allFailedMessage(s: RolloutSummary, baseUrl: string, top = 3): string {
  const reasons = Object.entries(s.failures).slice(0, top);
  const more = Object.keys(s.failures).length - reasons.length;
  const listed = reasons.map(([reason, n]) => `${n}x ${reason}`).join('; ');
  const endpoint = Object.keys(s.failures).every((r) => r.startsWith('endpoint: '));
  const hint = endpoint ? `; check that --base-url ${baseUrl} serves /chat/completions` : '; the records (--out) have every reason';
  return `every episode failed (${s.failed} of ${s.episodes}): ${listed}${more > 0 ? `; and ${more} other reasons` : ''}${hint}`;
}

/** Register `rollout` on the program. */
export function registerRolloutCommand(program: Command): void {
  const cmd = program
    .command('rollout')
    .description('play episodes on a running server with an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, ...) as the policy')
    .requiredOption(
      '--url <ws-url>',
      'the environment server, e.g. ws://127.0.0.1:8080/v1/env; repeat it for replicas: episodes sharded by group and seed, those of a replica that dies fail alone',
      urlListArg('--url', ['ws:', 'wss:'], 'ws://127.0.0.1:8080/v1/env'),
    )
    .requiredOption('--base-url <http-url>', 'the endpoint, e.g. http://127.0.0.1:8000/v1', urlArg('--base-url', ['http:', 'https:'], 'http://127.0.0.1:8000/v1'))
    .requiredOption('--model <name>', 'model name sent to the endpoint')
    .option('--api-key <key>', 'endpoint API key (default: $OPENAI_API_KEY)')
    .option('--episodes <n>', 'number of episodes', intArg('--episodes', 1, 10_000_000), 100)
    .option('--concurrency <k>', 'episodes in flight at once', intArg('--concurrency', 1, 100_000), 16)
    .option('--group-size <g>', 'GRPO group size: consecutive episodes share task and variant', intArg('--group-size', 1, 1024), 1)
    .option('--seed <n>', 'seed of the first episode (episode i uses seed + i)', intArg('--seed', 0, 0xffffffff), 1);
  addVariantOptions(cmd, 'identity')
    .addOption(choiceOption('--locale <locale>', "language of tasks and harness (default: the server's)", [...LOCALES]))
    .addOption(choiceOption('--parser <name>', "the episode's action parser for raw-text replies (default: the server's, auto)", [...PARSERS.keys()]))
    .option('--faults <rate>', 'probability in [0, 1] of an injected tool fault per call', rateArg('--faults'))
    .option('--token <token>', "the server's token (default: $HARNESS_GYM_TOKEN)")
    .option('--out <file>', 'write one JSON line per episode (episode order, with its transcript) to this file')
    .option('--record <dir>', "record the finished episodes as record files (replay, inspect, view read them), rebuilt in-process in the server's harness")
    .option('--harness <dir>', "the server's harness directory, for --record and --mix (default: the embedded harness; must be the one the server serves)")
    .option('--json', 'print the summary as one JSON line');
  addTaskOptions(cmd)
    .option('--timeout <ms>', 'per-request timeout of the endpoint', intArg('--timeout', 1, 3_600_000), 60_000)
    .option('--retries <n>', 'retries of a failed endpoint request', intArg('--retries', 0, 100), 3)
    .option('--backoff <ms>', 'first retry delay (doubles per retry)', intArg('--backoff', 0, 600_000), 500)
    .option('--temperature <t>', 'sampling temperature in [0, 2] sent to the endpoint', numberArg('--temperature', 0, 2))
    .option('--max-tokens <n>', 'max_tokens sent to the endpoint', intArg('--max-tokens', 1, 1_000_000))
    .option('--rewards <name>', "score with this reward profile of the server (one of welcome.reward_profiles; default: the server's)")
    // Forwards info.oracle_action to the endpoint (client/rollout.ts): for `harness-gym policy --policy
    // oracle` and tests, against a server started with --allow-oracle-hints.
    .option('--oracle-hints', 'send each step\'s oracle action to the endpoint (x-harness-gym-oracle-action), for harness-gym policy --policy oracle; needs a server started with --allow-oracle-hints')
    .action(async (f: RolloutFlags) => {
      const { variant } = resolveVariantFlags(f, 'identity');
      // --record and --harness are checked before the run, not after it.
      if (f.record !== undefined) writableDir(f.record, '--record');
      if (f.harness !== undefined && f.record === undefined && f.mix === undefined) {
        throw usageError('--harness is for --record DIR and --mix (the server plays in its own harness)');
      }
      const harness = harnessOption(f.harness);
      // Each episode names its task split (all: drawn from its seed), so the server's default never
      // applies; with --mix, its intent too, drawn here in the server's harness as the server would draw it.
      const mixConfig = f.mix !== undefined ? defaultEnvConfig(harness) : undefined;
      const taskOf = (seed: number): { split: 'train' | 'eval'; intent?: string } => {
        const split = taskSplitFor(seed, f.taskSplit);
        if (mixConfig === undefined || f.mix === undefined) return { split };
        const picked = mixConfig.taskSource.pick(seed, { split, mix: f.mix.mix }, f.locale ?? mixConfig.defaults.locale);
        if (!picked.ok) throw usageError(`--mix: ${picked.message}`);
        return { split, intent: picked.task.intent };
      };
      // A mix that serves nothing fails here, not as a run of failed episodes.
      if (mixConfig !== undefined) checkTaskFlags(harness, f, f.locale ? [f.locale] : undefined);
      if (f.out) {
        // Fail before the run, not after it: the records are written at the end.
        try {
          writeFileSync(f.out, '');
        } catch (e) {
          throw fileError(`--out ${f.out}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      }
      const bar = process.stderr.isTTY
        ? new cliProgress.SingleBar(
            { stream: process.stderr, format: 'rollout [{bar}] {value}/{total} episodes | reward {mean} | {failed} failed | {rate} ep/s | eta {eta}s' },
            cliProgress.Presets.shades_classic,
          )
        : null;
      let failed = 0;
      // The running mean reward of the episodes that completed (failed ones are not scored).
      let scored = 0;
      let rewardSum = 0;
      const started = performance.now();
      const sampling: Record<string, unknown> = {};
      if (f.temperature !== undefined) sampling.temperature = f.temperature;
      if (f.maxTokens !== undefined) sampling.max_tokens = f.maxTokens;
      const apiKey = f.apiKey ?? process.env.OPENAI_API_KEY;
      const token = f.token ?? process.env.HARNESS_GYM_TOKEN;
      let result;
      try {
        result = await runRollout({
          url: f.url.length === 1 ? (f.url[0] as string) : f.url,
          ...(token !== undefined ? { token } : {}),
          baseUrl: f.baseUrl,
          model: f.model,
          ...(apiKey ? { apiKey } : {}),
          episodes: f.episodes,
          concurrency: f.concurrency,
          groupSize: f.groupSize,
          seed: f.seed,
          variant,
          task: taskOf,
          axes: {
            task_split: f.taskSplit,
            variant_split: variantSplitOf(variant) ?? 'none',
            ...(f.mix !== undefined ? { mix: mixShares(f.mix.mix) as Record<string, number> } : {}),
          },
          ...(f.locale ? { locale: f.locale } : {}),
          ...(f.parser ? { parser: f.parser } : {}),
          ...(f.faults !== undefined || f.rewards !== undefined
            ? { options: { ...(f.faults !== undefined ? { faults: f.faults } : {}), ...(f.rewards !== undefined ? { rewards: f.rewards } : {}) } }
            : {}),
          oracleHints: f.oracleHints === true,
          timeoutMs: f.timeout,
          retries: f.retries,
          backoffMs: f.backoff,
          sampling,
          onEpisode: (done, _total, r) => {
            if (done === 1) bar?.start(f.episodes, 0, { failed, mean: '-', rate: '-' });
            if (r.failed !== undefined) failed++;
            else {
              scored++;
              rewardSum += r.reward;
            }
            const secs = (performance.now() - started) / 1000;
            bar?.update(done, { failed, mean: scored > 0 ? (rewardSum / scored).toFixed(3) : '-', rate: secs > 0 ? (done / secs).toFixed(1) : '-' });
          },
        });
      } catch (e) {
        bar?.stop();
        throw serverFailure(e, f.url) ?? e;
      }
      bar?.stop();
      const { summary, records } = result;
      if (f.out) writeFileSync(f.out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      if (f.record !== undefined) await recordRun(result, f.record, f.harness);
      if (f.json) process.stdout.write(JSON.stringify(summary) + '\n');
      else {
        // The mix played: --mix, or the server's default (welcome.defaults.task_mix, shares).
        const served = f.mix?.mix ?? mixOfShares(result.welcome.defaults.task_mix);
        const counts = Object.entries(summary.task_splits ?? {})
          .map(([k, n]) => `${k} ${n}`)
          .join(', ');
        const line = axesLine(f.taskSplit, variantSplitOf(variant) ?? 'none', served).replace(/^task split (\w+)/, `task split $1${counts ? ` (${counts})` : ''}`);
        process.stdout.write(formatRolloutSummary(summary, line));
      }
      if (summary.completed === 0 && summary.failed > 0) throw runError(allFailedMessage(summary, f.baseUrl));
    });
}
