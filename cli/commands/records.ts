/**
 * `harness-gym replay`, `inspect`, `rescore` and `view`: the commands over recorded episodes
 * (docs/RECORDS.md). Warnings about files (a truncated tail) go to stderr; results to stdout. The input
 * path is checked the same way by all four (cli/files.ts): a missing one exits 4 with the same line.
 */
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import {
  formatDivergence,
  formatEpisodeView,
  formatRescore,
  inspectRecord,
  packValue,
  replayRecords,
  rescore,
  RECORD_FORMAT,
  RECORD_VERSION,
} from '../../recording/index.js';
import { packageIdentity } from '../../protocol/package.js';
import { startViewer } from '../../recording/index.js';
import type { EpisodeRecordV1, EpisodeReplay } from '../../recording/index.js';
import { harnessOption } from './harness.js';
import { profileFromFile, registryFor } from '../reward-args.js';
import { collect, intArg, intentListArg, numberArg } from '../args.js';
import { CliError, EXIT, fileError, listenFailure } from '../errors.js';
import { loadRecordInput, makeDirs } from '../files.js';


/** JSON that shows byte strings by length (a diff may hold raw bytes). */
function jsonReplacer(_k: string, v: unknown): unknown {
  return v instanceof Uint8Array ||
    (typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data))
    ? `<${(v as { length?: number }).length ?? (v as { data: unknown[] }).data.length} bytes>`
    : v;
}

/** No record matched `--episode`: the answer is no (exit 1). */
function noEpisode(id: string, path: string): CliError {
  return new CliError(EXIT.verdict, `no episode "${id}" in ${path}; harness-gym inspect ${path} --json lists the episode ids`);
}

/** Register the record commands on the program. */
export function registerRecordCommands(program: Command): void {
  program
    .command('replay')
    .description('re-run recorded episodes in-process and check every observation hash and the reward (exit 1 on a divergence)')
    .argument('<path>', 'a record file or a directory of them')
    .option('--episode <id>', 'only this episode id')
    .option('--reward-modules <dir>', 'directory of custom reward modules the records were scored with (repeatable)', collect, [])
    .option('--harness <dir>', 'the harness directory the records were made with (default: the embedded harness)')
    .option('--json', 'print one JSON line')
    .action(async (path: string, opts: { episode?: string; rewardModules: string[]; harness?: string; json?: boolean }) => {
      const records = loadRecordInput(path);
      const harness = harnessOption(opts.harness);
      const registry = await registryFor(opts.rewardModules);
      const summary = replayRecords(records, { episode: opts.episode, base: { registry, ...harness } });
      if (opts.episode !== undefined && summary.episodes === 0) throw noEpisode(opts.episode, path);
      const diverged = summary.results.filter((r) => !r.identical);
      if (opts.json) {
        const out: Record<string, unknown> = { episodes: summary.episodes, identical: summary.identical, diverged: summary.diverged };
        if (diverged.length > 0) {
          out.divergences = diverged.map((r) => ({ episode_id: r.episode_id, file: r.file, index: r.index, ...r.divergence }));
        }
        process.stdout.write(JSON.stringify(out, jsonReplacer) + '\n');
      } else {
        // Episodes that could not be rebuilt for one reason (another harness, a module not given) say it
        // once per file, not once per episode; other divergences are each their own story.
        const refused = new Map<string, EpisodeReplay[]>();
        for (const r of diverged) {
          if (r.divergence?.kind === 'create') {
            const key = `${r.file ?? path}\0${r.divergence.message}`;
            refused.set(key, [...(refused.get(key) ?? []), r]);
          } else process.stdout.write(formatDivergence(r) + '\n');
        }
        for (const group of refused.values()) {
          const first = group[0];
          const n = group.length;
          process.stdout.write(`${first.file ?? path}: ${n} episode${n === 1 ? '' : 's'} (${first.episode_id}${n > 1 ? ', …' : ''}) not replayed: ${first.divergence?.message}\n`);
        }
        process.stdout.write(`replayed ${summary.episodes} episodes: ${summary.identical} identical, ${summary.diverged} diverged\n`);
      }
      if (summary.diverged > 0) {
        // An episode that could not even be rebuilt says why (another harness, an unknown reward module).
        const first = diverged[0];
        const why = first?.divergence?.kind === 'create' ? first.divergence.message : 'the records were made by another version or config';
        throw new CliError(EXIT.verdict, `${summary.diverged} of ${summary.episodes} episodes diverged (first: ${first?.episode_id}); ${why}`);
      }
    });

  program
    .command('inspect')
    .description('print recorded episodes as a person reads them (turns, tool calls, hooks, reward reasons), after a summary of those chosen')
    .argument('<path>', 'a record file or a directory of them')
    .option('--episode <id>', 'only this episode id')
    .addOption(new Option('--intent <list>', 'only these intents (comma-separated)').argParser(intentListArg('--intent')))
    .option('--outcome <list>', 'only these outcomes (comma-separated, e.g. accepted,hook_blocked,max_turns)', (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean))
    .option('--min-reward <x>', 'only episodes whose reward is at least x', numberArg('--min-reward', 0, 1))
    .option('--max-reward <x>', 'only episodes whose reward is at most x', numberArg('--max-reward', 0, 1))
    .option('--variant <name>', 'only episodes of this variant label (identity, train, eval, spec, ...) or enabling this operator family')
    .option('--reason <text>', 'only episodes with a reward reason or cap containing this text (case aside)')
    .option('--summary', 'print only the summary of the chosen episodes')
    .option('--harness <dir>', 'the harness directory the records were made with (default: the embedded harness)')
    .option('--json', 'print the episode views as JSON lines (no summary)')
    .action((path: string, opts: InspectOptions) => {
      const records = loadRecordInput(path);
      const base = harnessOption(opts.harness);
      const chosen = records.filter((r) => inspectMatches(r.record, opts));
      if (opts.episode !== undefined && chosen.length === 0) throw noEpisode(opts.episode, path);
      if (!opts.json) process.stdout.write(inspectSummary(chosen.map((r) => r.record), records.length) + '\n');
      if (opts.summary) return;
      for (const r of chosen) {
        // The reader went away (`| head`): stop rendering; main.ts ends quietly on the EPIPE.
        if (process.stdout.destroyed) return;
        const view = inspectRecord(r.record, base);
        process.stdout.write(opts.json ? JSON.stringify(view) + '\n' : '\n' + formatEpisodeView(view) + '\n');
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
      const records = loadRecordInput(path);
      const registry = await registryFor(opts.rewardModules);
      const profile = profileFromFile(opts.rewards, registry);
      const { report, records: rescored } = rescore(records, profile, registry);
      if (opts.out !== undefined) {
        const header = {
          type: 'header',
          format: RECORD_FORMAT,
          version: RECORD_VERSION,
          server_version: packageIdentity().version,
          created_by: 'rescore',
        };
        try {
          makeDirs(dirname(opts.out));
          writeFileSync(opts.out, Buffer.concat([packValue(header), ...rescored.map((r) => packValue(r))]));
        } catch (e) {
          throw fileError(`--out ${opts.out}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      }
      process.stdout.write(opts.json ? JSON.stringify(report) + '\n' : formatRescore(report));
    });

  program
    .command('view')
    .description('serve a local web page to browse recorded episodes, or compare two runs (127.0.0.1 only)')
    .argument('<dir>', 'a directory of record files (or one file)')
    .argument('[dir2]', 'a second run to compare with (the same as --compare)')
    .option('--compare <dir2>', 'compare with this run: the same seeds and variants side by side (reward deltas per component, intent and variant family, the episodes that moved most and their reason diffs)')
    .option('--port <n>', 'TCP port in [0, 65535]; 0 picks a free one (default 8090)', intArg('--port', 0, 65535), 8090)
    .action(async (dir: string, dir2: string | undefined, opts: { port: number; compare?: string }) => {
      if (dir2 !== undefined && opts.compare !== undefined && dir2 !== opts.compare) {
        throw new CliError(EXIT.usage, `two runs to compare with (${dir2} and --compare ${opts.compare}); give one`);
      }
      const compare = opts.compare ?? dir2;
      // startViewer refuses a path without records in the words loadRecordInput uses: the same line and
      // the same code as the other record commands.
      let viewer;
      try {
        viewer = await startViewer({ path: dir, port: opts.port, ...(compare !== undefined ? { compare } : {}) });
      } catch (e) {
        throw listenFailure(e, '127.0.0.1', opts.port) ?? fileError((e as Error).message);
      }
      for (const w of viewer.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(
        compare === undefined
          ? `harness-gym view: ${viewer.episodes} episodes at ${viewer.url}\n`
          : `harness-gym view: ${viewer.episodes} episodes at ${viewer.url}, compared with ${compare} at ${viewer.url}/#/compare\n`,
      );
      const stop = (): void => {
        viewer.close().then(
          () => process.exit(EXIT.ok),
          () => process.exit(EXIT.internal),
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
}

/** `inspect`'s options. */
interface InspectOptions {
  episode?: string;
  intent?: string[];
  outcome?: string[];
  minReward?: number;
  maxReward?: number;
  variant?: string;
  reason?: string;
  summary?: boolean;
  harness?: string;
  json?: boolean;
}

/** Whether a record passes every filter given. */
function inspectMatches(rec: EpisodeRecordV1, o: InspectOptions): boolean {
  const s = rec.summary;
  if (o.episode !== undefined && rec.episode_id !== o.episode) return false;
  if (o.intent !== undefined && !o.intent.includes(s.intent)) return false;
  if (o.outcome !== undefined && !o.outcome.includes(s.outcome)) return false;
  if (o.minReward !== undefined && s.reward < o.minReward) return false;
  if (o.maxReward !== undefined && s.reward > o.maxReward) return false;
  if (o.variant !== undefined && s.variant_label !== o.variant && !s.variant_families.includes(o.variant)) return false;
  if (o.reason !== undefined) {
    const needle = o.reason.toLowerCase();
    const texts = [...Object.values(rec.reward.details).flatMap((d) => d.reasons), ...(rec.reward.caps ?? [])];
    if (!texts.some((t) => t.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** Counts of a field's values, most frequent first (ties by name): `accepted 10, refused 2`. */
function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** The summary header of `inspect`: how many episodes were chosen, their rewards, outcomes and intents. */
function inspectSummary(chosen: readonly EpisodeRecordV1[], total: number): string {
  const of = chosen.length === total ? `${total} episode${total === 1 ? '' : 's'}` : `${chosen.length} of ${total} episodes`;
  if (chosen.length === 0) return `${of} (no episode matches the filters)`;
  const rewards = chosen.map((r) => r.summary.reward).sort((a, b) => a - b);
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const median = rewards[Math.floor((rewards.length - 1) / 2)];
  const capped = chosen.filter((r) => (r.reward.caps ?? []).length > 0).length;
  return [
    `${of}: reward mean ${mean.toFixed(4)}, median ${median.toFixed(4)}, min ${rewards[0].toFixed(4)}, max ${rewards[rewards.length - 1].toFixed(4)}${capped > 0 ? `; ${capped} capped by a gate` : ''}`,
    `  outcomes: ${tally(chosen.map((r) => r.summary.outcome))}`,
    `  intents:  ${tally(chosen.map((r) => r.summary.intent))}`,
    `  variants: ${tally(chosen.map((r) => r.summary.variant_label))}`,
  ].join('\n');
}
