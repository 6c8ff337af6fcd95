/**
 * Reference replies of the chit-chat and clarification tasks that the memorizer was "trained" on: the task
 * generator (env/tasks/intents/chat.ts) writes its answer keys' reference replies from these tables, and
 * the memorizer (policies/memorizer-script.ts) answers with the same wording. Viewer messages, which only
 * the generator uses, stay in the intent module; the memorizer's keyword rules are its own.
 */
import type { Phrase, Phrases } from './types.js';

/**
 * Greeting (`{nick}`: the viewer's nickname). The generator samples all three (the shortest in a
 * multi-intent part); the memorizer recalls the first and the last.
 */
export const GREETING_REPLY: Phrases = {
  'zh-CN': ['欢迎{nick}来到直播间，喜欢什么随时问我哦', '{nick}晚上好呀，欢迎欢迎，有想看的商品告诉我哦', '欢迎{nick}来到直播间'],
  en: [
    'Welcome, {nick}! Ask me anything about the products.',
    'Hi {nick}, great to see you! Tell me what you want to see.',
    'Welcome, {nick}!',
  ],
};

/** Thanks for a compliment. The generator samples both; the memorizer says the first. */
export const COMPLIMENT_REPLY: Phrases = {
  'zh-CN': ['谢谢宝宝夸奖，开心！有想了解的商品随时问我哦', '哈哈谢谢宝宝的支持，喜欢的话点个关注哦'],
  en: ['Thank you so much! Ask me about any product anytime.', "Aw, thanks! Hit follow if you're enjoying the stream."],
};

/** "Are you a real person?": the AI disclosure (`{name}`: the persona's name). Generator and memorizer. */
export const REAL_PERSON_REPLY: Phrase = {
  'zh-CN': '我是{name}，是直播间的AI数字人主播哦，商品的问题随时问我',
  en: "I'm {name}, the AI digital host of this room. Ask me anything about the products!",
};

/**
 * "When do you go offline?": no end time exists in the world, so no reply names one. The generator samples
 * both; the memorizer says the first.
 */
export const END_TIME_REPLY: Phrases = {
  'zh-CN': ['今晚会陪大家一段时间哦，下播前会提醒大家，喜欢的商品早点下单', '宝宝放心，下播前会跟大家说的，有问题随时问我'],
  en: [
    "I'll be here for a while tonight and will let you know before we wrap up!",
    "We'll announce it before the stream ends, so ask away meanwhile!",
  ],
};

/** "What's your name?" (`{name}`: the persona's name). Generator and memorizer. */
export const PERSONA_NAME_REPLY: Phrase = {
  'zh-CN': '我是{name}呀，欢迎来到直播间，有问题随时问我哦',
  en: "I'm {name}, welcome to the room! Ask me anything.",
};

/**
 * The clarifying question when a message could mean several links (`{c}`: "3号还是5号" / "link 3 or
 * link 5"; `{tail}`: "" or the colour, "的蓝色款" / " in blue"). Generator and memorizer.
 */
export const CLARIFY_REPLY: Phrase = {
  'zh-CN': '宝宝您问的是{c}链接{tail}呀？告诉我马上帮您看',
  en: 'Do you mean {c}{tail}? Tell me and I will check right away.',
};
