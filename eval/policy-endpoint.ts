/**
 * `harness-gym policy`: an OpenAI-compatible chat-completions endpoint answered by a reference policy, so
 * that `rollout` and the trainer adapters run end to end without a GPU (docs/TRAINING.md "A policy endpoint
 * without a GPU"). Routes: `POST /v1/chat/completions`, `GET /v1/models`, `GET /v1/models/:id`, `GET /healthz`.
 *
 * An HTTP request carries no episode: only what an OpenAI client sends (the model, the messages, the tools),
 * so each policy gets what it needs from that, or the request is refused (400) with what is missing:
 *
 * - `oracle` is privileged (it reads the task's answer key and the variant's map, which no message
 *   carries): it plays the environment's `info.oracle_action`, sent with each request in the
 *   `x-harness-gym-oracle-action` header (URI-encoded JSON, as `rollout --oracle-hints` sends it) or, for a
 *   client that cannot set headers, in the body field `harness_gym_oracle_action` (the JSON value; the
 *   OpenAI SDKs' `extra_body`). The server gives it only when started with `allow_oracle_hints` and reset
 *   with `options.oracle_hints`. Testing only.
 * - `memorizer` and the blind strategies (policies/blind.ts) read the conversation from its start: the
 *   system prompt (room facts, skills), the viewer's `user` message, their own earlier turns and the tool
 *   results. They keep state in what they said, so each request replays the policy through the
 *   conversation's earlier assistant turns (the policy's own answers are compared with the ones in the
 *   conversation; a conversation they did not play is refused; assistant messages of the earlier dialogue
 *   a first observation may hold are told apart so), and failed calls are read off the tool
 *   results (`info.tool_errors`: a result `{"error": {"code": ...}}`, or JSON cut short: MALFORMED_OUTPUT).
 * - `random` reads only the tool list: any conversation will do.
 *
 * Seeds: a policy's seed is FNV-1a 32 of the conversation's start (up to its first user message), so that
 * one episode's requests replay one instance. Deterministic policies answer
 * the same to every one of `n` choices; `random`'s choice j is seeded with seed + j.
 *
 * Tokens (`usage`, `logprobs`): a token is a run of non-whitespace characters with the whitespace after it
 * (leading whitespace is a token of its own), so that a reply's tokens concatenate to its text. A text
 * reply's generated text is its `content`; a tool-call reply's is its calls, one JSON line
 * `{"name":...,"arguments":{...}}` each. Every token's logprob is 0: a reply is a function of the request
 * and the choice index (probability 1), and `top_logprobs` lists that token alone. `prompt_tokens` counts
 * the messages' contents and tool calls so (the tool list is not counted).
 *
 * Ignored: `temperature`, `top_p`, `tool_choice`, `max_tokens` and the other sampling fields (the
 * policies decide alone). `stream: true` answers the same completion as OpenAI's server-sent chunks
 * (`toChunks`), all at once since nothing is generated incrementally.
 */
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { ChatMessage, ToolCall, ToolSchema } from '../protocol/domain.js';
import type { HarnessSet } from '../harness/index.js';
import { BLIND_POLICIES, POLICIES, policyFor } from '../policies/index.js';
import type { Policy, PolicyInstance, PolicyObservation } from '../policies/index.js';
import { ORACLE_ACTION_HEADER, fnv1a32 } from '../client/index.js';

/** The policies the endpoint can answer with: the reference policies and the blind strategies. */
export const ENDPOINT_POLICIES: readonly string[] = [...POLICIES.keys(), ...BLIND_POLICIES.keys()];

/** The body field a client that cannot set headers sends the oracle action in. */
export const ORACLE_ACTION_FIELD = 'harness_gym_oracle_action';

/** Largest `n`. */
export const MAX_CHOICES = 128;

/** Options of the endpoint. */
export interface PolicyEndpointOptions {
  /** A name of `ENDPOINT_POLICIES`. */
  policy: string;
  /** The model name served (requests must name it). */
  model: string;
  /** The harness the memorizer is fitted to (its names); default the embedded one. */
  harness?: HarnessSet;
  /** Clock for `created`, seconds; default `Date.now() / 1000`. */
  now?: () => number;
}

/** A request the endpoint refuses: the status and OpenAI's error object. */
export class EndpointError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;

  constructor(status: number, message: string, param: string | null = null, code: string | null = null, type = 'invalid_request_error') {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }

  /** OpenAI's error JSON. */
  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

const bad = (message: string, param: string | null = null, code: string | null = null): EndpointError => new EndpointError(400, message, param, code);

/** One generated token, as OpenAI's `logprobs.content` lists it. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** A chat completion as the endpoint answers it. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; reasoning_content?: string };
    logprobs: { content: TokenLogprob[]; refusal: null } | null;
    finish_reason: 'stop' | 'tool_calls';
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The endpoint's tokens of a text (see the module comment); they concatenate to `text`. */
export function tokenize(text: string): string[] {
  return text.match(/^\s+|\S+\s*/gu) ?? [];
}

/** The generated text of tool calls: one JSON line per call. */
function callsText(calls: readonly ToolCall[]): string {
  return calls
    .map((c) => {
      let args: unknown = c.function.arguments;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        // Kept as the string it is.
      }
      return JSON.stringify({ name: c.function.name, arguments: args });
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------------------

interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSchema[];
  n: number;
  logprobs: boolean;
  topLogprobs: number;
  oracleAction: unknown;
  stream: boolean;
  /** `stream_options.include_usage`. */
  includeUsage: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function textContent(v: unknown, param: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((part, i) => {
        if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string') {
          throw bad(`${param}[${i}] must be a text part {"type": "text", "text": "..."}: the reference policies read text only`, `${param}[${i}]`);
        }
        return part.text;
      })
      .join('');
  }
  throw bad(`${param} must be a string, an array of text parts or null`, param);
}

function parseToolCalls(v: unknown, param: string): ToolCall[] {
  if (!Array.isArray(v)) throw bad(`${param} must be an array`, param);
  return v.map((c, i) => {
    const p = `${param}[${i}]`;
    if (!isObject(c) || !isObject(c.function) || typeof c.function.name !== 'string') throw bad(`${p} must be {"id", "type": "function", "function": {"name", "arguments"}}`, p);
    if (typeof c.function.arguments !== 'string') throw bad(`${p}.function.arguments must be a JSON string`, `${p}.function.arguments`);
    return { id: typeof c.id === 'string' ? c.id : '', type: 'function', function: { name: c.function.name, arguments: c.function.arguments } };
  });
}

function parseMessages(v: unknown): ChatMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('messages must be a non-empty array', 'messages');
  return v.map((m, i) => {
    const p = `messages[${i}]`;
    if (!isObject(m)) throw bad(`${p} must be an object`, p);
    const role = m.role === 'developer' ? 'system' : m.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw bad(`${p}.role must be one of system, developer, user, assistant, tool, got ${JSON.stringify(m.role)}`, `${p}.role`);
    }
    const out: ChatMessage = { role, content: textContent(m.content, `${p}.content`) };
    if (role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) out.tool_calls = parseToolCalls(m.tool_calls, `${p}.tool_calls`);
    if (role === 'tool') {
      if (typeof m.tool_call_id !== 'string') throw bad(`${p}.tool_call_id must be a string`, `${p}.tool_call_id`);
      out.tool_call_id = m.tool_call_id;
    }
    return out;
  });
}

function parseTools(v: unknown): ToolSchema[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw bad('tools must be an array', 'tools');
  return v.map((t, i) => {
    const p = `tools[${i}]`;
    if (!isObject(t) || t.type !== 'function' || !isObject(t.function) || typeof t.function.name !== 'string') {
      throw bad(`${p} must be {"type": "function", "function": {"name", "description", "parameters"}}`, p);
    }
    const parameters = t.function.parameters ?? { type: 'object', properties: {} };
    if (!isObject(parameters)) throw bad(`${p}.function.parameters must be a JSON Schema object`, `${p}.function.parameters`);
    const fn: ToolSchema['function'] = { name: t.function.name, parameters };
    if (typeof t.function.description === 'string') fn.description = t.function.description;
    return { type: 'function', function: fn };
  });
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** Check a request body (and the oracle header) and read what the endpoint uses. */
export function parseChatRequest(body: unknown, headers: Record<string, string | string[] | undefined> = {}): ChatRequest {
  if (!isObject(body)) throw bad('the body must be a JSON object');
  if (typeof body.model !== 'string' || body.model === '') throw bad('model must be a non-empty string', 'model');
  const stream = body.stream ?? false;
  if (typeof stream !== 'boolean') throw bad('stream must be a boolean', 'stream');
  const so = body.stream_options;
  if (so !== undefined && so !== null && !(isObject(so) && (so.include_usage === undefined || typeof so.include_usage === 'boolean'))) {
    throw bad('stream_options must be {"include_usage": true|false}', 'stream_options');
  }
  const includeUsage = isObject(so) && so.include_usage === true;
  const messages = parseMessages(body.messages);
  const tools = parseTools(body.tools);
  const n = body.n ?? 1;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > MAX_CHOICES) throw bad(`n must be an integer in [1, ${MAX_CHOICES}], got ${JSON.stringify(body.n)}`, 'n');
  const logprobs = body.logprobs ?? false;
  if (typeof logprobs !== 'boolean') throw bad('logprobs must be a boolean', 'logprobs');
  const top = body.top_logprobs ?? 0;
  if (!Number.isInteger(top) || (top as number) < 0 || (top as number) > 20) throw bad(`top_logprobs must be an integer in [0, 20], got ${JSON.stringify(body.top_logprobs)}`, 'top_logprobs');
  if ((top as number) > 0 && !logprobs) throw bad('top_logprobs needs logprobs: true', 'top_logprobs');
  let oracleAction: unknown = body[ORACLE_ACTION_FIELD];
  const raw = headerValue(headers[ORACLE_ACTION_HEADER]);
  if (raw !== undefined && oracleAction === undefined) {
    try {
      oracleAction = JSON.parse(decodeURIComponent(raw));
    } catch {
      throw bad(`the ${ORACLE_ACTION_HEADER} header must be URI-encoded JSON (an environment action)`, ORACLE_ACTION_HEADER);
    }
  }
  return { model: body.model, messages, tools, n: n as number, logprobs, topLogprobs: top as number, oracleAction, stream, includeUsage };
}

// ---------------------------------------------------------------------------------------------------
// Playing the policy
// ---------------------------------------------------------------------------------------------------

/** An answer: the assistant message's content and tool calls (and reasoning, the oracle's when it has one). */
interface Answer {
  content: string | null;
  tool_calls: ToolCall[];
  reasoning_content?: string;
}

/** A policy's action (written for the `openai` parser: `{message}`; raw-text parsers: `{text}`) as an answer. */
function answerOf(action: unknown, what: string): Answer {
  if (isObject(action) && typeof action.text === 'string') return { content: action.text, tool_calls: [] };
  const m = isObject(action) ? action.message : undefined;
  if (!isObject(m)) throw bad(`${what} must be an environment action: {"message": {...}} or {"text": "..."}`, ORACLE_ACTION_FIELD);
  const calls = m.tool_calls === undefined || m.tool_calls === null ? [] : parseToolCalls(m.tool_calls, `${what}.message.tool_calls`);
  const content = m.content === undefined || m.content === null ? null : textContent(m.content, `${what}.message.content`);
  return { content, tool_calls: calls, ...(typeof m.reasoning_content === 'string' ? { reasoning_content: m.reasoning_content } : {}) };
}

function canonicalArgs(s: string): string {
  try {
    const sort = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sort) : isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])])) : v;
    return JSON.stringify(sort(JSON.parse(s)));
  } catch {
    return s;
  }
}

/** The same turn: the same calls (names and arguments, ids aside), or the same reply text. */
function sameTurn(a: Answer, m: ChatMessage): boolean {
  const calls = m.tool_calls ?? [];
  if (a.tool_calls.length !== calls.length) return false;
  if (calls.length === 0) return (a.content ?? '') === (m.content ?? '');
  return a.tool_calls.every((c, i) => c.function.name === calls[i].function.name && canonicalArgs(c.function.arguments) === canonicalArgs(calls[i].function.arguments));
}

/** `info.tool_errors` of a step, read off its tool results (see the module comment). */
export function toolErrorsOf(delta: readonly ChatMessage[]): { tool_call_id: string; code: string }[] {
  const out: { tool_call_id: string; code: string }[] = [];
  for (const m of delta) {
    if (m.role !== 'tool' || m.tool_call_id === undefined) continue;
    const text = m.content ?? '';
    try {
      const v = JSON.parse(text) as unknown;
      const err = isObject(v) ? v.error : undefined;
      if (isObject(err) && typeof err.code === 'string') out.push({ tool_call_id: m.tool_call_id, code: err.code });
    } catch {
      // A result cut short (an injected MALFORMED_OUTPUT fault) is JSON that does not parse; a loaded skill is Markdown.
      if (/^\s*[{[]/.test(text)) out.push({ tool_call_id: m.tool_call_id, code: 'MALFORMED_OUTPUT' });
    }
  }
  return out;
}

/** A policy that reads the conversation (not only the tools) needs its start. */
function checkStart(name: string, first: readonly ChatMessage[]): void {
  const missing: string[] = [];
  if (!first.some((m) => m.role === 'system')) missing.push('a system message (the harness prompt)');
  if (!first.some((m) => m.role === 'user')) missing.push("a user message (the viewer's)");
  if (missing.length > 0) {
    throw bad(
      `policy ${name} reads the conversation from its start, which must hold ${missing.join(' and ')} before the first assistant turn; this one does not`,
      'messages',
      'policy_needs_context',
    );
  }
}

/** A replay whose earlier assistant turns are not the policy's. */
class Mismatch extends Error {
  readonly at: number;

  constructor(at: number) {
    super(`messages[${at}]`);
    this.at = at;
  }
}

/**
 * Replay `policy` from a first observation `messages[0, firstEnd)` through the assistant turns after it,
 * and answer its next turn. `check`: throw `Mismatch` at an assistant turn that is not what the policy
 * says there (its state is in what it said).
 */
function replay(policy: Policy, messages: readonly ChatMessage[], firstEnd: number, tools: ToolSchema[], seed: number, check: boolean, what: string): Answer {
  const first = messages.slice(0, firstEnd);
  const turns: number[] = [];
  for (let i = firstEnd; i < messages.length; i++) if (messages[i].role === 'assistant') turns.push(i);
  const act = (instance: PolicyInstance, obs: PolicyObservation, info: Record<string, unknown>): Answer => answerOf(instance.act(obs, info), what);
  const instance = policy.start({ seed, parser: 'openai', observation: { messages: first, tools }, info: {} });
  let answer = act(instance, { messages: first, tools }, {});
  for (let k = 0; k < turns.length; k++) {
    const at = turns[k];
    if (check && !sameTurn(answer, messages[at])) throw new Mismatch(at);
    const delta = messages.slice(at + 1, turns[k + 1] ?? messages.length);
    const errors = toolErrorsOf(delta);
    answer = act(instance, { messages: delta }, { turn: k + 1, ...(errors.length > 0 ? { tool_errors: errors } : {}) });
  }
  return answer;
}

/**
 * Play `policy` on the conversation and answer its next turn. The first observation may hold earlier
 * dialogue (assistant messages the policy did not say), so where the policy's own turns start is found:
 * the first assistant turn after a `user` message from which the replay agrees with the conversation
 * (`check`), else none (the whole conversation is the first observation). Without `check` (the random
 * floor), its turns start at the first assistant message after a `user` one.
 */
function playConversation(name: string, policy: Policy, messages: readonly ChatMessage[], tools: ToolSchema[], seed: number, check: boolean): Answer {
  if (messages[messages.length - 1].role === 'assistant') {
    throw bad(`the last message is the assistant's: policy ${name} answers the environment's messages (user or tool), not a prefilled turn`, 'messages');
  }
  const splits: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && messages[i - 1]?.role === 'user') splits.push(i);
  });
  if (messages[messages.length - 1].role === 'user') splits.push(messages.length);
  if (splits.length === 0) throw bad(`policy ${name} needs a user message (the viewer's) before the assistant's first turn`, 'messages', 'policy_needs_context');
  if (check) checkStart(name, messages.slice(0, splits[0]));
  const what = `policy ${name}'s action`;
  let mismatch: Mismatch | undefined;
  try {
    for (const split of check ? splits : splits.slice(0, 1)) {
      try {
        return replay(policy, messages, split, tools, seed, check, what);
      } catch (e) {
        if (!(e instanceof Mismatch)) throw e;
        mismatch ??= e;
      }
    }
  } catch (e) {
    if (e instanceof EndpointError) throw e;
    throw new EndpointError(500, `policy ${name} failed on this conversation: ${(e as Error).message}`, null, null, 'server_error');
  }
  const at = (mismatch as Mismatch).at;
  throw bad(
    `policy ${name} plays only conversations it played itself (it keeps state in what it said): messages[${at}] is not what it answers there`,
    `messages[${at}]`,
    'policy_conversation_mismatch',
  );
}

/** The seed of a conversation: FNV-1a 32 of its start, up to its first user message (roles and contents). */
export function conversationSeed(messages: readonly ChatMessage[]): number {
  const user = messages.findIndex((m) => m.role === 'user');
  const first = messages.slice(0, user < 0 ? messages.length : user + 1);
  return fnv1a32(JSON.stringify(first.map((m) => [m.role, m.content ?? ''])));
}

function utf8(s: string): number[] {
  return [...Buffer.from(s, 'utf8')];
}

function promptTokens(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += tokenize(m.content ?? '').length;
    if (m.tool_calls && m.tool_calls.length > 0) n += tokenize(callsText(m.tool_calls)).length;
  }
  return n;
}

/** One streamed chunk (`chat.completion.chunk`). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: Record<string, unknown>; logprobs: { content: TokenLogprob[]; refusal: null } | null; finish_reason: string | null }[];
  usage?: ChatCompletion['usage'] | null;
}

/**
 * A completion as OpenAI streams it: per choice, a first chunk with the role, then one chunk per content
 * token (with its logprob when asked) or, for tool calls, one chunk naming each call and one with its
 * arguments, then a chunk with the finish reason; with `include_usage` every chunk has `usage: null` and a
 * last chunk without choices carries the usage. Then `data: [DONE]`.
 */
export function toChunks(c: ChatCompletion, includeUsage: boolean): ChatCompletionChunk[] {
  const chunks: ChatCompletionChunk[] = [];
  const chunk = (choices: ChatCompletionChunk['choices']): void => {
    chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices, ...(includeUsage ? { usage: null } : {}) });
  };
  for (const choice of c.choices) {
    const { index, message } = choice;
    const lp = (content: TokenLogprob[]): ChatCompletionChunk['choices'][number]['logprobs'] => (choice.logprobs ? { content, refusal: null } : null);
    chunk([{ index, delta: { role: 'assistant', content: message.tool_calls ? null : '' }, logprobs: null, finish_reason: null }]);
    if (message.reasoning_content !== undefined) chunk([{ index, delta: { reasoning_content: message.reasoning_content }, logprobs: null, finish_reason: null }]);
    if (message.tool_calls) {
      message.tool_calls.forEach((call, i) => {
        chunk([{ index, delta: { tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, logprobs: null, finish_reason: null }]);
        chunk([{ index, delta: { tool_calls: [{ index: i, function: { arguments: call.function.arguments } }] }, logprobs: null, finish_reason: null }]);
      });
      // The tokens of a tool-call reply (its calls as JSON lines) come with the last chunk, when asked.
      if (choice.logprobs) chunk([{ index, delta: {}, logprobs: lp(choice.logprobs.content), finish_reason: null }]);
    } else {
      const tokens = tokenize(message.content ?? '');
      tokens.forEach((t, i) => chunk([{ index, delta: { content: t }, logprobs: lp(choice.logprobs ? [choice.logprobs.content[i]] : []), finish_reason: null }]));
    }
    chunk([{ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason }]);
  }
  if (includeUsage) chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: c.usage });
  return chunks;
}

function toEvents(c: ChatCompletion, includeUsage: boolean): string {
  return toChunks(c, includeUsage).map((k) => `data: ${JSON.stringify(k)}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** The endpoint's answer to a chat-completions request: a function of the options and the request. */
export class PolicyEndpoint {
  readonly options: PolicyEndpointOptions;
  readonly #policy: Policy;
  #count = 0;

  constructor(options: PolicyEndpointOptions) {
    const policy = BLIND_POLICIES.get(options.policy) ?? policyFor(options.policy, options.harness);
    if (policy === undefined) throw new Error(`unknown policy ${options.policy}; one of ${ENDPOINT_POLICIES.join(', ')}`);
    this.options = options;
    this.#policy = policy;
  }

  /** Answer a request (body and headers); throws `EndpointError` for a request it refuses. */
  complete(body: unknown, headers: Record<string, string | string[] | undefined> = {}): ChatCompletion {
    return this.answer(parseChatRequest(body, headers));
  }

  /**
   * Answer a request as OpenAI does: a chat completion, or with `stream: true` the server-sent events of
   * its chunks (`data: {chunk}` lines, then `data: [DONE]`).
   */
  respond(body: unknown, headers: Record<string, string | string[] | undefined> = {}): { stream: false; completion: ChatCompletion } | { stream: true; events: string } {
    const req = parseChatRequest(body, headers);
    const completion = this.answer(req);
    if (!req.stream) return { stream: false, completion };
    return { stream: true, events: toEvents(completion, req.includeUsage) };
  }

  /** Answer a checked request. */
  answer(req: ChatRequest): ChatCompletion {
    const name = this.options.policy;
    if (req.model !== this.options.model) {
      throw new EndpointError(404, `The model \`${req.model}\` does not exist: this endpoint serves \`${this.options.model}\` (harness-gym policy ${name})`, 'model', 'model_not_found');
    }
    const answers: Answer[] = [];
    if (this.#policy.privileged) {
      if (req.oracleAction === undefined) {
        throw bad(
          `policy ${name} needs the episode's oracle action, which the conversation does not carry: send the environment's info.oracle_action with each request, ` +
            `in the ${ORACLE_ACTION_HEADER} header (URI-encoded JSON; harness-gym rollout --oracle-hints sends it) or as the body field ${ORACLE_ACTION_FIELD}; ` +
            'the environment gives it only to resets with options.oracle_hints on a server started with --allow-oracle-hints',
          ORACLE_ACTION_FIELD,
          'policy_needs_context',
        );
      }
      const a = answerOf(req.oracleAction, ORACLE_ACTION_FIELD);
      for (let j = 0; j < req.n; j++) answers.push(a);
    } else {
      const seed = conversationSeed(req.messages);
      const random = name === 'random';
      // Deterministic policies answer the same to every choice; the random floor draws each from its own seed.
      const check = !random;
      for (let j = 0; j < req.n; j++) {
        answers.push(random || j === 0 ? playConversation(name, this.#policy, req.messages, req.tools, (seed + (random ? j : 0)) >>> 0, check) : answers[0]);
      }
    }
    let completionTokens = 0;
    const choices = answers.map((a, index): ChatCompletion['choices'][number] => {
      const calls = a.tool_calls.length > 0;
      const tokens = tokenize(calls ? callsText(a.tool_calls) : (a.content ?? ''));
      completionTokens += tokens.length;
      const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: a.content };
      if (a.reasoning_content !== undefined) message.reasoning_content = a.reasoning_content;
      if (calls) message.tool_calls = a.tool_calls.map((c, i) => ({ id: c.id || `call_${index}_${i}`, type: 'function', function: c.function }));
      const logprobs = req.logprobs
        ? {
            content: tokens.map((t) => ({
              token: t,
              logprob: 0,
              bytes: utf8(t),
              top_logprobs: req.topLogprobs > 0 ? [{ token: t, logprob: 0, bytes: utf8(t) }] : [],
            })),
            refusal: null,
          }
        : null;
      return { index, message, logprobs, finish_reason: calls ? 'tool_calls' : 'stop' };
    });
    const prompt = promptTokens(req.messages);
    this.#count++;
    return {
      id: `chatcmpl-hgym-${this.#count}`,
      object: 'chat.completion',
      created: Math.floor((this.options.now ?? (() => Date.now() / 1000))()),
      model: this.options.model,
      choices,
      usage: { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens },
    };
  }
}

/** The endpoint as a fastify app (not listening). */
export function buildPolicyEndpoint(options: PolicyEndpointOptions): FastifyInstance {
  const endpoint = new PolicyEndpoint(options);
  const started = Math.floor((options.now ?? (() => Date.now() / 1000))());
  // A conversation holds the whole system prompt and every tool result: allow 32 MiB.
  const app = Fastify({ logger: false, bodyLimit: 32 * 1024 * 1024 });
  const errorReply = (status: number, message: string, type = 'invalid_request_error', code: string | null = null) =>
    new EndpointError(status, message, null, code, type).body();
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    if (err instanceof EndpointError) return reply.code(err.status).send(err.body());
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    // Fastify's own 4xx (a body that is not JSON, too large, a wrong content type) say what was wrong; nothing else leaks.
    if (status < 500) return reply.code(status).send(errorReply(status, err.message, 'invalid_request_error', err.code ?? null));
    return reply.code(500).send(errorReply(500, 'internal error of harness-gym policy', 'server_error'));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorReply(404, `no route ${req.method} ${req.url.split('?')[0]}: this endpoint serves POST /v1/chat/completions, GET /v1/models, GET /healthz`, 'invalid_request_error', 'not_found'));
  });
  const model = { id: options.model, object: 'model', created: started, owned_by: 'harness-gym' };
  app.get('/healthz', async () => ({ status: 'ok', policy: options.policy, model: options.model }));
  app.get('/v1/models', async () => ({ object: 'list', data: [model] }));
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (req, reply) => {
    if (req.params.id === options.model) return model;
    return reply.code(404).send(errorReply(404, `The model \`${req.params.id}\` does not exist: this endpoint serves \`${options.model}\``, 'invalid_request_error', 'model_not_found'));
  });
  app.post('/v1/chat/completions', async (req, reply) => {
    const r = endpoint.respond(req.body, req.headers);
    if (!r.stream) return r.completion;
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send(r.events);
  });
  return app;
}

/** A listening endpoint. */
export interface RunningPolicyEndpoint {
  app: FastifyInstance;
  /** e.g. `http://127.0.0.1:8000/v1` */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/** Build the endpoint and listen on `host:port` (0: a free port). */
export async function startPolicyEndpoint(options: PolicyEndpointOptions & { host: string; port: number }): Promise<RunningPolicyEndpoint> {
  const app = buildPolicyEndpoint(options);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { app, baseUrl: `http://${host}:${port}/v1`, port, close: () => app.close() };
}
