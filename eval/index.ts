/**
 * Public surface of `eval/`: playing reference policies over many episodes, in-process (`evaluate`) or
 * against a running server (`evaluateRemote`, the same summary byte for byte), and the HSA checker
 * (`runCheck`). It sits above env/, policies/, recording/ and client/, which do not import it.
 */
export { evaluate, playEpisode, summarize, variantLabel } from './evaluate.js';
export type { EvalOptions, EvalSummary, EpisodeRecord } from './evaluate.js';
export { runCheck, checkSpecs, informationProblems, roundTripProblems } from './check.js';
export type { CheckReport, CheckOptions } from './check.js';
export { evaluateRemote } from './remote.js';
export type { RemoteEvalOptions } from './remote.js';
export { runAudit, formatAudit, auditStrategies } from './audit.js';
export type { AuditOptions, AuditReport, AuditRow } from './audit.js';
export { recordTranscripts } from './rollout-records.js';
export type { TranscriptRecording } from './rollout-records.js';
export { calibrate, formatCalibration, readGrades, spearman, rewardReasons, DEFAULT_THRESHOLDS, GradeSchema } from './calibrate.js';
export type { CalibrationReport, CalibrationThresholds, CalibratedEpisode, Grade } from './calibrate.js';
export { runConsistency, formatConsistency, taskContradictions, worldContradictions, ruleContradictions, CONTRADICTION_CODES } from './consistency.js';
export type { ConsistencyReport, ConsistencyOptions, Contradiction, ContradictionCode, WorldSeams } from './consistency.js';
export { measureMix, formatMix } from './mix.js';
export type { MixOptions, MixCell, MixColumn, MixReport } from './mix.js';
export { PolicyEndpoint, EndpointError, buildPolicyEndpoint, toChunks, startPolicyEndpoint, parseChatRequest, tokenize, toolErrorsOf, conversationSeed, ENDPOINT_POLICIES, ORACLE_ACTION_FIELD, MAX_CHOICES } from './policy-endpoint.js';
export type { PolicyEndpointOptions, RunningPolicyEndpoint, ChatCompletion, ChatCompletionChunk, TokenLogprob } from './policy-endpoint.js';
