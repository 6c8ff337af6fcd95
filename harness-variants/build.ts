/**
 * `buildVariant`: `h' = HSA(h_base, spec, seed, task)`. Operators of the enabled families run in registry
 * order, each deciding from its own seeded stream whether it applies (probability = intensity), then the
 * draft is materialised into the surface harness and its `SurfaceMap`.
 *
 * The task is an input because some operators must know what it needs to stay task-preserving: masking
 * only skills the task does not use, limits no tighter than the reference reply, forbidden words it does
 * not say.
 */
import type { JsonSchema, Task, ToolSchema } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import { Rng } from '../protocol/rng.js';
import type { SurfaceMap } from '../protocol/surface.js';
import { materialize, stableTexts } from './materialize.js';
import { OPERATORS } from './ops/index.js';
import { normalizeSpec, variantId } from './spec.js';
import { TableMap } from './surface-map.js';
import type { HarnessTransform, RenameTables, VariantDraft, VariantSpec } from './types.js';

/** A realised variant. */
export interface BuiltVariant {
  variant_id: string;
  /** The surface harness the policy sees. */
  harness: Harness;
  map: SurfaceMap;
  /** The task as presented (the viewer's message may be paraphrased or carry typos). */
  task: Task;
  /** Names of the operators that applied, in order. */
  applied: string[];
  tables: RenameTables;
  /** True when `identity_share` gave this episode the base harness. */
  identity: boolean;
}

function emptyTables(): RenameTables {
  return { tools: table(), skills: table(), fields: table(), nest: table(), extra_params: table(), decoys: [] };
}

/**
 * An empty rename table: a plain object, already in V8's dictionary mode. Operators add keys in a new
 * order in every variant, so as ordinary objects the tables would get fresh hidden classes each time,
 * which every later lookup (operators, materialize, the surface map) misses; a dictionary-mode object
 * answers by hashing instead. Deleting a property that is not the last one added puts an object in that
 * mode for good. Elsewhere it is just an empty object (same prototype, same key order).
 */
function table<T>(): Record<string, T> {
  const t: Record<string, unknown> = { first: 0, last: 0 };
  delete t.first;
  delete t.last;
  return t as Record<string, T>;
}

/**
 * A mutable working copy of a (deep-frozen) base harness, copied only as deep as operators edit: lists
 * and the objects in them are fresh, and so are the levels of a tool schema that operators rewrite (the
 * function, its parameters object, the properties map and each property's schema), but hook params,
 * skill intents and metadata, enum lists and other leaves are shared. Operators replace a shared leaf
 * instead of mutating it; one that forgot would throw on the frozen base, in every test. This keeps reset
 * cheap and lets compiled hook regexes be reused by identity.
 */
function cloneHarness(h: Harness): Harness {
  return copyLevels(Object.isFrozen(h) ? twinOf(h) : h);
}

/**
 * Per frozen base harness, `copyLevels` of it, made once: the same keys and values at every level that
 * `cloneHarness` copies, unfrozen, sharing the base's leaves. Spreading a frozen object is several times
 * slower than spreading a plain one (about 90 against 20 ns), and a reset copies a hundred of them. The
 * twin is only ever copied from, never handed out, so nothing can change it; a base that is not frozen is
 * copied directly (it could change between resets).
 */
const twins = new WeakMap<Harness, Harness>();

function twinOf(h: Harness): Harness {
  let twin = twins.get(h);
  if (twin === undefined) twins.set(h, (twin = copyLevels(h)));
  return twin;
}

function copyLevels(h: Harness): Harness {
  return {
    ...h,
    skills: h.skills.map((s) => ({ ...s })),
    tools: h.tools.map(cloneTool),
    prompt: {
      ...h.prompt,
      blocks: h.prompt.blocks.map((b) => ({ ...b, items: [...b.items] })),
      extra_context: [...h.prompt.extra_context],
    },
    hooks: h.hooks.map((k) => ({ ...k })),
    retry: { ...h.retry, templates: { ...h.retry.templates } },
    limits: { ...h.limits },
  };
}

/** A tool schema copied down to its property schemas (the levels tool operators set or delete keys in). */
function cloneTool(t: ToolSchema): ToolSchema {
  const parameters: JsonSchema = { ...t.function.parameters };
  const props = parameters.properties as Record<string, unknown> | undefined;
  if (isObject(props)) {
    const own: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(props)) own[k] = isObject(v) ? { ...v } : v;
    parameters.properties = own;
  }
  return { ...t, function: { ...t.function, parameters } };
}

function isObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An operator's stream names (`apply:<name>`, `op:<name>`), made once per operator rather than twice per reset. */
const streamNames = new WeakMap<HarnessTransform, { apply: string; op: string }>();

function streamsOf(op: HarnessTransform): { apply: string; op: string } {
  let names = streamNames.get(op);
  if (names === undefined) {
    names = { apply: `apply:${op.name}`, op: `op:${op.name}` };
    streamNames.set(op, names);
  }
  return names;
}

/** Build the variant of `spec` for one episode. `seed` is used when the spec carries none. */
export function buildVariant(
  base: Harness,
  spec: VariantSpec,
  seed: number,
  task: Task,
  operators: readonly HarnessTransform[] = OPERATORS,
): BuiltVariant {
  const norm = normalizeSpec(spec);
  const effective = (norm.seed ?? seed) >>> 0;
  const canonicalTools = base.tools.map((t) => t.function.name);
  const canonicalSkills = base.skills.map((s) => s.name);
  if (norm.identity_share !== undefined && new Rng(effective, 'identity-share').chance(norm.identity_share)) {
    const tables = emptyTables();
    return {
      variant_id: 'identity',
      harness: base,
      map: new TableMap(tables, canonicalTools, canonicalSkills),
      task,
      applied: [],
      tables,
      identity: true,
    };
  }
  // Whether each operator applies comes from its own stream, whatever the draft: all are drawn first, so
  // that like-named streams are seeded one after the other (Rng reuses the work on their common prefix).
  const applies = operators.map((op) => norm.families.includes(op.family) && new Rng(effective, streamsOf(op).apply).chance(norm.intensity));
  const draft: VariantDraft = { harness: cloneHarness(base), tables: emptyTables(), task };
  const applied: string[] = [];
  operators.forEach((op, i) => {
    // An operator with nothing to work with in this harness (no wordings for it) is skipped, unlisted.
    if (!applies[i] || op.notApplicable?.(base) !== undefined) return;
    // Rng seeds itself on its first draw: an operator that draws nothing costs no seeding.
    op.apply(draft, { rng: new Rng(effective, streamsOf(op).op), intensity: norm.intensity, split: norm.split, locale: base.locale, base });
    applied.push(op.name);
  });
  const id = variantId(norm, effective);
  const harness = materialize(draft, id, stableTexts(base));
  // Tools and skills the variant removed (masking) have no surface form.
  const draftTools = new Set(draft.harness.tools.map((x) => x.function.name));
  const draftSkills = new Set(draft.harness.skills.map((x) => x.name));
  const keptTools = canonicalTools.filter((t) => draftTools.has(t));
  const keptSkills = canonicalSkills.filter((s) => draftSkills.has(s));
  return {
    variant_id: id,
    harness,
    map: new TableMap(draft.tables, keptTools, keptSkills),
    task: draft.task,
    applied,
    tables: draft.tables,
    identity: false,
  };
}

/**
 * The operators that are not applicable in a base harness, each with its reason (`notApplicable`): a
 * variant of that harness never applies them. Empty when all apply.
 */
export function notApplicableOperators(base: Harness, operators: readonly HarnessTransform[] = OPERATORS): { name: string; reason: string }[] {
  const out: { name: string; reason: string }[] = [];
  for (const op of operators) {
    const reason = op.notApplicable?.(base);
    if (reason !== undefined) out.push({ name: op.name, reason });
  }
  return out;
}
