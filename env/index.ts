/** Public surface of `env/`: episodes, the in-process Gym API, prompt rendering, parsers, hooks, tasks. */
export { Episode } from './episode.js';
export { LOAD_SKILL_TOOL, DECOY_PREFIX } from './tool-router.js';
export type { EpisodeParams, Observation, ResetOutput, StepOutput, StepResult } from './episode.js';
export { HarnessGymEnv } from './gym.js';
export type { EnvResetArgs } from './gym.js';
export { createEpisode, defaultVariantChoice, planEpisode, resolveOptions, resolveRequest, resolveReset, startEpisode } from './reset-plan.js';
export type { EpisodePlan, Placement, ResetPlan, ResolvedOptions, VariantChoice } from './reset-plan.js';
export {
  defaultEnvConfig,
  defaultChoiceOf,
  parseVariantChoice,
  variantFor,
  identityVariant,
  resolveVariant,
  sharedVariantOf,
  prepareVariantsInBackground,
  resolveTask,
  variantSplitOf,
  taskDefaultProblems,
  DEFAULT_LIMITS,
  DEFAULT_DEFAULTS,
  VARIANT_PRESETS,
  VARIANT_FAMILIES,
} from './env.js';
export type {
  EnvConfig,
  EnvDefaults,
  EpisodeLimits,
  EpisodeRequest,
  PreparedPool,
  ResetOptions,
  ResolvedVariant,
  SharedVariant,
} from './env.js';
export { renderSystemPrompt, promptFacts, renderToolsDoc, renderSkillsIndex, linkName, productPriceLine } from './prompt.js';
export { PARSERS, coerceArguments } from './parsers.js';
export { DISCOVER_TOOLS_TOOL, MARKETING_TOOLS, MarketingHub, marketingHub, marketingSchemas, connectMarketingHttp } from './mcp.js';
export type { ActionParser, ParsedAction, ParsedCall, ParseResult } from './parsers.js';
export { runReplyHooks, runInputHooks, feedbackMessage } from './hooks.js';
export { autoCorrect, CORRECTABLE_CODES } from './auto-correct.js';
export { SessionEnv, STEP_ADMIT_CHARS, MAX_CLOSED_GROUPS, emptyStats, rawEpisodeId } from './session.js';
export type { SessionEnvOptions, SessionStats, SessionLog, ResetOk, StepOk, CloseOutcome } from './session.js';
export { EpisodeWrapper, ActionHints, actionFormat, privilegedView } from './wrappers.js';
export type { EpisodeHandle, EpisodeStart, EpisodeWrapping, Advisor, AdvisorStart } from './wrappers.js';
export { GeneratorTaskSource, JsonlTaskSource, generateTask, parseGeneratedTaskId, INTENT_WEIGHTS, loadHarnessTasks, listErrors, MAX_LISTED_ERRORS, adaptTask, generateFor, generatedIntents } from './tasks/index.js';
export { SUB_KINDS, generateForWithKind, toolMentions, instructedLookups, withInstructedLookups } from './tasks/index.js';
export {
  PRODUCTION_MIX,
  REPORT_TABLE_1,
  TASK_SPLITS,
  isProductionMix,
  mixIntent,
  mixLabel,
  mixShares,
  harnessMix,
  parseMix,
  parseMixText,
  splitsOf,
  taskSplitFor,
} from './tasks/index.js';
export type { TaskSource, TaskSelector, TaskPick, IntentMix, MixResult, TaskSplit, VariantSplit } from './tasks/index.js';
