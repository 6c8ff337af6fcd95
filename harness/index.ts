/**
 * Public surface of `harness/`: the base harness as data, its loader, the skill Markdown codec and the
 * canonical names. The data files live beside this module (skills/, tools/, prompt.yaml, hooks.yaml).
 */
export { loadBaseHarness, harnessDataDir, deepFreeze, loadHarnessDir, embeddedHarness, harnessLabel, harnessSetOf, harnessHash, HarnessSet, zodIssueLines } from './loader.js';
export type { HarnessIdentity, HarnessLoadResult } from './loader.js';
export { loadParaphrases, ParaphrasesFileSchema, PARAPHRASES_FILE } from './paraphrases.js';
export type { Paraphrases, ParaphraseNames, SkillWordings, ToolWordings, BlockWording, WordingPool } from './paraphrases.js';
export { isIdentifierName, bareSkillReferences, bareSkillNameErrors } from './name-mentions.js';
export type { BareReference, ServedTexts } from './name-mentions.js';
export { parseSkillMarkdown, renderSkillMarkdown, HarnessDataError } from './skill-markdown.js';
export {
  CANONICAL_TOOLS,
  TOOL_SERVICES,
  REPLY_SKILLS,
  STRATEGY_SKILLS,
  CANONICAL_SKILLS,
  INTENT_REPLY_SKILLS,
  SKILL_NAME_RE,
  HOOK_STAGES,
  HOOK_IDS,
  HOOK_CODES,
  VIOLATION_CODES,
  HOOK_KIND_STAGES,
  HOOK_KINDS,
  HOOK_KIND_CODES,
  REPEATABLE_HOOK_KINDS,
  PROMPT_BLOCK_ORDER,
  PROMPT_PLACEHOLDERS,
} from './names.js';
export type { CanonicalTool, HookId, HookKind } from './names.js';
export {
  HOOK_PARAM_SCHEMAS,
  InputGuardParamsSchema,
  ReplyFormatParamsSchema,
  ProhibitedPhrasesParamsSchema,
  FactualRiskParamsSchema,
  OutputConstraintsParamsSchema,
  RequiredCallParamsSchema,
} from './schema.js';
export type {
  InputGuardParams,
  ReplyFormatParams,
  ProhibitedPhrasesParams,
  FactualRiskParams,
  OutputConstraintsParams,
  RequiredCallParams,
} from './schema.js';
export { diffHarness, formatHarnessDiff } from './diff.js';
export type { HarnessChange } from './diff.js';
export { HarnessBindings, SERVICE_OPERATIONS, OPERATION_OF_TOOL, EMBEDDED_SKILL_INTENT, bindingLabel } from './bindings.js';
export type { ToolBinding, IntentBinding } from './bindings.js';
export { callCustomService, checkCustomState, initialCustomState, CUSTOM_STATE_LIMITS } from './services.js';
export type { CustomService, CustomServiceContext, CustomServiceAnswer, StateCheck } from './services.js';
export { intentExamples, provideIntentExamples } from './intents.js';
export type { IntentModule, IntentExample, IntentExampleSource } from './intents.js';
export type { HarnessParts } from './loader.js';
export { HOOK_MODULE_FAILED, HOOK_MODULE_STAGES } from './hook-modules.js';
export type { HookModule, HookModuleCall, HookModuleContext, HookModuleInput, HookModuleStage } from './hook-modules.js';
