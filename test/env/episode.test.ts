import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MsgpackCodec } from '../../protocol/codec.js';
import { HarnessGymEnv, createEpisode, defaultEnvConfig } from '../../env/index.js';
import type { Episode } from '../../env/index.js';
import { EnvError } from '../../protocol/errors.js';
import { oraclePolicy, randomPolicy } from '../../policies/index.js';
import type { Policy } from '../../policies/index.js';

const config = defaultEnvConfig();

function episodeFor(seed: number, options: Record<string, unknown> = {}, task?: Record<string, unknown>): Episode {
  const created = createEpisode(config, { episode_id: 't', seed, options, task });
  if (!created.ok) throw new Error(created.error.message);
  return created.episode;
}

function call(name: string, args: unknown, id = 'c1') {
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    },
  };
}

function reply(text: string) {
  return { message: { role: 'assistant', content: text } };
}

/** Play a policy to the end; return every step's output packed, for byte comparison. */
function playPacked(policy: Policy, seed: number, options: Record<string, unknown> = {}): Buffer {
  const ep = episodeFor(seed, options);
  const first = ep.reset();
  const p = ep.params;
  const inst = policy.start({
    seed,
    parser: 'openai',
    observation: first.observation,
    info: first.info,
    privileged: { task: p.task, map: p.map, harness: p.harness },
  });
  const outputs: unknown[] = [first];
  let obs = first.observation;
  let info = first.info;
  for (let i = 0; i < 40 && !ep.ended; i++) {
    const r = ep.step(inst.act(obs, info));
    outputs.push(r);
    if (r.ok) {
      obs = r.observation;
      info = r.info;
    }
  }
  return new MsgpackCodec().pack(outputs);
}

describe('reset', () => {
  it('returns the system prompt, the history, the viewer message and the tools, with the required info', () => {
    const ep = episodeFor(3);
    const { observation, info } = ep.reset();
    const task = ep.params.task;
    expect(observation.messages[0].role).toBe('system');
    expect(observation.messages.at(-1)).toEqual({ role: 'user', content: task.messages.join('\n') });
    expect(observation.messages.length).toBe(2 + task.history.length);
    // The marketing tools arrive later, through MCP discovery (test/mcp/discovery.test.ts).
    const marketing = ['get_promotions', 'get_coupon', 'issue_coupon'];
    expect(observation.tools?.map((t) => t.function.name)).toEqual(
      ep.params.harness.tools.map((t) => t.function.name).filter((n) => !marketing.includes(n)),
    );
    expect(info).toEqual({ task_id: task.id, intent: task.intent, variant_id: 'identity', turn: 0 });
  });

  it('unknown parser, reward profile and variant are typed errors', () => {
    expect(createEpisode(config, { episode_id: 'x', seed: 1, options: { parser: 'nope' } })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
    expect(createEpisode(config, { episode_id: 'x', seed: 1, options: { rewards: 'nope' } })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
    expect(createEpisode(config, { episode_id: 'x', seed: 1, variant: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_VARIANT' },
    });
    expect(createEpisode(config, { episode_id: 'x', seed: 1, task: { id: 'no-such-task' } })).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_TASK' },
    });
    expect(createEpisode(config, { episode_id: 'x', seed: 1, options: { faults: 2 } })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
  });

  it('an unknown intent is INVALID_MESSAGE naming the intents the harness serves (docs/HARNESS.md "Intents of your own")', () => {
    expect(createEpisode(config, { episode_id: 'x', seed: 1, task: { intent: 'foo' as never } })).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_MESSAGE',
        message: 'unknown intent "foo"; harness "live-commerce" serves product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff in zh-CN',
      },
    });
  });
});

describe('step', () => {
  it('an unknown tool, broken JSON and schema failures become tool messages with typed codes, not wire errors', () => {
    const ep = episodeFor(5);
    ep.reset();
    const r = ep.step({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'no_such_tool', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'get_product', arguments: '{"link_no": ' } },
          { id: 'c', type: 'function', function: { name: 'get_product', arguments: '{"link_no": "three"}' } },
        ],
      },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.info.tool_errors).toEqual([
      { tool_call_id: 'a', code: 'UNKNOWN_TOOL' },
      { tool_call_id: 'b', code: 'PARSE_ERROR' },
      { tool_call_id: 'c', code: 'INVALID_ARGUMENTS' },
    ]);
    expect(r.info.hook_violations).toEqual([{ hook: 'tool_args', code: 'INVALID_ARGUMENTS' }]);
    expect(r.observation.messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'a'],
      ['tool', 'b'],
      ['tool', 'c'],
    ]);
    const c = JSON.parse(r.observation.messages[2].content ?? '{}');
    expect(c.error.code).toBe('INVALID_ARGUMENTS');
    expect(c.error.field).toBe('link_no');
    expect(r.reward).toBe(0);
    expect(r.terminated || r.truncated).toBe(false);
  });

  it('an invalid action is an item error and leaves the episode unchanged', () => {
    const ep = episodeFor(6);
    ep.reset();
    expect(ep.step({ nonsense: true })).toMatchObject({ ok: false, error: { code: 'INVALID_ACTION' } });
    expect(ep.turn).toBe(0);
  });

  it('a reply before any reply skill is loaded gets hook feedback, then a retry, then blocks', () => {
    const ep = episodeFor(7);
    ep.reset();
    const first = ep.step(reply('好的'));
    expect(first).toMatchObject({ ok: true, terminated: false, truncated: false });
    if (!first.ok) return;
    expect(first.info.hook_violations).toEqual([{ hook: 'skill_required', code: 'SKILL_NOT_LOADED' }]);
    expect(first.observation.messages).toHaveLength(1);
    expect(first.observation.messages[0].role).toBe('user');
    const second = ep.step(reply('好的'));
    expect(second).toMatchObject({ ok: true, terminated: true, truncated: false, info: { outcome: 'hook_blocked' } });
    expect(ep.step(reply('好的'))).toMatchObject({ ok: false, error: { code: 'RESET_NEEDED' } });
  });

  it('truncates at the turn cap with max_turns', () => {
    const ep = episodeFor(8, { max_turns: 2 });
    ep.reset();
    expect(ep.step(call('load_skill', { name: 'product-qa' }))).toMatchObject({ ok: true, truncated: false });
    const last = ep.step(call('load_skill', { name: 'chitchat' }));
    expect(last).toMatchObject({ ok: true, terminated: false, truncated: true, info: { outcome: 'max_turns' } });
  });

  it('truncates when tool errors reach max_errors', () => {
    const ep = episodeFor(9);
    ep.reset();
    let last;
    for (let i = 0; i < 3; i++)
      last = ep.step({
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [1, 2].map((j) => ({ id: `x${i}${j}`, type: 'function', function: { name: 'nope', arguments: '{}' } })),
        },
      });
    expect(last).toMatchObject({ ok: true, truncated: true, info: { outcome: 'error_cap' } });
  });

  it('load_skill returns the skill body; an unknown skill is NOT_FOUND', () => {
    const ep = episodeFor(10);
    ep.reset();
    const r = ep.step({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 's1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } },
          { id: 's2', type: 'function', function: { name: 'load_skill', arguments: '{"name":"no-such-skill"}' } },
        ],
      },
    });
    if (!r.ok) throw new Error('step failed');
    const body = ep.params.harness.skills.find((s) => s.name === 'product-qa')?.body;
    expect(r.observation.messages[0]).toEqual({ role: 'tool', tool_call_id: 's1', content: body });
    expect(r.info.tool_errors).toEqual([{ tool_call_id: 's2', code: 'NOT_FOUND' }]);
  });

  it('full observations hold the whole conversation with the agent turns as parsed', () => {
    const ep = episodeFor(11, { observation: 'full' });
    const first = ep.reset();
    const r = ep.step({ text: '<think>想一想</think><tool_call>{"name":"load_skill","arguments":{"name":"chitchat"}}</tool_call>' });
    if (!r.ok) throw new Error('step failed');
    expect(r.info.thinking).toBe('想一想');
    expect(r.observation.messages.slice(0, first.observation.messages.length)).toEqual(first.observation.messages);
    expect(r.observation.messages[first.observation.messages.length]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'load_skill', arguments: '{"name":"chitchat"}' } }],
    });
  });
});

describe('HarnessGymEnv', () => {
  it('step before reset and after the end throw RESET_NEEDED; reset errors throw their code', () => {
    const env = new HarnessGymEnv();
    expect(() => env.step(reply('hi'))).toThrowError(EnvError);
    try {
      env.step(reply('hi'));
    } catch (e) {
      expect((e as EnvError).code).toBe('RESET_NEEDED');
    }
    try {
      env.reset({ seed: 1, options: { variant: 'no-such-preset' } });
      expect.unreachable();
    } catch (e) {
      expect((e as EnvError).code).toBe('INVALID_VARIANT');
    }
  });
});

describe('determinism', () => {
  it('same seed and same actions give byte-identical observations, rewards and info (oracle and random, many seeds)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.constantFrom<Policy>(oraclePolicy, randomPolicy),
        fc.constantFrom('zh-CN', 'en'),
        (seed, policy, locale) => {
          const a = playPacked(policy, seed, { locale });
          const b = playPacked(policy, seed, { locale });
          expect(a.equals(b)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('different seeds give different tasks', () => {
    const ids = new Set<string>();
    for (let s = 0; s < 30; s++) ids.add(episodeFor(s).params.task.id);
    expect(ids.size).toBe(30);
  });
});
