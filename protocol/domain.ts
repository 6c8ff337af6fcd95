/**
 * Domain types shared by every layer: chat messages, tool schemas, the simulated world's state overlay,
 * tasks with their answer keys, the canonical trace that rewards score, and reward results.
 *
 * They live in `protocol/` because the leaf folders (`mock-services/`, `rewards/`, `harness-variants/`)
 * may import only `protocol/` (see CONTRIBUTING.md, "Imports flow one way").
 */
import type { WorldData } from './world.js';

/** Languages every generator supports; Chinese is the production language. */
export type Locale = 'zh-CN' | 'en';
export const LOCALES: readonly Locale[] = ['zh-CN', 'en'];

/** The built-in viewer intents, from DESIGN.md ("Intents, with the production mix as the default sampling weights"). */
export type BuiltinIntent =
  | 'product_qa'
  | 'chitchat'
  | 'clarification'
  | 'after_sales'
  | 'purchase'
  | 'marketing'
  | 'multi_intent'
  | 'risky'
  | 'whitelist'
  | 'handoff';

/**
 * An intent a harness adds with a task template module (docs/HARNESS.md "Intents of your own"): a name of
 * `CUSTOM_INTENT_RE` that is no built-in intent's. Branded, so that code written for the built-in intents
 * (exhaustive records and switches over `BuiltinIntent`) must narrow with `isBuiltinIntent` first.
 */
export type CustomIntent = string & { readonly __customIntent: true };

/** An intent: a built-in one, or one a harness adds. */
export type Intent = BuiltinIntent | CustomIntent;

/** The built-in intents, in their canonical order. */
export const INTENTS: readonly BuiltinIntent[] = [
  'product_qa',
  'chitchat',
  'clarification',
  'after_sales',
  'purchase',
  'marketing',
  'multi_intent',
  'risky',
  'whitelist',
  'handoff',
];

/** What a harness's own intent may be called (snake_case, like the built-in ones). */
export const CUSTOM_INTENT_RE = /^[a-z][a-z0-9_]*$/;

/** Whether an intent is a built-in one. */
export function isBuiltinIntent(intent: string): intent is BuiltinIntent {
  return (INTENTS as readonly string[]).includes(intent);
}

/** A task's data split: `eval` tasks and variants are held out from training. */
export type Split = 'train' | 'eval';

// ---------------------------------------------------------------------------------------------------
// OpenAI chat format
// ---------------------------------------------------------------------------------------------------

/** An OpenAI tool call as it appears in an assistant message. `arguments` is a JSON string. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** An OpenAI chat message. `tool` messages carry `tool_call_id`; assistant messages may carry calls. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
}

/** A JSON Schema object (draft-07 subset as OpenAI function parameters use it). */
export type JsonSchema = { [key: string]: unknown };

/** An OpenAI tool schema. `description` is absent when a variant drops it. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchema };
}

// ---------------------------------------------------------------------------------------------------
// Tool calls in canonical form
// ---------------------------------------------------------------------------------------------------

/** Typed tool-level error codes. These are not wire errors: they travel inside `tool` messages. */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL' // no tool of that name in the episode's harness
  | 'PARSE_ERROR' // the call could not be parsed (broken JSON, broken XML)
  | 'INVALID_ARGUMENTS' // the arguments fail the tool's schema or the service's own checks
  | 'NOT_FOUND' // a referenced item, SKU, coupon, order or skill does not exist
  | 'CONFLICT' // the request is valid but the world's state forbids it (expired coupon, not eligible)
  | 'LIMIT_REACHED' // a per-user limit or a remaining quantity is exhausted
  | 'PERMISSION_DENIED' // injected fault, or an action the agent may not take
  | 'TIMEOUT' // injected fault
  | 'MALFORMED_OUTPUT'; // injected fault: the service answered garbage

export const TOOL_ERROR_CODES: readonly ToolErrorCode[] = [
  'UNKNOWN_TOOL',
  'PARSE_ERROR',
  'INVALID_ARGUMENTS',
  'NOT_FOUND',
  'CONFLICT',
  'LIMIT_REACHED',
  'PERMISSION_DENIED',
  'TIMEOUT',
  'MALFORMED_OUTPUT',
];

/** A tool error. `field` names the offending argument (canonical name at the service, surface name on the wire). */
export interface ToolError {
  code: ToolErrorCode;
  message: string;
  field?: string;
}

/** What a service answers: data in canonical field names, or a typed error. Never a throw. */
export type ToolOutcome =
  | { ok: true; data: unknown }
  | { ok: false; error: ToolError; /** for MALFORMED_OUTPUT: the garbage text the service "sent" */ raw?: string };

/** A tool call in canonical names, with parsed arguments. */
export interface CanonicalCall {
  name: string;
  arguments: { [key: string]: unknown };
}

// ---------------------------------------------------------------------------------------------------
// World state overlay (the mutable part of a simulated world)
// ---------------------------------------------------------------------------------------------------

/**
 * The mutable overlay of a world. The world itself is immutable and regenerated from its seed; the
 * actions that change it (issuing a coupon, pushing a link card, a hand-off, a refusal) are recorded
 * here. Accuracy compares the final overlay with the task's expected one, order-insensitively
 * (as tau-bench compares final database state).
 */
export interface WorldState {
  issued_coupons: { viewer_id: string; coupon_id: string }[];
  pushed_cards: number[];
  handoffs: { viewer_id: string; order_id?: string; reason: string }[];
  refusals: { category: string }[];
  /**
   * The states of the harness's stateful custom services (`services/<module>.mjs` exporting
   * `initial_state`), by module: present only when the harness has one, so other episodes keep their bytes.
   * Each value is JSON (docs/HARNESS.md "Stateful services"); compared by deep equality.
   */
  custom?: { [module: string]: unknown };
}

/** A fresh, empty overlay. */
export function emptyWorldState(): WorldState {
  return { issued_coupons: [], pushed_cards: [], handoffs: [], refusals: [] };
}

// ---------------------------------------------------------------------------------------------------
// Tasks and answer keys
// ---------------------------------------------------------------------------------------------------

/** One fact the reply must state. The reply states it when it contains any of `values` (normalised). */
export interface Fact {
  key: string;
  values: string[];
}

/** A required call: satisfied when some actual call has `name` and includes every listed argument. */
export interface CallRequirement {
  any_of: CanonicalCall[];
}

/** What the task expects the agent to do. */
export type Expectation = 'answer' | 'refuse' | 'clarify' | 'handoff';

/** The answer key: privileged knowledge for the oracle and the rewards, never shown to the policy. */
export interface AnswerKey {
  expect: Expectation;
  /** Canonical reply skills that must all be loaded before the final reply. */
  reply_skills: string[];
  /** Canonical strategy skills that help (never required, never penalised). */
  strategy_skills: string[];
  /** Calls the task needs, each a set of acceptable alternatives (matched on the listed arguments only). */
  required_calls: CallRequirement[];
  /**
   * One complete, valid canonical solution: every call with all of its required arguments, in order
   * (free-text arguments such as a search question or a hand-off reason filled in). The oracle makes these.
   */
  solution: CanonicalCall[];
  /** Canonical tool names that are reasonable extras for this task (not penalised as irrelevant). */
  optional_tools: string[];
  /** Facts the final reply must state. */
  required_facts: Fact[];
  /** Facts the reply must not state (a list price presented as the live price, a sold-out SKU as in stock). */
  forbidden_facts: Fact[];
  /**
   * The other reading of an ambiguous request (`expect: "clarify"` only): a reply that answers instead of
   * asking back, stating each of `required_facts` (the price of every link the viewer may mean), is as
   * right as the question back. It is then scored as an answer: these facts required, `reply_skills` the
   * skills that answer (the clarifying skill allowed too). Absent: only asking back is right.
   */
  answer_instead?: AnswerInstead;
  /** The expected final world overlay (compared order-insensitively; hand-off reasons are not compared). */
  expected_state: WorldState;
  /**
   * Changes that may or may not be made: either reading of the message is right (a viewer asking whether
   * there is a coupon may be issued one or told about it). Absent when every change is expected or not.
   */
  optional_state?: Partial<WorldState>;
  /** Whether a call to action (go to link N, grab the coupon, place the order) is expected. */
  cta: boolean;
  /** A reply that passes every hook of the base harness and states every required fact. */
  reference_reply: string;
}

/** The answering reading of an ambiguous request (`AnswerKey.answer_instead`). */
export interface AnswerInstead {
  reply_skills: string[];
  required_facts: Fact[];
}

/** A prior dialogue line in the room (the anchor or avatar, and the viewer). */
export interface HistoryLine {
  role: 'user' | 'assistant';
  content: string;
}

/** A task: the viewer's message(s) in a room, with an answer key. */
export interface Task {
  id: string;
  intent: Intent;
  locale: Locale;
  split: Split;
  /**
   * The world is `generateWorld(world_seed, locale)`, unless `world` is given; then the world is that data,
   * and `world_seed` only seeds what the simulation derives (hand-off ticket ids).
   */
  world_seed: number;
  /**
   * The world stated inline (a task made from a production log: the room as it was, its products, the
   * viewer's orders and coupons). Absent on generated tasks. docs/HARNESS.md "Tasks from production logs".
   */
  world?: WorldData;
  /** The viewer who wrote the message(s). */
  viewer_id: string;
  /** One message, or a merged window of several (danmaku merged within a short window). */
  messages: string[];
  /** Earlier dialogue in the room. */
  history: HistoryLine[];
  answer_key: AnswerKey;
}

// ---------------------------------------------------------------------------------------------------
// The canonical trace (what rewards score)
// ---------------------------------------------------------------------------------------------------

/** How an episode ended (PROTOCOL.md "Episodes"). */
export type Outcome = 'accepted' | 'refused' | 'hook_blocked' | 'max_turns' | 'error_cap';

/** One tool call as the environment handled it, in canonical names. */
export interface TraceCall {
  id: string;
  /** Canonical tool name, or the surface name when it names no tool. */
  name: string;
  /** The name the agent used (the variant's surface name). */
  surface_name: string;
  /** Canonical arguments, or null when they could not be parsed. */
  arguments: { [key: string]: unknown } | null;
  ok: boolean;
  error?: ToolErrorCode;
  /** Canonical result data when ok. */
  result?: unknown;
  /**
   * A successful call of a stateful custom service that changed its module's state: the module, and its
   * state before and after (JSON). Absent for every other call.
   */
  state_change?: { module: string; before: unknown; after: unknown };
}

/** A hook's objection. `hook` is the canonical hook id; `code` a stable reason code. */
export interface HookViolation {
  hook: string;
  code: string;
  message: string;
  evidence?: string;
}

/** One assistant turn. */
export interface TraceTurn {
  index: number;
  thinking: string | null;
  /** The visible text of the turn (the reply candidate when the turn has no calls). */
  content: string | null;
  calls: TraceCall[];
  hook_violations: HookViolation[];
  kind: 'tool' | 'reply' | 'empty';
}

/** The finished episode in canonical form. Rewards see this and the task, nothing else. */
export interface Trace {
  task_id: string;
  intent: Intent;
  locale: Locale;
  turns: TraceTurn[];
  /** Canonical names of the skills loaded, in load order (repeats kept). */
  loaded_skills: string[];
  /** Canonical names of the harness's reply skills. */
  reply_skill_names: string[];
  /** The reply that ended the episode (accepted or refused); null when none did. */
  final_reply: string | null;
  outcome: Outcome;
  final_state: WorldState;
  /** Every number the agent could legitimately state: in the prompt, the history, the messages, tool results. */
  evidence_numbers: number[];
  /** The limits the episode's hooks enforced (a variant may change them within the legal range). */
  limits: { reply_max_chars: number; max_turns: number };
  /**
   * Breaches of the rules the prompt states (length, plain text, a required ending, banned words, the
   * language) by the final reply, checked whether or not a hook enforces the rule: a variant that turns a
   * hook off still tells the policy the rule. Absent in records written before 0.2: none.
   */
  rule_violations?: HookViolation[];
  /** The ending the prompt requires of every reply, when it requires one (part of the reply's length budget). */
  required_ending?: string;
  /**
   * Built-in operations the harness's tools answer under names other than the embedded ones (operation,
   * named by its embedded tool -> the harness's tool): `{ "load_skill": "open_skill" }`. Absent when none.
   */
  tool_operations?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------
// Rewards
// ---------------------------------------------------------------------------------------------------

/** One component's score with the reasons a person can read. */
export interface RewardDetail {
  value: number;
  reasons: string[];
  evidence?: unknown;
  /** True when the module threw or returned a value outside [0, 1]; `value` is then 0. */
  failed?: boolean;
}

/** The scored episode. */
export interface RewardResult {
  reward: number;
  components: { [name: string]: number };
  details: { [name: string]: RewardDetail };
  segments: { tool: number | null; reply: number | null };
  /**
   * The gates that capped the reward, one line each ("capped at 0.05: accuracy 0.5 < 0.6 (weighted mean
   * 0.82)"); absent when no gate lowered it.
   */
  caps?: string[];
}
