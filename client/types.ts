/**
 * Wire message types of protocol version 1, written from docs/PROTOCOL.md alone (the client never imports
 * server/). Field names are the wire's (snake_case). Optional fields are left out of frames, never sent as
 * `undefined`, so that both encodings carry the same maps.
 */
import type { ChatMessage, ToolSchema } from '../protocol/domain.js';

/** The protocol version this client speaks (`hello.protocol`). */
export const PROTOCOL_VERSION = 1;

/** A request id: a client-chosen string or a safe integer, echoed back in the reply. */
export type RequestId = string | number;

/** Error codes PROTOCOL.md names, frame-level and item-level ("Errors"). */
export type WireErrorCode =
  | 'BAD_FRAME'
  | 'INVALID_MESSAGE'
  | 'UNKNOWN_TYPE'
  | 'HELLO_REQUIRED'
  | 'PROTOCOL_VERSION'
  | 'UNAUTHORIZED'
  | 'FRAME_TOO_LARGE'
  | 'BATCH_TOO_LARGE'
  | 'UNKNOWN_SESSION'
  | 'CAPACITY_REACHED'
  | 'SHUTTING_DOWN'
  | 'INTERNAL'
  | 'UNKNOWN_EPISODE'
  | 'DUPLICATE_EPISODE'
  | 'RESET_NEEDED'
  | 'INVALID_ACTION'
  | 'INVALID_VARIANT'
  | 'UNKNOWN_TASK'
  | 'TIMEOUT';

/**
 * Codes the client raises itself (never on the wire): a request that got no reply in time, a connection
 * that closed (or could not be opened or resumed) with requests outstanding, a reply the client cannot read.
 */
export type ClientErrorCode = 'CLIENT_TIMEOUT' | 'CONNECTION_CLOSED' | 'CONNECTION_FAILED' | 'BAD_REPLY';

/** Every code a `HarnessGymError` may carry. Unknown future server codes pass through as strings. */
export type ErrorCode = WireErrorCode | ClientErrorCode | (string & {});

/** The `error` object of an `error` frame or an `ItemError`. */
export interface WireError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** `hello`: the first request of a connection (a new session, or `resume` of a dropped one). */
export interface HelloMessage {
  type: 'hello';
  id: RequestId;
  protocol: number;
  client?: string;
  token?: string;
  /** Seeds the session's stream, from which seedless reset items draw their seeds. */
  seed?: number;
  /** A `session_id` to resume after a dropped connection. */
  resume?: string;
}

/** Server limits announced in `welcome` (all integers; `idle_timeout_s` 0 means no idle reaping). */
export interface WelcomeLimits {
  max_batch: number;
  max_episodes: number;
  max_frame_bytes: number;
  max_turns: number;
  max_errors: number;
  idle_timeout_s: number;
  resume_grace_s: number;
  ping_interval_s: number;
  replay_window: number;
}

/** Server defaults for reset options a reset item leaves out. */
export interface WelcomeDefaults {
  variant: string;
  parser: string;
  max_turns: number;
  observation: 'delta' | 'full';
  locale: string;
  rewards: string;
}

/** A reward profile: the weighted modules of `options.rewards`. */
export interface RewardProfileInfo {
  name: string;
  modules: { name: string; version: string | number; weight: number }[];
}

/** `welcome`: the reply to `hello`. */
export interface WelcomeMessage {
  type: 'welcome';
  id: RequestId;
  protocol: number;
  session_id: string;
  resumed: boolean;
  server: { name: string; version: string };
  limits: WelcomeLimits;
  defaults: WelcomeDefaults;
  reward_profiles: RewardProfileInfo[];
  variant_presets: string[];
  variant_families: string[];
  parsers: string[];
}

/** A harness-variant spec (PROTOCOL.md `VariantSpec`). */
export interface VariantSpec {
  families: string[];
  /** In [0, 1]. */
  intensity: number;
  split: 'train' | 'eval';
  seed?: number;
  /** The fraction of episodes given the base harness, in [0, 1]. */
  identity_share?: number;
}

/** Options of one reset item. */
export interface ResetOptions {
  parser?: string;
  /** May only lower the cap (a larger value is clamped by the server). */
  max_turns?: number;
  locale?: 'zh-CN' | 'en';
  /** A profile name from `welcome.reward_profiles`. */
  rewards?: string;
  /** Probability in [0, 1] of an injected tool fault per call. */
  faults?: number;
  group_share?: 'task' | 'task+variant';
  observation?: 'delta' | 'full';
  /** Honoured only by servers configured for testing; elsewhere `INVALID_MESSAGE`. */
  oracle_hints?: boolean;
}

/** Task selector of a reset item. */
export interface TaskSelector {
  id?: string;
  intent?: string;
  split?: 'train' | 'eval';
}

/** One item of a `reset` frame. */
export interface ResetItem {
  /** Client-chosen; the server makes one if absent. */
  episode_id?: string;
  /** uint32; absent: drawn from the session's stream. */
  seed?: number;
  /** GRPO siblings share a group id (across frames too). */
  group_id?: string;
  task?: TaskSelector;
  /** A preset name from `welcome.variant_presets`, or a spec. */
  variant?: string | VariantSpec;
  options?: ResetOptions;
}

/** An observation: chat messages, and the tool list on reset (or when it changed). */
export interface Observation {
  messages: ChatMessage[];
  tools?: ToolSchema[];
}

/** `info` of reset and step results; the named fields are always there (`outcome` on the final step). */
export interface StepInfo {
  task_id: string;
  intent: string;
  variant_id: string;
  /** Assistant turns taken so far (0 at reset). */
  turn: number;
  outcome?: string;
  tool_errors?: { tool_call_id: string; code: string }[];
  hook_violations?: { hook: string; code: string }[];
  reward_components?: Record<string, number>;
  reward_details?: Record<string, { value: number; reasons: string[]; evidence?: unknown }>;
  segments?: { tool: number | null; reply: number | null };
  oracle_action?: unknown;
  [key: string]: unknown;
}

/** An item that failed alone (`ok: false`); the rest of its frame is unaffected. */
export interface ItemError {
  ok: false;
  episode_id?: string;
  error: WireError;
}

/** A successful reset item. */
export interface ResetOk {
  ok: true;
  episode_id: string;
  observation: Observation;
  info: StepInfo;
}

/** One item of a `reset_result`. */
export type ResetResultItem = ResetOk | ItemError;

/** The policy's assistant turn: raw completion text, or a structured OpenAI-style message. */
export type Action =
  | { text: string }
  | {
      message: {
        role: 'assistant';
        content: string | null;
        reasoning_content?: string;
        tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      };
    };

/** One item of a `step` frame. The action is typed loosely: the server judges it (`INVALID_ACTION`). */
export interface StepItem {
  episode_id: string;
  action: Action | unknown;
}

/** A successful step item (Gymnasium's five-tuple, never a bare `done`). */
export interface StepOk {
  ok: true;
  episode_id: string;
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: StepInfo;
}

/** One item of a `step_result`. */
export type StepResultItem = StepOk | ItemError;

/** The reply to `close`: which episode ids were closed, which the session did not know. */
export interface ClosedReply {
  episode_ids: string[];
  unknown: string[];
}

/** Requests the client sends after `hello`. */
export type RequestMessage =
  | HelloMessage
  | { type: 'reset'; id: RequestId; items: ResetItem[] }
  | { type: 'step'; id: RequestId; items: StepItem[] }
  | { type: 'close'; id: RequestId; episode_ids: string[] }
  | { type: 'ping'; id: RequestId };

/** Every frame the server may send. */
export type ReplyMessage =
  | WelcomeMessage
  | { type: 'reset_result'; id: RequestId; items: ResetResultItem[] }
  | { type: 'step_result'; id: RequestId; items: StepResultItem[] }
  | ({ type: 'closed'; id: RequestId } & ClosedReply)
  | { type: 'pong'; id: RequestId }
  | { type: 'error'; id: RequestId | null; error: WireError };
