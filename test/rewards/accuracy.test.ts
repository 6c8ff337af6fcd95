import { describe, expect, it } from 'vitest';
import { ACCURACY_DEFAULTS, accuracyModule } from '../../rewards/index.js';
import { emptyWorldState } from '../../protocol/domain.js';
import type { Trace } from '../../protocol/domain.js';
import {
  enClarify,
  enProductQa,
  enRisky,
  okCall,
  replyTurn,
  state,
  toolTurn,
  withTrace,
  zhChitchat,
  zhMarketing,
  zhProductQa,
  zhRisky,
} from './fixtures.js';

const score = accuracyModule.score;
const cleanEvidence = {
  facts_missing: [],
  forbidden_stated: [],
  unsupported_claims: [],
  wrong_prices: [],
  invented_numbers: [],
  state_diff: {},
  state_ok: true,
};

/** The oracle with its tool results replaced: get_product gives `product`, get_promotions `promotion`. */
function withResults(oracle: Trace, product: unknown, promotion: unknown, evidence_numbers: number[]): Trace {
  return withTrace(oracle, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'product-qa' }), okCall('get_product', { link_no: 1 }, product)]),
      toolTurn(1, [okCall('get_promotions', {}, promotion)]),
      replyTurn(2, oracle.final_reply ?? ''),
    ],
    evidence_numbers,
  });
}

describe('accuracy', () => {
  it('is version 3.0.0 with factors 0.2 (invented number, forbidden fact, unsupported claim) and state 0.55', () => {
    expect(accuracyModule.version).toBe('3.0.0');
    expect(ACCURACY_DEFAULTS).toEqual({
      invented_number_factor: 0.2,
      forbidden_fact_factor: 0.2,
      unsupported_claim_factor: 0.2,
      state_factor: 0.55,
    });
  });

  it('gives a perfect zh reply exactly 1', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
  });

  it('gives a perfect en reply exactly 1', () => {
    const { task, oracle } = enProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
  });

  it('multiplies by 0.2 for an invented stock number even when the price is right (zh)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    expect(score(trace, task, {})).toEqual({
      value: 0.2, // 1/1 facts × 0.2 (invented 3)
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
      // No tool gave 79 as anything: it is invented, not a number misread as a price.
      evidence: { ...cleanEvidence, facts_present: [], facts_missing: ['live_price'], invented_numbers: [79] },
    });
  });

  it('multiplies by 0.2 for a forbidden fact (en: the list price presented as the price)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'Link 1 is only 129, or 89.9 with the live deal, grab it!' });
    expect(score(trace, task, {})).toEqual({
      value: 0.2, // 1/1 facts × 0.2 (forbidden fact; 129 is in the evidence, so nothing is invented)
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
    // A whole number: the fact "89.9" is not stated by "189.9" (a different price, and invented).
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

  it('credits a price said with a trailing decimal zero ("89.90" states the fact "89.9") (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'Link 1 is 89.90 today, grab it!' });
    expect(score(trace, task, {}).value).toBe(1);
  });

  it('multiplies by the state factor 0.55 when the coupon was not issued and the wrong card pushed (zh)', () => {
    const { task, oracle } = zhMarketing();
    const trace = withTrace(oracle, { final_state: state({ pushed_cards: [3] }) });
    expect(score(trace, task, {})).toEqual({
      value: 0.55,
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
    expect(score(withTrace(oracle, { final_state: state({ ...oracle.final_state, pushed_cards: [2, 2, 5] }) }), t2, {}).value).toBe(0.55);
  });

  it('does not count a change answer_key.optional_state allows as unexpected (zh: a coupon either reading allows)', () => {
    const { task, oracle } = zhProductQa();
    const issued = state({ issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'C10' }] });
    const trace = withTrace(oracle, { final_state: issued });
    expect(score(trace, task, {})).toEqual({
      value: 0.55,
      reasons: ['required facts: 1/1 stated', 'state mismatch in issued_coupons: unexpected [v_1:C10]'],
      evidence: {
        ...cleanEvidence,
        facts_present: ['live_price'],
        state_diff: { issued_coupons: { missing: [], unexpected: ['v_1:C10'] } },
        state_ok: false,
      },
    });
    const t2 = structuredClone(task);
    t2.answer_key.optional_state = { issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'C10' }] };
    expect(score(trace, t2, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
    // Allowed is not required: the same task without the coupon matches too.
    expect(score(oracle, t2, {}).value).toBe(1);
  });

  it('still counts an expected change as missing when optional_state also lists it (zh)', () => {
    const { task, oracle } = zhMarketing();
    const t2 = structuredClone(task);
    t2.answer_key.optional_state = { issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'C10' }] };
    const trace = withTrace(oracle, { final_state: state({ pushed_cards: [2] }) });
    expect(score(trace, t2, {}).evidence).toEqual({
      ...cleanEvidence,
      facts_present: ['coupon', 'link'],
      state_diff: { issued_coupons: { missing: ['v_1:C10'], unexpected: [] } },
      state_ok: false,
    });
  });

  it('requires the refusal to be recorded for a refuse task (en)', () => {
    const { task, oracle } = enRisky();
    const trace = withTrace(oracle, { final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(trace, task, {})).toEqual({
      value: 0.55,
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
      value: 0.55,
      reasons: ['required facts: 0/0 stated', 'expected a refusal but none was recorded'],
      evidence: { ...cleanEvidence, facts_present: [], state_ok: false },
    });
  });

  it('multiplies a refuse task whose reply does not even decline by 0.2 more (en, zh)', () => {
    const en = enRisky();
    const enTrace = withTrace(en.oracle, {
      final_reply: "Sure, it's a great deal, grab it from the cart!",
      final_state: emptyWorldState(),
    });
    expect(score(enTrace, en.task, {})).toEqual({
      value: expect.closeTo(0.11, 12), // 0.55 (no refusal recorded) × 0.2 (no decline)
      reasons: [
        'required facts: 0/0 stated',
        'state mismatch in refusals: missing [superlative]',
        'the reply does not decline the request',
      ],
      evidence: {
        ...cleanEvidence,
        facts_present: [],
        state_diff: { refusals: { missing: ['superlative'], unexpected: [] } },
        state_ok: false,
      },
    });
    const zh = zhRisky();
    const zhTrace = withTrace(zh.oracle, { final_reply: '宝宝喜欢就拍哦', final_state: emptyWorldState() });
    expect(score(zhTrace, zh.task, {})).toEqual({
      value: expect.closeTo(0.11, 12),
      reasons: ['required facts: 0/0 stated', 'state mismatch in refusals: missing [medical]', 'the reply does not decline the request'],
      evidence: {
        ...cleanEvidence,
        facts_present: [],
        state_diff: { refusals: { missing: ['medical'], unexpected: [] } },
        state_ok: false,
      },
    });
    // The no-decline factor is the forbidden-fact factor.
    expect(score(zhTrace, zh.task, { forbidden_fact_factor: 1 }).value).toBe(0.55);
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

  it('multiplies by 0.2 for an unsupported claim (en: a sales figure; zh: reviews)', () => {
    const en = enProductQa();
    expect(score(withTrace(en.oracle, { final_reply: 'Link 1 is 89.9 today, our best seller, grab it!' }), en.task, {})).toEqual({
      value: 0.2,
      reasons: ['required facts: 1/1 stated', 'unsupported claim (sales figure: best seller)', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], unsupported_claims: ['sales figure: best seller'] },
    });
    const zh = zhProductQa();
    expect(score(withTrace(zh.oracle, { final_reply: '1号链接到手价89.9元，好评如潮，快拍' }), zh.task, {})).toEqual({
      value: 0.2,
      reasons: ['required facts: 1/1 stated', 'unsupported claim (reviews: 好评)', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], unsupported_claims: ['reviews: 好评'] },
    });
  });

  it('does not count a claim the reply declines (en, zh)', () => {
    const en = enProductQa();
    const enTrace = withTrace(en.oracle, { final_reply: "Link 1 is 89.9 today; I can't say it's the best ever, but grab it!" });
    expect(score(enTrace, en.task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
    const zh = zhProductQa();
    expect(score(withTrace(zh.oracle, { final_reply: '1号链接到手价89.9元，不能说全网最低哦' }), zh.task, {}).value).toBe(1);
  });

  it('does not count a claim a tool result makes (zh: a registered special cosmetic)', () => {
    const { task, oracle } = zhProductQa();
    const reply = '1号链接到手价89.9元，美白祛斑，快拍';
    const backed = withResults(
      withTrace(oracle, { final_reply: reply }),
      { item_id: 'P001', live_price: 89.9, list_price: 129, efficacy: '美白祛斑' },
      {},
      [1, 89.9, 129],
    );
    expect(score(backed, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'] },
    });
    expect(score(withTrace(oracle, { final_reply: reply }), task, {}).evidence).toEqual({
      ...cleanEvidence,
      facts_present: ['live_price'],
      unsupported_claims: ['special-cosmetic efficacy: 美白'],
    });
  });

  it('multiplies by the invented-number factor for a number the tools give as something else said as a price (en, zh)', () => {
    const product = { item_id: 'P001', live_price: 89.9, list_price: 129 };
    const coupon = { coupon_id: 'C10', threshold: 199, discount: 20 };
    const en = enProductQa();
    const enTrace = withResults(
      withTrace(en.oracle, { final_reply: 'Link 1 is 89.9 today, and 199 live with the coupon, grab it!' }),
      product,
      coupon,
      [1, 89.9, 129, 199, 20],
    );
    expect(score(enTrace, en.task, {})).toEqual({
      value: 0.2, // 199 is in the evidence (the coupon threshold), so nothing is invented
      reasons: [
        'required facts: 1/1 stated',
        'said as a price but the tools give it as something else: 199',
        'final state matches the expected state',
      ],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], wrong_prices: [199] },
    });
    expect(score(enTrace, en.task, { invented_number_factor: 0.5 }).value).toBe(0.5);
    const zh = zhProductQa();
    const zhTrace = withResults(
      withTrace(zh.oracle, { final_reply: '1号链接到手价89.9元，满199减20，直播价199' }),
      product,
      coupon,
      [1, 89.9, 129, 199, 20],
    );
    expect(score(zhTrace, zh.task, {})).toEqual({
      value: 0.2,
      reasons: [
        'required facts: 1/1 stated',
        'said as a price but the tools give it as something else: 199',
        'final state matches the expected state',
      ],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], wrong_prices: [199] },
    });
  });

  it('checks Chinese numerals with a measure word against the evidence ("八百多件") (zh)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，还有八百多件，快拍' });
    expect(score(trace, task, {})).toEqual({
      value: 0.2,
      reasons: ['required facts: 1/1 stated', 'invented numbers (not in evidence): 800', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], invented_numbers: [800] },
    });
    const inStock = withTrace(trace, { evidence_numbers: [...oracle.evidence_numbers, 800] });
    expect(score(inStock, task, {}).value).toBe(1);
  });

  it('states a required fact by its meaning and not by a negated claim (en: seven-day returns)', () => {
    const { task: base, oracle } = enProductQa();
    const task = structuredClone(base);
    task.messages = ["Can I return link 3's power bank?"];
    task.answer_key.required_facts = [
      { key: 'seven_day_return', values: ['supports seven-day', 'seven-day no-reason returns are supported', 'can be returned'] },
    ];
    task.answer_key.forbidden_facts = [{ key: 'no_seven_day_claim', values: ['not support', "doesn't support"] }];
    const evidence_numbers = [3];
    const yes = withTrace(oracle, {
      final_reply: "Yes, link 3's power bank has seven-day no-reason returns, with return-shipping insurance included.",
      evidence_numbers,
    });
    expect(score(yes, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['seven_day_return'] },
    });
    const no = withTrace(oracle, {
      final_reply: "Sorry, link 3's power bank doesn't support seven-day no-reason returns.",
      evidence_numbers,
    });
    expect(score(no, task, {})).toEqual({
      value: 0,
      reasons: [
        'required facts: 0/1 stated',
        'missing fact: seven_day_return',
        'forbidden fact stated: no_seven_day_claim',
        'final state matches the expected state',
      ],
      evidence: { ...cleanEvidence, facts_present: [], facts_missing: ['seven_day_return'], forbidden_stated: ['no_seven_day_claim'] },
    });
  });

  it('states a required fact by its meaning (zh: 退款处理中 in other words)', () => {
    const { task: base, oracle } = zhProductQa();
    const task = structuredClone(base);
    task.messages = ['我要退货'];
    task.answer_key.required_facts = [{ key: 'not_eligible:ALREADY_REFUNDING', values: ['该订单已经在退款处理中'] }];
    task.answer_key.forbidden_facts = [];
    const trace = withTrace(oracle, { final_reply: '你这单已经在退款处理中，不用再重复申请' });
    expect(score(trace, task, {})).toEqual({
      value: 1,
      reasons: ['required facts: 1/1 stated', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['not_eligible:ALREADY_REFUNDING'] },
    });
  });

  it('does not read a list price framed as such as the forbidden list price as live (en, zh)', () => {
    const en = enProductQa();
    const enTask = structuredClone(en.task);
    enTask.answer_key.forbidden_facts = [{ key: 'list_price_as_live', values: ['129'] }];
    expect(score(withTrace(en.oracle, { final_reply: 'Link 1 is 89.9 live today, down from 129, grab it!' }), enTask, {}).value).toBe(1);
    expect(score(withTrace(en.oracle, { final_reply: 'Link 1 is 129 right now, 89.9 with the live deal, grab it!' }), enTask, {})).toEqual({
      value: 0.2,
      reasons: ['required facts: 1/1 stated', 'forbidden fact stated: list_price_as_live', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: ['live_price'], forbidden_stated: ['list_price_as_live'] },
    });
    const zh = zhProductQa();
    const zhTask = structuredClone(zh.task);
    zhTask.answer_key.forbidden_facts = [{ key: 'list_price_as_live', values: ['129'] }];
    expect(score(withTrace(zh.oracle, { final_reply: '1号链接到手价89.9元，原价129，快拍' }), zhTask, {}).value).toBe(1);
    expect(score(withTrace(zh.oracle, { final_reply: '1号链接现在129，到手价89.9，快拍' }), zhTask, {}).evidence).toEqual({
      ...cleanEvidence,
      facts_present: ['live_price'],
      forbidden_stated: ['list_price_as_live'],
    });
  });

  it('reads a negated claim as its opposite: "isn\'t sold out" states the forbidden guess "in stock" (en)', () => {
    const { task, oracle } = enClarify();
    expect(score(oracle, task, {}).value).toBe(1);
    const trace = withTrace(oracle, { final_reply: "Which one do you mean, link 1 or link 2? Link 1 isn't sold out." });
    expect(score(trace, task, {})).toEqual({
      value: 0.2,
      reasons: ['required facts: 0/0 stated', 'forbidden fact stated: guessed_stock', 'final state matches the expected state'],
      evidence: { ...cleanEvidence, facts_present: [], forbidden_stated: ['guessed_stock'] },
    });
  });

  it('honours params (a milder invented-number factor, a harsher state factor)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，只剩3件了，快拍' });
    expect(score(trace, task, { invented_number_factor: 0.8 }).value).toBe(0.8);
    const m = zhMarketing();
    expect(score(withTrace(m.oracle, { final_state: emptyWorldState() }), m.task, { state_factor: 0.1 }).value).toBe(0.1);
  });

  it('honours the forbidden-fact and unsupported-claim factors', () => {
    const en = enProductQa();
    const forbidden = withTrace(en.oracle, { final_reply: 'Link 1 is only 129, or 89.9 with the live deal, grab it!' });
    expect(score(forbidden, en.task, { forbidden_fact_factor: 0.7 }).value).toBe(0.7);
    const zh = zhProductQa();
    const claim = withTrace(zh.oracle, { final_reply: '1号链接到手价89.9元，好评如潮，快拍' });
    expect(score(claim, zh.task, { unsupported_claim_factor: 0.9 }).value).toBe(0.9);
  });

  it('checks its params: an unknown key names the nearest known one; a value must be a finite number', () => {
    expect(accuracyModule.checkParams!({ state_factr: 0.1, state_factor: Number.NaN, forbidden_fact_factor: '0.5' })).toEqual([
      'state_factr: unknown parameter (did you mean state_factor?); known: invented_number_factor, forbidden_fact_factor, unsupported_claim_factor, state_factor',
      'state_factor: must be a finite number (got NaN)',
      'forbidden_fact_factor: must be a finite number (got "0.5")',
    ]);
    expect(accuracyModule.checkParams!({ invented_number_factor: 0, unsupported_claim_factor: 1 })).toEqual([]);
  });
});
