/**
 * `harness-gym replay`, `inspect`, `rescore` and `view`: the commands over recorded episodes
 * (docs/RECORDS.md). Warnings about files (a truncated tail) go to stderr; results to stdout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import {
  formatDivergence,
  formatEpisodeView,
  formatRescore,
  inspectRecord,
  packValue,
  readRecords,
  replayRecords,
  rescore,
  RECORD_FORMAT,
  RECORD_VERSION,
} from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { packageIdentity } from '../../protocol/package.js';
import { startViewer } from '../../recording/index.js';
import { defaultRegistry, loadProfileFile, loadRewardSet } from '../../rewards/index.js';
import type { RewardRegistry } from '../../rewards/index.js';
import { intArg } from '../args.js';

/** Collect a repeatable option's values. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * The reward registry to score with: the built-in modules plus custom modules from `--reward-modules`
 * directories (records scored by custom modules replay and rescore only with them). Null after an error.
 */
async function registryFor(dirs: string[], command: string): Promise<RewardRegistry | null> {
  if (dirs.length === 0) return defaultRegistry();
  const loaded = await loadRewardSet({ profiles: [], module_dirs: dirs });
  if (loaded.ok) return loaded.set.registry;
  process.stderr.write(`harness-gym ${command}: invalid reward modules\n${loaded.errors.map((e) => `  ${e}\n`).join('')}`);
  process.exitCode = 2;
  return null;
}

function load(path: string, command: string): LoadedRecord[] | null {
  const r = readRecords(path);
  if (!r.ok) {
    process.stderr.write(`harness-gym ${command}: ${r.message}\n`);
    process.exitCode = 2;
    return null;
  }
  for (const w of r.result.warnings) process.stderr.write(`warning: ${w}\n`);
  return r.result.records;
}

/** JSON that shows byte strings by length (a diff may hold raw bytes). */
function jsonReplacer(_k: string, v: unknown): unknown {
  return v instanceof Uint8Array ||
    (typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data))
    ? `<${(v as { length?: number }).length ?? (v as { data: unknown[] }).data.length} bytes>`
    : v;
}

/** Register the record commands on the program. */
export function registerRecordCommands(program: Command): void {
  program
    .command('replay')
    .description('re-run recorded episodes in-process and check every observation hash and reward')
    .argument('<path>', 'a record file or a directory of them')
    .option('--episode <id>', 'only this episode id')
    .option('--reward-modules <dir>', 'directory of custom reward modules the records were scored with (repeatable)', collect, [])
    .option('--json', 'print one JSON line')
    .action(async (path: string, opts: { episode?: string; rewardModules: string[]; json?: boolean }) => {
      const registry = await registryFor(opts.rewardModules, 'replay');
      if (!registry) return;
      const records = load(path, 'replay');
      if (!records) return;
      const summary = replayRecords(records, { episode: opts.episode, base: { registry } });
      const diverged = summary.results.filter((r) => !r.identical);
      if (opts.json) {
        const out: Record<string, unknown> = { episodes: summary.episodes, identical: summary.identical, diverged: summary.diverged };
        if (diverged.length > 0) {
          out.divergences = diverged.map((r) => ({ episode_id: r.episode_id, file: r.file, index: r.index, ...r.divergence }));
        }
        process.stdout.write(JSON.stringify(out, jsonReplacer) + '\n');
      } else {
        for (const r of diverged) process.stdout.write(formatDivergence(r) + '\n');
        process.stdout.write(`replayed ${summary.episodes} episodes: ${summary.identical} identical, ${summary.diverged} diverged\n`);
      }
      if (summary.diverged > 0 || (opts.episode !== undefined && summary.episodes === 0)) process.exitCode = 1;
    });

  program
    .command('inspect')
    .description('print recorded episodes as a person reads them (turns, tool calls, hooks, reward reasons)')
    .argument('<path>', 'a record file or a directory of them')
    .option('--episode <id>', 'only this episode id')
    .option('--json', 'print the episode views as JSON lines')
    .action((path: string, opts: { episode?: string; json?: boolean }) => {
      const records = load(path, 'inspect');
      if (!records) return;
      const chosen = records.filter((r) => opts.episode === undefined || r.record.episode_id === opts.episode);
      if (chosen.length === 0) {
        process.stderr.write(`harness-gym inspect: no episode${opts.episode !== undefined ? ` "${opts.episode}"` : ''} in ${path}\n`);
        process.exitCode = 1;
        return;
      }
      for (const r of chosen) {
        const view = inspectRecord(r.record);
        process.stdout.write(opts.json ? JSON.stringify(view) + '\n' : formatEpisodeView(view) + '\n');
      }
    });

  program
    .command('rescore')
    .description('recompute the rewards of recorded episodes with another reward profile')
    .argument('<path>', 'a record file or a directory of them')
    .requiredOption('--rewards <file>', 'reward profile (JSON or YAML)')
    .option('--reward-modules <dir>', 'directory of custom reward modules the profile uses (repeatable)', collect, [])
    .option('--json', 'print one JSON line')
    .option('--out <file>', 'write the re-scored records to this record file')
    .action(async (path: string, opts: { rewards: string; rewardModules: string[]; json?: boolean; out?: string }) => {
      const registry = await registryFor(opts.rewardModules, 'rescore');
      if (!registry) return;
      const profile = loadProfileFile(opts.rewards, registry);
      if (!profile.ok) {
        process.stderr.write(`harness-gym rescore: invalid profile\n${profile.errors.map((e) => `  ${e}\n`).join('')}`);
        process.exitCode = 2;
        return;
      }
      const records = load(path, 'rescore');
      if (!records) return;
      const { report, records: rescored } = rescore(records, profile.profile, registry);
      if (opts.out !== undefined) {
        const header = {
          type: 'header',
          format: RECORD_FORMAT,
          version: RECORD_VERSION,
          server_version: packageIdentity().version,
          created_by: 'rescore',
        };
        mkdirSync(dirname(opts.out), { recursive: true });
        writeFileSync(opts.out, Buffer.concat([packValue(header), ...rescored.map((r) => packValue(r))]));
      }
      process.stdout.write(opts.json ? JSON.stringify(report) + '\n' : formatRescore(report));
    });

  program
    .command('view')
    .description('serve a local web page to browse recorded episodes (127.0.0.1 only)')
    .argument('<dir>', 'a directory of record files (or one file)')
    .option('--port <n>', 'TCP port; 0 picks a free one', intArg('--port', 0, 65535), 8090)
    .action(async (dir: string, opts: { port: number }) => {
      const viewer = await startViewer({ path: dir, port: opts.port });
      for (const w of viewer.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(`harness-gym view: ${viewer.episodes} episodes at ${viewer.url}\n`);
      const stop = (): void => {
        viewer.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
}
