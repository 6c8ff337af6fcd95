/**
 * The word tables of the skill operators: names, description paraphrases, rule layouts, distractor
 * skills and near-duplicate patterns. Every table is a `SplitPool`: the `eval` half is held out, so the
 * `eval` preset measures whether a policy generalises to surface forms it never trained on. No entry
 * contains a digit: numbers a reply may state come from tools and the room, never from harness text.
 */
import type { Locale } from '../../protocol/domain.js';
import type { SplitPool } from './kit.js';

/** A value per harness locale. */
export type PerLocale<T> = Record<Locale, T>;

/** Skill names in Chinese and in pinyin (`skills.rename.locale`), the same for both harness locales. */
export const SKILL_LOCALE_NAMES: Readonly<Record<string, SplitPool<string>>> = {
  'product-qa': { train: ['商品答疑', '宝贝问答', 'shangpin-dayi'], eval: ['商品咨询', '货品解答', 'huopin-zixun'] },
  chitchat: { train: ['闲聊互动', '弹幕闲聊', 'xianliao-hudong'], eval: ['观众寒暄', '日常闲谈', 'guanzhong-hanxuan'] },
  'clarify-intent': { train: ['追问确认', '意图澄清', 'zhuiwen-queren'], eval: ['反问澄清', '确认所指', 'fanwen-chengqing'] },
  'after-sales': { train: ['售后处理', '售后服务', 'shouhou-chuli'], eval: ['退换物流', '订单售后', 'dingdan-shouhou'] },
  promotion: { train: ['优惠活动', '营销优惠', 'youhui-huodong'], eval: ['领券秒杀', '活动福利', 'huodong-fuli'] },
  'purchase-guide': { train: ['下单引导', '购买指引', 'xiadan-yindao'], eval: ['拍下指南', '购物引导', 'gouwu-yindao'] },
  'risk-refusal': { train: ['合规拒答', '风险拒绝', 'hegui-jueda'], eval: ['违规婉拒', '安全拒答', 'anquan-jueda'] },
  'human-handoff': { train: ['转人工', '人工客服', 'zhuan-rengong'], eval: ['移交人工', '人工介入', 'rengong-jieru'] },
  'multi-intent': { train: ['多意图处理', '多问拆解', 'duo-yitu'], eval: ['复合提问', '多事合答', 'fuhe-tiwen'] },
  'refusal-whitelist': { train: ['拒答白名单', '防过度拒答', 'jueda-baimingdan'], eval: ['可答清单', '放行白名单', 'keda-qingdan'] },
  'live-tone': { train: ['直播口播语气', '主播语气', 'koubo-yuqi'], eval: ['口语风格', '直播话术', 'zhibo-huashu'] },
  'compliance-guard': { train: ['合规自查', '广告法自检', 'hegui-zicha'], eval: ['用语审查', '合规把关', 'yongyu-shencha'] },
};

/** Case styles for `skills.rename.case` (the base style is kebab-case, so it is in neither half). */
export const CASE_STYLES: SplitPool<'snake' | 'camel' | 'pascal' | 'upper_snake' | 'dot'> = {
  train: ['snake', 'camel', 'upper_snake'],
  eval: ['pascal', 'dot'],
};

/** Prefixes of opaque skill ids (`skills.rename.opaque`): `s_3f9a2c`, `skill_…` vs `sk-…`, `x…`. */
export const OPAQUE_PREFIXES: SplitPool<string> = { train: ['s_', 'skill_'], eval: ['sk-', 'x'] };

/** Paraphrased descriptions per canonical skill (`skills.describe.paraphrase`). Each still identifies the skill. */
export const SKILL_DESCRIPTIONS: Readonly<Record<string, PerLocale<SplitPool<string>>>> = {
  'product-qa': {
    'zh-CN': {
      train: [
        '观众问到某个商品的价格、规格尺码、材质成分、库存、发货或售后政策等具体事实时，用这个技能作答。',
        '商品事实问答：价格、尺码规格、成分材质、有没有货、多久发货、能不能退，都按工具查到的信息回答。',
      ],
      eval: [
        '针对单个商品的事实性提问（价钱、规格、用料、库存、物流时效、售后规则）给出准确答复。',
        '弹幕在问商品本身的信息时使用：报价、规格、成分、余量、发货与退换政策。',
      ],
    },
    en: {
      train: [
        'Use when a viewer asks a factual question about a product: its price, sizes and specs, materials, stock, shipping or return policy.',
        'Product facts on request: price, options, ingredients, availability, shipping time and after-sales rules, answered from tool results.',
      ],
      eval: [
        "Give accurate answers to questions about one product's facts (cost, specifications, materials, inventory, delivery time, return rules).",
        'For chat messages asking about the item itself: quoting its price, options, composition, remaining stock, shipping and return terms.',
      ],
    },
  },
  chitchat: {
    'zh-CN': {
      train: [
        '观众打招呼、夸主播、随口聊天或吐槽，但没有问商品事实时，用它轻松回应。',
        '闲聊类弹幕的回应方式：寒暄、夸奖、日常话题，不涉及具体商品信息。',
      ],
      eval: ['应对与商品事实无关的互动弹幕，比如问好、称赞、随便聊聊。', '观众只是来打个招呼或聊两句时，亲切地接话。'],
    },
    en: {
      train: [
        'Reply to greetings, compliments, casual remarks or complaints in the chat that do not ask for product facts.',
        'Small talk with viewers: hellos, praise and everyday chatter with no product question in it.',
      ],
      eval: [
        'Handle friendly chat messages unrelated to product facts, such as saying hi, praising the host or casual banter.',
        'When a viewer just drops by to greet or chat, respond warmly without product details.',
      ],
    },
  },
  'clarify-intent': {
    'zh-CN': {
      train: [
        '弹幕指代不明（哪个链接、哪个规格、哪件事说不清）时，先用一句话问清楚再答。',
        '问题有歧义时使用：反问观众确认具体指的是哪款商品或哪个选项。',
      ],
      eval: ['观众说的“这个”“那款”可能对应多个商品时，简短追问确认目标。', '无法确定观众所指的商品、规格或问题时，礼貌地请对方说明。'],
    },
    en: {
      train: [
        'When a question is ambiguous (which link, which option, which problem), ask one short question to pin it down first.',
        'Use for unclear messages: ask the viewer back which product or option they mean.',
      ],
      eval: [
        'If "this one" or "that one" could mean several products, ask briefly which one before answering.',
        'When you cannot tell which item, option or issue the viewer means, politely ask them to specify.',
      ],
    },
  },
  'after-sales': {
    'zh-CN': {
      train: [
        '已经下单的观众问物流进度、发货时间、能否退换及截止时间时使用。',
        '售后问题处理：查订单状态、快递进度和退货资格，按查询结果答复。',
      ],
      eval: ['面向已购买观众的订单问题：到哪了、什么时候发、还能不能退。', '观众关心自己订单的配送或退换货时，用这个技能查询并说明。'],
    },
    en: {
      train: [
        'For viewers who already ordered: delivery progress, shipping time, whether a return is possible and until when.',
        'After-sales questions: look up the order status, tracking and return eligibility, and answer from the results.',
      ],
      eval: [
        'Order questions from buyers: where is my parcel, when does it ship, can I still send it back.',
        'When a viewer asks about delivery or returns of their own order, look it up and explain.',
      ],
    },
  },
  promotion: {
    'zh-CN': {
      train: [
        '回答优惠券、满减、秒杀、赠品、套装和预售定金等活动问题，观众要券时帮忙发券。',
        '营销活动咨询：有什么券、怎么减、秒杀几点开始、送什么赠品，需要时给观众发券。',
      ],
      eval: [
        '观众打听优惠力度、领券、限时抢购、买赠或定金预售时使用，可按需发放优惠券。',
        '处理与活动福利相关的弹幕：券、满减、秒杀、赠品、组合装、预售。',
      ],
    },
    en: {
      train: [
        'Questions about coupons, spend-and-save deals, flash sales, gifts, bundles and presale deposits; issue a coupon when the viewer asks for one.',
        'Promotions desk: which coupons exist, how the discount works, when the flash sale starts, what gift comes with it; send a coupon on request.',
      ],
      eval: [
        'Use when viewers ask about discounts, claiming coupons, limited-time sales, free gifts or deposit presales; you may issue a coupon.',
        'Handle chat about offers and perks: coupons, threshold discounts, flash sales, gifts, bundles, presales.',
      ],
    },
  },
  'purchase-guide': {
    'zh-CN': {
      train: [
        '观众想买、问怎么下单或让主播上链接时，确认商品和规格并引导下单。',
        '下单指引：告诉观众去几号链接、选什么规格，需要时弹出商品卡片。',
      ],
      eval: [
        '观众表达购买意愿或找不到购买入口时，帮他定位商品链接并说明怎么拍。',
        '处理“怎么买”“上链接”一类弹幕：确认要买的商品，引导完成下单。',
      ],
    },
    en: {
      train: [
        'When a viewer wants to buy, asks how to order or asks for the link, confirm the product and option and guide the order.',
        'Ordering help: point the viewer to the right link and option, and pop up the product card when useful.',
      ],
      eval: [
        'When a viewer wants to purchase or cannot find where to buy, locate the product link and explain how to check out.',
        'For "how do I buy" or "drop the link" messages: confirm the item and walk the viewer through ordering.',
      ],
    },
  },
  'risk-refusal': {
    'zh-CN': {
      train: [
        '观众要求说违规内容（医疗功效、绝对化用语、加微信等平台外联系）时，礼貌拒绝并登记。',
        '违规请求的处理：不宣称疗效、不说绝对化用语、不引导站外联系，婉拒并记录。',
      ],
      eval: [
        '遇到要求承诺治病、说全网最低或私下交易的弹幕时，客气地回绝并上报拒答。',
        '合规红线类请求（功效夸大、极限词、站外引流）一律婉拒，并记录拒答类别。',
      ],
    },
    en: {
      train: [
        'When a viewer asks for non-compliant content (medical claims, absolute superlatives, contact off the platform), decline politely and record it.',
        'Non-compliant requests: never claim cures, never use absolute terms, never move the chat off the platform; decline and log the refusal.',
      ],
      eval: [
        'Requests to promise health effects, claim the lowest price anywhere or trade privately are declined courteously and recorded.',
        'Red-line requests (exaggerated efficacy, superlatives, off-platform contact) get a polite refusal and a recorded category.',
      ],
    },
  },
  'human-handoff': {
    'zh-CN': {
      train: [
        '需要人工客服介入时（纠纷投诉、破损错发、账户支付问题、观众要求找人工、工具解决不了）转交人工。',
        '转人工处理：商品坏了、发错了、有投诉或支付问题等工具无法解决的情况，交给人工客服。',
      ],
      eval: [
        '碰到投诉、货损、错发、账号或付款异常以及观众点名要人工时，提交人工工单。',
        '超出工具能力的问题（纠纷、质量问题、支付故障）移交真人客服跟进。',
      ],
    },
    en: {
      train: [
        'Hand over to human customer service when a person is needed: disputes, complaints, damaged or wrong items, account or payment problems, a request for a human.',
        'Escalation: broken or wrong items, complaints, payment trouble and anything the tools cannot fix go to a human agent.',
      ],
      eval: [
        'Open a ticket for a human agent on complaints, damaged goods, wrong shipments, account or payment issues, or when asked for a person.',
        'Problems beyond the tools (disputes, quality issues, payment failures) are passed on to real support staff.',
      ],
    },
  },
  'multi-intent': {
    'zh-CN': {
      train: [
        '一条或合并的几条弹幕同时问了好几件事时使用，确保每件事都有回答。',
        '多个问题一起问时：逐个拆开、分别查询，再在一条回复里依次答完。',
      ],
      eval: ['观众一次抛出多个问题时的处理策略，避免只回答第一个。', '复合提问的拆解方法：每个子问题各自加载技能和查询，合并作答。'],
    },
    en: {
      train: [
        'Use when one message, or several merged messages, asks several things at once, so that every question gets answered.',
        'Several questions together: split them, look each one up, and answer them in order in one reply.',
      ],
      eval: [
        'A strategy for messages that ask more than one thing, so that no question is left unanswered.',
        'How to break down compound questions: load a skill and look up facts per part, then answer together.',
      ],
    },
  },
  'refusal-whitelist': {
    'zh-CN': {
      train: [
        '区分真正违规的请求和看起来敏感但应当正常回答的问题，避免过度拒答。',
        '防止误拒：成分、用法、适用人群这类问题看着敏感，其实应该如实回答。',
      ],
      eval: ['判断一个问题是否真的需要拒绝；合规范围内的敏感问题照常作答。', '白名单问题清单：这些问题不属于违规，按商品信息正常回答。'],
    },
    en: {
      train: [
        'Tell truly non-compliant requests apart from questions that only look sensitive but must be answered, so you do not over-refuse.',
        'Avoid wrong refusals: ingredients, usage and suitability questions look sensitive but should be answered from the facts.',
      ],
      eval: [
        'Decide whether a question really must be declined; sensitive-looking questions within the rules are answered normally.',
        'A list of allowed questions: they are not violations and get a normal answer from product information.',
      ],
    },
  },
  'live-tone': {
    'zh-CN': {
      train: ['直播口播语气指南：回复会被语音合成播出，要简短、口语化、亲切。', '说话风格：像主播一样自然地说话，句子短、好听懂、有温度。'],
      eval: ['语音播报的措辞要点：口语、简洁、热情，不念书面语。', '让回复听起来像真人主播在说话的语气规范。'],
    },
    en: {
      train: [
        'Live-stream speaking style: replies are read aloud by TTS, so keep them short, spoken and friendly.',
        'How to sound like a host: natural, short sentences that are easy to follow and warm.',
      ],
      eval: [
        'Wording for speech output: conversational, concise and upbeat, never like written text.',
        'Tone guidance that makes replies sound like a real host talking.',
      ],
    },
  },
  'compliance-guard': {
    'zh-CN': {
      train: [
        '发送前的合规自查：绝对化用语、医疗功效、特殊化妆品功效、编造数字、越权承诺、平台外联系、个人体验。',
        '回复前逐条检查广告法和平台规则，避免违规词、虚构数字和越权承诺。',
      ],
      eval: [
        '出稿前的合规核对清单，覆盖极限词、功效宣称、数字真实性、承诺边界和站外引流。',
        '把回复过一遍合规检查，删掉不该说的词和没有依据的数字。',
      ],
    },
    en: {
      train: [
        'A compliance check before sending: absolute terms, medical claims, special-cosmetic efficacy, invented numbers, unauthorised promises, off-platform contact, personal experience.',
        'Before replying, check the advertising-law and platform rules to avoid banned words, invented figures and promises you cannot make.',
      ],
      eval: [
        'A pre-send checklist covering superlatives, efficacy claims, truthful numbers, the limits of promises and off-platform contact.',
        'Run the reply through a compliance pass and remove wording or numbers that have no basis.',
      ],
    },
  },
};

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
