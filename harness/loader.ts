/**
 * Loads a harness directory (docs/HARNESS.md): `harness.yaml` (the manifest), `skills/<locale>/*.md`,
 * `tools/*.json` (+ `tools/i18n/en.json`), `prompt.yaml`, `hooks.yaml` and the optional
 * `paraphrases.yaml` (harness/paraphrases.ts). The embedded harness (the `harness/` folder of the
 * package) is one such directory, loaded by the same code. Every file is read
 * and validated once; every error of the directory is reported at once, each with its file and key; the
 * result is deep-frozen and shared.
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../protocol/package.js';
import { FILE_LIMITS, FileProblem, depthProblem, forEachChunk, listFiles as listDirFiles, parseMessage, readText as readBoundedText, walkFiles } from '../protocol/files.js';
import YAML from 'yaml';
import type { Intent, JsonSchema, Locale, ToolSchema } from '../protocol/domain.js';
import { INTENTS, isBuiltinIntent } from '../protocol/domain.js';
import type { Harness, HookSpec, PromptBlock, PromptSpec, RetryPolicy, Skill } from '../protocol/harness.js';
import { REFERENCE_MAX_CHARS } from '../protocol/harness.js';
import { normalizeForMatch } from '../protocol/text.js';
import { CANONICAL_SKILLS, CANONICAL_TOOLS, HOOK_KIND_STAGES, INTENT_REPLY_SKILLS, PROMPT_BLOCK_ORDER, PROMPT_PLACEHOLDERS, SKILL_NAME_RE, STRATEGY_SKILLS, TOOL_SERVICES } from './names.js';
import type { CanonicalTool, HookKind } from './names.js';
import { REPEATABLE_HOOK_KINDS, VIOLATION_CODES } from './names.js';
import { HOOK_PARAM_SCHEMAS, HooksFileSchema, ManifestSchema, PromptFileSchema, ToolFileSchema, ToolI18nSchema } from './schema.js';
import { HarnessDataError, parseSkillMarkdown } from './skill-markdown.js';
import { HarnessBindings, IntentsSectionSchema, OPERATION_OF_TOOL, StrategiesSectionSchema, ToolsSectionSchema, embeddedIntentBindings, intentBindingOf, toolBindingOf } from './bindings.js';
import type { IntentBinding, ToolBinding } from './bindings.js';
import { loadCustomService } from './services.js';
import type { CustomService } from './services.js';
import { loadHookModule } from './hook-modules.js';
import type { HookModule } from './hook-modules.js';
import { loadIntentModule } from './intents.js';
import type { IntentModule } from './intents.js';
import { loadParaphrases } from './paraphrases.js';
import { bareSkillNameErrors } from './name-mentions.js';
import type { Paraphrases } from './paraphrases.js';
import type { z } from 'zod';
import { deepFreeze } from '../protocol/objects.js';

/** The directory holding the base harness's data files. */
export function harnessDataDir(): string {
  return resolve(packageRoot(), 'harness');
}

/** The size limit and name of a harness file, by its place in the directory. */
function fileKind(rel: string): { maxBytes: number; what: string } {
  if (rel.startsWith('skills/')) return { maxBytes: FILE_LIMITS.skill_bytes, what: 'a skill file' };
  if (rel.startsWith('tools/') && !rel.startsWith('tools/i18n/')) return { maxBytes: FILE_LIMITS.tool_bytes, what: 'a tool file' };
  return { maxBytes: FILE_LIMITS.harness_yaml_bytes, what: `${rel}` };
}

/**
 * A file of the directory as text: a regular file inside it, within its kind's size limit, valid UTF-8
 * (protocol/files.ts); anything else is the file's error.
 */
function readText(dir: string, rel: string): string {
  try {
    return readBoundedText(join(dir, rel), { ...fileKind(rel), within: dir });
  } catch (err) {
    if (err instanceof FileProblem) {
      if (err.missing) throw new HarnessDataError(rel, '(file)', 'cannot read: no such file');
      throw new HarnessDataError(rel, '(file)', err.reason);
    }
    throw new HarnessDataError(rel, '(file)', `cannot read: ${(err as Error).message}`);
  }
}

/** A parsed value walked by recursive code (zod, deepFreeze): refused when nested too deep. */
function shallow(rel: string, value: unknown): unknown {
  const deep = depthProblem(value);
  if (deep !== null) throw new HarnessDataError(rel, '(file)', deep);
  return value;
}

function readYaml(dir: string, rel: string): unknown {
  const text = readText(dir, rel);
  let value: unknown;
  try {
    value = YAML.parse(text);
  } catch (err) {
    throw new HarnessDataError(rel, '(file)', `invalid YAML: ${parseMessage(err)}`);
  }
  return shallow(rel, value);
}

function readJson(dir: string, rel: string): unknown {
  const text = readText(dir, rel);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HarnessDataError(rel, '(file)', `invalid JSON: ${parseMessage(err)}`);
  }
  return shallow(rel, value);
}

/** Run one check of a harness file, turning a HarnessDataError into an error line (anything else is a bug). */
function attempt<T>(errors: string[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (err instanceof HarnessDataError) {
      errors.push(err.message);
      return undefined;
    }
    throw err;
  }
}

/** Every issue of a failed zod parse as `file: key: message` lines. */
export function zodIssueLines(file: string, error: z.ZodError, base: readonly (string | number)[] = []): string[] {
  return error.issues.map((issue) => `${file}: ${[...base, ...issue.path].map(String).join('.') || '(root)'}: ${issue.message}`);
}

/** The `.md` / `.json` file names of a folder of the directory, sorted; undefined (and an error) when it is missing. */
function listFolder(dir: string, folder: string, ext: string, errors: string[], missing: string): string[] | undefined {
  if (!existsSync(join(dir, folder))) {
    errors.push(`${folder}: (folder): missing: ${missing}`);
    return undefined;
  }
  try {
    const entries = listDirFiles(join(dir, folder), (f) => f.endsWith(ext));
    // An entry that is not a regular file inside the directory, or whose name collides but for case, is refused by name.
    for (const e of entries) if (e.problem !== undefined) errors.push(`${folder}/${e.name}: (file): ${e.problem}`);
    return entries.filter((e) => e.problem === undefined).map((e) => e.name);
  } catch (err) {
    errors.push(`${folder}: (folder): ${err instanceof FileProblem ? err.reason : (err as Error).message}`);
    return undefined;
  }
}

/** Every skill of one locale (file order; `orderSkills` puts them in the harness's order), each file named after its skill. */
function loadSkills(dir: string, locale: Locale, errors: string[], fileNames: string[] = []): Skill[] {
  const folder = `skills/${locale}`;
  const files = listFolder(dir, folder, '.md', errors, 'a harness has one skill file per skill and locale');
  if (!files) return [];
  fileNames.push(...files.map((f) => f.slice(0, -'.md'.length)).filter((n) => SKILL_NAME_RE.test(n) && n.length <= 64));
  const out: Skill[] = [];
  for (const f of files) {
    const rel = `${folder}/${f}`;
    const name = f.slice(0, -'.md'.length);
    if (!SKILL_NAME_RE.test(name) || name.length > 64) {
      errors.push(`${rel}: (file): "${name}" is not a valid skill name (^[a-z0-9]+(-[a-z0-9]+)*$, at most 64 characters)`);
      continue;
    }
    const skill = attempt(errors, () => parseSkillMarkdown(readText(dir, rel), rel));
    if (!skill) continue;
    if (skill.name !== name) errors.push(`${rel}: name: "${skill.name}" does not match the file name`);
    else out.push(skill);
  }
  return out;
}

/** Who needs an embedded skill, for the message of a missing one. */
function skillUsers(name: string): string {
  const intents = Object.entries(INTENT_REPLY_SKILLS)
    .filter(([, skills]) => skills.includes(name))
    .map(([intent]) => intent);
  return intents.length > 0 ? `the intent${intents.length > 1 ? 's' : ''} ${intents.join(', ')}` : 'the strategy-skill operators and the skill index';
}

/** Every tool of the directory with descriptions in `locale` (zh-CN in the files, others from i18n). */
function loadTools(dir: string, locale: Locale, errors: string[]): ToolSchema[] {
  const listed = listFolder(dir, 'tools', '.json', locale === 'zh-CN' ? errors : [], 'a harness has one JSON Schema file per tool');
  if (!listed) return [];
  const own: string[] = [];
  const tools: ToolSchema[] = [];
  for (const f of listed) {
    const name = f.slice(0, -'.json'.length);
    const rel = `tools/${f}`;
    const raw = attempt(own, () => readJson(dir, rel));
    if (raw === undefined) continue;
    const parsed = ToolFileSchema.safeParse(raw);
    if (!parsed.success) {
      own.push(...zodIssueLines(rel, parsed.error));
      continue;
    }
    const fn = parsed.data.function;
    let ok = true;
    if (fn.name !== name) {
      own.push(`${rel}: function.name: "${fn.name}" does not match the file name`);
      ok = false;
    }
    for (const r of fn.parameters.required ?? []) {
      if (!Object.hasOwn(fn.parameters.properties, r)) {
        own.push(`${rel}: function.parameters.required: "${r}" is not a property`);
        ok = false;
      }
    }
    if (ok) tools.push(parsed.data as ToolSchema);
  }
  // Tool files are shared by the locales: report their errors once, with the zh-CN pass.
  if (locale === 'zh-CN') errors.push(...own);
  if (locale === 'zh-CN') return tools;

  const rel = `tools/i18n/${locale}.json`;
  const raw = attempt(errors, () => readJson(dir, rel));
  if (raw === undefined) return [];
  const parsed = ToolI18nSchema.safeParse(raw);
  if (!parsed.success) {
    errors.push(...zodIssueLines(rel, parsed.error));
    return [];
  }
  const texts = parsed.data;
  const wanted = new Set<string>();
  const text = (key: string): string => {
    wanted.add(key);
    const v = texts[key];
    if (v === undefined) errors.push(`${rel}: ${key}: missing description`);
    return v ?? '';
  };
  const out = tools.map((t): ToolSchema => {
    const name = t.function.name;
    const props = t.function.parameters.properties as { [k: string]: JsonSchema };
    const properties: { [k: string]: JsonSchema } = {};
    for (const [p, schema] of Object.entries(props)) properties[p] = { ...schema, description: text(`${name}.${p}`) };
    return {
      type: 'function',
      function: { name, description: text(name), parameters: { ...t.function.parameters, properties } },
    };
  });
  // Keys of a tool whose file failed are not reported again (its file's errors say what is wrong).
  const files = new Set(listed.map((f) => f.slice(0, -'.json'.length)));
  const broken = (key: string) => files.has(key.split('.')[0]) && !tools.some((t) => t.function.name === key.split('.')[0]);
  for (const key of Object.keys(texts)) {
    if (!wanted.has(key) && !broken(key)) errors.push(`${rel}: ${key}: names no tool or parameter`);
  }
  return out;
}

const PLACEHOLDER_RE = /\{\{(\w+)\}\}/g;

function checkPlaceholders(rel: string, key: string, text: string, errors: string[]): void {
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    if (!PROMPT_PLACEHOLDERS.includes(m[1])) {
      errors.push(`${rel}: ${key}: unknown placeholder {{${m[1]}}} (placeholders: ${PROMPT_PLACEHOLDERS.join(', ')})`);
    }
  }
}

/** A YAML file of the directory parsed with `schema`, or undefined with its errors pushed. */
function readYamlFile<T extends z.ZodType>(dir: string, rel: string, schema: T, errors: string[]): z.infer<T> | undefined {
  const raw = attempt(errors, () => readYaml(dir, rel));
  if (raw === undefined) return undefined;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  errors.push(...zodIssueLines(rel, parsed.error));
  return undefined;
}

function loadPrompt(dir: string, locale: Locale, errors: string[]): PromptSpec | undefined {
  const rel = 'prompt.yaml';
  const file = readYamlFile(dir, rel, PromptFileSchema, errors);
  if (file === undefined) return undefined;
  // Any of the pipeline's blocks, in any order, each at most once.
  const seen = new Map<string, number>();
  file.blocks.forEach((b, i) => {
    const first = seen.get(b.id);
    if (first !== undefined && locale === 'zh-CN') errors.push(`${rel}: blocks.${i}.id: "${b.id}" again (first at blocks.${first}); a block appears at most once`);
    else seen.set(b.id, i);
  });
  const blocks = file.blocks.map((b, i): PromptBlock => {
    const text = b[locale];
    checkPlaceholders(rel, `blocks.${i}.${locale}.template`, text.template, errors);
    text.items.forEach((item, j) => checkPlaceholders(rel, `blocks.${i}.${locale}.items.${j}`, item, errors));
    return { id: b.id as PromptBlock['id'], title: text.title, template: text.template, items: text.items.slice() };
  });
  return {
    blocks,
    header_style: file.header_style,
    separator: file.separator,
    item_style: file.item_style,
    tools_doc_style: file.tools_doc_style,
    extra_context: (Array.isArray(file.extra_context) ? file.extra_context : file.extra_context[locale]).slice(),
  };
}

/**
 * The output rules a locale's prompt must state: each forbidden word and the required ending of an
 * enabled `output_constraints` hook must appear in that locale's prompt texts (blocks and extra
 * context, matched as the hook matches), or a model is held to a rule it is never told, and every
 * episode fails it (`check` flags each one). Per-locale lists (`forbidden_words: {zh-CN, en}`) keep a
 * Chinese word out of English episodes.
 */
function unstatedRuleErrors(prompt: PromptSpec, hooks: readonly HookSpec[], locale: Locale, errors: string[]): void {
  const text = normalizeForMatch(
    [...prompt.blocks.flatMap((b) => [b.title, b.template, ...b.items]), ...prompt.extra_context].join('\n'),
  );
  hooks.forEach((h, i) => {
    if ((h.kind ?? h.id) !== 'output_constraints' || !h.enabled) return;
    const at = `hooks.yaml: hooks.${i}.params`;
    const words = Array.isArray(h.params.forbidden_words) ? (h.params.forbidden_words as string[]) : [];
    words.forEach((w, j) => {
      if (!text.includes(normalizeForMatch(w))) {
        errors.push(
          `${at}.forbidden_words${Array.isArray(h.params.forbidden_words) ? '' : `.${locale}`}.${j}: "${w}" is enforced in ${locale} episodes but prompt.yaml does not state it in ${locale}: name it in an output rule of that locale (a model cannot keep a rule it is not told), or give forbidden_words per locale ({zh-CN: [...], en: [...]})`,
        );
      }
    });
    const ending = h.params.required_ending;
    if (typeof ending === 'string' && !text.includes(normalizeForMatch(ending))) {
      errors.push(`${at}.required_ending: "${ending}" is enforced in ${locale} episodes but prompt.yaml does not state it in ${locale}: state it in an output rule of that locale`);
    }
  });
}

function loadHooks(
  dir: string,
  locale: Locale,
  errors: string[],
  modules: Map<string, HookModule | null> = new Map(),
): Pick<Harness, 'hooks' | 'retry' | 'limits'> | undefined {
  const rel = 'hooks.yaml';
  const file = readYamlFile(dir, rel, HooksFileSchema, errors);
  if (file === undefined) return undefined;
  // Any subset of the library's hook kinds, in any order, under the harness's own ids. A hook without
  // `kind` runs the check its id names. One hook per kind, except the repeatable kinds (required_call):
  // variants find and edit the others by kind.
  const kinds = Object.keys(HOOK_KIND_STAGES) as HookKind[];
  const idAt = new Map<string, number>();
  const kindAt = new Map<HookKind, number>();
  // The harness's tools, for the tool names of required_call hooks: the `tools/*.json` file names (a
  // missing folder is loadTools' error; then the names are not checked).
  const toolNames = listFolder(dir, 'tools', '.json', [], '')?.map((f) => f.replace(/\.json$/, ''));
  const hooks: HookSpec[] = [];
  file.hooks.forEach((h, i) => {
    const at = `${rel}: hooks.${i}`;
    const first = idAt.get(h.id);
    if (first !== undefined) errors.push(`${at}.id: "${h.id}" is already the id of hooks.${first}; hook ids are unique`);
    else idAt.set(h.id, i);
    if (h.kind === 'module' || h.module !== undefined) {
      const spec = moduleHook(dir, h, at, modules, errors);
      if (spec) hooks.push(spec);
      return;
    }
    const kind = (h.kind ?? h.id) as HookKind;
    if (!kinds.includes(kind)) {
      errors.push(
        h.kind === undefined
          ? `${at}.id: "${h.id}" is not a hook kind; give the hook a kind (kinds: ${kinds.join(', ')}, module)`
          : `${at}.kind: unknown hook kind "${h.kind}" (kinds: ${kinds.join(', ')}, module)`,
      );
      return;
    }
    if (h.kind !== undefined && h.kind !== h.id && (kinds as string[]).includes(h.id)) {
      errors.push(`${at}.id: "${h.id}" names the kind ${h.id}; give a ${kind} hook another id`);
    }
    const same = kindAt.get(kind);
    if (same === undefined) kindAt.set(kind, i);
    else if (!REPEATABLE_HOOK_KINDS.includes(kind)) {
      errors.push(`${at}.kind: hooks.${same} is already a ${kind} hook; a harness has at most one (variants edit it by kind)`);
    }
    if (h.stage !== HOOK_KIND_STAGES[kind]) errors.push(`${at}.stage: ${kind} runs at stage ${HOOK_KIND_STAGES[kind]}`);
    const params = HOOK_PARAM_SCHEMAS[kind].safeParse(h.params);
    if (!params.success) errors.push(...zodIssueLines(rel, params.error, ['hooks', i, 'params']));
    else if (kind === 'required_call') {
      const p = params.data as { when_called: string[]; require: string; code: string };
      const tool = (name: string, key: string) => {
        if (toolNames !== undefined && !toolNames.includes(name)) {
          errors.push(`${at}.params.${key}: "${name}" is not a tool of this harness (tools: ${toolNames.join(', ')})`);
        }
      };
      p.when_called.forEach((name, j) => tool(name, `when_called.${j}`));
      tool(p.require, 'require');
      if (VIOLATION_CODES.includes(p.code)) errors.push(`${at}.params.code: ${p.code} is a code of the library's own hooks; give this hook a code of its own`);
    }
    let data = (params.success ? params.data : {}) as HookSpec['params'];
    // Per-locale forbidden words: each locale's harness holds its own list.
    if (kind === 'output_constraints' && data.forbidden_words !== undefined && !Array.isArray(data.forbidden_words)) {
      data = { ...data, forbidden_words: (data.forbidden_words as Record<Locale, string[]>)[locale].slice() };
    }
    // No `kind` key when the file has none: such a hook is the same value as before kinds existed.
    hooks.push(
      h.kind === undefined
        ? { id: h.id, stage: h.stage, enabled: h.enabled, params: data }
        : { id: h.id, kind: h.kind, stage: h.stage, enabled: h.enabled, params: data },
    );
  });
  if (locale === 'zh-CN' && file.limits.reply_max_chars < REFERENCE_MAX_CHARS) {
    errors.push(
      `${rel}: limits.reply_max_chars: ${file.limits.reply_max_chars} is shorter than the longest reply the tasks need (${REFERENCE_MAX_CHARS} characters); use at least ${REFERENCE_MAX_CHARS}`,
    );
  }
  const retry: RetryPolicy = {
    max_retries: file.retry.max_retries,
    mode: file.retry.mode,
    feedback_style: file.retry.feedback_style,
    feedback_locale: locale,
    templates: { ...file.retry.templates[locale] },
  };
  return { hooks, retry, limits: { ...file.limits } };
}

/**
 * A `kind: module` hook (docs/HARNESS.md "Hook modules"): its module loaded once per directory load
 * (`modules`, shared by the locales; null when it failed), its stage one the module declares, its params
 * valid against the module's schema. Any number of module hooks, of one module or several.
 */
function moduleHook(
  dir: string,
  h: { id: string; kind?: string; module?: string; stage: HookSpec['stage']; enabled: boolean; params: Record<string, unknown> },
  at: string,
  modules: Map<string, HookModule | null>,
  errors: string[],
): HookSpec | undefined {
  if (h.kind !== 'module') {
    errors.push(`${at}.module: only a hook of kind module names a module; give it kind: module`);
    return undefined;
  }
  if (Object.hasOwn(HOOK_KIND_STAGES, h.id)) errors.push(`${at}.id: "${h.id}" names the kind ${h.id}; give a module hook another id`);
  if (h.module === undefined) {
    errors.push(`${at}.module: a module hook names its module (the file hooks/<module>.mjs)`);
    return undefined;
  }
  let mod = modules.get(h.module);
  if (mod === undefined) {
    mod = loadHookModule(dir, h.module, VIOLATION_CODES, errors) ?? null;
    modules.set(h.module, mod);
  }
  if (mod === null) return undefined;
  const before = errors.length;
  if (!(mod.stages as readonly string[]).includes(h.stage)) errors.push(`${at}.stage: module ${mod.name} runs at stage ${mod.stages.join(' or ')}`);
  for (const line of mod.paramErrors(h.params)) errors.push(`${at}.params: ${line} (the JSON Schema of ${mod.file})`);
  if (errors.length > before) return undefined;
  return { id: h.id, kind: 'module', module: h.module, stage: h.stage, enabled: h.enabled, params: h.params };
}

/** Recursively freeze a plain data value, so a shared harness cannot be edited by accident (one copy, in protocol/). */
export { deepFreeze } from '../protocol/objects.js';

/** What names a harness: its manifest's name and version, and the sha256 of its files. */
export interface HarnessIdentity {
  name: string;
  version: string;
  /** `sha256:` and the hex digest of every file of the directory (sorted paths, each path and its bytes). */
  hash: string;
}

/** A harness as messages name it: `"name" version (sha256:…)`. */
export function harnessLabel(h: HarnessIdentity): string {
  return `"${h.name}" ${h.version} (${h.hash})`;
}

/**
 * A loaded harness directory: its identity and the harness in each locale. Immutable; one per directory
 * and process (`loadHarnessDir` caches by resolved path and content hash).
 */
export class HarnessSet {
  readonly identity: HarnessIdentity;
  readonly description: string;
  readonly dir: string;
  readonly locales: readonly Locale[];
  readonly #byLocale: ReadonlyMap<Locale, Harness>;

  /** What answers each tool and which skill serves each intent (docs/HARNESS.md "Bindings"). */
  readonly bindings: HarnessBindings;
  /** The custom service modules of the directory, by module name. */
  readonly services: ReadonlyMap<string, CustomService>;
  /** The hook modules of the directory (`hooks/<module>.mjs`), by module name. */
  readonly hookModules: ReadonlyMap<string, HookModule>;
  /** The task template modules of the harness's own intents (`intents/<module>.mjs`), by intent. */
  readonly intentModules: ReadonlyMap<Intent, IntentModule>;
  /** The task files of the directory (`tasks/*.jsonl`, absolute paths, sorted): what serves `generate: false` intents. */
  readonly taskFiles: readonly string[];
  /** The alternative wordings of `paraphrases.yaml` (undefined without the file: the operators that need them do not apply). */
  readonly paraphrases: Paraphrases | undefined;

  constructor(dir: string, identity: HarnessIdentity, description: string, byLocale: Map<Locale, Harness>, parts: HarnessParts = defaultParts()) {
    this.bindings = parts.bindings;
    this.services = parts.services;
    this.hookModules = parts.hookModules ?? new Map();
    this.intentModules = parts.intentModules ?? new Map();
    this.taskFiles = Object.freeze([...parts.taskFiles]);
    this.paraphrases = parts.paraphrases;
    this.dir = dir;
    this.identity = Object.freeze({ ...identity });
    this.description = description;
    this.#byLocale = byLocale;
    this.locales = Object.freeze([...byLocale.keys()]);
    for (const h of byLocale.values()) SETS.set(h, this);
  }

  /** The harness in `locale`. */
  get(locale: Locale): Harness {
    const h = this.#byLocale.get(locale);
    if (!h) throw new RangeError(`harness "${this.identity.name}" has no locale ${locale}`);
    return h;
  }
}

/** What a harness directory binds, besides its files' contents. */
export interface HarnessParts {
  bindings: HarnessBindings;
  services: ReadonlyMap<string, CustomService>;
  /** `hooks/<module>.mjs` modules the hooks bind, by module name. */
  hookModules?: ReadonlyMap<string, HookModule>;
  /** The task template modules of the harness's own intents, by intent (absent: none). */
  intentModules?: ReadonlyMap<Intent, IntentModule>;
  taskFiles: readonly string[];
  /** `paraphrases.yaml`, when the directory has one. */
  paraphrases?: Paraphrases;
}

/** The embedded harness's bindings: every intent served by its embedded skill, every tool by its name. */
function defaultParts(): HarnessParts {
  const tools = new Map<string, ToolBinding>(CANONICAL_TOOLS.map((t) => [t, { kind: 'builtin', op: t }]));
  const strategies = new Map<string, string>(STRATEGY_SKILLS.map((s) => [s, s]));
  return { bindings: new HarnessBindings(embeddedIntentBindings(), strategies, tools), services: new Map(), taskFiles: [] };
}

/** The set each loaded base harness belongs to (variants keep the base as `ctx.base`). */
const SETS = new WeakMap<Harness, HarnessSet>();

/** The set a base harness was loaded with (the embedded one for a harness built elsewhere, e.g. in tests). */
export function harnessSetOf(base: Harness): HarnessSet {
  return SETS.get(base) ?? embeddedHarness();
}

/**
 * The content hash of a harness directory: sha256 over each file's path and bytes, in sorted order, and
 * the problems of its entries (a special file, a link out of the directory, a file over its limit): a
 * directory with problems is refused, so nothing is read that could hang or exhaust the server.
 */
function hashDir(dir: string): { hash: string; problems: string[] } {
  const h = createHash('sha256');
  const { files, problems } = walkFiles(dir);
  for (const rel of files) {
    if (rel.endsWith('.ts') || rel.endsWith('.js') || rel.endsWith('.map') || rel.endsWith('.d.ts')) continue;
    h.update(rel).update('\0');
    try {
      forEachChunk(join(dir, rel), { maxBytes: FILE_LIMITS.other_bytes, what: 'a file of a harness directory', within: dir }, (c) => h.update(c));
    } catch (err) {
      problems.push(`${rel}: ${err instanceof FileProblem ? err.reason : (err as Error).message}`);
    }
    h.update('\0');
  }
  return { hash: `sha256:${h.digest('hex')}`, problems };
}

/** The content hash of a harness directory: sha256 over each file's path and bytes, in sorted order. */
export function harnessHash(dir: string): string {
  const { hash, problems } = hashDir(dir);
  if (problems.length > 0) throw new FileProblem(dir, problems[0]);
  return hash;
}

/** The outcome of loading a harness directory: the set, or every error (each `file: key: message`). */
export type HarnessLoadResult = { ok: true; harness: HarnessSet } | { ok: false; errors: string[] };

const loaded = new Map<string, HarnessSet>();

/**
 * Load and validate a harness directory (docs/HARNESS.md). Every error is collected, each naming its file
 * and key; on any error nothing is returned. A directory already loaded with the same content is shared.
 */
export function loadHarnessDir(path: string): HarnessLoadResult {
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    return { ok: false, errors: [`${path}: not a directory (a harness is a directory with harness.yaml, skills/, tools/, prompt.yaml and hooks.yaml)`] };
  }
  const hashed = hashDir(dir);
  if (hashed.problems.length > 0) return { ok: false, errors: hashed.problems.map((p) => p.replace(/^([^:]+): /, '$1: (file): ')) };
  const hash = hashed.hash;
  const key = `${dir}\0${hash}`;
  const hit = loaded.get(key);
  if (hit) return { ok: true, harness: hit };

  const errors: string[] = [];
  const manifest = readYamlFile(dir, 'harness.yaml', ManifestSchema, errors);
  const byLocale = new Map<Locale, Harness>();
  // The manifest names the locales; both are required in this version, and a broken manifest still lets
  // the other files be checked.
  const locales = manifest?.locales ?? (['zh-CN', 'en'] as Locale[]);
  const loadedSkills = new Map<Locale, Skill[]>();
  const hookModules = new Map<string, HookModule | null>();
  const skillFiles = new Map<Locale, string[]>();
  for (const locale of locales) {
    const names: string[] = [];
    const skills = loadSkills(dir, locale, errors, names);
    loadedSkills.set(locale, skills);
    skillFiles.set(locale, names);
    const tools = loadTools(dir, locale, errors);
    const prompt = loadPrompt(dir, locale, errors);
    const hooks = loadHooks(dir, locale, errors, hookModules);
    if (prompt && hooks) {
      unstatedRuleErrors(prompt, hooks.hooks, locale, errors);
      byLocale.set(locale, { id: 'base', locale, skills, tools, prompt, ...hooks });
    }
  }
  checkSkillSets(skillFiles, loadedSkills, errors);
  const zh = byLocale.get('zh-CN');
  const skills = loadedSkills.get('zh-CN') ?? [];
  const toolNames = listFolder(dir, 'tools', '.json', [], '')?.map((f) => f.slice(0, -'.json'.length)) ?? [];
  const bindings = bindHarness(manifestSections(dir, manifest), skills, skillFiles.get('zh-CN') ?? [], toolNames, errors);
  const services = new Map<string, CustomService>();
  for (const b of bindings.tools.values()) {
    if (b.kind === 'custom' && !services.has(b.module)) {
      const svc = loadCustomService(dir, b.module, errors);
      if (svc) services.set(b.module, svc);
    }
  }
  const intentModules = new Map<Intent, IntentModule>();
  for (const [intent, b] of bindings.intents) {
    if (b.module === undefined || isBuiltinIntent(intent)) continue;
    const mod = loadIntentModule(dir, b.module, intent, errors);
    if (mod) intentModules.set(intent, mod);
  }
  // A skill's metadata.intents names built-in intents or the harness's own (bound in harness.yaml): a
  // snake_case name that is neither is a typo, not a new intent. (Checked once harness.yaml is valid, so
  // that a bad entry there is reported once, by harness.yaml.)
  const declared: string[] = [...bindings.intents.keys()];
  for (const [locale, list] of manifest ? loadedSkills : []) {
    for (const s of list) {
      s.intents.forEach((intent, i) => {
        if (isBuiltinIntent(intent) || declared.includes(intent)) return;
        const own = declared.filter((n) => !isBuiltinIntent(n));
        errors.push(
          `skills/${locale}/${s.name}.md: metadata.intents.${i}: "${intent}" is no intent (built-in: ${INTENTS.join(', ')}; the harness's own, bound in harness.yaml: ${own.join(', ') || 'none'})`,
        );
      });
    }
  }
  // A built-in operation reads the embedded tool's parameters: a harness may rename and reword a tool,
  // not change what its service takes (the embedded harness is the reference, not compared with itself).
  if (zh && dir !== resolve(harnessDataDir())) errors.push(...serviceSignatureErrors(zh.tools, bindings, embeddedHarness().get('zh-CN').tools));
  const taskFiles = listFolder(dir, 'tasks', '.jsonl', [], '')?.map((f) => join(dir, 'tasks', f)) ?? [];
  // Its keys name the zh-CN harness's skills and tools (their files: one that failed is reported once, by
  // its own file) and prompt blocks (any of the pipeline's when prompt.yaml did not load).
  const paraphrases = loadParaphrases(
    dir,
    { skills: skillFiles.get('zh-CN') ?? [], tools: toolNames, blocks: zh?.prompt.blocks.map((b) => b.id) ?? PROMPT_BLOCK_ORDER },
    errors,
  );
  // Bare skill names that read as references, which no variant would rewrite (harness/name-mentions.ts).
  const loader = bindings.loadSkillTool;
  errors.push(...bareSkillNameErrors([...byLocale.values()], paraphrases, skillFiles.get('zh-CN') ?? [], loader === undefined ? [] : [loader]));
  const unique = [...new Set(errors)];
  if (unique.length > 0 || !manifest) return { ok: false, errors: unique };
  for (const [locale, h] of byLocale) {
    byLocale.set(locale, deepFreeze({ ...h, skills: orderSkills(h.skills, bindings), tools: orderTools(h.tools, bindings) }));
  }
  const set = new HarnessSet(dir, { name: manifest.name, version: manifest.version, hash }, manifest.description ?? '', byLocale, {
    bindings,
    services,
    hookModules: new Map([...hookModules].filter((e): e is [string, HookModule] => e[1] !== null)),
    intentModules,
    taskFiles,
    ...(paraphrases ? { paraphrases } : {}),
  });
  loaded.set(key, set);
  return { ok: true, harness: set };
}

/** Both locales must hold the same skill files, each skill of the same kind. */
function checkSkillSets(files: ReadonlyMap<Locale, readonly string[]>, byLocale: ReadonlyMap<Locale, readonly Skill[]>, errors: string[]): void {
  const [first, ...rest] = [...files.entries()];
  if (!first) return;
  const missing = (locale: Locale, name: string, other: Locale) =>
    `skills/${locale}/${name}.md: (file): missing: every skill has a file in each locale (skills/${other}/${name}.md exists)`;
  for (const [locale, names] of rest) {
    for (const n of first[1]) if (!names.includes(n)) errors.push(missing(locale, n, first[0]));
    for (const n of names) if (!first[1].includes(n)) errors.push(missing(first[0], n, locale));
    for (const s of byLocale.get(locale) ?? []) {
      const other = byLocale.get(first[0])?.find((x) => x.name === s.name);
      if (other && other.kind !== s.kind) errors.push(`skills/${locale}/${s.name}.md: metadata.kind: "${s.kind}" but skills/${first[0]}/${s.name}.md says "${other.kind}"`);
    }
  }
}

type Manifest = z.infer<typeof ManifestSchema>;

/** The binding sections of harness.yaml: parsed, absent (undefined), or present but invalid (null: its errors are reported already). */
interface ManifestSections {
  present: boolean;
  intents?: Manifest['intents'] | null;
  strategies?: Manifest['strategies'] | null;
  tools?: Manifest['tools'] | null;
}

/**
 * The sections of the manifest, each parsed on its own, so that an error in one section (or in the name)
 * does not make the others fall back to the embedded bindings and report what is not wrong.
 */
function manifestSections(dir: string, manifest: Manifest | undefined): ManifestSections {
  if (manifest) return { present: true, intents: manifest.intents, strategies: manifest.strategies, tools: manifest.tools };
  let raw: unknown;
  try {
    raw = shallow('harness.yaml', YAML.parse(readText(dir, 'harness.yaml')));
  } catch {
    return { present: false };
  }
  if (raw === null || typeof raw !== 'object') return { present: false };
  const r = raw as Record<string, unknown>;
  const section = <T extends z.ZodType>(key: string, schema: T): z.infer<T> | null | undefined =>
    r[key] === undefined ? undefined : ((schema.safeParse(r[key]).data as z.infer<T> | undefined) ?? null);
  return {
    present: true,
    intents: section('intents', IntentsSectionSchema),
    strategies: section('strategies', StrategiesSectionSchema),
    tools: section('tools', ToolsSectionSchema),
  };
}

/**
 * The bindings of a harness: the manifest's `intents`, `strategies` and `tools` sections, or the embedded
 * harness's where a section is absent. Every binding must name a skill or tool of the directory.
 */
function bindHarness(manifest: ManifestSections, skills: readonly Skill[], skillFiles: readonly string[], toolNames: readonly string[], errors: string[]): HarnessBindings {
  // A skill whose file exists but failed to parse still exists (its file's errors say what is wrong): it
  // is not reported again as missing; its kind is known only when it parsed.
  const kindOf = new Map<string, Skill['kind'] | undefined>(skillFiles.map((n) => [n, undefined]));
  for (const s of skills) kindOf.set(s.name, s.kind);
  const rel = 'harness.yaml';
  // Intents.
  const intents = new Map<Intent, IntentBinding>();
  if (manifest.intents !== undefined) {
    for (const [intent, entry] of Object.entries(manifest.intents ?? {})) {
      const b = intentBindingOf(entry);
      if (intent === 'multi_intent') {
        if (b.skill !== undefined) errors.push(`${rel}: intents.multi_intent.skill: multi_intent is served by its parts' skills; give { generate: true } or leave it out`);
      } else if (b.skill === undefined) {
        errors.push(`${rel}: intents.${intent}: names no skill (give the reply skill that serves it)`);
        continue;
      } else if (!kindOf.has(b.skill)) {
        errors.push(`${rel}: intents.${intent}: "${b.skill}" is not a skill of the harness (skills: ${[...kindOf.keys()].join(', ')})`);
        continue;
      } else if (kindOf.get(b.skill) === 'strategy') {
        errors.push(`${rel}: intents.${intent}: "${b.skill}" is a strategy skill; an intent is served by a reply skill (metadata.kind: reply)`);
        continue;
      }
      intents.set(intent as Intent, intent === 'multi_intent' ? { generate: b.generate } : b);
    }
  } else if (manifest.present || skills.length > 0) {
    for (const [intent, b] of embeddedIntentBindings()) {
      if (b.skill !== undefined && !kindOf.has(b.skill)) {
        errors.push(`skills/zh-CN/${b.skill}.md: (file): missing: the skill "${b.skill}" is needed by ${skillUsers(b.skill)} (or bind the intents to your skills under intents: in harness.yaml)`);
        continue;
      }
      intents.set(intent, b);
    }
  }
  // Strategy roles.
  const strategies = new Map<string, string>();
  if (manifest.strategies !== undefined) {
    for (const [role, skill] of Object.entries(manifest.strategies ?? {})) {
      if (!kindOf.has(skill)) errors.push(`${rel}: strategies.${role}: "${skill}" is not a skill of the harness`);
      else strategies.set(role, skill);
    }
  } else {
    for (const role of STRATEGY_SKILLS) if (kindOf.has(role)) strategies.set(role, role);
  }
  // Tools.
  const tools = new Map<string, ToolBinding>();
  const files = new Set(toolNames);
  if (manifest.tools !== undefined) {
    const byOp = new Map<string, string>();
    const listed = manifest.tools ?? {};
    for (const [tool, value] of Object.entries(listed)) {
      if (!files.has(tool)) {
        errors.push(`${rel}: tools.${tool}: no file tools/${tool}.json`);
        continue;
      }
      const b = toolBindingOf(value);
      if (b.kind === 'builtin') {
        const prior = byOp.get(b.op);
        if (prior !== undefined) {
          errors.push(`${rel}: tools.${tool}: ${value} is already bound to ${prior}; an operation answers one tool`);
          continue;
        }
        byOp.set(b.op, tool);
      }
      tools.set(tool, b);
    }
    for (const t of toolNames) {
      if (manifest.tools !== null && !Object.hasOwn(listed, t)) errors.push(`tools/${t}.json: (file): not bound: add "${t}: <service>.<operation>" or "${t}: custom.<module>" under tools: in harness.yaml`);
    }
  } else {
    for (const t of toolNames) {
      if ((CANONICAL_TOOLS as readonly string[]).includes(t)) tools.set(t, { kind: 'builtin', op: t as CanonicalTool });
      else errors.push(`tools/${t}.json: (file): not bound: "${t}" is not an embedded tool's name; bind it under tools: in harness.yaml (tools: ${CANONICAL_TOOLS.join(', ')})`);
    }
  }
  const loadSkill = [...tools].find(([, b]) => b.kind === 'builtin' && b.op === 'load_skill');
  if (manifest.tools !== null && loadSkill === undefined && [...intents.values()].some((b) => b.skill !== undefined)) {
    errors.push(`${rel}: tools: no tool is bound to environment.load_skill, so no skill can be loaded (bind one, e.g. load_skill: environment.load_skill)`);
  }
  return new HarnessBindings(intents, strategies, tools);
}

/** Where a skill sits in the harness: at its role's place in the embedded order, then the others by name. */
function orderSkills(skills: readonly Skill[], b: HarnessBindings): Skill[] {
  const rank = new Map<string, number>();
  const note = (name: string | undefined, at: number) => {
    if (name !== undefined && at >= 0 && at < (rank.get(name) ?? Infinity)) rank.set(name, at);
  };
  for (const [intent, ib] of b.intents) note(ib.skill, isBuiltinIntent(intent) ? CANONICAL_SKILLS.indexOf(INTENT_REPLY_SKILLS[intent][0] ?? '') : -1);
  for (const [role, skill] of b.strategies) note(skill, CANONICAL_SKILLS.indexOf(role));
  for (const s of skills) note(s.name, CANONICAL_SKILLS.indexOf(s.name));
  return [...skills].sort((x, y) => (rank.get(x.name) ?? Infinity) - (rank.get(y.name) ?? Infinity) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/** Where a tool sits: at its operation's place in the embedded order, then custom tools by name. */
function orderTools(tools: readonly ToolSchema[], b: HarnessBindings): ToolSchema[] {
  const rank = (t: ToolSchema) => {
    const op = b.opOf(t.function.name);
    return op === undefined ? Infinity : CANONICAL_TOOLS.indexOf(op);
  };
  return [...tools].sort((x, y) => rank(x) - rank(y) || (x.function.name < y.function.name ? -1 : x.function.name > y.function.name ? 1 : 0));
}

/** What a tool's service reads of a parameter: its type, and its enum or item schema when it has one. */
function signature(schema: JsonSchema): string {
  const { type, enum: values, items } = schema as { type?: unknown; enum?: unknown; items?: unknown };
  return JSON.stringify({ type, enum: values, items });
}

/** Tools whose parameters are not the ones their simulated service reads. */
function serviceSignatureErrors(tools: readonly ToolSchema[], bindings: HarnessBindings, reference: readonly ToolSchema[]): string[] {
  const errors: string[] = [];
  for (const tool of tools) {
    const name = tool.function.name;
    const op = bindings.opOf(name);
    const ref = op === undefined ? undefined : reference.find((t) => t.function.name === op);
    if (!ref || op === undefined) continue;
    const rel = `tools/${name}.json`;
    const props = tool.function.parameters.properties as Record<string, JsonSchema>;
    const want = ref.function.parameters.properties as Record<string, JsonSchema>;
    const service = `${TOOL_SERVICES[op]} (${OPERATION_OF_TOOL[op]})`;
    for (const p of Object.keys(props)) {
      if (!Object.hasOwn(want, p)) errors.push(`${rel}: function.parameters.properties.${p}: the ${service} reads no parameter "${p}" (it takes ${Object.keys(want).join(', ')})`);
      else if (signature(props[p]) !== signature(want[p])) {
        errors.push(`${rel}: function.parameters.properties.${p}: the ${service} reads ${signature(want[p])}, the file says ${signature(props[p])}`);
      }
    }
    for (const p of Object.keys(want)) if (!Object.hasOwn(props, p)) errors.push(`${rel}: function.parameters.properties: missing "${p}", which the ${service} reads`);
    const req = (t: ToolSchema) => JSON.stringify([...((t.function.parameters.required as string[] | undefined) ?? [])].sort());
    if (req(tool) !== req(ref)) errors.push(`${rel}: function.parameters.required: the ${service} requires ${req(ref)}, the file says ${req(tool)}`);
  }
  return errors;
}

let embedded: HarnessSet | undefined;

/**
 * The embedded harness (the package's `harness/` directory): the default of every command and of the
 * server. Throws HarnessDataError listing every problem when the shipped data is invalid (a bug).
 */
export function embeddedHarness(): HarnessSet {
  if (embedded) return embedded;
  const r = loadHarnessDir(harnessDataDir());
  if (!r.ok) throw new HarnessDataError('harness', '(directory)', r.errors.join('; '));
  embedded = r.harness;
  return embedded;
}

/**
 * The embedded base harness (`id: 'base'`) in `locale`: 12 skills, 15 tools, the prompt pipeline, hooks,
 * retry policy and limits. Deep-frozen and shared.
 */
export function loadBaseHarness(locale: Locale): Harness {
  return embeddedHarness().get(locale);
}
