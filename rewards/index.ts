/** Public surface of `rewards/`: the module contract, the registry, profiles and episode scoring. */
export type { RewardModule, RewardProfile, RewardProfileModule, RewardGate, RewardSegment, AsyncScoreContext } from './types.js';
export { RewardRegistry, defaultRegistry, BUILTIN_MODULES } from './registry.js';
export { DEFAULT_PROFILE, RewardProfileSchema, validateProfile } from './profile.js';
export type { ProfileValidation } from './profile.js';
export { scoreEpisode, round6 } from './score.js';
export { scoreEpisodeAsync, needsAsyncScoring } from './score-async.js';
export { loadProfileFile, loadModuleDir, loadRewardSet, checkModuleShape, registryWithJudge, RewardCatalog, rewardSetHash, builtinRewardSetHash } from './loader.js';
export type { ProfileFileResult, ModuleDirResult, RewardSources, RewardSet, RewardSetOptions, ReloadOutcome, PreparedRewards } from './loader.js';
export {
  createLlmJudgeModule,
  llmJudgeModule,
  parseVerdict,
  clearJudgeCache,
  judgeCacheSize,
  LLM_JUDGE_DEFAULTS,
  DEFAULT_JUDGE_RUBRIC,
  LlmJudgeParamsSchema,
} from './modules/llm-judge.js';
export type { LlmJudgeOptions, JudgeVerdict } from './modules/llm-judge.js';
export { accuracyModule, ACCURACY_DEFAULTS } from './modules/accuracy.js';
export { effectivenessModule, EFFECTIVENESS_DEFAULTS } from './modules/effectiveness.js';
export { hookComplianceModule, HOOK_COMPLIANCE_DEFAULTS } from './modules/hook-compliance.js';
export { toolRationalityModule, TOOL_RATIONALITY_DEFAULTS } from './modules/tool-rationality.js';
export { skillSelectionModule, SKILL_SELECTION_DEFAULTS } from './modules/skill-selection.js';
export { refusalPhrased, offersAlternative, asksQuestion, hasCallToAction, factStated, diffWorldState, INJECTED_FAULTS } from './common.js';
export type { StateDiff, MultisetDiff } from './common.js';
