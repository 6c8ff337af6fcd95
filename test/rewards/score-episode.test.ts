import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, RewardRegistry, defaultRegistry, scoreEpisode } from '../../rewards/index.js';
import type { RewardModule, RewardProfile } from '../../rewards/index.js';
import type { RewardDetail } from '../../protocol/domain.js';
import { SCENARIOS, enProductQa, okCall, replyTurn, toolTurn, withTrace, zhChitchat, zhMarketing, zhProductQa } from './fixtures.js';

const ALL_ONE = { accuracy: 1, effectiveness: 1, hook_compliance: 1, tool_rationality: 1, skill_selection: 1 };

function fixed(name: string, segment: 'tool' | 'reply', value: number): RewardModule {
  return { name, version: '0.0.1', segment, score: () => ({ value, reasons: [`fixed ${value}`] }) };
}

/** A registry where each built-in module returns a fixed value (1 unless named), to probe gates and caps. */
function fixedRegistry(values: Record<string, number>): RewardRegistry {
  const out = new RewardRegistry();
  for (const m of defaultRegistry().list()) out.register(fixed(m.name, m.segment, values[m.name] ?? 1));
  return out;
}

/** The details of a product Q&A trace that keeps every rule, makes the one required call and loads product-qa. */
const HOOK_OK: RewardDetail = { value: 1, reasons: ['no hook violations'], evidence: { violations: [], distinct: [] } };
const TOOL_OK: RewardDetail = {
  value: 1,
  reasons: ['required calls: 1/1 satisfied'],
  evidence: { calls: 1, required_met: 1, required_total: 1, failed: 0, irrelevant: 0, redundant: 0 },
};
const SKILL_OK: RewardDetail = {
  value: 1,
  reasons: ['required reply skills: 1/1 loaded'],
  evidence: { loaded: ['product-qa'], missing: [], unneeded: [], unneeded_other: [], repeats: 0 },
};
/** accuracy of a reply that states the live price, with `invented` numbers absent from the evidence. */
function priceAccuracy(invented: number[]): RewardDetail {
  return {
    value: invented.length === 0 ? 1 : 0.2,
    reasons: [
      'required facts: 1/1 stated',
      ...(invented.length === 0 ? [] : [`invented numbers (not in evidence): ${invented.join(', ')}`]),
      'final state matches the expected state',
    ],
    evidence: {
      facts_present: ['live_price'],
      facts_missing: [],
      forbidden_stated: [],
      unsupported_claims: [],
      wrong_prices: [],
      invented_numbers: invented,
      state_diff: {},
      state_ok: true,
    },
  };
}

describe('scoreEpisode', () => {
  it('gives every oracle trace exactly 1.0 and no caps, zh and en', () => {
    for (const make of SCENARIOS) {
      const { task, oracle } = make();
      const r = scoreEpisode(oracle, task, DEFAULT_PROFILE, defaultRegistry());
      expect({ id: task.id, reward: r.reward, components: r.components, capped: 'caps' in r }).toEqual({
        id: task.id,
        reward: 1,
        components: ALL_ONE,
        capped: false,
      });
    }
  });

  it('returns the whole result of an uncapped episode without a caps key (zh and en oracle)', () => {
    const zh = zhProductQa();
    expect(scoreEpisode(zh.oracle, zh.task, DEFAULT_PROFILE, defaultRegistry())).toEqual({
      reward: 1,
      components: ALL_ONE,
      details: {
        accuracy: priceAccuracy([]),
        effectiveness: {
          value: 1,
          reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
          evidence: {
            expect: 'answer',
            served: 1,
            refusal_recorded: false,
            cta: true,
            chars: 25,
            limit: 120,
            sentences: 1,
            unrequested: [],
          },
        },
        hook_compliance: HOOK_OK,
        tool_rationality: TOOL_OK,
        skill_selection: SKILL_OK,
      },
      segments: { tool: 1, reply: 1 },
    });
    const en = enProductQa();
    const r = scoreEpisode(en.oracle, en.task, DEFAULT_PROFILE, defaultRegistry());
    expect([r.reward, r.details.effectiveness.evidence, Object.keys(r)]).toEqual([
      1,
      { expect: 'answer', served: 1, refusal_recorded: false, cta: true, chars: 61, limit: 120, sentences: 1, unrequested: [] },
      ['reward', 'components', 'details', 'segments'],
    ]);
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

  it('adds a caps line exactly when a gate lowers the reward below the weighted mean (whole result)', () => {
    const { task, oracle } = zhProductQa();
    const gates = DEFAULT_PROFILE.gates;
    const profile: RewardProfile = { name: 'gated', modules: [...DEFAULT_PROFILE.modules], gates: [...gates] };
    const details = (values: Record<string, number>) =>
      Object.fromEntries(Object.entries({ ...ALL_ONE, ...values }).map(([k, v]) => [k, { value: v, reasons: [`fixed ${v}`] }]));
    // accuracy 0.5 is below the 0.6 and 0.8 gates: both caps are under the weighted mean 0.85, both lower it.
    expect(scoreEpisode(oracle, task, profile, fixedRegistry({ accuracy: 0.5 }))).toEqual({
      reward: 0.4,
      components: { ...ALL_ONE, accuracy: 0.5 },
      details: details({ accuracy: 0.5 }),
      segments: { tool: 1, reply: 0.785714 },
      caps: ['capped at 0.4: accuracy 0.5 < 0.6 (weighted mean 0.85)', 'capped at 0.5: accuracy 0.5 < 0.8 (weighted mean 0.85)'],
    });
    // The same accuracy with every other module at 0: the weighted mean 0.15 is under both caps, no gate
    // lowers it, and there is no caps key.
    const low = { accuracy: 0.5, effectiveness: 0, hook_compliance: 0.5, tool_rationality: 0, skill_selection: 0 };
    expect(scoreEpisode(oracle, task, profile, fixedRegistry(low))).toEqual({
      reward: 0.225, // .3 × .5 + .15 × .5
      components: low,
      details: details(low),
      segments: { tool: 0, reply: 0.321429 },
    });
    // At the threshold itself no gate applies: accuracy 0.8 is the plain weighted mean.
    expect(scoreEpisode(oracle, task, profile, fixedRegistry({ accuracy: 0.8 }))).toEqual({
      reward: 0.94,
      components: { ...ALL_ONE, accuracy: 0.8 },
      details: details({ accuracy: 0.8 }),
      segments: { tool: 1, reply: 0.914286 },
    });
    // A gate whose cap is exactly the weighted mean lowers nothing: no line.
    const exact: RewardProfile = {
      name: 'exact',
      modules: [{ name: 'accuracy', weight: 1 }],
      gates: [{ module: 'accuracy', below: 0.9, cap: 0.5 }],
    };
    expect(scoreEpisode(oracle, task, exact, fixedRegistry({ accuracy: 0.5 }))).toEqual({
      reward: 0.5,
      components: { accuracy: 0.5 },
      details: { accuracy: { value: 0.5, reasons: ['fixed 0.5'] } },
      segments: { tool: null, reply: 0.5 },
    });
  });

  it('caps an invented stock number at 0.02 and says so in three caps lines (zh, whole result)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    // accuracy 1 × 0.2 (3 is invented); effectiveness 1 × 0.7 (3 is outside the question's scope).
    // Uncapped .3 × .2 + .25 × .7 + .45 = 0.685; accuracy 0.2 is below all three accuracy gates.
    expect(scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry())).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, accuracy: 0.2, effectiveness: 0.7 },
      details: {
        accuracy: priceAccuracy([3]),
        effectiveness: {
          value: 0.7,
          reasons: [
            'answers what was asked: 1/1 of the facts the message asks for',
            'call to action present',
            "numbers outside the question's scope: 3",
          ],
          evidence: {
            expect: 'answer',
            served: 1,
            refusal_recorded: false,
            cta: true,
            chars: 21,
            limit: 120,
            sentences: 1,
            unrequested: [3],
          },
        },
        hook_compliance: HOOK_OK,
        tool_rationality: TOOL_OK,
        skill_selection: SKILL_OK,
      },
      segments: { tool: 1, reply: 0.55 },
      caps: [
        'capped at 0.02: accuracy 0.2 < 0.35 (weighted mean 0.685)',
        'capped at 0.4: accuracy 0.2 < 0.6 (weighted mean 0.685)',
        'capped at 0.5: accuracy 0.2 < 0.8 (weighted mean 0.685)',
      ],
    });
  });

  it('caps an invented stock number at 0.02 (en, whole result)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'Link 1 is 89.9 today, only 3 left, grab it from the cart!' });
    expect(scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry())).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, accuracy: 0.2, effectiveness: 0.7 },
      details: {
        accuracy: priceAccuracy([3]),
        effectiveness: {
          value: 0.7,
          reasons: [
            'answers what was asked: 1/1 of the facts the message asks for',
            'call to action present',
            "numbers outside the question's scope: 3",
          ],
          evidence: {
            expect: 'answer',
            served: 1,
            refusal_recorded: false,
            cta: true,
            chars: 57,
            limit: 120,
            sentences: 1,
            unrequested: [3],
          },
        },
        hook_compliance: HOOK_OK,
        tool_rationality: TOOL_OK,
        skill_selection: SKILL_OK,
      },
      segments: { tool: 1, reply: 0.55 },
      caps: [
        'capped at 0.02: accuracy 0.2 < 0.35 (weighted mean 0.685)',
        'capped at 0.4: accuracy 0.2 < 0.6 (weighted mean 0.685)',
        'capped at 0.5: accuracy 0.2 < 0.8 (weighted mean 0.685)',
      ],
    });
  });

  it('caps half an answer, or the right words with the wrong action, at 0.4; two thirds of an answer at 0.5 (zh)', () => {
    const { task, oracle } = zhMarketing();
    // The coupon but not the link: accuracy 1/2, effectiveness served 1/2; uncapped .15 + .125 + .45 = 0.725.
    const half = scoreEpisode(
      withTrace(oracle, { final_reply: '满199减20的券已经发给你啦，点击领取下单～' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: half.reward, components: half.components, caps: half.caps }).toEqual({
      reward: 0.4,
      components: { ...ALL_ONE, accuracy: 0.5, effectiveness: 0.5 },
      caps: ['capped at 0.4: accuracy 0.5 < 0.6 (weighted mean 0.725)', 'capped at 0.5: accuracy 0.5 < 0.8 (weighted mean 0.725)'],
    });
    // Every fact said, but the card never pushed: accuracy × 0.55 (state), tool_rationality 1/2 required calls.
    const unpushed = withTrace(oracle, {
      turns: [
        oracle.turns[0],
        toolTurn(1, [okCall('issue_coupon', { viewer_id: 'v_1', coupon_id: 'C10' })]),
        replyTurn(2, oracle.final_reply!),
      ],
      final_state: { ...oracle.final_state, pushed_cards: [] },
    });
    const wrongAction = scoreEpisode(unpushed, task, DEFAULT_PROFILE, defaultRegistry());
    expect({
      reward: wrongAction.reward,
      components: wrongAction.components,
      caps: wrongAction.caps,
      acc: wrongAction.details.accuracy.reasons,
    }).toEqual({
      reward: 0.4,
      components: { ...ALL_ONE, accuracy: 0.55, tool_rationality: 0.5 },
      caps: ['capped at 0.4: accuracy 0.55 < 0.6 (weighted mean 0.79)', 'capped at 0.5: accuracy 0.55 < 0.8 (weighted mean 0.79)'],
      acc: ['required facts: 2/2 stated', 'state mismatch in pushed_cards: missing [2]'],
    });
    // A third fact the reply leaves out: 2/3 is below 0.8 only.
    const three = structuredClone(task);
    three.answer_key.required_facts.push({ key: 'card', values: ['卡片弹出来了'] });
    const twoThirds = scoreEpisode(
      withTrace(oracle, { final_reply: '满199减20的券已经发给你啦，2号链接点击就能下单～' }),
      three,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: twoThirds.reward, components: twoThirds.components, caps: twoThirds.caps }).toEqual({
      reward: 0.5,
      components: { ...ALL_ONE, accuracy: 0.666667, effectiveness: 0.666667 },
      caps: ['capped at 0.5: accuracy 0.666667 < 0.8 (weighted mean 0.816667)'],
    });
    // The oracle states all three: no cap.
    expect(scoreEpisode(oracle, three, DEFAULT_PROFILE, defaultRegistry()).reward).toBe(1);
  });

  it('gates a clean non-answer to 0.02: stating none of the asked facts earns near nothing (zh and en)', () => {
    const { task, oracle } = zhProductQa();
    // Keeps every rule (no number, no claim, a call to action, short), loads the right skill, makes the right call.
    const r = scoreEpisode(
      withTrace(oracle, { final_reply: '欢迎宝宝来到直播间，喜欢的直接拍哦～' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r.reward, components: r.components, caps: r.caps }).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, accuracy: 0, effectiveness: 0 },
      // Uncapped .15 × 3 = 0.45: the 0.5 cap would not lower it, so it is not listed.
      caps: ['capped at 0.02: accuracy 0 < 0.35 (weighted mean 0.45)', 'capped at 0.4: accuracy 0 < 0.6 (weighted mean 0.45)'],
    });
    const en = enProductQa();
    const r2 = scoreEpisode(
      withTrace(en.oracle, { final_reply: 'Welcome to the live room, grab anything you like from the cart!' }),
      en.task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r2.reward, components: r2.components, caps: r2.caps }).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, accuracy: 0, effectiveness: 0 },
      caps: ['capped at 0.02: accuracy 0 < 0.35 (weighted mean 0.45)', 'capped at 0.4: accuracy 0 < 0.6 (weighted mean 0.45)'],
    });
    // The same for a friendly reply to a compliment that never thanks for it (zh chit-chat).
    const chat = zhChitchat();
    const r3 = scoreEpisode(
      withTrace(chat.oracle, { final_reply: '宝宝嘴真甜，多来玩呀～' }),
      chat.task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r3.reward, accuracy: r3.components.accuracy, effectiveness: r3.components.effectiveness }).toEqual({
      reward: 0.02,
      accuracy: 0,
      effectiveness: 0,
    });
  });

  it('never caps on effectiveness: a true answer padded with figures costs its weight only (zh and en)', () => {
    const { task, oracle } = zhProductQa();
    // Every number but 120 is in the evidence; 129 is link 1's list price (in the results of the call about
    // link 1), so only 120 is outside the question's scope: effectiveness 0.7, .3 + .25 × .7 + .45 = 0.925.
    const one = scoreEpisode(
      withTrace(oracle, { final_reply: '1号链接到手价89.9元，原价129元，满120可用券，直接拍' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: one.reward, components: one.components, caps: one.caps, effectiveness: one.details.effectiveness }).toEqual({
      reward: 0.925,
      components: { ...ALL_ONE, effectiveness: 0.7 },
      caps: undefined,
      effectiveness: {
        value: 0.7,
        reasons: [
          'answers what was asked: 1/1 of the facts the message asks for',
          'call to action present',
          "numbers outside the question's scope: 120",
        ],
        evidence: {
          expect: 'answer',
          served: 1,
          refusal_recorded: false,
          cta: true,
          chars: 31,
          limit: 120,
          sentences: 1,
          unrequested: [120],
        },
      },
    });
    // A reply in another language than the room's serves nobody there: effectiveness 0, but no gate.
    const en = scoreEpisode(
      withTrace(oracle, { final_reply: 'Link 1 is 89.9 today, grab it from the cart!' }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: en.reward, components: en.components, caps: en.caps }).toEqual({
      reward: 0.75,
      components: { ...ALL_ONE, effectiveness: 0 },
      caps: undefined,
    });
    const enQa = enProductQa();
    const zh = scoreEpisode(
      withTrace(enQa.oracle, { final_reply: '1号链接直播间到手价89.9元，直接拍' }),
      enQa.task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: zh.reward, components: zh.components, caps: zh.caps }).toEqual({
      reward: 0.75,
      components: { ...ALL_ONE, effectiveness: 0 },
      caps: undefined,
    });
  });

  it('caps a final reply that breaks a stated rule at 0.02; a violation a retry fixed only costs (zh)', () => {
    const { task, oracle } = zhProductQa();
    const v = (code: string) => ({ hook: 'reply_format', code, message: 'm' });
    const broken = scoreEpisode(withTrace(oracle, { rule_violations: [v('MARKDOWN')] }), task, DEFAULT_PROFILE, defaultRegistry());
    expect({ reward: broken.reward, components: broken.components, hook: broken.details.hook_compliance, caps: broken.caps }).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, hook_compliance: 0 },
      hook: {
        value: 0,
        reasons: ['final reply breaks a stated rule: MARKDOWN', 'the final reply breaks a rule the prompt states'],
        evidence: { violations: [{ turn: 2, hook: 'reply_format', code: 'MARKDOWN' }], distinct: ['reply_format/MARKDOWN'] },
      },
      caps: ['capped at 0.02: hook_compliance 0 < 0.01 (weighted mean 0.85)'],
    });
    // A hook caught the markdown and the retry went on air clean: 1 - 0.34 = 0.66, 1 - .15 × .34 = 0.949.
    const retried = withTrace(oracle, {
      turns: [oracle.turns[0], oracle.turns[1], replyTurn(2, '**1号**', [v('MARKDOWN')]), replyTurn(3, oracle.final_reply!)],
    });
    const fixedUp = scoreEpisode(retried, task, DEFAULT_PROFILE, defaultRegistry());
    expect({ reward: fixedUp.reward, components: fixedUp.components, caps: fixedUp.caps }).toEqual({
      reward: 0.949,
      components: { ...ALL_ONE, hook_compliance: 0.66 },
      caps: undefined,
    });
  });

  it('caps a final reply that breaks a stated rule at 0.02 (en)', () => {
    const { task, oracle } = enProductQa();
    const r = scoreEpisode(
      withTrace(oracle, { rule_violations: [{ hook: 'prohibited_phrases', code: 'OFF_PLATFORM', message: 'm' }] }),
      task,
      DEFAULT_PROFILE,
      defaultRegistry(),
    );
    expect({ reward: r.reward, components: r.components, caps: r.caps }).toEqual({
      reward: 0.02,
      components: { ...ALL_ONE, hook_compliance: 0 },
      caps: ['capped at 0.02: hook_compliance 0 < 0.01 (weighted mean 0.85)'],
    });
  });

  it('caps a hook-blocked episode at 0.02 and reports no reply segment (whole result)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, {
      turns: [
        toolTurn(0, [okCall('load_skill', { name: 'product-qa' }), okCall('get_product', { link_no: 1 })]),
        replyTurn(1, 'Add me on WeChat', [{ hook: 'prohibited_phrases', code: 'OFF_PLATFORM', message: 'x' }]),
      ],
      final_reply: null,
      outcome: 'hook_blocked',
    });
    expect(scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry())).toEqual({
      reward: 0.02,
      components: { accuracy: 0, effectiveness: 0, hook_compliance: 0, tool_rationality: 1, skill_selection: 1 },
      details: {
        accuracy: { value: 0, reasons: ['no final reply (outcome hook_blocked)'] },
        effectiveness: { value: 0, reasons: ['no final reply (outcome hook_blocked)'] },
        hook_compliance: {
          value: 0,
          reasons: ['turn 1: prohibited_phrases/OFF_PLATFORM', 'episode blocked by a hook'],
          evidence: {
            violations: [{ turn: 1, hook: 'prohibited_phrases', code: 'OFF_PLATFORM' }],
            distinct: ['prohibited_phrases/OFF_PLATFORM'],
          },
        },
        tool_rationality: TOOL_OK,
        skill_selection: SKILL_OK,
      },
      segments: { tool: 1, reply: null },
      // Uncapped .15 + .15 = 0.3: the 0.4 and 0.5 accuracy caps would not lower it.
      caps: ['capped at 0.02: accuracy 0 < 0.35 (weighted mean 0.3)', 'capped at 0.02: hook_compliance 0 < 0.01 (weighted mean 0.3)'],
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

  it('returns a finite reward for an unvalidated in-code profile with huge weights', () => {
    const { task, oracle } = zhProductQa();
    // Weights of 1e308 sum to Infinity: they are scaled by the largest, so the weighted mean of a perfect
    // episode is still 1 and the segments finite (validateProfile refuses such a profile; code may skip it).
    const huge: RewardProfile = { name: 'huge', modules: DEFAULT_PROFILE.modules.map((m) => ({ ...m, weight: 1e308 })), gates: [] };
    const r = scoreEpisode(oracle, task, huge, defaultRegistry());
    expect({ reward: r.reward, components: r.components, segments: r.segments, caps: r.caps }).toEqual({
      reward: 1,
      components: ALL_ONE,
      segments: { tool: 1, reply: 1 },
      caps: undefined,
    });
    // One huge weight the sum can still hold: the mean is that module's value, and its gate still caps.
    const one: RewardProfile = {
      name: 'one_huge',
      modules: [
        { name: 'accuracy', weight: 1e300 },
        { name: 'effectiveness', weight: 1 },
      ],
      gates: [{ module: 'accuracy', below: 0.35, cap: 0.05 }],
    };
    const invented = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    const r2 = scoreEpisode(invented, task, one, defaultRegistry());
    expect({ reward: r2.reward, components: r2.components, segments: r2.segments, caps: r2.caps }).toEqual({
      reward: 0.05,
      components: { accuracy: 0.2, effectiveness: 0.7 },
      segments: { tool: null, reply: 0.2 },
      caps: ['capped at 0.05: accuracy 0.2 < 0.35 (weighted mean 0.2)'],
    });
  });
});
