/**
 * What changed between two harnesses (`harness-gym harness diff OLD NEW`): skills, tools, parameters,
 * hooks, prompt blocks, the retry policy and the limits added, removed or changed, per locale (scalar
 * settings with their old and new values); bindings; task files, task by task; and every other file that
 * enters the harness's hash (`paraphrases.yaml`, `services/*.mjs`, a README), so that no edit that changes
 * the hash goes unsaid. The weekly edit of a team's harness, said as a list, so that it can be reviewed
 * and trained against.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { FILE_LIMITS, forEachChunk, readLines, walkFiles } from '../protocol/files.js';
import type { JsonSchema, Locale } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import type { HarnessSet } from './loader.js';
import { bindingLabel } from './bindings.js';

/** One difference: what kind of part, its name, and what happened to it. */
export interface HarnessChange {
  /** `+` added, `-` removed, `~` changed. */
  op: '+' | '-' | '~';
  part: 'manifest' | 'skill' | 'tool' | 'parameter' | 'hook' | 'prompt block' | 'prompt' | 'retry' | 'limits' | 'binding' | 'task file' | 'file';
  /** The part's name (`tool.parameter` for a parameter). */
  name: string;
  /** Locales where it happened (both when the change is the same in each; none for the manifest's name, version and description). */
  locales: Locale[];
  /** For `~`: the fields that differ. */
  fields?: string[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The keys of `a` and `b` whose values differ. */
function differing<T extends object>(a: T, b: T, keys: readonly (keyof T)[]): string[] {
  return keys.filter((k) => !same(a[k], b[k])).map(String);
}

function byName<T>(items: readonly T[], name: (t: T) => string): Map<string, T> {
  return new Map(items.map((t) => [name(t), t]));
}

/** Added, removed and changed entries of two name-keyed lists. */
function compareNamed<T>(
  out: Omit<HarnessChange, 'locales'>[],
  part: HarnessChange['part'],
  before: Map<string, T>,
  after: Map<string, T>,
  fields: (a: T, b: T) => string[],
): void {
  for (const name of before.keys()) if (!after.has(name)) out.push({ op: '-', part, name });
  for (const [name, b] of after) {
    const a = before.get(name);
    if (a === undefined) out.push({ op: '+', part, name });
    else {
      const f = fields(a, b);
      if (f.length > 0) out.push({ op: '~', part, name, fields: f });
    }
  }
}

function localeChanges(a: Harness, b: Harness): Omit<HarnessChange, 'locales'>[] {
  const out: Omit<HarnessChange, 'locales'>[] = [];
  compareNamed(out, 'skill', byName(a.skills, (s) => s.name), byName(b.skills, (s) => s.name), (x, y) =>
    differing(x, y, ['description', 'kind', 'intents', 'body', 'metadata']).filter((f, _i, all) => f !== 'metadata' || !all.includes('intents')),
  );
  const toolsA = byName(a.tools, (t) => t.function.name);
  const toolsB = byName(b.tools, (t) => t.function.name);
  compareNamed(out, 'tool', toolsA, toolsB, (x, y) => {
    const f: string[] = [];
    if (x.function.description !== y.function.description) f.push('description');
    const req = (t: typeof x): string[] => [...((t.function.parameters.required as string[] | undefined) ?? [])].sort();
    if (!same(req(x), req(y))) f.push('required');
    const order = (t: typeof x) => Object.keys(t.function.parameters.properties as object);
    if (!same(order(x), order(y)) && same([...order(x)].sort(), [...order(y)].sort())) f.push('parameter order');
    return f;
  });
  for (const [name, tb] of toolsB) {
    const ta = toolsA.get(name);
    if (!ta) continue;
    const pa = ta.function.parameters.properties as Record<string, JsonSchema>;
    const pb = tb.function.parameters.properties as Record<string, JsonSchema>;
    compareNamed(out, 'parameter', new Map(Object.entries(pa).map(([k, v]) => [`${name}.${k}`, v])), new Map(Object.entries(pb).map(([k, v]) => [`${name}.${k}`, v])), (x, y) => {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
      return keys.filter((k) => !same((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]));
    });
  }
  compareNamed(out, 'hook', byName(a.hooks, (h) => h.id), byName(b.hooks, (h) => h.id), (x, y) => differing(x, y, ['kind', 'module', 'stage', 'enabled', 'params']));
  compareNamed(out, 'prompt block', byName(a.prompt.blocks, (p) => p.id), byName(b.prompt.blocks, (p) => p.id), (x, y) =>
    differing(x, y, ['title', 'template', 'items']),
  );
  const order = (h: Harness) => h.prompt.blocks.map((p) => p.id);
  const promptFields = differing(a.prompt, b.prompt, ['header_style', 'separator', 'item_style', 'tools_doc_style', 'extra_context']);
  if (!same(order(a), order(b))) promptFields.push('block order');
  if (promptFields.length > 0) out.push({ op: '~', part: 'prompt', name: 'pipeline', fields: promptFields });
  const retryFields = withValues(a.retry, b.retry, differing(a.retry, b.retry, ['max_retries', 'mode', 'feedback_style', 'templates']));
  if (retryFields.length > 0) out.push({ op: '~', part: 'retry', name: 'policy', fields: retryFields });
  const limitFields = withValues(a.limits, b.limits, differing(a.limits, b.limits, ['reply_max_chars', 'max_turns']));
  if (limitFields.length > 0) out.push({ op: '~', part: 'limits', name: 'limits', fields: limitFields });
  return out;
}

/** Changed fields with their old and new values where those are scalars (`reply_max_chars 120 -> 140`). */
function withValues<T extends object>(a: T, b: T, fields: readonly string[]): string[] {
  const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  return fields.map((f) => {
    const x = (a as Record<string, unknown>)[f];
    const y = (b as Record<string, unknown>)[f];
    return scalar(x) && scalar(y) ? `${f} ${JSON.stringify(x)} -> ${JSON.stringify(y)}` : f;
  });
}

/** Every difference between two harnesses, merged over their locales, in a stable order. */
export function diffHarness(before: HarnessSet, after: HarnessSet): HarnessChange[] {
  const merged = new Map<string, HarnessChange>();
  const locales = [...new Set([...before.locales, ...after.locales])];
  for (const locale of locales) {
    if (!before.locales.includes(locale) || !after.locales.includes(locale)) continue;
    for (const c of localeChanges(before.get(locale), after.get(locale))) {
      const key = `${c.op}\0${c.part}\0${c.name}\0${(c.fields ?? []).join(',')}`;
      const hit = merged.get(key);
      if (hit) hit.locales.push(locale);
      else merged.set(key, { ...c, locales: [locale] });
    }
  }
  const all = [...before.locales, ...after.locales].filter((l, i, xs) => xs.indexOf(l) === i && before.locales.includes(l) && after.locales.includes(l));
  for (const c of bindingChanges(before, after)) merged.set(`binding\0${c.name}`, { ...c, locales: all });
  for (const c of fileChanges(before, after)) merged.set(`file\0${c.part}\0${c.name}`, { ...c, locales: all });
  const changes = [...manifestChanges(before, after), ...merged.values()];
  // A parsed file whose bytes changed while none of its parts did (a comment, the layout, the locales'
  // order): still an edit of the hash, so it is said as the file's content.
  const unsaid = parsedFileEdits(before, after).filter((rel) => !changes.some((c) => saysFile(c, rel)));
  for (const rel of unsaid) changes.push({ op: '~', part: 'file', name: rel, locales: all, fields: ['content'] });
  return changes;
}

/** How much of a description a diff line shows (around the first difference when it is long). */
const DESCRIPTION_CHARS = 60;

/** `a` and `b` flattened to one line and shortened to the part around where they first differ. */
function shortenPair(a: string, b: string): [string, string] {
  const x = a.replace(/\s+/g, ' ').trim();
  const y = b.replace(/\s+/g, ' ').trim();
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const start = x.length <= DESCRIPTION_CHARS && y.length <= DESCRIPTION_CHARS ? 0 : Math.max(0, i - 20);
  const cut = (s: string) => {
    if (s === '') return '(none)';
    const part = s.slice(start, start + DESCRIPTION_CHARS);
    return `${start > 0 ? '…' : ''}${part}${start + DESCRIPTION_CHARS < s.length ? '…' : ''}`;
  };
  return [cut(x), cut(y)];
}

/** The manifest's name, version and description, old and new (`~ manifest version: 0.1.0 -> 0.1.9`). */
function manifestChanges(before: HarnessSet, after: HarnessSet): HarnessChange[] {
  const out: HarnessChange[] = [];
  const scalar = (name: string, a: string, b: string) => {
    if (a !== b) out.push({ op: '~', part: 'manifest', name, locales: [], fields: [`${a} -> ${b}`] });
  };
  scalar('name', before.identity.name, after.identity.name);
  scalar('version', before.identity.version, after.identity.version);
  if (before.description !== after.description) {
    const [a, b] = shortenPair(before.description, after.description);
    // Descriptions that differ only in their line breaks read the same once flattened.
    out.push({ op: '~', part: 'manifest', name: 'description', locales: [], fields: [a === b ? 'line breaks' : `${a} -> ${b}`] });
  }
  return out;
}

/** Whether a change says an edit of the parsed file `rel`. */
function saysFile(c: HarnessChange, rel: string): boolean {
  if (rel === 'harness.yaml') return c.part === 'manifest' || c.part === 'binding';
  if (rel === 'prompt.yaml') return c.part === 'prompt block' || c.part === 'prompt';
  if (rel === 'hooks.yaml') return c.part === 'hook' || c.part === 'retry' || c.part === 'limits';
  const skill = /^skills\/[^/]+\/(.+)\.md$/.exec(rel);
  if (skill) return c.part === 'skill' && c.name === skill[1];
  if (rel.startsWith('tools/i18n/')) return c.part === 'tool' || c.part === 'parameter';
  const tool = /^tools\/(.+)\.json$/.exec(rel);
  if (tool) return (c.part === 'tool' && c.name === tool[1]) || (c.part === 'parameter' && c.name.startsWith(`${tool[1]}.`));
  return false;
}

/** The parsed files (manifest, prompt, hooks, skills, tools) present in both whose bytes differ. */
function parsedFileEdits(before: HarnessSet, after: HarnessSet): string[] {
  const a = fileHashes(before);
  const b = fileHashes(after);
  return [...b.keys()].filter((rel) => PARSED.test(rel) && a.has(rel) && a.get(rel) !== b.get(rel)).sort();
}

/** How a binding reads in a diff: `skill product-qa`, `product.get_product`, `not served`. */
function bindingValues(h: HarnessSet): Map<string, string> {
  const out = new Map<string, string>();
  const b = h.bindings;
  for (const [intent, ib] of b.intents) {
    // A harness's own intent: its module and weight too (the module's text is a file of the hash, below).
    const own = ib.module === undefined ? '' : ` (module ${ib.module}, weight ${ib.weight ?? 1})`;
    out.set(`intent ${intent}`, `${ib.skill ?? '(its parts)'}${ib.generate ? '' : ' (task files only)'}${own}`);
  }
  for (const [role, skill] of b.strategies) out.set(`strategy ${role}`, skill);
  for (const [tool, tb] of b.tools) out.set(`tool ${tool}`, bindingLabel(tb));
  return out;
}

/** Bindings added, removed or rebound, and task files of the directory added or removed. */
function bindingChanges(before: HarnessSet, after: HarnessSet): Omit<HarnessChange, 'locales'>[] {
  const out: Omit<HarnessChange, 'locales'>[] = [];
  const a = bindingValues(before);
  const b = bindingValues(after);
  for (const [name, v] of a) if (!b.has(name)) out.push({ op: '-', part: 'binding', name, fields: [v] });
  for (const [name, v] of b) {
    const old = a.get(name);
    if (old === undefined) out.push({ op: '+', part: 'binding', name, fields: [v] });
    else if (old !== v) out.push({ op: '~', part: 'binding', name, fields: [`${old} -> ${v}`] });
  }
  return out;
}

/** Files whose edits the parts above already say (parsed and compared field by field). */
const PARSED = /^(harness\.yaml|prompt\.yaml|hooks\.yaml|skills\/.*|tools\/.*)$/;
/** Files that are not part of the hash (the embedded harness's loader code). */
const CODE = /\.(ts|js|map)$/;

/** The sha256 of each file of a harness directory that enters its hash, by relative path. */
function fileHashes(h: HarnessSet): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of walkFiles(h.dir).files) {
    if (CODE.test(rel)) continue;
    const hash = createHash('sha256');
    try {
      forEachChunk(join(h.dir, rel), { maxBytes: FILE_LIMITS.other_bytes, what: 'a file of a harness directory', within: h.dir }, (c) => hash.update(c));
    } catch {
      // The loader refused the directory already if a file could not be read; a file gone since is "removed".
      continue;
    }
    out.set(rel, hash.digest('hex'));
  }
  return out;
}

/** Each task line of a task file by its id (the line's text), or null when the file cannot be read. */
function tasksById(path: string): Map<string, string> | null {
  const out = new Map<string, string>();
  try {
    for (const l of readLines(path, { maxBytes: FILE_LIMITS.task_file_bytes, maxLineBytes: FILE_LIMITS.task_line_bytes, what: 'a task file' })) {
      if (!('text' in l) || l.text.trim() === '') continue;
      try {
        const id = (JSON.parse(l.text) as { id?: unknown }).id;
        if (typeof id === 'string') out.set(id, l.text.trim());
      } catch {
        // The loader validated every line.
      }
    }
  } catch {
    return null;
  }
  return out;
}

/** A task file's edit: tasks added, removed and changed (by id). */
function taskFileEdit(before: string, after: string): string[] {
  const a = tasksById(before);
  const b = tasksById(after);
  if (a === null || b === null) return ['content'];
  const added = [...b.keys()].filter((id) => !a.has(id)).length;
  const removed = [...a.keys()].filter((id) => !b.has(id)).length;
  const changed = [...b.keys()].filter((id) => a.has(id) && a.get(id) !== b.get(id)).length;
  const n = (k: number, what: string) => `${k} task${k === 1 ? '' : 's'} ${what}`;
  const parts = [added > 0 ? n(added, 'added') : '', removed > 0 ? n(removed, 'removed') : '', changed > 0 ? n(changed, 'changed') : ''].filter(Boolean);
  return parts.length > 0 ? parts : ['order or blank lines'];
}

/**
 * Task files added, removed or edited, and every other file of the hash that the parts do not cover
 * (`paraphrases.yaml`, `services/*.mjs`, notes): added, removed, or its content changed.
 */
function fileChanges(before: HarnessSet, after: HarnessSet): Omit<HarnessChange, 'locales'>[] {
  const out: Omit<HarnessChange, 'locales'>[] = [];
  const a = fileHashes(before);
  const b = fileHashes(after);
  const isTasks = (rel: string) => /^tasks\/[^/]+\.jsonl$/.test(rel);
  const names = [...new Set([...a.keys(), ...b.keys()])].filter((rel) => !PARSED.test(rel)).sort();
  for (const rel of names) {
    const part: HarnessChange['part'] = isTasks(rel) ? 'task file' : 'file';
    const x = a.get(rel);
    const y = b.get(rel);
    if (x === undefined) out.push({ op: '+', part, name: rel });
    else if (y === undefined) out.push({ op: '-', part, name: rel });
    else if (x !== y) out.push({ op: '~', part, name: rel, fields: part === 'task file' ? taskFileEdit(join(before.dir, rel), join(after.dir, rel)) : ['content'] });
  }
  return out;
}

/** The changes as lines: `~ tool get_product: description (zh-CN, en)`. */
export function formatHarnessDiff(changes: readonly HarnessChange[]): string {
  return changes
    .map((c) => `${c.op} ${c.part} ${c.name}${c.fields ? `: ${c.fields.join(', ')}` : ''}${c.locales.length > 0 ? ` (${c.locales.join(', ')})` : ''}`)
    .join('\n');
}
