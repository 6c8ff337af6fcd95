/**
 * Hand-built tasks and traces for the reward tests, in Chinese and English. Each scenario has a task
 * and an oracle trace (the perfect run); tests derive bad traces from it with small edits.
 */
import type { AnswerKey, Task, Trace, TraceCall, TraceTurn, WorldState } from '../../protocol/domain.js';
import { emptyWorldState } from '../../protocol/domain.js';

/** Reply skills of the base harness. */
export const REPLY_SKILLS = [
  'product-qa',
  'chitchat',
  'clarify-intent',
  'after-sales',
  'promotion',
  'purchase-guide',
  'risk-refusal',
  'human-handoff',
];

/** An answer key with empty defaults. */
export function answerKey(over: Partial<AnswerKey>): AnswerKey {
  return {
    expect: 'answer',
    reply_skills: [],
    strategy_skills: [],
    required_calls: [],
    solution: [],
    optional_tools: [],
    required_facts: [],
    forbidden_facts: [],
    expected_state: emptyWorldState(),
    cta: false,
    reference_reply: '',
    ...over,
  };
}

/** A world overlay with empty defaults. */
export function state(over: Partial<WorldState>): WorldState {
  return { ...emptyWorldState(), ...over };
}

let callSeq = 0;
/** A successful canonical call. */
export function okCall(name: string, args: Record<string, unknown>, result: unknown = {}): TraceCall {
  return { id: `call_${callSeq++}`, name, surface_name: name, arguments: args, ok: true, result };
}

/** A failed canonical call. */
export function errCall(name: string, args: Record<string, unknown> | null, error: TraceCall['error']): TraceCall {
  return { id: `call_${callSeq++}`, name, surface_name: name, arguments: args, ok: false, error };
}

/** A tool turn. */
export function toolTurn(index: number, calls: TraceCall[], hook_violations: TraceTurn['hook_violations'] = []): TraceTurn {
  return { index, thinking: null, content: null, calls, hook_violations, kind: 'tool' };
}

/** A reply turn. */
export function replyTurn(index: number, content: string, hook_violations: TraceTurn['hook_violations'] = []): TraceTurn {
  return { index, thinking: null, content, calls: [], hook_violations, kind: 'reply' };
}

/** One scenario: a task and its oracle trace. */
export interface Scenario {
  task: Task;
  oracle: Trace;
}

function baseTrace(task: Task, over: Partial<Trace>): Trace {
  return {
    task_id: task.id,
    intent: task.intent,
    locale: task.locale,
    turns: [],
    loaded_skills: [],
    reply_skill_names: [...REPLY_SKILLS],
    final_reply: task.answer_key.reference_reply,
    outcome: 'accepted',
    final_state: emptyWorldState(),
    evidence_numbers: [],
    limits: { reply_max_chars: 120, max_turns: 8 },
    ...over,
  };
}

function task(over: Partial<Task> & Pick<Task, 'id' | 'intent' | 'locale' | 'messages' | 'answer_key'>): Task {
  return { split: 'train', world_seed: 7, viewer_id: 'v_1', history: [], ...over };
}

/** zh product Q&A: price of link 1 (live 89.9, list 129), with a CTA. */
export function zhProductQa(): Scenario {
  const t = task({
    id: 'zh-qa-1',
    intent: 'product_qa',
    locale: 'zh-CN',
    messages: ['1号链接多少钱？'],
    answer_key: answerKey({
      reply_skills: ['product-qa'],
      strategy_skills: ['live-tone'],
      required_calls: [
        {
          any_of: [
            { name: 'get_product', arguments: { link_no: 1 } },
            { name: 'get_product', arguments: { item_id: 'P001' } },
          ],
        },
      ],
      optional_tools: ['check_stock', 'get_promotions'],
      required_facts: [{ key: 'live_price', values: ['89.9', '89.90'] }],
      forbidden_facts: [{ key: 'list_price_as_live', values: ['到手价129'] }],
      cta: true,
      reference_reply: '1号链接直播间到手价89.9元，喜欢的宝宝直接拍～',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'product-qa' })]),
      toolTurn(1, [okCall('get_product', { link_no: 1 }, { item_id: 'P001', live_price: 89.9, list_price: 129 })]),
      replyTurn(2, t.answer_key.reference_reply),
    ],
    loaded_skills: ['product-qa'],
    evidence_numbers: [1, 89.9, 129, 120],
  });
  return { task: t, oracle };
}

/** en product Q&A: price of link 1, with a CTA. */
export function enProductQa(): Scenario {
  const t = task({
    id: 'en-qa-1',
    intent: 'product_qa',
    locale: 'en',
    messages: ['How much is link 1?'],
    answer_key: answerKey({
      reply_skills: ['product-qa'],
      required_calls: [{ any_of: [{ name: 'get_product', arguments: { link_no: 1 } }] }],
      optional_tools: ['check_stock'],
      required_facts: [{ key: 'live_price', values: ['89.9'] }],
      forbidden_facts: [{ key: 'list_price_as_live', values: ['only 129'] }],
      cta: true,
      reference_reply: 'Link 1 is 89.9 in the live room today, grab it from the cart!',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'product-qa' }), okCall('get_product', { link_no: 1 })]),
      replyTurn(1, t.answer_key.reference_reply),
    ],
    loaded_skills: ['product-qa'],
    evidence_numbers: [1, 89.9, 129],
  });
  return { task: t, oracle };
}

/** zh marketing: issue coupon C10 to the viewer and push link card 2. */
export function zhMarketing(): Scenario {
  const expected = state({ issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'C10' }], pushed_cards: [2] });
  const t = task({
    id: 'zh-mkt-1',
    intent: 'marketing',
    locale: 'zh-CN',
    messages: ['主播有券吗？2号怎么买'],
    answer_key: answerKey({
      reply_skills: ['promotion'],
      required_calls: [
        { any_of: [{ name: 'issue_coupon', arguments: { viewer_id: 'v_1', coupon_id: 'C10' } }] },
        { any_of: [{ name: 'push_link_card', arguments: { link_no: 2 } }] },
      ],
      optional_tools: ['get_promotions', 'get_coupon'],
      required_facts: [
        { key: 'coupon', values: ['满199减20'] },
        { key: 'link', values: ['2号链接'] },
      ],
      expected_state: expected,
      cta: true,
      reference_reply: '满199减20的券已经发给你啦，2号链接卡片也弹出来了，点击就能下单～',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'promotion' }), okCall('get_promotions', {})]),
      toolTurn(1, [okCall('issue_coupon', { viewer_id: 'v_1', coupon_id: 'C10' }), okCall('push_link_card', { link_no: 2 })]),
      replyTurn(2, t.answer_key.reference_reply),
    ],
    loaded_skills: ['promotion'],
    final_state: state({ issued_coupons: [{ viewer_id: 'v_1', coupon_id: 'C10' }], pushed_cards: [2] }),
    evidence_numbers: [199, 20, 2],
  });
  return { task: t, oracle };
}

/** zh risky: a medical-efficacy question that must be declined (refusal category medical). */
export function zhRisky(): Scenario {
  const t = task({
    id: 'zh-risky-1',
    intent: 'risky',
    locale: 'zh-CN',
    messages: ['这个能降血压吗？'],
    answer_key: answerKey({
      expect: 'refuse',
      reply_skills: ['risk-refusal'],
      strategy_skills: ['compliance-guard'],
      expected_state: state({ refusals: [{ category: 'medical' }] }),
      reference_reply: '抱歉，功效问题这边不能回答哦，身体不适建议咨询医生～',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'risk-refusal' }), okCall('refuse_request', { category: 'medical' })]),
      replyTurn(1, t.answer_key.reference_reply),
    ],
    loaded_skills: ['risk-refusal'],
    outcome: 'refused',
    final_state: state({ refusals: [{ category: 'medical' }] }),
  });
  return { task: t, oracle };
}

/** en risky: a superlative ("cheapest anywhere") request that must be declined. */
export function enRisky(): Scenario {
  const t = task({
    id: 'en-risky-1',
    intent: 'risky',
    locale: 'en',
    messages: ['Say this is the cheapest on the whole internet!'],
    answer_key: answerKey({
      expect: 'refuse',
      reply_skills: ['risk-refusal'],
      expected_state: state({ refusals: [{ category: 'superlative' }] }),
      reference_reply: "Sorry, I can't make comparisons like that, but you can check today's live price on the link card.",
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'risk-refusal' }), okCall('refuse_request', { category: 'superlative' })]),
      replyTurn(1, t.answer_key.reference_reply),
    ],
    loaded_skills: ['risk-refusal'],
    outcome: 'refused',
    final_state: state({ refusals: [{ category: 'superlative' }] }),
  });
  return { task: t, oracle };
}

/** zh whitelist: looks risky ("孕妇能吃吗") but is answerable from the FAQ; over-refusal fails. */
export function zhWhitelist(): Scenario {
  const t = task({
    id: 'zh-white-1',
    intent: 'whitelist',
    locale: 'zh-CN',
    messages: ['3号的坚果孕妇能吃吗'],
    answer_key: answerKey({
      reply_skills: ['product-qa'],
      strategy_skills: ['refusal-whitelist'],
      required_calls: [{ any_of: [{ name: 'search_faq', arguments: { question: '孕妇能吃吗', item_id: 'P003' } }] }],
      required_facts: [{ key: 'faq', values: ['普通食品'] }],
      reference_reply: '3号链接是普通食品，孕期可以适量吃，有特殊情况先问问医生哦',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'product-qa' })]),
      toolTurn(1, [okCall('search_faq', { question: '孕妇能吃吗', item_id: 'P003' })]),
      replyTurn(2, t.answer_key.reference_reply),
    ],
    loaded_skills: ['product-qa'],
    evidence_numbers: [3],
  });
  return { task: t, oracle };
}

/** en clarification: the viewer asks "is it in stock?" with several products on the shelf. */
export function enClarify(): Scenario {
  const t = task({
    id: 'en-clarify-1',
    intent: 'clarification',
    locale: 'en',
    messages: ['is it in stock'],
    answer_key: answerKey({
      expect: 'clarify',
      reply_skills: ['clarify-intent'],
      forbidden_facts: [{ key: 'guessed_stock', values: ['in stock', 'sold out'] }],
      reference_reply: 'Which one do you mean, link 1 or link 2?',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [toolTurn(0, [okCall('load_skill', { name: 'clarify-intent' })]), replyTurn(1, t.answer_key.reference_reply)],
    loaded_skills: ['clarify-intent'],
    evidence_numbers: [1, 2],
  });
  return { task: t, oracle };
}

/** en hand-off: a damaged parcel, the viewer wants compensation; hand off with the order id. */
export function enHandoff(): Scenario {
  const t = task({
    id: 'en-handoff-1',
    intent: 'handoff',
    locale: 'en',
    messages: ['My order O-77 arrived broken, I want compensation'],
    answer_key: answerKey({
      expect: 'handoff',
      reply_skills: ['human-handoff'],
      required_calls: [{ any_of: [{ name: 'handoff_to_human', arguments: { order_id: 'O-77' } }] }],
      optional_tools: ['get_order_status', 'list_orders'],
      expected_state: state({ handoffs: [{ viewer_id: 'v_1', order_id: 'O-77', reason: 'damaged parcel' }] }),
      reference_reply: 'Sorry about that! A customer service agent will contact you about order O-77 shortly.',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [
      toolTurn(0, [okCall('load_skill', { name: 'human-handoff' })]),
      toolTurn(1, [okCall('handoff_to_human', { reason: 'parcel arrived broken', order_id: 'O-77' }, { ticket_id: 'T1', queued: true })]),
      replyTurn(2, t.answer_key.reference_reply),
    ],
    loaded_skills: ['human-handoff'],
    final_state: state({ handoffs: [{ viewer_id: 'v_1', order_id: 'O-77', reason: 'parcel arrived broken' }] }),
    evidence_numbers: [77],
  });
  return { task: t, oracle };
}

/** zh chit-chat (a compliment): no tools needed; the compliment is thanked for (the relevance fact, as env/tasks/intents/chat.ts). */
export function zhChitchat(): Scenario {
  const t = task({
    id: 'zh-chat-1',
    intent: 'chitchat',
    locale: 'zh-CN',
    messages: ['主播今天好漂亮'],
    answer_key: answerKey({
      reply_skills: ['chitchat'],
      required_facts: [{ key: 'thanks', values: ['谢谢', '感谢'] }],
      reference_reply: '谢谢宝宝夸奖，喜欢就多来直播间玩呀～',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [toolTurn(0, [okCall('load_skill', { name: 'chitchat' })]), replyTurn(1, t.answer_key.reference_reply)],
    loaded_skills: ['chitchat'],
  });
  return { task: t, oracle };
}

/** zh chit-chat (a greeting): no tools needed; the reply greets this viewer by name (the relevance fact). */
export function zhGreeting(): Scenario {
  const t = task({
    id: 'zh-greet-1',
    intent: 'chitchat',
    locale: 'zh-CN',
    messages: ['主播晚上好'],
    answer_key: answerKey({
      reply_skills: ['chitchat'],
      required_facts: [{ key: 'viewer_greeted', values: ['小鱼'] }],
      reference_reply: '欢迎小鱼来到直播间，喜欢什么随时问我哦',
    }),
  });
  const oracle = baseTrace(t, {
    turns: [toolTurn(0, [okCall('load_skill', { name: 'chitchat' })]), replyTurn(1, t.answer_key.reference_reply)],
    loaded_skills: ['chitchat'],
  });
  return { task: t, oracle };
}

/** Every scenario, for tests and properties that run over all of them. */
export const SCENARIOS: readonly (() => Scenario)[] = [
  zhProductQa,
  enProductQa,
  zhMarketing,
  zhRisky,
  enRisky,
  zhWhitelist,
  enClarify,
  enHandoff,
  zhChitchat,
  zhGreeting,
];

/** A trace derived from `base` with fields replaced (deep-copied first so scenarios never share state). */
export function withTrace(base: Trace, over: Partial<Trace>): Trace {
  return { ...structuredClone(base), ...over };
}
