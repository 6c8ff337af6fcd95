/**
 * Purchase intent (~3%: push the link card) and marketing (~3%: issue an applicable coupon, flash-sale
 * times, gifts). Marketing sub-kinds exist only when the world supports them: a coupon task needs a coupon
 * that is valid now, has stock, covers the product and is open to the viewer's membership.
 */
import type { Fact } from '../../../protocol/domain.js';
import {
  BUY_CURRENT_REPLY,
  BUY_LINK_REPLY,
  COUPON_NAME,
  COUPON_REPLY,
  FLASH_REPLY,
  GIFT_REPLY,
} from '../../../protocol/phrasebook/index.js';
import type { Coupon, Product, Viewer, World } from '../../../mock-services/index.js';
import { couponCovers } from '../../../mock-services/index.js';
import type { BuildContext, Draft, SubKind } from '../kit.js';
import { L, anyViewer, draft, fill, linkFact, linkName, otherProducts, price, productById, req, say, sayClock, sayRef } from '../kit.js';

/**
 * Marketing tools are discovered over MCP at run time (`discover_tools`), so every task that needs one
 * must discover first: the call leads `required_calls` and hence the solution.
 */
const DISCOVER = req('discover_tools', { server: 'marketing' });

// ---------------------------------------------------------------------------------------------------
// Purchase
// ---------------------------------------------------------------------------------------------------

const PURCHASE = ['purchase-guide'];

const BUY_MSG = {
  current: {
    zh: ['上链接上链接', '主播 上链接', '这个怎么拍', '这款怎么买呀', '想要这个 怎么下单'],
    en: ['drop the link!', 'how do I buy this one?', 'link pls, I want this', 'where do I order this?'],
  },
  link: {
    zh: ['{n}号怎么买', '{n}号链接怎么拍', '想要{n}号 拍哪个', '主播 {n}号上一下链接'],
    en: ['how do I buy link {n}?', 'where do I order link {n}?', 'pop up link {n} pls', 'want link {n}, how to buy'],
  },
  title: {
    zh: ['{t}怎么买', '想要{t} 拍哪个', '{t}在几号链接'],
    en: ['how do I buy the {t}?', 'which link is the {t}? want it', 'where can I order the {t}?'],
  },
};

function buy(kind: 'current' | 'link' | 'title') {
  return (ctx: BuildContext): Draft | null => {
    const pool = kind === 'current' ? [ctx.current] : otherProducts(ctx);
    // Pushing a card for a sold-out product helps nobody; purchase tasks use products on sale.
    const onSale = pool.filter((p) => p.status === 'on_sale');
    if (onSale.length === 0) return null;
    const p = ctx.rng.pick(onSale);
    const message = say(ctx.rng, L(ctx.locale, BUY_MSG[kind].zh, BUY_MSG[kind].en), { n: p.link_no, t: p.title });
    // "link pls" asks for the link, not the price: the link is the fact (the reference reply may still
    // say the price of the product on screen, which the prompt lists).
    const facts: Fact[] = [linkFact('link_no', p.link_no, ctx.locale)];
    let reference: string;
    // The live price is in the prompt only for the product on screen; for other links the reply omits it.
    if (kind === 'current') {
      reference = sayRef(ctx, BUY_CURRENT_REPLY[ctx.locale], {
        link: linkName(p.link_no, ctx.locale),
        Link: `Link ${p.link_no}`,
        price: price(p.live_price),
      });
    } else {
      reference = sayRef(ctx, BUY_LINK_REPLY[ctx.locale], {
        link: linkName(p.link_no, ctx.locale),
        Link: `Link ${p.link_no}`,
      });
    }
    return draft(`buy_${kind}`, anyViewer(ctx).viewer_id, [message], [], {
      reply_skills: PURCHASE,
      required_calls: [req('push_link_card', { link_no: p.link_no })],
      // The purchase-guide skill has the agent check usable coupons first (discover_tools, get_promotions).
      optional_tools: ['get_product', 'search_products', 'check_stock', 'discover_tools', 'get_promotions', 'get_coupon'],
      required_facts: facts,
      expected_state: { pushed_cards: [p.link_no] },
      cta: true,
      reference_reply: reference,
    });
  };
}

/** Purchase sub-kinds. */
export const PURCHASE_KINDS: readonly SubKind[] = [
  { name: 'buy_current', weight: 2, build: buy('current') },
  { name: 'buy_link', weight: 2, build: buy('link') },
  { name: 'buy_title', weight: 1, build: buy('title') },
];

/** Purchase builders reused by the multi-intent composer. */
export const PURCHASE_PARTS = { buyLink: buy('link'), buyCurrent: buy('current') };

// ---------------------------------------------------------------------------------------------------
// Marketing
// ---------------------------------------------------------------------------------------------------

const PROMO = ['promotion'];

/** ISO instants of one offset compare as text only when formatted alike; compare as epochs instead. */
function epoch(iso: string): number {
  return Date.parse(iso);
}

/** Coupons the viewer can be issued now for this product: valid, in stock, in scope, membership allows. */
export function eligibleCoupons(world: World, p: Product, v: Viewer): Coupon[] {
  const now = epoch(world.now);
  return world.coupons.filter(
    (c) =>
      couponCovers(c, p) &&
      epoch(c.valid_from) <= now &&
      now <= epoch(c.valid_to) &&
      c.remaining > 0 &&
      c.per_user_limit > 0 &&
      (!c.members_only || v.membership !== 'none'),
  );
}

/** A coupon's name (`COUPON_NAME`): "满199减20的券" / "20-off-199 coupon", "20元无门槛券" / "20 yuan no-minimum coupon". */
function couponPhrase(c: Coupon, locale: 'zh-CN' | 'en'): string {
  const vars = { t: price(c.threshold), d: price(c.discount) };
  return fill(c.threshold <= 0 ? COUPON_NAME.no_minimum[locale] : COUPON_NAME.threshold[locale], vars);
}

function couponFacts(c: Coupon, locale: 'zh-CN' | 'en'): Fact[] {
  const threshold: Fact =
    c.threshold <= 0
      ? { key: 'threshold', values: L(locale, ['无门槛'], ['no minimum', 'no-minimum']) }
      : { key: 'threshold', values: [price(c.threshold)] };
  return [threshold, { key: 'discount', values: [price(c.discount)] }];
}

/** Coupon messages that ask whether there is a coupon (issuing one is then optional), with the link as `{n}`. */
const ASKS_ABOUT_COUPON: ReadonlySet<string> = new Set([
  '有券吗主播',
  '这个有优惠券吗',
  '{n}号有券吗',
  '{n}号链接有优惠券吗',
  'any coupon for this?',
  'any coupon for link {n}?',
  'is there a coupon on link {n}?',
]);

const coupon = (ctx: BuildContext): Draft | null => {
  const viewers = ctx.viewer ? [ctx.viewer] : ctx.rng.shuffle(ctx.world.viewers);
  const products = ctx.rng.shuffle(ctx.world.products);
  for (const p of products) {
    for (const v of viewers) {
      const ok = eligibleCoupons(ctx.world, p, v);
      if (ok.length === 0) continue;
      // With several eligible coupons the viewer names one by its wording: that wording must be unique.
      const phrases = ok.map((x) => couponPhrase(x, ctx.locale));
      const distinct = ok.filter((_, i) => phrases.indexOf(phrases[i]) === phrases.lastIndexOf(phrases[i]));
      if (distinct.length === 0) continue;
      const c = ctx.rng.pick(ok.length === 1 ? ok : distinct);
      // The service must really issue it on a fresh state (its own checks are the ground truth).
      if (!ctx.call('issue_coupon', { viewer_id: v.viewer_id, coupon_id: c.coupon_id }, v.viewer_id).ok) continue;
      const isCurrent = p.link_no === ctx.current.link_no;
      const vars = { n: p.link_no, c: couponPhrase(c, ctx.locale), link: linkName(p.link_no, ctx.locale) };
      // With one eligible coupon a generic ask is unambiguous; with several the viewer names the one they saw.
      const message =
        ok.length === 1
          ? isCurrent
            ? say(
                ctx.rng,
                L(
                  ctx.locale,
                  ['宝宝们说的券在哪领', '有券吗主播', '这个有优惠券吗', '券呢券呢'],
                  ['where do I get the coupon?', 'any coupon for this?', 'coupon pls'],
                ),
                vars,
              )
            : say(
                ctx.rng,
                L(
                  ctx.locale,
                  ['{n}号有券吗', '{n}号链接有优惠券吗', '主播 {n}号的券在哪领'],
                  ['any coupon for link {n}?', 'is there a coupon on link {n}?', 'where is the coupon for link {n}'],
                ),
                vars,
              )
          : say(
              ctx.rng,
              L(
                ctx.locale,
                ['{n}号{c}还能领吗', '主播 {n}号的{c}给我发一张', '{c}怎么领 想买{n}号'],
                ['can I still get the {c} for link {n}?', 'send me the {c} for link {n} pls', 'how do I get the {c}? want link {n}'],
              ),
              vars,
            );
      const reference = sayRef(ctx, COUPON_REPLY[ctx.locale], vars);
      const issued = { viewer_id: v.viewer_id, coupon_id: c.coupon_id };
      // The promotion skill issues a coupon "only when the viewer clearly wants" it: "coupon pls" does;
      // "is there a coupon on link 3?" asks whether there is one, and either answering or issuing is right.
      const wants = !ASKS_ABOUT_COUPON.has(message.replace(String(p.link_no), '{n}'));
      const d = draft('coupon', v.viewer_id, [message], [], {
        reply_skills: PROMO,
        required_calls: wants
          ? [DISCOVER, req('get_promotions', { item_id: p.item_id }), req('issue_coupon', issued)]
          : [DISCOVER, req('get_promotions', { item_id: p.item_id })],
        ...(wants ? {} : { solution: [DISCOVER.any_of[0], { name: 'get_promotions', arguments: { item_id: p.item_id } }, { name: 'issue_coupon', arguments: issued }] }),
        optional_tools: wants ? ['get_coupon', 'get_product', 'search_products'] : ['get_coupon', 'get_product', 'search_products', 'issue_coupon'],
        required_facts: couponFacts(c, ctx.locale),
        expected_state: wants ? { issued_coupons: [issued] } : {},
        ...(wants ? {} : { optional_state: { issued_coupons: [issued] } }),
        cta: true,
        reference_reply: reference,
      });
      if (d) return d;
    }
  }
  return null;
};

const flashTime = (ctx: BuildContext): Draft | null => {
  const now = epoch(ctx.world.now);
  const sales = ctx.world.flash_sales
    .filter((f) => productById(ctx.world, f.item_id) && epoch(f.ends_at) > now)
    .sort((a, b) => (a.flash_id < b.flash_id ? -1 : 1));
  if (sales.length === 0) return null;
  const f = ctx.rng.pick(sales);
  const p = productById(ctx.world, f.item_id) as Product;
  const upcoming = epoch(f.starts_at) > now;
  const clock = sayClock(upcoming ? f.starts_at : f.ends_at, ctx.locale);
  if (!clock) return null;
  const vars = { n: p.link_no, link: linkName(p.link_no, ctx.locale), time: clock.phrase, price: price(f.price) };
  const message = upcoming
    ? say(
        ctx.rng,
        L(
          ctx.locale,
          ['{n}号秒杀几点开始', '{n}号链接什么时候秒杀', '主播 {n}号的秒杀几点抢'],
          ['when does the flash sale on link {n} start?', 'what time is the link {n} flash sale?', 'link {n} flash deal starts when?'],
        ),
        vars,
      )
    : say(
        ctx.rng,
        L(
          ctx.locale,
          ['{n}号秒杀到几点结束', '{n}号秒杀还有多久', '{n}号的秒杀价什么时候截止'],
          ['when does the link {n} flash sale end?', 'how long is the link {n} flash deal on?', 'until when is link {n} on flash sale?'],
        ),
        vars,
      );
  const reference = fill((upcoming ? FLASH_REPLY.starts : FLASH_REPLY.ends)[ctx.locale], vars);
  return draft(upcoming ? 'flash_start' : 'flash_end', anyViewer(ctx).viewer_id, [message], [], {
    reply_skills: PROMO,
    required_calls: [DISCOVER, req('get_promotions', { item_id: p.item_id })],
    optional_tools: ['get_product'],
    required_facts: [{ key: upcoming ? 'flash_starts_at' : 'flash_ends_at', values: clock.values }],
    cta: true,
    reference_reply: reference,
  });
};

const gift = (ctx: BuildContext): Draft | null => {
  const gifts = ctx.world.gifts.filter((g) => g.remaining > 0 && productById(ctx.world, g.item_id));
  if (gifts.length === 0) return null;
  const g = ctx.rng.pick(gifts);
  const p = productById(ctx.world, g.item_id) as Product;
  const vars = { n: p.link_no, link: linkName(p.link_no, ctx.locale), gift: g.gift_name };
  const message = say(
    ctx.rng,
    L(
      ctx.locale,
      ['{n}号有赠品吗', '拍{n}号送什么呀', '主播 {n}号链接有没有送东西'],
      ['any free gift with link {n}?', 'what do I get free with link {n}?', 'does link {n} come with a gift?'],
    ),
    vars,
  );
  const reference = fill(GIFT_REPLY[ctx.locale], vars);
  return draft('gift', anyViewer(ctx).viewer_id, [message], [], {
    reply_skills: PROMO,
    required_calls: [DISCOVER, req('get_promotions', { item_id: p.item_id })],
    optional_tools: ['get_product'],
    required_facts: [{ key: 'gift', values: [g.gift_name] }],
    cta: true,
    reference_reply: ctx.locale === 'en' ? reference.charAt(0).toUpperCase() + reference.slice(1) : reference,
  });
};

/** Marketing sub-kinds (each only when the world supports it). */
export const MARKETING_KINDS: readonly SubKind[] = [
  { name: 'coupon', weight: 3, build: coupon },
  { name: 'flash_time', weight: 1, build: flashTime },
  { name: 'gift', weight: 1, build: gift },
];

/** Marketing builders reused by the multi-intent composer. */
export const MARKETING_PARTS = { coupon };
