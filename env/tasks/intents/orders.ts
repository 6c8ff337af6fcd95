/**
 * Order-related intents: after-sales questions (~7%: return eligibility, shipping status) and hand-offs to
 * a human (~1%: damaged goods, compensation demands, address changes after shipping). The viewer names
 * the order by the product's title, so the agent must list the viewer's orders to find its id.
 */
import type { Fact } from '../../../protocol/domain.js';
import {
  HANDOFF_REPLY,
  ORDER_STATUS_REPLY,
  RETURN_ELIGIBLE_REPLY,
  RETURN_INELIGIBLE_REPLY,
  TRACKING_REPLY,
  TRACKING_STATUS,
} from '../../../protocol/phrasebook/index.js';
import { charLength } from '../../../protocol/text.js';
import type { Order, OrderStatus, Product, Viewer } from '../../../mock-services/index.js';
import type { BuildContext, Draft, SubKind } from '../kit.js';
import { L, REFERENCE_MAX_CHARS, answerFactValues, draft, fill, productById, req, say, sayClock, sayRef } from '../kit.js';

/** An order the viewer can name unambiguously by its product's title. */
interface NamedOrder {
  viewer: Viewer;
  order: Order;
  product: Product;
}

/** Orders of viewers (the fixed one, if any) whose product is unique among that viewer's orders. */
function namedOrders(ctx: BuildContext, statuses?: readonly OrderStatus[]): NamedOrder[] {
  const viewers = ctx.viewer ? [ctx.viewer] : ctx.world.viewers;
  // Each viewer's orders in world order, grouped in one pass.
  const byViewer = new Map<string, Order[]>();
  for (const o of ctx.world.orders) {
    const mine = byViewer.get(o.viewer_id);
    if (mine === undefined) byViewer.set(o.viewer_id, [o]);
    else mine.push(o);
  }
  const out: NamedOrder[] = [];
  for (const viewer of viewers) {
    const orders = byViewer.get(viewer.viewer_id) ?? [];
    for (const order of orders) {
      if (statuses && !statuses.includes(order.status)) continue;
      const product = productById(ctx.world, order.item_id);
      if (!product) continue;
      if (orders.filter((o) => o.item_id === order.item_id).length > 1) continue;
      out.push({ viewer, order, product });
    }
  }
  return out;
}

/** The outcome data of a call, or null when the service refused it (the sub-kind then yields). */
function data<T>(ctx: BuildContext, name: string, args: { [key: string]: unknown }, viewerId: string): T | null {
  const out = ctx.call(name, args, viewerId);
  return out.ok ? (out.data as T) : null;
}

// ---------------------------------------------------------------------------------------------------
// After-sales
// ---------------------------------------------------------------------------------------------------

const AFTER = ['after-sales'];

interface Eligibility {
  eligible: boolean;
  reason_code: string;
  reason: string;
  deadline?: string;
}

const returnEligibility = (ctx: BuildContext): Draft | null => {
  const all = namedOrders(ctx);
  if (all.length === 0) return null;
  const { viewer, order, product } = ctx.rng.pick(all);
  const e = data<Eligibility>(ctx, 'check_return_eligibility', { order_id: order.order_id }, viewer.viewer_id);
  if (!e) return null;
  const title = product.title;
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['我买的{t}能退吗', '之前拍的{t}想退货可以吗', '{t}不想要了能退吗', '主播 我的{t}还能退货吗'],
      ['can I return the {t} I bought?', 'I want to return my {t}, is that ok?', "I don't want the {t} anymore, can I return it?"],
    ),
    { t: title },
  );
  let templates: readonly string[];
  let facts: Fact[];
  let forbid: Fact[] = [];
  const by = e.deadline ? sayClock(e.deadline, ctx.locale) : null;
  if (e.eligible) {
    templates = by ? RETURN_ELIGIBLE_REPLY.by_deadline[ctx.locale] : RETURN_ELIGIBLE_REPLY.anytime[ctx.locale];
    // "It's within the 7-day window, request it by ..." answers "can I return it?" as well as "yes, you can".
    facts = [
      {
        key: 'eligible',
        values: L(
          ctx.locale,
          ['可以申请退', '可以退', '支持退', '在七天无理由期内', '还在退货期内'],
          ['eligible', 'can return', 'can be returned', 'within the return window', 'request a return'],
        ),
      },
    ];
    forbid = [{ key: 'not_eligible_claim', values: L(ctx.locale, ['不能退', '不支持退'], ['cannot be returned', 'not eligible']) }];
  } else {
    templates = RETURN_INELIGIBLE_REPLY[ctx.locale];
    facts = [{ key: `not_eligible:${e.reason_code}`, values: answerFactValues(e.reason) }];
  }
  // Long titles or reasons push the reply past the limit; the shorter wording then drops the title.
  const vars = { t: title, d: by?.phrase ?? '', r: e.reason.replace(/[。.]$/, '') };
  const reference =
    templates.map((t) => fill(t, vars)).find((s) => charLength(s) <= REFERENCE_MAX_CHARS) ?? fill(templates[templates.length - 1], vars);
  return draft('return_eligibility', viewer.viewer_id, [message], [], {
    reply_skills: AFTER,
    required_calls: [req('list_orders', { viewer_id: viewer.viewer_id }), req('check_return_eligibility', { order_id: order.order_id })],
    optional_tools: ['get_order_status', 'get_product', 'search_faq'],
    required_facts: facts,
    forbidden_facts: forbid,
    reference_reply: reference,
  });
};

interface StatusResult {
  status: OrderStatus;
  tracking_no?: string;
  carrier?: string;
}

/** Status words a reply uses, and the opposite claims a wrong reply makes. */
const STATUS_WORDS: Record<OrderStatus, { zh: string[]; en: string[]; zhNot: string[]; enNot: string[] }> = {
  unpaid: {
    zh: ['未付款', '待付款', '还没付款'],
    en: ['unpaid', 'not paid', 'awaiting payment'],
    zhNot: ['已发货'],
    enNot: ['has shipped', 'already shipped'],
  },
  paid: {
    zh: ['还没发货', '待发货', '未发货', '还未发货'],
    en: ['not shipped yet', 'not yet shipped', "hasn't shipped", 'awaiting shipment'],
    zhNot: ['已发货', '已签收'],
    enNot: ['has shipped', 'already shipped', 'delivered'],
  },
  shipped: {
    zh: ['已发货', '已经发货', '发货了'],
    en: ['shipped', 'on its way'],
    zhNot: ['还没发货', '未发货', '已签收'],
    enNot: ['not shipped', 'not yet shipped', 'delivered'],
  },
  delivered: {
    zh: ['已签收', '签收了', '已送达'],
    en: ['delivered'],
    zhNot: ['还没发货', '未发货'],
    enNot: ['not shipped', 'not delivered'],
  },
  refunding: { zh: ['退款中', '正在退款'], en: ['refund is in progress', 'refunding', 'being refunded'], zhNot: ['已发货'], enNot: [] },
  closed: { zh: ['已关闭', '关闭了'], en: ['closed'], zhNot: ['已发货'], enNot: [] },
};

const orderStatus = (ctx: BuildContext): Draft | null => {
  const all = namedOrders(ctx);
  if (all.length === 0) return null;
  const { viewer, order, product } = ctx.rng.pick(all);
  const r = data<StatusResult>(ctx, 'get_order_status', { order_id: order.order_id }, viewer.viewer_id);
  if (!r) return null;
  const title = product.title;
  // "Still hasn't arrived" is said only of a parcel on its way: of an order paid this morning, delivered or
  // closed, the viewer's own words would deny the data.
  const late = r.status === 'shipped';
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['我的{t}发货了吗', '{t}到哪了', ...(late ? ['拍的{t}怎么还没到'] : []), '主播 帮我看下{t}的物流'],
      ['has my {t} shipped?', "where's my {t}?", ...(late ? ["my {t} still hasn't arrived"] : []), 'can you check the shipping on my {t}?'],
    ),
    { t: title },
  );
  const words = STATUS_WORDS[r.status];
  const facts: Fact[] = [{ key: 'order_status', values: L(ctx.locale, words.zh, words.en) }];
  let reference = fill(ORDER_STATUS_REPLY[r.status][ctx.locale], { t: title });
  if (r.tracking_no && (r.status === 'shipped' || r.status === 'delivered')) {
    // The tracking number answers "where is it?" of a parcel on its way; "has it shipped?" and a parcel
    // already delivered are answered by the status (the reference reply may still give it).
    const asksShipped = message === fill(L(ctx.locale, ['我的{t}发货了吗'], ['has my {t} shipped?'])[0], { t: title });
    if (r.status === 'shipped' && !asksShipped) facts.push({ key: 'tracking_no', values: [r.tracking_no] });
    reference = sayRef(ctx, TRACKING_REPLY[ctx.locale], { t: title, s: TRACKING_STATUS[r.status][ctx.locale], no: r.tracking_no });
  }
  const forbid = L(ctx.locale, words.zhNot, words.enNot);
  return draft('order_status', viewer.viewer_id, [message], [], {
    reply_skills: AFTER,
    required_calls: [req('list_orders', { viewer_id: viewer.viewer_id }), req('get_order_status', { order_id: order.order_id })],
    optional_tools: ['check_return_eligibility', 'get_product'],
    required_facts: facts,
    forbidden_facts: forbid.length > 0 ? [{ key: 'wrong_status', values: forbid }] : [],
    reference_reply: reference,
  });
};

/** After-sales sub-kinds. */
export const AFTER_SALES_KINDS: readonly SubKind[] = [
  { name: 'return_eligibility', weight: 1, build: returnEligibility },
  { name: 'order_status', weight: 1, build: orderStatus },
];

/** After-sales builders reused by the multi-intent composer. */
export const AFTER_SALES_PARTS = { orderStatus };

// ---------------------------------------------------------------------------------------------------
// Hand-off
// ---------------------------------------------------------------------------------------------------

const HANDOFF_MSG = {
  damaged: {
    zh: ['收到的{t}是坏的', '{t}到了发现破损了 怎么办', '我的{t}收到就坏了'],
    en: ['my {t} arrived damaged', 'the {t} I got is broken', 'received the {t} and it is cracked'],
  },
  compensation: {
    zh: ['{t}质量太差了 我要赔偿', '买的{t}有问题 你们得赔钱', '{t}用了两天就坏 必须给个说法'],
    en: [
      'the {t} is terrible, I want compensation',
      'my {t} is faulty, you need to pay me back',
      'the {t} broke already, I demand compensation',
    ],
  },
  complaint: {
    zh: ['{t}这单有问题 帮我转人工', '我要投诉 买的{t}', '{t}的订单我要找人工客服'],
    en: ['I want to complain about my {t} order', 'get me a human about my {t} order', 'I need a real person for my {t} order'],
  },
  address_change: {
    zh: ['{t}已经发货了 能改地址吗', '我的{t}地址填错了 发货了还能改吗', '帮我把{t}的收货地址改一下'],
    en: [
      'my {t} already shipped, can I change the address?',
      'wrong address on my {t} order and it shipped, help',
      'please change the delivery address for my {t}',
    ],
  },
};

function handoffBuilder(sub: keyof typeof HANDOFF_MSG, statuses?: readonly OrderStatus[]) {
  return (ctx: BuildContext): Draft | null => {
    const all = namedOrders(ctx, statuses);
    if (all.length === 0) return null;
    const { viewer, order, product } = ctx.rng.pick(all);
    const table = HANDOFF_MSG[sub];
    const message = say(ctx.rng, L(ctx.locale, table.zh, table.en), { t: product.title });
    // The reply apologises and routes the case; it promises no outcome (no refund, no compensation).
    const reference = say(ctx.rng, HANDOFF_REPLY[ctx.locale]);
    return draft(sub, viewer.viewer_id, [message], [], {
      expect: 'handoff',
      reply_skills: ['human-handoff'],
      required_calls: [req('list_orders', { viewer_id: viewer.viewer_id }), req('handoff_to_human', { order_id: order.order_id })],
      solution: [
        { name: 'list_orders', arguments: { viewer_id: viewer.viewer_id } },
        { name: 'handoff_to_human', arguments: { reason: message, order_id: order.order_id } },
      ],
      optional_tools: ['get_order_status', 'check_return_eligibility'],
      required_facts: [{ key: 'handoff', values: L(ctx.locale, ['人工'], ['human']) }],
      forbidden_facts: [{ key: 'promise', values: L(ctx.locale, ['包赔', '一定退款', '马上退款'], ['full refund', 'we will compensate']) }],
      expected_state: { handoffs: [{ viewer_id: viewer.viewer_id, order_id: order.order_id, reason: '' }] },
      reference_reply: reference,
    });
  };
}

/** Hand-off sub-kinds (damaged goods need a delivered order, an address change a shipped one). */
export const HANDOFF_KINDS: readonly SubKind[] = [
  { name: 'damaged', weight: 2, build: handoffBuilder('damaged', ['delivered']) },
  // "It broke after two days" is said of goods received: a delivered order (not one still on its way).
  { name: 'compensation', weight: 1, build: handoffBuilder('compensation', ['delivered']) },
  { name: 'address_change', weight: 1, build: handoffBuilder('address_change', ['shipped']) },
  // Any order can be escalated on request; this also keeps worlds without shipped orders covered.
  { name: 'complaint', weight: 1, build: handoffBuilder('complaint') },
];
