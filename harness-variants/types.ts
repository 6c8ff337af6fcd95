/**
 * Harness-State Augmentation (HSA): the contracts. A variant `h' = HSA(h_base, spec, seed, task)` is built
 * by operators (`HarnessTransform`), each changing one thing, from a draft: a copy of the base harness plus
 * the rename tables that map the variant's surface forms back to canonical ones.
 */
import type { Locale, Split, Task } from '../protocol/domain.js';
import type { VariantSpec as WireVariantSpec } from '../protocol/wire.js';
import type { Harness } from '../protocol/harness.js';
import type { Rng } from '../protocol/rng.js';
import type { OwnTexts } from './own-texts.js';

/** Operator families, as `VariantSpec.families` names them. */
export const FAMILIES = ['skills', 'tools', 'prompt', 'hooks'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * A valid variant spec (PROTOCOL.md `VariantSpec`, protocol/wire.ts): the wire shape with its families
 * known. `intensity` in [0, 1] says how many operators apply and how strongly; `split: "eval"` draws from
 * name pools, templates and styles that `train` never uses; `seed` fixes the variant whatever the episode
 * seed; `identity_share` is the fraction of episodes given the base harness instead.
 */
export type VariantSpec = Omit<WireVariantSpec, 'families'> & { families: Family[] };

/**
 * The rename tables of a variant: canonical -> surface. Param and result-field names share one table
 * (`fields`), so that "item_id" reads the same as an argument and as a result field, and text that
 * mentions a name can be rewritten consistently.
 */
export interface RenameTables {
  /** Canonical tool name -> surface tool name. */
  tools: Record<string, string>;
  /** Canonical skill name -> surface skill name. */
  skills: Record<string, string>;
  /** Canonical parameter / result field name -> surface name (variant-wide). */
  fields: Record<string, string>;
  /** Canonical tool -> the surface name of the one object parameter wrapping all of its arguments. */
  nest: Record<string, string>;
  /** Canonical tool -> surface-only optional parameters (accepted, ignored when mapped back). */
  extra_params: Record<string, string[]>;
  /** Surface tools that stand for no canonical tool (distractors, look-alikes). */
  decoys: string[];
}

/** The working copy an operator transforms. */
export interface VariantDraft {
  /** The harness in progress. Names stay canonical until the tables are applied at the end. */
  harness: Harness;
  tables: RenameTables;
  /** The task as this variant presents it (a viewer-message operator may rewrite `messages`). */
  task: Task;
  /**
   * The normalised own texts, owned by the compiled variant this draft was copied from and shared by
   * every per-task draft of its pool slot (absent: made from the draft's parts on each use).
   */
  ownTexts?: OwnTexts;
}

/** What every operator is given. */
export interface TransformContext {
  /** A stream private to this operator (seeded by the variant seed and the operator's name). */
  rng: Rng;
  intensity: number;
  split: Split;
  locale: Locale;
  /** The untouched base harness, for reference. */
  base: Harness;
}

/** One HSA operator: changes one aspect of the draft and records how to map it back. */
export interface HarnessTransform {
  /** Stable id, e.g. `tools.rename.semantic`. */
  readonly name: string;
  readonly family: Family;
  /** One line for `harness-gym variants list`. */
  readonly description: string;
  /** Transform the draft in place. Must keep the task solvable with the same canonical actions. */
  apply(draft: VariantDraft, ctx: TransformContext): void;
  /**
   * Why the operator can change nothing in this base harness (e.g. its directory gives no wordings for
   * it), or undefined when it can. A variant skips an operator that is not applicable (`applied` never
   * lists it); `variants list|report` and `check` say which are not, and why. Absent: always applicable.
   */
  notApplicable?(base: Harness): string | undefined;
  /**
   * True for an operator whose work depends on the task (what it needs must survive: masking, limits,
   * forbidden words, an ending, the viewer's message). Such an operator runs on every reset, after the
   * compiled part of the variant, from the episode's own seed; every other operator runs once per
   * compiled variant (`build.ts`). Absent: the operator reads nothing of the task.
   */
  readonly perTask?: true;
}
