/**
 * The wire types the client speaks: protocol/wire.ts defines every message once (zod schemas, types
 * inferred); this file names them as the client's public API does and adds what only the client has (its
 * own error codes). Optional fields are left out of frames, never sent as `undefined`, so that both
 * encodings carry the same maps.
 */
import type {
  Action as WireAction,
  Close,
  Closed,
  ErrorMessage,
  Hello,
  ItemError as WireItemError,
  Ping,
  Reply,
  RequestId as WireRequestId,
  ResetItem as WireResetItem,
  ResetOk as WireResetOk,
  ResetOptionsWire,
  StepInfo as WireStepInfo,
  StepItem as WireStepItem,
  StepOk as WireStepOk,
  TaskSelectorWire,
  VariantSpec as WireVariantSpec,
  Welcome,
  WireDefaults,
  WireError as WireErrorObject,
  WireLimits,
  WireObservation,
  WireRewardProfile,
} from '../protocol/wire.js';
import { WIRE_PROTOCOL_VERSION } from '../protocol/wire.js';
import type { ErrorCode as WireCode } from '../protocol/errors.js';

/** The protocol version this client speaks (`hello.protocol`). */
export const PROTOCOL_VERSION = WIRE_PROTOCOL_VERSION;

export type RequestId = WireRequestId;
/** Error codes PROTOCOL.md names, frame-level and item-level ("Errors"). */
export type WireErrorCode = WireCode;

/**
 * Codes the client raises itself (never on the wire): a request that got no reply in time, a connection
 * that closed (or could not be opened or resumed) with requests outstanding, a reply the client cannot read;
 * and from a `ShardedClient` (client/sharded.ts), item errors: the episode's replica went down
 * (`REPLICA_DOWN`, `details.replica`), no replica is live to place an item on (`NO_REPLICA`). And
 * `CONFIG_MISMATCH`: the server (or its replicas) and this client disagree on what they must share to
 * play the same episodes (the harness served, the replicas' caps, a server's default intent mix, the task
 * a seed resolves to, a reply that differs from this build's): a configuration to fix, not a bug
 * (eval/remote.ts).
 */
export type ClientErrorCode =
  | 'CLIENT_TIMEOUT'
  | 'CONNECTION_CLOSED'
  | 'CONNECTION_FAILED'
  | 'BAD_REPLY'
  | 'REPLICA_DOWN'
  | 'NO_REPLICA'
  | 'CONFIG_MISMATCH';

/** Every code a `HarnessGymError` may carry. Unknown future server codes pass through as strings. */
export type ErrorCode = WireErrorCode | ClientErrorCode | (string & {});

/** The `error` object of an `error` frame or an `ItemError` (the client also carries its own codes in it). */
export type WireError = Omit<WireErrorObject, 'code'> & { code: ErrorCode };

export type HelloMessage = Hello;
export type WelcomeLimits = WireLimits;
export type WelcomeDefaults = WireDefaults;
export type RewardProfileInfo = WireRewardProfile;
export type WelcomeMessage = Welcome;
export type VariantSpec = WireVariantSpec;
export type ResetOptions = ResetOptionsWire;
export type TaskSelector = TaskSelectorWire;
export type ResetItem = WireResetItem;
export type Observation = WireObservation;
export type StepInfo = WireStepInfo;
/**
 * An item that failed alone. Its code is a PROTOCOL.md item-level code, or, from a `ShardedClient`, a client
 * code (`REPLICA_DOWN`, `NO_REPLICA`, or a replica's frame-level code) with `details.replica` naming the replica.
 */
export type ItemError = Omit<WireItemError, 'error'> & { error: WireError };
export type ResetOk = WireResetOk;
/** One item of a `reset_result`. */
export type ResetResultItem = ResetOk | ItemError;
export type Action = WireAction;
export type StepItem = WireStepItem;
export type StepOk = WireStepOk;
/** One item of a `step_result`. */
export type StepResultItem = StepOk | ItemError;
/** The reply to `close`: which episode ids were closed, which the session did not know. */
export type ClosedReply = Omit<Closed, 'type' | 'id'>;

/** Requests the client sends (batch items typed as the contract writes them). */
export type RequestMessage =
  | HelloMessage
  | { type: 'reset'; id: RequestId; items: ResetItem[] }
  | { type: 'step'; id: RequestId; items: StepItem[] }
  | Close
  | Ping;

/** Every frame the server may send. */
export type ReplyMessage = Reply | ErrorMessage;
