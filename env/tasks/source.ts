/**
 * Task sources: where an episode's task comes from. A `TaskSource` is a minimal swappable contract
 * (CONTRIBUTING.md "Adding a task source or a parser"): the seeded generator, or a JSONL file of hand-written / recorded tasks.
 * Errors are data: an unknown id or an invalid selector is a typed value, never a throw.
 */
import type { Harness } from '../../protocol/harness.js';
import type { Intent, Locale, Split, Task } from '../../protocol/domain.js';
import { CUSTOM_INTENT_RE, INTENTS, isBuiltinIntent } from '../../protocol/domain.js';
import { generateTask, parseGeneratedTaskId } from './generate.js';
import { generateFor, generatedIntents } from './harness-tasks.js';
import { isProductionMix, mixIntent, mixShares } from './mix.js';
import type { IntentMix } from './mix.js';
import { HarnessDataError, embeddedHarness, harnessSetOf } from '../../harness/index.js';
import { harnessTaskProblems } from './harness-check.js';
import { checkIntentModules, harnessMix } from './custom-intents.js';
import type { HarnessSet } from '../../harness/index.js';
import { TaskSchema } from './schema.js';
import { FILE_LIMITS, FileProblem, depthProblem, readLines } from '../../protocol/files.js';
import type { Line } from '../../protocol/files.js';

/** How many problems of a task load are listed; the rest are counted (`more`). */
export const MAX_LISTED_ERRORS = 100;

/** After this many problems a task file is not checked further (a file of a million bad lines is read no further). */
export const MAX_CHECKED_ERRORS = 1000;

/** How task files are read: a line at a time, within the task-file limits. */
const TASK_FILE_READ = { maxBytes: FILE_LIMITS.task_file_bytes, maxLineBytes: FILE_LIMITS.task_line_bytes, what: 'a task file' } as const;

/** Problems of a load: the first `MAX_LISTED_ERRORS` kept, every one counted. */
class ErrorList {
  readonly list: JsonlError[] = [];
  count = 0;
  add(e: JsonlError): void {
    this.count++;
    if (this.list.length < MAX_LISTED_ERRORS) this.list.push(e);
  }
  /** Whether checking should stop (`MAX_CHECKED_ERRORS` reached). */
  get full(): boolean {
    return this.count >= MAX_CHECKED_ERRORS;
  }
  /** The last entry, listed whatever the count: where checking stopped. */
  stop(e: JsonlError): void {
    this.count++;
    this.list.push(e);
  }
  get more(): number {
    return this.count - this.list.length;
  }
}

/** Listed problems on one line, and how many more there were. */
export function listErrors(errors: readonly string[], more: number): string {
  return more > 0 ? `${errors.join('; ')}; and ${more} more` : errors.join('; ');
}

/** The lines of a text, numbered from 1. */
function* textLines(text: string): Generator<Line> {
  let line = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    line++;
    yield { line, text: text.slice(start, end).replace(/\r$/, '') };
    if (nl < 0) return;
    start = nl + 1;
  }
}

/** Which task to pick: a specific id, or any task of an intent and split. */
export interface TaskSelector {
  id?: string;
  intent?: Intent;
  split?: Split;
  /**
   * The intent mix a selector without `intent` draws its intent with (env/tasks/mix.ts `mixIntent`, among
   * the intents the source serves in the locale and split); absent: the source's own choice (the
   * generator draws with the production mix, a task file takes the seed-th matching task of any intent).
   */
  mix?: IntentMix;
}

/** A picked task, or why none could be picked. */
export type TaskPick = { ok: true; task: Task } | { ok: false; code: 'UNKNOWN_TASK' | 'INVALID_MESSAGE'; message: string };

/** A source of tasks. `pick` is deterministic in its arguments. */
export interface TaskSource {
  readonly name: string;
  pick(seed: number, selector: TaskSelector, locale: Locale): TaskPick;
  /** The intents it serves in a locale and split (start-up checks of a mix and a split use it). */
  served?(locale: Locale, split: Split): readonly Intent[];
}

/** Why a mix gave no intent: the mix's intents and those served. */
function mixMisses(mix: IntentMix, what: string, served: readonly Intent[]): string {
  return `the task mix gives weight only to ${Object.keys(mixShares(mix)).join(', ')}, and ${what} serves none of them (it serves ${served.join(', ') || 'none'})`;
}

/** Check a selector that came off the wire (intent and split are free strings there). */
function checkSelector(selector: TaskSelector): TaskPick | null {
  // A name that could be a harness's own intent passes here; whether the source serves it is checked by the source.
  if (selector.intent !== undefined && !isBuiltinIntent(selector.intent) && !(typeof selector.intent === 'string' && CUSTOM_INTENT_RE.test(selector.intent))) {
    return {
      ok: false,
      code: 'INVALID_MESSAGE',
      message: `unknown intent "${String(selector.intent)}"; expected one of ${INTENTS.join(', ')}, or an intent of the harness's own`,
    };
  }
  if (selector.split !== undefined && selector.split !== 'train' && selector.split !== 'eval') {
    return { ok: false, code: 'INVALID_MESSAGE', message: `unknown split "${String(selector.split)}"; expected train or eval` };
  }
  return null;
}

/** An intent that is neither built-in nor one of `own` (the source's own intents): INVALID_MESSAGE, as before they existed. */
function unknownIntent(selector: TaskSelector, own: readonly Intent[]): TaskPick | null {
  const i = selector.intent;
  if (i === undefined || isBuiltinIntent(i) || own.includes(i)) return null;
  return { ok: false, code: 'INVALID_MESSAGE', message: `unknown intent "${i}"; expected one of ${[...INTENTS, ...own].join(', ')}` };
}

/**
 * Tasks from the seeded generator, in a harness's names (env/tasks/harness-tasks.ts): infinite, and any
 * generated task can be regenerated from its id. Intents the harness binds with `generate: false` are
 * drawn from the harness's own task files (`tasks/*.jsonl`). A reset without an intent samples one with
 * the production mix over the intents the harness serves.
 */
export class GeneratorTaskSource implements TaskSource {
  readonly name = 'generator';
  readonly #set: HarnessSet;
  readonly #files: JsonlTaskSource | undefined;
  /** The production mix with the harness's own intents' weights; undefined when it has none. */
  readonly #customMix: IntentMix | undefined;

  constructor(set: HarnessSet = embeddedHarness()) {
    this.#set = set;
    this.#customMix = harnessMix(set);
    const loaded = loadHarnessTasks(set);
    if (!loaded.ok) throw new HarnessDataError('tasks', '(files)', listErrors(loaded.errors, loaded.more));
    this.#files = loaded.source;
  }

  /** The intents served in a locale and split: generated ones, then those of the harness's task files. */
  served(locale: Locale, split: Split): Intent[] {
    const generated = generatedIntents(this.#set, locale, split);
    const files = this.#files;
    const builtin = INTENTS.filter(
      (i) =>
        generated.includes(i) ||
        (files !== undefined && this.#set.bindings.intents.get(i)?.generate === false && files.tasks().some((t) => t.intent === i && t.locale === locale && t.split === split)),
    );
    // The harness's own intents after the built-in ones, in harness.yaml order.
    return [...builtin, ...generated.filter((i) => !isBuiltinIntent(i))];
  }

  pick(seed: number, selector: TaskSelector, locale: Locale): TaskPick {
    const bad = checkSelector(selector) ?? unknownIntent(selector, this.#set.bindings.customIntents);
    if (bad) return bad;
    const label = `harness "${this.#set.identity.name}"`;
    if (selector.id !== undefined) {
      const ref = parseGeneratedTaskId(selector.id);
      if (!ref) {
        if (this.#files) {
          const hit = this.#files.pick(seed, { id: selector.id }, locale);
          if (hit.ok) return hit;
        }
        return {
          ok: false,
          code: 'UNKNOWN_TASK',
          message: `"${selector.id}" is not a generated task id (gen-<split>-<locale>-<seed>-<intent>)${this.#files ? ` nor a task of ${label}'s task files` : ''}`,
        };
      }
      const task = generateFor(this.#set, ref.seed, ref.locale, ref.intent, ref.split);
      if (!task) return { ok: false, code: 'UNKNOWN_TASK', message: `${label} serves no generated ${ref.intent} task (see its intents: in harness.yaml)` };
      return { ok: true, task };
    }
    if (!Number.isSafeInteger(seed)) return { ok: false, code: 'INVALID_MESSAGE', message: `seed must be an integer, got ${seed}` };
    const split = selector.split ?? 'train';
    // The production mix of a harness with intents of its own gives them their weights (withCustomWeights).
    const mix = selector.intent === undefined ? (!isProductionMix(selector.mix) ? selector.mix : this.#customMix) : undefined;
    if (this.#set.bindings.identity && this.#files === undefined && mix === undefined) {
      return { ok: true, task: generateTask(seed, locale, { intent: selector.intent, split }) };
    }
    const served = this.served(locale, split);
    const intent = selector.intent ?? mixIntent(seed, served, mix);
    if (intent === undefined) {
      const where = `${label} in locale ${locale}, split ${split}`;
      return { ok: false, code: 'UNKNOWN_TASK', message: mix !== undefined && served.length > 0 ? mixMisses(mix, where, served) : `${label} serves no intent in locale ${locale}, split ${split}` };
    }
    if (!served.includes(intent)) {
      return { ok: false, code: 'UNKNOWN_TASK', message: `${label} does not serve intent ${intent} in locale ${locale}, split ${split} (it serves ${served.join(', ') || 'none'})` };
    }
    if (generatedIntents(this.#set, locale, split).includes(intent)) {
      const task = generateFor(this.#set, seed, locale, intent, split);
      if (task) return { ok: true, task };
      return { ok: false, code: 'UNKNOWN_TASK', message: `${label}: no generated ${intent} task of seed ${seed} fits the harness` };
    }
    return (this.#files as JsonlTaskSource).pick(seed, { intent, split }, locale);
  }
}

const harnessTasksMemo = new WeakMap<HarnessSet, { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[]; more: number }>();

/**
 * The task files of a harness directory (`tasks/*.jsonl`), validated against the harness, and the intents
 * bound with `generate: false` checked to have tasks. Memoised per harness.
 */
export function loadHarnessTasks(set: HarnessSet): { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[]; more: number } {
  const hit = harnessTasksMemo.get(set);
  if (hit) return hit;
  let out: { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[]; more: number };
  const fileOnly = [...set.bindings.intents].filter(([, b]) => !b.generate).map(([i]) => i);
  if (set.taskFiles.length === 0) {
    out =
      fileOnly.length === 0
        ? { ok: true }
        : { ok: false, errors: fileOnly.map((i) => `harness.yaml: intents.${i}: generate: false, but the harness has no task files (tasks/*.jsonl) to serve it`), more: 0 };
  } else {
    const loaded = JsonlTaskSource.fromFiles(set.taskFiles, set.get(set.locales[0]));
    if (!loaded.ok) out = { ok: false, errors: loaded.errors.map((e) => e.replace(`${set.dir}/`, '')), more: loaded.more };
    else {
      const errors = fileOnly
        .filter((i) => !loaded.source.tasks().some((t) => t.intent === i))
        .map((i) => `harness.yaml: intents.${i}: generate: false, but no task of tasks/*.jsonl has intent ${i}`);
      out = errors.length > 0 ? { ok: false, errors, more: 0 } : { ok: true, source: loaded.source };
    }
  }
  // The harness's own intents: each module must make valid tasks for the first seeds (its file named).
  const trial = checkIntentModules(set);
  if (trial.length > 0) out = out.ok ? { ok: false, errors: trial, more: 0 } : { ok: false, errors: [...out.errors, ...trial], more: out.more };
  harnessTasksMemo.set(set, out);
  return out;
}

/** A line-numbered validation error of a JSONL task file. */
export interface JsonlError {
  line: number;
  message: string;
}

/** The result of loading a JSONL task file; `more` counts the problems past the listed ones. */
export type JsonlLoad = { ok: true; source: JsonlTaskSource } | { ok: false; errors: JsonlError[]; more: number };

/** "answer_key.required_facts.0.values: Too small..." — the key path first, so the author finds it. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(task)' : path.map((p) => String(p)).join('.');
}

/**
 * Tasks from a JSONL file: one Task JSON per non-blank line. Picks by id, or the `(seed mod count)`-th
 * task among those matching the selector's intent and split and the requested locale.
 */
export class JsonlTaskSource implements TaskSource {
  readonly name: string;
  readonly #tasks: readonly Task[];
  readonly #byId: ReadonlyMap<string, Task>;

  private constructor(origin: string, tasks: Task[]) {
    this.name = `jsonl:${origin}`;
    this.#tasks = tasks;
    this.#byId = new Map(tasks.map((t) => [t.id, t]));
  }

  /**
   * Parse and validate task lines (numbered from 1), appending each valid task to `tasks` with its line
   * and each problem to `errors` (the first `MAX_LISTED_ERRORS`, then only counted). Stops, with an
   * error, when `tasks` would pass `FILE_LIMITS.max_tasks`. A line's JSON is checked for depth before the
   * schema walks it.
   */
  static #parseLines(lines: Iterable<Line>, tasks: { task: Task; line: number }[], errors: ErrorList, seen: Map<string, number>): void {
    for (const l of lines) {
      const line = l.line;
      if (errors.full) {
        errors.stop({ line, message: `line ${line}: not checked, nor the lines after it: checking stops after ${MAX_CHECKED_ERRORS} problems (fix these and run again)` });
        return;
      }
      if ('problem' in l) {
        errors.add({ line, message: `line ${line}: ${l.problem}` });
        continue;
      }
      const raw = l.text.trim();
      if (raw === '') continue;
      if (tasks.length >= FILE_LIMITS.max_tasks) {
        errors.add({ line, message: `line ${line}: more than ${FILE_LIMITS.max_tasks.toLocaleString('en-US')} tasks (the most one server loads): split the task set` });
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (e) {
        errors.add({ line, message: `line ${line}: invalid JSON (${(e as Error).message})` });
        continue;
      }
      const deep = depthProblem(json);
      if (deep !== null) {
        errors.add({ line, message: `line ${line}: ${deep}` });
        continue;
      }
      const parsed = TaskSchema.safeParse(json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) errors.add({ line, message: `line ${line}: ${issuePath(issue.path)}: ${issue.message}` });
        continue;
      }
      const prev = seen.get(parsed.data.id);
      if (prev !== undefined) {
        errors.add({ line, message: `line ${line}: id: duplicate task id "${parsed.data.id}" (first on line ${prev})` });
        continue;
      }
      seen.set(parsed.data.id, line);
      tasks.push({ task: parsed.data, line });
    }
  }

  /**
   * Parse and validate JSONL text. Every bad line is reported (line numbers are 1-based), up to
   * `MAX_LISTED_ERRORS`; `more` counts the rest.
   */
  static parse(text: string, origin: string): JsonlLoad {
    const errors = new ErrorList();
    const tasks: { task: Task; line: number }[] = [];
    JsonlTaskSource.#parseLines(textLines(text), tasks, errors, new Map());
    if (errors.count > 0) return { ok: false, errors: errors.list, more: errors.more };
    if (tasks.length === 0) return { ok: false, errors: [{ line: 0, message: `${origin}: no tasks` }], more: 0 };
    return { ok: true, source: new JsonlTaskSource(origin, tasks.map((t) => t.task)) };
  }

  /**
   * Read and parse a JSONL file a line at a time (protocol/files.ts `readLines`: a regular file of at most
   * `FILE_LIMITS.task_file_bytes`, lines of at most `task_line_bytes`, UTF-8); a problem of the file
   * itself is reported on line 0.
   */
  static fromFile(path: string): JsonlLoad {
    const errors = new ErrorList();
    const tasks: { task: Task; line: number }[] = [];
    try {
      JsonlTaskSource.#parseLines(readLines(path, TASK_FILE_READ), tasks, errors, new Map());
    } catch (e) {
      return { ok: false, errors: [{ line: 0, message: e instanceof FileProblem ? e.message : `${path}: ${(e as Error).message}` }], more: 0 };
    }
    if (errors.count > 0) return { ok: false, errors: errors.list, more: errors.more };
    if (tasks.length === 0) return { ok: false, errors: [{ line: 0, message: `${path}: no tasks` }], more: 0 };
    return { ok: true, source: new JsonlTaskSource(path, tasks.map((t) => t.task)) };
  }

  /**
   * Read task files (`serve --tasks FILE`, repeatable) into one source, each task checked against the
   * harness it will be played in: the skills and tools its answer key names must be the harness's, and its
   * reference reply must fit the harness's reply limit. Every error is reported, as `file:line: key: what`,
   * up to `MAX_LISTED_ERRORS` (`more` counts the rest); the files are read a line at a time, at most
   * `FILE_LIMITS.max_tasks` tasks in all.
   */
  static fromFiles(paths: readonly string[], harness: Harness): { ok: true; source: JsonlTaskSource } | { ok: false; errors: string[]; more: number } {
    const errors = new ErrorList();
    const all: Task[] = [];
    const firstSeen = new Map<string, string>();
    const intents = new Set(harnessSetOf(harness).bindings.customIntents);
    const say = (message: string): void => errors.add({ line: 0, message });
    for (const path of paths) {
      const fileErrors = new ErrorList();
      const tasks: { task: Task; line: number }[] = [];
      try {
        JsonlTaskSource.#parseLines(readLines(path, TASK_FILE_READ), tasks, fileErrors, new Map());
      } catch (e) {
        say(e instanceof FileProblem ? e.message : `${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        continue;
      }
      if (fileErrors.count > 0) {
        for (const e of fileErrors.list) say(`${path}:${e.line}: ${e.message.replace(/^line \d+: /, '')}`);
        errors.count += fileErrors.more;
        continue;
      }
      if (tasks.length === 0) {
        say(`${path}: no tasks`);
        continue;
      }
      if (all.length + tasks.length > FILE_LIMITS.max_tasks) {
        say(`${path}: more than ${FILE_LIMITS.max_tasks.toLocaleString('en-US')} tasks in the task files together (the most one server loads): split the task set`);
        break;
      }
      for (const { task, line } of tasks) {
        const at = `${path}:${line}`;
        const prior = firstSeen.get(task.id);
        if (prior !== undefined) {
          say(`${at}: id: duplicate task id "${task.id}" (first at ${prior})`);
          continue;
        }
        firstSeen.set(task.id, at);
        for (const p of harnessTaskProblems(task, harness)) say(`${at}: ${p}`);
        if (!isBuiltinIntent(task.intent) && !intents.has(task.intent)) {
          say(`${at}: intent: "${task.intent}" is no intent (built-in: ${INTENTS.join(', ')}; the harness's own: ${[...intents].join(', ') || 'none'})`);
        }
        all.push(task);
      }
    }
    if (errors.count > 0) return { ok: false, errors: errors.list.map((e) => e.message), more: errors.more };
    if (all.length === 0) return { ok: false, errors: ['no tasks in the task files'], more: 0 };
    return { ok: true, source: new JsonlTaskSource(paths.join(','), all) };
  }

  /** How many tasks the file holds. */
  get size(): number {
    return this.#tasks.length;
  }

  /** The tasks in file order. */
  tasks(): readonly Task[] {
    return this.#tasks;
  }

  /** The intents of the file's tasks in a locale and split, in INTENTS order. */
  served(locale: Locale, split: Split): Intent[] {
    const custom = [...new Set(this.#tasks.filter((t) => !isBuiltinIntent(t.intent)).map((t) => t.intent))];
    return [...INTENTS, ...custom].filter((i) => this.#tasks.some((t) => t.intent === i && t.locale === locale && t.split === split));
  }

  pick(seed: number, selector: TaskSelector, locale: Locale): TaskPick {
    const bad = checkSelector(selector) ?? unknownIntent(selector, [...new Set(this.#tasks.filter((t) => !isBuiltinIntent(t.intent)).map((t) => t.intent))]);
    if (bad) return bad;
    if (selector.id !== undefined) {
      const t = this.#byId.get(selector.id);
      return t ? { ok: true, task: t } : { ok: false, code: 'UNKNOWN_TASK', message: `no task "${selector.id}" in ${this.name}` };
    }
    let intent = selector.intent;
    if (intent === undefined && selector.mix !== undefined) {
      // A mix draws the intent among the file's intents in the locale and split, then the seed-th of its tasks.
      const custom = [...new Set(this.#tasks.filter((t) => !isBuiltinIntent(t.intent)).map((t) => t.intent))];
      const present = [...INTENTS, ...custom].filter(
        (i) => this.#tasks.some((t) => t.intent === i && t.locale === locale && (selector.split === undefined || t.split === selector.split)),
      );
      intent = mixIntent(seed, present, selector.mix);
      if (intent === undefined) {
        const where = `${this.name} in locale ${locale}${selector.split ? `, split ${selector.split}` : ''}`;
        return { ok: false, code: 'UNKNOWN_TASK', message: present.length > 0 ? mixMisses(selector.mix, where, present) : `no task with locale ${locale}${selector.split ? `, split ${selector.split}` : ''} in ${this.name}` };
      }
    }
    const matching = this.#tasks.filter(
      (t) => t.locale === locale && (intent === undefined || t.intent === intent) && (selector.split === undefined || t.split === selector.split),
    );
    if (matching.length === 0) {
      const what = [`locale ${locale}`, selector.intent && `intent ${selector.intent}`, selector.split && `split ${selector.split}`]
        .filter(Boolean)
        .join(', ');
      return { ok: false, code: 'UNKNOWN_TASK', message: `no task with ${what} in ${this.name}` };
    }
    if (!Number.isSafeInteger(seed)) return { ok: false, code: 'INVALID_MESSAGE', message: `seed must be an integer, got ${seed}` };
    const n = matching.length;
    return { ok: true, task: matching[((seed % n) + n) % n] };
  }
}
