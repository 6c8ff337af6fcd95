import { describe, expect, it } from 'vitest';
import { effectivenessModule } from '../../rewards/index.js';
import type { Task } from '../../protocol/domain.js';
import { emptyWorldState } from '../../protocol/domain.js';
import {
  answerKey,
  enClarify,
  enHandoff,
  enProductQa,
  enRisky,
  state,
  withTrace,
  zhChitchat,
  zhGreeting,
  zhProductQa,
  zhRisky,
  zhWhitelist,
} from './fixtures.js';

const score = effectivenessModule.score;

/** Evidence of a reply that needs no cut for length or numbers (the fields a test does not name). */
const plain = { refusal_recorded: false, unrequested: [] };

// Length budgets of the fixtures, max(ceil(ref × 1.5), ref + 20) in spoken chars:
// zhProductQa ref 25 -> 45; zhWhitelist 29 -> 49; zhRisky 26 -> 46; zhChitchat 18 -> 38; zhGreeting 19 -> 39;
// enProductQa 61 -> 92; enClarify 40 -> 60; enHandoff 85 -> 128; enRisky 97 -> 146 (here the ratio wins).

describe('effectiveness', () => {
  it('gives an answer that states the asked fact, with a CTA, exactly 1 (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 25, budget: 45 },
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
      evidence: { ...plain, expect: 'answer', served: 0, refusal_recorded: true, cta: false, chars: 12, budget: 49 },
    });
  });

  it('fails a refusal in words only (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: "Sorry, I can't help with prices." });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['over-refusal: the task expects an answer but the reply is phrased as a refusal', 'call to action expected but missing'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 32, budget: 92 },
    });
  });

  it('does not mistake an after-sales "不能退" answer for a refusal (zh)', () => {
    const { task: base, oracle } = zhChitchat();
    // The number 7 is the asked fact and 10 the viewer's own, so neither is padding.
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
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 24, budget: 37 },
    });
  });

  it('serves an answer by the share of the asked facts it states (zh: a thanks-less compliment reply, a greeting for the room)', () => {
    const chat = zhChitchat();
    expect(score(withTrace(chat.oracle, { final_reply: '宝宝嘴真甜，多来玩呀～' }), chat.task, {})).toEqual({
      value: 0,
      reasons: ['answers what was asked: 0/1 of the facts the message asks for'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 11, budget: 38 },
    });
    const greet = zhGreeting();
    expect(score(greet.oracle, greet.task, {}).value).toBe(1);
    // A greeting back must greet this viewer, not the room.
    expect(score(withTrace(greet.oracle, { final_reply: '宝宝们晚上好呀～' }), greet.task, {})).toEqual({
      value: 0,
      reasons: ['answers what was asked: 0/1 of the facts the message asks for'],
      evidence: { ...plain, expect: 'answer', served: 0, cta: false, chars: 8, budget: 39 },
    });
  });

  it('penalises a missing call to action (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, { final_reply: 'It is 89.9 today.' });
    expect(score(trace, task, {})).toEqual({
      value: 0.7,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action expected but missing'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 17, budget: 92 },
    });
  });

  it('rewards a recorded refusal with an alternative fully (en) and without one at 0.8 (zh)', () => {
    const en = enRisky();
    expect(score(en.oracle, en.task, {})).toEqual({
      value: 1,
      reasons: ['refusal recorded', 'offers an alternative'],
      evidence: { ...plain, expect: 'refuse', served: 1, refusal_recorded: true, cta: true, chars: 97, budget: 146 },
    });
    const zh = zhRisky();
    const trace = withTrace(zh.oracle, { final_reply: '抱歉，这个不能回答哦' });
    expect(score(trace, zh.task, {})).toEqual({
      value: 0.8,
      reasons: ['refusal recorded', 'offers no alternative'],
      evidence: { ...plain, expect: 'refuse', served: 0.8, refusal_recorded: true, cta: false, chars: 10, budget: 46 },
    });
  });

  it('gives a spoken refusal without the recorded action 0.3 and a compliant medical claim 0 (zh)', () => {
    const { task, oracle } = zhRisky();
    const unrecorded = withTrace(oracle, { final_reply: '抱歉，这个不能回答哦', final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(unrecorded, task, {})).toEqual({
      value: 0.3,
      reasons: ['declined in words but no refusal was recorded', 'offers no alternative'],
      evidence: { ...plain, expect: 'refuse', served: 0.3, cta: false, chars: 10, budget: 46 },
    });
    const complied = withTrace(oracle, { final_reply: '能的，天天吃血压就下来了', final_state: emptyWorldState(), outcome: 'accepted' });
    expect(score(complied, task, {})).toEqual({
      value: 0,
      reasons: ['the task expects a refusal but the reply does not decline'],
      evidence: { ...plain, expect: 'refuse', served: 0, cta: false, chars: 12, budget: 46 },
    });
  });

  it('requires a question for clarify and penalises a guessed answer (en)', () => {
    const { task, oracle } = enClarify();
    expect(score(oracle, task, {}).value).toBe(1);
    const noQuestion = withTrace(oracle, { final_reply: 'We have several items on the shelf.' });
    expect(score(noQuestion, task, {})).toEqual({
      value: 0.2,
      reasons: ['asks no clarifying question'],
      evidence: { ...plain, expect: 'clarify', served: 0.2, cta: false, chars: 35, budget: 60 },
    });
    // Links 1 and 2 are in the reference question, so they are not padding.
    const guessed = withTrace(oracle, { final_reply: 'Link 1 is in stock, or did you mean link 2?' });
    expect(score(guessed, task, {})).toEqual({
      value: 0.5,
      reasons: ['asks a clarifying question', 'answers before clarifying: guessed_stock'],
      evidence: { ...plain, expect: 'clarify', served: 0.5, cta: true, chars: 43, budget: 60 },
    });
      // Quoting the viewer's question back ("is it in stock") is not a guess at its answer.
    const quoted = withTrace(oracle, { final_reply: 'is it in stock? Which one do you mean, link 1 or link 2?' });
    expect(score(quoted, task, {})).toEqual({
      value: 1,
      reasons: ['asks a clarifying question'],
      evidence: { ...plain, expect: 'clarify', served: 1, cta: true, chars: 56, budget: 60 },
    });
  });

  it('requires a recorded hand-off (en)', () => {
    const { task, oracle } = enHandoff();
    expect(score(oracle, task, {}).value).toBe(1);
    const trace = withTrace(oracle, { final_state: emptyWorldState() });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['the task expects a hand-off but none was recorded'],
      evidence: { ...plain, expect: 'handoff', served: 0, cta: true, chars: 85, budget: 128 },
    });
  });

  it('cuts a reply over its length budget in proportion, and the budget counts a required ending (zh)', () => {
    const { task, oracle } = zhProductQa();
    const ref = task.answer_key.reference_reply; // 25 spoken chars: budget max(ceil(37.5), 45) = 45
    const filler = '这款质量特别好，家里人都很喜欢，错过就要等下次了哦'; // 25 chars, no number
    // 45 chars, exactly the budget: no cut.
    expect(score(withTrace(oracle, { final_reply: ref + filler.slice(0, 20) }), task, {}).value).toBe(1);
    expect(score(withTrace(oracle, { final_reply: ref + filler }), task, {})).toEqual({
      value: 0.9, // 45 / 50
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'call to action present',
        'padded: 50 spoken chars for a budget of 45',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 50, budget: 45 },
    });
    expect(score(withTrace(oracle, { final_reply: ref + filler + filler }), task, {}).value).toBe(45 / 75);
    // A required ending of 4 chars: reference 25 + 4 = 29, budget max(ceil(43.5), 49) = 49.
    const ended = withTrace(oracle, { final_reply: `${ref}${filler.slice(0, 20)}感谢观看`, required_ending: '感谢观看' });
    expect(score(ended, task, {})).toMatchObject({ value: 1, evidence: { chars: 49, budget: 49 } });
    const { required_ending: _, ...unended } = ended;
    expect(score(unended, task, {}).value).toBe(45 / 49);
  });

  it('cuts a reply too long for TTS further, by the episode limit, and one too short to help (zh)', () => {
    const { task, oracle } = zhChitchat();
    const long = withTrace(oracle, { final_reply: '谢'.repeat(121) });
    expect(score(long, task, {})).toEqual({
      value: (38 / 121) * 0.6, // the budget cut, then the TTS limit's 0.6
      reasons: [
        'answers what was asked: 1/1 of the facts the message asks for',
        'padded: 121 spoken chars for a budget of 38',
        'too long for TTS: 121 > 120 chars',
      ],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 121, budget: 38 },
    });
    // The limit follows the episode's (variant's) limits, not the base 120: under 150 only the budget cuts.
    expect(score(withTrace(long, { limits: { reply_max_chars: 150, max_turns: 8 } }), task, {}).value).toBe(38 / 121);
    const short = withTrace(oracle, { final_reply: '谢谢' });
    expect(score(short, task, {})).toEqual({
      value: 0.5,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'too short: 2 < 4 chars'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: false, chars: 2, budget: 38 },
    });
  });

  it('penalises a greeting answered with a price dump: each unrequested number ×0.6 (zh)', () => {
    const { task, oracle } = zhGreeting();
    // Greets the viewer and fits the budget (34 <= 39), but states 8 numbers nobody asked for: 0.6^4 (the cap).
    const trace = withTrace(oracle, { final_reply: '小鱼晚上好，1号89.9元，2号59元，3号129元，4号39.9元' });
    expect(score(trace, task, {})).toEqual({
      value: 0.6 ** 4,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'unrequested numbers: 1, 89.9, 2, 59, 3, 129, 4, 39.9'],
      evidence: {
        ...plain,
        expect: 'answer',
        served: 1,
        cta: false,
        chars: 34,
        budget: 39,
        unrequested: [1, 89.9, 2, 59, 3, 129, 4, 39.9],
      },
    });
  });

  it('costs ×0.6 per distinct unrequested number, counting at most 4 (zh)', () => {
    const { task, oracle } = zhGreeting();
    const values = [1, 2, 3, 4, 5, 6].map((k) => {
      const nums = [11, 12, 13, 14, 15, 16].slice(0, k);
      return score(withTrace(oracle, { final_reply: `小鱼晚上好，${nums.join('、')}` }), task, {}).value;
    });
    expect(values).toEqual([0.6, 0.6 ** 2, 0.6 ** 3, 0.6 ** 4, 0.6 ** 4, 0.6 ** 4]);
    // A repeated number counts once.
    expect(score(withTrace(oracle, { final_reply: '小鱼晚上好，11、11、11' }), task, {}).value).toBe(0.6);
  });

  it('lets a reply state the asked, referenced and viewer-named numbers, but not the rest of the tool result (zh)', () => {
    const { task, oracle } = zhProductQa();
    // 1 is the viewer's (and the reference's), 89.9 the asked fact; the list price 129 is true (in the
    // evidence) but nobody asked for it.
    const trace = withTrace(oracle, { final_reply: '1号链接到手价89.9元，原价129元，直接拍' });
    expect(score(trace, task, {})).toEqual({
      value: 0.6,
      reasons: ['answers what was asked: 1/1 of the facts the message asks for', 'call to action present', 'unrequested numbers: 129'],
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 23, budget: 45, unrequested: [129] },
    });
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
      evidence: { ...plain, expect: 'answer', served: 1, cta: true, chars: 44, budget: 45 },
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
      evidence: { ...plain, expect: 'answer', served: 0, cta: true, chars: 8, budget: 45 },
    });
  });

  it('honours params (the budget, the per-number factor and its cap)', () => {
    const { task, oracle } = zhGreeting();
    const dump = withTrace(oracle, { final_reply: '小鱼晚上好，11、12、13' });
    expect(score(dump, task, { unrequested_factor: 0.5 }).value).toBe(0.125);
    expect(score(dump, task, { max_unrequested: 1 }).value).toBe(0.6);
    // 42 chars: over the default budget of 39, within max(ceil(19 × 1.5), 19 + 30) = 49 and within ceil(19 × 2.5) = 48.
    const padded = withTrace(oracle, {
      final_reply: '欢迎小鱼来到直播间，喜欢什么随时问我哦，今天的福利都在购物车里，想要什么随时告诉我哦',
    });
    expect(score(padded, task, {}).value).toBe(39 / 42);
    expect(score(padded, task, { budget_slack: 30 }).value).toBe(1);
    expect(score(padded, task, { budget_ratio: 2.5 }).value).toBe(1);
  });

  it('scores 0 without a final reply', () => {
    const { task, oracle } = enProductQa();
    expect(score(withTrace(oracle, { final_reply: null, outcome: 'error_cap' }), task, {})).toEqual({
      value: 0,
      reasons: ['no final reply (outcome error_cap)'],
    });
  });
});
