/**
 * Task template modules (docs/HARNESS.md "Intents of your own"): `intents/<module>.mjs` of a harness
 * directory makes the tasks of an intent the harness adds (`intents: {restock_alert: {skill, module,
 * weight}}` in harness.yaml). The contract mirrors custom services (harness/services.ts): a default
 * export `{ name, version, intent?, generate(ctx) }`, loaded synchronously when the harness loads, so a
 * module that does not load or lacks a field is a start-up error naming its file. What `generate`
 * returns is checked by the task generator (env/tasks/custom-intents.ts), which owns the world and the
 * task schema; this folder may not import either.
 *
 * The memorizer (policies/) learns a custom intent from examples of it, as a model fine-tuned on the
 * harness would have seen them. Examples need worlds and services, which only `env/` may build, so the
 * generator registers itself here as the source of examples (`provideIntentExamples`), and the memorizer
 * asks through `intentExamples`: the import graph stays one-way.
 */
import type { Locale, Task } from '../protocol/domain.js';
import type { WorldData } from '../protocol/world.js';
import { loadModuleFile } from './module-file.js';

/** A loaded task template module. `generate` is the module's own function: call it only through env/tasks. */
export interface IntentModule {
  readonly name: string;
  readonly version: string;
  /** The intent the module says it makes (absent: whichever intent binds it). */
  readonly intent?: string;
  readonly generate: (ctx: unknown) => unknown;
  /** `intents/<name>.mjs`, for messages. */
  readonly file: string;
}

const cache = new Map<string, IntentModule>();

/**
 * Load `intents/<name>.mjs` of `dir`, or push `intents/<name>.mjs: key: message` errors. A module that
 * fails to import, lacks a field, names itself otherwise or says it makes another intent is refused.
 */
export function loadIntentModule(dir: string, name: string, intent: string, errors: string[]): IntentModule | undefined {
  const rel = `intents/${name}.mjs`;
  const before = errors.length;
  const loaded = loadModuleFile(dir, rel, name, { what: 'a task template module', missing: `harness.yaml binds intent ${intent} to module ${name}, which is this file`, shape: '{ name, version, intent?, generate(ctx) }' }, cache, errors);
  if (loaded === undefined) return undefined;
  if ('cached' in loaded) return loaded.cached;
  const { key, m } = loaded;
  if (m.intent !== undefined && m.intent !== intent)
    errors.push(`${rel}: default.intent: says ${JSON.stringify(m.intent)}, but harness.yaml binds it to intent ${intent}`);
  if (typeof m.generate !== 'function') errors.push(`${rel}: default.generate: must be a function (ctx) => task | null`);
  if (errors.length > before) return undefined;
  const mod: IntentModule = Object.freeze({
    name,
    version: m.version as string,
    ...(typeof m.intent === 'string' ? { intent: m.intent } : {}),
    generate: m.generate as IntentModule['generate'],
    file: rel,
  });
  cache.set(key, mod);
  return mod;
}

/** One example of a custom intent: the task, the world it is played in, and what its solution's calls return. */
export interface IntentExample {
  task: Task;
  world: WorldData;
  /** The result data of each call of `task.answer_key.solution`, in order (null for a failed call). */
  results: unknown[];
}

/** Makes examples of a harness's custom intent (registered by env/tasks; `set` is the harness's HarnessSet). */
export type IntentExampleSource = (set: object, intent: string, locale: Locale, count: number) => readonly IntentExample[];

let exampleSource: IntentExampleSource | undefined;

/** Register the source of custom-intent examples (the task generator does, when env/tasks loads). */
export function provideIntentExamples(source: IntentExampleSource): void {
  exampleSource = source;
}

/** Examples of a harness's custom intent in a locale: none when no generator is loaded in the process. */
export function intentExamples(set: object, intent: string, locale: Locale, count: number): readonly IntentExample[] {
  return exampleSource === undefined ? [] : exampleSource(set, intent, locale, count);
}
