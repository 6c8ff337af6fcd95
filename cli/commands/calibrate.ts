/**
 * `harness-gym calibrate`: rescore a graded corpus of recorded episodes with a reward profile and say how
 * well the reward agrees with the reviewers' grades (eval/calibrate.ts; docs/REWARDS.md "Calibrating a
 * profile"). Exit 1 past the thresholds. `audit` finds rewards that pay for not doing the job; calibrate
 * finds rewards that refuse to pay for doing it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { calibrate, DEFAULT_THRESHOLDS, formatCalibration, readGrades } from '../../eval/index.js';
import { DEFAULT_PROFILE, defaultRegistry, loadProfileFile, loadRewardSet } from '../../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../../rewards/index.js';
import { collect, rateArg } from '../args.js';
import { CliError, EXIT, fileError, joinErrors } from '../errors.js';
import { loadRecordInput } from '../files.js';
import { harnessOption } from './harness.js';

interface CalibrateFlags {
  grades?: string;
  rewards?: string;
  rewardModules: string[];
  minAgreement: number;
  maxFn: number;
  maxFp: number;
  maxFlawedMean: number;
  tolerance: number;
  json?: boolean;
  all?: boolean;
  recordedKeys?: boolean;
  harness?: string;
}

/** Register `calibrate` on the program. */
export function registerCalibrateCommand(program: Command): void {
  program
    .command('calibrate')
    .description("rescore a graded corpus of recorded episodes and measure the reward's agreement with its reviewers (exit 1 past the thresholds)")
    .argument('<corpus>', 'a record file or a directory of them (the graded episodes)')
    .option('--grades <file>', 'the grades, one JSON object per line (default: <corpus>/grades.jsonl)')
    .option('--rewards <file>', 'the reward profile to calibrate (JSON or YAML; default: the built-in default profile)')
    .option('--reward-modules <dir>', 'directory of custom reward modules the profile uses (repeatable)', collect, [])
    .option('--min-agreement <x>', 'least share of episodes with |reward - grade| <= tolerance', rateArg('--min-agreement'), DEFAULT_THRESHOLDS.min_agreement)
    .option('--max-fn <x>', 'most share of air-worthy episodes (grade >= 0.8) rewarded below 0.5', rateArg('--max-fn'), DEFAULT_THRESHOLDS.max_false_negatives)
    .option('--max-fp <x>', 'most share of unairable episodes (grade <= 0.3) rewarded 0.7 or more', rateArg('--max-fp'), DEFAULT_THRESHOLDS.max_false_positives)
    .option('--max-flawed-mean <x>', 'most mean reward of the flawed replies', rateArg('--max-flawed-mean'), DEFAULT_THRESHOLDS.max_flawed_mean)
    .option('--tolerance <x>', '|reward - grade| that still counts as agreement', rateArg('--tolerance'), DEFAULT_THRESHOLDS.tolerance)
    .option('--recorded-keys', "score against the answer keys stored in the records (default: the current generator's keys, the recorded actions played again)")
    .option('--harness <dir>', 'the harness directory the corpus was played in (default: the embedded harness)')
    .option('--all', 'list every disagreement (default: the 20 largest)')
    .option('--json', 'print the report as one JSON line')
    .action(async (corpus: string, f: CalibrateFlags) => {
      const records = loadRecordInput(corpus);
      const gradesPath = f.grades ?? join(corpus, 'grades.jsonl');
      if (f.grades === undefined && !existsSync(gradesPath)) throw fileError(`no grades file at ${gradesPath}; give one with --grades FILE`);
      const grades = readGrades(gradesPath);
      if (!grades.ok) throw fileError(`--grades ${gradesPath}: ${joinErrors(grades.errors)}`);
      let profile: RewardProfile = DEFAULT_PROFILE;
      let registry: RewardRegistry = defaultRegistry();
      if (f.rewardModules.length > 0) {
        const loaded = await loadRewardSet({ profiles: [], module_dirs: f.rewardModules });
        if (!loaded.ok) throw fileError(`invalid reward modules: ${joinErrors(loaded.errors)}`);
        registry = loaded.set.registry;
      }
      if (f.rewards !== undefined) {
        const loaded = loadProfileFile(f.rewards, registry);
        if (!loaded.ok) throw fileError(`--rewards ${f.rewards}: invalid profile: ${joinErrors(loaded.errors)}`);
        profile = loaded.profile;
      }
      const report = calibrate(records, grades.grades, profile, registry, {
        thresholds: {
          min_agreement: f.minAgreement,
          max_false_negatives: f.maxFn,
          max_false_positives: f.maxFp,
          max_flawed_mean: f.maxFlawedMean,
          tolerance: f.tolerance,
        },
        rekey: f.recordedKeys !== true,
        base: { registry, ...harnessOption(f.harness) },
      });
      process.stdout.write(f.json ? JSON.stringify(report) + '\n' : formatCalibration(report, { all: f.all === true }) + '\n');
      if (report.failures.length > 0) {
        throw new CliError(EXIT.verdict, `the calibration of profile "${report.profile}" failed: ${report.failures.join('; ')} (details on stdout)`);
      }
    });
}
