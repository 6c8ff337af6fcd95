/**
 * Reference replies of the product Q&A tasks that the memorizer was "trained" on: the task generator
 * (env/tasks/intents/product-qa.ts, and safety.ts for the FAQ answers of look-alike questions) writes its
 * reference replies from these tables, and the memorizer (policies/memorizer-script.ts) answers product
 * questions with the same wording. `{s}` is the reply's subject: "这款" / "3号链接" (zh), "This one" /
 * "Link 3" (en). Viewer messages, which only the generator uses, stay in the intent module.
 */
import type { Phrase, Phrases } from './types.js';

/** The live price (`{price}` as tools print it). The generator samples all three; the memorizer recalls the first and the last. */
export const PRICE_REPLY: Phrases = {
  'zh-CN': ['亲，{s}现在直播价{price}元哦，喜欢的宝宝可以去拍', '宝宝，{s}直播间价格是{price}元，感兴趣可以看看哦', '{s}直播价{price}元哦'],
  en: [
    '{s} is {price} yuan at the live price right now, grab it if you like it!',
    '{s} is {price} yuan in the live room now.',
    '{s} is {price} yuan live.',
  ],
};

/**
 * Stock, by the service's thresholds (0 sold out, 1-10 low; `{s}` names the SKU, `{stock}` the count).
 * Generator and memorizer use both wordings of each.
 */
export const STOCK_REPLY: Readonly<Record<'sold_out' | 'low' | 'in_stock', Phrases>> = {
  sold_out: {
    'zh-CN': ['亲，{s}已经售罄啦，可以看看其他规格哦', '{s}已经售罄啦'],
    en: ['Sorry, {s} is sold out now, maybe check the other options?', 'Sorry, {s} is sold out.'],
  },
  low: {
    'zh-CN': ['亲，{s}只剩{stock}件了，喜欢的抓紧拍哦', '{s}只剩{stock}件了'],
    en: ['Only {stock} left of {s}, grab it soon!', 'Only {stock} left of {s}.'],
  },
  in_stock: {
    'zh-CN': ['亲，{s}有货的，喜欢可以直接拍哦', '{s}有货的'],
    en: ['Yes, {s} is in stock, go ahead and order!', '{s} is in stock.'],
  },
};

/** An attribute of the product on screen (`{attr}`, `{value}`). The generator samples both; the memorizer says the first. */
export const ATTRIBUTE_REPLY: Phrases = {
  'zh-CN': ['亲，这款的{attr}是{value}哦', '宝宝，{attr}：{value}，详情页也写着哦'],
  en: ['The {attr} is {value}.', 'This one: {attr} is {value}.'],
};

/**
 * A FAQ answer (`{a}`), about the product on screen or about another link (`{link}`: "3号链接" / "link 3").
 * Generator (product Q&A and whitelisted look-alikes) and memorizer.
 */
export const FAQ_REPLY: Readonly<Record<'current' | 'other', Phrase>> = {
  current: { 'zh-CN': '亲，{a}', en: '{a}' },
  other: { 'zh-CN': '亲，{link}：{a}', en: 'For {link}: {a}' },
};

/** Shipping time and origin (`{h}` hours, `{from}`). Generator and memorizer. */
export const SHIPPING_REPLY: Phrase = {
  'zh-CN': '亲，{s}付款后{h}小时内发货，从{from}发出哦',
  en: '{s} ships within {h} hours of payment, from {from}.',
};

/**
 * The seven-day no-reason return policy: not supported, supported with an exclusion (`{x}`, its final
 * full stop dropped), or supported. Generator and memorizer.
 */
export const RETURN_POLICY_REPLY: Readonly<Record<'not_supported' | 'with_exclusion' | 'supported', Phrase>> = {
  not_supported: {
    'zh-CN': '亲，{s}不支持七天无理由退货哦，下单前可以看清详情',
    en: '{s} does not support seven-day no-reason returns, please check the details first.',
  },
  with_exclusion: { 'zh-CN': '亲，{s}支持七天无理由退货，不过{x}哦', en: '{s} supports seven-day no-reason returns. Note: {x}.' },
  supported: { 'zh-CN': '亲，{s}支持七天无理由退货，放心拍哦', en: '{s} supports seven-day no-reason returns.' },
};
