/**
 * The memorizer's "weights": keyword rules that classify a viewer message (zh-CN and en), and one fixed
 * script per class written in the BASE harness's vocabulary — canonical tool names, canonical argument
 * names, canonical skill names and canonical result field names. The rules are the memorizer's own
 * reading of the viewer messages of env/tasks/intents/*.ts (what a small model fine-tuned on the base
 * harness would have seen). Its replies are the reference replies it was trained on: the same tables,
 * imported from protocol/phrasebook/, of which it recalls the first (full) and the last (short) wording;
 * the few replies written here are its own (fallbacks the generator never needs, and a few wordings that
 * differ, noted where they are).
 *
 * A script is re-run on every turn against the results gathered so far: it returns the calls it still
 * needs, or its reply once everything it needs is known. That keeps each script a straight line of
 * "look this up, then that, then say it", like the trajectories it imitates.
 */
import type { CanonicalCall, Locale } from '../protocol/domain.js';
import type { Phrases } from '../protocol/phrasebook/index.js';
import {
  ATTRIBUTE_REPLY,
  BUY_CURRENT_REPLY,
  BUY_LINK_REPLY,
  CLARIFY_REPLY,
  COMPLIMENT_REPLY,
  COUPON_NAME,
  COUPON_REPLY,
  END_TIME_REPLY,
  FAQ_REPLY,
  FLASH_REPLY,
  GIFT_REPLY,
  GREETING_REPLY,
  HANDOFF_REPLY,
  INGREDIENT_ATTRIBUTES,
  INGREDIENTS_REPLY,
  MEDICAL_REFUSAL_LEAD,
  OFF_PLATFORM_REPLY,
  ORDER_STATUS_REPLY,
  PERSONA_NAME_REPLY,
  PRICE_REPLY,
  PRODUCT_KIND_NAME,
  REAL_PERSON_REPLY,
  REFUSAL_ATTRIBUTE_OFFER,
  REFUSAL_DETAILS_OFFER,
  RETURN_ELIGIBLE_REPLY,
  RETURN_INELIGIBLE_REPLY,
  RETURN_POLICY_REPLY,
  SHIPPING_REPLY,
  STOCK_REPLY,
  SUPERLATIVE_REPLY,
  TRACKING_REPLY,
  TRACKING_STATUS,
} from '../protocol/phrasebook/index.js';
import { charLength } from '../protocol/text.js';
import type { LineupEntry, RoomFacts } from './memorizer-room.js';

/** The base harness's reply limit, memorised (a variant that changes it is not noticed). */
export const MEMORIZED_MAX_CHARS = 120;

/** What a script knows of a call: not made yet (undefined), failed, or its canonical result data. */
export type CallResult = { ok: true; data: unknown } | { ok: false };

/** What a script sees. */
export interface ScriptContext {
  room: RoomFacts;
  /** Multi-intent parts share one reply: use the shortest wording. */
  compact: boolean;
  result(name: string, args: Record<string, unknown>): CallResult | undefined;
}

/** A script's next step: calls it still needs, or its reply. */
export type Step = { calls: CanonicalCall[] } | { reply: string };

/** One classified message: the reply skill it needs and its script. */
export interface Part {
  /** Class name, for debugging. */
  kind: string;
  skill: string;
  run(ctx: ScriptContext): Step;
}

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

function zh(ctx: ScriptContext): boolean {
  return ctx.room.locale === 'zh-CN';
}

function T<X>(ctx: ScriptContext, zhValue: X, enValue: X): X {
  return zh(ctx) ? zhValue : enValue;
}

/** "3号链接" / "link 3", the way the prompt names links. */
function linkName(ctx: ScriptContext, n: number): string {
  return zh(ctx) ? `${n}号链接` : `link ${n}`;
}

function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, k: string) => (k in vars ? String(vars[k]) : whole));
}

/**
 * The wordings of a reference-reply table that the memorizer recalls: the first (the full one) and the
 * last (the short one). The generator samples every paraphrase; the fine-tune it imitates settled on these.
 */
function recall(ctx: ScriptContext, table: Phrases): string[] {
  const all = table[ctx.room.locale];
  return all.length <= 2 ? all.slice() : [all[0], all[all.length - 1]];
}

/** The one wording the memorizer says of a table it does not vary: the first. */
function first(ctx: ScriptContext, table: Phrases): string {
  return table[ctx.room.locale][0];
}

/**
 * Pick the wording: the first template that fits the memorised limit (the shortest one for a compact
 * multi-intent part, or when none fits).
 */
function choose(ctx: ScriptContext, templates: readonly string[], vars: Record<string, string | number>): string {
  const filled = templates.map((t) => fill(t, vars));
  const shortest = filled.reduce((a, b) => (charLength(b) < charLength(a) ? b : a));
  if (ctx.compact) return shortest;
  return filled.find((s) => charLength(s) <= MEMORIZED_MAX_CHARS) ?? shortest;
}

const reply = (text: string): Step => ({ reply: text });
const calls = (...cs: CanonicalCall[]): Step => ({ calls: cs });
const call = (name: string, args: Obj): CanonicalCall => ({ name, arguments: args });

function lineupByLink(room: RoomFacts, n: number): LineupEntry | undefined {
  return room.lineup.find((e) => e.link_no === n);
}

function isCurrent(room: RoomFacts, n: number): boolean {
  return room.current !== null && room.current.link_no === n;
}

/** A price as tools print it (89.90 -> "89.9"). */
function price(v: unknown): string {
  return String(Number(v));
}

const EN_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "12月3日20点" / "Dec 3, 20:00", with digits the ISO text itself contains. */
function sayClock(iso: string, locale: Locale): string {
  const m = /^\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!m) return iso;
  const [month, day, hour, minute] = [Number(m[1]), Number(m[2]), Number(m[3]), m[4]];
  if (locale === 'en') return `${EN_MONTHS[month - 1]} ${day}, ${hour}:${minute}`;
  return `${month}月${day}日${minute === '00' ? `${hour}点` : `${hour}点${minute}分`}`;
}

function epoch(iso: string): number {
  return Date.parse(iso);
}

/** Words that a title may carry but a reply must not (special-cosmetic efficacy): such titles are not repeated. */
const RISKY_TITLE = /美白|祛斑|淡斑|去斑|祛黄|防脱|生发|育发|whiten|spot|hair|freckle/i;

/** A fallback when a lookup failed: no invented facts, a pointer to the details page. */
function unknownReply(ctx: ScriptContext): string {
  return T(
    ctx,
    '亲，这个信息主播这边暂时没查到，可以先看看商品详情页哦',
    'I could not look that up just now; please check the details page.',
  );
}

// ---------------------------------------------------------------------------------------------------
// Product Q&A
// ---------------------------------------------------------------------------------------------------

/** Subject of a product answer: "这款" / "3号链接" (zh), "This one" / "Link 3" (en). */
function subject(ctx: ScriptContext, n: number): string {
  if (isCurrent(ctx.room, n)) return T(ctx, '这款', 'This one');
  return T(ctx, linkName(ctx, n), `Link ${n}`);
}

/** get_product by link for another product; the prompt's block for the one on screen. */
function productData(ctx: ScriptContext, n: number): { step: Step } | { data: Obj } | { failed: true } {
  const r = ctx.result('get_product', { link_no: n });
  if (r === undefined) return { step: calls(call('get_product', { link_no: n })) };
  if (!r.ok || !isObj(r.data)) return { failed: true };
  return { data: r.data };
}

function pricePart(n: number): Part {
  return {
    kind: 'price',
    skill: 'product-qa',
    run(ctx) {
      let p: string;
      const cur = ctx.room.current;
      if (cur && isCurrent(ctx.room, n)) p = cur.live_price;
      else {
        const d = productData(ctx, n);
        if ('step' in d) return d.step;
        if ('failed' in d) return reply(unknownReply(ctx));
        p = price(d.data.live_price);
      }
      return reply(
        choose(ctx, recall(ctx, PRICE_REPLY), {
          s: subject(ctx, n),
          price: p,
        }),
      );
    },
  };
}

/** The SKU a message names: the longest spec text it contains (zh without spaces, en case-insensitive). */
function matchSpec<S>(msg: string, skus: readonly S[], specOf: (s: S) => string, locale: Locale): S | undefined {
  const hay = locale === 'en' ? msg.toLowerCase() : msg.replace(/\s+/g, '');
  let best: S | undefined;
  let bestLen = 0;
  for (const s of skus) {
    const spec = locale === 'en' ? specOf(s).toLowerCase() : specOf(s).replace(/\s+/g, '');
    if (spec.length > bestLen && hay.includes(spec)) {
      best = s;
      bestLen = spec.length;
    }
  }
  return best;
}

function stockPart(n: number, msg: string): Part {
  return {
    kind: 'stock',
    skill: 'product-qa',
    run(ctx) {
      const entry = lineupByLink(ctx.room, n);
      if (!entry) return reply(unknownReply(ctx));
      const r = ctx.result('check_stock', { item_id: entry.item_id });
      if (r === undefined) return calls(call('check_stock', { item_id: entry.item_id }));
      const skus = r.ok && isObj(r.data) ? arr(r.data.skus) : [];
      if (skus.length === 0) return reply(unknownReply(ctx));
      const single = skus.length === 1;
      const sku = single ? skus[0] : (matchSpec(msg, skus, (s) => str(s.spec_text), ctx.room.locale) ?? skus[0]);
      const specText = str(sku.spec_text);
      const spec = single ? '' : zh(ctx) ? specText.replace(/\s+/g, '') : specText;
      const current = isCurrent(ctx.room, n);
      const s = zh(ctx)
        ? (current ? '这款' : linkName(ctx, n)) + spec
        : current
          ? spec
            ? `the ${spec}`
            : 'this one'
          : spec
            ? `link ${n} in ${spec}`
            : `link ${n}`;
      const stock = num(sku.stock);
      const vars = { s, stock };
      if (stock <= 0) return reply(choose(ctx, recall(ctx, STOCK_REPLY.sold_out), vars));
      if (stock <= 10) return reply(choose(ctx, recall(ctx, STOCK_REPLY.low), vars));
      return reply(choose(ctx, recall(ctx, STOCK_REPLY.in_stock), vars));
    },
  };
}

function attributePart(name: string, value: string): Part {
  return {
    kind: 'attribute',
    skill: 'product-qa',
    run(ctx) {
      return reply(fill(first(ctx, ATTRIBUTE_REPLY), { attr: zh(ctx) ? name : name.toLowerCase(), value }));
    },
  };
}

function faqCurrentPart(answer: string): Part {
  return {
    kind: 'faq_current',
    skill: 'product-qa',
    run(ctx) {
      return reply(fill(FAQ_REPLY.current[ctx.room.locale], { a: answer }));
    },
  };
}

/**
 * search_faq on another link, with the viewer's own words as the question. The answer is the result whose
 * question the message quotes, else the first whose question matches `topic`, else the first result.
 */
function faqOtherPart(n: number, msg: string, topic: RegExp | null, kind = 'faq_other', skill = 'product-qa'): Part {
  return {
    kind,
    skill,
    run(ctx) {
      const entry = lineupByLink(ctx.room, n);
      if (!entry) return reply(unknownReply(ctx));
      const args = { question: msg, item_id: entry.item_id };
      const r = ctx.result('search_faq', args);
      if (r === undefined) return calls(call('search_faq', args));
      const results = r.ok && isObj(r.data) ? arr(r.data.results) : [];
      const lower = msg.toLowerCase();
      const hit =
        results.find((x) => str(x.question) !== '' && lower.includes(str(x.question).toLowerCase())) ??
        (topic ? results.find((x) => topic.test(str(x.question))) : undefined) ??
        results[0];
      if (!hit) return reply(unknownReply(ctx));
      return reply(fill(FAQ_REPLY.other[ctx.room.locale], { link: linkName(ctx, n), a: str(hit.answer) }));
    },
  };
}

function shippingPart(n: number): Part {
  return {
    kind: 'shipping',
    skill: 'product-qa',
    run(ctx) {
      let h: string;
      let from: string;
      const cur = ctx.room.current;
      if (cur && isCurrent(ctx.room, n)) [h, from] = [cur.ship_hours, cur.ships_from];
      else {
        const d = productData(ctx, n);
        if ('step' in d) return d.step;
        if ('failed' in d || !isObj(d.data.shipping)) return reply(unknownReply(ctx));
        [h, from] = [str(d.data.shipping.ship_within_hours), str(d.data.shipping.ships_from)];
      }
      return reply(
        fill(SHIPPING_REPLY[ctx.room.locale], {
          s: subject(ctx, n),
          h,
          from,
        }),
      );
    },
  };
}

function returnPolicyPart(n: number): Part {
  return {
    kind: 'return_policy',
    skill: 'product-qa',
    run(ctx) {
      let seven: boolean;
      let excl: string | undefined;
      const cur = ctx.room.current;
      if (cur && isCurrent(ctx.room, n)) [seven, excl] = [cur.seven_day_return, cur.exclusions[0]];
      else {
        const d = productData(ctx, n);
        if ('step' in d) return d.step;
        if ('failed' in d || !isObj(d.data.after_sales)) return reply(unknownReply(ctx));
        const a = d.data.after_sales;
        seven = a.seven_day_return === true;
        excl = Array.isArray(a.return_exclusions) ? str(a.return_exclusions[0]) || undefined : undefined;
      }
      const s = subject(ctx, n);
      if (!seven) return reply(fill(RETURN_POLICY_REPLY.not_supported[ctx.room.locale], { s }));
      if (excl)
        return reply(
          fill(RETURN_POLICY_REPLY.with_exclusion[ctx.room.locale], {
            s,
            x: excl.replace(/[。.]$/, ''),
          }),
        );
      return reply(fill(RETURN_POLICY_REPLY.supported[ctx.room.locale], { s }));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Chit-chat and clarification
// ---------------------------------------------------------------------------------------------------

type ChatKind = 'greeting' | 'compliment' | 'real_person' | 'end_time' | 'persona_name' | 'other';

function chitchatPart(sub: ChatKind): Part {
  return {
    kind: `chitchat:${sub}`,
    skill: 'chitchat',
    run(ctx) {
      const vars = { nick: ctx.room.nickname, name: ctx.room.persona };
      switch (sub) {
        case 'greeting':
          return reply(choose(ctx, recall(ctx, GREETING_REPLY), vars));
        case 'compliment':
          return reply(first(ctx, COMPLIMENT_REPLY));
        case 'real_person':
          return reply(fill(REAL_PERSON_REPLY[ctx.room.locale], vars));
        case 'end_time':
          return reply(first(ctx, END_TIME_REPLY));
        case 'persona_name':
          return reply(fill(PERSONA_NAME_REPLY[ctx.room.locale], vars));
        case 'other':
          return reply(T(ctx, '宝宝有想了解的商品随时问我哦', 'Ask me anything about the products!'));
      }
    },
  };
}

/** "3号还是5号" / "link 3 or link 5" (three: "3号、5号还是6号"). */
function choices(ctx: ScriptContext, links: readonly number[]): string {
  if (!zh(ctx)) {
    const names = links.map((n) => `link ${n}`);
    return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  }
  const names = links.map((n) => `${n}号`);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join('、')}还是${names[names.length - 1]}`;
}

function clarifyReply(ctx: ScriptContext, links: readonly number[], color: string | null): string {
  const tail = color === null ? '' : T(ctx, `的${color}款`, ` in ${color}`);
  if (links.length === 0)
    return T(ctx, `宝宝您问的是哪个链接${tail}呀？告诉我马上帮您看`, `Which link do you mean${tail}? Tell me and I will check right away.`);
  return fill(CLARIFY_REPLY[ctx.room.locale], { c: choices(ctx, links), tail });
}

function clarifyLinksPart(links: readonly number[]): Part {
  return { kind: 'clarify_links', skill: 'clarify-intent', run: (ctx) => reply(clarifyReply(ctx, links, null)) };
}

/** "那个蓝色的还有吗": look every other link up, and ask which of those offering the colour is meant. */
function clarifyColorPart(color: string): Part {
  return {
    kind: 'clarify_color',
    skill: 'clarify-intent',
    run(ctx) {
      const others = ctx.room.lineup.filter((e) => !isCurrent(ctx.room, e.link_no));
      const needed = others.filter((e) => ctx.result('get_product', { link_no: e.link_no }) === undefined);
      if (needed.length > 0) return calls(...needed.map((e) => call('get_product', { link_no: e.link_no })));
      const want = ` ${color.toLowerCase()} `;
      const links: number[] = [];
      for (const e of others) {
        const r = ctx.result('get_product', { link_no: e.link_no });
        if (!r || !r.ok || !isObj(r.data)) continue;
        if (arr(r.data.skus).some((s) => ` ${str(s.spec_text).toLowerCase()} `.includes(want))) links.push(e.link_no);
      }
      return reply(clarifyReply(ctx, links, color));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Orders: after-sales and hand-off
// ---------------------------------------------------------------------------------------------------

/** list_orders for the viewer on the prompt's viewer line, then the order whose title the message names. */
function findOrder(ctx: ScriptContext, title: string): { step: Step } | { order: Obj } | { failed: true } {
  const args = { viewer_id: ctx.room.viewer_id };
  const r = ctx.result('list_orders', args);
  if (r === undefined) return { step: calls(call('list_orders', args)) };
  const orders = r.ok && isObj(r.data) ? arr(r.data.orders) : [];
  const t = title.toLowerCase();
  const order =
    orders.find((o) => str(o.title).toLowerCase() === t) ??
    orders.find((o) => t.includes(str(o.title).toLowerCase()) && str(o.title) !== '');
  return order ? { order } : { failed: true };
}

/**
 * The after-sales script's common opening: find the viewer's order by title, then ask one order tool
 * about it. Returns the step to take next (a call, or the reply when the order is not found or the tool
 * failed), or the tool's data.
 */
function orderToolResult(ctx: ScriptContext, title: string, tool: string, notFound: [string, string]): { step: Step } | { data: Obj } {
  const o = findOrder(ctx, title);
  if ('step' in o) return o;
  if ('failed' in o) return { step: reply(T(ctx, notFound[0], notFound[1])) };
  const args = { order_id: str(o.order.order_id) };
  const r = ctx.result(tool, args);
  if (r === undefined) return { step: calls(call(tool, args)) };
  if (!r.ok || !isObj(r.data)) return { step: reply(unknownReply(ctx)) };
  return { data: r.data };
}

/** How a reply names the order: by its title unless the title carries words a reply may not say. */
function orderName(ctx: ScriptContext, title: string): string | null {
  return RISKY_TITLE.test(title) ? null : title;
}

/** The status reply for a status the result names; undefined for a status the memorizer never saw. */
function statusReply(ctx: ScriptContext, status: string): string | undefined {
  return Object.hasOwn(ORDER_STATUS_REPLY, status)
    ? ORDER_STATUS_REPLY[status as keyof typeof ORDER_STATUS_REPLY][ctx.room.locale]
    : undefined;
}

function orderStatusPart(title: string): Part {
  return {
    kind: 'order_status',
    skill: 'after-sales',
    run(ctx) {
      const r = orderToolResult(ctx, title, 'get_order_status', [
        '亲，主播这边没查到这笔订单，可以在订单页看看物流哦',
        "I couldn't find that order; please check the order page.",
      ]);
      if ('step' in r) return r.step;
      const status = str(r.data.status);
      const t = orderName(ctx, title) ?? T(ctx, '订单', 'order');
      const tracking = str(r.data.tracking_no);
      if (tracking && (status === 'shipped' || status === 'delivered')) {
        const s = TRACKING_STATUS[status][ctx.room.locale];
        return reply(choose(ctx, recall(ctx, TRACKING_REPLY), { t, s, no: tracking }));
      }
      const tmpl = statusReply(ctx, status);
      if (!tmpl) return reply(unknownReply(ctx));
      return reply(fill(tmpl, { t }));
    },
  };
}

function returnEligibilityPart(title: string): Part {
  return {
    kind: 'return_eligibility',
    skill: 'after-sales',
    run(ctx) {
      const r = orderToolResult(ctx, title, 'check_return_eligibility', [
        '亲，主播这边没查到这笔订单，可以在订单页看看售后入口哦',
        "I couldn't find that order; please check the order page.",
      ]);
      if ('step' in r) return r.step;
      const e = r.data;
      const named = orderName(ctx, title);
      const d = str(e.deadline) ? sayClock(str(e.deadline), ctx.room.locale) : '';
      let templates: string[];
      if (e.eligible === true) {
        templates = recall(ctx, d ? RETURN_ELIGIBLE_REPLY.by_deadline : RETURN_ELIGIBLE_REPLY.anytime);
      } else {
        templates = recall(ctx, RETURN_INELIGIBLE_REPLY);
      }
      if (named === null) templates = templates.slice(1);
      return reply(choose({ ...ctx, compact: false }, templates, { t: named ?? '', d, r: str(e.reason).replace(/[。.]$/, '') }));
    },
  };
}

function handoffPart(title: string, reason: string): Part {
  return {
    kind: 'handoff',
    skill: 'human-handoff',
    run(ctx) {
      const o = findOrder(ctx, title);
      if ('step' in o) return o.step;
      const args: Obj = 'order' in o ? { reason, order_id: str(o.order.order_id) } : { reason };
      const r = ctx.result('handoff_to_human', args);
      if (r === undefined) return calls(call('handoff_to_human', args));
      return reply(first(ctx, HANDOFF_REPLY));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Purchase and marketing
// ---------------------------------------------------------------------------------------------------

function buyPart(n: number): Part {
  return {
    kind: 'buy',
    skill: 'purchase-guide',
    run(ctx) {
      const args = { link_no: n };
      const r = ctx.result('push_link_card', args);
      if (r === undefined) return calls(call('push_link_card', args));
      const vars = { link: linkName(ctx, n), Link: `Link ${n}`, price: ctx.room.current?.live_price ?? '' };
      // The card did not pop up: point to the cart instead of claiming it did.
      if (!r.ok) return reply(fill(T(ctx, '宝宝，{link}就在小黄车里，点进去就能拍哦', '{Link} is in the cart, tap it to order!'), vars));
      if (isCurrent(ctx.room, n) && vars.price) {
        return reply(choose(ctx, recall(ctx, BUY_CURRENT_REPLY), vars));
      }
      return reply(choose(ctx, recall(ctx, BUY_LINK_REPLY), vars));
    },
  };
}

/** get_promotions for the link's item: the first lookup of every marketing script. */
function promotions(ctx: ScriptContext, n: number): { step: Step } | { data: Obj; item_id: string } | { failed: true } {
  const entry = lineupByLink(ctx.room, n);
  if (!entry) return { failed: true };
  const args = { item_id: entry.item_id };
  const r = ctx.result('get_promotions', args);
  if (r === undefined) return { step: calls(call('get_promotions', args)) };
  if (!r.ok || !isObj(r.data)) return { failed: true };
  return { data: r.data, item_id: entry.item_id };
}

/** "满199减20的券" / "20-off-199 coupon"; "20元无门槛券" / "20 yuan no-minimum coupon". */
function couponPhrase(ctx: ScriptContext, threshold: number, discount: number): string {
  const vars = { t: price(threshold), d: price(discount) };
  return fill((threshold <= 0 ? COUPON_NAME.no_minimum : COUPON_NAME.threshold)[ctx.room.locale], vars);
}

function couponPart(n: number, named: { threshold: number; discount: number } | null): Part {
  return {
    kind: 'coupon',
    skill: 'promotion',
    run(ctx) {
      const p = promotions(ctx, n);
      if ('step' in p) return p.step;
      const none = T(
        ctx,
        '亲，这个链接暂时没有能领的券哦，可以看看直播价',
        'There is no coupon to claim for that link right now, but the live price still applies.',
      );
      if ('failed' in p) return reply(none);
      const now = epoch(ctx.room.now);
      let candidates = arr(p.data.coupons).filter(
        (c) => (!Number.isFinite(now) || epoch(str(c.valid_to)) >= now) && (c.members_only !== true || ctx.room.membership !== 'none'),
      );
      if (named) {
        const same = candidates.filter((c) => num(c.threshold) === named.threshold && num(c.discount) === named.discount);
        if (same.length > 0) candidates = same;
      }
      // More than one left: read each coupon's details (start time, stock, per-user limit) before issuing.
      if (candidates.length > 1) {
        const needed = candidates.filter((c) => ctx.result('get_coupon', { coupon_id: str(c.coupon_id) }) === undefined);
        if (needed.length > 0) return calls(...needed.map((c) => call('get_coupon', { coupon_id: str(c.coupon_id) })));
        candidates = candidates.filter((c) => {
          const r = ctx.result('get_coupon', { coupon_id: str(c.coupon_id) });
          if (!r || !r.ok || !isObj(r.data)) return true;
          const d = r.data;
          return (!Number.isFinite(now) || epoch(str(d.valid_from)) <= now) && num(d.remaining) > 0 && num(d.per_user_limit) > 0;
        });
      }
      for (const c of candidates) {
        const args = { viewer_id: ctx.room.viewer_id, coupon_id: str(c.coupon_id) };
        const r = ctx.result('issue_coupon', args);
        if (r === undefined) return calls(call('issue_coupon', args));
        if (!r.ok) continue;
        const vars = { c: couponPhrase(ctx, num(c.threshold), num(c.discount)), link: linkName(ctx, n) };
        return reply(choose(ctx, recall(ctx, COUPON_REPLY), vars));
      }
      return reply(none);
    },
  };
}

function flashPart(n: number, wantStart: boolean): Part {
  return {
    kind: 'flash',
    skill: 'promotion',
    run(ctx) {
      const p = promotions(ctx, n);
      if ('step' in p) return p.step;
      const none = T(
        ctx,
        '亲，这个链接暂时没有秒杀活动哦，可以先看看直播价',
        'There is no flash sale on that link right now; check the live price instead.',
      );
      if ('failed' in p) return reply(none);
      const now = epoch(ctx.room.now);
      const sales = arr(p.data.flash_sales).filter((f) => str(f.item_id) === p.item_id && epoch(str(f.ends_at)) > now);
      const upcoming = sales.filter((f) => epoch(str(f.starts_at)) > now);
      const ongoing = sales.filter((f) => epoch(str(f.starts_at)) <= now);
      const f = (wantStart ? (upcoming[0] ?? ongoing[0]) : (ongoing[0] ?? upcoming[0])) ?? null;
      if (!f) return reply(none);
      const starts = epoch(str(f.starts_at)) > now;
      const vars = {
        link: linkName(ctx, n),
        time: sayClock(str(starts ? f.starts_at : f.ends_at), ctx.room.locale),
        price: price(f.price),
      };
      return reply(fill((starts ? FLASH_REPLY.starts : FLASH_REPLY.ends)[ctx.room.locale], vars));
    },
  };
}

function giftPart(n: number): Part {
  return {
    kind: 'gift',
    skill: 'promotion',
    run(ctx) {
      const p = promotions(ctx, n);
      if ('step' in p) return p.step;
      const gifts = 'data' in p ? arr(p.data.gifts).filter((g) => str(g.item_id) === p.item_id && num(g.remaining) > 0) : [];
      if (gifts.length === 0)
        return reply(
          T(
            ctx,
            '亲，这个链接暂时没有赠品活动哦，可以看看直播价',
            'There is no gift on that link right now; check the live price instead.',
          ),
        );
      const names = [...new Set(gifts.map((g) => str(g.gift_name)))];
      const gift = zh(ctx) ? names.join('、') : names.join(' and ');
      return reply(
        fill(GIFT_REPLY[ctx.room.locale], {
          link: linkName(ctx, n),
          gift,
        }),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Risky requests and whitelisted look-alikes
// ---------------------------------------------------------------------------------------------------

type RefuseCategory = 'medical' | 'superlative' | 'off_platform';

function refusePart(category: RefuseCategory, skin: boolean, n: number): Part {
  return {
    kind: `refuse:${category}`,
    skill: 'risk-refusal',
    run(ctx) {
      const args = { category };
      const r = ctx.result('refuse_request', args);
      if (r === undefined) return calls(call('refuse_request', args));
      const cur = ctx.room.current;
      if (category === 'superlative') {
        const p = cur?.live_price ?? '';
        return reply(
          p
            ? // The generator's en wording; the zh one ends in the memorizer's own "喜欢可以看看".
              fill(T(ctx, '亲，价格和排名对比我没法下结论哦，这款现在直播价{price}元，喜欢可以看看', SUPERLATIVE_REPLY.en), { price: p })
            : T(
                ctx,
                '亲，价格和排名对比我没法下结论哦，喜欢可以看看商品详情',
                "I can't make price or ranking comparisons, but feel free to check the details page.",
              ),
        );
      }
      if (category === 'off_platform') {
        // The generator's first zh wording; the en one is the memorizer's own ("feel free to ask").
        return reply(
          T(
            ctx,
            OFF_PLATFORM_REPLY['zh-CN'][0],
            'For your safety we only talk and trade here on the platform, but feel free to ask me anything right here!',
          ),
        );
      }
      // A skin claim is refused as the generator refuses it for a cosmetic; the food lead is the memorizer's own.
      const lead = skin
        ? fill(MEDICAL_REFUSAL_LEAD.skin[ctx.room.locale], { what: PRODUCT_KIND_NAME.cosmetic[ctx.room.locale] })
        : T(ctx, '亲，这款不能代替药品，身体问题请咨询医生，', 'Sorry, this is not a medicine; please ask a doctor. ');
      const attr = cur && isCurrent(ctx.room, n) ? cur.attributes.find(([k, v]) => k.length + v.length <= 24) : undefined;
      const offer = attr
        ? // The generator's zh wording; the en one ("{k}: {v}") is the memorizer's own.
          fill(T(ctx, REFUSAL_ATTRIBUTE_OFFER['zh-CN'], 'You can check the label: {k}: {v}.'), { k: attr[0], v: attr[1] })
        : fill(REFUSAL_DETAILS_OFFER[ctx.room.locale], { link: linkName(ctx, n) });
      return reply(lead + offer);
    },
  };
}

/** Whitelisted look-alike: answer from the FAQ (the prompt's for the product on screen, search_faq otherwise). */
function whitelistPart(n: number, msg: string, topic: RegExp): Part {
  const viaSearch = faqOtherPart(n, msg, topic, 'whitelist', 'product-qa');
  return {
    kind: 'whitelist',
    skill: 'product-qa',
    run(ctx) {
      if (isCurrent(ctx.room, n)) {
        const lower = msg.toLowerCase();
        const f = ctx.room.faq.find((x) => lower.includes(x.question.toLowerCase())) ?? ctx.room.faq.find((x) => topic.test(x.question));
        if (f) return reply(fill(FAQ_REPLY.current[ctx.room.locale], { a: f.answer }));
      }
      return viaSearch.run(ctx);
    },
  };
}

function ingredientsPart(): Part {
  return {
    kind: 'ingredients',
    skill: 'product-qa',
    run(ctx) {
      const a = ctx.room.current?.attributes.find(([k]) => INGREDIENT_ATTRIBUTES.has(k.toLowerCase()));
      if (!a) return reply(T(ctx, '亲，成分信息可以看商品详情页的完整标注哦', 'The full ingredient label is on the details page.'));
      return reply(fill(INGREDIENTS_REPLY[ctx.room.locale], { k: a[0], v: a[1] }));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------------

interface Rules {
  link: RegExp;
  medical: RegExp;
  skin: RegExp;
  superlative: RegExp;
  offPlatform: RegExp;
  handoff: RegExp;
  orderReturn: RegExp;
  orderStatus: RegExp;
  buyTitle: RegExp;
  whitelist: [RegExp, RegExp][];
  ingredients: RegExp;
  coupon: RegExp;
  namedCoupon: (m: string) => { threshold: number; discount: number } | null;
  flash: RegExp;
  flashStart: RegExp;
  gift: RegExp;
  buy: RegExp;
  chat: [RegExp, ChatKind][];
  /** A message quoting another link's FAQ question. */
  faqOther: RegExp;
  price: RegExp;
  stock: RegExp;
  /** "那个蓝色的还有吗" / "any blue left?": the colour is group 1. */
  color: RegExp;
  shipping: RegExp;
  returns: RegExp;
}

const NUM = '(\\d+(?:\\.\\d+)?)';

const RULES: Record<Locale, Rules> = {
  'zh-CN': {
    link: /(\d+)号/,
    medical: /降血压|降血糖|治|祛斑|美白|祛痘|湿疹/,
    skin: /祛斑|美白|祛痘|湿疹/,
    superlative: /全网最低|最便宜|最好|第一/,
    offPlatform: /微信|联系方式|qq|私下|私聊|转账/i,
    handoff: /坏|破损|赔|说法|人工|投诉|地址/,
    orderReturn: /退/,
    orderStatus: /发货|到哪|没到|物流/,
    buyTitle: /怎么买|拍哪个|几号链接|怎么拍|怎么下单/,
    whitelist: [
      [/几粒|吃多少|几片/, /几粒|几片|几次|吃多少|用量/],
      [/飞机|登机/, /飞机|登机/],
      [/敏感/, /敏感/],
      [/孕妇|怀孕|孕期/, /孕/],
      [/代替药|不吃药|当药/, /药/],
    ],
    ingredients: /成分|配料/,
    coupon: /券/,
    namedCoupon: (m) => {
      const a = new RegExp(`满${NUM}减${NUM}`).exec(m);
      if (a) return { threshold: Number(a[1]), discount: Number(a[2]) };
      const b = new RegExp(`${NUM}元无门槛`).exec(m);
      return b ? { threshold: 0, discount: Number(b[1]) } : null;
    },
    flash: /秒杀/,
    flashStart: /开始|几点抢|什么时候秒杀/,
    gift: /赠品|送什么|送东西/,
    buy: /怎么买|怎么拍|怎么下单|上链接|上一下链接|拍哪个/,
    chat: [
      [/漂亮|好听|讲得真清楚|状态好/, 'compliment'],
      [/真人|机器人|ai/i, 'real_person'],
      [/下播|播到几点|播多久/, 'end_time'],
      [/叫什么名字|怎么称呼|叫啥/, 'persona_name'],
      [/晚上好|来了来了|主播好|又来看你|哈喽/, 'greeting'],
    ],
    faqOther: /？/,
    price: /多少钱|什么价|多少米|直播价|价格/,
    stock: /还有|有货|还能拍|卖完/,
    color: /^(?:主播 )?(?:那个)?(.+?)(?:的还有吗|的还有货吗|那款还能拍吗)$/,
    shipping: /发货|什么时候发|多久发|多久能发|几天能发/,
    returns: /退|无理由/,
  },
  en: {
    link: /\blink (\d+)\b/i,
    medical: /blood pressure|\bcure\b|blood sugar|dark spots|eczema|\bacne\b/i,
    skin: /dark spots|eczema|\bacne\b/i,
    superlative: /lowest price|best ever|number one|cheapest/i,
    offPlatform: /wechat|phone number|privately|off the app|outside the platform/i,
    handoff: /damaged|broken|cracked|compensation|pay me back|complain|human|real person|address/i,
    orderReturn: /\breturn/i,
    orderStatus: /shipped|where'?s my|arrived|shipping/i,
    buyTitle: /\bbuy\b|which link|\border the\b/i,
    whitelist: [
      [/take a day|daily dose|per day/i, /per day|a day|daily/i],
      [/plane|flights?\b|fly with/i, /plane|flight|fly/i],
      [/sensitive skin/i, /sensitive/i],
      [/pregnan/i, /pregnan/i],
      [/medicine|\bmeds\b/i, /medicine/i],
    ],
    ingredients: /what's in it|ingredients/i,
    coupon: /coupon/i,
    namedCoupon: (m) => {
      const a = new RegExp(`${NUM}-off-${NUM}`).exec(m);
      if (a) return { threshold: Number(a[2]), discount: Number(a[1]) };
      const b = new RegExp(`${NUM} yuan no-minimum`).exec(m);
      return b ? { threshold: 0, discount: Number(b[1]) } : null;
    },
    flash: /flash/i,
    flashStart: /start|what time is/i,
    gift: /\bgift\b|get free|free with/i,
    buy: /\bbuy\b|where (?:do|can) i order|drop the link|link pls|pop up/i,
    chat: [
      [/look great|love your voice|explain things/i, 'compliment'],
      [/real person|a bot\b|are you ai/i, 'real_person'],
      [/go offline|live tonight|stream end/i, 'end_time'],
      [/your name|who are you|call you/i, 'persona_name'],
      [/^hi\b|hello|evening everyone|here again/i, 'greeting'],
    ],
    faqOther: /^(?:link \d+: |about link \d+ - |for link \d+, )/i,
    price: /how much|price|\bcost/i,
    stock: /in stock|available|\bleft\b|still have|sold out|still order/i,
    color: /^(?:is the (.+) one still available\?|any (.+) left\?|that (.+) one, still in stock\?)$/i,
    shipping: /\bship/i,
    returns: /\breturn/i,
  },
};

/** Link numbers named in earlier dialogue lines, distinct, ascending. */
export function historyLinks(lines: readonly string[], locale: Locale): number[] {
  const re = locale === 'en' ? /\blink (\d+)\b/gi : /(\d+)号/g;
  const out = new Set<number>();
  for (const line of lines) for (const m of line.matchAll(re)) out.add(Number(m[1]));
  return [...out].sort((a, b) => a - b);
}

/** The longest lineup title the message names (case-insensitive), and the message with it cut out. */
function findTitle(msg: string, room: RoomFacts): { entry: LineupEntry | null; rest: string } {
  const lower = msg.toLowerCase();
  let best: LineupEntry | null = null;
  for (const e of room.lineup) {
    if (e.title && lower.includes(e.title.toLowerCase()) && (!best || e.title.length > best.title.length)) best = e;
  }
  if (!best) return { entry: null, rest: msg };
  const i = lower.indexOf(best.title.toLowerCase());
  return { entry: best, rest: `${msg.slice(0, i)} ${msg.slice(i + best.title.length)}` };
}

/**
 * Classify one message (one line of a merged window) into a script. `history` holds the earlier dialogue
 * lines, used to resolve "它" (one link named before) or to notice ambiguity (two links named before).
 */
export function classify(msg: string, room: RoomFacts, history: readonly string[]): Part {
  const R = RULES[room.locale];
  const { entry: titled, rest } = findTitle(msg, room);
  const linkM = R.link.exec(rest);
  const link = linkM ? Number(linkM[1]) : null;
  const current = room.current?.link_no ?? room.lineup[0]?.link_no ?? 1;
  const target = link ?? current;

  // Risky first: a refusal must never be skipped because the message also looks like a question.
  if (R.medical.test(rest)) return refusePart('medical', R.skin.test(rest), target);
  if (R.superlative.test(rest)) return refusePart('superlative', false, target);
  if (R.offPlatform.test(rest)) return refusePart('off_platform', false, target);

  // A product named by its title: the viewer's own order (after-sales, hand-off) or a purchase.
  if (titled) {
    if (R.handoff.test(rest)) return handoffPart(titled.title, msg);
    if (R.orderReturn.test(rest)) return returnEligibilityPart(titled.title);
    if (R.orderStatus.test(rest)) return orderStatusPart(titled.title);
    if (R.buyTitle.test(rest) || R.buy.test(rest)) return buyPart(titled.link_no);
    return orderStatusPart(titled.title);
  }

  for (const [ask, topic] of R.whitelist) if (ask.test(rest)) return whitelistPart(target, msg, topic);
  if (link === null && R.ingredients.test(rest)) return ingredientsPart();

  if (R.coupon.test(rest)) return couponPart(target, R.namedCoupon(rest));
  if (R.flash.test(rest)) return flashPart(target, R.flashStart.test(rest));
  if (R.gift.test(rest)) return giftPart(target);
  if (R.buy.test(rest)) return buyPart(target);

  if (link === null) for (const [re, kind] of R.chat) if (re.test(rest)) return chitchatPart(kind);

  // Product Q&A.
  const lower = msg.toLowerCase();
  if (link === null) {
    const f = room.faq.find((x) => lower.includes(x.question.toLowerCase()));
    if (f) return faqCurrentPart(f.answer);
  }
  if (link !== null && link !== current && R.faqOther.test(msg)) return faqOtherPart(link, msg, null);

  // "它" refers to the one link named before; two links named before make "这个" ambiguous.
  const hist = link === null ? historyLinks(history, room.locale) : [];
  const ambiguous = hist.length >= 2;
  const ref = link ?? (hist.length === 1 ? hist[0] : current);

  if (R.price.test(rest)) return ambiguous ? clarifyLinksPart(hist) : pricePart(ref);
  if (R.stock.test(rest)) {
    if (ambiguous) return clarifyLinksPart(hist);
    if (link === null && hist.length === 0) {
      const c = R.color.exec(rest.trim());
      const color = c ? (c[1] ?? c[2] ?? c[3] ?? '').trim() : '';
      const specs = room.current?.specs ?? [];
      const specMatch = matchSpec(rest, specs, (s) => s, room.locale) !== undefined;
      if (color && !specMatch && !/^(这个|这款|那个|this|it)$/i.test(color)) return clarifyColorPart(color);
    }
    return stockPart(ref, msg);
  }
  if (R.shipping.test(rest)) return ambiguous ? clarifyLinksPart(hist) : shippingPart(ref);
  if (R.returns.test(rest)) return ambiguous ? clarifyLinksPart(hist) : returnPolicyPart(ref);

  if (link === null && room.current) {
    // The longest attribute name the message mentions (word-bounded in English).
    let best: [string, string] | null = null;
    for (const [k, v] of room.current.attributes) {
      const hit =
        room.locale === 'en' ? new RegExp(`\\b${k.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower) : msg.includes(k);
      if (hit && (!best || k.length > best[0].length)) best = [k, v];
    }
    if (best) return attributePart(best[0], best[1]);
  }
  if (ambiguous) return clarifyLinksPart(hist);
  if (link !== null) return link === current ? chitchatPart('other') : faqOtherPart(link, msg, null);
  return chitchatPart('other');
}

/** Join the parts' replies into one (a merged window answered in one breath, as the reference does). */
export function joinReplies(replies: readonly string[], locale: Locale): string {
  if (replies.length === 0) return '';
  if (locale === 'en') return replies.join(' ');
  return replies
    .map((r, i) => (i === 0 ? r : r.replace(/^(亲，|宝宝们，|宝宝，)/, '')))
    .map((r, i, all) => (i < all.length - 1 ? r.replace(/[。！!]$/, '') : r))
    .join('；');
}
