/**
 * The policy contract of the reference policies, and how they write an assistant turn in each parser's
 * format (a structured message for `openai`/`auto`, Hermes or Qwen3 XML text for the raw parsers).
 */
import type { CanonicalCall, ChatMessage, Task, ToolSchema } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import type { SurfaceMap } from '../protocol/surface.js';

/** An observation as the environment sends it. */
export interface PolicyObservation {
  messages: ChatMessage[];
  tools?: ToolSchema[];
}

/** Privileged knowledge: only the oracle reads it. */
export interface PrivilegedContext {
  task: Task;
  map: SurfaceMap;
  harness: Harness;
  /** The base harness the variant was drawn from (its names are the task's); absent: the embedded one. */
  canonical?: Harness;
}

/** What every episode tells its policy at the start. */
export interface EpisodeStart {
  seed: number;
  parser: string;
  observation: PolicyObservation;
  info: Record<string, unknown>;
  privileged?: PrivilegedContext;
}

/** One policy instance plays one episode. */
export interface PolicyInstance {
  /** The next action (PROTOCOL.md `Action`) after the latest observation and info. */
  act(observation: PolicyObservation, info: Record<string, unknown>): unknown;
}

/** A reference policy: a factory of per-episode instances. */
export interface Policy {
  readonly name: string;
  /** True when the policy needs `EpisodeStart.privileged`. */
  readonly privileged: boolean;
  start(episode: EpisodeStart): PolicyInstance;
}

/** A call in surface form, ready to be written. */
export interface SurfaceCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

function xmlValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Write tool calls as the given parser reads them. */
export function writeCalls(parser: string, calls: readonly SurfaceCall[], thinking?: string): unknown {
  const think = thinking ? `<think>${thinking}</think>\n` : '';
  if (parser === 'hermes') {
    return {
      text: think + calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`).join('\n'),
    };
  }
  if (parser === 'qwen3_xml') {
    const blocks = calls.map((c) => {
      const params = Object.entries(c.arguments)
        .map(([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>`)
        .join('\n');
      return `<tool_call>\n<function=${c.name}>\n${params}\n</function>\n</tool_call>`;
    });
    return { text: think + blocks.join('\n') };
  }
  return {
    message: {
      role: 'assistant',
      content: null,
      ...(thinking ? { reasoning_content: thinking } : {}),
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    },
  };
}

/** Write a final reply as the given parser reads it. */
export function writeReply(parser: string, text: string): unknown {
  if (parser === 'hermes' || parser === 'qwen3_xml') return { text };
  return { message: { role: 'assistant', content: text } };
}

/** A canonical call in the variant's surface form (tool name, argument names and nesting). */
export function toSurface(map: SurfaceMap, call: CanonicalCall, id: string): SurfaceCall | null {
  const name = map.toolToSurface(call.name);
  if (name === undefined) return null;
  return { id, name, arguments: map.argsToSurface(call.name, call.arguments) };
}
