/**
 * The task flags of the commands that play episodes (`eval`, `rollout`, `audit`, `variants
 * show|report|sweep|sizes`, `mix`, and `serve`'s defaults): `--task-split train|eval|all`, which tasks
 * (independent of the variant's `--split`, which harness), and `--mix`, the intent mix of episodes that
 * name no intent (env/tasks/mix.ts). Checked as they are parsed: a bad value is one line and exit 2 (a
 * `--mix` file that cannot be read or holds a bad mix: exit 4).
 */
import { FILE_LIMITS, FileProblem, depthProblem, parseMessage, readText } from '../protocol/files.js';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { TASK_SPLITS, defaultEnvConfig, mixLabel, parseMix, parseMixText, taskDefaultProblems } from '../env/index.js';
import type { EnvConfig, IntentMix, TaskSplit, VariantSplit } from '../env/index.js';
import type { Locale } from '../protocol/domain.js';
import { INTENTS, isBuiltinIntent } from '../protocol/domain.js';
import { choiceOption } from './args.js';
import { fileError, usageError } from './errors.js';

/** A `--mix` as given: the normalised mix, and the weights as written (a server config takes those). */
export interface MixFlag {
  mix: IntentMix;
  weights: Record<string, unknown>;
}

/** The task flags as commander hands them over. */
export interface TaskFlags {
  taskSplit: TaskSplit;
  mix?: MixFlag;
  /** `--intent`, on the commands that have it: a built-in intent or one of the harness's own. */
  intent?: string;
}

const PAIRS_EXAMPLE = 'product_qa=0.5,chitchat=0.5';

/**
 * The parser of `--mix`: `intent=weight` pairs (`product_qa=0.5,chitchat=0.5`), `production`, or a JSON or
 * YAML file holding a map of intent to weight.
 */
export function mixArg(flag: string) {
  return (value: string): MixFlag => {
    const text = value.trim();
    if (text.includes('=') || text === 'production') {
      const parsed = parseMixText(text);
      if (!parsed.ok) throw usageError(`${flag} ${value}: ${parsed.message}`);
      const weights: Record<string, unknown> = {};
      if (text !== 'production') {
        for (const pair of text.split(',')) {
          const eq = pair.indexOf('=');
          if (eq > 0) weights[pair.slice(0, eq).trim()] = Number(pair.slice(eq + 1).trim());
        }
      } else {
        Object.assign(weights, parsed.mix);
      }
      return { mix: parsed.mix, weights };
    }
    let raw: string;
    try {
      raw = readText(text, { maxBytes: FILE_LIMITS.settings_bytes, what: 'a mix file' });
    } catch (e) {
      const why = e instanceof FileProblem ? (e.missing ? 'ENOENT' : e.reason) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
      throw fileError(`${flag} ${value}: cannot read it (${why}); give the weights as intent=weight pairs, e.g. ${PAIRS_EXAMPLE}, or a JSON or YAML file of them`);
    }
    let doc: unknown;
    try {
      doc = parseYaml(raw); // YAML reads JSON too
    } catch (e) {
      throw fileError(`${flag} ${value}: not JSON or YAML (${parseMessage(e)})`);
    }
    const deep = depthProblem(doc);
    if (deep !== null) throw fileError(`${flag} ${value}: ${deep}`);
    const parsed = parseMix(doc);
    if (!parsed.ok) throw fileError(`${flag} ${value}: ${parsed.message}`);
    return { mix: parsed.mix, weights: { ...(doc as Record<string, unknown>) } };
  };
}

/** Add `--task-split` (default train) and, unless `mix` is false, `--mix` to a command. */
export function addTaskOptions(cmd: Command, opts: { mix?: boolean } = {}): Command {
  cmd.addOption(
    choiceOption(
      '--task-split <split>',
      "tasks: train, the held-out eval (rooms and tasks training never sees), or all (each episode's split drawn from its seed); independent of the variant's --split, which holds the harness out (default train)",
      TASK_SPLITS,
    ).default('train'),
  );
  if (opts.mix !== false) {
    cmd.option(
      '--mix <weights|file>',
      `intent mix of episodes that name no intent: intent=weight pairs such as ${PAIRS_EXAMPLE}, production, or a JSON or YAML file of them (default: the production mix)`,
      mixArg('--mix'),
    );
  }
  return cmd;
}

/** How a summary names the tasks it played: `task split train` (and the mix when not the production one). */
export function tasksLabel(taskSplit: TaskSplit, mix?: IntentMix): string {
  const m = mixLabel(mix);
  return `task split ${taskSplit}${m === 'production' ? '' : `, mix ${m}`}`;
}

/** How a summary names what it played: `task split train, variant split eval` (and the mix when not production). */
export function axesLine(taskSplit: TaskSplit, variantSplit: VariantSplit, mix?: IntentMix): string {
  const harness = variantSplit === 'none' ? 'variant split none (the base harness)' : `variant split ${variantSplit}`;
  const m = mixLabel(mix);
  return `task split ${taskSplit}, ${harness}${m === 'production' ? '' : `, mix ${m}`}`;
}

/**
 * Check `--task-split` and `--mix` against the tasks a command plays (its harness and task files, in its
 * locales) before anything runs: a split the task files have no task of, or a mix of intents none of which
 * is served, is a usage error naming the flag and what to give instead, not a run of failed episodes.
 */
export function checkTaskFlags(config: Partial<EnvConfig>, f: TaskFlags, locales?: readonly Locale[]): void {
  const base = defaultEnvConfig(config);
  // `--intent` took any snake_case name as a harness's own (cli/args.ts intentArg): the harness must have it.
  const own: readonly string[] = base.harness.bindings.customIntents;
  if (f.intent !== undefined && !isBuiltinIntent(f.intent) && !own.includes(f.intent)) {
    throw usageError(`--intent ${f.intent}: harness "${base.harness.identity.name}" has no such intent (intents: ${[...INTENTS, ...own].join(', ')})`);
  }
  const env: EnvConfig = { ...base, defaults: { ...base.defaults, task_split: f.taskSplit, ...(f.mix !== undefined ? { task_mix: f.mix.mix } : {}) } };
  const problems = taskDefaultProblems(env, { split: true, ...(locales !== undefined ? { locales } : {}) });
  if (problems.length === 0) return;
  const first = (problems[0] as string)
    .replace(/^defaults\.task_split: (\w+), but/, '--task-split $1:')
    .replace(/give task split (\w+)$/, 'give --task-split $1')
    .replace(/^defaults\.task_mix: /, '--mix: ');
  throw usageError(`${first}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`);
}
