#!/usr/bin/env node
/**
 * The `harness-gym` command line. The only place (with the server's entry) that reads process state:
 * argv, stdout and the exit code.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { LOCALES } from '../protocol/domain.js';
import type { Locale } from '../protocol/domain.js';
import { INTENTS } from '../protocol/domain.js';
import { PARSERS, HarnessGymEnv, VARIANT_PRESETS } from '../env/index.js';
import { evaluate, POLICIES } from '../policies/index.js';
import { formatSummary } from './format.js';
import { packageVersion } from './version.js';

function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return n;
  };
}

function rateArg(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number in [0, 1]');
  return n;
}

const program = new Command();
program
  .name('harness-gym')
  .description('Gym-style environment for training live-commerce agents on augmented harnesses')
  .version(packageVersion(), '-V, --version')
  .showHelpAfterError();

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
  .action((opts: { policy: string; episodes: number; seed: number; variant: string; locale: Locale; parser: string; intent?: string; faults: number; json?: boolean }) => {
    const policy = POLICIES.get(opts.policy);
    if (!policy) throw new InvalidArgumentError(`unknown policy ${opts.policy}`);
    const summary = evaluate({
      policy,
      episodes: opts.episodes,
      seed: opts.seed,
      variant: opts.variant,
      locale: opts.locale,
      parser: opts.parser,
      intent: opts.intent,
      faults: opts.faults,
    });
    process.stdout.write(opts.json ? JSON.stringify(summary) + '\n' : formatSummary(summary));
  });

program
  .command('task')
  .description('show one generated task: the system prompt, the viewer message, the tools and the answer key')
  .option('--seed <n>', 'episode seed', intArg('--seed', 0, 0xffffffff), 1)
  .addOption(new Option('--locale <locale>', 'language').choices([...LOCALES]).default('zh-CN'))
  .addOption(new Option('--intent <intent>', 'force an intent').choices([...INTENTS]))
  .option('--json', 'print the observation and the task as JSON')
  .action((opts: { seed: number; locale: Locale; intent?: string; json?: boolean }) => {
    const env = new HarnessGymEnv();
    const { observation, info } = env.reset({ seed: opts.seed, options: { locale: opts.locale, task: opts.intent ? { intent: opts.intent } : undefined } });
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

await program.parseAsync(process.argv);
