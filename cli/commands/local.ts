/**
 * `harness-gym eval` (a reference policy over many episodes, in-process or through a running server) and
 * `harness-gym task` (one generated task).
 */
import type { Command } from 'commander';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { DEFAULT_DEFAULTS, PARSERS, HarnessGymEnv, defaultEnvConfig, taskSplitFor } from '../../env/index.js';
import type { EnvDefaults, EpisodeLimits } from '../../env/index.js';
import { Recorder } from '../../recording/index.js';
import { POLICIES, policyFor } from '../../policies/index.js';
import type { Policy } from '../../policies/index.js';
import { evaluate, evaluateRemote } from '../../eval/index.js';
import type { EvalSummary } from '../../eval/index.js';
import { formatSummary } from '../format.js';
import { choiceOption, collect, intArg, intentOption, rateArg, urlListArg } from '../args.js';
import { fileError, runError, usageError } from '../errors.js';
import { writableDir } from '../files.js';
import { InOrderRecorder } from '../record-order.js';
import { embeddedHarness } from '../../harness/index.js';
import { harnessOption, tasksOption } from './harness.js';
import { serverFailure } from '../remote.js';
import { addVariantOptions, resolveVariantFlags } from '../variant-args.js';
import type { VariantFlags } from '../variant-args.js';
import { addTaskOptions, checkTaskFlags } from '../task-args.js';
import { EnvError } from '../../protocol/errors.js';
import type { TaskFlags } from '../task-args.js';
import { registerMixCommand } from './mix.js';
import { isProfileFile, profileFromFile, profilesWith, registryFor } from '../reward-args.js';
import { progressBar } from '../progress.js';

interface EvalFlags extends VariantFlags, TaskFlags {
  policy: string;
  episodes: number;
  seed: number;
  locale: Locale;
  parser: string;
  intent?: string;
  faults: number;
  json?: boolean;
  url?: string[];
  token?: string;
  record?: string;
  recordSample?: number;
  harness?: string;
  tasks?: string[];
  rewards?: string;
  rewardModules?: string[];
}

/** Register `eval` and `task` on the program. */
export function registerLocalCommands(program: Command): void {
  const evalCmd = program
    .command('eval')
    .description(
      'play a reference policy over many episodes and print the reward summary: in-process, or through a running server with --url, or replicas with --url repeated (the same line every way)',
    )
    .addOption(choiceOption('--policy <name>', 'reference policy', [...POLICIES.keys()]).default('oracle'))
    .option('--episodes <n>', 'number of episodes, in [1, 1000000]', intArg('--episodes', 1, 1_000_000), 100)
    .option('--seed <n>', 'seed of the first episode (episode i uses seed + i)', intArg('--seed', 0, 0xffffffff), 1);
  addVariantOptions(evalCmd, 'identity')
    .addOption(choiceOption('--locale <locale>', 'language of tasks and harness', [...LOCALES]).default('zh-CN'))
    .addOption(choiceOption('--parser <name>', 'action parser the policy writes for', [...PARSERS.keys()]).default('auto'))
    .addOption(intentOption('--intent <intent>', 'only tasks of this intent'));
  addTaskOptions(evalCmd)
    .option('--faults <rate>', 'probability in [0, 1] of an injected tool fault per call', rateArg('--faults'), 0)
    .option('--json', 'print one JSON line instead of a table')
    .option(
      '--url <ws-url>',
      'play through a running server, e.g. ws://127.0.0.1:8080/v1/env (default: in-process); repeat it for replicas: episodes sharded by seed, those of a replica that dies played again on the survivors',
      urlListArg('--url', ['ws:', 'wss:'], 'ws://127.0.0.1:8080/v1/env'),
    )
    .option('--token <token>', 'the server\'s token, with --url (default: $HARNESS_GYM_TOKEN)')
    .option('--record <dir>', 'record finished episodes into this directory (in-process or with --url; replay them with harness-gym replay)')
    .option('--record-sample <rate>', 'fraction in [0, 1] of episodes recorded, decided from each seed (default 1)', rateArg('--record-sample'))
    .option('--harness <dir>', "a harness directory to play in (default: the embedded harness); with --url, the server's")
    .option('--tasks <file>', "task file, JSONL (repeatable; default: generated tasks); with --url, the server's", collect)
    .option(
      '--rewards <file|name>',
      "score with this reward profile: a profile file (JSON or YAML), or a profile's name (in-process: default; with --url: one the server loaded, welcome.reward_profiles)",
    )
    .option('--reward-modules <dir>', 'directory of custom reward modules the profile uses (repeatable)', collect)
    .action(async (opts: EvalFlags) => {
      if (!POLICIES.has(opts.policy)) throw usageError(`unknown policy ${opts.policy}`);
      const { variant } = resolveVariantFlags(opts, 'identity');
      if (opts.mix !== undefined && opts.intent !== undefined) throw usageError('--intent forces the intent and --mix draws it: give one of them');
      if (opts.recordSample !== undefined && opts.record === undefined) throw usageError('--record-sample needs --record DIR');
      if (opts.token !== undefined && opts.url === undefined) throw usageError('--token needs --url (the in-process eval has no server)');
      if (opts.record !== undefined) writableDir(opts.record, '--record');
      const { harness } = harnessOption(opts.harness);
      // A profile file is scored in-process (and by the twin of a remote eval, whose server must have loaded
      // the same profile); a name is one the scorer already has.
      const registry = await registryFor(opts.rewardModules ?? []);
      const fromFile = opts.rewards !== undefined && isProfileFile(opts.rewards) ? profileFromFile(opts.rewards, registry) : undefined;
      const profileName = fromFile?.name ?? opts.rewards;
      if (opts.rewards !== undefined && fromFile === undefined && opts.url === undefined && opts.rewards !== 'default') {
        throw usageError(`--rewards ${opts.rewards}: no such profile in-process (only "default"); give a profile file (JSON or YAML)`);
      }
      const config = {
        ...(harness ? { harness } : {}),
        ...tasksOption(opts.tasks, harness ?? embeddedHarness()),
        ...(opts.rewardModules !== undefined || fromFile !== undefined ? { registry, profiles: profilesWith(fromFile) } : {}),
      };
      // A split the task files have no task of, or a mix of intents none served, fails here (exit 2).
      checkTaskFlags(config, opts, [opts.locale]);
      // The memorizer plays the harness it is run in, as if fine-tuned on it.
      const policy = policyFor(opts.policy, harness ?? embeddedHarness()) as Policy;
      const common = {
        config,
        policy,
        episodes: opts.episodes,
        seed: opts.seed,
        variant,
        locale: opts.locale,
        parser: opts.parser,
        intent: opts.intent,
        taskSplit: opts.taskSplit,
        ...(opts.mix !== undefined ? { mix: opts.mix.mix } : {}),
        ...(profileName !== undefined ? { rewards: profileName } : {}),
        faults: opts.faults,
      };
      // Records are written in episode order, in-process or remote (cli/record-order.ts).
      let recorder: InOrderRecorder | undefined;
      let recordError: unknown;
      const makeRecorder = (env: { limits: EpisodeLimits; defaults: EnvDefaults }, stem: string): InOrderRecorder =>
        (recorder = new InOrderRecorder(
          new Recorder({
            dir: opts.record as string,
            sample: opts.recordSample ?? 1,
            stem,
            created_by: 'eval',
            env,
            onError: (e) => (recordError ??= e),
          }),
        ));
      let summary: EvalSummary;
      const progress = progressBar('eval', 'episodes', opts.json === true);
      if (opts.url !== undefined) {
        // Remote: the same episodes through a running server (or replicas); the summary is the in-process one's twin.
        const url = opts.url.length === 1 ? (opts.url[0] as string) : opts.url;
        const stem = `eval-url-${opts.policy}-s${opts.seed}-n${opts.episodes}`;
        try {
          summary = await evaluateRemote({
            ...common,
            url,
            token: opts.token ?? process.env.HARNESS_GYM_TOKEN,
            onProgress: (done, total, reward) => progress.tick(done, total, reward),
            ...(opts.record !== undefined ? { recorder: (env: { limits: EpisodeLimits; defaults: EnvDefaults }) => makeRecorder(env, stem) } : {}),
          });
        } catch (e) {
          progress.stop();
          throw serverFailure(e, url) ?? e;
        }
      } else {
        const env = defaultEnvConfig();
        if (opts.record !== undefined) makeRecorder({ limits: env.limits, defaults: env.defaults }, `eval-${opts.policy}-s${opts.seed}-n${opts.episodes}`);
        try {
          summary = evaluate({ ...common, recorder, onProgress: (done, total, reward) => progress.tick(done, total, reward) });
        } catch (e) {
          progress.stop();
          // An episode the environment refused to create (a task the files do not have): the run failed.
          if (e instanceof EnvError) throw runError(`an episode could not be created: ${e.message}`);
          throw e;
        }
      }
      progress.stop();
      if (recorder) {
        await recorder.close();
        if (recordError !== undefined) throw fileError(`--record ${opts.record}: writing the records failed (${(recordError as Error).message})`);
        process.stderr.write(`harness-gym eval: recorded ${recorder.recorded} episodes in ${opts.record}\n`);
      }
      process.stdout.write(opts.json ? JSON.stringify(summary) + '\n' : formatSummary(summary));
    });

  const taskCmd = program
    .command('task')
    .description('show one generated task: the system prompt, the viewer message, the tools and the answer key')
    .option('--seed <n>', 'episode seed', intArg('--seed', 0, 0xffffffff), 1)
    .addOption(choiceOption('--locale <locale>', 'language', [...LOCALES]).default('zh-CN'))
    .addOption(intentOption('--intent <intent>', 'force an intent'))
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print the observation and the task as JSON');
  addTaskOptions(taskCmd).action((opts: TaskFlags & { seed: number; locale: Locale; intent?: string; harness?: string; json?: boolean }) => {
      if (opts.mix !== undefined && opts.intent !== undefined) throw usageError('--intent forces the intent and --mix draws it: give one of them');
      const harness = harnessOption(opts.harness);
      checkTaskFlags(harness, opts, [opts.locale]);
      const env = new HarnessGymEnv({ ...harness, ...(opts.mix !== undefined ? { defaults: { ...DEFAULT_DEFAULTS, task_mix: opts.mix.mix } } : {}) });
      const split = taskSplitFor(opts.seed, opts.taskSplit);
      const { observation, info } = env.reset({
        seed: opts.seed,
        options: { locale: opts.locale, task: opts.intent ? { split, intent: opts.intent } : { split } },
      });
      const task = env.episode?.params.task;
      if (opts.json) {
        process.stdout.write(JSON.stringify({ info, observation, task }) + '\n');
        return;
      }
      const lines: string[] = [];
      for (const m of observation.messages) lines.push(`--- ${m.role} ---`, m.content ?? '');
      lines.push('--- tools ---', (observation.tools ?? []).map((t) => t.function.name).join(', '));
      lines.push('--- answer key ---', JSON.stringify(task?.answer_key, null, 2));
      process.stdout.write(lines.join('\n') + '\n');
    });

  registerMixCommand(program);
}
