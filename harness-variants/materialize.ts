/**
 * Turn a finished draft into the surface harness: apply the rename tables to tool schemas (names,
 * parameters, nesting, surface-only parameters) and skills, and rewrite every mention of a renamed
 * identifier in the harness's text (skill bodies, descriptions, prompt templates), so that the variant
 * is self-consistent: no text points at a name the variant no longer has.
 */
import type { JsonSchema, ToolSchema } from '../protocol/domain.js';
import type { Harness, PromptBlock, Skill } from '../protocol/harness.js';
import type { RenameTables, VariantDraft } from './types.js';

/**
 * A rewriter for identifiers in prose. Tool names and parameter or field names that are unmistakably
 * identifiers (snake_case, they contain "_") are rewritten wherever they stand. Skill names are rewritten
 * only where the text marks them as names, in backticks (`promotion`): several are ordinary words
 * ("promotion", "after-sales") that prose uses in their plain sense.
 *
 * Precisely, the text is read left to right as the regex /`[^`\n]{1,80}`|[A-Za-z0-9_-]+/g would match
 * it: a backticked span whose inner text is a renamed skill becomes that skill's surface name (still in
 * backticks); in any other span and outside spans, a maximal run of identifier characters that is a
 * renamed name becomes its surface name.
 */
export function textRewriter(tables: RenameTables): (text: string) => string {
  return rewriterOf(Object.entries(tables.tools), Object.entries(tables.fields), Object.entries(tables.skills));
}

/** `textRewriter` from the renames as (canonical, surface) pairs, in the tables' order. */
export function rewriterOf(
  tools: Iterable<[string, string]>,
  fields: Iterable<[string, string]>,
  skills: Iterable<[string, string]>,
): (text: string) => string {
  const bare = new Map<string, string>();
  for (const [c, s] of tools) bare.set(c, s);
  for (const [c, s] of fields) if (c.includes('_')) bare.set(c, s);
  const quoted = new Map<string, string>(skills);
  if (bare.size === 0 && quoted.size === 0) return (t) => t;
  const { spansAndNames, names } = matchers([...bare.keys()]);
  // The regexes have no capturing group: a replacer gets the match, its offset and the whole text.
  // A name matched inside a longer run (the regex does not look behind) is no token: left as it is.
  const rewriteName = (m: string, at: number, whole: string): string =>
    at > 0 && isIdentifierCode(whole.charCodeAt(at - 1)) ? m : (bare.get(m) ?? m);
  return (text) =>
    text.replace(spansAndNames, (m: string, at: number, whole: string) => {
      if (m.charCodeAt(0) !== 96 /* ` */) return rewriteName(m, at, whole);
      const skill = quoted.get(m.slice(1, -1));
      if (skill !== undefined) return `\`${skill}\``;
      return names === null ? m : m.replace(names, rewriteName);
    });
}

// Rewriting matches only what may change: backticked spans, and runs that are a name some variant
// renamed. Reading every identifier run (a callback per word) made rewriting the bulk of materialising;
// a regex of the names finds the few that matter at the regex engine's speed. The names are those any
// rewriter was made for (tools, skills and fields: a few dozen), so the regex is rebuilt only when a name
// is renamed for the first time; the set is bounded, starting afresh when it would grow past the bound.
//
// A name must end a run (the lookahead, which also makes the regex try the alternative that is the whole
// run); whether it starts one is checked on a match, not by looking behind at every position (that kept
// the regex engine from skipping ahead). A match that does not start a run lies inside a longer run,
// where no other token can start (its characters all follow identifier characters; none is a backtick).

/** A run of identifier characters, whole: a name can only ever match one. */
const IDENTIFIER_RE = /^[A-Za-z0-9_-]+$/;
const MAX_NAMES = 256;
const SPAN = '`[^`\\n]{1,80}`';
/** The names the matchers find, and the matchers. */
const renamedNames = new Set<string>();
let current: { spansAndNames: RegExp; names: RegExp | null } = { spansAndNames: new RegExp(SPAN, 'g'), names: null };

/**
 * A regex of every span and every name of `renamed` (and of earlier rewriters), and one of the names alone
 * (null: none), both global. A name with a character no run holds never matches a run: it is left out.
 */
function matchers(renamed: readonly string[]): { spansAndNames: RegExp; names: RegExp | null } {
  const fresh = renamed.filter((n) => IDENTIFIER_RE.test(n) && !renamedNames.has(n));
  if (fresh.length > 0) {
    if (renamedNames.size + fresh.length > MAX_NAMES) renamedNames.clear();
    for (const n of renamed) if (IDENTIFIER_RE.test(n)) renamedNames.add(n);
    // Identifier characters need no escaping ("-" is literal outside a class).
    const names = `(?:${[...renamedNames].join('|')})(?![A-Za-z0-9_-])`;
    current = { spansAndNames: new RegExp(`${SPAN}|${names}`, 'g'), names: new RegExp(names, 'g') };
  }
  return current;
}

function isIdentifierCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * A tool's parameters with the tables applied. The draft's own objects are kept where the tables change
 * nothing: the properties map when no key is renamed, no description rewritten and nothing added (a new
 * map is made from the first change on), and the whole parameters object when `required` is unchanged too.
 */
function renameSchema(tool: string, params: JsonSchema, tables: RenameTables, rewrite: (t: string) => string): JsonSchema {
  const props = (params.properties ?? {}) as Record<string, JsonSchema>;
  const required = (params.required ?? []) as string[];
  const keys = Object.keys(props);
  // Only a plain object can stand for the map built from its keys.
  let out: Record<string, JsonSchema> | null =
    typeof params.properties === 'object' && params.properties !== null && !Array.isArray(params.properties) ? null : {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const name = tables.fields[k] ?? k;
    const schema = rewriteProperty(props[k], rewrite);
    if (out === null && (name !== k || schema !== props[k])) out = copyOf(props, keys, i);
    if (out !== null) out[name] = schema;
  }
  for (const extra of tables.extra_params[tool] ?? []) {
    if (!(extra in (out ?? props))) (out ??= copyOf(props, keys, keys.length))[extra] = { type: 'string' };
  }
  const renamedRequired = required.map((r) => tables.fields[r] ?? r);
  if (out === null && required.length > 0 && renamedRequired.every((r, i) => r === required[i])) return nest(tool, params, tables);
  const inner: JsonSchema = { ...params, properties: out ?? props, required: renamedRequired };
  if (renamedRequired.length === 0) delete inner.required;
  return nest(tool, inner, tables);
}

/** A new map of the first `count` keys of `props`. */
function copyOf(props: Record<string, JsonSchema>, keys: readonly string[], count: number): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (let j = 0; j < count; j++) out[keys[j]] = props[keys[j]];
  return out;
}

/** The parameters as the tool takes them: wrapped in one object parameter when the variant nests it. */
function nest(tool: string, inner: JsonSchema, tables: RenameTables): JsonSchema {
  const wrapper = tables.nest[tool];
  if (wrapper === undefined) return inner;
  return { type: 'object', properties: { [wrapper]: inner }, required: [wrapper], additionalProperties: false };
}

/** A property schema with its description rewritten; the draft's own schema object when nothing changes. */
function rewriteProperty(v: JsonSchema, rewrite: (t: string) => string): JsonSchema {
  const description = v.description;
  const rewritten = typeof description === 'string' ? rewrite(description) : description;
  if (rewritten === description && typeof v === 'object' && !Array.isArray(v)) return v;
  return typeof description === 'string' ? { ...v, description: rewritten } : { ...v };
}

function renameTool(t: ToolSchema, tables: RenameTables, rewrite: (s: string) => string): ToolSchema {
  const canonical = t.function.name;
  const name = tables.tools[canonical] ?? canonical;
  const parameters = renameSchema(canonical, t.function.parameters, tables, rewrite);
  const description = t.function.description;
  // Keep the OpenAI key order: name, description, parameters.
  return {
    type: 'function',
    function: description === undefined ? { name, parameters } : { name, description: rewrite(description), parameters },
  };
}

/** A skill with its name and texts in surface form; the draft's own object when nothing changes. */
function renameSkill(s: Skill, tables: RenameTables, rewrite: (t: string) => string): Skill {
  const name = tables.skills[s.name] ?? s.name;
  const description = rewrite(s.description);
  const body = rewrite(s.body);
  return name === s.name && description === s.description && body === s.body ? s : { ...s, name, description, body };
}

function rewriteBlock(b: PromptBlock, rewrite: (t: string) => string): PromptBlock {
  return { ...b, title: rewrite(b.title), template: rewrite(b.template), items: b.items.map(rewrite) };
}

/**
 * Apply the draft's tables: the surface harness the policy sees. It shares with the draft whatever
 * needs no change (the draft is a private working copy, not used afterwards).
 */
export function materialize(draft: VariantDraft, id: string): Harness {
  const { harness, tables } = draft;
  const rewrite = textRewriter(tables);
  return {
    ...harness,
    id,
    ...(Object.keys(tables.fields).length > 0 ? { field_names: { ...tables.fields } } : {}),
    tools: harness.tools.map((t) => renameTool(t, tables, rewrite)),
    skills: harness.skills.map((s) => renameSkill(s, tables, rewrite)),
    prompt: {
      ...harness.prompt,
      blocks: harness.prompt.blocks.map((b) => rewriteBlock(b, rewrite)),
      extra_context: harness.prompt.extra_context.slice(),
    },
  };
}
