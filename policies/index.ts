/** Public surface of `policies/`: the reference policies and the evaluation loop. */
export type { Policy, PolicyInstance, PolicyObservation, PrivilegedContext, EpisodeStart, SurfaceCall } from './policy.js';
export { writeCalls, writeReply, toSurface } from './policy.js';
export { oraclePolicy } from './oracle.js';
export { randomPolicy } from './random.js';
export { memorizerPolicy, memorizerFor } from './memorizer.js';
export { POLICIES, policyFor } from './registry.js';
export { BLIND_POLICIES, BLIND_DESCRIPTIONS } from './blind.js';
