/**
 * The text tables of the prompt operators: separators, item styles, irrelevant context, and the
 * viewer-message fillers and typos. Paraphrased block titles, templates and items are data of the
 * harness directory (`paraphrases.yaml` `blocks`). Every table is a `SplitPool` whose `eval` half `train`
 * never sees. No entry contains a digit (numbers a reply may state come from tools and the room only).
 */
import type { Locale } from '../../protocol/domain.js';
import type { PromptSpec } from '../../protocol/harness.js';
import type { SplitPool } from './kit.js';

type PerLocale<T> = Record<Locale, T>;

/** Separators between prompt blocks (the base one, a blank line, is in neither half). */
export const SEPARATORS: SplitPool<string> = {
  train: ['\n\n---\n\n', '\n\n***\n\n', '\n\n\n'],
  eval: ['\n\n====\n\n', '\n\n###\n\n', '\n\n~~~~\n\n'],
};

/** List item styles (the base style, dash, is in neither half). */
export const ITEM_STYLES: SplitPool<PromptSpec['item_style']> = { train: ['numbered', 'bullet'], eval: ['prose'] };

/** Irrelevant paragraphs (`prompt.context.irrelevant`): no digits, nothing about products or prices. */
export const IRRELEVANT_CONTEXT: PerLocale<SplitPool<string>> = {
  'zh-CN': {
    train: [
      '直播间公告：今晚的背景音乐由运营同学挑选，弹幕区请大家文明发言、友好交流。',
      '场控备注：今天布景换了新的绿植，灯光也调得柔和了一些，镜头前保持整洁即可。',
      '主播闲话：最近天气转凉，不少观众说在被窝里看直播，记得提醒大家早点休息。',
      '运营提示：直播间的弹幕特效已更新，观众发送的表情会以气泡形式飘过屏幕。',
    ],
    eval: [
      '后台消息：本周的直播排班已经发到工作群，主播和场控请自行查看。',
      '场务备注：演播室空调有点吵，收音已经做了降噪处理，无需在直播中提及。',
      '直播间小记：常来的几位老观众喜欢在开场时刷“来了”，主播可以自然地打个招呼。',
      '运营闲谈：团队正在筹备下个月的主题布景，风格偏向复古，具体方案还在讨论。',
    ],
  },
  en: {
    train: [
      'Room notice: tonight the operations team picked the background music; please keep the chat friendly and respectful.',
      'Floor note: the set has new plants today and the lighting is a little softer; just keep the desk tidy on camera.',
      'Host chatter: the weather is turning cooler and many viewers say they watch from bed, so a reminder to rest early is welcome.',
      'Operations tip: chat effects were updated, and emoji that viewers send now float across the screen as bubbles.',
    ],
    eval: [
      "Back-office message: this week's host rota has been posted in the team group; hosts and floor managers please check it.",
      'Crew note: the studio air conditioning is a bit noisy, and the audio already filters it out; no need to mention it on air.',
      'Room diary: a few regular viewers like to type "here!" when the stream opens; a natural hello back is nice.',
      'Team chatter: the crew is planning a retro-styled set for next month, and the design is still being discussed.',
    ],
  },
};

/** Fillers a viewer may put before a message (`prompt.message.paraphrase`). */
export const MESSAGE_PREFIXES: PerLocale<SplitPool<string>> = {
  'zh-CN': { train: ['主播主播、', '请问一下，', '在吗？', '主播，'], eval: ['姐妹们问一下，', '主播看这里，', '打扰一下，', '小姐姐，'] },
  en: {
    train: ['hey host, ', 'quick question: ', 'hi there, ', 'um, '],
    eval: ['hello host, ', 'sorry to bother, ', 'question for you: ', 'ok so '],
  },
};

/**
 * Fillers a viewer may put after a message. Chinese ones are joined with "，" unless the message already
 * ends with punctuation; English ones with a space.
 */
export const MESSAGE_SUFFIXES: PerLocale<SplitPool<string>> = {
  'zh-CN': { train: ['谢谢', '求回复', '在线等'], eval: ['麻烦啦', '急', '蹲一个回复'] },
  en: { train: ['thanks!', 'pls answer', 'ty'], eval: ['cheers', 'anyone?', 'thx in advance'] },
};

/** A filler-word typo: `from` (a whole word in English) becomes `to`. */
export interface Typo {
  from: string;
  to: string;
}

/**
 * Typos on filler words and punctuation only (`prompt.message.typos`). None touches a digit, and none of
 * the `from` words occurs in a product title or a spec word (the tests check that over generated worlds).
 */
export const MESSAGE_TYPOS: PerLocale<SplitPool<Typo>> = {
  'zh-CN': {
    train: [
      { from: '吗', to: '嘛' },
      { from: '什么', to: '啥' },
      { from: '多少钱', to: '多少米' },
      { from: '呀', to: '鸭' },
      { from: '？', to: '？？' },
      { from: '主播', to: '主拨' },
    ],
    eval: [
      { from: '怎么', to: '咋' },
      { from: '没有', to: '木有' },
      { from: '可以', to: '阔以' },
      { from: '呢', to: '捏' },
      { from: '一下', to: '一哈' },
      { from: '吧', to: '叭' },
      { from: '这个', to: '介个' },
    ],
  },
  en: {
    train: [
      { from: 'you', to: 'u' },
      { from: 'please', to: 'pls' },
      { from: "what's", to: 'whats' },
      { from: "don't", to: 'dont' },
      { from: "I'm", to: 'im' },
      { from: "doesn't", to: 'doesnt' },
      { from: '?', to: '??' },
    ],
    eval: [
      { from: 'your', to: 'ur' },
      { from: 'are', to: 'r' },
      { from: 'thanks', to: 'thx' },
      { from: "it's", to: 'its' },
      { from: "can't", to: 'cant' },
      { from: 'the', to: 'teh' },
      { from: 'I', to: 'i' },
    ],
  },
};

/** A trailing flourish when no typo applies (the message must change visibly). */
export const MESSAGE_TAILS: PerLocale<SplitPool<string>> = {
  'zh-CN': { train: ['～', '？？'], eval: ['…', '！！'] },
  en: { train: [' ~', '??'], eval: ['...', '!!'] },
};
