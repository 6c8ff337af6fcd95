/**
 * `harness-gym harness validate DIR` and `harness-gym harness diff OLD NEW` (docs/HARNESS.md): check a
 * harness directory the way `serve --harness` does, with every error at once, and say what changed between
 * two of them (a week's edit of a team's harness).
 */
import type { Command } from 'commander';
import { diffHarness, embeddedHarness, formatHarnessDiff, loadHarnessDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { JsonlTaskSource, loadHarnessTasks } from '../../env/index.js';
import type { TaskSource } from '../../env/index.js';
import { CliError, EXIT, fileError, joinErrors } from '../errors.js';

/** A harness directory; a broken one fails with its first errors (exit 4). */
export function loadHarnessFlag(dir: string, flag: string): HarnessSet {
  const loaded = loadHarnessDir(dir);
  if (!loaded.ok) throw fileError(`${flag} ${dir} is not a valid harness directory: ${joinErrors(loaded.errors)}`);
  const tasks = loadHarnessTasks(loaded.harness);
  if (!tasks.ok) throw fileError(`${flag} ${dir} is not a valid harness directory: ${joinErrors(tasks.errors)}`);
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
  if (!loaded.ok) throw fileError(`${flag}: ${joinErrors(loaded.errors)}`);
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
      const zh = h.get(h.locales[0]);
      const summary = {
        ok: true,
        ...h.identity,
        locales: h.locales,
        skills: zh.skills.length,
        tools: zh.tools.length,
        prompt_blocks: zh.prompt.blocks.length,
        hooks: zh.hooks.length,
      };
      process.stdout.write(
        opts.json
          ? JSON.stringify(summary) + '\n'
          : `ok: harness "${h.identity.name}" ${h.identity.version} (${h.identity.hash}): ${summary.skills} skills, ${summary.tools} tools, ${summary.prompt_blocks} prompt blocks, ${summary.hooks} hooks, locales ${h.locales.join(', ')}\n`,
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
}
