/**
 * The seeded task generator: `generateTask(seed, locale, opts)` builds a world with `generateWorld`, samples
 * an intent with the production mix (DESIGN.md "The domain") and asks that intent's sub-kinds, in a
 * weighted random order, for the first task the world supports. The task id encodes everything needed to
 * regenerate it (`gen-<split>-<locale>-<seed>-<intent>`).
 */
import type { BuiltinIntent, Intent, Locale, Split, Task, ToolOutcome } from '../../protocol/domain.js';
import { CUSTOM_INTENT_RE, LOCALES, emptyWorldState, isBuiltinIntent } from '../../protocol/domain.js';
import { Rng, deriveSeed, slotOf } from '../../protocol/rng.js';
import type { World } from '../../mock-services/index.js';
import { callService, worldFor } from '../../mock-services/index.js';
import type { BuildContext, SubKind } from './kit.js';
import { weightedOrder } from './kit.js';
import { withInstructedLookups } from './instructed.js';
import { embeddedHarness } from '../../harness/index.js';
import { CHITCHAT_KINDS, CLARIFICATION_KINDS } from './intents/chat.js';
import { MARKETING_KINDS, PURCHASE_KINDS } from './intents/commerce.js';
import { MULTI_INTENT_KINDS } from './intents/multi.js';
import { AFTER_SALES_KINDS, HANDOFF_KINDS } from './intents/orders.js';
import { PRODUCT_QA_KINDS } from './intents/product-qa.js';
import { RISKY_KINDS, WHITELIST_KINDS } from './intents/safety.js';

/** The production intent mix: the default sampling weights (they sum to 1). */
export const INTENT_WEIGHTS: Readonly<Record<BuiltinIntent, number>> = {
  product_qa: 0.46,
  chitchat: 0.19,
  clarification: 0.16,
  after_sales: 0.07,
  purchase: 0.03,
  marketing: 0.03,
  multi_intent: 0.02,
  risky: 0.02,
  whitelist: 0.01,
  handoff: 0.01,
};

/** Each intent's sub-kinds. */
export const SUB_KINDS: Readonly<Record<BuiltinIntent, readonly SubKind[]>> = {
  product_qa: PRODUCT_QA_KINDS,
  chitchat: CHITCHAT_KINDS,
  clarification: CLARIFICATION_KINDS,
  after_sales: AFTER_SALES_KINDS,
  purchase: PURCHASE_KINDS,
  marketing: MARKETING_KINDS,
  multi_intent: MULTI_INTENT_KINDS,
  risky: RISKY_KINDS,
  whitelist: WHITELIST_KINDS,
  handoff: HANDOFF_KINDS,
};

/** Options of `generateTask`. */
export interface GenerateOptions {
  /** Force the intent (default: sampled with `INTENT_WEIGHTS`); a harness's own intents are env/tasks/custom-intents.ts's. */
  intent?: Intent;
  /** `train` (default) or `eval`: eval tasks live in held-out worlds. */
  split?: Split;
}

/**
 * Rooms the generator builds tasks in, per split and locale: a task's seed draws one of them (`slotOf`),
 * and its own streams draw the viewer, the question and the answer in it. A fixed pool keeps every room
 * in the world cache (a reset then never builds one) and is part of what a seed means, like the record
 * version; train and eval draw from disjoint rooms.
 */
export const WORLD_POOL = 512;

/** The world seed of a generated task: its room of the split's pool (train and eval rooms never coincide). */
export function taskWorldSeed(seed: number, split: Split): number {
  return deriveSeed(slotOf(seed, WORLD_POOL), split === 'eval' ? 'world:eval' : 'world');
}

/** The id of a generated task. */
export function generatedTaskId(seed: number, locale: Locale, intent: Intent, split: Split): string {
  return `gen-${split}-${locale}-${seed}-${intent}`;
}

/** What a generated task id encodes. */
export interface GeneratedTaskRef {
  split: Split;
  locale: Locale;
  seed: number;
  intent: Intent;
}

const ID_RE = /^gen-(train|eval)-(zh-CN|en)-(-?\d+)-([a-z][a-z0-9_]*)$/;

/**
 * Parse `gen-<split>-<locale>-<seed>-<intent>`; null when the id is not a generated task's. The intent may
 * be a harness's own (any name of `CUSTOM_INTENT_RE`): whether the harness serves it is the source's check.
 */
export function parseGeneratedTaskId(id: string): GeneratedTaskRef | null {
  const m = ID_RE.exec(id);
  if (!m) return null;
  const seed = Number(m[3]);
  const intent = m[4] as Intent;
  if (!Number.isSafeInteger(seed) || !CUSTOM_INTENT_RE.test(intent) || !LOCALES.includes(m[2] as Locale)) return null;
  return { split: m[1] as Split, locale: m[2] as Locale, seed, intent };
}

/** Sample an intent with the production mix (independent of everything else drawn for the task). */
export function sampleIntent(seed: number): BuiltinIntent {
  return new Rng(seed, 'task/intent').weighted(INTENT_WEIGHTS);
}

/**
 * Build the task for `(seed, locale)` from an already generated world (the world must be
 * `generateWorld(taskWorldSeed(seed, split), locale)`). Returns the task and the sub-kind that produced it.
 */
export function generateTaskInWorld(
  world: World,
  seed: number,
  locale: Locale,
  intent: BuiltinIntent,
  split: Split,
): { task: Task; sub_kind: string; kind: string } {
  const built = tryTaskInWorld(world, seed, locale, intent, split);
  if (!built) throw new Error(`no ${intent} task fits world ${world.seed} (${locale})`);
  return built;
}

/** A builder's probe call (`BuildContext.call`): on a throwaway overlay, so generating a task never changes anything. */
function probe(world: World, name: string, args: { [key: string]: unknown }, viewerId: string): ToolOutcome {
  return callService(name, args, { world, state: emptyWorldState(), viewer_id: viewerId });
}

/** The task of `(seed, intent)` in this world, or null when no sub-kind of the intent fits it. */
function tryTaskInWorld(world: World, seed: number, locale: Locale, intent: BuiltinIntent, split: Split): { task: Task; sub_kind: string; kind: string } | null {
  // The build stream depends on the intent, so a forced intent and a sampled one give the same task.
  const rng = new Rng(seed, `task/build/${intent}`);
  const current = world.products.find((p) => p.link_no === world.room.current_link) ?? world.products[0];
  const ctx: BuildContext = {
    world,
    locale,
    rng,
    current,
    call: probe.bind(undefined, world),
  };
  for (const kind of weightedOrder(rng, SUB_KINDS[intent])) {
    const d = kind.build(ctx);
    if (!d) continue;
    const task: Task = {
      id: generatedTaskId(seed, locale, intent, split),
      intent,
      locale,
      split,
      world_seed: world.seed,
      viewer_id: d.viewer_id,
      messages: d.messages,
      history: d.history,
      // The key follows the skills it serves: every look-up they name to call is at least optional.
      answer_key: withInstructedLookups(d.answer_key, embeddedHarness().get(locale)),
    };
    return { task, sub_kind: d.sub_kind, kind: kind.name };
  }
  return null;
}

/**
 * Generate a task, deterministically: the same `(seed, locale, opts)` always gives byte-identical JSON.
 * The world is `generateWorld(task.world_seed, locale)`.
 */
export function generateTask(seed: number, locale: Locale, opts: GenerateOptions = {}): Task {
  return generateTaskWithKind(seed, locale, opts).task;
}

/**
 * `generateTask` with what built the task (the traffic-mix measurement counts them, `harness-gym mix`):
 * `kind`, the entry of `SUB_KINDS` (whose weights order the tries), and `sub_kind`, the name its draft
 * gives (one kind may build several, e.g. marketing's `flash_time` builds `flash_start` or `flash_end`).
 * The same task, byte for byte.
 */
export function generateTaskWithKind(seed: number, locale: Locale, opts: GenerateOptions = {}): { task: Task; sub_kind: string; kind: string } {
  const split = opts.split ?? 'train';
  const intent = opts.intent ?? sampleIntent(seed);
  // A harness's own intent has no built-in sub-kinds: its module makes it, through the harness (generateFor).
  if (!isBuiltinIntent(intent)) throw new RangeError(`${intent} is not a built-in intent: generate it with generateFor(harness, ...)`);
  // A forced intent may need what a world lacks (a coupon this viewer can take, a nameable flash sale):
  // then the task moves to the next world of a fixed, seed-derived sequence. Deterministic, so a task id
  // still regenerates the same task; the task records the world it was built in.
  for (let attempt = 0; attempt < WORLD_ATTEMPTS; attempt++) {
    const worldSeed = attempt === 0 ? taskWorldSeed(seed, split) : deriveSeed(taskWorldSeed(seed, split), `retry:${attempt}`);
    const built = tryTaskInWorld(worldFor(worldSeed, locale), seed, locale, intent, split);
    if (built) return built;
  }
  throw new Error(`no ${intent} task fits ${WORLD_ATTEMPTS} worlds of seed ${seed} (${locale})`);
}

/** How many worlds a forced intent may try before giving up (a generator bug if ever reached). */
const WORLD_ATTEMPTS = 16;
