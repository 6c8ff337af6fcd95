/**
 * `harness-gym eval` and `harness-gym task`: the in-process commands.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { LOCALES, INTENTS } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { PARSERS, HarnessGymEnv, VARIANT_PRESETS, defaultEnvConfig } from '../../env/index.js';
import { Recorder } from '../../recording/index.js';
import { POLICIES } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { evaluateRemote } from '../../eval/index.js';
import { formatSummary } from '../format.js';
import { intArg, rateArg } from '../args.js';

/** Register `eval` and `task` on the program. */
export function registerLocalCommands(program: Command): void {
  program
    .command('eval')
    .description('run a reference policy over many episodes in-process and print a summary')
    .addOption(new Option('--policy <name>', 'reference policy').choices([...POLICIES.keys()]).default('oracle'))
    .option('--episodes <n>', 'number of episodes', intArg('--episodes', 1, 1_000_000), 100)
    .option('--seed <n>', 'seed of the first episode (episode i uses seed + i)', intArg('--seed', 0, 0xffffffff), 1)
    .addOption(new Option('--variant <preset>', 'harness variant preset').choices([...VARIANT_PRESETS]).default('identity'))
    .addOption(new Option('--locale <locale>', 'language of tasks and harness').choices([...LOCALES]).default('zh-CN'))
    .addOption(new Option('--parser <name>', 'action parser the policy writes for').choices([...PARSERS.keys()]).default('auto'))
    .addOption(new Option('--intent <intent>', 'only tasks of this intent').choices([...INTENTS]))
    .option('--faults <rate>', 'probability of an injected tool fault per call', rateArg, 0)
    .option('--json', 'print one JSON line instead of a table')
    .option('--url <ws-url>', 'evaluate against a running server (e.g. ws://127.0.0.1:8080/v1/env) instead of in-process')
    .option('--token <token>', 'auth token for --url')
    .option('--record <dir>', 'record finished episodes (in-process only) into this directory')
    .option('--record-sample <rate>', 'fraction of episodes recorded, decided from each seed', rateArg, 1)
    .action(
      async (opts: {
        policy: string;
        episodes: number;
        seed: number;
        variant: string;
        locale: Locale;
        parser: string;
        intent?: string;
        faults: number;
        json?: boolean;
        url?: string;
        token?: string;
        record?: string;
        recordSample: number;
      }) => {
        const policy = POLICIES.get(opts.policy);
        if (!policy) throw new InvalidArgumentError(`unknown policy ${opts.policy}`);
        if (opts.url !== undefined) {
          // Remote: the same episodes through a running server; the summary is the in-process one's twin.
          const remote = await evaluateRemote({
            url: opts.url,
            token: opts.token,
            policy,
            episodes: opts.episodes,
            seed: opts.seed,
            variant: opts.variant,
            locale: opts.locale,
            parser: opts.parser,
            intent: opts.intent,
            faults: opts.faults,
          });
          process.stdout.write(opts.json ? JSON.stringify(remote) + '\n' : formatSummary(remote));
          return;
        }
        const env = defaultEnvConfig();
        const recorder =
          opts.record === undefined
            ? undefined
            : new Recorder({
                dir: opts.record,
                sample: opts.recordSample,
                stem: `eval-${opts.policy}-s${opts.seed}-n${opts.episodes}`,
                created_by: 'eval',
                env: { limits: env.limits, defaults: env.defaults },
                onError: (e) => process.stderr.write(`harness-gym eval: recording failed: ${(e as Error).message}\n`),
              });
        const summary = evaluate({
          recorder,
          policy,
          episodes: opts.episodes,
          seed: opts.seed,
          variant: opts.variant,
          locale: opts.locale,
          parser: opts.parser,
          intent: opts.intent,
          faults: opts.faults,
        });
        if (recorder) {
          await recorder.close();
          process.stderr.write(`harness-gym eval: recorded ${recorder.recorded} episodes in ${opts.record}\n`);
        }
        process.stdout.write(opts.json ? JSON.stringify(summary) + '\n' : formatSummary(summary));
      },
    );

  program
    .command('task')
    .description('show one generated task: the system prompt, the viewer message, the tools and the answer key')
    .option('--seed <n>', 'episode seed', intArg('--seed', 0, 0xffffffff), 1)
    .addOption(new Option('--locale <locale>', 'language').choices([...LOCALES]).default('zh-CN'))
    .addOption(new Option('--intent <intent>', 'force an intent').choices([...INTENTS]))
    .option('--json', 'print the observation and the task as JSON')
    .action((opts: { seed: number; locale: Locale; intent?: string; json?: boolean }) => {
      const env = new HarnessGymEnv();
      const { observation, info } = env.reset({
        seed: opts.seed,
        options: { locale: opts.locale, task: opts.intent ? { intent: opts.intent } : undefined },
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
}
