import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { PARSERS, coerceArguments } from '../../env/parsers.js';
import type { ActionParser, ParsedAction, ParsedCall, ParseResult } from '../../env/parsers.js';

function parser(name: string): ActionParser {
  const p = PARSERS.get(name);
  if (!p) throw new Error(`no parser ${name}`);
  return p;
}
const auto = parser('auto');
const openai = parser('openai');
const hermes = parser('hermes');
const xml = parser('qwen3_xml');

function ok(action: ParsedAction): ParseResult {
  return { ok: true, action };
}

function call(id: string, name: string, args: Record<string, unknown>, raw: string, untyped = false): ParsedCall {
  return { id, name, arguments: args, raw_arguments: raw, untyped };
}

function bad(id: string, name: string, raw: string, message: string, untyped = false): ParsedCall {
  return { id, name, arguments: null, raw_arguments: raw, untyped, error: { code: 'PARSE_ERROR', message } };
}

describe('registry', () => {
  it('holds the four parsers under their names', () => {
    expect([...PARSERS.keys()]).toEqual(['auto', 'openai', 'hermes', 'qwen3_xml']);
    for (const [name, p] of PARSERS) expect(p.name).toBe(name);
  });
});

describe('plain replies and thinking', () => {
  it('plain reply: trimmed content, no thinking, no calls (every parser)', () => {
    for (const p of PARSERS.values()) {
      expect(p.parse({ text: '  3号链接现在89.9元哦～\n' }, 0)).toEqual(
        ok({ thinking: null, content: '3号链接现在89.9元哦～', calls: [] }),
      );
    }
  });

  it('empty text: content null', () => {
    expect(auto.parse({ text: '' }, 0)).toEqual(ok({ thinking: null, content: null, calls: [] }));
    expect(auto.parse({ text: ' \n ' }, 0)).toEqual(ok({ thinking: null, content: null, calls: [] }));
  });

  it('reply with a think block', () => {
    expect(auto.parse({ text: '<think>\n价格要查工具\n</think>\n\n好的，马上查！' }, 0)).toEqual(
      ok({ thinking: '价格要查工具', content: '好的，马上查！', calls: [] }),
    );
  });

  it('an empty think block (Qwen3 non-thinking mode) gives null thinking', () => {
    expect(hermes.parse({ text: '<think>\n\n</think>\n\nHi!' }, 0)).toEqual(ok({ thinking: null, content: 'Hi!', calls: [] }));
  });

  it('several think blocks are joined with a newline and removed from content', () => {
    expect(auto.parse({ text: '<think>a</think>one <think> b </think>two' }, 0)).toEqual(
      ok({ thinking: 'a\nb', content: 'one two', calls: [] }),
    );
  });

  it('lone </think>: everything before it is thinking', () => {
    expect(auto.parse({ text: 'the open tag was in the prompt\n</think>\n\n亲，在的～' }, 0)).toEqual(
      ok({ thinking: 'the open tag was in the prompt', content: '亲，在的～', calls: [] }),
    );
  });

  it('lone </think> followed by a later think block', () => {
    expect(auto.parse({ text: 'first</think>A<think>second</think>B' }, 0)).toEqual(
      ok({ thinking: 'first\nsecond', content: 'AB', calls: [] }),
    );
  });

  it('a second stray </think> stays visible (the THINK_LEAK hook must see it)', () => {
    expect(auto.parse({ text: 'a</think>b</think>c' }, 0)).toEqual(ok({ thinking: 'a', content: 'b</think>c', calls: [] }));
  });

  it('unclosed <think>: the rest is thinking, content null', () => {
    expect(auto.parse({ text: '<think>\nlet me think about the coupon' }, 0)).toEqual(
      ok({ thinking: 'let me think about the coupon', content: null, calls: [] }),
    );
  });

  it('a tool call inside a think block is thinking, not a call', () => {
    const text = '<think>maybe <tool_call>{"name":"x","arguments":{}}</tool_call></think>done';
    expect(hermes.parse({ text }, 0)).toEqual(
      ok({ thinking: 'maybe <tool_call>{"name":"x","arguments":{}}</tool_call>', content: 'done', calls: [] }),
    );
  });
});

describe('hermes', () => {
  it('one tool call', () => {
    const text = '<tool_call>\n{"name": "get_product", "arguments": {"link_no": 3}}\n</tool_call>';
    expect(hermes.parse({ text }, 2)).toEqual(
      ok({ thinking: null, content: null, calls: [call('call_2_0', 'get_product', { link_no: 3 }, '{"link_no":3}')] }),
    );
  });

  it('several tool calls with text and thinking around them', () => {
    const text =
      '<think>need stock and promos</think>稍等，我查一下～\n<tool_call>\n{"name": "check_stock", "arguments": {"item_id": "I1", "sku_id": "S2"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "get_promotions", "arguments": "{\\"item_id\\": \\"I1\\"}"}\n</tool_call>\n马上好';
    expect(auto.parse({ text }, 5)).toEqual(
      ok({
        thinking: 'need stock and promos',
        // Text around blocks is concatenated as written (no whitespace collapsing).
        content: '稍等，我查一下～\n\n\n马上好',
        calls: [
          call('call_5_0', 'check_stock', { item_id: 'I1', sku_id: 'S2' }, '{"item_id":"I1","sku_id":"S2"}'),
          call('call_5_1', 'get_promotions', { item_id: 'I1' }, '{"item_id": "I1"}'),
        ],
      }),
    );
  });

  it('missing arguments count as {}', () => {
    expect(hermes.parse({ text: '<tool_call>{"name":"get_promotions"}</tool_call>' }, 0)).toEqual(
      ok({ thinking: null, content: null, calls: [call('call_0_0', 'get_promotions', {}, '{}')] }),
    );
  });

  it('broken JSON: PARSE_ERROR with the name recovered; the other call survives', () => {
    const text =
      '<tool_call>{"name": "get_product", "arguments": {"link_no": 3</tool_call>' +
      '<tool_call>{"name": "search_faq", "arguments": {"question": "尺码"}}</tool_call>';
    expect(hermes.parse({ text }, 1)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [
          bad('call_1_0', 'get_product', '{"name": "get_product", "arguments": {"link_no": 3', 'tool call is not valid JSON'),
          call('call_1_1', 'search_faq', { question: '尺码' }, '{"question":"尺码"}'),
        ],
      }),
    );
  });

  it('missing name: PARSE_ERROR with name ""', () => {
    expect(hermes.parse({ text: '<tool_call>{"arguments": {"link_no": 1}}</tool_call>' }, 0)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [bad('call_0_0', '', '{"arguments": {"link_no": 1}}', 'tool call has no "name"')],
      }),
    );
  });

  it('arguments that are not an object, or a string that is not a JSON object', () => {
    expect(
      hermes.parse({ text: '<tool_call>{"name":"a","arguments":[1]}</tool_call><tool_call>{"name":"b","arguments":"{x"}</tool_call>' }, 0),
    ).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [
          bad('call_0_0', 'a', '{"name":"a","arguments":[1]}', 'arguments must be a JSON object'),
          bad('call_0_1', 'b', '{x', 'arguments are not valid JSON'),
        ],
      }),
    );
  });

  it('unterminated block at the end (generation cut off)', () => {
    const text = '我查一下\n<tool_call>\n{"name": "list_orders", "arguments": {"viewer_id": "v1"';
    expect(hermes.parse({ text }, 3)).toEqual(
      ok({
        thinking: null,
        content: '我查一下',
        calls: [
          bad('call_3_0', 'list_orders', '{"name": "list_orders", "arguments": {"viewer_id": "v1"', 'unterminated <tool_call> block'),
        ],
      }),
    );
  });

  it('a block cut off by the next <tool_call> is unterminated; the next one still parses', () => {
    const text = '<tool_call>{"name":"a"<tool_call>{"name":"b","arguments":{}}</tool_call>';
    expect(hermes.parse({ text }, 0)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [bad('call_0_0', 'a', '{"name":"a"', 'unterminated <tool_call> block'), call('call_0_1', 'b', {}, '{}')],
      }),
    );
  });

  it('an escaped name is unescaped when recovered from broken JSON', () => {
    const r = hermes.parse({ text: '<tool_call>{"name": "a\\"b", "arguments": </tool_call>' }, 0);
    expect(r.ok && r.action.calls[0].name).toBe('a"b');
  });

  it('an XML block given to hermes is a PARSE_ERROR, not silently dropped', () => {
    const text = '<tool_call>\n<function=get_product>\n<parameter=link_no>\n3\n</parameter>\n</function>\n</tool_call>';
    const r = hermes.parse({ text }, 0);
    expect(r).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [
          bad('call_0_0', '', '<function=get_product>\n<parameter=link_no>\n3\n</parameter>\n</function>', 'tool call is not valid JSON'),
        ],
      }),
    );
  });
});

describe('qwen3_xml', () => {
  it('one call with multi-line values; one leading and one trailing newline stripped', () => {
    const text =
      '<tool_call>\n<function=search_faq>\n<parameter=question>\n能机洗吗？\n第二行\n\n</parameter>\n<parameter=item_id>\nI7\n</parameter>\n</function>\n</tool_call>';
    expect(xml.parse({ text }, 4)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [
          call(
            'call_4_0',
            'search_faq',
            { question: '能机洗吗？\n第二行\n', item_id: 'I7' },
            '<function=search_faq>\n<parameter=question>\n能机洗吗？\n第二行\n\n</parameter>\n<parameter=item_id>\nI7\n</parameter>\n</function>',
            true,
          ),
        ],
      }),
    );
  });

  it('auto routes text containing <function= to the XML parser; several calls, text around', () => {
    const text =
      '</think>\n好的<tool_call>\n<function=get_product>\n<parameter=link_no>\n3\n</parameter>\n</function>\n</tool_call>' +
      '<tool_call><function=push_link_card><parameter=link_no>3</parameter></function></tool_call>马上来';
    expect(auto.parse({ text }, 1)).toEqual(
      ok({
        thinking: null,
        content: '好的马上来',
        calls: [
          call(
            'call_1_0',
            'get_product',
            { link_no: '3' },
            '<function=get_product>\n<parameter=link_no>\n3\n</parameter>\n</function>',
            true,
          ),
          call(
            'call_1_1',
            'push_link_card',
            { link_no: '3' },
            '<function=push_link_card><parameter=link_no>3</parameter></function>',
            true,
          ),
        ],
      }),
    );
  });

  it('a call without parameters', () => {
    expect(xml.parse({ text: '<tool_call>\n<function=get_promotions>\n</function>\n</tool_call>' }, 0)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [call('call_0_0', 'get_promotions', {}, '<function=get_promotions>\n</function>', true)],
      }),
    );
  });

  it('broken structures are PARSE_ERROR calls with the recoverable name', () => {
    const cases: [string, string, string][] = [
      ['<function=a>\n<parameter=x>\n1\n</function>', 'a', 'unclosed <parameter=x>'],
      ['<function=a>\n<parameter=x>\n1\n<parameter=y>\n2\n</parameter>\n</function>', 'a', 'unclosed <parameter=x>'],
      ['<function=a>\n<parameter=x>\n1\n</parameter>', 'a', 'missing </function>'],
      ['<function=a>\njunk\n</function>', 'a', 'unexpected text outside <parameter=...> elements'],
      ['<function=a>\n<parameter=>\n1\n</parameter>\n</function>', 'a', 'invalid parameter name'],
      ['{"name": "a", "arguments": {}}', '', 'expected <function=NAME>'],
      ['<function=>\n</function>', '', 'invalid function name'],
      ['<function=a', '', 'unterminated <function=NAME> tag'],
    ];
    for (const [inner, name, message] of cases) {
      expect(xml.parse({ text: `<tool_call>\n${inner}\n</tool_call>` }, 0)).toEqual(
        ok({ thinking: null, content: null, calls: [bad('call_0_0', name, inner, message, true)] }),
      );
    }
  });

  it('unterminated XML block at the end', () => {
    const text = 'ok<tool_call>\n<function=check_stock>\n<parameter=item_id>\nI1';
    expect(auto.parse({ text }, 0)).toEqual(
      ok({
        thinking: null,
        content: 'ok',
        calls: [bad('call_0_0', 'check_stock', '<function=check_stock>\n<parameter=item_id>\nI1', 'unterminated <tool_call> block', true)],
      }),
    );
  });

  it('a parameter named __proto__ is kept as an own property', () => {
    const r = xml.parse({ text: '<tool_call><function=a><parameter=__proto__>x</parameter></function></tool_call>' }, 0);
    expect(r.ok && Object.hasOwn(r.action.calls[0].arguments ?? {}, '__proto__')).toBe(true);
    expect(r.ok && JSON.stringify(r.action.calls[0].arguments)).toBe('{"__proto__":"x"}');
  });
});

describe('openai messages', () => {
  it('message with tool_calls (one broken) and reasoning_content', () => {
    const action = {
      message: {
        role: 'assistant',
        content: '<think>also here</think>稍等',
        reasoning_content: 'reasoning',
        tool_calls: [
          { id: 'a1', type: 'function', function: { name: 'get_product', arguments: '{"link_no": 2}' } },
          { id: 'a2', type: 'function', function: { name: 'check_stock', arguments: '{"item_id": ' } },
          { id: 'a3', type: 'function', function: { name: 'get_promotions', arguments: '' } },
          { id: '', type: 'function', function: { name: 'search_faq', arguments: '"text"' } },
        ],
      },
    };
    const expected = ok({
      thinking: 'reasoning\nalso here',
      content: '稍等',
      calls: [
        call('a1', 'get_product', { link_no: 2 }, '{"link_no": 2}'),
        bad('a2', 'check_stock', '{"item_id": ', 'arguments are not valid JSON'),
        call('a3', 'get_promotions', {}, ''),
        bad('call_7_3', 'search_faq', '"text"', 'arguments must be a JSON object'),
      ],
    });
    expect(openai.parse(action, 7)).toEqual(expected);
    expect(auto.parse(action, 7)).toEqual(expected);
  });

  it('openai leaves text-form tool calls in the content (no text parsing)', () => {
    const text = '<tool_call>{"name":"a","arguments":{}}</tool_call>';
    expect(openai.parse({ text }, 0)).toEqual(ok({ thinking: null, content: text, calls: [] }));
    expect(openai.parse({ message: { role: 'assistant', content: text } }, 0)).toEqual(ok({ thinking: null, content: text, calls: [] }));
  });

  it('message with null content, null reasoning_content and null tool_calls', () => {
    expect(openai.parse({ message: { role: 'assistant', content: null, reasoning_content: null, tool_calls: null } }, 0)).toEqual(
      ok({ thinking: null, content: null, calls: [] }),
    );
  });

  it('text parsers accept a message: its tool_calls first, then the calls in its content', () => {
    const action = {
      message: {
        role: 'assistant',
        content: '看这里<tool_call>{"name":"b","arguments":{"k":1}}</tool_call>',
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'a', arguments: '{}' } }],
      },
    };
    expect(hermes.parse(action, 2)).toEqual(
      ok({ thinking: null, content: '看这里', calls: [call('x', 'a', {}, '{}'), call('call_2_1', 'b', { k: 1 }, '{"k":1}')] }),
    );
    const xmlAction = {
      message: { role: 'assistant', content: '<tool_call><function=c><parameter=k>v</parameter></function></tool_call>' },
    };
    expect(xml.parse(xmlAction, 0)).toEqual(
      ok({
        thinking: null,
        content: null,
        calls: [call('call_0_0', 'c', { k: 'v' }, '<function=c><parameter=k>v</parameter></function>', true)],
      }),
    );
  });
});

describe('invalid actions', () => {
  const cases: [string, unknown][] = [
    ['number', 5],
    ['null', null],
    ['string', 'hello'],
    ['array', [{ text: 'x' }]],
    ['empty object', {}],
    ['text not a string', { text: 5 }],
    ['both text and message', { text: 'x', message: { role: 'assistant', content: 'x' } }],
    ['message with role user', { message: { role: 'user', content: 'x' } }],
    ['message not an object', { message: 'x' }],
    ['content a number', { message: { role: 'assistant', content: 3 } }],
    ['tool call without function', { message: { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function' }] } }],
    [
      'arguments an object',
      {
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: {} } }] },
      },
    ],
    [
      'tool call type not function',
      { message: { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'code', function: { name: 'x', arguments: '{}' } }] } },
    ],
  ];
  for (const [label, action] of cases) {
    it(`${label} -> INVALID_ACTION in every parser`, () => {
      for (const p of PARSERS.values()) {
        const r = p.parse(action, 0);
        expect(r.ok).toBe(false);
        expect(!r.ok && r.code).toBe('INVALID_ACTION');
      }
    });
  }
});

describe('coerceArguments', () => {
  const parameters = {
    type: 'object',
    properties: {
      link_no: { type: 'integer' },
      price: { type: 'number' },
      flag: { type: 'boolean' },
      query: { type: 'string' },
      maybe: { type: ['integer', 'null'] },
      tags: { type: 'array', items: { type: 'integer' } },
      filter: { type: 'object', properties: { min: { type: 'number' }, name: { type: 'string' } } },
      loose: {},
    },
  };

  it('converts valid literals by the schema type and leaves the rest', () => {
    const args = {
      link_no: ' 3 ',
      price: '89.90',
      flag: 'False',
      query: '42',
      maybe: 'null',
      tags: '["1", 2]',
      filter: '{"min": "10", "name": "7", "extra": "5"}',
      loose: '12',
      unknown: '99',
    };
    expect(coerceArguments(args, parameters)).toEqual({
      link_no: 3,
      price: 89.9,
      flag: false,
      query: '42',
      maybe: null,
      tags: [1, 2],
      filter: { min: 10, name: '7', extra: '5' },
      loose: '12',
      unknown: '99',
    });
  });

  it('invalid literals stay strings so validation reports them', () => {
    const args = { link_no: 'three', price: '0x10', flag: 'yes', tags: '[1,', filter: '[1]', maybe: 'Infinity' };
    expect(coerceArguments(args, parameters)).toEqual(args);
  });

  it('a non-integer number literal for an integer becomes a number (validation rejects it)', () => {
    expect(coerceArguments({ link_no: '3.5', price: '-1e2' }, parameters)).toEqual({ link_no: 3.5, price: -100 });
  });

  it('nested objects given as values are coerced through their properties', () => {
    expect(coerceArguments({ filter: { min: '1.5', name: 'x' } }, parameters)).toEqual({ filter: { min: 1.5, name: 'x' } });
  });

  it('keeps key order, returns a new object and leaves the input untouched', () => {
    const args = { query: 'a', link_no: '2' };
    const out = coerceArguments(args, parameters);
    expect(Object.keys(out)).toEqual(['query', 'link_no']);
    expect(out).not.toBe(args);
    expect(args).toEqual({ query: 'a', link_no: '2' });
  });

  it('a schema without properties leaves every value as is', () => {
    expect(coerceArguments({ a: '1' }, { type: 'object' })).toEqual({ a: '1' });
  });

  it('coerced XML calls equal the same call written in Hermes form', () => {
    const schema = { type: 'object', properties: { link_no: { type: 'integer' }, item_id: { type: 'string' } } };
    const x = xml.parse(
      { text: '<tool_call><function=f><parameter=link_no>\n12\n</parameter><parameter=item_id>\n12\n</parameter></function></tool_call>' },
      0,
    );
    const h = hermes.parse({ text: '<tool_call>{"name":"f","arguments":{"link_no":12,"item_id":"12"}}</tool_call>' }, 0);
    expect(x.ok && h.ok).toBe(true);
    if (x.ok && h.ok) expect(coerceArguments(x.action.calls[0].arguments ?? {}, schema)).toEqual(h.action.calls[0].arguments);
  });
});

describe('properties', () => {
  const tokens = fc.constantFrom(
    '<think>',
    '</think>',
    '<tool_call>',
    '</tool_call>',
    '<function=get_product>',
    '<function=',
    '</function>',
    '<parameter=link_no>',
    '<parameter=',
    '</parameter>',
    '{"name": "a", "arguments": {"x": 1}}',
    '{"name": "',
    '"arguments": "{}"',
    '{',
    '}',
    '"',
    '>',
    '\n',
    ' ',
    '好的',
    '12',
  );
  const tagSoup = fc.array(fc.oneof(tokens, fc.string({ maxLength: 5 })), { maxLength: 30 }).map((parts) => parts.join(''));

  function neverThrows(action: unknown, turn: number): void {
    for (const p of PARSERS.values()) {
      const r = p.parse(action, turn);
      expect(typeof r.ok).toBe('boolean');
      if (r.ok) {
        // The result must be plain JSON data: it travels in observations and traces.
        expect(JSON.parse(JSON.stringify(r))).toEqual(r);
        if (r.action.content !== null) expect(r.action.content).toBe(r.action.content.trim());
      }
    }
  }

  it('parse never throws on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (v, turn) => neverThrows(v, turn)),
      { numRuns: 300 },
    );
  });

  it('parse never throws on arbitrary strings and tag soup, as text or message content', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), tagSoup), fc.nat(20), (text, turn) => {
        neverThrows({ text }, turn);
        neverThrows({ message: { role: 'assistant', content: text, reasoning_content: text } }, turn);
        neverThrows(
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: '', type: 'function', function: { name: text, arguments: text } }],
            },
          },
          turn,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('parse is deterministic', () => {
    fc.assert(
      fc.property(tagSoup, (text) => {
        for (const p of PARSERS.values()) expect(JSON.stringify(p.parse({ text }, 3))).toBe(JSON.stringify(p.parse({ text }, 3)));
      }),
      { numRuns: 200 },
    );
  });

  const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
  const plainValue = fc.string({ maxLength: 20 }).filter((s) => !s.includes('<') && !s.includes('>'));

  it('hermes round-trips well-formed calls written around text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: ident, args: fc.dictionary(ident, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        plainValue,
        (calls, before) => {
          const text =
            before + calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n');
          const r = hermes.parse({ text }, 9);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          expect(r.action.content).toBe(before.trim() === '' ? null : before.trim());
          expect(r.action.calls.map((c) => [c.id, c.name, c.arguments, c.error])).toEqual(
            calls.map((c, i) => [`call_9_${i}`, c.name, JSON.parse(JSON.stringify(c.args)), undefined]),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('qwen3_xml round-trips well-formed calls with tag-free string values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: ident, args: fc.dictionary(ident, plainValue, { maxKeys: 4 }) }), { minLength: 1, maxLength: 4 }),
        (calls) => {
          const text = calls
            .map(
              (c) =>
                `<tool_call>\n<function=${c.name}>\n` +
                Object.entries(c.args)
                  .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
                  .join('') +
                '</function>\n</tool_call>',
            )
            .join('\n');
          const r = auto.parse({ text }, 0);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          expect(r.action.content).toBeNull();
          expect(r.action.calls.map((c) => [c.name, c.arguments, c.untyped, c.error])).toEqual(
            calls.map((c) => [c.name, c.args, true, undefined]),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('coerceArguments never throws on arbitrary arguments and schemas', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()), (args, schema) => {
        coerceArguments(args, schema);
        coerceArguments(args, {
          properties: Object.fromEntries(Object.keys(args).map((k) => [k, { type: ['integer', 'boolean', 'object', 'array', 'null'] }])),
        });
      }),
      { numRuns: 300 },
    );
  });
});
