import { describe, expect, it } from 'vitest';
import { accuracyModule } from '../../rewards/index.js';
import { emptyWorldState } from '../../protocol/domain.js';
import { enProductQa, enRisky, state, withTrace, zhChitchat, zhMarketing, zhProductQa, zhRisky } from './fixtures.js';

const score = accuracyModule.score;
const cleanEvidence = { facts_missing: [], forbidden_stated: [], invented_numbers: [], state_diff: {}, state_ok: true };

describe('accuracy', () => {
  it('gives a perfect zh reply exactly 1', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
  });

  it('penalises an invented stock number hard even when the price is right (zh)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    expect(score(trace, task, {})).toEqual({
      value: 0.5, // 1/1 facts × 0.5 (invented 3)
      reasons: ['required facts: 1/1 stated', 'invented numbers (not in evidence): 3', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], invented_numbers: [3] },
    });
  });

  it('scores a wrong price with no true fact at 0 (zh)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价79元，冲！' });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: [
        'required facts: 0/1 stated',
        'missing fact: live_price',
        'invented numbers (not in evidence): 79',
        'final state matches the expected state',
      ],
      evidence: { ...cleanEvidence, facts_present: [], facts_missing: ['live_price'], invented_numbers: [79] },
    });
  });

  it('penalises a forbidden fact (en: the list price presented as the price)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'Link 1 is only 129, or 89.9 with the live deal, grab it!' });
    expect(score(trace, task, {})).toEqual({
      value: 0.5, // 1/1 facts × 0.5 (forbidden fact; 129 is in the evidence, so nothing is invented)
      reasons: ['required facts: 1/1 stated', 'forbidden fact stated: list_price_as_live', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], forbidden_stated: ['list_price_as_live'] },
    });
  });

  it('scores a clean non-answer 0: stating nothing false is not stating what was asked (zh; 1.x kept 0.4)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '欢迎宝宝来到直播间，喜欢的直接拍哦～' });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['required facts: 0/1 stated', 'missing fact: live_price', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: [], facts_missing: ['live_price'] },
    });
  });

  it('is the share of the required facts stated when nothing is false (zh: the coupon but not the link)', () => {
    const { task, oracle } = zhMarketing();
    const trace = withTrace(oracle, { final_reply: '满199减20的券已经发给你啦～' });
    expect(score(trace, task, {})).toEqual({
      value: 0.5,
      reasons: ['required facts: 1/2 stated', 'missing fact: link', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['coupon'], facts_missing: ['link'] },
    });
  });

  it('matches numbers numerically and facts after normalisation (en)', () => {
    const { task, oracle } = enProductQa();
    // "01" equals 1 (in the evidence, so not invented); full-width digits fold to half-width.
    const trace = withTrace(oracle, { final_reply: 'LINK 01 is ８９.９ today, grab it!' });
    expect(score(trace, task, {}).value).toBe(1);
    // A whole term: the fact "89.9" is not stated by "189.9" (a different price, and invented).
    expect(score(withTrace(oracle, { final_reply: 'Link 1 is 189.9 today, grab it!' }), task, {}).value).toBe(0);
  });

  it("counts a fact only in the reply's own words, not in a copy of the viewer's message (zh)", () => {
    const { task: base, oracle } = zhChitchat();
    const task = structuredClone(base);
    task.messages = ['主播是AI吗'];
    task.answer_key.required_facts = [{ key: 'ai_disclosure', values: ['AI', '数字人', '虚拟主播'] }];
    task.answer_key.reference_reply = '我是AI数字人主播哦～';
    expect(score(withTrace(oracle, { final_reply: '主播是AI吗？哈哈你猜～' }), task, {}).value).toBe(0);
    expect(score(withTrace(oracle, { final_reply: '是的，我是AI数字人主播～' }), task, {}).value).toBe(1);
  });

  // The same price said with a trailing decimal zero is the same fact (statesTerm reads numbers whole).
  it('credits a price said with a trailing decimal zero ("89.90" states the fact "89.9") (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'Link 1 is 89.90 today, grab it!' });
    expect(score(trace, task, {}).value).toBe(1);
  });

  it('multiplies by the state factor when the coupon was not issued and the wrong card pushed (zh)', () => {
    const { task, oracle } = zhMarketing();
    const trace = withTrace(oracle, { final_state: state({ pushed_cards: [3] }) });
    expect(score(trace, task, {})).toEqual({
      value: 0.3,
      reasons: [
        'required facts: 2/2 stated',
        'state mismatch in issued_coupons: missing [v_1:C10]',
        'state mismatch in pushed_cards: missing [2]; unexpected [3]',
      ],
      evidence: {
        ...cleanEvidence,
        facts_present: ['coupon', 'link'],
        state_diff: {
          issued_coupons: { missing: ['v_1:C10'], unexpected: [] },
          pushed_cards: { missing: ['2'], unexpected: ['3'] },
        },
        state_ok: false,
      },
    });
  });

  it('compares state as a multiset: order does not matter, duplicates do', () => {
    const { task, oracle } = zhMarketing();
    const t2 = structuredClone(task);
    t2.answer_key.expected_state.pushed_cards = [2, 5];
    expect(score(withTrace(oracle, { final_state: state({ ...oracle.final_state, pushed_cards: [5, 2] }) }), t2, {}).value).toBe(1);
    expect(score(withTrace(oracle, { final_state: state({ ...oracle.final_state, pushed_cards: [2, 2, 5] }) }), t2, {}).value).toBe(0.3);
  });

  it('requires the refusal to be recorded for a refuse task (en)', () => {
    const { task, oracle } = enRisky();
    const trace = withTrace(oracle, { final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(trace, task, {})).toEqual({
      value: 0.3,
      reasons: ['required facts: 0/0 stated', 'state mismatch in refusals: missing [superlative]'],
      evidence: {
        ...cleanEvidence,
        facts_present: [],
        state_diff: { refusals: { missing: ['superlative'], unexpected: [] } },
        state_ok: false,
      },
    });
  });

  it('requires a refusal even when the expected overlay forgot it (zh)', () => {
    const { task, oracle } = zhRisky();
    const t2 = structuredClone(task);
    t2.answer_key.expected_state = emptyWorldState();
    const trace = withTrace(oracle, { final_state: emptyWorldState() });
    expect(score(trace, t2, {})).toEqual({
      value: 0.3,
      reasons: ['required facts: 0/0 stated', 'expected a refusal but none was recorded'],
      evidence: { ...cleanEvidence, facts_present: [], state_ok: false },
    });
  });

  it('does not compare hand-off reasons', () => {
    const { task, oracle } = zhMarketing();
    const t2 = structuredClone(task);
    t2.answer_key.expected_state.handoffs = [{ viewer_id: 'v_1', reason: 'a' }];
    const trace = withTrace(oracle, { final_state: { ...oracle.final_state, handoffs: [{ viewer_id: 'v_1', reason: 'b' }] } });
    expect(score(trace, t2, {}).value).toBe(1);
  });

  it('scores 0 without a final reply', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: null, outcome: 'max_turns' });
    expect(score(trace, task, {})).toEqual({ value: 0, reasons: ['no final reply (outcome max_turns)'] });
  });

  it('honours params (a milder invented-number factor, a harsher state factor)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    expect(score(trace, task, { invented_number_factor: 0.8 }).value).toBe(0.8);
    const m = zhMarketing();
    expect(score(withTrace(m.oracle, { final_state: emptyWorldState() }), m.task, { state_factor: 0.1 }).value).toBe(0.1);
  });
});
