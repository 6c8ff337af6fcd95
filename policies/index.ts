/** Public surface of `policies/`: the reference policies and the evaluation loop. */
export type { Policy, PolicyInstance, PolicyObservation, PrivilegedContext, EpisodeStart, SurfaceCall } from './policy.js';
export { writeCalls, writeReply, toSurface } from './policy.js';
export { oraclePolicy } from './oracle.js';
export { randomPolicy } from './random.js';
export { memorizerPolicy } from './memorizer.js';
export { evaluate, playEpisode, summarize, variantLabel } from './evaluate.js';
export { runCheck, checkSpecs, informationProblems, roundTripProblems } from './check.js';
export type { CheckReport, CheckOptions } from './check.js';
export type { EvalOptions, EvalSummary, EpisodeRecord } from './evaluate.js';
export { POLICIES } from './registry.js';
