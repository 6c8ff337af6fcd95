/** Public surface of `env/tasks/`: the seeded task generator, its id scheme, the Task schema and task sources. */
export {
  INTENT_WEIGHTS,
  SUB_KINDS,
  generateTask,
  generateTaskInWorld,
  generateTaskWithKind,
  generatedTaskId,
  parseGeneratedTaskId,
  sampleIntent,
  taskWorldSeed,
  WORLD_POOL,
} from './generate.js';
export type { GenerateOptions, GeneratedTaskRef } from './generate.js';
export { AnswerKeySchema, TaskSchema } from './schema.js';
export { WorldDataSchema, worldProblems } from './world-schema.js';
export type { WorldProblem } from './world-schema.js';
export { GeneratorTaskSource, JsonlTaskSource, loadHarnessTasks, listErrors, MAX_LISTED_ERRORS } from './source.js';
export { adaptTask, generateFor, generateForWithKind, generatedIntents } from './harness-tasks.js';
export { checkIntentModules, generateCustom, harnessMix, TRIAL_SEEDS } from './custom-intents.js';
export type { CustomTaskResult, IntentContext } from './custom-intents.js';
export type { JsonlError, JsonlLoad, TaskPick, TaskSelector, TaskSource } from './source.js';
export { REFERENCE_MAX_CHARS } from './kit.js';
export { toolMentions, instructedLookups, withInstructedLookups } from './instructed.js';
export {
  PRODUCTION_MIX,
  REPORT_TABLE_1,
  TASK_SPLITS,
  isProductionMix,
  mixIntent,
  mixLabel,
  mixShares,
  withCustomWeights,
  parseMix,
  parseMixText,
  splitsOf,
  taskSplitFor,
} from './mix.js';
export type { IntentMix, MixResult, TaskSplit, VariantSplit } from './mix.js';
export { eligibleCoupons } from './intents/commerce.js';
export type { BuildContext, Builder, Draft, SubKind } from './kit.js';
