/**
 * `harness-gym harness validate DIR` and `harness-gym harness diff OLD NEW` (docs/HARNESS.md): check a
 * harness directory the way `serve --harness` does, with every error at once, and say what changed between
 * two of them (a week's edit of a team's harness).
 */
import type { Command } from 'commander';
import { diffHarness, embeddedHarness, formatHarnessDiff, loadHarnessDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { GeneratorTaskSource, JsonlTaskSource, loadHarnessTasks } from '../../env/index.js';
import type { TaskSource } from '../../env/index.js';
import { CliError, EXIT, fileError, joinErrors, usageError } from '../errors.js';
import { harnessLabel } from '../../harness/index.js';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { PRESETS } from '../../harness-variants/index.js';
import { memorizerFor, oraclePolicy } from '../../policies/index.js';
import type { Policy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { choiceOption, intArg } from '../args.js';

/** A harness directory; a broken one fails with its first errors (exit 4). */
export function loadHarnessFlag(dir: string, flag: string): HarnessSet {
  const loaded = loadHarnessDir(dir);
  if (!loaded.ok) throw fileError(`${flag} ${dir} is not a valid harness directory: ${joinErrors(loaded.errors)}`);
  const tasks = loadHarnessTasks(loaded.harness);
  if (!tasks.ok) throw fileError(`${flag} ${dir} is not a valid harness directory: ${joinErrors(tasks.errors, 4, tasks.more)}`);
  return loaded.harness;
}

/** `harness validate|diff` arguments: a directory, or `embedded` for the embedded harness. */
function harnessArg(dir: string, flag: string): HarnessSet {
  return dir === 'embedded' ? embeddedHarness() : loadHarnessFlag(dir, flag);
}

/** The `config` part for a `--harness DIR` flag: nothing when absent (the embedded harness). */
export function harnessOption(dir: string | undefined, flag = '--harness'): { harness?: HarnessSet } {
  return dir === undefined ? {} : { harness: loadHarnessFlag(dir, flag) };
}

/** The `config` part for task files (`--tasks FILE`), checked against the harness; nothing when none. */
export function tasksOption(files: readonly string[] | undefined, harness: HarnessSet, flag = '--tasks'): { taskSource?: TaskSource } {
  if (files === undefined || files.length === 0) return {};
  // Skill and tool names and the limits are the same in every locale of a harness.
  const loaded = JsonlTaskSource.fromFiles(files, harness.get(harness.locales[0]));
  if (!loaded.ok) throw fileError(`${flag}: ${joinErrors(loaded.errors, 4, loaded.more)}`);
  return { taskSource: loaded.source };
}

/** Register `harness validate` and `harness diff` on the program. */
export function registerHarnessCommands(program: Command): void {
  const harness = program.command('harness').description('check a harness directory, and compare two (docs/HARNESS.md)');
  harness
    .command('validate')
    .description('load a harness directory as serve --harness would and list every error (exit 4 if any)')
    .argument('<dir>', 'the harness directory (or "embedded")')
    .option('--json', 'print one JSON line')
    .action((dir: string, opts: { json?: boolean }) => {
      const loaded = dir === 'embedded' ? { ok: true as const, harness: embeddedHarness() } : loadHarnessDir(dir);
      if (!loaded.ok) {
        if (opts.json) process.stdout.write(JSON.stringify({ ok: false, errors: loaded.errors }) + '\n');
        else process.stdout.write(loaded.errors.map((e) => `${e}\n`).join(''));
        throw fileError(`${dir} is not a valid harness: ${loaded.errors.length} error${loaded.errors.length === 1 ? '' : 's'} (listed on stdout)`);
      }
      const h = loaded.harness;
      const tasks = loadHarnessTasks(h);
      if (!tasks.ok) {
        const count = tasks.errors.length + tasks.more;
        if (opts.json) process.stdout.write(JSON.stringify({ ok: false, errors: tasks.errors, unlisted: tasks.more }) + '\n');
        else process.stdout.write(tasks.errors.map((e) => `${e}\n`).join('') + (tasks.more > 0 ? `and ${tasks.more} more (the first ${tasks.errors.length} are listed)\n` : ''));
        throw fileError(`${dir} is not a valid harness: ${count} error${count === 1 ? '' : 's'} (listed on stdout)`);
      }
      const zh = h.get(h.locales[0]);
      // What the task source serves (the intents a reset can name, in some locale and split), not what
      // harness.yaml binds: a bound intent with no generated task fitting the harness's tools is not served.
      const source = new GeneratorTaskSource(h);
      const servedSet = new Set(h.locales.flatMap((l) => (['train', 'eval'] as const).flatMap((split) => source.served(l, split))));
      const bound = [...h.bindings.intents.keys()];
      const served = bound.filter((i) => servedSet.has(i));
      const notServed = bound
        .filter((i) => !servedSet.has(i))
        .map((intent) => ({
          intent,
          reason: h.bindings.intents.get(intent)?.generate === false ? 'no task of its task files' : h.intentModules.has(intent) || !h.bindings.customIntents.includes(intent) ? "no generated task fits the harness's tools" : 'no intent module',
        }));
      const summary = {
        ok: true,
        ...h.identity,
        locales: h.locales,
        skills: zh.skills.length,
        tools: zh.tools.length,
        prompt_blocks: zh.prompt.blocks.length,
        hooks: zh.hooks.length,
        intents: served,
        not_served: notServed,
        tasks: tasks.source?.size ?? 0,
      };
      process.stdout.write(
        opts.json
          ? JSON.stringify(summary) + '\n'
          : `ok: harness "${h.identity.name}" ${h.identity.version} (${h.identity.hash}): ${summary.skills} skills, ${summary.tools} tools, ${summary.prompt_blocks} prompt blocks, ${summary.hooks} hooks, ${served.length} intents served${notServed.length > 0 ? ` (not served: ${notServed.map((n) => `${n.intent} — ${n.reason}`).join('; ')})` : ''}, ${summary.tasks} tasks in task files, locales ${h.locales.join(', ')}\n`,
      );
    });
  harness
    .command('diff')
    .description('what changed from one harness to another: skills, tools, parameters, hooks, prompt blocks, retry policy, limits (exit 1 if anything did)')
    .argument('<old>', 'the harness before (a directory, or "embedded")')
    .argument('<new>', 'the harness after')
    .option('--json', 'print the changes as one JSON line')
    .action((oldDir: string, newDir: string, opts: { json?: boolean }) => {
      const before = harnessArg(oldDir, '<old>');
      const after = harnessArg(newDir, '<new>');
      const changes = diffHarness(before, after);
      if (opts.json) process.stdout.write(JSON.stringify({ old: before.identity, new: after.identity, changes }) + '\n');
      else if (changes.length > 0) process.stdout.write(formatHarnessDiff(changes) + '\n');
      if (changes.length > 0) {
        throw new CliError(EXIT.verdict, `${changes.length} change${changes.length === 1 ? '' : 's'} from "${before.identity.name}" ${before.identity.version} to "${after.identity.name}" ${after.identity.version}`);
      }
    });
  harness
    .command('cost')
    .description(
      'what an edit costs a model that memorised the old harness: the memorizer fitted to OLD played in OLD (identity) and in NEW (identity and HSA presets), beside the oracle in NEW',
    )
    .argument('<old>', 'the harness the memorizer is fitted to (a directory, or "embedded")')
    .argument('<new>', 'the edited harness')
    .option('--presets <list>', 'presets played in NEW, comma-separated', (v: string) => v.split(',').filter(Boolean), ['identity', 'train', 'eval'])
    .option('--episodes <n>', 'episodes per row', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'first seed', intArg('--seed', 0, 0xffffffff), 1)
    .addOption(choiceOption('--locale <locale>', 'language', [...LOCALES]).default('zh-CN'))
    .option('--json', 'print one JSON line')
    .action((oldDir: string, newDir: string, opts: { presets: string[]; episodes: number; seed: number; locale: Locale; json?: boolean }) => {
      const before = harnessArg(oldDir, '<old>');
      const after = harnessArg(newDir, '<new>');
      for (const p of opts.presets) if (!Object.hasOwn(PRESETS, p)) throw usageError(`--presets: unknown preset "${p}" (presets: ${Object.keys(PRESETS).join(', ')})`);
      const memorizer = memorizerFor(before);
      const run = (policy: Policy, harness: HarnessSet, variant: string) =>
        evaluate({ policy, episodes: opts.episodes, seed: opts.seed, variant, locale: opts.locale, config: { harness } }).reward.mean;
      const oldIdentity = run(memorizer, before, 'identity');
      const rows = opts.presets.map((preset) => ({ harness: 'new', preset, memorizer: run(memorizer, after, preset), oracle: run(oraclePolicy, after, preset) }));
      const identityRow = rows.find((r) => r.preset === 'identity');
      const result = {
        old: before.identity,
        new: after.identity,
        episodes: opts.episodes,
        seed: opts.seed,
        locale: opts.locale,
        memorizer_old_identity: oldIdentity,
        rows,
        ...(identityRow ? { edit_cost: Math.round((oldIdentity - identityRow.memorizer) * 1e4) / 1e4 } : {}),
      };
      if (opts.json) {
        process.stdout.write(JSON.stringify(result) + '\n');
        return;
      }
      const lines = [
        `memorizer fitted to ${harnessLabel(before.identity)}, played in ${harnessLabel(after.identity)} (${opts.episodes} episodes from seed ${opts.seed}, ${opts.locale})`,
        'harness  preset     memorizer  oracle',
        `old      identity   ${oldIdentity.toFixed(4).padStart(9)}`,
        ...rows.map((r) => `new      ${r.preset.padEnd(9)}  ${r.memorizer.toFixed(4).padStart(9)}  ${r.oracle.toFixed(4)}`),
      ];
      if (result.edit_cost !== undefined) lines.push(`the edit costs the memorizer ${result.edit_cost.toFixed(4)} on identity`);
      lines.push(
        "how: the memorizer keeps OLD's tool and skill names and finds the room's facts in the prompt by OLD's headers and template lines; the edit cost is its OLD identity mean minus its NEW identity mean, same seeds",
      );
      process.stdout.write(lines.join('\n') + '\n');
    });
}
