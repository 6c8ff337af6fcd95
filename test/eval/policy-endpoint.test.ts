/**
 * The `harness-gym policy` endpoint (eval/policy-endpoint.ts) answered directly (fastify's inject, no
 * socket), whole replies compared: a tool-call reply, a text reply, the logprobs' shape, n > 1, streamed chunks, /v1/models,
 * /healthz, and the error JSON of bad requests (OpenAI's shape, never a stack). And the replay: played
 * through the endpoint, a policy that reads the conversation acts turn for turn as it acts in-process, with
 * injected faults (failed calls read off the tool results).
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSchema } from '../../protocol/domain.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { BLIND_POLICIES, POLICIES } from '../../policies/index.js';
import type { Policy } from '../../policies/index.js';
import { ORACLE_ACTION_HEADER, completionToAction } from '../../client/index.js';
import { PolicyEndpoint, buildPolicyEndpoint, conversationSeed, tokenize, toolErrorsOf } from '../../eval/index.js';

const NOW = () => 1_700_000_000;
const SYSTEM: ChatMessage = { role: 'system', content: 'You are the host. Skills: product-qa: answer product questions' };
const USER: ChatMessage = { role: 'user', content: 'how much is it?' };
const TOOLS: ToolSchema[] = [
  { type: 'function', function: { name: 'load_skill', description: 'load a skill', parameters: { type: 'object', properties: { name: { type: 'string' } } } } },
];
const CALL = { id: 'call_1_0', type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } };

async function post(app: ReturnType<typeof buildPolicyEndpoint>, body: unknown, headers: Record<string, string> = {}) {
  const r = await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: body as object, headers });
  return { status: r.statusCode, json: r.json() as unknown };
}

describe('harness-gym policy: the endpoint', () => {
  const oracle = buildPolicyEndpoint({ policy: 'oracle', model: 'hg-oracle', now: NOW });

  it('a tool-call reply (the oracle action from the header), whole', async () => {
    const action = { message: { role: 'assistant', content: null, tool_calls: [CALL] } };
    const r = await post(oracle, { model: 'hg-oracle', messages: [SYSTEM, USER], tools: TOOLS, temperature: 0.7, tool_choice: 'auto' }, {
      [ORACLE_ACTION_HEADER]: encodeURIComponent(JSON.stringify(action)),
    });
    expect(r).toEqual({
      status: 200,
      json: {
        id: 'chatcmpl-hgym-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'hg-oracle',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [CALL] }, logprobs: null, finish_reason: 'tool_calls' }],
        // Prompt: "You are the host. Skills: product-qa: answer product questions" (9) + "how much is it?" (4).
        // Completion: {"name":"load_skill","arguments":{"name":"product-qa"}}, one piece.
        usage: { prompt_tokens: 13, completion_tokens: 1, total_tokens: 14 },
      },
    });
    // What rollout makes of it: the structured action.
    expect(completionToAction(r.json)?.action).toEqual({ message: { role: 'assistant', content: null, tool_calls: [CALL] } });
  });

  it('a text reply with logprobs, n = 2 (the oracle action from the body field), whole', async () => {
    const r = await post(oracle, {
      model: 'hg-oracle',
      messages: [SYSTEM, USER],
      n: 2,
      logprobs: true,
      top_logprobs: 2,
      harness_gym_oracle_action: { message: { role: 'assistant', content: '99 yuan, 亲' } },
    });
    const tok = (token: string) => ({ token, logprob: 0, bytes: [...Buffer.from(token, 'utf8')], top_logprobs: [{ token, logprob: 0, bytes: [...Buffer.from(token, 'utf8')] }] });
    const choice = (index: number) => ({
      index,
      message: { role: 'assistant', content: '99 yuan, 亲' },
      logprobs: { content: [tok('99 '), tok('yuan, '), tok('亲')], refusal: null },
      finish_reason: 'stop',
    });
    expect(r).toEqual({
      status: 200,
      json: {
        id: 'chatcmpl-hgym-2',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'hg-oracle',
        choices: [choice(0), choice(1)],
        usage: { prompt_tokens: 13, completion_tokens: 6, total_tokens: 19 },
      },
    });
    // A raw-text action (Hermes / Qwen3 XML parsers) is the content, as a model writing tool calls as text says it.
    const text = await post(oracle, { model: 'hg-oracle', messages: [SYSTEM, USER], harness_gym_oracle_action: { text: '<tool_call>\n{}\n</tool_call>' } });
    expect((text.json as { choices: unknown[] }).choices).toEqual([
      { index: 0, message: { role: 'assistant', content: '<tool_call>\n{}\n</tool_call>' }, logprobs: null, finish_reason: 'stop' },
    ]);
  });

  it('tokens concatenate to the text; logprobs: [] without top_logprobs', async () => {
    for (const s of ['', '  lead', 'a b  c\n', '亲，这款 99 元', 'x']) expect(tokenize(s).join('')).toBe(s);
    const r = await post(oracle, { model: 'hg-oracle', messages: [USER], logprobs: true, harness_gym_oracle_action: { message: { role: 'assistant', content: 'ok' } } });
    expect((r.json as { choices: { logprobs: unknown }[] }).choices[0].logprobs).toEqual({ content: [{ token: 'ok', logprob: 0, bytes: [111, 107], top_logprobs: [] }], refusal: null });
  });

  it('stream: true answers OpenAI\'s server-sent chunks, whole; reassembled they are the completion', async () => {
    const sse = async (body: unknown): Promise<{ type: string; data: unknown[] }> => {
      const r = await oracle.inject({ method: 'POST', url: '/v1/chat/completions', payload: body as object });
      expect(r.statusCode).toBe(200);
      const events = r.body.split('\n\n').filter((e) => e !== '');
      expect(events.at(-1)).toBe('data: [DONE]');
      return { type: String(r.headers['content-type']), data: events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')) as unknown) };
    };
    const text = await sse({
      model: 'hg-oracle',
      messages: [USER],
      stream: true,
      stream_options: { include_usage: true },
      logprobs: true,
      harness_gym_oracle_action: { message: { role: 'assistant', content: 'hi there' } },
    });
    const head = { object: 'chat.completion.chunk', created: 1_700_000_000, model: 'hg-oracle' };
    const id = (text.data[0] as { id: string }).id;
    const tok = (token: string) => ({ content: [{ token, logprob: 0, bytes: [...Buffer.from(token, 'utf8')], top_logprobs: [] }], refusal: null });
    expect(text).toEqual({
      type: 'text/event-stream; charset=utf-8',
      data: [
        { id, ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], usage: null },
        { id, ...head, choices: [{ index: 0, delta: { content: 'hi ' }, logprobs: tok('hi '), finish_reason: null }], usage: null },
        { id, ...head, choices: [{ index: 0, delta: { content: 'there' }, logprobs: tok('there'), finish_reason: null }], usage: null },
        { id, ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], usage: null },
        { id, ...head, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } },
      ],
    });
    // A tool-call reply, n = 2: the deltas of each choice put back together are its message.
    const action = { message: { role: 'assistant', content: null, tool_calls: [CALL, { ...CALL, id: 'call_1_1' }] } };
    const calls = await sse({ model: 'hg-oracle', messages: [USER], stream: true, n: 2, harness_gym_oracle_action: action });
    const whole = await post(oracle, { model: 'hg-oracle', messages: [USER], n: 2, harness_gym_oracle_action: action });
    const rebuilt = [0, 1].map((index) => {
      const msg: { role?: string; content: string | null; tool_calls: { id?: string; type?: string; function: { name: string; arguments: string } }[] } = { content: null, tool_calls: [] };
      let finish: unknown = null;
      for (const k of calls.data as { choices: { index: number; delta: Record<string, unknown>; finish_reason: unknown }[] }[]) {
        for (const c of k.choices.filter((c) => c.index === index)) {
          if (c.delta.role) msg.role = c.delta.role as string;
          for (const t of (c.delta.tool_calls ?? []) as { index: number; id?: string; type?: string; function: { name?: string; arguments: string } }[]) {
            const slot = (msg.tool_calls[t.index] ??= { function: { name: '', arguments: '' } });
            if (t.id) slot.id = t.id;
            if (t.type) slot.type = t.type;
            if (t.function.name) slot.function.name = t.function.name;
            slot.function.arguments += t.function.arguments;
          }
          if (c.finish_reason) finish = c.finish_reason;
        }
      }
      return { index, message: msg, logprobs: null, finish_reason: finish };
    });
    expect(rebuilt).toEqual((whole.json as { choices: unknown[] }).choices);
  });

  it('/v1/models, /v1/models/:id and /healthz, whole', async () => {
    const models = await oracle.inject({ method: 'GET', url: '/v1/models' });
    expect({ status: models.statusCode, json: models.json() }).toEqual({
      status: 200,
      json: { object: 'list', data: [{ id: 'hg-oracle', object: 'model', created: 1_700_000_000, owned_by: 'harness-gym' }] },
    });
    const one = await oracle.inject({ method: 'GET', url: '/v1/models/hg-oracle' });
    expect(one.json()).toEqual({ id: 'hg-oracle', object: 'model', created: 1_700_000_000, owned_by: 'harness-gym' });
    const health = await oracle.inject({ method: 'GET', url: '/healthz' });
    expect({ status: health.statusCode, json: health.json() }).toEqual({ status: 200, json: { status: 'ok', policy: 'oracle', model: 'hg-oracle' } });
  });

  it('bad requests: OpenAI error JSON, 400 (404 for a model or route that does not exist), never a stack', async () => {
    const err = (status: number, message: string, param: string | null, code: string | null = null, type = 'invalid_request_error') => ({
      status,
      json: { error: { message, type, param, code } },
    });
    const ok = { model: 'hg-oracle', messages: [USER], harness_gym_oracle_action: { text: 'hi' } };
    expect(await post(oracle, { ...ok, stream: 'yes' })).toEqual(err(400, 'stream must be a boolean', 'stream'));
    expect(await post(oracle, { ...ok, n: 0 })).toEqual(err(400, 'n must be an integer in [1, 128], got 0', 'n'));
    expect(await post(oracle, { ...ok, messages: [] })).toEqual(err(400, 'messages must be a non-empty array', 'messages'));
    expect(await post(oracle, { ...ok, messages: [{ role: 'robot', content: 'x' }] })).toEqual(
      err(400, 'messages[0].role must be one of system, developer, user, assistant, tool, got "robot"', 'messages[0].role'),
    );
    expect(await post(oracle, { ...ok, top_logprobs: 3 })).toEqual(err(400, 'top_logprobs needs logprobs: true', 'top_logprobs'));
    expect(await post(oracle, { ...ok, model: 'gpt-4o' })).toEqual(
      err(404, 'The model `gpt-4o` does not exist: this endpoint serves `hg-oracle` (harness-gym policy oracle)', 'model', 'model_not_found'),
    );
    expect(await post(oracle, { model: 'hg-oracle', messages: [SYSTEM, USER] })).toEqual(
      err(
        400,
        "policy oracle needs the episode's oracle action, which the conversation does not carry: send the environment's info.oracle_action with each request, " +
          `in the ${ORACLE_ACTION_HEADER} header (URI-encoded JSON; harness-gym rollout --oracle-hints sends it) or as the body field harness_gym_oracle_action; ` +
          'the environment gives it only to resets with options.oracle_hints on a server started with --allow-oracle-hints',
        'harness_gym_oracle_action',
        'policy_needs_context',
      ),
    );
    // A body that is not JSON is fastify's 400, in OpenAI's shape.
    const notJson = await oracle.inject({ method: 'POST', url: '/v1/chat/completions', payload: '{"model":', headers: { 'content-type': 'application/json' } });
    expect(notJson.statusCode).toBe(400);
    expect(Object.keys(notJson.json() as object)).toEqual(['error']);
    expect((notJson.json() as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect(notJson.body).not.toMatch(/\bat .*\.(?:js|ts):\d+/);
    const route = await oracle.inject({ method: 'POST', url: '/v1/completions', payload: {} });
    expect({ status: route.statusCode, json: route.json() }).toEqual(
      err(404, 'no route POST /v1/completions: this endpoint serves POST /v1/chat/completions, GET /v1/models, GET /healthz', null, 'not_found'),
    );
  });

  it('the memorizer refuses what it cannot play from: no system prompt, a conversation it did not play', async () => {
    const memo = buildPolicyEndpoint({ policy: 'memorizer', model: 'm', now: NOW });
    expect(await post(memo, { model: 'm', messages: [USER] })).toEqual({
      status: 400,
      json: {
        error: {
          message: 'policy memorizer reads the conversation from its start, which must hold a system message (the harness prompt) before the first assistant turn; this one does not',
          type: 'invalid_request_error',
          param: 'messages',
          code: 'policy_needs_context',
        },
      },
    });
    const foreign = [SYSTEM, USER, { role: 'assistant', content: null, tool_calls: [{ ...CALL, function: { name: 'get_product', arguments: '{"x":1}' } }] }, { role: 'tool', tool_call_id: 'call_1_0', content: '{}' }];
    expect(await post(memo, { model: 'm', messages: foreign })).toEqual({
      status: 400,
      json: {
        error: {
          message: 'policy memorizer plays only conversations it played itself (it keeps state in what it said): messages[2] is not what it answers there',
          type: 'invalid_request_error',
          param: 'messages[2]',
          code: 'policy_conversation_mismatch',
        },
      },
    });
    // random reads the tools alone: any conversation; its n choices are drawn from their own seeds, the same request the same answer.
    const random = buildPolicyEndpoint({ policy: 'random', model: 'r', now: NOW });
    const a = await post(random, { model: 'r', messages: [USER], tools: TOOLS, n: 8 });
    const b = await post(random, { model: 'r', messages: [USER], tools: TOOLS, n: 8 });
    const choices = (x: typeof a) => (x.json as { choices: unknown[] }).choices;
    expect(a.status).toBe(200);
    expect(choices(a)).toEqual(choices(b));
    expect(new Set(choices(a).map((c) => JSON.stringify(c))).size).toBeGreaterThan(1);
  });

  it('failed calls read off the tool results: {"error": {"code"}}, or JSON cut short; a skill (Markdown) is no failure', () => {
    expect(
      toolErrorsOf([
        { role: 'tool', tool_call_id: 'a', content: '{"error":{"code":"TIMEOUT","message":"x"}}' },
        { role: 'tool', tool_call_id: 'b', content: '{"items":[1,2' },
        { role: 'tool', tool_call_id: 'c', content: '# Product Q&A\nAnswer...' },
        { role: 'tool', tool_call_id: 'd', content: '{"price":99}' },
      ]),
    ).toEqual([
      { tool_call_id: 'a', code: 'TIMEOUT' },
      { tool_call_id: 'b', code: 'MALFORMED_OUTPUT' },
    ]);
  });

  // Played through the endpoint as rollout plays (the history grows by the model's message and the
  // environment's deltas), a conversation-reading policy sends the actions it sends in-process.
  const config = defaultEnvConfig();
  const cases: [string, Policy][] = [
    ['memorizer', POLICIES.get('memorizer') as Policy],
    ['skill_spam_then_price', BLIND_POLICIES.get('skill_spam_then_price') as Policy],
    ['lookup_and_dump', BLIND_POLICIES.get('lookup_and_dump') as Policy],
  ];
  for (const [name, policy] of cases) {
    it(`replay: ${name} through the endpoint acts as in-process, turn for turn (faults injected, train variants)`, () => {
      const endpoint = new PolicyEndpoint({ policy: name, model: name, now: NOW });
      let turns = 0;
      let failedCalls = 0;
      for (let seed = 1; seed <= 24; seed++) {
        const made = (): ReturnType<typeof createEpisode> => createEpisode(config, { episode_id: 'e', seed, variant: seed % 2 ? 'train' : 'identity', options: { faults: 0.3 } });
        const direct = made();
        const viaEndpoint = made();
        if (!direct.ok || !viaEndpoint.ok) throw new Error('episode not created');
        const r0 = direct.episode.reset();
        const r1 = viaEndpoint.episode.reset();
        // In-process, with the seed the endpoint derives from the conversation (the blind strategies draw from it).
        const history: ChatMessage[] = r1.observation.messages.slice();
        let tools = r1.observation.tools ?? [];
        const inst = policy.start({ seed: conversationSeed(history), parser: 'openai', observation: r0.observation, info: r0.info });
        let obs = r0.observation;
        let info = r0.info as Record<string, unknown>;
        for (let t = 0; t < 12; t++) {
          const want = inst.act(obs, info);
          const reply = endpoint.complete({ model: name, messages: history, tools });
          const got = completionToAction(reply);
          if (got === null) throw new Error('no message');
          expect(normal(got.action), `seed ${seed} turn ${t + 1}`).toEqual(normal(want));
          const a = direct.episode.step(want);
          const b = viaEndpoint.episode.step(got.action);
          if (!a.ok || !b.ok) throw new Error('step refused');
          turns++;
          failedCalls += ((a.info as { tool_errors?: unknown[] }).tool_errors ?? []).length;
          if (a.terminated || a.truncated) break;
          history.push(got.message, ...b.observation.messages);
          if (b.observation.tools) tools = b.observation.tools;
          obs = a.observation;
          info = a.info as Record<string, unknown>;
        }
      }
      expect(turns).toBeGreaterThan(24);
      expect(failedCalls).toBeGreaterThan(0);
    });
  }
});

/** An action's calls (names and parsed arguments) or its text: ids aside. */
function normal(action: unknown): unknown {
  const m = (action as { message?: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] } }).message;
  if (!m) return action;
  const calls = (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments) as unknown]);
  return calls.length > 0 ? { calls } : { text: m.content ?? '' };
}
