/**
 * Action size limits (issue 39, "hostile input"; PROTOCOL.md "Limits"): an action's characters are
 * bounded by `max_action_chars` and its tool calls by `max_action_calls`, whatever `max_frame_bytes`
 * allows, so the memory an episode keeps is bounded whatever a client sends. An action past either bound
 * is `INVALID_ACTION` naming the bound, in every parser, and leaves the episode as it was (the next
 * normal action plays as if the refused one had never been sent).
 */
import { describe, expect, it } from 'vitest';
import { PARSERS } from '../../env/parsers.js';
import type { ParseResult } from '../../env/parsers.js';
import { HarnessGymEnv, createEpisode, defaultEnvConfig } from '../../env/index.js';
import type { Episode } from '../../env/index.js';
import { EnvError } from '../../protocol/errors.js';
import { WIRE_STRING_LIMITS } from '../../protocol/wire.js';

const MAX_CHARS = 65536;
const MAX_CALLS = 64;

function tooLong(n: number): ParseResult {
  return {
    ok: false,
    code: 'INVALID_ACTION',
    message: `action too long: ${n} characters, at most ${MAX_CHARS} (limits.max_action_chars)`,
  };
}
function tooMany(n: number): ParseResult {
  return {
    ok: false,
    code: 'INVALID_ACTION',
    message: `too many tool calls: ${n}, at most ${MAX_CALLS} (limits.max_action_calls)`,
  };
}

function toolCall(i: number, args = '{"link_no":1}') {
  return { id: `c${i}`, type: 'function' as const, function: { name: 'get_product', arguments: args } };
}
function message(content: string | null, calls: number, extra: Record<string, unknown> = {}) {
  return {
    message: {
      role: 'assistant',
      content,
      ...extra,
      ...(calls > 0 ? { tool_calls: Array.from({ length: calls }, (_, i) => toolCall(i)) } : {}),
    },
  };
}
const hermesBlock = '<tool_call>{"name":"get_product","arguments":{"link_no":1}}</tool_call>';
const xmlBlock = '<tool_call><function=get_product><parameter=link_no>1</parameter></function></tool_call>';

describe('the bounds', () => {
  it('are part of the protocol module', () => {
    expect(WIRE_STRING_LIMITS.max_action_chars).toBe(MAX_CHARS);
    expect(WIRE_STRING_LIMITS.max_action_calls).toBe(MAX_CALLS);
  });
});

describe('max_action_chars', () => {
  it('a text of 70000 characters is refused by every parser, naming the bound', () => {
    for (const p of PARSERS.values()) expect(p.parse({ text: 'x'.repeat(70000) }, 1)).toEqual(tooLong(70000));
  });

  it('a text of exactly max_action_chars is parsed; one more character is refused', () => {
    for (const p of PARSERS.values()) {
      expect(p.parse({ text: 'x'.repeat(MAX_CHARS) }, 1)).toEqual({
        ok: true,
        action: { thinking: null, content: 'x'.repeat(MAX_CHARS), calls: [] },
      });
      expect(p.parse({ text: 'x'.repeat(MAX_CHARS + 1) }, 1)).toEqual(tooLong(MAX_CHARS + 1));
    }
  });

  it("a message counts content, reasoning_content and every call's id, name and arguments", () => {
    // 30000 + 30000 + (2 + 11 + 5537) = 65550 > 65536, though no one field is over.
    const big = {
      message: {
        role: 'assistant',
        content: 'a'.repeat(30000),
        reasoning_content: 'r'.repeat(30000),
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_product', arguments: 'x'.repeat(5537) } }],
      },
    };
    for (const p of PARSERS.values()) expect(p.parse(big, 1)).toEqual(tooLong(65550));
    // One character less on the arguments: 65549, still over; at 65536 exactly it is parsed.
    const atLimit = structuredClone(big);
    atLimit.message.tool_calls[0].function.arguments = 'x'.repeat(5537 - 14);
    for (const p of PARSERS.values()) expect(p.parse(atLimit, 1).ok).toBe(true);
  });

  it("a message with a schema-odd field (explicit nulls) is measured the same way", () => {
    const m = { message: { role: 'assistant', content: 'y'.repeat(MAX_CHARS + 5), reasoning_content: null, tool_calls: null } };
    for (const p of PARSERS.values()) expect(p.parse(m, 1)).toEqual(tooLong(MAX_CHARS + 5));
  });

  it('a message of the wrong shape is still refused for its shape, not its size', () => {
    const r = PARSERS.get('auto')!.parse({ message: { role: 'user', content: 'x'.repeat(70000) } }, 1);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^invalid assistant message/);
  });
});

describe('max_action_calls', () => {
  it('a message with 65 tool_calls is refused by every parser; 64 are parsed', () => {
    for (const p of PARSERS.values()) {
      expect(p.parse(message(null, MAX_CALLS + 1), 1)).toEqual(tooMany(MAX_CALLS + 1));
      const r = p.parse(message(null, MAX_CALLS), 1);
      expect(r.ok && r.action.calls.length).toBe(MAX_CALLS);
    }
  });

  it('calls written in the text count for the text parsers: hermes and xml blocks, 65 refused, 64 parsed', () => {
    const hermes = PARSERS.get('hermes')!;
    const xml = PARSERS.get('qwen3_xml')!;
    const auto = PARSERS.get('auto')!;
    expect(hermes.parse({ text: hermesBlock.repeat(MAX_CALLS + 1) }, 1)).toEqual(tooMany(MAX_CALLS + 1));
    expect(auto.parse({ text: hermesBlock.repeat(MAX_CALLS + 1) }, 1)).toEqual(tooMany(MAX_CALLS + 1));
    expect(xml.parse({ text: xmlBlock.repeat(MAX_CALLS + 1) }, 1)).toEqual(tooMany(MAX_CALLS + 1));
    expect(auto.parse({ text: xmlBlock.repeat(MAX_CALLS + 1) }, 1)).toEqual(tooMany(MAX_CALLS + 1));
    const r = hermes.parse({ text: hermesBlock.repeat(MAX_CALLS) }, 1);
    expect(r.ok && r.action.calls.length).toBe(MAX_CALLS);
    // The openai parser leaves the text as content: no calls, nothing refused.
    const o = PARSERS.get('openai')!.parse({ text: hermesBlock.repeat(MAX_CALLS + 1) }, 1);
    expect(o.ok && o.action.calls.length).toBe(0);
  });

  it("a message's tool_calls and the calls in its content add up for the text parsers", () => {
    const both = message(hermesBlock.repeat(10), MAX_CALLS - 9);
    expect(PARSERS.get('hermes')!.parse(both, 1)).toEqual(tooMany(MAX_CALLS + 1));
    // openai and auto read the content of a message as text: 55 calls only.
    const r = PARSERS.get('openai')!.parse(both, 1);
    expect(r.ok && r.action.calls.length).toBe(MAX_CALLS - 9);
  });

  it('unterminated blocks are calls too (each a PARSE_ERROR call)', () => {
    expect(PARSERS.get('hermes')!.parse({ text: '<tool_call>{'.repeat(MAX_CALLS + 1) }, 1)).toEqual(tooMany(MAX_CALLS + 1));
  });
});

describe('in an episode', () => {
  const config = defaultEnvConfig();
  function episode(): Episode {
    const created = createEpisode(config, { episode_id: 't', seed: 11, options: { parser: 'hermes' } });
    if (!created.ok) throw new Error(created.error.message);
    return created.episode;
  }
  const normal = { message: { role: 'assistant', content: null, tool_calls: [toolCall(0, '{"name":"product-qa"}')] } };
  normal.message.tool_calls[0].function.name = 'load_skill';

  it('an over-long or over-many action is INVALID_ACTION, the episode unchanged: the next step equals a fresh episode\'s', () => {
    const ep = episode();
    ep.reset();
    expect(ep.step({ text: 'x'.repeat(70000) })).toEqual({
      ok: false,
      error: { code: 'INVALID_ACTION', message: `action too long: 70000 characters, at most ${MAX_CHARS} (limits.max_action_chars)` },
    });
    expect(ep.step({ text: hermesBlock.repeat(MAX_CALLS + 1) })).toEqual({
      ok: false,
      error: { code: 'INVALID_ACTION', message: `too many tool calls: ${MAX_CALLS + 1}, at most ${MAX_CALLS} (limits.max_action_calls)` },
    });
    expect(ep.turn).toBe(0);
    const after = ep.step(normal);
    const fresh = episode();
    fresh.reset();
    expect(after).toEqual(fresh.step(normal));
    expect(after.ok).toBe(true);
    expect(ep.turn).toBe(1);
  });

  it('HarnessGymEnv (in-process API) throws the same INVALID_ACTION and steps on afterwards', () => {
    const env = new HarnessGymEnv();
    env.reset({ seed: 11 });
    let thrown: unknown;
    try {
      env.step({ message: { role: 'assistant', content: 'x'.repeat(70000) } });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(EnvError);
    expect((thrown as EnvError).code).toBe('INVALID_ACTION');
    expect((thrown as EnvError).message).toBe(`INVALID_ACTION: action too long: 70000 characters, at most ${MAX_CHARS} (limits.max_action_chars)`);
    expect(env.step(normal).info.turn).toBe(1);
  });
});
