/**
 * `harness-gym audit`: play the blind reward-hacking strategies (policies/blind.ts) against a reward
 * profile, beside the oracle and the memorizer, and fail (exit 1) when a strategy that never does the job
 * scores above the thresholds, when the oracle is not paid in full, or when the memorizer's drop under
 * augmentation is gone (eval/audit.ts; docs/REWARDS.md "Auditing a profile"). Run it before swapping a
 * reward module or a profile in.
 */
import type { Command } from 'commander';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { PRESET_NAMES } from '../../harness-variants/index.js';
import type { EnvConfig } from '../../env/index.js';
import { auditStrategies, formatAudit, runAudit } from '../../eval/index.js';
import { loadProfileFile, loadRewardSet } from '../../rewards/index.js';
import { collect, intArg, listArg, rateArg } from '../args.js';
import { CliError, EXIT, fileError, joinErrors } from '../errors.js';
import { harnessOption } from './harness.js';
import { addTaskOptions, checkTaskFlags } from '../task-args.js';
import type { TaskFlags } from '../task-args.js';
import { progressBar } from '../progress.js';

interface AuditFlags extends TaskFlags {
  rewards?: string;
  rewardModules: string[];
  harness?: string;
  presets: string[];
  episodes: number;
  seed: number;
  locales: Locale[];
  strategies?: string[];
  maxMean: number;
  maxP90: number;
  minGap: number;
  json?: boolean;
  list?: boolean;
}

/** Register `audit` on the program. */
export function registerAuditCommand(program: Command): void {
  const names = auditStrategies().map((s) => s.name);
  const cmd = program
    .command('audit')
    .description(
      'play blind reward-hacking strategies against a reward profile beside the oracle and the memorizer (exit 1 when one scores above the thresholds)',
    )
    .option('--rewards <file>', 'the reward profile to audit (JSON or YAML; default: the built-in default profile)')
    .option('--reward-modules <dir>', 'directory of custom reward modules the profile uses (repeatable)', collect, [])
    .option('--harness <dir>', 'the harness directory to audit in (default: the embedded harness)')
    .option('--presets <list>', `variant presets, comma-separated: ${PRESET_NAMES.join(', ')}`, listArg('--presets', PRESET_NAMES), [...PRESET_NAMES])
    .option('--episodes <n>', 'episodes per policy and preset', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'seed of the first episode (episode i uses seed + i, the same tasks for every policy)', intArg('--seed', 0, 0xffffffff), 1)
    .option('--locales <list>', `locales, comma-separated, taken in turn: ${LOCALES.join(', ')}`, listArg('--locales', LOCALES), [...LOCALES])
    .option('--strategies <list>', 'only these blind strategies, comma-separated (default: all; --list names them)', listArg('--strategies', names))
    .option('--max-mean <x>', 'a blind strategy fails above this mean reward, in [0, 1]', rateArg('--max-mean'), 0.15)
    .option('--max-p90 <x>', 'a blind strategy fails above this p90 reward, in [0, 1]', rateArg('--max-p90'), 0.5)
    .option('--min-gap <x>', "the memorizer's least drop from identity on an augmented preset, in [0, 1]", rateArg('--min-gap'), 0.4)
    .option('--json', 'print the report as one JSON line')
    .option('--list', 'list the blind strategies and what each does, and exit');
  addTaskOptions(cmd).action(async (f: AuditFlags) => {
      if (f.list) {
        const rows = auditStrategies();
        if (f.json) process.stdout.write(JSON.stringify(rows) + '\n');
        else process.stdout.write(rows.map((r) => `${r.name.padEnd(24)} ${r.description}`).join('\n') + '\n');
        return;
      }
      let config: Partial<EnvConfig> = { ...harnessOption(f.harness) };
      let profileName: string | undefined;
      if (f.rewards !== undefined || f.rewardModules.length > 0) {
        const loaded = await loadRewardSet({ profiles: f.rewards !== undefined ? [f.rewards] : [], module_dirs: f.rewardModules });
        if (!loaded.ok) throw fileError(`invalid reward profile or modules: ${joinErrors(loaded.errors)}`);
        if (f.rewards !== undefined) {
          const profile = loadProfileFile(f.rewards, loaded.set.registry);
          if (!profile.ok) throw fileError(`--rewards ${f.rewards}: invalid profile: ${joinErrors(profile.errors)}`);
          profileName = profile.profile.name;
        }
        config = { ...config, registry: loaded.set.registry, profiles: loaded.set.profiles };
      }
      checkTaskFlags(config, f, f.locales);
      const progress = progressBar('audit', 'episodes', f.json === true);
      const report = runAudit({
        onProgress: (done, total, reward) => progress.tick(done, total, reward),
        config,
        ...(profileName !== undefined ? { rewards: profileName } : {}),
        presets: f.presets,
        episodes: f.episodes,
        seed: f.seed,
        locales: f.locales,
        ...(f.strategies ? { strategies: f.strategies } : {}),
        taskSplit: f.taskSplit,
        ...(f.mix !== undefined ? { mix: f.mix.mix } : {}),
        maxMean: f.maxMean,
        maxP90: f.maxP90,
        minGap: f.minGap,
      });
      progress.stop();
      process.stdout.write(f.json ? JSON.stringify(report) + '\n' : formatAudit(report));
      if (report.failures.length > 0) {
        const more = report.failures.length > 1 ? ` (and ${report.failures.length - 1} more; details on stdout)` : ' (details on stdout)';
        throw new CliError(EXIT.verdict, `the reward audit of profile "${report.profile}" failed: ${report.failures[0]}${more}`);
      }
    });
}
