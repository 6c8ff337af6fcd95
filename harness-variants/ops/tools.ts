/**
 * Tool operators: names, parameters, descriptions, types, order, decoys, nesting, result fields, and how
 * the tools are documented in the prompt.
 *
 * Invariants every operator here keeps (task preservation):
 * - a tool keeps an identifying name or an identifying description, never neither: opaque names go only
 *   to tools that have a description, and descriptions are dropped only from tools whose names are not
 *   opaque;
 * - a surface name never equals a canonical name it does not stand for (tool, parameter or result field),
 *   so the map back stays a bijection;
 * - decoys (distractors and look-alikes) take fresh names, describe themselves as irrelevant or switched
 *   off, and are listed in `tables.decoys`.
 */
import type { JsonSchema, ToolSchema } from '../../protocol/domain.js';
import type { Rng } from '../../protocol/rng.js';
import type { HarnessTransform, VariantDraft } from '../types.js';
import { copyJson, freshFrom, opaqueName, poolFor, recase, reorder, share, usedNames } from './kit.js';
import type { NameSet, SplitPool } from './kit.js';
import {
  CANONICAL_PARAMS,
  CANONICAL_RESULT_FIELDS,
  CASE_STYLES,
  DISTRACTOR_TOOLS,
  DOC_STYLES,
  EXTRA_PARAMS,
  NEST_WRAPPERS,
  PARAM_SYNONYMS,
  RESULT_SYNONYMS,
  SIMILAR_DESCRIPTIONS,
  SIMILAR_NAMES,
} from './pools-tools.js';
import { needsWordings, toolDescriptions, toolSynonyms } from './wordings.js';

/** The prefix of opaque tool names (`t_3f9a2c`). */
export const OPAQUE_TOOL_PREFIX = 't_';
const OPAQUE_TOOL_RE = /^t_[0-9a-f]{6}$/;

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/** Canonical names of the draft's real tools (decoys excluded), in the draft's order. */
function realTools(draft: VariantDraft): string[] {
  const decoys = new Set(draft.tables.decoys);
  return draft.harness.tools.map((t) => t.function.name).filter((n) => !decoys.has(n));
}

/** The name the policy will see for a canonical tool. */
function surfaceOf(draft: VariantDraft, canonical: string): string {
  return draft.tables.tools[canonical] ?? canonical;
}

/** Whether a canonical tool was given an opaque name (so its description must stay). */
export function isOpaqueTool(draft: VariantDraft, canonical: string): boolean {
  return OPAQUE_TOOL_RE.test(draft.tables.tools[canonical] ?? '');
}

function toolByName(draft: VariantDraft, name: string): ToolSchema | undefined {
  return draft.harness.tools.find((t) => t.function.name === name);
}

function propsOf(tool: ToolSchema): Record<string, JsonSchema> {
  return (tool.function.parameters.properties ?? {}) as Record<string, JsonSchema>;
}

/** Every canonical parameter and result field name. */
const CANONICAL_FIELDS: ReadonlySet<string> = new Set([...CANONICAL_PARAMS, ...CANONICAL_RESULT_FIELDS]);

/**
 * Names a new identifier must avoid: everything in use plus every canonical field name (looked up in
 * place, not copied into each operator's set).
 */
function reservedNames(draft: VariantDraft): NameSet {
  const used = usedNames(draft);
  return { has: (name) => used.has(name) || CANONICAL_FIELDS.has(name), add: (name) => used.add(name) };
}

/** Insert `item` at a random position of `list`. */
function insertAt<T>(rng: Rng, list: T[], item: T): void {
  list.splice(rng.int(0, list.length), 0, item);
}

/** Rename fields from a synonym table into `tables.fields` (shared by params and result fields). */
function renameFields(
  draft: VariantDraft,
  rng: Rng,
  candidates: readonly string[],
  pools: Readonly<Record<string, SplitPool<string>>>,
  split: 'train' | 'eval',
  count: number,
): void {
  const used = reservedNames(draft);
  for (const f of rng.sample(candidates, Math.min(count, candidates.length))) {
    const fresh = freshFrom(rng, poolFor(pools[f], split), used);
    if (fresh) draft.tables.fields[f] = fresh;
  }
}

// ---------------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------------

/** tools.rename.semantic: rename some tools to meaningful synonyms (paraphrases.yaml `tools.<tool>.synonyms`). */
const renameSemantic: HarnessTransform = {
  name: 'tools.rename.semantic',
  family: 'tools',
  description: 'rename tools to semantic synonyms (get_product -> query_item)',
  notApplicable: needsWordings('tool synonyms (tools.<tool>.synonyms)', (base) => base.tools.some((t) => toolSynonyms(base, t.function.name) !== undefined)),
  apply(draft, ctx) {
    const used = usedNames(draft);
    const names = realTools(draft).filter((n) => toolSynonyms(ctx.base, n) !== undefined && draft.tables.tools[n] === undefined);
    if (names.length === 0) return;
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const fresh = freshFrom(ctx.rng, poolFor(toolSynonyms(ctx.base, n) as SplitPool<string>, ctx.split), used);
      if (fresh) draft.tables.tools[n] = fresh;
    }
  },
};

/**
 * tools.rename.opaque: give some tools meaningless ids (`t_3f9a2c`). Only tools with a description
 * qualify (the description is then all that identifies them), and at most half of them, so that the
 * tool list still reads like an API.
 */
const renameOpaque: HarnessTransform = {
  name: 'tools.rename.opaque',
  family: 'tools',
  description: 'rename tools to opaque ids (t_3f9a2c); their descriptions stay',
  apply(draft, ctx) {
    const used = usedNames(draft);
    const names = realTools(draft).filter((n) => typeof toolByName(draft, n)?.function.description === 'string' && !isOpaqueTool(draft, n));
    const k = Math.ceil(share(names.length, ctx.intensity, ctx.rng) / 2);
    for (const n of ctx.rng.sample(names, k)) draft.tables.tools[n] = opaqueName(ctx.rng, OPAQUE_TOOL_PREFIX, used);
  },
};

/**
 * tools.rename.case: one case style for some tools (getProduct, get-product, GetProduct, GET_PRODUCT),
 * applied to the current surface name (a semantic synonym is re-cased too). Opaque ids are left alone.
 */
const renameCase: HarnessTransform = {
  name: 'tools.rename.case',
  family: 'tools',
  description: 'case style of tool names (camelCase, kebab-case, PascalCase, UPPER_SNAKE)',
  apply(draft, ctx) {
    const style = ctx.rng.pick(poolFor(CASE_STYLES, ctx.split));
    const used = usedNames(draft);
    const names = realTools(draft).filter((n) => !isOpaqueTool(draft, n) && recase(surfaceOf(draft, n), style) !== surfaceOf(draft, n));
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const next = recase(surfaceOf(draft, n), style);
      if (used.has(next)) continue;
      used.add(next);
      draft.tables.tools[n] = next;
    }
  },
};

/** tools.param.rename: variant-wide semantic synonyms for parameter names (link_no -> link_number). */
const paramRename: HarnessTransform = {
  name: 'tools.param.rename',
  family: 'tools',
  description: 'rename parameters to synonyms, variant-wide (item_id -> goods_id); results follow',
  apply(draft, ctx) {
    const present = new Set(realTools(draft).flatMap((n) => Object.keys(propsOf(toolByName(draft, n) as ToolSchema))));
    const candidates = Object.keys(PARAM_SYNONYMS).filter((f) => present.has(f) && draft.tables.fields[f] === undefined);
    renameFields(draft, ctx.rng, candidates, PARAM_SYNONYMS, ctx.split, share(candidates.length, ctx.intensity, ctx.rng));
  },
};

/** Result fields tools.result.rename may rename (`reason` is both a parameter and a result field), with their pools. */
const RESULT_FIELD_POOLS: Readonly<Record<string, SplitPool<string>>> = { ...RESULT_SYNONYMS, reason: PARAM_SYNONYMS.reason };
const RESULT_FIELD_NAMES: readonly string[] = [...Object.keys(RESULT_SYNONYMS), 'reason'];

/**
 * tools.result.rename: rename result field names (live_price -> stream_price). The table is the same as
 * the parameters', so a field that is also a parameter (`reason`) is renamed in both places at once.
 */
const resultRename: HarnessTransform = {
  name: 'tools.result.rename',
  family: 'tools',
  description: 'rename result fields (live_price -> stream_price, stock -> inventory)',
  apply(draft, ctx) {
    const candidates = RESULT_FIELD_NAMES.filter((f) => draft.tables.fields[f] === undefined);
    renameFields(draft, ctx.rng, candidates, RESULT_FIELD_POOLS, ctx.split, share(candidates.length, ctx.intensity, ctx.rng));
  },
};

// ---------------------------------------------------------------------------------------------------
// Descriptions and schemas
// ---------------------------------------------------------------------------------------------------

/**
 * tools.describe.paraphrase: reword tool descriptions (per-tool texts in the harness's locale, from
 * paraphrases.yaml `tools.<tool>.description.<locale>`).
 */
const describeParaphrase: HarnessTransform = {
  name: 'tools.describe.paraphrase',
  family: 'tools',
  description: 'paraphrase tool descriptions',
  notApplicable: needsWordings(
    '<locale> tool descriptions (tools.<tool>.description.<locale>)',
    (base) => base.tools.some((t) => toolDescriptions(base, t.function.name, base.locale) !== undefined),
  ),
  apply(draft, ctx) {
    const names = realTools(draft).filter(
      (n) => toolDescriptions(ctx.base, n, ctx.locale) !== undefined && typeof toolByName(draft, n)?.function.description === 'string',
    );
    if (names.length === 0) return;
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      (toolByName(draft, n) as ToolSchema).function.description = ctx.rng.pick(poolFor(toolDescriptions(ctx.base, n, ctx.locale) as SplitPool<string>, ctx.split));
    }
  },
};

/**
 * tools.describe.drop: remove the descriptions of some tools whose names still say what they do (never
 * an opaque-renamed tool), at most half of them; parameter descriptions stay.
 */
const describeDrop: HarnessTransform = {
  name: 'tools.describe.drop',
  family: 'tools',
  description: 'drop tool descriptions (only where the name is meaningful)',
  apply(draft, ctx) {
    const names = realTools(draft).filter((n) => !isOpaqueTool(draft, n) && typeof toolByName(draft, n)?.function.description === 'string');
    const k = Math.ceil(share(names.length, ctx.intensity, ctx.rng) / 2);
    for (const n of ctx.rng.sample(names, k)) {
      const fn = (toolByName(draft, n) as ToolSchema).function;
      delete fn.description;
    }
  },
};

/**
 * tools.types.drop: remove `type` hints from parameter schemas (surface only). Arguments are validated
 * against the canonical schema after mapping back, and raw XML values are coerced by canonical types,
 * so a call that was valid stays valid. Enums and bounds stay.
 */
const typesDrop: HarnessTransform = {
  name: 'tools.types.drop',
  family: 'tools',
  description: 'drop type hints from parameter schemas',
  apply(draft, ctx) {
    const names = realTools(draft).filter((n) => Object.values(propsOf(toolByName(draft, n) as ToolSchema)).some((s) => 'type' in s));
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      for (const schema of Object.values(propsOf(toolByName(draft, n) as ToolSchema))) delete schema.type;
    }
  },
};

/** tools.param.extra: one or two unused optional parameters per tool (accepted and ignored). */
const paramExtra: HarnessTransform = {
  name: 'tools.param.extra',
  family: 'tools',
  description: 'add unused optional parameters (trace_id, verbose...)',
  apply(draft, ctx) {
    const used = reservedNames(draft);
    // One pool for the whole variant: the same extra may appear on several tools, as plumbing does.
    const pool = poolFor(EXTRA_PARAMS, ctx.split).filter((e) => !used.has(e));
    const names = realTools(draft);
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const own = new Set(Object.keys(propsOf(toolByName(draft, n) as ToolSchema)).map((p) => draft.tables.fields[p] ?? p));
      const extras = ctx.rng.sample(
        pool.filter((e) => !own.has(e)),
        ctx.rng.int(1, 2),
      );
      if (extras.length > 0) draft.tables.extra_params[n] = extras;
    }
  },
};

/** tools.param.shuffle: reorder the parameters of some tools (those with two or more). */
const paramShuffle: HarnessTransform = {
  name: 'tools.param.shuffle',
  family: 'tools',
  description: 'reorder tool parameters',
  apply(draft, ctx) {
    const names = realTools(draft).filter((n) => Object.keys(propsOf(toolByName(draft, n) as ToolSchema)).length > 1);
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const params = (toolByName(draft, n) as ToolSchema).function.parameters;
      const props = propsOf(toolByName(draft, n) as ToolSchema);
      params.properties = Object.fromEntries(reorder(ctx.rng, Object.keys(props)).map((k) => [k, props[k]]));
    }
  },
};

/**
 * tools.args.nest: wrap all arguments of some tools in one object parameter (`{"params": {...}}`). One
 * wrapper name per variant, not a name any tool or field uses.
 */
const argsNest: HarnessTransform = {
  name: 'tools.args.nest',
  family: 'tools',
  description: 'nest all arguments in one object parameter (params, input, args, payload)',
  apply(draft, ctx) {
    const used = reservedNames(draft);
    // A wrapper the variant already uses may be used again.
    const wrappers = new Set(Object.values(draft.tables.nest));
    const pool = poolFor(NEST_WRAPPERS, ctx.split).filter((w) => wrappers.has(w) || !used.has(w));
    if (pool.length === 0) return;
    const wrapper = ctx.rng.pick(pool);
    const names = realTools(draft).filter((n) => draft.tables.nest[n] === undefined);
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) draft.tables.nest[n] = wrapper;
  },
};

// ---------------------------------------------------------------------------------------------------
// Decoys and order
// ---------------------------------------------------------------------------------------------------

/** tools.distractor: one to three irrelevant tools (weather, music, raffle...), never the right choice. */
const distractor: HarnessTransform = {
  name: 'tools.distractor',
  family: 'tools',
  description: 'add irrelevant distractor tools (weather, music, raffle)',
  apply(draft, ctx) {
    const used = reservedNames(draft);
    const pool = poolFor(DISTRACTOR_TOOLS, ctx.split).filter((d) => !used.has(d.name) && Object.keys(d.params).every((p) => !used.has(p)));
    for (const d of ctx.rng.sample(pool, ctx.rng.int(1, 3))) {
      used.add(d.name);
      const properties: Record<string, JsonSchema> = {};
      for (const [k, v] of Object.entries(d.params)) properties[k] = { type: v.type, description: v.description[ctx.locale] };
      const parameters: JsonSchema = { type: 'object', properties, additionalProperties: false };
      if (d.required.length > 0) parameters.required = d.required.slice();
      insertAt(ctx.rng, draft.harness.tools, {
        type: 'function',
        function: { name: d.name, description: d.description[ctx.locale], parameters },
      });
      draft.tables.decoys.push(d.name);
    }
  },
};

/**
 * tools.similar: look-alikes of one to three real tools (`get_product_v0`, `legacy_query_item`), with the
 * same parameters but described as switched off and pointing at the real tool. They answer CONFLICT.
 */
const similar: HarnessTransform = {
  name: 'tools.similar',
  family: 'tools',
  description: 'add deprecated look-alikes of real tools (get_product_v0)',
  apply(draft, ctx) {
    const used = reservedNames(draft);
    const names = realTools(draft).filter((n) => !isOpaqueTool(draft, n));
    for (const n of ctx.rng.sample(names, ctx.rng.int(1, 3))) {
      const templates = ctx.rng.shuffle(poolFor(SIMILAR_NAMES, ctx.split));
      const name = templates.map((t) => t.replace('{n}', surfaceOf(draft, n))).find((c) => !used.has(c));
      if (name === undefined) continue;
      used.add(name);
      const real = toolByName(draft, n) as ToolSchema;
      const parameters = copyJson(real.function.parameters);
      // The pointer names the canonical tool; materialise rewrites it to the variant's surface name.
      const description = ctx.rng.pick(poolFor(SIMILAR_DESCRIPTIONS[ctx.locale], ctx.split)).replace('{tool}', n);
      const at = draft.harness.tools.indexOf(real);
      draft.harness.tools.splice(at + ctx.rng.int(0, 1), 0, { type: 'function', function: { name, description, parameters } });
      draft.tables.decoys.push(name);
    }
  },
};

/** tools.order.shuffle: present the tools in another order (load_skill included, somewhere). */
const orderShuffle: HarnessTransform = {
  name: 'tools.order.shuffle',
  family: 'tools',
  description: 'reorder the tool list',
  apply(draft, ctx) {
    draft.harness.tools = reorder(ctx.rng, draft.harness.tools);
  },
};

/** tools.doc.render: document the tools inside the prompt as JSON, XML or signatures. */
const docRender: HarnessTransform = {
  name: 'tools.doc.render',
  family: 'tools',
  description: 'render tool docs in the prompt as JSON, XML or signatures',
  apply(draft, ctx) {
    const pool = poolFor(DOC_STYLES, ctx.split).filter((s) => s !== draft.harness.prompt.tools_doc_style);
    if (pool.length > 0) draft.harness.prompt.tools_doc_style = ctx.rng.pick(pool);
  },
};

/**
 * Tool operators, in application order: renames first (so look-alikes copy final names), then
 * descriptions and schemas, then decoys, then the list order, then the prompt's rendering.
 */
export const TOOL_OPS: readonly HarnessTransform[] = [
  renameSemantic,
  renameOpaque,
  renameCase,
  paramRename,
  resultRename,
  describeParaphrase,
  describeDrop,
  typesDrop,
  paramExtra,
  paramShuffle,
  argsNest,
  distractor,
  similar,
  orderShuffle,
  docRender,
];
