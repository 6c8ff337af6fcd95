/**
 * Product Q&A (~46% of production traffic): prices, stock, attributes, FAQ, shipping and return policy,
 * about the product on screen (facts in the prompt, no call needed) or another link (a call is needed).
 * Some tasks are follow-ups whose history names the link, so the message itself only says "它".
 */
import type { Fact, HistoryLine } from '../../../protocol/domain.js';
import { extractNumbers } from '../../../protocol/text.js';
import {
  ATTRIBUTE_REPLY,
  FAQ_REPLY,
  PRICE_REPLY,
  RETURN_POLICY_REPLY,
  SHIPPING_REPLY,
  STOCK_REPLY,
} from '../../../protocol/phrasebook/index.js';
import type { Product, Sku } from '../../../mock-services/index.js';
import type { BuildContext, Draft, SubKind } from '../kit.js';
import {
  L,
  anyViewer,
  answerFactValues,
  draft,
  fill,
  linkName,
  otherProducts,
  price,
  req,
  reqProduct,
  say,
  sayRef,
  specWords,
  surfacingMessage,
} from '../kit.js';

const SKILLS = ['product-qa'];

/** How the message refers to the product: the one on screen, a named link, or "it" after history. */
type Ref = { kind: 'current' } | { kind: 'link' } | { kind: 'followup'; history: HistoryLine[] };

/** History that names link n, so that a follow-up's "它" is resolvable. */
export function followupHistory(ctx: BuildContext, p: Product): HistoryLine[] {
  const vars = { n: p.link_no, title: p.title };
  return [
    {
      role: 'user',
      content: say(
        ctx.rng,
        L(
          ctx.locale,
          ['主播讲讲{n}号链接', '{n}号链接是什么呀', '看看{n}号'],
          ['tell us about link {n}', 'what is link {n}?', 'show link {n} pls'],
        ),
        vars,
      ),
    },
    {
      role: 'assistant',
      content: say(
        ctx.rng,
        L(
          ctx.locale,
          ['好的宝宝，{n}号链接是{title}，喜欢的可以看看哦', '主播刚才说的{n}号链接就是{title}哦'],
          ['Sure! Link {n} is the {title}, take a look.', 'Link {n} is the {title}, have a look!'],
        ),
        vars,
      ),
    },
  ];
}

/** Choose an other product and how the message refers to it (a named link or a follow-up). */
function refOther(ctx: BuildContext, p: Product): Ref {
  // Compact (multi-intent) parts keep the window self-contained: no history.
  if (ctx.compact) return { kind: 'link' };
  return ctx.rng.chance(0.3) ? { kind: 'followup', history: followupHistory(ctx, p) } : { kind: 'link' };
}

/** The subject of a reference reply: "这款" / "3号链接" (zh), "This one" / "Link 3" (en). */
function subject(ctx: BuildContext, p: Product, ref: Ref): string {
  if (ref.kind === 'current') return L(ctx.locale, '这款', 'This one');
  return ctx.locale === 'en' ? `Link ${p.link_no}` : linkName(p.link_no, ctx.locale);
}

function historyOf(ref: Ref): HistoryLine[] {
  return ref.kind === 'followup' ? ref.history : [];
}

// ---------------------------------------------------------------------------------------------------

const PRICE_MSG = {
  current: {
    zh: ['这个多少钱', '现在这个什么价', '主播 这款多少钱呀', '讲的这个多少米', '这款直播价多少'],
    en: ['how much is this one?', 'price of this?', "what's the price on this one", 'how much rn?'],
  },
  link: {
    zh: ['{n}号链接多少钱', '{n}号多少钱呀', '主播 {n}号链接什么价', '{n}号现在直播价多少', '问下{n}号链接价格'],
    en: ['how much is link {n}?', 'price of link {n}?', 'link {n} how much', "what's the live price on link {n}"],
  },
  followup: { zh: ['那它多少钱', '它现在什么价', '那个多少钱呀'], en: ['how much is it?', 'and its price?', 'what does it cost now?'] },
};

/** Price facts: the live price; the list price is a likely wrong answer when it differs. */
function priceFacts(p: Product): { req: Fact[]; forbid: Fact[] } {
  const live = price(p.live_price);
  const list = price(p.list_price);
  // A list price that is also a number of the options' names ("90 softgels" at a list price of 90) cannot
  // be told apart from the option a correct answer names: it is not forbidden then.
  const named = p.skus.some((k) => extractNumbers(k.spec_text).includes(p.list_price));
  return {
    req: [{ key: 'live_price', values: [live] }],
    forbid: list !== live && !live.includes(list) && !named ? [{ key: 'list_price_as_live', values: [list] }] : [],
  };
}

function priceDraft(ctx: BuildContext, p: Product, ref: Ref, sub: string): Draft | null {
  const v = anyViewer(ctx);
  const msgs = PRICE_MSG[ref.kind];
  const message = say(ctx.rng, L(ctx.locale, msgs.zh, msgs.en), { n: p.link_no });
  const vars = { s: subject(ctx, p, ref), price: price(p.live_price) };
  const reference = sayRef(ctx, PRICE_REPLY[ctx.locale], vars);
  const f = priceFacts(p);
  return draft(sub, v.viewer_id, [message], historyOf(ref), {
    reply_skills: SKILLS,
    required_calls: ref.kind === 'current' ? [] : [reqProduct(p)],
    optional_tools: ref.kind === 'current' ? ['get_product'] : ['search_products'],
    required_facts: f.req,
    forbidden_facts: f.forbid,
    reference_reply: reference,
  });
}

const priceOther = (ctx: BuildContext): Draft | null => {
  const others = otherProducts(ctx);
  if (others.length === 0) return null;
  const p = ctx.rng.pick(others);
  return priceDraft(ctx, p, refOther(ctx, p), 'price_other');
};

const priceCurrent = (ctx: BuildContext): Draft | null => priceDraft(ctx, ctx.current, { kind: 'current' }, 'price_current');

// ---------------------------------------------------------------------------------------------------

const STOCK_MSG = {
  current: {
    zh: ['主播 那个{spec}还有吗', '{spec}还有货吗', '{spec}有没有货了', '{spec}还能拍吗'],
    en: ['is the {spec} still available?', 'any {spec} left?', 'still have {spec}?'],
  },
  link: {
    zh: ['{n}号链接{spec}还有吗', '{n}号{spec}有货吗', '主播 {n}号的{spec}还有没有'],
    en: ['link {n} {spec} in stock?', 'is link {n} in {spec} still available?', 'any {spec} left on link {n}?'],
  },
  followup: {
    zh: ['那它{spec}还有吗', '它{spec}有货吗', '那个{spec}还有没有'],
    en: ['does it still have {spec}?', 'is it in stock in {spec}?', 'any {spec} left of it?'],
  },
};
const STOCK_MSG_SINGLE = {
  current: { zh: ['这个还有货吗', '还有吗主播', '这款还能拍吗'], en: ['is this still in stock?', 'any left?', 'still available?'] },
  link: {
    zh: ['{n}号链接还有货吗', '{n}号还有吗', '{n}号卖完了没'],
    en: ['is link {n} still in stock?', 'any left on link {n}?', 'link {n} sold out?'],
  },
  followup: { zh: ['那它还有货吗', '它还有吗', '那个卖完了没'], en: ['is it still in stock?', 'any of it left?', 'is it sold out?'] },
};

/** The stock wording and facts, by the service's thresholds (0 sold out, 1-10 low). `s` names the SKU. */
function stockAnswer(ctx: BuildContext, s: string, sku: Sku): { reference: string; req: Fact[]; forbid: Fact[] } {
  const vars = { s, stock: sku.stock };
  if (sku.stock <= 0) {
    return {
      reference: sayRef(ctx, STOCK_REPLY.sold_out[ctx.locale], vars),
      req: [{ key: 'stock_status', values: L(ctx.locale, ['售罄', '卖完了', '没货', '没有货'], ['sold out', 'out of stock']) }],
      forbid: [{ key: 'in_stock_claim', values: L(ctx.locale, ['还有货', '有现货'], ['still in stock', 'still available']) }],
    };
  }
  if (sku.stock <= 10) {
    return {
      reference: sayRef(ctx, STOCK_REPLY.low[ctx.locale], vars),
      req: [{ key: 'stock', values: [String(sku.stock)] }],
      forbid: [{ key: 'sold_out_claim', values: L(ctx.locale, ['售罄', '卖完了'], ['sold out']) }],
    };
  }
  return {
    reference: sayRef(ctx, STOCK_REPLY.in_stock[ctx.locale], vars),
    req: [{ key: 'stock_status', values: L(ctx.locale, ['有货', '现货'], ['in stock', 'available']) }],
    forbid: [{ key: 'sold_out_claim', values: L(ctx.locale, ['售罄', '卖完了'], ['sold out']) }],
  };
}

/** How a stock reply names the SKU: "这款蓝色M" / "3号链接蓝色M" / "the blue M" / "link 3 in blue M". */
function skuPhrase(ctx: BuildContext, p: Product, ref: Ref, spec: string): string {
  const current = ref.kind === 'current';
  if (ctx.locale !== 'en') return (current ? '这款' : linkName(p.link_no, ctx.locale)) + spec;
  if (current) return spec ? `the ${spec}` : 'this one';
  return spec ? `link ${p.link_no} in ${spec}` : `link ${p.link_no}`;
}

const stock = (ctx: BuildContext): Draft | null => {
  const others = otherProducts(ctx);
  const useCurrent = others.length === 0 || ctx.rng.chance(0.4);
  const p = useCurrent ? ctx.current : ctx.rng.pick(others);
  if (p.skus.length === 0) return null;
  const ref: Ref = useCurrent ? { kind: 'current' } : refOther(ctx, p);
  const sku = ctx.rng.pick(p.skus);
  const single = p.skus.length === 1;
  const spec = single ? '' : specWords(sku, ctx.locale);
  const table = single ? STOCK_MSG_SINGLE[ref.kind] : STOCK_MSG[ref.kind];
  const message = say(ctx.rng, L(ctx.locale, table.zh, table.en), { n: p.link_no, spec });
  const a = stockAnswer(ctx, skuPhrase(ctx, p, ref, spec), sku);
  return draft('stock', anyViewer(ctx).viewer_id, [message], historyOf(ref), {
    reply_skills: SKILLS,
    required_calls: [req('check_stock', { item_id: p.item_id })],
    optional_tools: ['get_product', 'search_products'],
    required_facts: a.req,
    // The skill says to suggest an option in stock when one is sold out ("the L is sold out, the M is in
    // stock"): with options of the other status, the opposite claim may be about one of them, so only a
    // product whose options all share the asked one's status forbids it.
    forbidden_facts: p.skus.every((x) => (x.stock <= 0) === (sku.stock <= 0)) ? a.forbid : [],
    reference_reply: a.reference,
  });
};

// ---------------------------------------------------------------------------------------------------

const attributeCurrent = (ctx: BuildContext): Draft | null => {
  const entries = Object.entries(ctx.current.attributes).filter(([k, v]) => k.length > 0 && v.length > 0 && v.length <= 40);
  if (entries.length === 0) return null;
  const [name, value] = ctx.rng.pick(entries);
  // English attribute names are title-cased labels ("Net content"); mid-sentence they read lower-case.
  const attr = ctx.locale === 'en' ? name.toLowerCase() : name;
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['{attr}是啥呀', '问一下这个的{attr}', '主播 {attr}说一下', '这款{attr}呢'],
      ["what's the {attr}?", '{attr} of this one?', 'hey, {attr}?', 'can you tell me the {attr}'],
    ),
    { attr },
  );
  const reference = say(ctx.rng, ATTRIBUTE_REPLY[ctx.locale], { attr, value });
  return draft('attribute_current', anyViewer(ctx).viewer_id, [message], [], {
    reply_skills: SKILLS,
    optional_tools: ['get_product'],
    required_facts: [{ key: `attribute:${name}`, values: [value] }],
    reference_reply: reference,
  });
};

// ---------------------------------------------------------------------------------------------------

const faqCurrent = (ctx: BuildContext): Draft | null => {
  const faqs = ctx.current.faq;
  if (faqs.length === 0) return null;
  const f = ctx.rng.pick(faqs);
  const message = say(ctx.rng, L(ctx.locale, ['{q}', '主播 {q}', '请问{q}'], ['{q}', 'hey, {q}', 'quick q: {q}']), { q: f.question });
  const reference = fill(FAQ_REPLY.current[ctx.locale], { a: f.answer });
  return draft('faq_current', anyViewer(ctx).viewer_id, [message], [], {
    reply_skills: SKILLS,
    optional_tools: ['search_faq', 'get_product'],
    required_facts: [{ key: `faq:${f.faq_id}`, values: answerFactValues(f.answer) }],
    reference_reply: reference,
  });
};

const faqOther = (ctx: BuildContext): Draft | null => {
  const candidates = otherProducts(ctx).filter((p) => p.faq.length > 0);
  if (candidates.length === 0) return null;
  const p = ctx.rng.pick(candidates);
  const f = ctx.rng.pick(p.faq);
  const v = anyViewer(ctx);
  const templates = L(
    ctx.locale,
    ['{n}号链接 {q}', '{n}号的{q}', '主播 {n}号{q}'],
    ['link {n}: {q}', 'about link {n} - {q}', 'for link {n}, {q}'],
  );
  // The service's search must surface this FAQ for the viewer's own words, or the task is unanswerable.
  const message = surfacingMessage(
    ctx,
    v.viewer_id,
    p.item_id,
    f.faq_id,
    templates.map((t) => fill(t, { n: p.link_no, q: f.question })),
  );
  if (message === null) return null;
  const reference = fill(FAQ_REPLY.other[ctx.locale], { link: linkName(p.link_no, ctx.locale), a: f.answer });
  return draft('faq_other', v.viewer_id, [message], [], {
    reply_skills: SKILLS,
    required_calls: [req('search_faq', { item_id: p.item_id })],
    solution: [{ name: 'search_faq', arguments: { question: message, item_id: p.item_id } }],
    optional_tools: ['get_product', 'search_products'],
    required_facts: [{ key: `faq:${f.faq_id}`, values: answerFactValues(f.answer) }],
    reference_reply: reference,
  });
};

// ---------------------------------------------------------------------------------------------------

const SHIP_MSG = {
  current: {
    zh: ['多久发货', '今天拍了什么时候发', '主播 这个几天能发货', '拍了多久发呀'],
    en: ['when does it ship?', 'how soon will this ship?', 'if I order now when does it ship'],
  },
  link: {
    zh: ['{n}号链接什么时候发货', '{n}号多久能发', '{n}号拍了几天发货'],
    en: ['how soon does link {n} ship?', 'when does link {n} ship?', 'link {n} shipping time?'],
  },
  followup: {
    zh: ['那它多久发货', '它什么时候发', '那个几天能发'],
    en: ['when does it ship?', 'how fast does it ship?', 'shipping time for it?'],
  },
};

const shipping = (ctx: BuildContext): Draft | null => {
  const others = otherProducts(ctx);
  const useCurrent = others.length === 0 || ctx.rng.chance(0.5);
  const p = useCurrent ? ctx.current : ctx.rng.pick(others);
  const ref: Ref = useCurrent ? { kind: 'current' } : refOther(ctx, p);
  const msgs = SHIP_MSG[ref.kind];
  const message = say(ctx.rng, L(ctx.locale, msgs.zh, msgs.en), { n: p.link_no });
  const h = p.shipping.ship_within_hours;
  const reference = fill(SHIPPING_REPLY[ctx.locale], { s: subject(ctx, p, ref), h, from: p.shipping.ships_from });
  return draft('shipping', anyViewer(ctx).viewer_id, [message], historyOf(ref), {
    reply_skills: SKILLS,
    required_calls: ref.kind === 'current' ? [] : [reqProduct(p)],
    optional_tools: ref.kind === 'current' ? ['get_product'] : ['search_products'],
    required_facts: [{ key: 'ship_within_hours', values: [String(h)] }],
    reference_reply: reference,
  });
};

// ---------------------------------------------------------------------------------------------------

const RETURN_MSG = {
  current: {
    zh: ['支持七天无理由吗', '不喜欢能退吗', '这个能七天无理由退货吗'],
    en: ["can I return it if I don't like it?", 'does this support seven-day returns?', 'no-reason returns ok?'],
  },
  link: {
    zh: ['{n}号能七天无理由退吗', '{n}号链接支持无理由退货吗', '{n}号不合适能退吗'],
    en: ['does link {n} support seven-day returns?', "can I return link {n} if it doesn't fit?", 'link {n} no-reason return?'],
  },
  followup: {
    zh: ['那它能七天无理由吗', '它不喜欢能退吗', '那个支持无理由退货吗'],
    en: ["can I return it if I don't like it?", 'does it support seven-day returns?', 'is it returnable?'],
  },
};

const returnPolicy = (ctx: BuildContext): Draft | null => {
  const others = otherProducts(ctx);
  const useCurrent = others.length === 0 || ctx.rng.chance(0.5);
  const p = useCurrent ? ctx.current : ctx.rng.pick(others);
  const ref: Ref = useCurrent ? { kind: 'current' } : refOther(ctx, p);
  const msgs = RETURN_MSG[ref.kind];
  const message = say(ctx.rng, L(ctx.locale, msgs.zh, msgs.en), { n: p.link_no });
  const s = subject(ctx, p, ref);
  const a = p.after_sales;
  const excl = a.return_exclusions[0];
  let reference: string;
  let facts: Fact[];
  let forbid: Fact[];
  if (a.seven_day_return) {
    reference = excl
      ? fill(RETURN_POLICY_REPLY.with_exclusion[ctx.locale], { s, x: excl.replace(/[。.]$/, '') })
      : fill(RETURN_POLICY_REPLY.supported[ctx.locale], { s });
    facts = [
      {
        key: 'seven_day_return',
        values: L(
          ctx.locale,
          ['支持七天无理由', '可以七天无理由', '支持无理由'],
          ['supports seven-day', 'seven-day no-reason returns are supported', 'can be returned'],
        ),
      },
    ];
    // The exclusions themselves say "不支持七天无理由", so the opposite claim is only checkable without them.
    forbid = excl
      ? []
      : [{ key: 'no_seven_day_claim', values: L(ctx.locale, ['不支持七天', '不能七天无理由'], ['not support', "doesn't support"]) }];
  } else {
    reference = fill(RETURN_POLICY_REPLY.not_supported[ctx.locale], { s });
    facts = [
      {
        key: 'seven_day_return',
        values: L(ctx.locale, ['不支持', '不能七天无理由'], ['does not support', "doesn't support", 'not support', 'not returnable']),
      },
    ];
    forbid = [{ key: 'seven_day_claim', values: L(ctx.locale, ['可以七天无理由'], ['supports seven-day']) }];
  }
  return draft('return_policy', anyViewer(ctx).viewer_id, [message], historyOf(ref), {
    reply_skills: SKILLS,
    required_calls: ref.kind === 'current' ? [] : [reqProduct(p)],
    optional_tools: ref.kind === 'current' ? ['get_product', 'search_faq'] : ['search_products', 'search_faq'],
    required_facts: facts,
    forbidden_facts: forbid,
    reference_reply: reference,
  });
};

/** Product Q&A sub-kinds and their weights within the intent. */
export const PRODUCT_QA_KINDS: readonly SubKind[] = [
  { name: 'price_other', weight: 3, build: priceOther },
  { name: 'price_current', weight: 2, build: priceCurrent },
  { name: 'stock', weight: 3, build: stock },
  { name: 'attribute_current', weight: 2, build: attributeCurrent },
  { name: 'faq_current', weight: 2, build: faqCurrent },
  { name: 'faq_other', weight: 1, build: faqOther },
  { name: 'shipping', weight: 1, build: shipping },
  { name: 'return_policy', weight: 1, build: returnPolicy },
];

/** Single builders reused by the multi-intent composer. */
export const PRODUCT_QA_PARTS = { priceOther, priceCurrent, stock, shipping };
