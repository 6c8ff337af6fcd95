/**
 * Action parsers: turn a policy's assistant turn (a structured OpenAI message or a raw completion in one
 * of the Qwen3 text formats) into a `ParsedAction` of thinking, visible content and tool calls.
 *
 * Formats (DESIGN.md "One episode", step 2):
 * - `openai`: `{message}` with `tool_calls[].function.arguments` as JSON strings (chat-completions).
 * - `hermes`: raw text with `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks (Qwen3 /
 *   Hermes chat templates).
 * - `qwen3_xml`: raw text with `<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>`
 *   blocks (Qwen3.5+/3.6 and Qwen3-Coder chat templates); values stay strings (`untyped: true`) until
 *   `coerceArguments` gives them the types of the tool's JSON schema.
 * - `auto`: picks one of the above from the action's shape and text.
 *
 * Bounds (PROTOCOL.md "Limits"): an action over `max_action_chars` characters, or with more than
 * `max_action_calls` tool calls, is `INVALID_ACTION` naming the bound. The characters are summed before
 * any parsing; the calls are counted after (text calls are known only once parsed, and the text is
 * already bounded), with a message's `tool_calls` counted before parsing too.
 *
 * Errors are data: a malformed action is `{ok:false, code:'INVALID_ACTION'}`, a malformed call is a
 * `ParsedCall` with a `PARSE_ERROR` (the rest of the action survives). Nothing here throws on any input;
 * this is the hot path of every step, so scanning uses `indexOf` over precompiled constants, not
 * per-call regexes or closures.
 */
import { z } from 'zod';
import type { JsonSchema } from '../protocol/domain.js';
import { WIRE_STRING_LIMITS } from '../protocol/wire.js';
import { depthProblem } from '../protocol/files.js';
import { isRecord as isPlainObject } from '../protocol/objects.js';

// ---------------------------------------------------------------------------------------------------
// Public contract
// ---------------------------------------------------------------------------------------------------

/** One tool call as the parser read it, still in the variant's surface names. */
export interface ParsedCall {
  /** The call id: from the message, or `call_<turn>_<i>` for calls parsed out of raw text (deterministic). */
  id: string;
  /** The surface name as written (may be '' when unparseable). */
  name: string;
  /** Parsed arguments; null when they could not be parsed (then `error` is set). */
  arguments: Record<string, unknown> | null;
  /**
   * The arguments text as received: the message's `arguments` string; for Hermes the `arguments` value
   * (verbatim when it was a JSON string, re-serialised when it was an object) or, when the block could
   * not be parsed, the block's trimmed inner text; for the XML form the block's trimmed inner text.
   */
  raw_arguments: string;
  /** XML-form values are strings until coerced; true when the parser had no type information. */
  untyped: boolean;
  /** Present only when the call could not be parsed. */
  error?: { code: 'PARSE_ERROR'; message: string };
}

/** A parsed assistant turn. */
export interface ParsedAction {
  /** `<think>…</think>` content, text before a lone `</think>`, or `reasoning_content`; null when none. */
  thinking: string | null;
  /** Visible text with think blocks and tool-call blocks removed, trimmed; null if empty. */
  content: string | null;
  /** Tool calls in order: a message's structured `tool_calls` first, then calls parsed from text. */
  calls: ParsedCall[];
}

/** The parser's answer: a parsed action, or a typed error for an action of the wrong shape. */
export type ParseResult = { ok: true; action: ParsedAction } | { ok: false; code: 'INVALID_ACTION'; message: string };

/** A swappable action parser (CONTRIBUTING.md "Adding a task source or a parser"). */
export interface ActionParser {
  readonly name: string;
  /** Parse one action of turn `turn` (used for deterministic call ids). Never throws. */
  parse(action: unknown, turn: number): ParseResult;
}

// ---------------------------------------------------------------------------------------------------
// Constants (compiled once at module load)
// ---------------------------------------------------------------------------------------------------

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const CALL_OPEN = '<tool_call>';
const CALL_CLOSE = '</tool_call>';
const FN_OPEN = '<function=';
const FN_CLOSE = '</function>';
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';

/** Recovers a call's name from broken Hermes JSON, so the error can say which tool was meant. */
const JSON_NAME_RE = /"name"\s*:\s*"((?:[^"\\\n]|\\.)*)"/;
/** Recovers a call's name from a broken XML block. */
const XML_NAME_RE = /<function=([^>\n<]*)>/;
/** A JSON-style number literal (no hex, no Infinity): what `coerceArguments` may turn into a number. */
const NUMBER_LITERAL_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The assistant message of an `{message}` action (PROTOCOL.md `Action`). `content` may be absent
 * (OpenAI omits it on pure tool-call turns), and `reasoning_content` / `tool_calls` may be null
 * (vLLM and SGLang send explicit nulls); `type` may be absent because some clients drop it.
 */
const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.string().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
});
type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

function isOptionalText(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}

/**
 * The schema's check written out, for the well-formed message of nearly every step: no stricter than the
 * schema and no looser (what it accepts, the schema accepts, with the same fields read). Anything it
 * refuses goes through the schema, which words the error. The schema's stripped copy is not needed:
 * `parseMessage` reads only the schema's fields.
 */
function isAssistantMessage(m: unknown): m is AssistantMessage {
  if (!isPlainObject(m) || m['role'] !== 'assistant' || !isOptionalText(m['content']) || !isOptionalText(m['reasoning_content']))
    return false;
  const calls = m['tool_calls'];
  if (calls === undefined || calls === null) return true;
  if (!Array.isArray(calls)) return false;
  for (const c of calls as unknown[]) {
    if (!isPlainObject(c) || typeof c['id'] !== 'string' || (c['type'] !== undefined && c['type'] !== 'function')) return false;
    const fn = c['function'];
    if (!isPlainObject(fn) || typeof fn['name'] !== 'string' || typeof fn['arguments'] !== 'string') return false;
  }
  return true;
}

/** Which tool-call syntax to look for in text; 'none' leaves text as content. */
type TextFormat = 'none' | 'hermes' | 'qwen3_xml';
/** The four parser behaviours. */
type Mode = 'openai' | 'hermes' | 'qwen3_xml' | 'auto';

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------

/**
 * Sets an own property even for the key `__proto__`, which plain assignment would treat as the
 * prototype setter (and silently drop or, worse, re-parent the object).
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function pushThinking(parts: string[], text: string): void {
  const t = text.trim();
  if (t !== '') parts.push(t);
}

/**
 * The deepest a call's arguments may nest (objects and arrays): deeper arguments are a failed call
 * (`PARSE_ERROR`), as invalid JSON is, before any service, hook or reward walks them recursively (an
 * action within max_action_chars could otherwise nest 30,000 levels and overflow the stack).
 */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * The deepest an action may nest as sent (objects and arrays; a structured message with tool calls is 5
 * levels). Keys a parser ignores are still kept with the action (a record tapes it as sent), so an action
 * nested deeper is refused whole (`INVALID_ACTION`) before anything keeps or walks it.
 */
export const MAX_ACTION_DEPTH = 16;

/** Why an action cannot be taken whatever its parser (nested too deep), or null. */
export function actionShapeProblem(action: unknown): string | null {
  return depthProblem(action, MAX_ACTION_DEPTH) === null ? null : `action nested too deep (more than ${MAX_ACTION_DEPTH} levels of objects and arrays)`;
}

function okCall(id: string, name: string, args: Record<string, unknown>, raw: string, untyped: boolean): ParsedCall {
  if (depthProblem(args, MAX_ARGUMENT_DEPTH) !== null) {
    return errorCall(id, name, raw, untyped, `arguments nested too deep (more than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays)`);
  }
  return { id, name, arguments: args, raw_arguments: raw, untyped };
}

function errorCall(id: string, name: string, raw: string, untyped: boolean, message: string): ParsedCall {
  return { id, name, arguments: null, raw_arguments: raw, untyped, error: { code: 'PARSE_ERROR', message } };
}

/**
 * Parses an arguments string into an object. Empty text counts as `{}` because some servers send ""
 * for a call without arguments. Returns a string message when the text is not a JSON object.
 */
function parseArgumentsText(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'arguments are not valid JSON';
  }
  return isPlainObject(value) ? value : 'arguments must be a JSON object';
}

/** Unescapes a JSON string body recovered by regex; falls back to the raw text when it is not valid. */
function unescapeJsonString(body: string): string {
  try {
    const v: unknown = JSON.parse('"' + body + '"');
    return typeof v === 'string' ? v : body;
  } catch {
    return body;
  }
}

function recoverName(raw: string, format: TextFormat): string {
  if (format === 'qwen3_xml') {
    const m = XML_NAME_RE.exec(raw);
    return m ? m[1].trim() : '';
  }
  const m = JSON_NAME_RE.exec(raw);
  return m ? unescapeJsonString(m[1]) : '';
}

// ---------------------------------------------------------------------------------------------------
// Think handling
// ---------------------------------------------------------------------------------------------------

/** Result of splitting thinking from visible text. */
interface ThinkSplit {
  thinking: string | null;
  visible: string;
}

/**
 * Removes and keeps thinking. Rules: a `</think>` before any `<think>` means the opening tag was in the
 * prompt (Qwen3 templates), so everything before it is thinking; each `<think>…</think>` block is thinking;
 * an unclosed `<think>` swallows the rest (generation cut off while thinking). Further stray `</think>`
 * tags stay in the visible text on purpose: the reply hook's THINK_LEAK check must be able to see them.
 * `prior` (a message's `reasoning_content`) comes first.
 */
function splitThink(text: string, prior: string | null | undefined): ThinkSplit {
  const parts: string[] = [];
  if (prior) pushThinking(parts, prior);
  let firstClose = text.indexOf(THINK_CLOSE);
  if (firstClose === -1 && text.indexOf(THINK_OPEN) === -1) {
    // Fast path: the common reply has no think tags at all.
    return { thinking: parts.length > 0 ? parts.join('\n') : null, visible: text };
  }
  let pos = 0;
  const firstOpen = text.indexOf(THINK_OPEN);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    pushThinking(parts, text.slice(0, firstClose));
    pos = firstClose + THINK_CLOSE.length;
  }
  let visible = '';
  for (;;) {
    const open = text.indexOf(THINK_OPEN, pos);
    if (open === -1) {
      visible += text.slice(pos);
      break;
    }
    visible += text.slice(pos, open);
    const bodyStart = open + THINK_OPEN.length;
    firstClose = text.indexOf(THINK_CLOSE, bodyStart);
    if (firstClose === -1) {
      pushThinking(parts, text.slice(bodyStart));
      break;
    }
    pushThinking(parts, text.slice(bodyStart, firstClose));
    pos = firstClose + THINK_CLOSE.length;
  }
  return { thinking: parts.length > 0 ? parts.join('\n') : null, visible };
}

// ---------------------------------------------------------------------------------------------------
// Tool-call blocks
// ---------------------------------------------------------------------------------------------------

/** Parses the inner text of a Hermes `<tool_call>` block. */
function parseHermesBlock(inner: string, id: string): ParsedCall {
  const raw = inner.trim();
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return errorCall(id, recoverName(raw, 'hermes'), raw, false, 'tool call is not valid JSON');
  }
  if (!isPlainObject(value)) return errorCall(id, '', raw, false, 'tool call must be a JSON object');
  const name = value['name'];
  if (typeof name !== 'string' || name === '') {
    return errorCall(id, '', raw, false, 'tool call has no "name"');
  }
  const args = Object.hasOwn(value, 'arguments') ? value['arguments'] : undefined;
  if (args === undefined) return okCall(id, name, {}, '{}', false);
  if (typeof args === 'string') {
    // Some templates double-encode: "arguments": "{\"k\": 1}".
    const parsed = parseArgumentsText(args);
    return typeof parsed === 'string' ? errorCall(id, name, args, false, parsed) : okCall(id, name, parsed, args, false);
  }
  if (isPlainObject(args)) return okCall(id, name, args, JSON.stringify(args), false);
  return errorCall(id, name, raw, false, 'arguments must be a JSON object');
}

/** Strips one leading and one trailing newline (the template puts values on their own lines). */
function stripOneNewline(value: string): string {
  let start = 0;
  let end = value.length;
  if (value.startsWith('\r\n')) start = 2;
  else if (value.startsWith('\n')) start = 1;
  if (end - start >= 2 && value.endsWith('\r\n')) end -= 2;
  else if (end - start >= 1 && value.endsWith('\n')) end -= 1;
  return value.slice(start, end);
}

function isWhitespaceCode(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * Parses the inner text of a Qwen3 XML `<tool_call>` block:
 * `<function=NAME>` then `<parameter=K>V</parameter>`* then `</function>`, whitespace between elements.
 * Anything else is broken structure; the recovered name (when any) still travels with the error.
 */
function parseXmlBlock(inner: string, id: string): ParsedCall {
  const raw = inner.trim();
  if (!raw.startsWith(FN_OPEN)) return errorCall(id, '', raw, true, 'expected <function=NAME>');
  const nameEnd = raw.indexOf('>', FN_OPEN.length);
  if (nameEnd === -1) return errorCall(id, '', raw, true, 'unterminated <function=NAME> tag');
  const name = raw.slice(FN_OPEN.length, nameEnd).trim();
  if (name === '' || name.includes('<') || name.includes('\n')) {
    return errorCall(id, '', raw, true, 'invalid function name');
  }
  const bodyEnd = raw.length - FN_CLOSE.length;
  if (!raw.endsWith(FN_CLOSE) || bodyEnd < nameEnd + 1) return errorCall(id, name, raw, true, 'missing </function>');
  const args: Record<string, unknown> = {};
  let pos = nameEnd + 1;
  for (;;) {
    while (pos < bodyEnd && isWhitespaceCode(raw.charCodeAt(pos))) pos++;
    if (pos >= bodyEnd) break;
    if (!raw.startsWith(PARAM_OPEN, pos)) {
      return errorCall(id, name, raw, true, 'unexpected text outside <parameter=...> elements');
    }
    const keyStart = pos + PARAM_OPEN.length;
    const keyEnd = raw.indexOf('>', keyStart);
    if (keyEnd === -1 || keyEnd >= bodyEnd) return errorCall(id, name, raw, true, 'unterminated <parameter=...> tag');
    const key = raw.slice(keyStart, keyEnd).trim();
    if (key === '' || key.includes('<') || key.includes('\n')) {
      return errorCall(id, name, raw, true, 'invalid parameter name');
    }
    const valueEnd = raw.indexOf(PARAM_CLOSE, keyEnd + 1);
    if (valueEnd === -1 || valueEnd + PARAM_CLOSE.length > bodyEnd) {
      return errorCall(id, name, raw, true, `unclosed <parameter=${key}>`);
    }
    const value = raw.slice(keyEnd + 1, valueEnd);
    // A missing </parameter> would otherwise silently swallow the next parameter into this value.
    if (value.includes(PARAM_OPEN)) return errorCall(id, name, raw, true, `unclosed <parameter=${key}>`);
    setOwn(args, key, stripOneNewline(value));
    pos = valueEnd + PARAM_CLOSE.length;
  }
  return okCall(id, name, args, raw, true);
}

/**
 * Removes `<tool_call>` blocks from `visible`, appending a parsed call for each to `calls`, and returns
 * the remaining text. A block cut off by the end of the text, or by the next `<tool_call>`, is an
 * unterminated block: a PARSE_ERROR call, so the policy learns the call did not happen.
 */
function extractCalls(visible: string, format: TextFormat, turn: number, calls: ParsedCall[]): string {
  if (format === 'none') return visible;
  let open = visible.indexOf(CALL_OPEN);
  if (open === -1) return visible;
  const untyped = format === 'qwen3_xml';
  let out = '';
  let pos = 0;
  while (open !== -1) {
    out += visible.slice(pos, open);
    const start = open + CALL_OPEN.length;
    const close = visible.indexOf(CALL_CLOSE, start);
    const nextOpen = visible.indexOf(CALL_OPEN, start);
    const id = `call_${turn}_${calls.length}`;
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      const end = close === -1 && nextOpen === -1 ? visible.length : nextOpen;
      const raw = visible.slice(start, end).trim();
      calls.push(errorCall(id, recoverName(raw, format), raw, untyped, 'unterminated <tool_call> block'));
      pos = end;
      open = nextOpen;
      continue;
    }
    const inner = visible.slice(start, close);
    calls.push(format === 'hermes' ? parseHermesBlock(inner, id) : parseXmlBlock(inner, id));
    pos = close + CALL_CLOSE.length;
    open = visible.indexOf(CALL_OPEN, pos);
  }
  out += visible.slice(pos);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------------

function invalid(message: string): ParseResult {
  return { ok: false, code: 'INVALID_ACTION', message };
}

const MAX_ACTION_CHARS = WIRE_STRING_LIMITS.max_action_chars;
const MAX_ACTION_CALLS = WIRE_STRING_LIMITS.max_action_calls;

function tooLong(chars: number): ParseResult {
  return invalid(`action too long: ${chars} characters, at most ${MAX_ACTION_CHARS} (limits.max_action_chars)`);
}

function tooMany(calls: number): ParseResult {
  return invalid(`too many tool calls: ${calls}, at most ${MAX_ACTION_CALLS} (limits.max_action_calls)`);
}

/** A validated message's characters: content, reasoning and every call's id, name and arguments. */
function messageChars(message: AssistantMessage): number {
  let n = (message.content?.length ?? 0) + (message.reasoning_content?.length ?? 0);
  const calls = message.tool_calls;
  if (calls) for (const c of calls) n += c.id.length + c.function.name.length + c.function.arguments.length;
  return n;
}

function finish(thinking: string | null, rest: string, calls: ParsedCall[]): ParseResult {
  if (calls.length > MAX_ACTION_CALLS) return tooMany(calls.length);
  const content = rest.trim();
  return { ok: true, action: { thinking, content: content === '' ? null : content, calls } };
}

/** Parses text (a raw completion or a message's content) after any structured calls. */
function parseText(text: string, prior: string | null | undefined, format: TextFormat, turn: number, calls: ParsedCall[]): ParseResult {
  const split = splitThink(text, prior);
  return finish(split.thinking, extractCalls(split.visible, format, turn, calls), calls);
}

/** Parses a validated assistant message: its structured calls first, then its content in `format`. */
function parseMessage(message: AssistantMessage, format: TextFormat, turn: number): ParseResult {
  const chars = messageChars(message);
  if (chars > MAX_ACTION_CHARS) return tooLong(chars);
  const calls: ParsedCall[] = [];
  const toolCalls = message.tool_calls;
  if (toolCalls) {
    if (toolCalls.length > MAX_ACTION_CALLS) return tooMany(toolCalls.length);
    for (let i = 0; i < toolCalls.length; i++) {
      const tc = toolCalls[i];
      // An empty id cannot be answered by a tool message; give it the deterministic one.
      const id = tc.id === '' ? `call_${turn}_${i}` : tc.id;
      const raw = tc.function.arguments;
      const parsed = parseArgumentsText(raw);
      calls.push(
        typeof parsed === 'string' ? errorCall(id, tc.function.name, raw, false, parsed) : okCall(id, tc.function.name, parsed, raw, false),
      );
    }
  }
  return parseText(message.content ?? '', message.reasoning_content, format, turn, calls);
}

/**
 * Parses any value as an action in the given mode. The action must be an object with exactly one of a
 * string `text` or a valid assistant `message`; other keys are ignored.
 */
function parseAction(action: unknown, turn: number, mode: Mode): ParseResult {
  if (!isPlainObject(action)) return invalid('action must be an object with "text" or "message"');
  const shape = actionShapeProblem(action);
  if (shape !== null) return invalid(shape);
  const hasText = Object.hasOwn(action, 'text');
  const hasMessage = Object.hasOwn(action, 'message');
  if (hasText === hasMessage) {
    return invalid(hasText ? 'action has both "text" and "message"' : 'action has neither "text" nor "message"');
  }
  if (hasText) {
    const text = action['text'];
    if (typeof text !== 'string') return invalid('"text" must be a string');
    if (text.length > MAX_ACTION_CHARS) return tooLong(text.length);
    const format: TextFormat = mode === 'openai' ? 'none' : mode === 'auto' ? (text.includes(FN_OPEN) ? 'qwen3_xml' : 'hermes') : mode;
    return parseText(text, null, format, turn, []);
  }
  const message = action['message'];
  if (isAssistantMessage(message)) return parseMessage(message, mode === 'openai' || mode === 'auto' ? 'none' : mode, turn);
  const checked = AssistantMessageSchema.safeParse(message);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at message.${issue.path.join('.')}` : '';
    return invalid(`invalid assistant message${where}: ${issue ? issue.message : 'bad shape'}`);
  }
  return parseMessage(checked.data, mode === 'openai' || mode === 'auto' ? 'none' : mode, turn);
}

/** A parser bound to one mode; a class rather than a closure so the registry holds plain instances. */
class ModeParser implements ActionParser {
  readonly name: string;
  readonly #mode: Mode;
  constructor(mode: Mode) {
    this.name = mode;
    this.#mode = mode;
  }
  parse(action: unknown, turn: number): ParseResult {
    return parseAction(action, turn, this.#mode);
  }
}

/**
 * The parser registry, by name: `auto` (the default; `{message}` -> openai, `{text}` -> qwen3_xml when it
 * contains `<function=`, else hermes), `openai`, `hermes`, `qwen3_xml`. The text parsers also accept
 * `{message}`: its `tool_calls` come first, then calls written in its content.
 */
export const PARSERS: ReadonlyMap<string, ActionParser> = new Map<string, ActionParser>([
  ['auto', new ModeParser('auto')],
  ['openai', new ModeParser('openai')],
  ['hermes', new ModeParser('hermes')],
  ['qwen3_xml', new ModeParser('qwen3_xml')],
]);

// ---------------------------------------------------------------------------------------------------
// Argument coercion for untyped (XML) calls
// ---------------------------------------------------------------------------------------------------

function schemaTypes(schema: Record<string, unknown>): readonly unknown[] | null {
  const t = schema['type'];
  if (typeof t === 'string') return [t];
  return Array.isArray(t) ? t : null;
}

/** Converts one string by the first listed type it is a valid literal of; otherwise returns it as is. */
function coerceString(value: string, types: readonly unknown[]): unknown {
  // A string is already valid when the schema allows strings; converting it would change its meaning.
  if (types.includes('string')) return value;
  const t = value.trim();
  for (const type of types) {
    switch (type) {
      case 'integer':
      case 'number':
        if (NUMBER_LITERAL_RE.test(t)) return Number(t);
        break;
      case 'boolean': {
        const lower = t.toLowerCase();
        if (lower === 'true') return true;
        if (lower === 'false') return false;
        break;
      }
      case 'null':
        if (t === 'null') return null;
        break;
      case 'object':
      case 'array': {
        const first = t.charCodeAt(0);
        if ((type === 'object' && first !== 123) || (type === 'array' && first !== 91)) break; // '{' / '['
        try {
          const parsed: unknown = JSON.parse(t);
          if (type === 'array' ? Array.isArray(parsed) : isPlainObject(parsed)) return parsed;
        } catch {
          // Not valid JSON: leave the string so schema validation names the field.
        }
        break;
      }
      default:
        break;
    }
  }
  return value;
}

function coerceValue(value: unknown, schema: unknown, depth: number): unknown {
  if (!isPlainObject(schema) || depth > 32) return value;
  if (typeof value === 'string') {
    const types = schemaTypes(schema);
    if (types === null) return value;
    const coerced = coerceString(value, types);
    // A parsed object or array may itself hold strings its nested schema types.
    return coerced !== value && typeof coerced === 'object' && coerced !== null ? coerceValue(coerced, schema, depth + 1) : coerced;
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (!isPlainObject(items)) return value;
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = coerceValue(value[i], items, depth + 1);
    return out;
  }
  if (isPlainObject(value) && isPlainObject(schema['properties'])) return coerceObject(value, schema['properties'], depth + 1);
  return value;
}

function coerceObject(args: Record<string, unknown>, properties: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    const value = args[key];
    setOwn(out, key, Object.hasOwn(properties, key) ? coerceValue(value, properties[key], depth) : value);
  }
  return out;
}

/**
 * Gives untyped (XML-form) argument values the types of the tool's JSON schema: integer/number via
 * `Number` when the string is a JSON number literal, boolean from true/false (any case), null from
 * "null", object/array via `JSON.parse` when valid. A value that does not convert stays a string so that
 * schema validation reports it with its field name. Unknown properties are untouched; object-typed
 * parameters are coerced through their nested `properties`, arrays through `items`. Returns a new object
 * with the same key order; never throws.
 */
export function coerceArguments(args: Record<string, unknown>, parameters: JsonSchema): Record<string, unknown> {
  const properties = parameters['properties'];
  if (!isPlainObject(properties)) return coerceObject(args, {}, 0);
  return coerceObject(args, properties, 0);
}
