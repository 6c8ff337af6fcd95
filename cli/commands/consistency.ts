/**
 * `harness-gym consistency`: the task consistency check (eval/consistency.ts). Do the answer keys follow
 * the skills the episode serves, ask what the message asks, and do the rooms' data and the harness's own
 * rules agree with themselves? Exit 1 on any contradiction, naming the task, its seed and both sides.
 */
import type { Command } from 'commander';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale, Split } from '../../protocol/domain.js';
import { formatConsistency, runConsistency } from '../../eval/index.js';
import { intArg, listArg } from '../args.js';
import { CliError, EXIT } from '../errors.js';
import { harnessOption } from './harness.js';

interface ConsistencyFlags {
  seeds: number;
  from: number;
  locales: Locale[];
  splits: Split[];
  harness?: string;
  variants: boolean;
  examples: number;
  json?: boolean;
}

/** Register `consistency` on the program. */
export function registerConsistencyCommand(program: Command): void {
  program
    .command('consistency')
    .description(
      "prove the tasks agree with the harness and with themselves: keys follow the served skills and the viewer's message, data agrees across prompt and tools, rules agree with the skill texts (exit 1 on a contradiction)",
    )
    .option('--seeds <n>', 'generated tasks per locale and split (each served intent in turn)', intArg('--seeds', 1, 10_000_000), 3000)
    .option('--from <n>', 'first seed', intArg('--from', 0, 0xffffffff), 0)
    .option('--locales <list>', `locales, comma-separated: ${LOCALES.join(', ')}`, listArg('--locales', LOCALES), [...LOCALES])
    .option('--splits <list>', 'task splits, comma-separated: train, eval', listArg('--splits', ['train', 'eval']), ['train', 'eval'])
    .option('--harness <dir>', 'the harness directory to check (default: the embedded harness); its task files are checked too')
    .option('--no-variants', "skip compiling the train and eval preset variants per task (their rules against their texts)")
    .option('--examples <n>', 'contradictions printed per kind', intArg('--examples', 0, 1000), 3)
    .option('--json', 'print the report as one JSON line')
    .action((f: ConsistencyFlags) => {
      const report = runConsistency({
        ...harnessOption(f.harness),
        seeds: f.seeds,
        from: f.from,
        locales: f.locales,
        splits: f.splits,
        variants: f.variants,
        examples: f.examples,
      });
      process.stdout.write(f.json ? JSON.stringify(report) + '\n' : formatConsistency(report));
      if (report.total > 0) {
        const first = report.examples[0];
        throw new CliError(
          EXIT.verdict,
          `${report.total} contradictions in the tasks of harness "${report.harness}"${first ? `; first: ${first.code} in ${first.task}` : ''} (details on stdout)`,
        );
      }
    });
}
