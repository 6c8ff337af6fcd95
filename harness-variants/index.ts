/** Public surface of `harness-variants/`: Harness-State Augmentation. */
export type { Family, VariantSpec, RenameTables, VariantDraft, TransformContext, HarnessTransform } from './types.js';
export { FAMILIES } from './types.js';
export {
  MAX_VARIANT_POOL,
  VARIANT_POOL,
  buildVariant,
  compiledVariantSlots,
  notApplicableOperators,
  onPoolStarted,
  poolSlot,
  prepareVariantPool,
  prepareVariantSlot,
  slotSeed,
  variantPoolKey,
  variantSlotCompiled,
} from './build.js';
export type { BuiltVariant, StartedPool } from './build.js';
export { VariantSpecSchema, PRESETS, PRESET_NAMES, parseVariant, variantRangeError, normalizeSpec, variantId } from './spec.js';
export type { SpecResult } from './spec.js';
export { OPERATORS } from './ops/index.js';
export { isSalesEnding } from './ops/pools-hooks.js';
export { TableMap } from './surface-map.js';
export { materialize, textRewriter } from './materialize.js';
