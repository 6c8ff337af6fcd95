/** Public surface of `protocol/`: domain types, harness types, seeded randomness. */
export type {
  Locale,
  Intent,
  Split,
  ToolCall,
  ChatMessage,
  JsonSchema,
  ToolSchema,
  ToolErrorCode,
  ToolError,
  ToolOutcome,
  CanonicalCall,
  WorldState,
  Fact,
  CallRequirement,
  Expectation,
  AnswerKey,
  HistoryLine,
  Task,
  Outcome,
  TraceCall,
  HookViolation,
  TraceTurn,
  Trace,
  RewardDetail,
  RewardResult,
} from './domain.js';
export { LOCALES, INTENTS, TOOL_ERROR_CODES, emptyWorldState } from './domain.js';
export type {
  Skill,
  PromptBlockId,
  PromptBlock,
  HeaderStyle,
  PromptSpec,
  HookStage,
  HookSpec,
  FeedbackStyle,
  RetryPolicy,
  HarnessLimits,
  Harness,
} from './harness.js';
export { LIMIT_RANGES } from './harness.js';
export { Rng, deriveSeed } from './rng.js';
export { extractNumbers, normalizeForMatch, toHalfWidth, charLength } from './text.js';
export type { SurfaceMap, SurfaceToolError } from './surface.js';
export { IdentityMap } from './surface.js';
export type { ErrorCode, ErrorInfo, Result } from './errors.js';
export { ERROR_CODES, err, EnvError } from './errors.js';
export { WIRE_PROTOCOL_VERSION, WIRE_PATH, REQUEST_TYPES, RequestIdSchema, Uint32Schema, WireErrorSchema, HelloSchema, VariantSpecSchema, TaskSelectorSchema, ResetOptionsSchema, ResetItemSchema, ResetSchema, ResetEnvelopeSchema, ActionSchema, WireToolCallSchema, StepItemSchema, StepSchema, StepEnvelopeSchema, CloseSchema, PingSchema, WireLimitsSchema, WireDefaultsSchema, WireRewardProfileSchema, ServerInfoSchema, WelcomeSchema, WireObservationSchema, ItemErrorSchema, ResetOkSchema, ResetResultSchema, StepOkSchema, StepResultSchema, ClosedSchema, PongSchema, ErrorMessageSchema, ReplySchema, wireIssues, type RequestId, type RequestType, type WireError, type WireIssue, type Hello, type VariantSpec, type TaskSelectorWire, type ResetOptionsWire, type ResetItem, type Reset, type Action, type StepItem, type Step, type Close, type Ping, type WireLimits, type WireDefaults, type WireRewardProfile, type ServerInfo, type Welcome, type ItemError, type ResetResult, type ResetResultItem, type StepResult, type StepResultItem, type Closed, type Pong, type ErrorMessage, type Reply } from './wire.js';
