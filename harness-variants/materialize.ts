/**
 * Turn a finished draft into the surface harness: apply the rename tables to tool schemas (names,
 * parameters, nesting, surface-only parameters) and skills, and rewrite every mention of a renamed
 * identifier in the harness's text (skill bodies, descriptions, prompt templates), so that the variant
 * is self-consistent: no text points at a name the variant no longer has.
 */
import type { JsonSchema, ToolSchema } from '../protocol/domain.js';
import type { Harness, PromptBlock, Skill } from '../protocol/harness.js';
import type { RenameTables, VariantDraft } from './types.js';
import { isIdentifierName } from '../harness/index.js';

/**
 * A rewriter for identifiers in prose. Tool names, parameter or field names that are unmistakably
 * identifiers (snake_case, they contain "_") and skill names that hold a digit (`faq-v2`; no skill name
 * holds "_") are rewritten wherever they stand. Other skill names are rewritten only where the text marks
 * them as names, in backticks (`promotion`): they are words ("promotion", "after-sales") that prose uses
 * in their plain sense, and `validate` refuses a bare one where it reads as the name
 * (harness/name-mentions.ts), so no variant serves a canonical skill name.
 *
 * Precisely, the text is read left to right as the regex /`[^`\n]{1,80}`|[A-Za-z0-9_-]+/g would match
 * it: a backticked span whose inner text is a renamed skill becomes that skill's surface name (still in
 * backticks); in any other span and outside spans, a maximal run of identifier characters that is a
 * renamed name becomes its surface name.
 */
export function textRewriter(tables: RenameTables, stable?: ReadonlySet<string>): (text: string) => string {
  // The tables are dictionaries: read in place (`for...in`, own keys only, lists them in Object.entries order).
  const bare = new Map<string, string>();
  for (const c in tables.tools) if (Object.hasOwn(tables.tools, c)) bare.set(c, tables.tools[c]);
  for (const c in tables.fields) if (Object.hasOwn(tables.fields, c) && c.includes('_')) bare.set(c, tables.fields[c]);
  const quoted = new Map<string, string>();
  for (const c in tables.skills) {
    if (!Object.hasOwn(tables.skills, c)) continue;
    quoted.set(c, tables.skills[c]);
    if (isIdentifierName(c) && !bare.has(c)) bare.set(c, tables.skills[c]);
  }
  return rewriterFrom(bare, quoted, stable);
}

/**
 * `textRewriter` from the renames as (canonical, surface) pairs, in the tables' order. `stable`: texts
 * that come back on every reset (a base harness's: `stableTexts`), whose tokens are kept.
 */
export function rewriterOf(
  tools: Iterable<[string, string]>,
  fields: Iterable<[string, string]>,
  skills: Iterable<[string, string]>,
  stable?: ReadonlySet<string>,
): (text: string) => string {
  const bare = new Map<string, string>();
  for (const [c, s] of tools) bare.set(c, s);
  for (const [c, s] of fields) if (c.includes('_')) bare.set(c, s);
  const quoted = new Map<string, string>(skills);
  for (const [c, s] of quoted) if (isIdentifierName(c) && !bare.has(c)) bare.set(c, s);
  return rewriterFrom(bare, quoted, stable);
}

/** The rewriter of bare names (tools, snake_case fields) and backticked skill names. */
function rewriterFrom(bare: ReadonlyMap<string, string>, quoted: ReadonlyMap<string, string>, stable: ReadonlySet<string> | undefined): (text: string) => string {
  if (bare.size === 0 && quoted.size === 0) return (t) => t;
  const m = matchers([...bare.keys()]);
  return (text) => {
    const tokens = tokensOf(text, m, stable);
    if (tokens.length === 0) return text;
    // The text between the tokens is copied as it is; `out` stays null until a token changes.
    let out: string | null = null;
    let done = 0;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      let surface: string | undefined;
      if (t.names === null) surface = bare.get(t.text);
      else {
        const skill = quoted.get(t.inner as string);
        surface = skill !== undefined ? `\`${skill}\`` : t.names.length === 0 ? undefined : rewriteSpan(t, bare);
      }
      if (surface === undefined) continue;
      out = (out ?? '') + text.slice(done, t.start) + surface;
      done = t.start + t.text.length;
    }
    return out === null ? text : out + text.slice(done);
  };
}

/**
 * Where a text may change, found once per text: each backticked span, and each run of identifier
 * characters, whole, that is a name some rewriter was made for (`names` of a span: such runs inside it, by
 * offset in the span). A rewriter then only looks its tokens up, and returns the text itself when none
 * changes: the texts of a base harness come back on every reset, and most of them mention nothing a variant
 * renamed.
 */
interface Token {
  start: number;
  /** The span with its backticks, or the name. */
  text: string;
  /** A span's text between its backticks; null for a name. */
  inner: string | null;
  /** For a span, its names: [offset in the span, name]; null for a name outside spans. */
  names: [number, string][] | null;
}

/** A span's text with its names rewritten (it is no renamed skill); undefined when none is renamed. */
function rewriteSpan(t: Token, bare: ReadonlyMap<string, string>): string | undefined {
  let out: string | null = null;
  let done = 0;
  for (const [at, name] of t.names as [number, string][]) {
    const surface = bare.get(name);
    if (surface === undefined) continue;
    out = (out ?? '') + t.text.slice(done, at) + surface;
    done = at + name.length;
  }
  return out === null ? undefined : out + t.text.slice(done);
}

// Rewriting matches only what may change: backticked spans, and runs that are a name some variant
// renamed. Reading every identifier run (a callback per word) made rewriting the bulk of materialising;
// a regex of the names finds the few that matter at the regex engine's speed, once per text (`tokensOf`).
// The names are those any rewriter was made for (tools, skills and fields: a few dozen), so the regex is
// rebuilt only when a name is renamed for the first time; the set is bounded, starting afresh when it
// would grow past the bound.
//
// A name must end a run (the lookahead, which also makes the regex try the alternative that is the whole
// run); whether it starts one is checked on a match, not by looking behind at every position (that kept
// the regex engine from skipping ahead). A match that does not start a run lies inside a longer run,
// where no other token can start (its characters all follow identifier characters; none is a backtick).

/** A run of identifier characters, whole: a name can only ever match one. */
const IDENTIFIER_RE = /^[A-Za-z0-9_-]+$/;
const MAX_NAMES = 256;
const SPAN = '`[^`\\n]{1,80}`';

/**
 * The matchers of one set of names. Sets grow (a new matcher for more names, `generation` + 1) and start
 * afresh past the bound (a new `epoch`): a text's tokens found by one matcher serve any rewriter whose
 * matcher is of the same epoch and no later generation (its names are among those found).
 */
interface Matchers {
  spansAndNames: RegExp;
  /** Null: no names. */
  names: RegExp | null;
  epoch: number;
  generation: number;
}

/** The names the matchers find, and the matchers. */
const renamedNames = new Set<string>();
let current: Matchers = { spansAndNames: new RegExp(SPAN, 'g'), names: null, epoch: 0, generation: 0 };

/**
 * A regex of every span and every name of `renamed` (and of earlier rewriters), and one of the names alone
 * (null: none), both global. A name with a character no run holds never matches a run: it is left out.
 */
function matchers(renamed: readonly string[]): Matchers {
  const fresh = renamed.filter((n) => !renamedNames.has(n) && IDENTIFIER_RE.test(n));
  if (fresh.length > 0) {
    let { epoch, generation } = current;
    if (renamedNames.size + fresh.length > MAX_NAMES) {
      renamedNames.clear();
      epoch++;
      generation = 0;
    } else generation++;
    for (const n of renamed) if (IDENTIFIER_RE.test(n)) renamedNames.add(n);
    // Identifier characters need no escaping ("-" is literal outside a class).
    const names = `(?:${[...renamedNames].join('|')})(?![A-Za-z0-9_-])`;
    current = { spansAndNames: new RegExp(`${SPAN}|${names}`, 'g'), names: new RegExp(names, 'g'), epoch, generation };
  }
  return current;
}

/**
 * Tokens of texts by text, with the matchers that found them; bounded, cleared when full. Only stable
 * texts are kept: operators make new texts on every reset (a reshuffled skill body), seldom the same
 * twice, and keeping them would only carry them into the old generation.
 */
const tokenMemo = new Map<string, { m: Matchers; tokens: readonly Token[] }>();
const TOKEN_MEMO_SIZE = 4096;
const NO_TOKENS: readonly Token[] = [];

/** The tokens of `text` for a rewriter made with matchers `m`. */
function tokensOf(text: string, m: Matchers, stable: ReadonlySet<string> | undefined): readonly Token[] {
  if (stable === undefined || !stable.has(text)) return findTokens(text, m);
  const hit = tokenMemo.get(text);
  if (hit !== undefined && hit.m.epoch === m.epoch && hit.m.generation >= m.generation) return hit.tokens;
  const tokens = findTokens(text, m);
  // Only the newest matchers' tokens are kept: they serve every rewriter of the epoch.
  if (m === current) {
    if (tokenMemo.size >= TOKEN_MEMO_SIZE) tokenMemo.clear();
    tokenMemo.set(text, { m, tokens });
  }
  return tokens;
}

function findTokens(text: string, m: Matchers): readonly Token[] {
  const re = m.spansAndNames;
  re.lastIndex = 0;
  let tokens: Token[] | null = null;
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const found = match[0];
    const at = match.index;
    if (found.charCodeAt(0) === 96 /* ` */) (tokens ??= []).push({ start: at, text: found, inner: found.slice(1, -1), names: spanNames(found, m.names) });
    // A name matched inside a longer run (the regex does not look behind) is no token.
    else if (!(at > 0 && isIdentifierCode(text.charCodeAt(at - 1)))) (tokens ??= []).push({ start: at, text: found, inner: null, names: null });
  }
  return tokens ?? NO_TOKENS;
}

/** The names inside a span (it starts with a backtick, so a run in it never starts at 0). */
function spanNames(span: string, names: RegExp | null): [number, string][] {
  const out: [number, string][] = [];
  if (names === null) return out;
  names.lastIndex = 0;
  for (let match = names.exec(span); match !== null; match = names.exec(span)) {
    if (!isIdentifierCode(span.charCodeAt(match.index - 1))) out.push([match.index, match[0]]);
  }
  return out;
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
  const fields = tables.fields;
  // Only a plain object can stand for the map built from its keys.
  let out: Record<string, JsonSchema> | null =
    typeof params.properties === 'object' && params.properties !== null && !Array.isArray(params.properties) ? null : {};
  // `for...in` visits the own keys in Object.keys order (a schema map has no inherited enumerable keys).
  for (const k in props) {
    if (!Object.hasOwn(props, k)) continue;
    const name = fields[k] ?? k;
    const schema = rewriteProperty(props[k], rewrite);
    if (out === null && (name !== k || schema !== props[k])) out = copyUntil(props, k);
    if (out !== null) out[name] = schema;
  }
  const extras = tables.extra_params[tool];
  if (extras !== undefined) {
    for (const extra of extras) {
      if (!(extra in (out ?? props))) (out ??= copyUntil(props, null))[extra] = { type: 'string' };
    }
  }
  let same = out === null && required.length > 0;
  const renamedRequired = required.map((r, i) => {
    const surface = fields[r] ?? r;
    if (surface !== required[i]) same = false;
    return surface;
  });
  if (same) return nest(tool, params, tables);
  return nest(tool, withParts(params, out ?? props, renamedRequired), tables);
}

/**
 * `{ ...params, properties, required }`, without `required` when it is empty: the same keys in the same
 * order, built without a spread and a delete (deleting a key put the schema in dictionary mode).
 */
function withParts(params: JsonSchema, properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  if (Object.hasOwn(params, '__proto__') || Object.getOwnPropertySymbols(params).length > 0) {
    // Keys a plain assignment would not create, or for...in would not list: the literal way.
    const inner: JsonSchema = { ...params, properties, required };
    if (required.length === 0) delete inner.required;
    return inner;
  }
  const inner: JsonSchema = {};
  for (const k in params) {
    if (!Object.hasOwn(params, k)) continue;
    if (k === 'properties') inner.properties = properties;
    else if (k === 'required') {
      if (required.length > 0) inner.required = required;
    } else inner[k] = params[k];
  }
  if (!Object.hasOwn(params, 'properties')) inner.properties = properties;
  if (!Object.hasOwn(params, 'required') && required.length > 0) inner.required = required;
  return inner;
}

/** A new map of the keys of `props` before `stop` (all of them when `stop` is null). */
function copyUntil(props: Record<string, JsonSchema>, stop: string | null): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const k in props) {
    if (k === stop) break;
    if (Object.hasOwn(props, k)) out[k] = props[k];
  }
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

/** A skill of a draft in surface form (one a per-task operator added to a compiled variant). */
export function materializeSkill(s: Skill, tables: RenameTables, rewrite: (t: string) => string): Skill {
  return renameSkill(s, tables, rewrite);
}

/** A prompt block of a draft in surface form (one a per-task operator changed). */
export function materializeBlock(b: PromptBlock, rewrite: (t: string) => string): PromptBlock {
  return rewriteBlock(b, rewrite);
}

/** The texts of a harness a variant rewrites (skills', tools', parameters' and prompt blocks'), once per harness. */
export function stableTexts(h: Harness): ReadonlySet<string> {
  let found = stableMemo.get(h);
  if (found === undefined) {
    const set = new Set<string>();
    for (const sk of h.skills) set.add(sk.description).add(sk.body);
    for (const t of h.tools) {
      if (t.function.description !== undefined) set.add(t.function.description);
      for (const v of Object.values((t.function.parameters.properties ?? {}) as Record<string, JsonSchema>)) {
        if (typeof v?.description === 'string') set.add(v.description);
      }
    }
    for (const b of h.prompt.blocks) {
      set.add(b.title).add(b.template);
      for (const i of b.items) set.add(i);
    }
    stableMemo.set(h, (found = set));
  }
  return found;
}

const stableMemo = new WeakMap<Harness, ReadonlySet<string>>();

/**
 * Apply the draft's tables: the surface harness the policy sees. It shares with the draft whatever
 * needs no change (the draft is a private working copy, not used afterwards).
 */
export function materialize(draft: VariantDraft, id: string, stable?: ReadonlySet<string>): Harness {
  const { harness, tables } = draft;
  const rewrite = textRewriter(tables, stable);
  const out: Harness = {
    ...harness,
    id,
    tools: harness.tools.map((t) => renameTool(t, tables, rewrite)),
    skills: harness.skills.map((s) => renameSkill(s, tables, rewrite)),
    prompt: {
      ...harness.prompt,
      blocks: harness.prompt.blocks.map((b) => rewriteBlock(b, rewrite)),
      extra_context: harness.prompt.extra_context.slice(),
    },
  };
  // The field renames, where `...(renamed ? { field_names } : {})` after `id` put them: in place when the
  // draft has the key, else last. Copied with for...in: spreading the dictionary-mode table was most of
  // this function's own time.
  let fieldNames: Record<string, string> | null = null;
  for (const k in tables.fields) {
    if (!Object.hasOwn(tables.fields, k)) continue;
    fieldNames ??= {};
    if (k === '__proto__') Object.defineProperty(fieldNames, k, { value: tables.fields[k], writable: true, enumerable: true, configurable: true });
    else fieldNames[k] = tables.fields[k];
  }
  if (fieldNames !== null) out.field_names = fieldNames;
  return out;
}
