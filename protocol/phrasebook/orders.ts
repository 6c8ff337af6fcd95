/**
 * Reference replies of the after-sales and hand-off tasks that the memorizer was "trained" on: the task
 * generator (env/tasks/intents/orders.ts) writes its reference replies from these tables, and the
 * memorizer (policies/memorizer-script.ts) answers order questions with the same wording. `{t}` is the
 * order's product title. Viewer messages and the status words the answer key checks, which only the
 * generator uses, stay in the intent module.
 */
import type { Phrase, Phrases } from './types.js';

/**
 * An order's status, one wording per status (keyed by the services' order statuses; env/tasks/intents/
 * orders.ts indexes it with mock-services' `OrderStatus`, so a status without a wording fails to compile
 * there). Generator and memorizer.
 */
export const ORDER_STATUS_REPLY = {
  unpaid: {
    'zh-CN': '亲，您的{t}订单还没付款哦，付款后就会安排',
    en: 'Your {t} order is not paid yet; it will be arranged after payment.',
  },
  paid: { 'zh-CN': '亲，您的{t}还没发货，仓库正在安排，请耐心等一下哦', en: 'Your {t} is not shipped yet; the warehouse is preparing it.' },
  shipped: { 'zh-CN': '亲，您的{t}已经发货了，请留意物流信息哦', en: 'Your {t} has shipped; please keep an eye on the tracking.' },
  delivered: { 'zh-CN': '亲，您的{t}已签收了哦，使用有问题随时找我', en: 'Your {t} was delivered; let me know if anything is wrong.' },
  refunding: {
    'zh-CN': '亲，您的{t}订单正在退款中，请留意退款进度哦',
    en: 'Your {t} order is being refunded; please watch the refund progress.',
  },
  closed: {
    'zh-CN': '亲，您的{t}订单已关闭了哦，需要的话可以重新下单',
    en: 'Your {t} order is closed; you can place a new order if you like.',
  },
} as const satisfies Readonly<Record<string, Phrase>>;

/**
 * A shipped or delivered order with its tracking number (`{s}`: one of `TRACKING_STATUS`, `{no}`).
 * Generator and memorizer use both wordings.
 */
export const TRACKING_REPLY: Phrases = {
  'zh-CN': ['亲，您的{t}{s}，快递单号{no}，请留意物流哦', '您的{t}{s}，单号{no}'],
  en: ['Your {t} has {s}, tracking number {no}.', 'Your {t} has {s}, tracking {no}.'],
};

/** The `{s}` of `TRACKING_REPLY`. Generator and memorizer. */
export const TRACKING_STATUS: Readonly<Record<'shipped' | 'delivered', Phrase>> = {
  shipped: { 'zh-CN': '已经发货了', en: 'shipped' },
  delivered: { 'zh-CN': '已签收了', en: 'been delivered' },
};

/**
 * A returnable order, with the deadline (`{d}`, a time as replies say it) or without one. The second
 * wording of each drops the title (long titles, or titles a reply must not repeat). Generator and memorizer.
 */
export const RETURN_ELIGIBLE_REPLY: Readonly<Record<'by_deadline' | 'anytime', Phrases>> = {
  by_deadline: {
    'zh-CN': ['亲，您的{t}可以申请退货，{d}前在订单页申请就行哦', '亲，这单可以申请退货，{d}前在订单页申请就行哦'],
    en: ['Your {t} can be returned; apply on the order page before {d}.', 'That order can be returned; apply before {d}.'],
  },
  anytime: {
    'zh-CN': ['亲，您的{t}可以申请退货，在订单页申请就行哦', '亲，这单可以申请退货，在订单页申请就行哦'],
    en: ['Your {t} can be returned; just apply on the order page.', 'That order can be returned; apply on the order page.'],
  },
};

/** An order that cannot be returned (`{r}`: the service's reason, final full stop dropped). As above, the second drops the title. */
export const RETURN_INELIGIBLE_REPLY: Phrases = {
  'zh-CN': ['亲，您的{t}暂时不能退货，原因是{r}，有疑问可以联系客服哦', '亲，这单暂时不能退货：{r}'],
  en: ['Sorry, your {t} cannot be returned: {r}.', 'Sorry, that order cannot be returned: {r}.'],
};

/**
 * The hand-off to a human: an apology that routes the case and promises no outcome. The generator samples
 * both; the memorizer says the first.
 */
export const HANDOFF_REPLY: Phrases = {
  'zh-CN': [
    '亲，非常抱歉给您带来不便，已经为您转接人工客服处理，请留意消息哦',
    '亲，抱歉让您久等了，这个问题已经转给人工客服跟进，请稍等哦',
  ],
  en: [
    "So sorry about that! I've passed this to our human support team; please watch for their message.",
    'Sorry for the trouble. A human agent now has your case; please keep an eye on your messages.',
  ],
};
