/**
 * Variant specs: validation, the named presets, and `variant_id` (a stable hash of the normalised spec
 * and the seed that realised it).
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { VariantSpecSchema as WireVariantSpecSchema } from '../protocol/wire.js';
import { FAMILIES } from './types.js';
import type { Family, VariantSpec } from './types.js';

/**
 * What makes a spec valid, beyond its wire shape (protocol/wire.ts `VariantSpecSchema`, whose fields this
 * refines): known families, intensity and identity share in [0, 1], no unknown keys.
 */
export const VariantSpecSchema = WireVariantSpecSchema.extend({
  families: z.array(z.enum(FAMILIES)),
  intensity: z.number().min(0).max(1),
  identity_share: z.number().min(0).max(1).optional(),
}).strict();

/** Named presets. `identity` is the base harness itself (no spec). */
export const PRESETS: Readonly<Record<string, VariantSpec | null>> = Object.freeze({
  identity: null,
  train: Object.freeze({ families: Object.freeze([...FAMILIES]) as Family[], intensity: 0.6, split: 'train' as const }),
  eval: Object.freeze({ families: Object.freeze([...FAMILIES]) as Family[], intensity: 0.6, split: 'eval' as const }),
});

/** Preset names, as `welcome.variant_presets` lists them. */
export const PRESET_NAMES: readonly string[] = Object.keys(PRESETS);

/** A spec, or why the `variant` field of a reset item is not one. */
export type SpecResult =
  | { ok: true; spec: VariantSpec | null; preset?: string }
  | {
      ok: false;
      message: string;
      /** Set for a range error (`variantRangeError`): its details, which a session reports before it takes an id or a seed. */
      range?: Record<string, unknown>;
    };

/**
 * The range errors of a spec object (an intensity or identity share outside [0, 1]), or null. A session
 * checks these before it takes an id or draws a seed for the item; every other problem of a variant is
 * found by `parseVariant` when the episode is built (after the item's seed was drawn: seed streams have
 * always advanced for those).
 */
export function variantRangeError(variant: unknown): { message: string; details: Record<string, unknown> } | null {
  if (typeof variant !== 'object' || variant === null) return null;
  const { intensity, identity_share } = variant as { intensity?: unknown; identity_share?: unknown };
  if (typeof intensity === 'number' && !(intensity >= 0 && intensity <= 1)) {
    return { message: 'variant.intensity must be in [0, 1]', details: { intensity } };
  }
  if (typeof identity_share === 'number' && !(identity_share >= 0 && identity_share <= 1)) {
    return { message: 'variant.identity_share must be in [0, 1]', details: { identity_share } };
  }
  return null;
}

/** Resolve a reset item's `variant` (a preset name or a spec object). `null` spec means identity. */
export function parseVariant(variant: unknown): SpecResult {
  if (typeof variant === 'string') {
    if (!Object.hasOwn(PRESETS, variant))
      return { ok: false, message: `unknown variant preset "${variant}" (known: ${PRESET_NAMES.join(', ')})` };
    return { ok: true, spec: PRESETS[variant], preset: variant };
  }
  const range = variantRangeError(variant);
  if (range !== null) return { ok: false, message: range.message, range: range.details };
  const parsed = VariantSpecSchema.safeParse(variant);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'variant'}: ${i.message}`);
    return { ok: false, message: `invalid variant spec: ${issues.join('; ')}` };
  }
  return { ok: true, spec: parsed.data as VariantSpec };
}

/**
 * Normalised specs of frozen specs (the presets; a server's default variant), and each normalised spec
 * as its own: every reset normalises its spec two or three times (build.ts), and a preset's is the same
 * frozen object each time. A spec that is not frozen could change between calls and is normalised anew.
 */
const normalized = new WeakMap<VariantSpec, VariantSpec>();

/** The normalised spec: families deduplicated and in canonical order, optional fields explicit. */
export function normalizeSpec(spec: VariantSpec): VariantSpec {
  const kept = normalized.get(spec);
  if (kept !== undefined) return kept;
  const families = FAMILIES.filter((f) => spec.families.includes(f)) as Family[];
  const out: VariantSpec = { families, intensity: spec.intensity, split: spec.split };
  if (spec.seed !== undefined) out.seed = spec.seed >>> 0;
  if (spec.identity_share !== undefined) out.identity_share = spec.identity_share;
  if (Object.isFrozen(spec) && Object.isFrozen(spec.families)) {
    Object.freeze(families);
    Object.freeze(out);
    normalized.set(spec, out);
    normalized.set(out, out);
  }
  return out;
}

/** The start of `variantId`'s hashed key for a frozen normalised spec without a seed of its own. */
const idPrefixes = new WeakMap<VariantSpec, string>();

/**
 * A stable id for (spec, realising seed, pool size): `v-` and 12 hex digits of SHA-256. The pool size is
 * part of it because it decides which compiled variant a seed draws (`build.ts`). The hashed key is
 * `JSON.stringify([families, intensity, split, seed, pool])`; for a frozen spec its first three fields
 * are written once (seed and pool are integers, which JSON writes as `String` does).
 */
export function variantId(spec: VariantSpec, seed: number, pool: number): string {
  const n = normalizeSpec(spec);
  let key: string;
  if (n.seed === undefined && Object.isFrozen(n)) {
    let prefix = idPrefixes.get(n);
    if (prefix === undefined) idPrefixes.set(n, (prefix = JSON.stringify([n.families, n.intensity, n.split]).slice(0, -1) + ','));
    key = prefix + String(seed >>> 0) + ',' + JSON.stringify(pool) + ']';
  } else {
    key = JSON.stringify([n.families, n.intensity, n.split, n.seed ?? seed >>> 0, pool]);
  }
  // One-shot hash: a Hash object per reset cost more than the digest.
  return 'v-' + hash('sha256', key).slice(0, 12);
}
