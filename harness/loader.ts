/**
 * Loads the base harness from the data files next to this module's package root:
 * `skills/<locale>/*.md`, `tools/*.json` (+ `tools/i18n/en.json`), `prompt.yaml` and `hooks.yaml`.
 * Files are read and validated once per locale; the result is deep-frozen and shared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../protocol/package.js';
import YAML from 'yaml';
import type { JsonSchema, Locale, ToolSchema } from '../protocol/domain.js';
import type { Harness, HookSpec, PromptBlock, PromptSpec, RetryPolicy, Skill } from '../protocol/harness.js';
import { CANONICAL_SKILLS, CANONICAL_TOOLS, HOOK_IDS, HOOK_STAGES, PROMPT_BLOCK_ORDER, PROMPT_PLACEHOLDERS } from './names.js';
import type { HookId } from './names.js';
import { HOOK_PARAM_SCHEMAS, HooksFileSchema, PromptFileSchema, ToolFileSchema, ToolI18nSchema } from './schema.js';
import { HarnessDataError, parseSkillMarkdown, throwZodIssue } from './skill-markdown.js';

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

/** Skills of one locale, in canonical order; exactly the canonical set, each file named after its skill. */
function loadSkills(dir: string, locale: Locale): Skill[] {
  const folder = `skills/${locale}`;
  const files = readdirSync(join(dir, folder)).filter((f) => f.endsWith('.md')).sort();
  const expected = [...CANONICAL_SKILLS].map((n) => `${n}.md`).sort();
  for (const f of files) {
    if (!expected.includes(f)) throw new HarnessDataError(`${folder}/${f}`, 'name', 'not a canonical skill');
  }
  return CANONICAL_SKILLS.map((name) => {
    const rel = `${folder}/${name}.md`;
    const skill = parseSkillMarkdown(readText(dir, rel), rel);
    if (skill.name !== name) throw new HarnessDataError(rel, 'name', `"${skill.name}" does not match the file name`);
    return skill;
  });
}

/** The canonical tool schemas with descriptions in `locale` (zh-CN in the files, others from i18n). */
function loadTools(dir: string, locale: Locale): ToolSchema[] {
  const tools = CANONICAL_TOOLS.map((name): ToolSchema => {
    const rel = `tools/${name}.json`;
    const parsed = ToolFileSchema.safeParse(readJson(dir, rel));
    if (!parsed.success) throwZodIssue(rel, parsed.error);
    const fn = parsed.data.function;
    if (fn.name !== name) throw new HarnessDataError(rel, 'function.name', `"${fn.name}" does not match the file name`);
    for (const r of fn.parameters.required ?? []) {
      if (!Object.hasOwn(fn.parameters.properties, r)) {
        throw new HarnessDataError(rel, 'function.parameters.required', `"${r}" is not a property`);
      }
    }
    return parsed.data as ToolSchema;
  });
  if (locale === 'zh-CN') return tools;

  const rel = `tools/i18n/${locale}.json`;
  const parsed = ToolI18nSchema.safeParse(readJson(dir, rel));
  if (!parsed.success) throwZodIssue(rel, parsed.error);
  const texts = parsed.data;
  const wanted = new Set<string>();
  const out = tools.map((t): ToolSchema => {
    const name = t.function.name;
    const text = (key: string): string => {
      wanted.add(key);
      const v = texts[key];
      if (v === undefined) throw new HarnessDataError(rel, key, 'missing description');
      return v;
    };
    const props = t.function.parameters.properties as { [k: string]: JsonSchema };
    const properties: { [k: string]: JsonSchema } = {};
    for (const [p, schema] of Object.entries(props)) properties[p] = { ...schema, description: text(`${name}.${p}`) };
    return {
      type: 'function',
      function: { name, description: text(name), parameters: { ...t.function.parameters, properties } },
    };
  });
  for (const key of Object.keys(texts)) {
    if (!wanted.has(key)) throw new HarnessDataError(rel, key, 'names no tool or parameter');
  }
  return out;
}

const PLACEHOLDER_RE = /\{\{(\w+)\}\}/g;

function checkPlaceholders(rel: string, key: string, text: string): void {
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    if (!PROMPT_PLACEHOLDERS.includes(m[1])) throw new HarnessDataError(rel, key, `unknown placeholder {{${m[1]}}}`);
  }
}

function loadPrompt(dir: string, locale: Locale): PromptSpec {
  const rel = 'prompt.yaml';
  const parsed = PromptFileSchema.safeParse(readYaml(dir, rel));
  if (!parsed.success) throwZodIssue(rel, parsed.error);
  const file = parsed.data;
  const ids = file.blocks.map((b) => b.id);
  if (ids.join() !== PROMPT_BLOCK_ORDER.join()) {
    throw new HarnessDataError(rel, 'blocks', `expected blocks ${PROMPT_BLOCK_ORDER.join(', ')}; got ${ids.join(', ')}`);
  }
  const blocks = file.blocks.map((b, i): PromptBlock => {
    const text = b[locale];
    checkPlaceholders(rel, `blocks.${i}.${locale}.template`, text.template);
    text.items.forEach((item, j) => checkPlaceholders(rel, `blocks.${i}.${locale}.items.${j}`, item));
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

function loadHooks(dir: string, locale: Locale): Pick<Harness, 'hooks' | 'retry' | 'limits'> {
  const rel = 'hooks.yaml';
  const parsed = HooksFileSchema.safeParse(readYaml(dir, rel));
  if (!parsed.success) throwZodIssue(rel, parsed.error);
  const file = parsed.data;
  const ids = file.hooks.map((h) => h.id);
  if (ids.join() !== HOOK_IDS.join()) {
    throw new HarnessDataError(rel, 'hooks', `expected hooks ${HOOK_IDS.join(', ')}; got ${ids.join(', ')}`);
  }
  const hooks = file.hooks.map((h, i): HookSpec => {
    const id = h.id as HookId;
    if (h.stage !== HOOK_STAGES[id]) throw new HarnessDataError(rel, `hooks.${i}.stage`, `${id} runs at stage ${HOOK_STAGES[id]}`);
    const params = HOOK_PARAM_SCHEMAS[id].safeParse(h.params);
    if (!params.success) throwZodIssue(rel, params.error, ['hooks', i, 'params']);
    return { id, stage: h.stage, enabled: h.enabled, params: params.data as HookSpec['params'] };
  });
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

const cache = new Map<Locale, Harness>();

/**
 * The base harness (`id: 'base'`) in `locale`: 12 skills, 14 tools, the prompt pipeline, hooks, retry
 * policy and limits. Read and validated on first use per locale, then cached; deep-frozen.
 * Throws HarnessDataError (naming the file and key) when the shipped data is invalid.
 */
export function loadBaseHarness(locale: Locale): Harness {
  const hit = cache.get(locale);
  if (hit) return hit;
  const dir = harnessDataDir();
  const harness: Harness = {
    id: 'base',
    locale,
    skills: loadSkills(dir, locale),
    tools: loadTools(dir, locale),
    prompt: loadPrompt(dir, locale),
    ...loadHooks(dir, locale),
  };
  deepFreeze(harness);
  cache.set(locale, harness);
  return harness;
}

/**
 * The base retry templates in `locale`, for variants that switch `feedback_locale` away from the
 * harness's own locale.
 */
export function baseRetryTemplates(locale: Locale): { readonly [code: string]: string } {
  return loadBaseHarness(locale).retry.templates;
}
