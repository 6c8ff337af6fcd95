/**
 * The word tables of the skill operators that hold for any harness: case styles, opaque prefixes, rule
 * layouts, distractor skills and near-duplicate patterns. Wordings of a harness's own skills (synonyms,
 * locale-style names, description paraphrases) are data of its directory: `paraphrases.yaml`. Every
 * table is a `SplitPool`: the `eval` half is held out, so the `eval` preset measures whether a policy
 * generalises to surface forms it never trained on. No entry contains a digit: numbers a reply may state
 * come from tools and the room, never from harness text.
 */
import type { Locale } from '../../protocol/domain.js';
import type { SplitPool } from './kit.js';

/** A value per harness locale. */
export type PerLocale<T> = Record<Locale, T>;

/** Case styles for `skills.rename.case` (the base style is kebab-case, so it is in neither half). */
export const CASE_STYLES: SplitPool<'snake' | 'camel' | 'pascal' | 'upper_snake' | 'dot'> = {
  train: ['snake', 'camel', 'upper_snake'],
  eval: ['pascal', 'dot'],
};

/** Prefixes of opaque skill ids (`skills.rename.opaque`): `s_3f9a2c`, `skill_…` vs `sk-…`, `x…`. */
export const OPAQUE_PREFIXES: SplitPool<string> = { train: ['s_', 'skill_'], eval: ['sk-', 'x'] };

/** Rule numbering formats (`skills.rules.numbering`); `{n}` is the rule's ordinal. */
export const NUMBERING_STYLES: PerLocale<SplitPool<string>> = {
  'zh-CN': { train: ['{n}. ', '{n}）', '第{n}条：'], eval: ['（{n}）', '{n}、', '规则{n}：'] },
  en: { train: ['{n}. ', '{n}) ', 'Rule {n}: '], eval: ['({n}) ', 'Step {n}: ', '[{n}] '] },
};

/** Rule layouts (`skills.rules.format`): another list marker, or prose (joined into one paragraph). */
export const RULE_FORMATS: SplitPool<string> = { train: ['• ', '* ', 'prose'], eval: ['→ ', '+ ', 'prose-semicolon'] };

/** A skill that serves nothing the viewer asks (`skills.distractor`). */
export interface DistractorSkill {
  name: string;
  text: PerLocale<{ description: string; body: string }>;
}

/** Irrelevant skills: host-side routines that never answer a viewer. */
export const DISTRACTOR_SKILLS: SplitPool<DistractorSkill> = {
  train: [
    {
      name: 'lottery-host',
      text: {
        'zh-CN': {
          description: '抽奖环节的主持流程，仅在运营开启抽奖时由主播口播使用，不用于回复观众提问。',
          body: '# 抽奖主持\n\n- 只在运营后台开启抽奖后使用。\n- 口播抽奖规则和开奖方式，中奖名单以后台公示为准。\n- 不用来回答任何观众的商品或订单问题。',
        },
        en: {
          description: 'Script for hosting the lottery segment, used only when operations start a lottery; not for answering viewers.',
          body: '# Lottery host\n\n- Use only after operations start a lottery in the back office.\n- Announce the draw rules; winners are as published by the back office.\n- Never use it to answer a viewer question about products or orders.',
        },
      },
    },
    {
      name: 'weather-smalltalk',
      text: {
        'zh-CN': {
          description: '开场天气口播的固定稿，只在开播第一段由主播念，不用于回复弹幕。',
          body: '# 开场天气口播\n\n- 只在开播开场念一次。\n- 简单说说今天天气，提醒大家注意冷暖。\n- 不用来回复观众的任何弹幕。',
        },
        en: {
          description: 'Fixed weather script read once at the opening of the stream; not for replying to chat messages.',
          body: '# Opening weather segment\n\n- Read it once at the start of the stream.\n- Mention the weather briefly and remind everyone to dress for it.\n- Never use it to reply to a chat message.',
        },
      },
    },
    {
      name: 'live-countdown',
      text: {
        'zh-CN': {
          description: '下播前倒计时的口播稿，由场控提示后使用，与观众问题无关。',
          body: '# 下播倒计时\n\n- 场控提示快下播时使用。\n- 感谢大家陪伴，预告下一场的主题。\n- 不用来回答观众问题。',
        },
        en: {
          description: 'End-of-stream countdown script, used when the floor manager signals; unrelated to viewer questions.',
          body: '# End-of-stream countdown\n\n- Use it when the floor manager signals the end of the stream.\n- Thank everyone and tease the theme of the next stream.\n- Never use it to answer a viewer.',
        },
      },
    },
    {
      name: 'fan-badge-notes',
      text: {
        'zh-CN': {
          description: '粉丝团等级的内部说明，供运营同学查阅，不用于直播回复。',
          body: '# 粉丝团说明\n\n- 仅供运营内部查阅。\n- 记录粉丝团等级和点亮方式的说明。\n- 直播中不要按它回复观众。',
        },
        en: {
          description: 'Internal notes on fan-club badge levels for the operations team; not for live replies.',
          body: '# Fan-club notes\n\n- For the operations team only.\n- Describes fan-club levels and how badges light up.\n- Never reply to a viewer from it during the stream.',
        },
      },
    },
  ],
  eval: [
    {
      name: 'song-request',
      text: {
        'zh-CN': {
          description: '商品讲解间隙的点歌环节流程，由场控安排，不用于回答观众提问。',
          body: '# 点歌环节\n\n- 只在场控安排的音乐间隙使用。\n- 播放曲库里已授权的歌曲。\n- 不用来回答观众的商品或订单问题。',
        },
        en: {
          description: 'Song-request segment between product sessions, scheduled by the floor manager; not for answering viewers.',
          body: '# Song requests\n\n- Use only in the music breaks the floor manager schedules.\n- Play licensed songs from the library.\n- Never use it to answer a question about products or orders.',
        },
      },
    },
    {
      name: 'stream-recap',
      text: {
        'zh-CN': {
          description: '下播后的复盘记录模板，供运营团队填写，直播中不使用。',
          body: '# 直播复盘\n\n- 下播后由运营填写。\n- 记录流量、互动和待改进的地方。\n- 直播进行中不使用。',
        },
        en: {
          description: 'Template for the post-stream review, filled in by the operations team; never used during the stream.',
          body: '# Stream recap\n\n- Filled in by operations after the stream.\n- Notes traffic, engagement and what to improve.\n- Not used while the stream is live.',
        },
      },
    },
    {
      name: 'warmup-script',
      text: {
        'zh-CN': {
          description: '开播前暖场的口播稿，在观众进场前使用，与回复弹幕无关。',
          body: '# 开播暖场\n\n- 开播前观众还没进场时使用。\n- 介绍今天的直播主题，调动气氛。\n- 不用来回复弹幕。',
        },
        en: {
          description: 'Warm-up script for before the stream opens to viewers; unrelated to replying to chat.',
          body: '# Warm-up\n\n- Use it before viewers arrive.\n- Introduce the theme of the stream and set the mood.\n- Never use it to reply to chat.',
        },
      },
    },
    {
      name: 'shift-handover',
      text: {
        'zh-CN': {
          description: '主播换班时的交接清单，由场控核对，不用于观众互动。',
          body: '# 换班交接\n\n- 主播换班时由场控核对。\n- 交接讲解进度和待跟进事项。\n- 不用于和观众互动。',
        },
        en: {
          description: 'Handover checklist for a host shift change, checked by the floor manager; not for viewer interaction.',
          body: '# Shift handover\n\n- Checked by the floor manager at a host change.\n- Hand over the presentation progress and open items.\n- Not for interacting with viewers.',
        },
      },
    },
  ],
};

/**
 * Look-alike name patterns (`skills.near_duplicate`); `{n}` is the real skill's surface name. Chinese
 * surface names take the `han` patterns.
 */
export const NEAR_DUPLICATE_PATTERNS: { ascii: SplitPool<string>; han: SplitPool<string> } = {
  ascii: { train: ['{n}{s}legacy', '{n}{s}old', 'old{s}{n}'], eval: ['{n}{s}deprecated', '{n}{s}beta', 'classic{s}{n}'] },
  han: { train: ['{n}旧版', '旧{n}'], eval: ['{n}停用版', '{n}测试版'] },
};

/** Texts of a near-duplicate; `{c}` is the real skill's canonical name (materialize rewrites it). */
export const NEAR_DUPLICATE_TEXT: PerLocale<{ description: string; body: string }> = {
  'zh-CN': {
    description: '【已停用】{d} 此技能已废弃，不要加载；请改用 `{c}`。',
    body: '# 已停用\n\n- 本技能已停用，内容过时，不要按它回复。\n- 请改为加载 `{c}`。',
  },
  en: {
    description: '[DEPRECATED, disabled] {d} Do not load this skill; use `{c}` instead.',
    body: '# Deprecated\n\n- This skill is disabled and out of date; never reply from it.\n- Load `{c}` instead.',
  },
};
