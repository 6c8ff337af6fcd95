/** Public surface of `client/`: the WebSocket client, the sharding client over replicas, the vector-env helper and the rollouts. */
export { HarnessGymClient, HarnessGymError, isItemError, unwrap } from './client.js';
export type { ClientOptions, ReconnectPolicy } from './client.js';
export { ShardedClient, fnv1a32, shardIndex, shardKey } from './sharded.js';
export type { EpisodeClient, RejoinPolicy, ReplicaStatus, ShardedClientOptions } from './sharded.js';
export { VectorEnv } from './vector.js';
export { runRollout, formatRolloutSummary, summarizeRollout, completionToAction, backoffDelay, ORACLE_ACTION_HEADER } from './rollout.js';
export type { RolloutOptions, RolloutRecord, RolloutSummary, RolloutResult, RolloutTranscript, GroupStat } from './rollout.js';
export type { AutoresetMode, VectorEnvOptions, VectorInfo, VectorResetResult, VectorStepResult } from './vector.js';
export { PROTOCOL_VERSION } from './types.js';
export type {
  Action,
  ClientErrorCode,
  ClosedReply,
  ErrorCode,
  HelloMessage,
  ItemError,
  Observation,
  ReplyMessage,
  RequestId,
  RequestMessage,
  ResetItem,
  ResetOk,
  ResetOptions,
  ResetResultItem,
  RewardProfileInfo,
  StepInfo,
  StepItem,
  StepOk,
  StepResultItem,
  TaskSelector,
  VariantSpec,
  WelcomeDefaults,
  WelcomeLimits,
  WelcomeMessage,
  WireError,
  WireErrorCode,
} from './types.js';
