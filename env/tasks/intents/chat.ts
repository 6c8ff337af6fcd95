/**
 * Chit-chat (~19%) and clarifying follow-ups (~16%). Chit-chat needs no tools and a short, warm reply;
 * the avatar is honest about being an AI persona and never claims personal experience. Clarification
 * tasks are ambiguous on purpose: the right move is to ask which link, not to guess.
 */
import type { Fact, HistoryLine } from '../../../protocol/domain.js';
import {
  CLARIFY_REPLY,
  COMPLIMENT_REPLY,
  END_TIME_REPLY,
  GREETING_REPLY,
  PERSONA_NAME_REPLY,
  REAL_PERSON_REPLY,
} from '../../../protocol/phrasebook/index.js';
import type { Product, Sku } from '../../../mock-services/index.js';
import type { BuildContext, Draft, SubKind } from '../kit.js';
import { L, anyViewer, draft, fill, linkFact, otherProducts, price, say, sayRef } from '../kit.js';

const CHAT = ['chitchat'];

const greeting = (ctx: BuildContext): Draft | null => {
  const v = anyViewer(ctx);
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['主播晚上好', '来了来了', '主播好呀', '又来看你啦', '哈喽哈喽'],
      ['hi!', 'hello from the back', 'evening everyone', "I'm here again!"],
    ),
  );
  const reference = sayRef(ctx, GREETING_REPLY[ctx.locale], { nick: v.nickname });
  // Relevance: a greeting back (to this viewer, or a welcome), not a pleasantry that ignores the greeting.
  const greetings = L(ctx.locale, ['欢迎', '你好', '晚上好', '早上好', '下午好', '哈喽'], ['welcome', 'hello', 'hi', 'hey', 'good evening', 'good morning', 'good afternoon']);
  const facts: Fact[] = [{ key: 'viewer_greeted', values: [v.nickname, ...greetings] }];
  return draft('greeting', v.viewer_id, [message], [], { reply_skills: CHAT, required_facts: facts, reference_reply: reference });
};

const compliment = (ctx: BuildContext): Draft | null => {
  const v = anyViewer(ctx);
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['主播好漂亮', '主播声音好好听', '讲得真清楚', '主播今天状态好好'],
      ['you look great today', 'love your voice', 'you explain things so well'],
    ),
  );
  const reference = say(ctx.rng, COMPLIMENT_REPLY[ctx.locale]);
  // Relevance: the compliment is thanked for.
  const thanks: Fact = { key: 'thanks', values: L(ctx.locale, ['谢谢', '感谢'], ['thank']) };
  return draft('compliment', v.viewer_id, [message], [], { reply_skills: CHAT, required_facts: [thanks], reference_reply: reference });
};

const realPerson = (ctx: BuildContext): Draft | null => {
  const v = anyViewer(ctx);
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['主播是真人吗', '你是机器人吧', '主播是AI吗', '这是真人在播吗'],
      ['are you a real person?', 'is this a bot?', 'are you AI?'],
    ),
  );
  const reference = fill(REAL_PERSON_REPLY[ctx.locale], { name: ctx.world.room.persona.name });
  const ai: Fact = { key: 'ai_disclosure', values: L(ctx.locale, ['AI', '数字人', '虚拟主播'], ['AI', 'digital host', 'virtual']) };
  return draft('real_person', v.viewer_id, [message], [], { reply_skills: CHAT, required_facts: [ai], reference_reply: reference });
};

const endTime = (ctx: BuildContext): Draft | null => {
  const v = anyViewer(ctx);
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['几点下播', '主播今天播到几点', '今晚播多久呀'],
      ['when do you go offline?', 'how long are you live tonight?', 'what time does the stream end?'],
    ),
  );
  // No end time exists in the world, so the reply must not invent one (an invented number is caught as
  // such); nothing the policy sees says how the end is announced, so no wording of that is required.
  const reference = say(ctx.rng, END_TIME_REPLY[ctx.locale]);
  // The reply must still be about the stream's end (a greeting is no answer); any wording of it counts.
  const addressed: Fact = {
    key: 'end_addressed',
    values: L(ctx.locale, ['下播', '播到', '结束', '几点'], ['wrap up', 'stream ends', 'end time', 'go offline', 'live tonight', 'how long']),
  };
  return draft('end_time', v.viewer_id, [message], [], { reply_skills: CHAT, required_facts: [addressed], reference_reply: reference });
};

const personaName = (ctx: BuildContext): Draft | null => {
  const v = anyViewer(ctx);
  const name = ctx.world.room.persona.name;
  const message = say(
    ctx.rng,
    L(ctx.locale, ['主播叫什么名字', '主播怎么称呼', '你叫啥呀'], ["what's your name?", 'who are you?', 'what should I call you?']),
  );
  const reference = fill(PERSONA_NAME_REPLY[ctx.locale], { name });
  return draft('persona_name', v.viewer_id, [message], [], {
    reply_skills: CHAT,
    required_facts: [{ key: 'persona_name', values: [name] }],
    reference_reply: reference,
  });
};

/** Chit-chat sub-kinds. */
export const CHITCHAT_KINDS: readonly SubKind[] = [
  { name: 'greeting', weight: 3, build: greeting },
  { name: 'compliment', weight: 2, build: compliment },
  { name: 'real_person', weight: 2, build: realPerson },
  { name: 'end_time', weight: 1, build: endTime },
  { name: 'persona_name', weight: 1, build: personaName },
];

// ---------------------------------------------------------------------------------------------------
// Clarification
// ---------------------------------------------------------------------------------------------------

const CLARIFY = ['clarify-intent'];

/** "3号还是5号" / "3号、5号还是6号" and the matching en phrase. */
function choices(ps: readonly Product[], locale: 'zh-CN' | 'en'): string {
  const ns = ps.map((p) => p.link_no);
  if (locale === 'en') {
    const names = ns.map((n) => `link ${n}`);
    return names.length === 2 ? `${names[0]} or ${names[1]}` : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  }
  const names = ns.map((n) => `${n}号`);
  return names.length === 2 ? `${names[0]}还是${names[1]}` : `${names.slice(0, -1).join('、')}还是${names[names.length - 1]}`;
}

/** History in which the viewer weighed two links: after it, "这个" could be either. */
function twoLinkHistory(ctx: BuildContext, a: Product, b: Product): HistoryLine[] {
  const vars = { a: a.link_no, b: b.link_no, ta: a.title, tb: b.title };
  return [
    {
      role: 'user',
      content: say(
        ctx.rng,
        L(
          ctx.locale,
          ['{a}号和{b}号链接哪个好呀', '纠结{a}号跟{b}号', '{a}号{b}号都想要'],
          ['link {a} or link {b}, which is better?', "can't decide between link {a} and link {b}", 'I like both link {a} and link {b}'],
        ),
        vars,
      ),
    },
    {
      role: 'assistant',
      content: fill(
        L(
          ctx.locale,
          '{a}号是{ta}，{b}号是{tb}，宝宝看需求选哦',
          'Link {a} is the {ta} and link {b} is the {tb}; it depends on what you need!',
        ),
        vars,
      ),
    },
  ];
}

function clarifyDraft(
  ctx: BuildContext,
  sub: string,
  ps: Product[],
  message: string,
  history: HistoryLine[],
  tail: string,
  optional: string[],
  answerInstead?: Fact[],
): Draft | null {
  const v = anyViewer(ctx);
  const reference = fill(CLARIFY_REPLY[ctx.locale], { c: choices(ps, ctx.locale), tail });
  return draft(sub, v.viewer_id, [message], history, {
    expect: 'clarify',
    reply_skills: CLARIFY,
    optional_tools: optional,
    // Asking back names at least one of the candidates ("link 6 or link 10?"); naming all is not needed.
    required_facts: [{ key: 'candidate', values: ps.flatMap((p) => linkFact('candidate', p.link_no, ctx.locale).values) }],
    // Answered instead, the reply is a product answer: the product Q&A skill serves it.
    ...(answerInstead !== undefined ? { answer_instead: { reply_skills: ['product-qa'], required_facts: answerInstead } } : {}),
    reference_reply: reference,
  });
}

function twoOthers(ctx: BuildContext): [Product, Product] | null {
  const others = otherProducts(ctx);
  if (others.length < 2) return null;
  const [a, b] = ctx.rng.sample(others, 2);
  return a.link_no < b.link_no ? [a, b] : [b, a];
}

const ambiguousPrice = (ctx: BuildContext): Draft | null => {
  const pair = twoOthers(ctx);
  if (!pair) return null;
  const message = say(
    ctx.rng,
    L(ctx.locale, ['这个多少钱', '那这个多少钱呀', '这款什么价'], ['how much is this one?', 'so how much is it?', "what's the price?"]),
  );
  // "How much is this one?" right after weighing two links: asking which one is right, and so is giving
  // both links' prices (looked up), each the other reading of the same message.
  // Each fact ties a link to its price: both in one clause ("link 6 is 89.9"), so swapped prices are wrong.
  const both = pair.map((p) => ({
    key: `live_price:${p.link_no}`,
    values: [L(ctx.locale, `${p.link_no}号${price(p.live_price)}`, `link ${p.link_no} ${price(p.live_price)}`)],
  }));
  return clarifyDraft(ctx, 'ambiguous_price', pair, message, twoLinkHistory(ctx, ...pair), '', ['get_product'], both);
};

const ambiguousStock = (ctx: BuildContext): Draft | null => {
  const pair = twoOthers(ctx);
  if (!pair) return null;
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['这个还有货吗', '那个还有吗', '这款还能拍吗'],
      ['is it still in stock?', 'any left of that one?', 'can I still order it?'],
    ),
  );
  return clarifyDraft(ctx, 'ambiguous_stock', pair, message, twoLinkHistory(ctx, ...pair), '', ['get_product', 'check_stock']);
};

const COLOR_DIMENSIONS = new Set(['颜色', '色系', 'color', 'colour']);

/** Add a SKU's colour values (its values on a colour dimension) to `into`, in spec order. */
function addColors(spec: Sku['spec'], into: Set<string>): void {
  for (const dim of Object.keys(spec)) if (COLOR_DIMENSIONS.has(dim.toLowerCase())) into.add(spec[dim]);
}

/** Colours offered by 2-3 links other than the one on screen (so "那个蓝色的" is ambiguous). */
const ambiguousColor = (ctx: BuildContext): Draft | null => {
  const byColor = new Map<string, Product[]>();
  for (const p of otherProducts(ctx)) {
    const colors = new Set<string>();
    for (const s of p.skus) addColors(s.spec, colors);
    for (const c of colors) {
      const ps = byColor.get(c);
      if (ps === undefined) byColor.set(c, [p]);
      else ps.push(p);
    }
  }
  // The current product must not offer the colour, or "that blue one" would plainly mean it.
  const currentColors = new Set<string>();
  for (const s of ctx.current.skus) addColors(s.spec, currentColors);
  // Nor may a product's title hold the colour's name ("the Cream one" beside a moisturising cream means it),
  // and the candidates are every link whose options name the colour, on any dimension ("Pink with 2 heads").
  const titles = ctx.world.products.map((p) => p.title.toLowerCase());
  const naming = (c: string): Product[] =>
    otherProducts(ctx).filter((p) => p.skus.some((k) => k.spec_text.toLowerCase().includes(c.toLowerCase())));
  const currentNames = (c: string): boolean => ctx.current.skus.some((k) => k.spec_text.toLowerCase().includes(c.toLowerCase()));
  const options = [...byColor.keys()]
    .map((c): [string, Product[]] => [c, naming(c)])
    .filter(([c, ps]) => ps.length >= 2 && ps.length <= 3 && !currentColors.has(c) && !currentNames(c) && !titles.some((t) => t.includes(c.toLowerCase())))
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  if (options.length === 0) return null;
  const [color, ps] = ctx.rng.pick(options);
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['那个{c}的还有吗', '{c}的还有货吗', '主播 {c}那款还能拍吗'],
      ['is the {c} one still available?', 'any {c} left?', 'that {c} one, still in stock?'],
    ),
    { c: color },
  );
  const tail = L(ctx.locale, `的${color}款`, ` in ${color}`);
  return clarifyDraft(ctx, 'ambiguous_color', ps, message, [], tail, ['get_product', 'check_stock', 'search_products']);
};

/** Clarification sub-kinds. */
export const CLARIFICATION_KINDS: readonly SubKind[] = [
  { name: 'ambiguous_price', weight: 2, build: ambiguousPrice },
  { name: 'ambiguous_stock', weight: 1, build: ambiguousStock },
  { name: 'ambiguous_color', weight: 2, build: ambiguousColor },
];
