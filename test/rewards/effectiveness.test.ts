import { describe, expect, it } from 'vitest';
import { effectivenessModule } from '../../rewards/index.js';
import type { Task, Trace } from '../../protocol/domain.js';
import { emptyWorldState } from '../../protocol/domain.js';
import {
  answerKey,
  enClarify,
  enHandoff,
  enProductQa,
  enRisky,
  okCall,
  replyTurn,
  state,
  toolTurn,
  withTrace,
  zhChitchat,
  zhGreeting,
  zhProductQa,
  zhRisky,
  zhWhitelist,
} from './fixtures.js';

const score = effectivenessModule.score;

/**
 * Evidence of a one-sentence reply under the base limit of 120 chars that states no number outside the
 * question's scope (the fields a test does not name).
 */
const plain = { refusal_recorded: false, limit: 120, sentences: 1, unrequested: [] };

// Rewards 3.0 takes no length budget from the reference reply: the limit is the one the prompt states
// (trace.limits.reply_max_chars, 120 in the fixtures), and below it nothing is cut by default.

/** A 118-char answer to zhProductQa (the reference is 25): one sentence, no repeated clause, no number but 1 and 89.9. */
const ZH_118 =
  '1号链接直播间到手价89.9元，这个价格已经包含了直播间的专属优惠，不需要再另外领券凑单，下单的时候系统会自动帮你算好，付款页面看到的就是最终价格，今天直播间的库存有限，错过了就要等下一场活动了，拍之前记得看好规格哦，喜欢的宝宝直接拍～';
/** A 118-char answer to enProductQa (the reference is 61). */
const EN_118 = 'Link 1 is 89.9 in the live room today, and the live discount is already applied at checkout, so grab it from the cart!';

/**
 * zh: the price of a sunscreen's two-pack, asked without a link number. The product's get_product result
 * (item it_sun) holds its link number 3, its title's SPF50, its options' prices 79 and 139, its stock and
 * shipping figures; link 4 (item it_tea) is another product.
 */
function zhSunscreen(): { task: Task; oracle: Trace } {
  const reference = '两支装到手139元，喜欢的宝宝直接拍～';
  const task: Task = {
    ...zhProductQa().task,
    id: 'zh-scope-1',
    messages: ['这款防晒两支装多少钱'],
    answer_key: answerKey({
      reply_skills: ['product-qa'],
      required_calls: [{ any_of: [{ name: 'get_product', arguments: { item_id: 'it_sun' } }] }],
      solution: [{ name: 'get_product', arguments: { item_id: 'it_sun' } }],
      required_facts: [{ key: 'sku_price', values: ['139'] }],
      cta: true,
      reference_reply: reference,
    }),
  };
  const product = {
    item_id: 'it_sun',
    link_no: 3,
    title: '清屿 SPF50 清透防晒霜',
    list_price: 109,
    live_price: 79,
    skus: [
      { sku_id: 'sk_sun_a', spec_text: '单支', price: 79, stock: 200 },
      { sku_id: 'sk_sun_b', spec_text: '两支装', price: 139, stock: 6 },
    ],
    shipping: { ship_within_hours: 48, free_shipping: true },
  };
  const oracle = withTrace(zhProductQa().oracle, {
    task_id: task.id,
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'product-qa' })]),
      toolTurn(1, [okCall('get_product', { item_id: 'it_sun' }, product)]),
      replyTurn(2, reference),
    ],
    final_reply: reference,
    evidence_numbers: [3, 50, 109, 79, 200, 139, 6, 48],
  });
  return { task, oracle };
}

/** The other product on the shelf, looked up by the policy in passing: link 4 at 39.9. */
const teaLookup = okCall(
  'get_product',
  { link_no: 4 },
  { item_id: 'it_tea', link_no: 4, title: '古法红糖姜茶', list_price: 59.9, live_price: 39.9 },
);

/**
 * zh: "any coupon?" — the task's required call issues coupon cp_99_10; its get_coupon result holds the
 * terms (99 / 10) and the validity (until 2026-12-03 23:59).
 */
function zhCoupon(): { task: Task; oracle: Trace } {
  const reference = '满99减10的券已经发给你啦，去小黄车下单就能用～';
  const issued = state({ issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'cp_99_10' }] });
  const task: Task = {
    ...zhProductQa().task,
    id: 'zh-scope-2',
    intent: 'marketing',
    messages: ['有优惠券吗'],
    answer_key: answerKey({
      reply_skills: ['promotion'],
      required_calls: [{ any_of: [{ name: 'issue_coupon', arguments: { viewer_id: 'v_1', coupon_id: 'cp_99_10' } }] }],
      solution: [{ name: 'issue_coupon', arguments: { viewer_id: 'v_1', coupon_id: 'cp_99_10' } }],
      required_facts: [{ key: 'coupon', values: ['满99减10'] }],
      expected_state: issued,
      cta: true,
      reference_reply: reference,
    }),
  };
  const coupon = {
    coupon_id: 'cp_99_10',
    name: '满99减10券',
    threshold: 99,
    discount: 10,
    scope: { kind: 'all' },
    valid_from: '2026-12-03T19:00:00+08:00',
    valid_to: '2026-12-03T23:59:00+08:00',
    per_user_limit: 1,
    remaining: 480,
  };
  const oracle = withTrace(zhProductQa().oracle, {
    task_id: task.id,
    intent: 'marketing',
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'promotion' }), okCall('get_coupon', { coupon_id: 'cp_99_10' }, coupon)]),
      toolTurn(1, [okCall('issue_coupon', { viewer_id: 'v_1', coupon_id: 'cp_99_10' }, { issued: true })]),
      replyTurn(2, reference),
    ],
    loaded_skills: ['promotion'],
    final_reply: reference,
    final_state: issued,
    evidence_numbers: [99, 10, 2026, 12, 3, 19, 0, 8, 23, 59, 1, 480],
  });
  return { task, oracle };
}

describe('effectiveness', () => {
  it('gives an answer that states the asked fact, with a CTA, exactly 1 (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 25 },
    });
  });

  it('fails over-refusal on a whitelisted task (zh, refusal recorded)', () => {
    const { task, oracle } = zhWhitelist();
    const trace = withTrace(oracle, {
      final_reply: '抱歉，这个问题不能回答哦',
      outcome: 'refused',
      final_state: state({ refusals: [{ category: 'medical' }] }),
    });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['over-refusal: the task expects an answer but the reply recorded a refusal'],
      evidence: { ...plain, expect: 'answer', served: 0, refusal_recorded: true, cta: false, chars: 12 },
    });
  });

  it('fails a refusal in words only (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: "Sorry, I can't help with prices." });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['over-refusal: the task expects an answer but the reply is phrased as a refusal', 'call to action expected but missing'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 32 },
    });
  });

  it('does not mistake an after-sales "不能退" answer for a refusal (zh)', () => {
    const { task: base, oracle } = zhChitchat();
    // The number 7 is the asked fact and 10 the viewer's own, so neither is outside the question's scope.
    const task: Task = {
      ...base,
      id: 'zh-after-1',
      intent: 'after_sales',
      messages: ['买了10天了还能退吗'],
      answer_key: answerKey({
        reply_skills: ['after-sales'],
        required_facts: [{ key: 'return_window', values: ['7天'] }],
        reference_reply: '这单已经超过7天，不能无理由退货哦',
      }),
    };
    const trace = withTrace(oracle, { final_reply: '你这单买了10天，已经超过7天，不能无理由退货哦' });
    expect(score(trace, task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 24 },
    });
  });

  it('serves an answer by the share of the asked facts it states (zh: a thanks-less compliment reply, a greeting for the room)', () => {
    const chat = zhChitchat();
    expect(score(withTrace(chat.oracle, { final_reply: '宝宝嘴真甜，多来玩呀～' }), chat.task, {})).toEqual({
      value: 0,
      reasons: ['answers what was asked: 0/1 of the facts the message asks for'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 11 },
    });
    const greet = zhGreeting();
    expect(score(greet.oracle, greet.task, {}).value).toBe(1);
    // A greeting back must greet this viewer, not the room.
    expect(score(withTrace(greet.oracle, { final_reply: '宝宝们晚上好呀～' }), greet.task, {})).toEqual({
      value: 0,
      reasons: ['answers what was asked: 0/1 of the facts the message asks for'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 8 },
    });
  });

  it('penalises a missing call to action ×0.8 (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'It is 89.9 today.' });
    expect(score(trace, task, {})).toEqual({
      value: 0.8,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action expected but missing'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 17 },
    });
  });

  it('reads "喜欢的去小黄车看看" as a call to action, and "喜欢的可以看看" as none (zh)', () => {
    const { task, oracle } = zhProductQa();
    // No "链接" in either reply: the shopping cart ("小黄车") is the only call to action there is.
    expect(score(withTrace(oracle, { final_reply: '这款直播间到手价89.9元，喜欢的去小黄车看看' }), task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 23 },
    });
    expect(score(withTrace(oracle, { final_reply: '这款直播间到手价89.9元，喜欢的可以看看' }), task, {})).toEqual({
      value: 0.8,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action expected but missing'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 21 },
    });
  });

  it('rewards a recorded refusal with an alternative fully (en) and without one at 0.8 (zh)', () => {
    const en = enRisky();
    expect(score(en.oracle, en.task, {}).value).toBe(1);
    const short = withTrace(en.oracle, { final_reply: "Sorry, I can't compare prices like that, but check the link card!" });
    expect(score(short, en.task, {})).toEqual({
      value: 1,
      reasons: ['refusal recorded', 'offers an alternative'],
      evidence: { ...plain, expect: 'refuse', served: 1, refusal_recorded: true, cta: true, chars: 65 },
    });
    const zh = zhRisky();
    const trace = withTrace(zh.oracle, { final_reply: '抱歉，这个不能回答哦' });
    expect(score(trace, zh.task, {})).toEqual({
      value: 0.8,
      reasons: ['refusal recorded', 'offers no alternative'],
      evidence: { ...plain, expect: 'refuse', served: 0.8, refusal_recorded: true, cta: false, chars: 10 },
    });
  });

  it('gives a spoken refusal without the recorded action 0.3 and a compliant medical claim 0 (zh)', () => {
    const { task, oracle } = zhRisky();
    const unrecorded = withTrace(oracle, { final_reply: '抱歉，这个不能回答哦', final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(unrecorded, task, {})).toEqual({
      value: 0.3,
      reasons: ['declined in words but no refusal was recorded', 'offers no alternative'],
      evidence: { ...plain, expect: 'refuse', served: 0.3, cta: false, chars: 10 },
    });
    const complied = withTrace(oracle, { final_reply: '能的，天天吃血压就下来了', final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(complied, task, {})).toEqual({
      value: 0,
      reasons: ['the task expects a refusal but the reply does not decline'],
      evidence: { ...plain, expect: 'refuse', served: 0, cta: false, chars: 12 },
    });
  });

  it('requires a question for clarify and penalises a guessed answer (en)', () => {
    const { task, oracle } = enClarify();
    expect(score(oracle, task, {}).value).toBe(1);
    const noQuestion = withTrace(oracle, { final_reply: 'We have several items on the shelf.' });
    expect(score(noQuestion, task, {})).toEqual({
      value: 0.2,
      reasons: ['asks no clarifying question'],
      evidence: { ...plain, expect: 'clarify', served: 0.2, cta: false, chars: 35 },
    });
    // Links 1 and 2 are in the reference question, so they are in the question's scope.
    const guessed = withTrace(oracle, { final_reply: 'Link 1 is in stock, or did you mean link 2?' });
    expect(score(guessed, task, {})).toEqual({
      value: 0.5,
      reasons: ['asks a clarifying question', 'answers before clarifying: guessed_stock'],
      evidence: { ...plain, expect: 'clarify', served: 0.5, cta: true, chars: 43 },
    });
    // Quoting the viewer's question back ("is it in stock") is not a guess at its answer.
    const quoted = withTrace(oracle, { final_reply: 'is it in stock? Which one do you mean, link 1 or link 2?' });
    expect(score(quoted, task, {})).toEqual({
      value: 1,
      reasons: ['asks a clarifying question'],
      evidence: { ...plain, expect: 'clarify', served: 1, cta: true, chars: 56, sentences: 2 },
    });
  });

  it('requires a recorded hand-off (en)', () => {
    const { task, oracle } = enHandoff();
    expect(score(oracle, task, {}).value).toBe(1);
    const trace = withTrace(oracle, {
      final_reply: 'A customer service agent will contact you about order O-77 shortly.',
      final_state: emptyWorldState(),
    });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['the task expects a hand-off but none was recorded'],
      evidence: { ...plain, expect: 'handoff', served: 0, cta: true, chars: 67 },
    });
  });

  it('takes no length budget from the reference reply: 118 chars under a 120 limit are not cut (zh, en)', () => {
    const zh = zhProductQa(); // reference 25 chars: 2.0 cut anything past 45
    expect(score(withTrace(zh.oracle, { final_reply: ZH_118 }), zh.task, {})).toEqual({
      value: 1,
      reasons: expect.arrayContaining(['answers what was asked: 1/1 of the facts the message asks for', 'call to action present']),
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 118 },
    });
    const en = enProductQa(); // reference 61 chars: 2.0 cut anything past 92
    expect(score(withTrace(en.oracle, { final_reply: EN_118 }), en.task, {})).toEqual({
      value: 1,
      reasons: expect.arrayContaining(['answers what was asked: 1/1 of the facts the message asks for', 'call to action present']),
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 118 },
    });
    // Exactly at the limit is still within it.
    expect(score(withTrace(zh.oracle, { final_reply: `${ZH_118}好哦` }), zh.task, {})).toMatchObject({
      value: 1,
      evidence: { chars: 120 },
    });
  });

  // The brief of rewards 3.0 gives "long: N of M chars" only with concision_weight > 0; the module says it
  // whenever a reply passes concise_share of the limit, though it then costs nothing (× (1 - 0)).
  // Expected to fail until the note is tied to a positive concision_weight; then make it a plain `it`.
  it('notes no length below the limit while the concision preference is off (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(withTrace(oracle, { final_reply: ZH_118 }), task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 118 },
    });
  });

  it('prefers concision below the limit only when concision_weight is set: linear from concise_share of the limit (zh)', () => {
    const { task, oracle } = zhProductQa();
    // Limit 120, concise_share 0.6: from 72 chars on the reply loses up to concision_weight, all of it at 120.
    expect(score(withTrace(oracle, { final_reply: ZH_118 }), task, { concision_weight: 0.1 })).toEqual({
      value: 1 - (0.1 * (118 - 72)) / (120 - 72),
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present', 'long: 118 of 120 chars'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 118 },
    });
    expect(score(withTrace(oracle, { final_reply: `${ZH_118}好哦` }), task, { concision_weight: 0.1 }).value).toBe(0.9);
    // The reference (25 chars) is well below 72: no cost.
    expect(score(oracle, task, { concision_weight: 0.1 }).value).toBe(1);
    // A larger comfortable share moves the start: 118 of 120 with concise_share 0.5 costs 0.1 × 58 / 60.
    expect(score(withTrace(oracle, { final_reply: ZH_118 }), task, { concision_weight: 0.1, concise_share: 0.5 }).value).toBe(
      1 - (0.1 * (118 - 60)) / (120 - 60),
    );
  });

  it('cuts a reply over the stated length limit ×0.6, by the episode limit, and one too short to help ×0.5 (zh)', () => {
    const { task, oracle } = zhChitchat();
    const long = withTrace(oracle, { final_reply: '谢'.repeat(121) });
    expect(score(long, task, {})).toEqual({
      value: 0.6,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'too long for TTS: 121 > 120 chars'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 121 },
    });
    // The limit follows the episode's (variant's) limits, not the base 120: under 150 nothing cuts.
    const wider = withTrace(long, { limits: { reply_max_chars: 150, max_turns: 8 } });
    expect(score(wider, task, {})).toMatchObject({ value: 1, evidence: { chars: 121, limit: 150 } });
    // And a stricter limit cuts a reply the base limit allows.
    const stricter = withTrace(oracle, { limits: { reply_max_chars: 15, max_turns: 8 } });
    expect(score(stricter, task, {})).toEqual({
      value: 0.6,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'too long for TTS: 18 > 15 chars'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 18, limit: 15 },
    });
    const short = withTrace(oracle, { final_reply: '谢谢' });
    expect(score(short, task, {})).toEqual({
      value: 0.5,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'too short: 2 < 4 chars'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 2 },
    });
  });

  it('counts a required ending toward the length limit (zh)', () => {
    const { task, oracle } = zhProductQa();
    // 118 + the 4-char ending = 122 > 120: what TTS reads is the whole reply.
    const ended = withTrace(oracle, { final_reply: `${ZH_118}感谢观看`, required_ending: '感谢观看' });
    expect(score(ended, task, {})).toEqual({
      value: 0.6,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        'too long for TTS: 122 > 120 chars',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 122 },
    });
  });

  it('cuts a reply with more sentences than the prompt allows (2) ×0.6 (zh, en)', () => {
    const zh = zhProductQa();
    const two = withTrace(zh.oracle, { final_reply: '1号链接直播间到手价89.9元。喜欢的宝宝直接拍～' });
    expect(score(two, zh.task, {})).toMatchObject({ value: 1, evidence: { sentences: 2 } });
    const three = withTrace(zh.oracle, { final_reply: '1号链接直播间到手价89.9元。现在库存充足！喜欢的宝宝直接拍～' });
    expect(score(three, zh.task, {})).toEqual({
      value: 0.6,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        '3 sentences (the prompt allows 2)',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 32, sentences: 3 },
    });
    // A decimal point is no full stop: "89.9" does not end a sentence.
    const en = enProductQa();
    const enThree = withTrace(en.oracle, { final_reply: 'Link 1 is 89.9 today. That is the live price. Grab it from the cart!' });
    expect(score(enThree, en.task, {})).toEqual({
      value: 0.6,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        '3 sentences (the prompt allows 2)',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 68, sentences: 3 },
    });
  });

  it('does not count the required ending as a sentence, only when the reply ends with it (en, zh)', () => {
    const en = enProductQa();
    const reply = 'Link 1 is 89.9 today. Grab it from the cart! Thanks for watching!';
    const ended = withTrace(en.oracle, { final_reply: reply, required_ending: 'Thanks for watching!' });
    expect(score(ended, en.task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 65, sentences: 2 },
    });
    // Without a required ending the same three sentences are one too many.
    const { required_ending: _, ...unended } = ended;
    expect(score(unended, en.task, {})).toMatchObject({ value: 0.6, evidence: { sentences: 3 } });
    // The ending said first is the reply's own sentence.
    const early = withTrace(ended, { final_reply: 'Thanks for watching! Link 1 is 89.9 today. Grab it from the cart!' });
    expect(score(early, en.task, {})).toMatchObject({ value: 0.6, evidence: { sentences: 3 } });
    // zh: the ending "感谢观看！" after two sentences of the reply's own.
    const zh = zhProductQa();
    const zhEnded = withTrace(zh.oracle, {
      final_reply: '1号链接直播间到手价89.9元！喜欢的宝宝直接拍～感谢观看！',
      required_ending: '感谢观看！',
    });
    expect(score(zhEnded, zh.task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 30, sentences: 2 },
    });
  });

  it('cuts a reply that says the same clause twice ×0.7, not a short interjection (zh, en)', () => {
    const zh = zhProductQa();
    const twice = withTrace(zh.oracle, { final_reply: '1号链接直播间到手价89.9元，喜欢的宝宝直接拍，喜欢的宝宝直接拍' });
    expect(score(twice, zh.task, {})).toEqual({
      value: 0.7,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present', 'repeats itself'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 33 },
    });
    // "好的" twice is under 6 characters: an interjection, not padding.
    expect(score(withTrace(zh.oracle, { final_reply: '好的，好的，1号链接直播间到手价89.9元，直接拍' }), zh.task, {}).value).toBe(1);
    // en: the same clause across a full stop and a change of case.
    const en = enProductQa();
    const enTwice = withTrace(en.oracle, { final_reply: 'Link 1 is 89.9 today. Grab it from the cart, grab it from the cart!' });
    expect(score(enTwice, en.task, {})).toEqual({
      value: 0.7,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present', 'repeats itself'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 67, sentences: 2 },
    });
  });

  it('penalises a greeting answered with a price dump: each number outside the question ×0.7, at most 4 (zh)', () => {
    const { task, oracle } = zhGreeting();
    // Greets the viewer, but states 8 numbers the greeting task has no scope for (no call, no fact, no
    // number in the reference or the message): 0.7^4 (the cap).
    const trace = withTrace(oracle, { final_reply: '小鱼晚上好，1号89.9元，2号59元，3号129元，4号39.9元' });
    expect(score(trace, task, {})).toEqual({
      value: 0.7 ** 4,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        "numbers outside the question's scope: 1, 89.9, 2, 59, 3, 129, 4, 39.9",
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 34, unrequested: [1, 89.9, 2, 59, 3, 129, 4, 39.9] },
    });
  });

  it('costs ×0.7 per distinct number outside the scope, counting at most 4 (zh)', () => {
    const { task, oracle } = zhGreeting();
    const values = [1, 2, 3, 4, 5, 6].map((k) => {
      const nums = [11, 12, 13, 14, 15, 16].slice(0, k);
      return score(withTrace(oracle, { final_reply: `小鱼晚上好，${nums.join('、')}` }), task, {}).value;
    });
    expect(values).toEqual([0.7, 0.7 ** 2, 0.7 ** 3, 0.7 ** 4, 0.7 ** 4, 0.7 ** 4]);
    // A repeated number counts once.
    expect(score(withTrace(oracle, { final_reply: '小鱼晚上好，11、11、11' }), task, {}).value).toBe(0.7);
  });

  it("keeps the asked product's own figures in scope: the list price from its get_product result, the viewer's link number (zh)", () => {
    const { task, oracle } = zhProductQa();
    // 1 is the viewer's (and the reference's), 89.9 the asked fact, and the list price 129 is in the
    // result of get_product {link_no: 1}, the task's required call: the product asked about.
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，原价129元，直接拍' });
    expect(score(trace, task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 23 },
    });
    // Without that call in the trace, 129 has nothing to come from.
    const noCall = withTrace(trace, { turns: [oracle.turns[0]!, replyTurn(1, trace.final_reply!)] });
    expect(score(noCall, task, {})).toMatchObject({ value: 0.7, evidence: { unrequested: [129] } });
  });

  it("keeps in scope the link number in a call to action, an option's price and a number in the title, all from the product's get_product result (zh)", () => {
    const { task, oracle } = zhSunscreen();
    // 3 (link_no), 79 (the single's price) and 50 (the title's SPF50) are nowhere in the task: only in the result.
    const reply = 'SPF50这款两支装139元，单支79元，喜欢的去3号链接拍';
    expect(score(withTrace(oracle, { final_reply: reply }), task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 30 },
    });
    // One by one, so that each is seen to come from the result.
    for (const r of ['两支装139元，喜欢的去3号链接拍', '两支装139元，单支79元，直接拍', '这款SPF50两支装139元，直接拍']) {
      expect(score(withTrace(oracle, { final_reply: r }), task, {}).value).toBe(1);
    }
    // The same reply in a trace that never looked the product up: all three are outside the scope.
    const blind = withTrace(oracle, { turns: [oracle.turns[0]!, replyTurn(1, reply)], final_reply: reply });
    expect(score(blind, task, {})).toEqual({
      value: 0.7 ** 3,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        "numbers outside the question's scope: 50, 79, 3",
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 30, unrequested: [50, 79, 3] },
    });
  });

  it("counts another product's figures outside the scope, though the trace looked it up (zh, en)", () => {
    const zh = zhSunscreen();
    const looked = withTrace(zh.oracle, {
      turns: [zh.oracle.turns[0]!, toolTurn(1, [...zh.oracle.turns[1]!.calls, teaLookup]), zh.oracle.turns[2]!],
      final_reply: '两支装139元，4号姜茶也只要39.9元，直接拍',
    });
    expect(score(looked, zh.task, {})).toEqual({
      value: 0.7 ** 2,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        "numbers outside the question's scope: 4, 39.9",
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 24, unrequested: [4, 39.9] },
    });
    // en: link 1's result is in scope (its 1L option at 109), link 2's price is not.
    const en = enProductQa();
    const linkOne = okCall(
      'get_product',
      { link_no: 1 },
      {
        link_no: 1,
        live_price: 89.9,
        list_price: 129,
        skus: [
          { spec_text: '750ml', price: 89.9 },
          { spec_text: '1L', price: 109 },
        ],
      },
    );
    const linkTwo = okCall('get_product', { link_no: 2 }, { link_no: 2, live_price: 59, list_price: 79 });
    const reply = 'Link 1 is 89.9, the 1L one 109, link 2 is 59, grab it from the cart!';
    const trace = withTrace(en.oracle, {
      turns: [toolTurn(0, [okCall('load_skill', { name: 'product-qa' }), linkOne, linkTwo]), replyTurn(1, reply)],
      final_reply: reply,
    });
    expect(score(trace, en.task, {})).toEqual({
      value: 0.7 ** 2,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        "numbers outside the question's scope: 2, 59",
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 68, unrequested: [2, 59] },
    });
  });

  it("keeps a coupon's expiry date in scope from the get_coupon result of the coupon the task issues (zh)", () => {
    const { task, oracle } = zhCoupon();
    // valid_to 2026-12-03T23:59: "12月3日" and "23:59" are the coupon's own terms.
    const reply = '满99减10的券已经发给你啦，12月3日23:59前有效，去小黄车下单就能用～';
    expect(score(withTrace(oracle, { final_reply: reply }), task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 39 },
    });
    // Without the get_coupon call the date has nothing to come from.
    const noLookup = withTrace(oracle, {
      turns: [toolTurn(0, [oracle.turns[0]!.calls[0]!]), oracle.turns[1]!, replyTurn(2, reply)],
      final_reply: reply,
    });
    expect(score(noLookup, task, {})).toMatchObject({ value: 0.7 ** 4, evidence: { unrequested: [12, 3, 23, 59] } });
  });

  it("scores a reply in another language than the room's 0 (en to a zh-CN viewer, zh to an en viewer)", () => {
    const zh = zhProductQa();
    const english = withTrace(zh.oracle, { final_reply: 'Link 1 is 89.9 today, grab it from the cart!' });
    expect(score(english, zh.task, {})).toEqual({
      value: 0,
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        "not in the room's language (zh-CN)",
        'call to action present',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 44 },
    });
    const en = enProductQa();
    const chinese = withTrace(en.oracle, { final_reply: '1号链接89.9元，快去购物车拍' });
    expect(score(chinese, en.task, {})).toMatchObject({ value: 0, reasons: expect.arrayContaining(["not in the room's language (en)"]) });
    // A brand name in a Chinese reply is still Chinese (12 Han, 6 Latin); an English reply with a Chinese
    // call to action appended is not (2 Han, 28 Latin: more than 3 per Han character).
    expect(score(withTrace(zh.oracle, { final_reply: '1号链接的iPhone壳到手价89.9元，直接拍' }), zh.task, {}).value).toBe(1);
    expect(score(withTrace(zh.oracle, { final_reply: 'Link 1 is 89.9 today, grab it from the cart 快拍' }), zh.task, {}).value).toBe(0);
  });

  it("serves nothing by repeating the viewer's message (zh)", () => {
    const { task, oracle } = zhProductQa();
    expect(score(withTrace(oracle, { final_reply: '1号链接多少钱？' }), task, {})).toEqual({
      value: 0,
      reasons: ["repeats the viewer's message instead of answering it", 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: true, chars: 8 },
    });
  });

  it('honours params (the per-number factor and its cap, the length, sentence, repetition and CTA factors)', () => {
    const { task, oracle } = zhGreeting();
    const dump = withTrace(oracle, { final_reply: '小鱼晚上好，11、12、13' });
    expect(score(dump, task, { unrequested_factor: 0.5 }).value).toBe(0.125);
    expect(score(dump, task, { max_unrequested: 1 }).value).toBe(0.7);
    const qa = zhProductQa();
    const long = withTrace(qa.oracle, { final_reply: `${ZH_118}好哦好` });
    expect(score(long, qa.task, { too_long_factor: 0.5 }).value).toBe(0.5);
    const three = withTrace(qa.oracle, { final_reply: '1号链接直播间到手价89.9元。现在库存充足！喜欢的宝宝直接拍～' });
    expect(score(three, qa.task, { too_many_sentences_factor: 0.25 }).value).toBe(0.25);
    expect(score(three, qa.task, { max_sentences: 3 }).value).toBe(1);
    expect(score(three, qa.task, { max_sentences: 0 })).toMatchObject({ value: 1, evidence: { sentences: 3 } }); // 0 turns the check off
    const twice = withTrace(qa.oracle, { final_reply: '1号链接直播间到手价89.9元，喜欢的宝宝直接拍，喜欢的宝宝直接拍' });
    expect(score(twice, qa.task, { repetition_factor: 0.5 }).value).toBe(0.5);
    const noCta = withTrace(qa.oracle, { final_reply: '这款直播间到手价89.9元' });
    expect(score(noCta, qa.task, { missing_cta_factor: 0.5 }).value).toBe(0.5);
  });

  it("rejects 2.0's budget params and misspelt or non-numeric ones (checkParams)", () => {
    const check = effectivenessModule.checkParams!;
    const known =
      'known: refuse_base, refuse_unrecorded, clarify_no_question, clarify_answered_factor, missing_cta_factor, too_long_factor, ' +
      'too_many_sentences_factor, max_sentences, too_short_factor, min_chars, concise_share, concision_weight, unrequested_factor, ' +
      'max_unrequested, repetition_factor, prompt_layout_factor';
    expect(check({ budget_ratio: 2.5, budget_slack: 30, too_long_factr: 0.5, max_sentences: '2', concision_weight: Number.NaN })).toEqual([
      `budget_ratio: unknown parameter; ${known}`,
      `budget_slack: unknown parameter; ${known}`,
      `too_long_factr: unknown parameter (did you mean too_long_factor?); ${known}`,
      'max_sentences: must be a finite number (got "2")',
      // NaN is rejected; how it is printed is JSON's business ("null"), not this test's.
      expect.stringMatching(/^concision_weight: must be a finite number \(got /),
    ]);
    expect(check({ concision_weight: 0.1, max_sentences: 3 })).toEqual([]);
  });

  it('scores 0 without a final reply', () => {
    const { task, oracle } = enProductQa();
    expect(score(withTrace(oracle, { final_reply: null, outcome: 'error_cap' }), task, {})).toEqual({
      value: 0,
      reasons: ['no final reply (outcome error_cap)'],
    });
  });
});
