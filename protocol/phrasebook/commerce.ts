/**
 * Reference replies of the purchase and marketing tasks that the memorizer was "trained" on: the task
 * generator (env/tasks/intents/commerce.ts) writes its reference replies from these tables, and the
 * memorizer (policies/memorizer-script.ts) answers with the same wording. `{link}` is "3号链接" / "link 3",
 * `{Link}` its capitalised en form "Link 3". Viewer messages, which only the generator uses, stay in the
 * intent module.
 */
import type { Phrase, Phrases } from './types.js';

/** The link card of the product on screen popped up, with its live price. Generator and memorizer use both wordings. */
export const BUY_CURRENT_REPLY: Phrases = {
  'zh-CN': ['宝宝们，{link}已经弹出来啦，直播价{price}元，点小黄车就能拍哦', '{link}弹出来啦，直播价{price}元'],
  en: ['{Link} is popped up now at {price} yuan, tap the cart to order!', '{Link} is up at {price} yuan, tap the cart!'],
};

/** Another link's card popped up (its price is not in the prompt, so the reply omits it). Generator and memorizer use both. */
export const BUY_LINK_REPLY: Phrases = {
  'zh-CN': ['宝宝，{link}已经给您弹出来啦，点小黄车就能拍哦', '{link}已经弹出来啦，点小黄车就能拍'],
  en: ['{Link} is popped up for you now, tap the cart to order!', '{Link} is up, tap the cart!'],
};

/**
 * How a coupon is named (`{t}` threshold, `{d}` discount, as tools print prices): in viewer messages and
 * reference replies of the generator, and in the memorizer's reply after it issued one.
 */
export const COUPON_NAME: Readonly<Record<'threshold' | 'no_minimum', Phrase>> = {
  threshold: { 'zh-CN': '满{t}减{d}的券', en: '{d}-off-{t} coupon' },
  no_minimum: { 'zh-CN': '{d}元无门槛券', en: '{d} yuan no-minimum coupon' },
};

/** A coupon was issued (`{c}`: its `COUPON_NAME`). Generator and memorizer use both wordings. */
export const COUPON_REPLY: Phrases = {
  'zh-CN': ['亲，已经给您发了{c}，拍{link}时就能用哦，快去下单吧', '已经给您发了{c}，下单就能用'],
  en: ["Done! I've sent you the {c}, use it on {link} at checkout.", 'Sent you the {c} for {link}!'],
};

/** A flash sale that starts or ends at `{time}` (a time as replies say it), at `{price}`. Generator and memorizer. */
export const FLASH_REPLY: Readonly<Record<'starts' | 'ends', Phrase>> = {
  starts: {
    'zh-CN': '亲，{link}的秒杀{time}开始，秒杀价{price}元，记得准时来抢哦',
    en: 'The flash sale on {link} starts {time} at {price} yuan, set a reminder!',
  },
  ends: {
    'zh-CN': '亲，{link}的秒杀{time}结束，秒杀价{price}元，想要的抓紧哦',
    en: 'The flash sale on {link} ends {time}, {price} yuan until then!',
  },
};

/** A gift with purchase (`{gift}`: its name). Generator and memorizer. */
export const GIFT_REPLY: Phrase = {
  'zh-CN': '亲，现在拍{link}送{gift}，赠品送完即止哦',
  en: '{link} comes with a free {gift} while gifts last!',
};
