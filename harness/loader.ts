/**
 * Loads a harness directory (docs/HARNESS.md): `harness.yaml` (the manifest), `skills/<locale>/*.md`,
 * `tools/*.json` (+ `tools/i18n/en.json`), `prompt.yaml` and `hooks.yaml`. The embedded harness (the
 * `harness/` folder of the package) is one such directory, loaded by the same code. Every file is read
 * and validated once; every error of the directory is reported at once, each with its file and key; the
 * result is deep-frozen and shared.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../protocol/package.js';
import YAML from 'yaml';
import type { JsonSchema, Locale, ToolSchema } from '../protocol/domain.js';
import type { Harness, HookSpec, PromptBlock, PromptSpec, RetryPolicy, Skill } from '../protocol/harness.js';
import { REFERENCE_MAX_CHARS } from '../protocol/harness.js';
import { CANONICAL_SKILLS, CANONICAL_TOOLS, HOOK_KIND_STAGES, INTENT_REPLY_SKILLS, PROMPT_BLOCK_ORDER, PROMPT_PLACEHOLDERS, TOOL_SERVICES } from './names.js';
import type { HookKind } from './names.js';
import { REPEATABLE_HOOK_KINDS, VIOLATION_CODES } from './names.js';
import { HOOK_PARAM_SCHEMAS, HooksFileSchema, ManifestSchema, PromptFileSchema, ToolFileSchema, ToolI18nSchema } from './schema.js';
import { HarnessDataError, parseSkillMarkdown } from './skill-markdown.js';
import type { z } from 'zod';

/** The directory holding the base harness's data files. */
export function harnessDataDir(): string {
  return resolve(packageRoot(), 'harness');
}

function readText(dir: string, rel: string): string {
  try {
    return readFileSync(join(dir, rel), 'utf8');
  } catch (err) {
    throw new HarnessDataError(rel, '(file)', `cannot read: ${(err as Error).message}`);
  }
}

function readYaml(dir: string, rel: string): unknown {
  try {
    return YAML.parse(readText(dir, rel));
  } catch (err) {
    if (err instanceof HarnessDataError) throw err;
    throw new HarnessDataError(rel, '(file)', `invalid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

function readJson(dir: string, rel: string): unknown {
  const text = readText(dir, rel);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HarnessDataError(rel, '(file)', `invalid JSON: ${(err as Error).message}`);
  }
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

/** Skills of one locale, in canonical order; exactly the canonical set, each file named after its skill. */
function loadSkills(dir: string, locale: Locale, errors: string[]): Skill[] {
  const folder = `skills/${locale}`;
  let files: string[];
  try {
    files = readdirSync(join(dir, folder)).filter((f) => f.endsWith('.md')).sort();
  } catch {
    errors.push(`${folder}: (folder): missing: a harness has one skill file per skill and locale`);
    return [];
  }
  const expected = [...CANONICAL_SKILLS].map((n) => `${n}.md`).sort();
  for (const f of files) {
    if (!expected.includes(f)) errors.push(`${folder}/${f}: name: not a skill of this harness version (skills: ${CANONICAL_SKILLS.join(', ')})`);
  }
  const out: Skill[] = [];
  for (const name of CANONICAL_SKILLS) {
    const rel = `${folder}/${name}.md`;
    if (!files.includes(`${name}.md`)) {
      errors.push(`${rel}: (file): missing: the skill "${name}" is needed by ${skillUsers(name)}`);
      continue;
    }
    const skill = attempt(errors, () => parseSkillMarkdown(readText(dir, rel), rel));
    if (!skill) continue;
    if (skill.name !== name) errors.push(`${rel}: name: "${skill.name}" does not match the file name`);
    else out.push(skill);
  }
  return out;
}

/** Who needs a canonical skill, for the message of a missing one. */
function skillUsers(name: string): string {
  const intents = Object.entries(INTENT_REPLY_SKILLS)
    .filter(([, skills]) => skills.includes(name))
    .map(([intent]) => intent);
  return intents.length > 0 ? `the intent${intents.length > 1 ? 's' : ''} ${intents.join(', ')}` : 'the strategy-skill operators and the skill index';
}

/** The canonical tool schemas with descriptions in `locale` (zh-CN in the files, others from i18n). */
function loadTools(dir: string, locale: Locale, errors: string[]): ToolSchema[] {
  let listed: string[] = [];
  try {
    listed = readdirSync(join(dir, 'tools')).filter((f) => f.endsWith('.json'));
  } catch {
    errors.push('tools: (folder): missing: a harness has one JSON Schema file per tool');
    return [];
  }
  if (locale === 'zh-CN') {
    for (const f of listed.sort()) {
      if (!(CANONICAL_TOOLS as readonly string[]).includes(f.replace(/\.json$/, ''))) {
        errors.push(`tools/${f}: (file): not a tool of this harness version (tools: ${CANONICAL_TOOLS.join(', ')})`);
      }
    }
  }
  const own: string[] = [];
  const tools: ToolSchema[] = [];
  for (const name of CANONICAL_TOOLS) {
    const rel = `tools/${name}.json`;
    if (!listed.includes(`${name}.json`)) {
      own.push(`${rel}: (file): missing: the tool "${name}" is bound to the ${TOOL_SERVICES[name]}`);
      continue;
    }
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
  const broken = (key: string) => (CANONICAL_TOOLS as readonly string[]).includes(key.split('.')[0]) && !tools.some((t) => t.function.name === key.split('.')[0]);
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
  const ids = file.blocks.map((b) => b.id);
  if (ids.join() !== PROMPT_BLOCK_ORDER.join()) {
    errors.push(`${rel}: blocks: expected blocks ${PROMPT_BLOCK_ORDER.join(', ')} in this order; got ${ids.join(', ')}`);
  }
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
    extra_context: file.extra_context.slice(),
  };
}

function loadHooks(dir: string, locale: Locale, errors: string[]): Pick<Harness, 'hooks' | 'retry' | 'limits'> | undefined {
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
  let toolNames: string[] | undefined;
  try {
    toolNames = readdirSync(join(dir, 'tools')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
  } catch {
    toolNames = undefined;
  }
  const hooks: HookSpec[] = [];
  file.hooks.forEach((h, i) => {
    const at = `${rel}: hooks.${i}`;
    const first = idAt.get(h.id);
    if (first !== undefined) errors.push(`${at}.id: "${h.id}" is already the id of hooks.${first}; hook ids are unique`);
    else idAt.set(h.id, i);
    const kind = (h.kind ?? h.id) as HookKind;
    if (!kinds.includes(kind)) {
      errors.push(
        h.kind === undefined
          ? `${at}.id: "${h.id}" is not a hook kind; give the hook a kind (kinds: ${kinds.join(', ')})`
          : `${at}.kind: unknown hook kind "${h.kind}" (kinds: ${kinds.join(', ')})`,
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
    const data = (params.success ? params.data : {}) as HookSpec['params'];
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

/** Recursively freeze a plain data value, so a shared harness cannot be edited by accident. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

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

  constructor(dir: string, identity: HarnessIdentity, description: string, byLocale: Map<Locale, Harness>) {
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

/** The set each loaded base harness belongs to (variants keep the base as `ctx.base`). */
const SETS = new WeakMap<Harness, HarnessSet>();

/** The set a base harness was loaded with (the embedded one for a harness built elsewhere, e.g. in tests). */
export function harnessSetOf(base: Harness): HarnessSet {
  return SETS.get(base) ?? embeddedHarness();
}

/** The files of a directory, sorted, relative, dotfiles and dot-folders left out. */
function listFiles(dir: string, sub = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, sub)).sort()) {
    if (name.startsWith('.')) continue;
    const rel = sub === '' ? name : `${sub}/${name}`;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

/** The content hash of a harness directory: sha256 over each file's path and bytes, in sorted order. */
export function harnessHash(dir: string): string {
  const h = createHash('sha256');
  for (const rel of listFiles(dir)) {
    if (rel.endsWith('.ts') || rel.endsWith('.js') || rel.endsWith('.map') || rel.endsWith('.d.ts')) continue;
    h.update(rel).update('\0').update(readFileSync(join(dir, rel))).update('\0');
  }
  return `sha256:${h.digest('hex')}`;
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
  const hash = harnessHash(dir);
  const key = `${dir}\0${hash}`;
  const hit = loaded.get(key);
  if (hit) return { ok: true, harness: hit };

  const errors: string[] = [];
  const manifest = readYamlFile(dir, 'harness.yaml', ManifestSchema, errors);
  const byLocale = new Map<Locale, Harness>();
  // The manifest names the locales; both are required in this version, and a broken manifest still lets
  // the other files be checked.
  for (const locale of manifest?.locales ?? (['zh-CN', 'en'] as Locale[])) {
    const skills = loadSkills(dir, locale, errors);
    const tools = loadTools(dir, locale, errors);
    const prompt = loadPrompt(dir, locale, errors);
    const hooks = loadHooks(dir, locale, errors);
    if (prompt && hooks) byLocale.set(locale, { id: 'base', locale, skills, tools, prompt, ...hooks });
  }
  // The simulated services read the embedded tools' parameters: a harness may reword a tool, not change
  // what its service takes (the embedded harness is the reference, so it is not compared with itself).
  const zh = byLocale.get('zh-CN');
  if (zh && dir !== resolve(harnessDataDir())) errors.push(...serviceSignatureErrors(zh.tools, embeddedHarness().get('zh-CN').tools));
  const unique = [...new Set(errors)];
  if (unique.length > 0 || !manifest) return { ok: false, errors: unique };
  for (const h of byLocale.values()) deepFreeze(h);
  const set = new HarnessSet(dir, { name: manifest.name, version: manifest.version, hash }, manifest.description ?? '', byLocale);
  loaded.set(key, set);
  return { ok: true, harness: set };
}

/** What a tool's service reads of a parameter: its type, and its enum or item schema when it has one. */
function signature(schema: JsonSchema): string {
  const { type, enum: values, items } = schema as { type?: unknown; enum?: unknown; items?: unknown };
  return JSON.stringify({ type, enum: values, items });
}

/** Tools whose parameters are not the ones their simulated service reads. */
function serviceSignatureErrors(tools: readonly ToolSchema[], reference: readonly ToolSchema[]): string[] {
  const errors: string[] = [];
  for (const tool of tools) {
    const name = tool.function.name;
    const ref = reference.find((t) => t.function.name === name);
    if (!ref) continue;
    const rel = `tools/${name}.json`;
    const props = tool.function.parameters.properties as Record<string, JsonSchema>;
    const want = ref.function.parameters.properties as Record<string, JsonSchema>;
    const service = TOOL_SERVICES[name as keyof typeof TOOL_SERVICES];
    for (const p of Object.keys(props)) {
      if (!Object.hasOwn(want, p)) errors.push(`${rel}: function.parameters.properties.${p}: the ${service} reads no parameter "${p}" (${name} takes ${Object.keys(want).join(', ')})`);
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
