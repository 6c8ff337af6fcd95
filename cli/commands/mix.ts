/**
 * `harness-gym mix`: the traffic mix as served (eval/mix.ts): for each locale and task split, the share of
 * each intent (and of each sub-kind of generated tasks) among the tasks resets without an intent get, beside
 * the weights they are drawn with and the source report's Table 1 (docs/CURRICULUM.md "The traffic mix").
 */
import type { Command } from 'commander';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale, Split } from '../../protocol/domain.js';
import { embeddedHarness } from '../../harness/index.js';
import { formatMix, measureMix } from '../../eval/index.js';
import { collect, intArg, listArg } from '../args.js';
import { harnessOption, tasksOption } from './harness.js';
import { mixArg } from '../task-args.js';
import type { MixFlag } from '../task-args.js';

interface MixFlags {
  seeds: number;
  seed: number;
  locales: Locale[];
  splits: Split[];
  mix?: MixFlag;
  harness?: string;
  tasks?: string[];
  subKinds?: boolean;
  json?: boolean;
}

/** Register `mix` on the program. */
export function registerMixCommand(program: Command): void {
  program
    .command('mix')
    .description(
      "measure the traffic mix served: each intent's share (and each sub-kind's) of the tasks resets without an intent get, per locale and task split, beside the weights and the source report's Table 1",
    )
    .option('--seeds <n>', 'tasks per locale and split, in [1, 1000000]', intArg('--seeds', 1, 1_000_000), 3000)
    .option('--seed <n>', 'first seed (seeds seed..seed+n-1)', intArg('--seed', 0, 0xffffffff), 1)
    .option('--locales <list>', `locales, comma-separated: ${LOCALES.join(', ')}`, listArg('--locales', LOCALES), [...LOCALES])
    .option('--splits <list>', 'task splits, comma-separated: train, eval', listArg('--splits', ['train', 'eval']), ['train', 'eval'])
    .option(
      '--mix <weights|file>',
      'the mix to draw with: intent=weight pairs such as product_qa=0.5,chitchat=0.5, production, or a JSON or YAML file of them (default: the production mix)',
      mixArg('--mix'),
    )
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--tasks <file>', 'task file, JSONL (repeatable; default: generated tasks)', collect)
    .option('--sub-kinds', 'also print the sub-kinds of each intent (always in --json)')
    .option('--json', 'print one JSON line')
    .action((f: MixFlags) => {
      const { harness } = harnessOption(f.harness);
      const config = { ...(harness ? { harness } : {}), ...tasksOption(f.tasks, harness ?? embeddedHarness()) };
      const report = measureMix({ config, seeds: f.seeds, seed: f.seed, locales: f.locales, splits: f.splits, ...(f.mix ? { mix: f.mix.mix } : {}) });
      process.stdout.write(f.json ? JSON.stringify(report) + '\n' : formatMix(report, { subKinds: f.subKinds }));
    });
}
