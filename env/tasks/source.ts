/**
 * Task sources: where an episode's task comes from. A `TaskSource` is a minimal swappable contract
 * (STYLE.md "Swappable parts"): the seeded generator, or a JSONL file of hand-written / recorded tasks.
 * Errors are data: an unknown id or an invalid selector is a typed value, never a throw.
 */
import { readFileSync } from 'node:fs';
import type { Harness } from '../../protocol/harness.js';
import { charLength } from '../../protocol/text.js';
import type { Intent, Locale, Split, Task } from '../../protocol/domain.js';
import { INTENTS } from '../../protocol/domain.js';
import { generateTask, parseGeneratedTaskId } from './generate.js';
import { generateFor, generatedIntents } from './harness-tasks.js';
import { isProductionMix, mixIntent, mixShares } from './mix.js';
import type { IntentMix } from './mix.js';
import { HarnessDataError, embeddedHarness } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { TaskSchema } from './schema.js';

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
  if (selector.intent !== undefined && !INTENTS.includes(selector.intent)) {
    return {
      ok: false,
      code: 'INVALID_MESSAGE',
      message: `unknown intent "${String(selector.intent)}"; expected one of ${INTENTS.join(', ')}`,
    };
  }
  if (selector.split !== undefined && selector.split !== 'train' && selector.split !== 'eval') {
    return { ok: false, code: 'INVALID_MESSAGE', message: `unknown split "${String(selector.split)}"; expected train or eval` };
  }
  return null;
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

  constructor(set: HarnessSet = embeddedHarness()) {
    this.#set = set;
    const loaded = loadHarnessTasks(set);
    if (!loaded.ok) throw new HarnessDataError('tasks', '(files)', loaded.errors.join('; '));
    this.#files = loaded.source;
  }

  /** The intents served in a locale and split: generated ones, then those of the harness's task files. */
  served(locale: Locale, split: Split): Intent[] {
    const generated = generatedIntents(this.#set, locale, split);
    const files = this.#files;
    return INTENTS.filter(
      (i) =>
        generated.includes(i) ||
        (files !== undefined && this.#set.bindings.intents.get(i)?.generate === false && files.tasks().some((t) => t.intent === i && t.locale === locale && t.split === split)),
    );
  }

  pick(seed: number, selector: TaskSelector, locale: Locale): TaskPick {
    const bad = checkSelector(selector);
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
    const mix = selector.intent === undefined && !isProductionMix(selector.mix) ? selector.mix : undefined;
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

const harnessTasksMemo = new WeakMap<HarnessSet, { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[] }>();

/**
 * The task files of a harness directory (`tasks/*.jsonl`), validated against the harness, and the intents
 * bound with `generate: false` checked to have tasks. Memoised per harness.
 */
export function loadHarnessTasks(set: HarnessSet): { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[] } {
  const hit = harnessTasksMemo.get(set);
  if (hit) return hit;
  let out: { ok: true; source?: JsonlTaskSource } | { ok: false; errors: string[] };
  const fileOnly = [...set.bindings.intents].filter(([, b]) => !b.generate).map(([i]) => i);
  if (set.taskFiles.length === 0) {
    out =
      fileOnly.length === 0
        ? { ok: true }
        : { ok: false, errors: fileOnly.map((i) => `harness.yaml: intents.${i}: generate: false, but the harness has no task files (tasks/*.jsonl) to serve it`) };
  } else {
    const loaded = JsonlTaskSource.fromFiles(set.taskFiles, set.get(set.locales[0]));
    if (!loaded.ok) out = { ok: false, errors: loaded.errors.map((e) => e.replace(`${set.dir}/`, '')) };
    else {
      const errors = fileOnly
        .filter((i) => !loaded.source.tasks().some((t) => t.intent === i))
        .map((i) => `harness.yaml: intents.${i}: generate: false, but no task of tasks/*.jsonl has intent ${i}`);
      out = errors.length > 0 ? { ok: false, errors } : { ok: true, source: loaded.source };
    }
  }
  harnessTasksMemo.set(set, out);
  return out;
}

/** A line-numbered validation error of a JSONL task file. */
export interface JsonlError {
  line: number;
  message: string;
}

/** The result of loading a JSONL task file. */
export type JsonlLoad = { ok: true; source: JsonlTaskSource } | { ok: false; errors: JsonlError[] };

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

  /** Parse and validate JSONL text. Every bad line is reported (line numbers are 1-based). */
  static parse(text: string, origin: string): JsonlLoad {
    const errors: JsonlError[] = [];
    const tasks: Task[] = [];
    const seen = new Map<string, number>();
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = i + 1;
      const raw = lines[i].trim();
      if (raw === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (e) {
        errors.push({ line, message: `line ${line}: invalid JSON (${(e as Error).message})` });
        continue;
      }
      const parsed = TaskSchema.safeParse(json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) errors.push({ line, message: `line ${line}: ${issuePath(issue.path)}: ${issue.message}` });
        continue;
      }
      const prev = seen.get(parsed.data.id);
      if (prev !== undefined) {
        errors.push({ line, message: `line ${line}: id: duplicate task id "${parsed.data.id}" (first on line ${prev})` });
        continue;
      }
      seen.set(parsed.data.id, line);
      tasks.push(parsed.data);
    }
    if (errors.length > 0) return { ok: false, errors };
    if (tasks.length === 0) return { ok: false, errors: [{ line: 0, message: `${origin}: no tasks` }] };
    return { ok: true, source: new JsonlTaskSource(origin, tasks) };
  }

  /** Read and parse a JSONL file (a read failure is reported as an error on line 0). */
  static fromFile(path: string): JsonlLoad {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      return { ok: false, errors: [{ line: 0, message: `${path}: ${(e as Error).message}` }] };
    }
    return JsonlTaskSource.parse(text, path);
  }

  /**
   * Read task files (`serve --tasks FILE`, repeatable) into one source, each task checked against the
   * harness it will be played in: the skills and tools its answer key names must be the harness's, and its
   * reference reply must fit the harness's reply limit. Every error is reported, as `file:line: key: what`.
   */
  static fromFiles(paths: readonly string[], harness: Harness): { ok: true; source: JsonlTaskSource } | { ok: false; errors: string[] } {
    const errors: string[] = [];
    const tasks: Task[] = [];
    const firstSeen = new Map<string, string>();
    const skills = new Map(harness.skills.map((sk) => [sk.name, sk.kind]));
    const tools = new Set(harness.tools.map((t) => t.function.name));
    for (const path of paths) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        errors.push(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        continue;
      }
      const lines = text.split(/\r?\n/);
      const loaded = JsonlTaskSource.parse(text, path);
      if (!loaded.ok) {
        errors.push(...loaded.errors.map((e) => (e.line === 0 ? e.message : `${path}:${e.line}: ${e.message.replace(/^line \d+: /, '')}`)));
        continue;
      }
      // Line of each task, for the harness checks (blank lines are skipped by parse).
      const lineOf = new Map<string, number>();
      lines.forEach((l, i) => {
        if (l.trim() === '') return;
        try {
          const id = (JSON.parse(l) as { id?: unknown }).id;
          if (typeof id === 'string' && !lineOf.has(id)) lineOf.set(id, i + 1);
        } catch {
          // parse() already accepted every line.
        }
      });
      for (const task of loaded.source.tasks()) {
        const at = `${path}:${lineOf.get(task.id) ?? 0}`;
        const prior = firstSeen.get(task.id);
        if (prior !== undefined) {
          errors.push(`${at}: id: duplicate task id "${task.id}" (first at ${prior})`);
          continue;
        }
        firstSeen.set(task.id, at);
        const key = task.answer_key;
        key.reply_skills.forEach((name, i) => {
          if (skills.get(name) !== 'reply') errors.push(`${at}: answer_key.reply_skills.${i}: "${name}" is not a reply skill of the harness`);
        });
        key.strategy_skills.forEach((name, i) => {
          if (!skills.has(name)) errors.push(`${at}: answer_key.strategy_skills.${i}: "${name}" is not a skill of the harness`);
        });
        const calls: [string, string][] = [
          ...key.required_calls.flatMap((r, i) => r.any_of.map((c, j): [string, string] => [`answer_key.required_calls.${i}.any_of.${j}.name`, c.name])),
          ...key.solution.map((c, i): [string, string] => [`answer_key.solution.${i}.name`, c.name]),
          ...key.optional_tools.map((n, i): [string, string] => [`answer_key.optional_tools.${i}`, n]),
        ];
        for (const [where, name] of calls) if (!tools.has(name)) errors.push(`${at}: ${where}: "${name}" is not a tool of the harness`);
        if (charLength(key.reference_reply) > harness.limits.reply_max_chars) {
          errors.push(`${at}: answer_key.reference_reply: ${charLength(key.reference_reply)} characters, over the harness's reply limit (${harness.limits.reply_max_chars})`);
        }
        tasks.push(task);
      }
    }
    if (errors.length > 0) return { ok: false, errors };
    if (tasks.length === 0) return { ok: false, errors: ['no tasks in the task files'] };
    return { ok: true, source: new JsonlTaskSource(paths.join(','), tasks) };
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
    return INTENTS.filter((i) => this.#tasks.some((t) => t.intent === i && t.locale === locale && t.split === split));
  }

  pick(seed: number, selector: TaskSelector, locale: Locale): TaskPick {
    const bad = checkSelector(selector);
    if (bad) return bad;
    if (selector.id !== undefined) {
      const t = this.#byId.get(selector.id);
      return t ? { ok: true, task: t } : { ok: false, code: 'UNKNOWN_TASK', message: `no task "${selector.id}" in ${this.name}` };
    }
    let intent = selector.intent;
    if (intent === undefined && selector.mix !== undefined) {
      // A mix draws the intent among the file's intents in the locale and split, then the seed-th of its tasks.
      const present = INTENTS.filter(
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
