import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, RewardRegistry, defaultRegistry, scoreEpisode } from '../../rewards/index.js';
import type { RewardModule, RewardProfile } from '../../rewards/index.js';
import { SCENARIOS, enProductQa, okCall, replyTurn, toolTurn, withTrace, zhChitchat, zhProductQa } from './fixtures.js';

const ALL_ONE = { accuracy: 1, effectiveness: 1, hook_compliance: 1, tool_rationality: 1, skill_selection: 1 };

function fixed(name: string, segment: 'tool' | 'reply', value: number): RewardModule {
  return { name, version: '0.0.1', segment, score: () => ({ value, reasons: [`fixed ${value}`] }) };
}

describe('scoreEpisode', () => {
  it('gives every oracle trace exactly 1.0, zh and en', () => {
    for (const make of SCENARIOS) {
      const { task, oracle } = make();
      const r = scoreEpisode(oracle, task, DEFAULT_PROFILE, defaultRegistry());
      expect({ id: task.id, reward: r.reward, components: r.components }).toEqual({ id: task.id, reward: 1, components: ALL_ONE });
    }
  });

  it('keeps components and details in profile order', () => {
    const { task, oracle } = zhProductQa();
    const profile: RewardProfile = {
      name: 'reordered',
      modules: [
        { name: 'skill_selection', weight: 1 },
        { name: 'accuracy', weight: 1 },
      ],
      gates: [],
    };
    const r = scoreEpisode(oracle, task, profile, defaultRegistry());
    expect(Object.keys(r.components)).toEqual(['skill_selection', 'accuracy']);
    expect(Object.keys(r.details)).toEqual(['skill_selection', 'accuracy']);
  });

  it('computes the weighted mean, segment means and rounds to 6 decimals', () => {
    const reg = new RewardRegistry();
    reg.register(fixed('a', 'reply', 1 / 3));
    reg.register(fixed('b', 'reply', 1));
    reg.register(fixed('c', 'tool', 0.5));
    const profile: RewardProfile = {
      name: 'p',
      modules: [
        { name: 'a', weight: 1 },
        { name: 'b', weight: 2 },
        { name: 'c', weight: 1 },
      ],
      gates: [],
    };
    const { task, oracle } = zhProductQa();
    expect(scoreEpisode(oracle, task, profile, reg)).toEqual({
      reward: 0.708333, // (1/3 + 2 + 0.5) / 4
      components: { a: 0.333333, b: 1, c: 0.5 },
      details: {
        a: { value: 0.333333, reasons: ['fixed 0.3333333333333333'] },
        b: { value: 1, reasons: ['fixed 1'] },
        c: { value: 0.5, reasons: ['fixed 0.5'] },
      },
      segments: { tool: 0.5, reply: 0.777778 },
    });
  });

  it('caps the composite with the accuracy gate (invented stock number)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
    // accuracy 1 × 0.5 (3 is invented); effectiveness 1 × 0.6 (3 is unrequested too).
    expect(r.components).toEqual({ ...ALL_ONE, accuracy: 0.5, effectiveness: 0.6 });
    // Uncapped .3 × .5 + .25 × .6 + .45 = 0.75; accuracy 0.5 < 0.6 caps it.
    expect(r.reward).toBe(0.05);
  });

  it('gates a clean non-answer to 0.05: stating none of the asked facts earns near nothing (zh)', () => {
    const { task, oracle } = zhProductQa();
    // Keeps every rule (no number, no claim, a call to action, short), loads the right skill, makes the right call.
    const trace = withTrace(oracle, { final_reply: '欢迎宝宝来到直播间，喜欢的直接拍哦～' });
    const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
    expect({ reward: r.reward, components: r.components }).toEqual({
      reward: 0.05, // uncapped .15 × 3 = 0.45
      components: { ...ALL_ONE, accuracy: 0, effectiveness: 0 },
    });
    // The same for a friendly reply to a compliment that never thanks for it (zh chit-chat).
    const chat = zhChitchat();
    const r2 = scoreEpisode(
      withTrace(chat.oracle, { final_reply: '宝宝嘴真甜，多来玩呀～' }),
      chat.task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r2.reward, accuracy: r2.components.accuracy, effectiveness: r2.components.effectiveness }).toEqual({
      reward: 0.05,
      accuracy: 0,
      effectiveness: 0,
    });
  });

  it('caps the composite with the effectiveness gate: a true answer padded with tool values (zh)', () => {
    const { task, oracle } = zhProductQa();
    // Every number is in the evidence (accuracy 1), but the list price 129 and the 120 nobody asked for: 0.6².
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，原价129元，满120可用券，直接拍' });
    const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
    expect(r.components).toEqual({ ...ALL_ONE, effectiveness: 0.36 });
    // Uncapped .3 + .25 × .36 + .45 = 0.84; effectiveness 0.36 < 0.4 caps it.
    expect(r.reward).toBe(0.05);
    // One unrequested number (0.6) is a cost, not a gate: .3 + .25 × .6 + .45 = 0.9.
    const one = scoreEpisode(
      withTrace(oracle, { final_reply: '1号链接到手价89.9元，原价129元，直接拍' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect([one.components.effectiveness, one.reward]).toEqual([0.6, 0.9]);
  });

  it('caps the composite when a reply is in the wrong language (en to a zh-CN viewer)', () => {
    const { task, oracle } = zhProductQa();
    const r = scoreEpisode(
      withTrace(oracle, { final_reply: 'Link 1 is 89.9 today, grab it from the cart!' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r.reward, components: r.components }).toEqual({ reward: 0.05, components: { ...ALL_ONE, effectiveness: 0 } });
  });

  it('lowers the composite for a stated rule the final reply breaks, and gates at three (zh)', () => {
    const { task, oracle } = zhProductQa();
    const v = (code: string) => ({ hook: 'reply_format', code, message: 'm' });
    const one = scoreEpisode(withTrace(oracle, { rule_violations: [v('MARKDOWN')] }), task, DEFAULT_PROFILE, defaultRegistry());
    // hook_compliance 1 - 0.34 = 0.66: 1 - .15 × .34 = 0.949.
    expect({ reward: one.reward, components: one.components }).toEqual({
      reward: 0.949,
      components: { ...ALL_ONE, hook_compliance: 0.66 },
    });
    const three = scoreEpisode(
      withTrace(oracle, { rule_violations: [v('MARKDOWN'), v('EMOJI'), v('TOO_LONG')] }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: three.reward, hook_compliance: three.components.hook_compliance }).toEqual({ reward: 0.05, hook_compliance: 0 });
  });

  it('caps a hook-blocked episode at 0.05 and reports no reply segment', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, {
      turns: [
        toolTurn(0, [okCall('load_skill', { name: 'product-qa' }), okCall('get_product', { link_no: 1 })]),
        replyTurn(1, 'Add me on WeChat', [{ hook: 'prohibited_phrases', code: 'OFF_PLATFORM', message: 'x' }]),
      ],
      final_reply: null,
      outcome: 'hook_blocked',
    });
    const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
    expect({ reward: r.reward, components: r.components, segments: r.segments }).toEqual({
      reward: 0.05, // every gate applies; uncapped .15 + .15 = 0.3
      components: { accuracy: 0, effectiveness: 0, hook_compliance: 0, tool_rationality: 1, skill_selection: 1 },
      segments: { tool: 1, reply: null },
    });
  });

  it('reports no tool segment when the task needs no calls and none were made (load_skill aside)', () => {
    const { task, oracle } = zhChitchat();
    expect(scoreEpisode(oracle, task, DEFAULT_PROFILE, defaultRegistry()).segments).toEqual({ tool: null, reply: 1 });
    const withSearch = withTrace(oracle, {
      turns: [
        toolTurn(0, [okCall('load_skill', { name: 'chitchat' }), okCall('search_products', { query: 'x' })]),
        replyTurn(1, oracle.final_reply!),
      ],
    });
    expect(scoreEpisode(withSearch, task, DEFAULT_PROFILE, defaultRegistry()).segments).toEqual({ tool: 0.875, reply: 1 });
  });

  it('turns a throwing, out-of-range or NaN module into a failed component and still scores', () => {
    const reg = defaultRegistry();
    reg.register({
      name: 'throws',
      version: '1.0.0',
      segment: 'reply',
      score: () => {
        throw new Error('boom');
      },
    });
    reg.register(fixed('too_big', 'reply', 1.5));
    reg.register(fixed('nan', 'tool', Number.NaN));
    const profile: RewardProfile = {
      name: 'broken',
      modules: [
        { name: 'accuracy', weight: 1 },
        { name: 'throws', weight: 1 },
        { name: 'too_big', weight: 1 },
        { name: 'nan', weight: 1 },
        { name: 'not_registered', weight: 1 },
      ],
      gates: [],
    };
    const { task, oracle } = zhProductQa();
    const r = scoreEpisode(oracle, task, profile, reg);
    expect(r.reward).toBe(0.2);
    expect(r.components).toEqual({ accuracy: 1, throws: 0, too_big: 0, nan: 0, not_registered: 0 });
    expect(r.details.throws).toEqual({ value: 0, failed: true, reasons: ['module failed: threw Error: boom'] });
    expect(r.details.too_big).toEqual({ value: 0, failed: true, reasons: ['module failed: returned 1.5 (outside [0, 1])'] });
    expect(r.details.nan).toEqual({ value: 0, failed: true, reasons: ['module failed: returned non-finite value NaN'] });
    expect(r.details.not_registered).toEqual({ value: 0, failed: true, reasons: ['module failed: unknown module "not_registered"'] });
    expect(r.segments).toEqual({ tool: 0, reply: 0.333333 });
  });

  it('is deterministic: the same inputs serialise byte-identically', () => {
    for (const make of SCENARIOS) {
      const { task, oracle } = make();
      const bad = withTrace(oracle, { final_reply: '最好的89.9，加微信123', loaded_skills: ['chitchat', 'chitchat'] });
      const a = JSON.stringify(scoreEpisode(bad, task, DEFAULT_PROFILE, defaultRegistry()));
      const b = JSON.stringify(scoreEpisode(structuredClone(bad), structuredClone(task), DEFAULT_PROFILE, defaultRegistry()));
      expect(a).toBe(b);
    }
  });

  it('treats a zero total weight as reward 0 rather than NaN', () => {
    const { task, oracle } = zhProductQa();
    const r = scoreEpisode(oracle, task, { name: 'z', modules: [{ name: 'accuracy', weight: 0 }], gates: [] }, defaultRegistry());
    expect(r).toMatchObject({ reward: 0, components: { accuracy: 1 }, segments: { tool: null, reply: null } });
  });
});
