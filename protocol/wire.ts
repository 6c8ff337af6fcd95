/**
 * Wire protocol version 1 (docs/PROTOCOL.md), one zod schema per message, with the TypeScript types
 * derived from them (`z.infer`). The server validates every request once, at the edge, with these; the
 * reply schemas document what goes out (and let a client or a conformance test check it).
 *
 * Objects are not strict: an unknown field is ignored rather than rejected, so that a newer client can
 * talk to this server (the contract names no rule either way; see the server's report).
 * Modelled on modelcontextprotocol/typescript-sdk `src/types.ts` (one `XxxSchema` per message).
 */
import { z } from 'zod';
import type { ChatMessage, ToolSchema } from './domain.js';
import { ERROR_CODES } from './errors.js';

/** The protocol version this build speaks (`hello.protocol`, `welcome.protocol`). */
export const WIRE_PROTOCOL_VERSION = 1;

/** The WebSocket path of the environment endpoint. */
export const WIRE_PATH = '/v1/env';

/**
 * Bounds on the strings and arrays a client sends that the server keeps or echoes (PROTOCOL.md "Limits"),
 * whatever `max_frame_bytes` allows; lengths are in characters (JavaScript string length, UTF-16 code
 * units). `max_id_chars`, `max_name_chars`, `max_action_chars` and `max_action_calls` are announced in
 * `welcome.limits`. An over-long field fails the schema like any wrong field: `INVALID_MESSAGE`, its issue
 * naming the field's path and the limit; an action past its bounds is the item's `INVALID_ACTION`
 * (env/parsers.ts, where the episode's parser reads it).
 */
export const WIRE_STRING_LIMITS = {
  /** Ids: `episode_id` (reset, step, close), `group_id`, `task.id`, a string request `id`, `hello.resume`. */
  max_id_chars: 256,
  /** Names: `task.intent`, `options.parser`, `options.rewards`, a variant preset, a family, `hello.client`. */
  max_name_chars: 128,
  /** `hello.token` (compared, never kept). */
  max_token_chars: 4096,
  /** Entries of `VariantSpec.families`. */
  max_variant_families: 64,
  /**
   * An action's characters: `text`, or a message's `content` + `reasoning_content` + every tool call's
   * `id`, `function.name` and `function.arguments`. Past it the step item is `INVALID_ACTION`.
   */
  max_action_chars: 65536,
  /**
   * Tool calls of one action: a message's `tool_calls` and, for the text parsers, the calls written in its
   * text. Past it the step item is `INVALID_ACTION`.
   */
  max_action_calls: 64,
} as const;

const tooLong = (limit: keyof typeof WIRE_STRING_LIMITS): string =>
  `too long: at most ${WIRE_STRING_LIMITS[limit]} characters (limits.${limit})`;
/** A client id string: at most `max_id_chars`. */
export const WireIdSchema = z.string().max(WIRE_STRING_LIMITS.max_id_chars, tooLong('max_id_chars'));
/** A client name string (intent, parser, profile, preset, family, client): at most `max_name_chars`. */
export const WireNameSchema = z.string().max(WIRE_STRING_LIMITS.max_name_chars, tooLong('max_name_chars'));

/** Whether a value is a string id within `max_id_chars` (an id the server may echo back). */
export function isWireId(v: unknown): v is string {
  return typeof v === 'string' && v.length <= WIRE_STRING_LIMITS.max_id_chars;
}

/** A request id: a client-chosen string or an integer within ±(2^53-1), echoed back with the same type. */
export const RequestIdSchema = z.union([WireIdSchema, z.int()]);
/** A request id. */
export type RequestId = z.infer<typeof RequestIdSchema>;

/** An unsigned 32-bit integer (seeds). */
export const Uint32Schema = z.int().min(0).max(0xffffffff);

/** The error object of an `error` frame or an `ItemError`. `code` is one of `ERROR_CODES`. */
export const WireErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.unknown().optional(),
});
/** The error object carried by error replies. */
export type WireError = z.infer<typeof WireErrorSchema>;

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

/** `hello`: opens (or, with `resume`, restores) a session; must be the connection's first request. */
export const HelloSchema = z.object({
  type: z.literal('hello'),
  id: RequestIdSchema,
  protocol: z.int(),
  client: WireNameSchema.optional(),
  token: z.string().max(WIRE_STRING_LIMITS.max_token_chars, tooLong('max_token_chars')).optional(),
  seed: Uint32Schema.optional(),
  resume: WireIdSchema.optional(),
});
/** The `hello` request. */
export type Hello = z.infer<typeof HelloSchema>;

/**
 * A harness variant spec. Only the shape is checked here: an unknown family or an intensity outside
 * [0, 1] is `INVALID_VARIANT` (an item error), not a schema failure, so the ranges are not in the schema.
 */
export const VariantSpecSchema = z.object({
  families: z
    .array(WireNameSchema)
    .max(
      WIRE_STRING_LIMITS.max_variant_families,
      `too many: at most ${WIRE_STRING_LIMITS.max_variant_families} families (limits.max_variant_families)`,
    ),
  intensity: z.number(),
  split: z.enum(['train', 'eval']),
  seed: Uint32Schema.optional(),
  identity_share: z.number().optional(),
});
/** A harness variant spec (PROTOCOL.md `VariantSpec`). */
export type VariantSpec = z.infer<typeof VariantSpecSchema>;

/** Task selector of a reset item. */
export const TaskSelectorSchema = z.object({
  id: WireIdSchema.optional(),
  intent: WireNameSchema.optional(),
  split: z.enum(['train', 'eval']).optional(),
});
/** Task selector of a reset item. */
export type TaskSelectorWire = z.infer<typeof TaskSelectorSchema>;

/** Per-episode options of a reset item (PROTOCOL.md `ResetItem.options`). */
export const ResetOptionsSchema = z.object({
  parser: WireNameSchema.optional(),
  /** May only lower the cap; a larger value is clamped by the environment, not rejected. */
  max_turns: z.int().min(1).optional(),
  locale: z.enum(['zh-CN', 'en']).optional(),
  rewards: WireNameSchema.optional(),
  faults: z.number().min(0).max(1).optional(),
  group_share: z.enum(['task', 'task+variant']).optional(),
  observation: z.enum(['delta', 'full']).optional(),
  oracle_hints: z.boolean().optional(),
});
/** Per-episode reset options. */
export type ResetOptionsWire = z.infer<typeof ResetOptionsSchema>;

/** One item of a `reset` batch. */
export const ResetItemSchema = z.object({
  episode_id: WireIdSchema.min(1).optional(),
  seed: Uint32Schema.optional(),
  group_id: WireIdSchema.min(1).optional(),
  task: TaskSelectorSchema.optional(),
  variant: z.union([WireNameSchema, VariantSpecSchema]).optional(),
  options: ResetOptionsSchema.optional(),
});
/** One reset item. */
export type ResetItem = z.infer<typeof ResetItemSchema>;

/** `reset`: a batch of episodes to start. */
export const ResetSchema = z.object({ type: z.literal('reset'), id: RequestIdSchema, items: z.array(ResetItemSchema) });
/** The `reset` request. */
export type Reset = z.infer<typeof ResetSchema>;

/** A tool call of a structured assistant message (OpenAI chat-completions shape). */
export const WireToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/**
 * An action: a raw completion (`text`, parsed by the episode's parser) or a structured assistant message.
 * The server hands the action to the episode's parser, which is the authority (it also tolerates what
 * vLLM/SGLang send, e.g. explicit nulls); this schema is the contract's shape, for clients.
 */
export const ActionSchema = z.union([
  z.object({ text: z.string() }),
  z.object({
    message: z.object({
      role: z.literal('assistant'),
      content: z.string().nullable(),
      reasoning_content: z.string().optional(),
      tool_calls: z.array(WireToolCallSchema).optional(),
    }),
  }),
]);
/** An action (PROTOCOL.md `Action`). */
export type Action = z.infer<typeof ActionSchema>;

/** One item of a `step` batch; `action` is checked by the episode's parser (`INVALID_ACTION`). */
export const StepItemSchema = z.object({ episode_id: WireIdSchema, action: z.unknown() });
/** One step item. */
export type StepItem = z.infer<typeof StepItemSchema>;

/** `step`: one assistant turn for each of a batch of episodes. */
export const StepSchema = z.object({ type: z.literal('step'), id: RequestIdSchema, items: z.array(StepItemSchema) });
/** The `step` request. */
export type Step = z.infer<typeof StepSchema>;

/** `close`: free episodes. */
export const CloseSchema = z.object({ type: z.literal('close'), id: RequestIdSchema, episode_ids: z.array(WireIdSchema) });
/** The `close` request. */
export type Close = z.infer<typeof CloseSchema>;

/** `ping`: answered by `pong` with the same id. */
export const PingSchema = z.object({ type: z.literal('ping'), id: RequestIdSchema });
/** The `ping` request. */
export type Ping = z.infer<typeof PingSchema>;

/**
 * Edge schemas: the envelope of a batch request with its items left unchecked, so that one bad item
 * fails that item alone (item-level validation uses `ResetItemSchema` / `StepItemSchema`).
 */
export const ResetEnvelopeSchema = z.object({ type: z.literal('reset'), id: RequestIdSchema, items: z.array(z.unknown()) });
/** Edge schema of a `step` frame (items checked one by one). */
export const StepEnvelopeSchema = z.object({ type: z.literal('step'), id: RequestIdSchema, items: z.array(z.unknown()) });

/** A request past the edge: its envelope checked, its batch items not yet (they are checked one by one). */
export type SessionRequest =
  | z.infer<typeof ResetEnvelopeSchema>
  | z.infer<typeof StepEnvelopeSchema>
  | z.infer<typeof CloseSchema>
  | z.infer<typeof PingSchema>;

/** Request types a client may send. */
export const REQUEST_TYPES = ['hello', 'reset', 'step', 'close', 'ping'] as const;
/** A request type. */
export type RequestType = (typeof REQUEST_TYPES)[number];

// ---------------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------------

/** The server's limits, all integers (`idle_timeout_s` 0 disables idle reaping). */
export const WireLimitsSchema = z.object({
  max_batch: z.int(),
  max_episodes: z.int(),
  max_frame_bytes: z.int(),
  max_turns: z.int(),
  max_errors: z.int(),
  idle_timeout_s: z.int(),
  resume_grace_s: z.int(),
  ping_interval_s: z.int(),
  replay_window: z.int(),
  /** Additive (PROTOCOL.md "Limits"): characters of a client id; absent from older servers. */
  max_id_chars: z.int().optional(),
  /** Additive: characters of a client name (intent, parser, profile, preset, family, client). */
  max_name_chars: z.int().optional(),
  /** Additive: characters of one action (text, or a message's content, reasoning and tool calls). */
  max_action_chars: z.int().optional(),
  /** Additive: tool calls of one action. */
  max_action_calls: z.int().optional(),
});
/** The server's limits as `welcome` carries them. */
export type WireLimits = z.infer<typeof WireLimitsSchema>;

/** Defaults applied to reset items that leave an option out. */
export const WireDefaultsSchema = z.object({
  variant: z.string(),
  parser: z.string(),
  max_turns: z.int(),
  observation: z.enum(['delta', 'full']),
  locale: z.enum(['zh-CN', 'en']),
  rewards: z.string(),
  /** The task split of resets whose task selector names none; absent from older servers (they played train). */
  task_split: z.enum(['train', 'eval', 'all']).optional(),
  /** The default variant's split (`none`: the base harness); absent from older servers. */
  variant_split: z.enum(['train', 'eval', 'none']).optional(),
  /** The intent shares of resets that name no intent; absent from older servers (the production mix). */
  task_mix: z.record(z.string(), z.number()).optional(),
});
/** Defaults as `welcome` carries them. */
export type WireDefaults = z.infer<typeof WireDefaultsSchema>;

/** A reward profile as `welcome` lists it. */
export const WireRewardProfileSchema = z.object({
  name: z.string(),
  modules: z.array(z.object({ name: z.string(), version: z.string(), weight: z.number() })),
});
/** A reward profile summary. */
export type WireRewardProfile = z.infer<typeof WireRewardProfileSchema>;

/** What `GET /v1/info` returns: the `welcome` fields other than `type`, `id`, `session_id`, `resumed`. */
/** The harness a server plays episodes in: its manifest's name and version, and its content hash. */
export const WireHarnessSchema = z.object({ name: z.string(), version: z.string(), hash: z.string() });

export const ServerInfoSchema = z.object({
  protocol: z.literal(WIRE_PROTOCOL_VERSION),
  server: z.object({ name: z.string(), version: z.string() }),
  limits: WireLimitsSchema,
  defaults: WireDefaultsSchema,
  reward_profiles: z.array(WireRewardProfileSchema),
  /** `sha256:<hex>` of the reward set in force (modules, profiles, custom module files); changes on a reload. */
  rewards_hash: z.string(),
  variant_presets: z.array(z.string()),
  variant_families: z.array(z.string()),
  parsers: z.array(z.string()),
  harness: WireHarnessSchema,
});
/** The server description shared by `welcome` and `/v1/info`. */
export type ServerInfo = z.infer<typeof ServerInfoSchema>;

/** `welcome`: the answer to a successful `hello`. */
export const WelcomeSchema = z.object({
  type: z.literal('welcome'),
  id: RequestIdSchema,
  protocol: z.literal(WIRE_PROTOCOL_VERSION),
  session_id: z.string(),
  resumed: z.boolean(),
  server: ServerInfoSchema.shape.server,
  limits: WireLimitsSchema,
  defaults: WireDefaultsSchema,
  reward_profiles: z.array(WireRewardProfileSchema),
  /** Absent from servers older than rewards 3.0. */
  rewards_hash: z.string().optional(),
  variant_presets: z.array(z.string()),
  variant_families: z.array(z.string()),
  parsers: z.array(z.string()),
  harness: WireHarnessSchema,
});
/** The `welcome` reply. */
export type Welcome = z.infer<typeof WelcomeSchema>;

const isMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An observation: chat messages and, when they changed (always on reset), the tool list. Messages and
 * tools are OpenAI chat shapes (protocol/domain.ts); the schema checks that each is a map.
 */
export const WireObservationSchema = z.object({
  messages: z.array(z.custom<ChatMessage>(isMap)),
  tools: z.array(z.custom<ToolSchema>(isMap)).optional(),
});
/** An observation (PROTOCOL.md "Observations"). */
export type WireObservation = z.infer<typeof WireObservationSchema>;

/**
 * `info` of a reset or step result: the fields PROTOCOL.md names ("Episodes", "Observations"); the four
 * first are always there, `outcome` and the reward fields on the final step. Other fields pass through.
 */
export const StepInfoSchema = z.looseObject({
  task_id: z.string(),
  intent: z.string(),
  variant_id: z.string(),
  /** Assistant turns taken so far (0 at reset). */
  turn: z.int(),
  outcome: z.string().optional(),
  tool_errors: z.array(z.object({ tool_call_id: z.string(), code: z.string() })).optional(),
  hook_violations: z.array(z.object({ hook: z.string(), code: z.string() })).optional(),
  reward_components: z.record(z.string(), z.number()).optional(),
  reward_details: z.record(z.string(), z.object({ value: z.number(), reasons: z.array(z.string()), evidence: z.unknown().optional() })).optional(),
  segments: z.object({ tool: z.number().nullable(), reply: z.number().nullable() }).optional(),
  /** `options.oracle_hints` (testing servers only): the reference oracle's next action. */
  oracle_action: z.unknown().optional(),
  /** The parser's `<think>` text, when the action had one. */
  thinking: z.string().optional(),
});
/** `info` of a result item. */
export type StepInfo = z.infer<typeof StepInfoSchema>;

/** A failed item: fails that item alone. `episode_id` when the request named one or the server made one. */
export const ItemErrorSchema = z.object({ ok: z.literal(false), episode_id: z.string().optional(), error: WireErrorSchema });
/** A failed item. */
export type ItemError = z.infer<typeof ItemErrorSchema>;

/** A started episode. */
export const ResetOkSchema = z.object({
  ok: z.literal(true),
  episode_id: z.string(),
  observation: WireObservationSchema,
  info: StepInfoSchema,
});
/** A started episode. */
export type ResetOk = z.infer<typeof ResetOkSchema>;
/** `reset_result`: one item per request item, in request order. */
export const ResetResultSchema = z.object({
  type: z.literal('reset_result'),
  id: RequestIdSchema,
  items: z.array(z.union([ResetOkSchema, ItemErrorSchema])),
});
/** The `reset_result` reply. */
export type ResetResult = z.infer<typeof ResetResultSchema>;
/** One item of a `reset_result`. */
export type ResetResultItem = ResetResult['items'][number];

/** A taken step (Gymnasium's `(observation, reward, terminated, truncated, info)`). */
export const StepOkSchema = z.object({
  ok: z.literal(true),
  episode_id: z.string(),
  observation: WireObservationSchema,
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: StepInfoSchema,
});
/** A taken step. */
export type StepOk = z.infer<typeof StepOkSchema>;
/** `step_result`: one item per request item, in request order. */
export const StepResultSchema = z.object({
  type: z.literal('step_result'),
  id: RequestIdSchema,
  items: z.array(z.union([StepOkSchema, ItemErrorSchema])),
});
/** The `step_result` reply. */
export type StepResult = z.infer<typeof StepResultSchema>;
/** One item of a `step_result`. */
export type StepResultItem = StepResult['items'][number];

/** `closed`: which ids were closed and which were unknown. */
export const ClosedSchema = z.object({
  type: z.literal('closed'),
  id: RequestIdSchema,
  episode_ids: z.array(z.string()),
  unknown: z.array(z.string()),
});
/** The `closed` reply. */
export type Closed = z.infer<typeof ClosedSchema>;

/** `pong`: the answer to `ping`. */
export const PongSchema = z.object({ type: z.literal('pong'), id: RequestIdSchema });
/** The `pong` reply. */
export type Pong = z.infer<typeof PongSchema>;

/** A frame-level error; `id` is the request's when it could be read, else null. */
export const ErrorMessageSchema = z.object({ type: z.literal('error'), id: RequestIdSchema.nullable(), error: WireErrorSchema });
/** The `error` reply. */
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;

/** Every reply the server sends, discriminated on `type`. */
export const ReplySchema = z.discriminatedUnion('type', [
  WelcomeSchema,
  ResetResultSchema,
  StepResultSchema,
  ClosedSchema,
  PongSchema,
  ErrorMessageSchema,
]);
/** Any reply. */
export type Reply = z.infer<typeof ReplySchema>;

/** A zod issue as `details.issues` lists it: where (path into the message or item) and what. */
export interface WireIssue {
  path: (string | number)[];
  message: string;
}

/** Turn zod issues into the `details.issues` of an `INVALID_MESSAGE` (no input values: they may be huge). */
export function wireIssues(issues: readonly z.core.$ZodIssue[]): WireIssue[] {
  return issues.flatMap(unionBranch).map((i) => ({
    path: i.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: i.code === 'unrecognized_keys' ? `unknown keys: ${i.keys.join(', ')}` : i.message,
  }));
}

/**
 * A union's failure as the issues of the one branch the value had the type of, when there is exactly one
 * (a `variant` map that fails `VariantSpec`, e.g. too many families, names what failed instead of
 * "Invalid input"); otherwise the union's own issue.
 */
function unionBranch(i: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (i.code !== 'invalid_union') return [i];
  const typed = i.errors.filter((branch) => branch.length > 0 && !branch.some((b) => b.code === 'invalid_type' && b.path.length === 0));
  if (typed.length !== 1) return [i];
  return typed[0].flatMap((b) => unionBranch({ ...b, path: [...i.path, ...b.path] } as z.core.$ZodIssue));
}
