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
 */
export function textRewriter(tables: RenameTables): (text: string) => string {
  const bare = new Map<string, string>();
  for (const [c, s] of Object.entries(tables.tools)) bare.set(c, s);
  for (const [c, s] of Object.entries(tables.fields)) if (c.includes('_')) bare.set(c, s);
  const quoted = new Map<string, string>();
  for (const [c, s] of Object.entries(tables.skills)) quoted.set(c, s);
  if (bare.size === 0 && quoted.size === 0) return (t) => t;
  // One pass over maximal identifier runs (and backticked spans) with a Map lookup: a run of identifier
  // characters is exactly what the boundaries of a name delimit, and a simple character class scans far
  // faster than an alternation of every name.
  const rewriteBare = (text: string): string => (bare.size === 0 ? text : text.replace(IDENT_RUN, (m) => bare.get(m) ?? m));
  return (text) =>
    text.replace(IDENT_OR_QUOTED, (m) => {
      if (m.charCodeAt(0) !== 96 /* ` */) return bare.get(m) ?? m;
      const inner = m.slice(1, -1);
      const skill = quoted.get(inner);
      return skill !== undefined ? `\`${skill}\`` : `\`${rewriteBare(inner)}\``;
    });
}

const IDENT_RUN = /[A-Za-z0-9_-]+/g;
const IDENT_OR_QUOTED = /`[^`\n]{1,80}`|[A-Za-z0-9_-]+/g;

function renameSchema(tool: string, params: JsonSchema, tables: RenameTables, rewrite: (t: string) => string): JsonSchema {
  const props = (params.properties ?? {}) as Record<string, JsonSchema>;
  const required = (params.required ?? []) as string[];
  const out: Record<string, JsonSchema> = {};
  for (const [k, v] of Object.entries(props)) {
    const desc = typeof v.description === 'string' ? { description: rewrite(v.description) } : {};
    out[tables.fields[k] ?? k] = { ...v, ...desc };
  }
  for (const extra of tables.extra_params[tool] ?? []) {
    if (!(extra in out)) out[extra] = { type: 'string' };
  }
  const inner: JsonSchema = { ...params, properties: out, required: required.map((r) => tables.fields[r] ?? r) };
  if (inner.required && (inner.required as string[]).length === 0) delete inner.required;
  const wrapper = tables.nest[tool];
  if (wrapper === undefined) return inner;
  return { type: 'object', properties: { [wrapper]: inner }, required: [wrapper], additionalProperties: false };
}

function renameTool(t: ToolSchema, tables: RenameTables, rewrite: (s: string) => string): ToolSchema {
  const canonical = t.function.name;
  const fn: ToolSchema['function'] = {
    name: tables.tools[canonical] ?? canonical,
    parameters: renameSchema(canonical, t.function.parameters, tables, rewrite),
  };
  if (t.function.description !== undefined) fn.description = rewrite(t.function.description);
  // Keep the OpenAI key order: name, description, parameters.
  return {
    type: 'function',
    function:
      fn.description === undefined
        ? { name: fn.name, parameters: fn.parameters }
        : { name: fn.name, description: fn.description, parameters: fn.parameters },
  };
}

function renameSkill(s: Skill, tables: RenameTables, rewrite: (t: string) => string): Skill {
  return { ...s, name: tables.skills[s.name] ?? s.name, description: rewrite(s.description), body: rewrite(s.body) };
}

function rewriteBlock(b: PromptBlock, rewrite: (t: string) => string): PromptBlock {
  return { ...b, title: rewrite(b.title), template: rewrite(b.template), items: b.items.map(rewrite) };
}

/** Apply the draft's tables: the surface harness the policy sees. */
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
