/** Public surface of `client/`: the WebSocket client, the vector-env helper and the remote evaluation. */
export { HarnessGymClient, HarnessGymError, isItemError, unwrap } from './client.js';
export type { ClientOptions, ReconnectPolicy } from './client.js';
export { VectorEnv } from './vector.js';
export type { AutoresetMode, VectorEnvOptions, VectorInfo, VectorResetResult, VectorStepResult } from './vector.js';
export { evaluateRemote } from './remote-eval.js';
export type { RemoteEvalOptions } from './remote-eval.js';
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
