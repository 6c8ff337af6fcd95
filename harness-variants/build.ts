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
import type { Harness, Skill } from '../protocol/harness.js';
import { isRecord } from '../protocol/objects.js';
import { Rng, deriveSeed, slotOf, unmix32 } from '../protocol/rng.js';
import type { SurfaceMap } from '../protocol/surface.js';
import { OwnTexts } from './own-texts.js';
import { materialize, materializeBlock, materializeSkill, stableTexts, textRewriter } from './materialize.js';
import { OPERATORS } from './ops/index.js';
import { sealToolNames } from './ops/kit.js';
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
 * slower than spreading a plain one, and a reset copies a hundred of them (figures: bench/RESULTS.md
 * "Design measurements cited by the code"). The twin is only ever copied from, never handed out, so
 * nothing can change it; a base that is not frozen is copied directly (it could change between resets).
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
  if (isRecord(props)) {
    const own: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(props)) own[k] = isRecord(v) ? { ...v } : v;
    parameters.properties = own;
  }
  return { ...t, function: { ...t.function, parameters } };
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

/**
 * Compiled variants kept per spec, by default (`EnvConfig.variantPool`, the server's `variant_pool`): a
 * reset draws one of them by its seed, then runs the per-task operators on it. 0: none kept, every reset
 * compiles its own variant from its seed (the most diverse, about five times dearer).
 */
export const VARIANT_POOL = 256;
/**
 * The largest pool a config may ask for: a compiled variant holds tens of kilobytes, so a pool this size
 * is already gigabytes per thread (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
export const MAX_VARIANT_POOL = 65_536;
/** Specs whose pools a base harness keeps at once (least recently used out): custom specs are unbounded. */
const POOLED_SPECS = 16;

/**
 * The task-independent part of a variant, built once per pool slot and
 * shared (deep-frozen) by every episode drawn to it: the draft after the operators that read nothing of
 * the task, and its materialised surface harness and map.
 */
interface Compiled {
  /** The draft after the compiled operators (its `task` is never read), and the texts derived from it. */
  draft: { harness: Harness; tables: RenameTables; ownTexts: OwnTexts };
  harness: Harness;
  map: TableMap;
  applied: readonly string[];
  /** Draft skill -> its surface form, to re-use what per-task operators leave alone. */
  surfaceSkills: Map<Skill, Skill>;
  keptTools: readonly string[];
  keptSkills: readonly string[];
  /** The rewriter of the draft's tables, for texts per-task operators add (made on first need). */
  rewrite: ((text: string) => string) | null;
}

/**
 * A task a compiled operator would read: reading it throws (an operator that depends on the task must
 * say so with `perTask`, or every episode of a pool slot would get the first task's variant).
 */
const NO_TASK = new Proxy({} as Task, {
  get(_t, key) {
    throw new Error(`a variant operator without perTask read task.${String(key)}: mark it perTask`);
  },
});

/** Compile the task-independent part of a variant from `seed`. */
function compile(base: Harness, norm: VariantSpec, seed: number, operators: readonly HarnessTransform[]): Compiled {
  const applies = operators.map(
    (op) => op.perTask !== true && norm.families.includes(op.family) && new Rng(seed, streamsOf(op).apply).chance(norm.intensity),
  );
  const draft: VariantDraft = { harness: cloneHarness(base), tables: emptyTables(), task: NO_TASK };
  const applied: string[] = [];
  operators.forEach((op, i) => {
    // An operator with nothing to work with in this harness (no wordings for it) is skipped, unlisted.
    if (!applies[i] || op.notApplicable?.(base) !== undefined) return;
    // Rng seeds itself on its first draw: an operator that draws nothing costs no seeding.
    op.apply(draft, { rng: new Rng(seed, streamsOf(op).op), intensity: norm.intensity, split: norm.split, locale: base.locale, base });
    applied.push(op.name);
  });
  const harness = materialize(draft, '', stableTexts(base));
  sealToolNames(draft);
  const canonicalTools = base.tools.map((t) => t.function.name);
  const canonicalSkills = base.skills.map((s) => s.name);
  // Tools and skills the variant removed have no surface form.
  const draftTools = new Set(draft.harness.tools.map((x) => x.function.name));
  const draftSkills = new Set(draft.harness.skills.map((x) => x.name));
  const keptTools = canonicalTools.filter((t) => draftTools.has(t));
  const keptSkills = canonicalSkills.filter((s) => draftSkills.has(s));
  const surfaceSkills = new Map<Skill, Skill>();
  draft.harness.skills.forEach((s, i) => surfaceSkills.set(s, harness.skills[i]));
  // The lists the prompt renders from are frozen: the prompt's skills index and tools doc, the router's
  // tool lookups and offered lists are then made once per compiled variant (env/prompt.ts and
  // env/tool-router.ts memoise frozen lists), not once per reset. Nothing else is frozen, in tests as in
  // a server (one path): deep-freezing made resets slower (`reset train` in bench/micro.ts). That no
  // episode changes a shared variant is checked by test/harness-variants/compiled-unchanged.test.ts.
  Object.freeze(harness.tools);
  Object.freeze(harness.skills);
  return {
    draft: { harness: draft.harness, tables: draft.tables, ownTexts: new OwnTexts() },
    harness,
    map: new TableMap(draft.tables, keptTools, keptSkills),
    applied,
    surfaceSkills,
    keptTools,
    keptSkills,
    rewrite: null,
  };
}

/** Pools of compiled variants: per operator list, per base harness, per spec (LRU), one slot per draw. */
const pools = new WeakMap<readonly HarnessTransform[], WeakMap<Harness, Map<string, (Compiled | undefined)[]>>>();

/** The pool slot a seed draws (`slotOf`: nearby seeds spread over the pool). */
export function poolSlot(seed: number, pool: number): number {
  return slotOf(seed, pool);
}

/**
 * The seed a pool slot compiles its variant from: per split, and the same whatever the pool's size (a
 * larger pool keeps the smaller one's variants and adds more).
 */
export function slotSeed(slot: number, split: VariantSpec['split']): number {
  return deriveSeed(slot, `variant-pool:${split}`);
}

/** The key of a pool among its base's pools: the normalised spec's fields and the pool size. */
function poolKey(norm: VariantSpec, pool: number): string {
  if (!Object.isFrozen(norm)) return `${norm.families.join(',')}|${norm.intensity}|${norm.split}|${pool}`;
  // A frozen normalised spec (a preset's): its fields written once.
  let prefix = poolKeyPrefixes.get(norm);
  if (prefix === undefined) poolKeyPrefixes.set(norm, (prefix = `${norm.families.join(',')}|${norm.intensity}|${norm.split}|`));
  return prefix + pool;
}

const poolKeyPrefixes = new WeakMap<VariantSpec, string>();

/** The pool a spec draws from, as `StartedPool.key` names it: specs that differ only in `identity_share` share one. */
export function variantPoolKey(spec: VariantSpec, pool: number = VARIANT_POOL): string {
  return poolKey(normalizeSpec(spec), pool);
}

/** A pool that was just made, on its first draw (see `onPoolStarted`). */
export interface StartedPool {
  base: Harness;
  /** Which of the base's pools (`variantPoolKey`). */
  key: string;
  pool: number;
  operators: readonly HarnessTransform[];
}

const poolStartListeners = new Set<(started: StartedPool) => void>();

/**
 * Be told whenever a variant pool is made: on the first draw of its spec (per base harness, operator
 * list and pool size), and again if it was dropped from the specs kept and is drawn from once more. The
 * listener runs inside that draw and must only take note (a server schedules the rest of the pool's
 * slots in the background). Returns a function that stops the notices.
 */
export function onPoolStarted(listener: (started: StartedPool) => void): () => void {
  poolStartListeners.add(listener);
  return () => {
    poolStartListeners.delete(listener);
  };
}

function compiledFor(base: Harness, norm: VariantSpec, seed: number, operators: readonly HarnessTransform[], pool: number): Compiled {
  if (pool === 0) return compile(base, norm, seed, operators);
  let byBase = pools.get(operators);
  if (byBase === undefined) pools.set(operators, (byBase = new WeakMap()));
  let bySpec = byBase.get(base);
  if (bySpec === undefined) byBase.set(base, (bySpec = new Map()));
  const key = poolKey(norm, pool);
  let slots = bySpec.get(key);
  const started = slots === undefined;
  if (slots === undefined) {
    if (bySpec.size >= POOLED_SPECS) bySpec.delete(bySpec.keys().next().value as string);
    slots = new Array<Compiled | undefined>(pool);
  } else bySpec.delete(key); // to the young end
  bySpec.set(key, slots);
  if (started) for (const listener of poolStartListeners) listener({ base, key, pool, operators });
  const slot = poolSlot(seed, pool);
  return (slots[slot] ??= compile(base, norm, slotSeed(slot, norm.split), operators));
}

/** The slots of the pool of `spec`, without making it (undefined: not made yet, or dropped). */
function existingSlots(base: Harness, spec: VariantSpec, pool: number, operators: readonly HarnessTransform[]): readonly (Compiled | undefined)[] | undefined {
  return pools.get(operators)?.get(base)?.get(variantPoolKey(spec, pool));
}

/** Whether slot `slot` of the pool of `spec` is compiled (false in a pool not made yet, or dropped). */
export function variantSlotCompiled(base: Harness, spec: VariantSpec, slot: number, pool = VARIANT_POOL, operators = OPERATORS): boolean {
  return existingSlots(base, spec, pool, operators)?.[slot] !== undefined;
}

/** How many slots of the pool of `spec` are compiled (0 for a pool not made yet, or dropped). */
export function compiledVariantSlots(base: Harness, spec: VariantSpec, pool = VARIANT_POOL, operators = OPERATORS): number {
  let n = 0;
  for (const c of existingSlots(base, spec, pool, operators) ?? []) if (c !== undefined) n++;
  return n;
}

/**
 * Compile every slot of the pool of `spec` now (see `prepareVariantSlot` to do it a slot at a time).
 * Returns how many slots the pool has (0: a pool of 0, or a spec with its own seed, has none to prepare).
 */
export function prepareVariantPool(
  base: Harness,
  spec: VariantSpec,
  pool: number = VARIANT_POOL,
  operators: readonly HarnessTransform[] = OPERATORS,
): number {
  let n = 0;
  for (let slot = 0; slot < pool; slot++) if (prepareVariantSlot(base, spec, slot, pool, operators)) n++;
  return n;
}

/**
 * Compile one slot of the pool of `spec` unless it is compiled already; false when the spec has no pool
 * (a pool of 0, or the spec's own seed). A server compiles its presets' pools this way in the background.
 */
export function prepareVariantSlot(
  base: Harness,
  spec: VariantSpec,
  slot: number,
  pool: number = VARIANT_POOL,
  operators: readonly HarnessTransform[] = OPERATORS,
): boolean {
  const norm = normalizeSpec(spec);
  if (pool === 0 || norm.seed !== undefined || slot < 0 || slot >= pool) return false;
  // A seed that draws this slot: compiledFor finds or compiles it.
  compiledFor(base, norm, seedOfSlot(slot), operators, pool);
  return true;
}

/** Some seed whose `poolSlot` is `slot` (`mix32` is a bijection on uint32: invert it). */
function seedOfSlot(slot: number): number {
  return unmix32(slot);
}

/**
 * Build the variant of `spec` for one episode. `seed` is used when the spec carries none.
 *
 * Compiled once, drawn per reset: the operators that read nothing of the task run once per slot of the
 * spec's pool (`pool` slots; the seed draws one), and the slot's surface harness is shared; the per-task
 * operators (`perTask`) then run from the episode's own seed on a thin copy of the slot's draft, and only
 * what they changed is materialised again (a skill added or removed, the output rules block, a hook's
 * parameters, the limits, the viewer's message).
 */
export function buildVariant(
  base: Harness,
  spec: VariantSpec,
  seed: number,
  task: Task,
  operators: readonly HarnessTransform[] = OPERATORS,
  pool: number = VARIANT_POOL,
): BuiltVariant {
  const norm = normalizeSpec(spec);
  const effective = (norm.seed ?? seed) >>> 0;
  if (norm.identity_share !== undefined && new Rng(effective, 'identity-share').chance(norm.identity_share)) {
    const tables = emptyTables();
    return {
      variant_id: 'identity',
      harness: base,
      map: new TableMap(tables, base.tools.map((t) => t.function.name), base.skills.map((s) => s.name)),
      task,
      applied: [],
      tables,
      identity: true,
    };
  }
  const compiled = compiledFor(base, norm, effective, operators, pool);
  const id = variantId(norm, effective, pool);
  // The per-task operators that apply: each decided from its own stream of the episode's seed.
  let perTask: HarnessTransform[] | null = null;
  for (const op of operators) {
    if (op.perTask !== true || !norm.families.includes(op.family)) continue;
    if (!new Rng(effective, streamsOf(op).apply).chance(norm.intensity) || op.notApplicable?.(base) !== undefined) continue;
    (perTask ??= []).push(op);
  }
  if (perTask === null) {
    return { variant_id: id, harness: { ...compiled.harness, id }, map: compiled.map, task, applied: compiled.applied.slice(), tables: compiled.draft.tables, identity: false };
  }
  const draft = thinCopy(compiled.draft, task);
  const applied = compiled.applied.slice();
  for (const op of perTask) {
    op.apply(draft, { rng: new Rng(effective, streamsOf(op).op), intensity: norm.intensity, split: norm.split, locale: base.locale, base });
    applied.push(op.name);
  }
  const { harness, map } = fitted(compiled, draft, id, stableTexts(base));
  return { variant_id: id, harness, map, task: draft.task, applied, tables: draft.tables, identity: false };
}

/**
 * A working copy of a compiled draft for the per-task operators: a new harness object over the compiled
 * draft's parts. Per-task operators replace a part they change (the skills list, the hooks list and the
 * hook, the prompt and the block, the limits, the rename tables) and never change one in place, so the
 * compiled parts stay as every episode of the slot shares them, and what changed is known by identity.
 */
function thinCopy(d: Compiled['draft'], task: Task): VariantDraft {
  return { harness: { ...d.harness }, tables: d.tables, task, ownTexts: d.ownTexts };
}

/** The surface harness and map of a per-task draft: the compiled ones, with what the draft replaced made again. */
function fitted(c: Compiled, draft: VariantDraft, id: string, stable: ReadonlySet<string>): { harness: Harness; map: TableMap } {
  const h = draft.harness;
  const was = c.draft.harness;
  const rewrite = () => (c.rewrite ??= textRewriter(c.draft.tables, stable));
  const skills = h.skills === was.skills ? c.harness.skills : h.skills.map((s) => c.surfaceSkills.get(s) ?? materializeSkill(s, draft.tables, rewrite()));
  let prompt = c.harness.prompt;
  if (h.prompt !== was.prompt) {
    const blocks = h.prompt.blocks.map((b) => {
      const i = was.prompt.blocks.indexOf(b);
      return i >= 0 ? c.harness.prompt.blocks[i] : materializeBlock(b, rewrite());
    });
    prompt = { ...c.harness.prompt, blocks };
  }
  const harness: Harness = {
    ...c.harness,
    id,
    skills,
    hooks: h.hooks,
    limits: h.limits,
    prompt,
  };
  // Masking removes skills (and their renames): they have no surface form.
  if (h.skills === was.skills || h.skills.length >= was.skills.length && was.skills.every((s) => h.skills.includes(s))) {
    return { harness, map: c.map };
  }
  const present = new Set(h.skills.map((s) => s.name));
  const keptSkills = c.keptSkills.filter((s) => present.has(s));
  return { harness, map: c.map.withSkills(draft.tables, keptSkills) };
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
