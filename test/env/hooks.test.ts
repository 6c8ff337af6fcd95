import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HookViolation, Locale } from '../../protocol/domain.js';
import type { HookSpec, RetryPolicy } from '../../protocol/harness.js';
import { charLength, extractNumbers } from '../../protocol/text.js';
import { loadBaseHarness } from '../../harness/index.js';
import { autoCorrect } from '../../env/auto-correct.js';
import {
  describeViolation,
  feedbackMessage,
  isHookEnabled,
  isReplySkill,
  runInputHooks,
  runReplyHooks,
} from '../../env/hooks.js';
import type { ReplyHookContext } from '../../env/hooks.js';

const zh = loadBaseHarness('zh-CN');
const en = loadBaseHarness('en');
const harnessOf = (locale: Locale) => (locale === 'en' ? en : zh);

function ctx(locale: Locale, reply: string, over: Partial<ReplyHookContext> = {}): ReplyHookContext {
  return {
    reply,
    locale,
    limits: harnessOf(locale).limits,
    evidence_numbers: new Set([2, 48, 89.9, 200, 20, 1299]),
    reply_skill_loaded: true,
    special_cosmetic_in_scope: false,
    called_tools: new Set<string>(),
    ...over,
  };
}

/** Run the base reply hooks of `locale`'s harness. */
function run(locale: Locale, reply: string, over: Partial<ReplyHookContext> = {}): HookViolation[] {
  return runReplyHooks(harnessOf(locale).hooks, ctx(locale, reply, over));
}

const v = (hook: string, code: string, message: string, evidence?: string): HookViolation =>
  evidence === undefined ? { hook, code, message } : { hook, code, message, evidence };

/** The base hooks with one hook replaced (variants do this; the base harness is frozen). */
function withHook(locale: Locale, id: string, change: Partial<HookSpec>): HookSpec[] {
  return harnessOf(locale).hooks.map((h) => (h.id === id ? { ...h, ...change } : h));
}

describe('skill_required', () => {
  it('passes once a reply skill is loaded and objects otherwise (zh-CN)', () => {
    expect(run('zh-CN', '好的宝宝，欢迎来到直播间。')).toEqual([]);
    expect(run('zh-CN', '好的宝宝，欢迎来到直播间。', { reply_skill_loaded: false })).toEqual([
      v('skill_required', 'SKILL_NOT_LOADED', '回复前还没有加载任何回复类技能'),
    ]);
  });

  it('passes once a reply skill is loaded and objects otherwise (en)', () => {
    expect(run('en', 'Welcome to the stream!')).toEqual([]);
    expect(run('en', 'Welcome to the stream!', { reply_skill_loaded: false })).toEqual([
      v('skill_required', 'SKILL_NOT_LOADED', 'No reply skill was loaded before the reply'),
    ]);
  });
});

describe('reply_format', () => {
  it('passes plain spoken replies, including ® and ™ in brand names', () => {
    expect(run('zh-CN', '宝宝，这款直播间到手价89.9元，黑色和白色都有货，喜欢可以直接拍哦。')).toEqual([]);
    expect(run('en', 'The Acme® Aero™ bottle is 89.9 yuan live, and both colours are in stock.')).toEqual([]);
  });

  it('counts code points against the limit from the context', () => {
    expect(run('zh-CN', '好'.repeat(120))).toEqual([]);
    expect(run('zh-CN', '𠮷'.repeat(120))).toEqual([]); // 240 UTF-16 units, 120 characters
    expect(run('zh-CN', '好'.repeat(121))).toEqual([v('reply_format', 'TOO_LONG', '回复共121字，超过上限120字', '121/120')]);
    expect(run('en', 'a'.repeat(61), { limits: { reply_max_chars: 60, max_turns: 8 } })).toEqual([
      v('reply_format', 'TOO_LONG', 'The reply has 61 characters, over the limit of 60', '61/60'),
    ]);
  });

  it('reports an empty reply alone', () => {
    expect(run('zh-CN', '  \n')).toEqual([v('reply_format', 'EMPTY_REPLY', '回复是空的')]);
    expect(run('en', '')).toEqual([v('reply_format', 'EMPTY_REPLY', 'The reply is empty')]);
  });

  it('finds Markdown, emoji and reasoning tags (zh-CN)', () => {
    expect(run('zh-CN', '**到手价**89.9元')).toEqual([v('reply_format', 'MARKDOWN', '回复里有Markdown格式「**到手价**」', '**到手价**')]);
    expect(run('zh-CN', '颜色：\n- 黑色\n- 白色')).toEqual([v('reply_format', 'MARKDOWN', '回复里有Markdown格式「- 黑」', '- 黑')]);
    expect(run('zh-CN', '好的宝宝😀')).toEqual([v('reply_format', 'EMOJI', '回复里有表情符号「😀」', '😀')]);
    expect(run('zh-CN', '<think>先查一下</think>好的宝宝')).toEqual([
      v('reply_format', 'THINK_LEAK', '回复里带出了思考过程标签「<think>」', '<think>'),
    ]);
  });

  it('finds Markdown, emoji and reasoning tags, in check order (en)', () => {
    const reply = `## Price\nIt is 89.9 yuan 👍 </think>${'!'.repeat(110)}`;
    expect(run('en', reply)).toEqual([
      v('reply_format', 'TOO_LONG', 'The reply has 145 characters, over the limit of 120', '145/120'),
      v('reply_format', 'MARKDOWN', 'The reply contains Markdown formatting "##"', '##'),
      v('reply_format', 'EMOJI', 'The reply contains an emoji "👍"', '👍'),
      v('reply_format', 'THINK_LEAK', 'The reply leaks a reasoning tag "</think>"', '</think>'),
    ]);
    expect(run('en', 'Use code `SAVE` at [checkout](https://x.y)')).toEqual([
      v('reply_format', 'MARKDOWN', 'The reply contains Markdown formatting "`"', '`'),
    ]);
  });

  it('runs only the checks its params list', () => {
    const params = { ...zh.hooks[3].params, checks: ['TOO_LONG'] };
    const hooks = withHook('zh-CN', 'reply_format', { params });
    expect(runReplyHooks(hooks, ctx('zh-CN', '**好的**😀'))).toEqual([]);
  });
});

describe('prohibited_phrases', () => {
  it('lets ordinary good Chinese replies through', () => {
    const good = [
      '最近这款卖得很好，最后几件了，第一次买的宝宝可以先领券。',
      '每人最多领两张，最晚明天发货，最好先量一下尺寸哦。',
      '两款唯一的区别是颜色，最快明天就能发出。',
      '抱歉，这个不能保证哦，也不能用于治疗，身体不舒服请咨询医生。',
      '这个我们不支持加微信哦，有问题可以找店铺客服。',
      '下单送小样一份，送完即止，第一件按直播价算。',
      '这款没有美白功效，主打保湿。',
      '最新物流显示已经签收啦。',
    ];
    for (const reply of good) expect(run('zh-CN', reply), reply).toEqual([]);
  });

  it('lets ordinary good English replies through', () => {
    const good = [
      "It's the only one left in size M, and it ships within 48 hours.",
      "I can't promise a delivery date, but it ships within 48 hours of payment.",
      "It doesn't cure anything; please ask a doctor about health concerns.",
      'Treat yourself to this sweet treat, and the best way to keep it is in the fridge.',
      'Most people pick the black one. This is my first time showing this brand.',
      'We cannot guarantee that, and we never ask you to pay off the platform.',
    ];
    for (const reply of good) expect(run('en', reply), reply).toEqual([]);
  });

  it('reports each kind of Chinese violation with its evidence', () => {
    const h = 'prohibited_phrases';
    expect(run('zh-CN', '这是全网最低价，快拍。')).toEqual([v(h, 'ABSOLUTE_TERM', '回复使用了绝对化用语「最低价」', '最低价')]);
    expect(run('zh-CN', '销量第一的爆款。')).toEqual([v(h, 'ABSOLUTE_TERM', '回复使用了绝对化用语「第一」', '第一')]);
    expect(run('zh-CN', '国家级品质。')).toEqual([v(h, 'ABSOLUTE_TERM', '回复使用了绝对化用语「国家级」', '国家级')]);
    expect(run('zh-CN', '坚持吃能治愈失眠。')).toEqual([v(h, 'MEDICAL_CLAIM', '回复涉及医疗功效宣称「治愈」', '治愈')]);
    expect(run('zh-CN', '这款精华美白效果很好。')).toEqual([v(h, 'SPECIAL_COSMETIC_CLAIM', '回复宣称了特殊化妆品功效「美白」', '美白')]);
    expect(run('zh-CN', '没问题，保证明天到。')).toEqual([v(h, 'UNAUTHORIZED_PROMISE', '回复做出了未经授权的承诺「保证」', '保证')]);
    expect(run('zh-CN', '想要的宝宝打13812345678。')).toEqual([
      v(h, 'OFF_PLATFORM', '回复引导到平台外联系「13812345678」', '13812345678'),
      v('factual_risk', 'UNGROUNDED_NUMBER', '回复里的数字13812345678在工具结果和系统提示中找不到依据', '13812345678'),
    ]);
    expect(run('zh-CN', '有问题加ＱＱ问我。')).toEqual([v(h, 'OFF_PLATFORM', '回复引导到平台外联系「QQ」', 'QQ')]);
    expect(run('zh-CN', '我自己用过，真的好用。')).toEqual([
      v(h, 'PERSONAL_EXPERIENCE', '回复声称了个人使用体验「我自己用过」', '我自己用过'),
    ]);
  });

  it('allows special-cosmetic efficacy when a special cosmetic is in scope', () => {
    expect(run('zh-CN', '这款美白精华按备案使用。', { special_cosmetic_in_scope: true })).toEqual([]);
    expect(run('en', 'This whitening serum is used as registered.', { special_cosmetic_in_scope: true })).toEqual([]);
  });

  it('reports one violation per rule, in rule order, whatever the text order', () => {
    expect(run('zh-CN', '我吃过，加我微信，包赔，能降血压，顶级好物。')).toEqual([
      v('prohibited_phrases', 'ABSOLUTE_TERM', '回复使用了绝对化用语「顶级」', '顶级'),
      v('prohibited_phrases', 'MEDICAL_CLAIM', '回复涉及医疗功效宣称「降血压」', '降血压'),
      v('prohibited_phrases', 'UNAUTHORIZED_PROMISE', '回复做出了未经授权的承诺「包赔」', '包赔'),
      v('prohibited_phrases', 'OFF_PLATFORM', '回复引导到平台外联系「加我」', '加我'),
      v('prohibited_phrases', 'PERSONAL_EXPERIENCE', '回复声称了个人使用体验「我吃过」', '我吃过'),
    ]);
  });

  it('reports each kind of English violation with its evidence', () => {
    const h = 'prohibited_phrases';
    expect(run('en', 'This is the best ever deal.')).toEqual([
      v(h, 'ABSOLUTE_TERM', 'The reply uses an absolute term "the best"', 'the best'),
    ]);
    expect(run('en', "It's the lowest price online.")).toEqual([
      v(h, 'ABSOLUTE_TERM', 'The reply uses an absolute term "lowest price"', 'lowest price'),
    ]);
    expect(run('en', 'It cures insomnia.')).toEqual([v(h, 'MEDICAL_CLAIM', 'The reply makes a medical claim "cures"', 'cures')]);
    expect(run('en', 'It lowers blood pressure.')).toEqual([
      v(h, 'MEDICAL_CLAIM', 'The reply makes a medical claim "lowers blood pressure"', 'lowers blood pressure'),
    ]);
    expect(run('en', 'It whitens your skin.')).toEqual([
      v(h, 'SPECIAL_COSMETIC_CLAIM', 'The reply claims special-cosmetic efficacy "whitens"', 'whitens'),
    ]);
    expect(run('en', 'No problem, I promise it arrives tomorrow.')).toEqual([
      v(h, 'UNAUTHORIZED_PROMISE', 'The reply makes an unauthorised promise "promise"', 'promise'),
    ]);
    expect(run('en', 'Add me on Ｗｅｃｈａｔ.')).toEqual([v(h, 'OFF_PLATFORM', 'The reply points off the platform "Add me"', 'Add me')]);
    expect(run('en', "I've used it myself.")).toEqual([
      v(h, 'PERSONAL_EXPERIENCE', 'The reply claims personal experience "I\'ve used"', "I've used"),
    ]);
  });

  it('checks the other locale too: WeChat in a Chinese reply, 微信 in an English one', () => {
    expect(run('zh-CN', '可以加WeChat问。')).toEqual([v('prohibited_phrases', 'OFF_PLATFORM', '回复引导到平台外联系「WeChat」', 'WeChat')]);
    expect(run('en', 'Find us on 微信.')).toEqual([
      v('prohibited_phrases', 'OFF_PLATFORM', 'The reply points off the platform "微信"', '微信'),
    ]);
  });
});

describe('factual_risk', () => {
  it('passes numbers that are in the evidence, however written', () => {
    expect(run('zh-CN', '到手价89.90元，满200减20，2号链接。')).toEqual([]);
    expect(run('en', 'Link 2 is 1,299 yuan and ships within 48 hours.')).toEqual([]);
    const iso = '2026-12-03T20:00:00+08:00';
    expect(run('zh-CN', '12月3日20点开抢。', { evidence_numbers: new Set(extractNumbers(iso)) })).toEqual([]);
    expect(run('en', 'It starts Dec 3, 20:00.', { evidence_numbers: new Set(extractNumbers(iso)) })).toEqual([]);
  });

  it('reports the ungrounded numbers once each, in order', () => {
    expect(run('zh-CN', '到手价79元，还送3件赠品，就79元。')).toEqual([
      v('factual_risk', 'UNGROUNDED_NUMBER', '回复里的数字79、3在工具结果和系统提示中找不到依据', '79, 3'),
    ]);
    expect(run('en', 'Only 7 left at 88 yuan.')).toEqual([
      v('factual_risk', 'UNGROUNDED_NUMBER', 'The numbers 7, 88 in the reply are not in any tool result or the system prompt', '7, 88'),
    ]);
  });

  it('honours allowed_numbers from the params', () => {
    const hooks = withHook('zh-CN', 'factual_risk', { params: { allowed_numbers: [7] } });
    expect(runReplyHooks(hooks, ctx('zh-CN', '支持7天无理由退货。'))).toEqual([]);
    expect(run('zh-CN', '支持7天无理由退货。')).toEqual([
      v('factual_risk', 'UNGROUNDED_NUMBER', '回复里的数字7在工具结果和系统提示中找不到依据', '7'),
    ]);
  });
});

describe('output_constraints', () => {
  it('is disabled in the base harness', () => {
    expect(run('zh-CN', 'Hello there')).toEqual([]);
  });

  it('checks forbidden words, the ending and the language when a variant enables it (zh-CN)', () => {
    const params = { forbidden_words: ['亲'], required_ending: '欢迎下单', language: 'zh-CN' };
    const hooks = withHook('zh-CN', 'output_constraints', { enabled: true, params });
    expect(runReplyHooks(hooks, ctx('zh-CN', '宝宝，AirPods这款现在有货，欢迎下单！'))).toEqual([]);
    expect(runReplyHooks(hooks, ctx('zh-CN', '亲，this one is in stock now'))).toEqual([
      v('output_constraints', 'FORBIDDEN_WORD', '回复包含禁用词「亲」', '亲'),
      v('output_constraints', 'MISSING_ENDING', '回复没有以「欢迎下单」结尾', '欢迎下单'),
      v('output_constraints', 'WRONG_LANGUAGE', '回复的语言不对，应当使用中文', 'zh-CN'),
    ]);
  });

  it('checks forbidden words, the ending and the language when a variant enables it (en)', () => {
    const params = { forbidden_words: ['Dear'], required_ending: 'Happy shopping', language: 'en' };
    const hooks = withHook('en', 'output_constraints', { enabled: true, params });
    expect(runReplyHooks(hooks, ctx('en', 'It is in stock now. Happy shopping!'))).toEqual([]);
    expect(runReplyHooks(hooks, ctx('en', 'dear, 现在有货哦'))).toEqual([
      v('output_constraints', 'FORBIDDEN_WORD', 'The reply contains the forbidden word "Dear"', 'Dear'),
      v('output_constraints', 'MISSING_ENDING', 'The reply does not end with "Happy shopping"', 'Happy shopping'),
      v('output_constraints', 'WRONG_LANGUAGE', 'The reply is in the wrong language; it must be in English', 'en'),
    ]);
  });
});

describe('hook order and switches', () => {
  const reply = '**最低价**79元';
  it('reports in hook order, and a variant may reorder or disable hooks', () => {
    const codes = (hooks: readonly HookSpec[]) =>
      runReplyHooks(hooks, ctx('zh-CN', reply, { reply_skill_loaded: false })).map((x) => x.code);
    expect(codes(zh.hooks)).toEqual(['SKILL_NOT_LOADED', 'MARKDOWN', 'ABSOLUTE_TERM', 'UNGROUNDED_NUMBER']);
    expect(codes([...zh.hooks].reverse())).toEqual(['UNGROUNDED_NUMBER', 'ABSOLUTE_TERM', 'MARKDOWN', 'SKILL_NOT_LOADED']);
    expect(codes(withHook('zh-CN', 'prohibited_phrases', { enabled: false }))).toEqual([
      'SKILL_NOT_LOADED',
      'MARKDOWN',
      'UNGROUNDED_NUMBER',
    ]);
    expect(isHookEnabled(zh.hooks, 'output_constraints')).toBe(false);
    expect(isHookEnabled(zh.hooks, 'tool_args')).toBe(true);
  });

  it('rejects a variant hook with invalid params (a programmer error) naming the hook', () => {
    const hooks = withHook('zh-CN', 'factual_risk', { params: { allowed_numbers: 'seven' } });
    expect(() => runReplyHooks(hooks, ctx('zh-CN', '好的'))).toThrow(/^hook factual_risk: invalid params/);
  });

  it('compiled forms follow the params (cached by params object and by content, never stale)', () => {
    const spec: HookSpec = { id: 'factual_risk', stage: 'reply', enabled: true, params: { allowed_numbers: [7] } };
    expect(runReplyHooks([spec], ctx('zh-CN', '7天'))).toEqual([]);
    expect(runReplyHooks([{ ...spec }], ctx('zh-CN', '7天'))).toEqual([]); // a copied spec sharing the params
    spec.params = { allowed_numbers: [] }; // new params: the rule follows them
    expect(runReplyHooks([spec], ctx('zh-CN', '7天')).map((x) => x.code)).toEqual(['UNGROUNDED_NUMBER']);
    expect(runReplyHooks([{ ...spec, params: { allowed_numbers: [7] } }], ctx('zh-CN', '7天'))).toEqual([]); // equal content
  });

  it('isReplySkill tells reply skills from strategy skills and unknown names', () => {
    expect([isReplySkill(zh, 'product-qa'), isReplySkill(zh, 'live-tone'), isReplySkill(zh, 'nope')]).toEqual([true, false, false]);
  });
});

describe('runInputHooks', () => {
  it('objects to empty and overlong viewer messages', () => {
    expect(runInputHooks(zh.hooks, '这个多少钱')).toEqual([]);
    expect(runInputHooks(zh.hooks, '好'.repeat(500))).toEqual([]);
    expect(runInputHooks(zh.hooks, '  ')).toEqual([v('input_guard', 'EMPTY_INPUT', '观众消息为空')]);
    expect(runInputHooks(zh.hooks, '好'.repeat(501))).toEqual([
      v('input_guard', 'INPUT_TOO_LONG', '观众消息共501字，超过上限500字', '501/500'),
    ]);
    expect(runInputHooks(en.hooks, '', 'en')).toEqual([v('input_guard', 'EMPTY_INPUT', "The viewer's message is empty")]);
    expect(runInputHooks(withHook('en', 'input_guard', { enabled: false }), '', 'en')).toEqual([]);
  });
});

describe('feedbackMessage', () => {
  const violations: HookViolation[] = [
    v('reply_format', 'TOO_LONG', '回复共135字，超过上限120字', '135/120'),
    v('factual_risk', 'UNGROUNDED_NUMBER', '回复里的数字79、3在工具结果和系统提示中找不到依据', '79, 3'),
  ];
  const retry = (locale: Locale, feedback_style: RetryPolicy['feedback_style']): RetryPolicy => ({
    ...harnessOf(locale).retry,
    feedback_style,
  });
  const zhLines = [
    '回复共135字，超过上限120字。请删掉客套话，只保留结论和关键数字。',
    '回复里的数字79、3在工具结果和系统提示中找不到依据。请只使用工具结果或系统提示里出现过的数字，不确定就先用工具查询。',
  ];
  const enLines = [
    'The reply has 135 characters, over the limit of 120. Drop the pleasantries and keep only the answer and the key numbers.',
    'The numbers 79, 3 in the reply are not in any tool result or the system prompt. Use only numbers that appear in tool results or the system prompt; look it up with a tool when unsure.',
  ];

  it('renders natural feedback', () => {
    expect(feedbackMessage(retry('zh-CN', 'natural'), violations)).toBe(
      `你的回复没有通过发布前检查：${zhLines.join('')}请修改后重新回复。`,
    );
    expect(feedbackMessage(retry('en', 'natural'), violations)).toBe(
      `Your reply did not pass the pre-broadcast checks. ${enLines.join(' ')} Please revise it and reply again.`,
    );
  });

  it('renders JSON feedback', () => {
    expect(feedbackMessage(retry('zh-CN', 'json'), violations)).toBe(
      `{"decision":"block","violations":[{"code":"TOO_LONG","message":"${zhLines[0]}"},{"code":"UNGROUNDED_NUMBER","message":"${zhLines[1]}"}]}`,
    );
    expect(feedbackMessage(retry('en', 'json'), violations)).toBe(
      `{"decision":"block","violations":[{"code":"TOO_LONG","message":"${enLines[0]}"},{"code":"UNGROUNDED_NUMBER","message":"${enLines[1]}"}]}`,
    );
  });

  it('renders tagged feedback', () => {
    expect(feedbackMessage(retry('zh-CN', 'tagged'), violations)).toBe(
      `<hook_feedback>\n[TOO_LONG] ${zhLines[0]}\n[UNGROUNDED_NUMBER] ${zhLines[1]}\n</hook_feedback>`,
    );
    expect(feedbackMessage(retry('en', 'tagged'), violations)).toBe(
      `<hook_feedback>\n[TOO_LONG] ${enLines[0]}\n[UNGROUNDED_NUMBER] ${enLines[1]}\n</hook_feedback>`,
    );
  });

  it('re-renders messages in the feedback locale and falls back to the message without a template', () => {
    const mixed: RetryPolicy = { ...zh.retry, feedback_locale: 'en', templates: { ABSOLUTE_TERM: 'Avoid "{evidence}".' } };
    expect(
      feedbackMessage(mixed, [
        v('prohibited_phrases', 'ABSOLUTE_TERM', '回复使用了绝对化用语「第一」', '第一'),
        v('skill_required', 'SKILL_NOT_LOADED', '回复前还没有加载任何回复类技能'),
      ]),
    ).toBe(
      'Your reply did not pass the pre-broadcast checks. Avoid "第一". No reply skill was loaded before the reply. Please revise it and reply again.',
    );
    expect(feedbackMessage(zh.retry, [])).toBe('');
    expect(describeViolation('SOMETHING_NEW', 'x', 'en')).toBe('SOMETHING_NEW');
  });

  it('has a template for every reply and input code in both locales, naming no tool or skill', () => {
    const codes = Object.keys(zh.retry.templates);
    expect(Object.keys(en.retry.templates)).toEqual(codes);
    // Hyphenated skill names only: "promotion" is also an ordinary English word.
    const names = [...zh.tools.map((t) => t.function.name), ...zh.skills.map((s) => s.name).filter((n) => n.includes('-'))];
    for (const t of [...Object.values(zh.retry.templates), ...Object.values(en.retry.templates)]) {
      for (const n of names) expect(t).not.toContain(n);
    }
  });
});

describe('autoCorrect', () => {
  const fix = (locale: Locale, reply: string) => {
    const c = ctx(locale, reply);
    return autoCorrect(reply, runReplyHooks(harnessOf(locale).hooks, c), c, harnessOf(locale).hooks);
  };

  it('strips Markdown, emoji and reasoning', () => {
    expect(fix('zh-CN', '**到手价**89.9元\n- 黑色有货\n- 白色有货')).toBe('到手价89.9元，黑色有货，白色有货');
    expect(fix('en', '## Price\n- 89.9 yuan 😀')).toBe('Price, 89.9 yuan');
    expect(fix('zh-CN', '<think>先查价格</think>到手价89.9元。')).toBe('到手价89.9元。');
    expect(fix('zh-CN', '前面的推理</think>好的宝宝')).toBe('好的宝宝');
    expect(fix('zh-CN', '好的宝宝😀👍')).toBe('好的宝宝');
  });

  it('cuts to the limit at a sentence end, else a clause break, else a word edge', () => {
    const a = '这'.repeat(99) + '。';
    expect(fix('zh-CN', a + '那'.repeat(39) + '。')).toBe(a);
    expect(fix('zh-CN', '这'.repeat(80) + '，' + '那'.repeat(60))).toBe('这'.repeat(80) + '。');
    expect(fix('en', 'word '.repeat(30))).toBe(Array(24).fill('word').join(' ') + '.');
    // One unbreakable 122-character word: nothing speakable is left.
    expect(autoCorrect('x'.repeat(118) + '1299', [v('reply_format', 'TOO_LONG', '', '122/120')], ctx('en', ''))).toBeNull();
  });

  it('never cuts inside a number', () => {
    const reply = '这'.repeat(117) + '89.9元';
    const c = ctx('zh-CN', reply);
    expect(autoCorrect(reply, [v('reply_format', 'TOO_LONG', '', '122/120')], c)).toBe('这'.repeat(117));
  });

  it('returns null when something is not a matter of form, or nothing is left', () => {
    expect(fix('zh-CN', '全网最低价😀')).toBeNull();
    expect(fix('zh-CN', '**到手价**79元')).toBeNull();
    expect(fix('zh-CN', '<think>没写完')).toBeNull();
    expect(autoCorrect('好的', [], ctx('zh-CN', '好的'))).toBe('好的');
  });

  it('yields replies that pass every base reply hook and state no new number (property)', () => {
    const tokens = [
      '好的',
      '宝宝',
      'word',
      ' ',
      '\n',
      '。',
      '.',
      ',',
      '，',
      '8',
      '9',
      '12',
      '89.9',
      '**',
      '`',
      '- ',
      '# ',
      '1. ',
      '😀',
      '<think>',
      '</think>',
      '__',
      '| a |',
      '>',
    ];
    const arb = fc.array(fc.constantFrom(...tokens), { maxLength: 80 }).map((t) => t.join(''));
    fc.assert(
      fc.property(arb, fc.constantFrom<Locale>('zh-CN', 'en'), (reply, locale) => {
        const h = harnessOf(locale);
        const c = ctx(locale, reply, { evidence_numbers: new Set(extractNumbers(reply)) });
        const found = runReplyHooks(h.hooks, c);
        const fixed = autoCorrect(reply, found, c);
        if (fixed === null) return true;
        if (found.length === 0) {
          expect(fixed).toBe(reply);
          return true;
        }
        expect(charLength(fixed)).toBeLessThanOrEqual(h.limits.reply_max_chars);
        const stated = new Set(extractNumbers(reply));
        for (const n of extractNumbers(fixed)) expect(stated.has(n)).toBe(true);
        expect(runReplyHooks(h.hooks, { ...c, reply: fixed })).toEqual([]);
        return true;
      }),
      { numRuns: 500 },
    );
  });
});

describe('reply hooks on arbitrary text (property)', () => {
  it('never throw, are deterministic, and flag TOO_LONG exactly when the reply is over the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom<Locale>('zh-CN', 'en'), (reply, locale) => {
        const a = run(locale, reply);
        expect(run(locale, reply)).toEqual(a);
        const tooLong = a.some((x) => x.code === 'TOO_LONG');
        expect(tooLong).toBe(reply.trim() !== '' && charLength(reply) > 120);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
