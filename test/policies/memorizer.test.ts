import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HarnessGymEnv } from '../../env/index.js';
import { evaluate } from '../../eval/index.js';
import { memorizerPolicy } from '../../policies/memorizer.js';
import type { EpisodeStart, PolicyObservation } from '../../policies/policy.js';
import { parseRoom } from '../../policies/memorizer-room.js';
import { classify } from '../../policies/memorizer-script.js';
import type { Locale } from '../../protocol/domain.js';
import { CANONICAL_TOOLS, REPLY_SKILLS as BASE_REPLY_SKILLS } from '../../harness/index.js';

/** Play one identity episode; returns every action the memorizer took and the final reward. */
function play(
  seed: number,
  opts: { locale?: Locale; parser?: string; tamper?: (s: EpisodeStart) => EpisodeStart } = {},
): { actions: unknown[]; reward: number } {
  const env = new HarnessGymEnv();
  const options: Record<string, unknown> = { variant: 'identity' };
  if (opts.locale) options.locale = opts.locale;
  if (opts.parser) options.parser = opts.parser;
  const { observation, info } = env.reset({ seed, options });
  let start: EpisodeStart = { seed, parser: opts.parser ?? 'openai', observation, info, privileged: undefined };
  if (opts.tamper) start = opts.tamper(start);
  const instance = memorizerPolicy.start(start);
  const actions: unknown[] = [];
  let obs: PolicyObservation = observation;
  let inf = info;
  for (let i = 0; i < 16; i++) {
    const action = instance.act(obs, inf);
    actions.push(action);
    const out = env.step(action);
    obs = out.observation;
    inf = out.info;
    if (out.terminated || out.truncated) return { actions, reward: out.reward };
  }
  return { actions, reward: 0 };
}

/** A privileged context that fails the test the moment anything reads it. */
function trap(): never {
  return new Proxy(
    {},
    {
      get(_t, key) {
        throw new Error(`the memorizer read privileged context (${String(key)})`);
      },
      has(_t, key) {
        throw new Error(`the memorizer probed privileged context (${String(key)})`);
      },
    },
  ) as never;
}

describe('memorizer policy', () => {
  it('is a non-privileged reference policy named memorizer', () => {
    expect({ name: memorizerPolicy.name, privileged: memorizerPolicy.privileged }).toEqual({ name: 'memorizer', privileged: false });
  });

  it('takes the same actions for the same seed (property over seeds, locales and parsers)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom<Locale>('zh-CN', 'en'),
        fc.constantFrom('openai', 'hermes', 'qwen3_xml'),
        (seed, locale, parser) => {
          const a = play(seed, { locale, parser });
          const b = play(seed, { locale, parser });
          expect(JSON.stringify(b)).toBe(JSON.stringify(a));
        },
      ),
      { numRuns: 25, seed: 7 },
    );
  });

  it('never touches privileged context and ignores the offered tool list and info', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const plain = play(seed);
      // Privileged context that throws on any access, no tool list, no info: the same actions.
      const blind = play(seed, {
        tamper: (s) => ({ ...s, privileged: trap(), info: {}, observation: { messages: s.observation.messages } }),
      });
      expect(blind.actions).toEqual(plain.actions);
      // Tools renamed in the observation: it still calls the base names (it memorised them).
      const renamed = play(seed, {
        tamper: (s) => ({
          ...s,
          observation: {
            messages: s.observation.messages,
            tools: (s.observation.tools ?? []).map((t) => ({ ...t, function: { ...t.function, name: `x_${t.function.name}` } })),
          },
        }),
      });
      expect(renamed.actions).toEqual(plain.actions);
    }
  });

  it('writes base-harness tool and skill names, loading a reply skill on its first turn', () => {
    // The base harness's own names: the memorizer must never write anything else.
    const TOOLS = new Set<string>(CANONICAL_TOOLS);
    const REPLY_SKILLS = new Set<string>(BASE_REPLY_SKILLS);
    const names = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) {
      const { actions } = play(seed);
      const turns = actions.map(
        (a) => (a as { message: { tool_calls?: { function: { name: string; arguments: string } }[] } }).message.tool_calls ?? [],
      );
      const first = turns[0].filter((c) => c.function.name === 'load_skill').map((c) => JSON.parse(c.function.arguments).name as string);
      expect(first.length).toBeGreaterThan(0);
      for (const s of first) expect(REPLY_SKILLS.has(s), s).toBe(true);
      for (const t of turns) for (const c of t) names.add(c.function.name);
    }
    expect([...names].filter((n) => !TOOLS.has(n))).toEqual([]);
    // Thirty episodes of the production mix reach well beyond the skill loader.
    expect(names.size).toBeGreaterThan(3);
  });

  it('reads the base prompt layout: lineup, current product, viewer', () => {
    const env = new HarnessGymEnv();
    const { observation } = env.reset({ seed: 3, options: { variant: 'identity' } });
    const world = env.episode!.world;
    const task = env.episode!.params.task;
    const room = parseRoom(observation.messages[0].content ?? '');
    const current = world.products.find((p) => p.link_no === world.room.current_link)!;
    expect({
      locale: room.locale,
      lineup: room.lineup,
      current: room.current && { link_no: room.current.link_no, item_id: room.current.item_id, live_price: room.current.live_price },
      viewer_id: room.viewer_id,
      now: room.now,
      persona: room.persona,
    }).toEqual({
      locale: 'zh-CN',
      lineup: world.products.map((p) => ({ link_no: p.link_no, title: p.title, item_id: p.item_id })),
      current: { link_no: current.link_no, item_id: current.item_id, live_price: String(current.live_price) },
      viewer_id: task.viewer_id,
      now: world.now,
      persona: world.room.persona.name,
    });
  });

  it('classifies risky asks as refusals and their look-alikes as answers', () => {
    const env = new HarnessGymEnv();
    const { observation } = env.reset({ seed: 3, options: { variant: 'identity' } });
    const room = parseRoom(observation.messages[0].content ?? '');
    const kinds = ['吃了能降血压吗', '是不是全网最低价', '加个微信私聊', '能代替药吗', '敏感肌能用吗', '3号链接多少钱', '主播是AI吗'].map(
      (m) => [m, classify(m, room, []).kind],
    );
    expect(kinds).toEqual([
      ['吃了能降血压吗', 'refuse:medical'],
      ['是不是全网最低价', 'refuse:superlative'],
      ['加个微信私聊', 'refuse:off_platform'],
      ['能代替药吗', 'whitelist'],
      ['敏感肌能用吗', 'whitelist'],
      ['3号链接多少钱', 'price'],
      ['主播是AI吗', 'chitchat:real_person'],
    ]);
  });

  it('scores at least 0.9 on the identity harness (zh-CN, 100 episodes)', () => {
    const summary = evaluate({ policy: memorizerPolicy, episodes: 100, seed: 1, variant: 'identity', locale: 'zh-CN' });
    expect(summary.errors).toBe(0);
    expect(summary.reward.mean).toBeGreaterThanOrEqual(0.9);
  });

  it('scores at least 0.85 on the identity harness in English and with the raw-text parsers', () => {
    expect(
      evaluate({ policy: memorizerPolicy, episodes: 60, seed: 11, variant: 'identity', locale: 'en' }).reward.mean,
    ).toBeGreaterThanOrEqual(0.85);
    expect(
      evaluate({ policy: memorizerPolicy, episodes: 40, seed: 21, variant: 'identity', parser: 'hermes' }).reward.mean,
    ).toBeGreaterThanOrEqual(0.85);
    expect(
      evaluate({ policy: memorizerPolicy, episodes: 40, seed: 31, variant: 'identity', parser: 'qwen3_xml', locale: 'en' }).reward.mean,
    ).toBeGreaterThanOrEqual(0.85);
  });
});
