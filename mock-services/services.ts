/**
 * The mock services behind the 13 canonical tools (load_skill is the environment's own). Each service
 * validates its arguments with a zod schema compiled once at module load, answers in canonical snake_case
 * field names, and reports every bad input as a typed `ToolError` value; nothing here throws on input.
 *
 * Services read an immutable `World` and append to the episode's `WorldState` overlay (issue_coupon,
 * push_link_card, refuse_request, handoff_to_human), which accuracy later compares with the task's
 * expected state, as tau-bench compares the final database.
 */
import { z } from 'zod';
import type { ToolErrorCode, ToolOutcome, WorldState } from '../protocol/domain.js';
import type { Rng } from '../protocol/rng.js';
import type { T2 } from './catalog.js';
import { CATEGORY_NAMES } from './catalog.js';
import { couponCovers, exclusionCodesOf, isCustomSku } from './generate.js';
import { couponById, orderById, productById, productByLink, viewerById } from './lookup.js';
import { searchTokens, topK } from './search.js';
import { DAY, parseIso, toIso } from './time.js';
import { CATEGORIES } from './world.js';
import type { Coupon, Order, Product, Sku, World } from './world.js';

/** What a service sees: the immutable world, the episode's mutable overlay, and who is asking. */
export interface ServiceContext {
  world: World;
  state: WorldState;
  /** The viewer whose message the agent is answering; order look-ups are limited to their own orders. */
  viewer_id: string;
}

/** One canonical tool's implementation. */
export interface MockService {
  readonly name: string;
  call(args: unknown, ctx: ServiceContext): ToolOutcome;
}

/** Fault injection settings. `rate` in [0, 1]; 0 (the default) turns faults off. */
export interface FaultOptions {
  rate: number;
  rng: Rng;
}

// ---------------------------------------------------------------------------------------------------
// Plumbing
// ---------------------------------------------------------------------------------------------------

function fail(code: ToolErrorCode, message: string, field?: string): ToolOutcome {
  return field === undefined ? { ok: false, error: { code, message } } : { ok: false, error: { code, message, field } };
}

function ok(data: unknown): ToolOutcome {
  return { ok: true, data };
}

/**
 * A service from a schema and a handler: arguments are parsed once at the edge, and the first schema
 * issue becomes INVALID_ARGUMENTS naming the canonical argument (absent when the whole value is wrong).
 */
function service<S extends z.ZodType>(
  name: string,
  schema: S,
  handler: (args: z.infer<S>, ctx: ServiceContext) => ToolOutcome,
): MockService {
  return {
    name,
    call(args: unknown, ctx: ServiceContext): ToolOutcome {
      const parsed = schema.safeParse(args ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
        return fail('INVALID_ARGUMENTS', field === undefined ? `${name}: ${issue.message}` : `${name}.${field}: ${issue.message}`, field);
      }
      return handler(parsed.data, ctx);
    },
  };
}

const id = z.string().min(1);
const linkNo = z.number().int().min(1);
const LX = (world: World, pair: T2): string => (world.locale === 'zh-CN' ? pair[0] : pair[1]);
const ms = (iso: string): number => parseIso(iso);

function stockStatus(stock: number): 'in_stock' | 'low' | 'sold_out' {
  return stock === 0 ? 'sold_out' : stock <= 10 ? 'low' : 'in_stock';
}

/** How many of a coupon are left after the issues recorded in this episode's overlay. */
function couponRemaining(c: Coupon, state: WorldState): number {
  let issued = 0;
  for (const x of state.issued_coupons) if (x.coupon_id === c.coupon_id) issued++;
  return Math.max(0, c.remaining - issued);
}

function unknownProduct(itemId: string): ToolOutcome {
  return fail('NOT_FOUND', `no product with item_id ${itemId}`, 'item_id');
}

/** The order if it exists and belongs to the asking viewer; otherwise the typed error. */
function ownOrder(orderId: string, ctx: ServiceContext): Order | ToolOutcome {
  const o = orderById(ctx.world, orderId);
  if (o === undefined) return fail('NOT_FOUND', `no order with order_id ${orderId}`, 'order_id');
  if (o.viewer_id !== ctx.viewer_id) return fail('PERMISSION_DENIED', `order ${orderId} belongs to another viewer`, 'order_id');
  return o;
}

const isOutcome = (x: Order | ToolOutcome): x is ToolOutcome => 'ok' in x;

// Token sets of immutable products and FAQs, computed once per object (worlds never change).
const productTokens = new WeakMap<Product, Set<string>>();
function tokensOfProduct(p: Product): Set<string> {
  let t = productTokens.get(p);
  if (t === undefined) {
    const cat = CATEGORY_NAMES[p.category];
    // The options too: "that black one" finds the links sold in black (the clarify skill looks there).
    t = searchTokens(`${p.title} ${p.brand} ${cat[0]} ${cat[1]} ${Object.values(p.attributes).join(' ')} ${p.skus.map((k) => k.spec_text).join(' ')}`);
    productTokens.set(p, t);
  }
  return t;
}
// An FAQ's tokens depend on its question and tags only. Generated worlds share each template FAQ's tags
// array (frozen), so keying by tags, then question, computes them once per template FAQ, not per world.
const faqTokens = new WeakMap<readonly string[], Map<string, Set<string>>>();
function tokensOfFaq(f: Product['faq'][number]): Set<string> {
  let byQuestion = faqTokens.get(f.tags);
  if (byQuestion === undefined) faqTokens.set(f.tags, (byQuestion = new Map()));
  let t = byQuestion.get(f.question);
  if (t === undefined) {
    t = searchTokens(`${f.question} ${f.tags.join(' ')}`);
    byQuestion.set(f.question, t);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------------
// Catalog and inventory
// ---------------------------------------------------------------------------------------------------

/** The canonical get_product answer for a product (no FAQ, no campaign ids: those have their own tools). */
export function productView(p: Product): unknown {
  return {
    item_id: p.item_id,
    link_no: p.link_no,
    title: p.title,
    brand: p.brand,
    category: p.category,
    regulatory_kind: p.regulatory_kind,
    status: p.status,
    list_price: p.list_price,
    live_price: p.live_price,
    attributes: { ...p.attributes },
    skus: p.skus.map((s: Sku) => ({ sku_id: s.sku_id, spec_text: s.spec_text, price: s.price, stock: s.stock })),
    shipping: {
      ship_within_hours: p.shipping.ship_within_hours,
      ships_from: p.shipping.ships_from,
      free_shipping: p.shipping.free_shipping,
      carrier: p.shipping.carrier,
    },
    after_sales: {
      seven_day_return: p.after_sales.seven_day_return,
      return_exclusions: p.after_sales.return_exclusions.slice(),
      return_shipping_insurance: p.after_sales.return_shipping_insurance,
      price_protection_days: p.after_sales.price_protection_days,
    },
  };
}

const getProduct = service('get_product', z.object({ link_no: linkNo.optional(), item_id: id.optional() }), (a, ctx) => {
  // Exactly one key: two keys could name different products, and the agent must say which one it means.
  if ((a.link_no === undefined) === (a.item_id === undefined)) {
    return fail('INVALID_ARGUMENTS', 'get_product: give exactly one of link_no or item_id', 'link_no');
  }
  if (a.link_no !== undefined) {
    const p = productByLink(ctx.world, a.link_no);
    return p === undefined ? fail('NOT_FOUND', `no product at link ${a.link_no}`, 'link_no') : ok(productView(p));
  }
  const p = productById(ctx.world, a.item_id as string);
  return p === undefined ? unknownProduct(a.item_id as string) : ok(productView(p));
});

const searchProducts = service(
  'search_products',
  z.object({ query: z.string().min(1), category: z.enum(CATEGORIES as [string, ...string[]]).optional() }),
  (a, ctx) => {
    const q = searchTokens(a.query);
    const pool = a.category === undefined ? ctx.world.products : ctx.world.products.filter((p) => p.category === a.category);
    const hits = topK(
      q,
      pool.map((p) => ({ item: p, tokens: tokensOfProduct(p) })),
      3,
    );
    return ok({
      results: hits.map((p) => ({ item_id: p.item_id, link_no: p.link_no, title: p.title, live_price: p.live_price, status: p.status })),
    });
  },
);

const checkStock = service('check_stock', z.object({ item_id: id, sku_id: id.optional() }), (a, ctx) => {
  const p = productById(ctx.world, a.item_id);
  if (p === undefined) return unknownProduct(a.item_id);
  const skus = a.sku_id === undefined ? p.skus : p.skus.filter((s) => s.sku_id === a.sku_id);
  if (skus.length === 0) return fail('NOT_FOUND', `no SKU ${a.sku_id} on item ${a.item_id}`, 'sku_id');
  return ok({
    item_id: p.item_id,
    skus: skus.map((s) => ({ sku_id: s.sku_id, spec_text: s.spec_text, stock: s.stock, stock_status: stockStatus(s.stock) })),
  });
});

const searchFaq = service('search_faq', z.object({ question: z.string().min(1), item_id: id.optional() }), (a, ctx) => {
  let products: readonly Product[] = ctx.world.products;
  if (a.item_id !== undefined) {
    const p = productById(ctx.world, a.item_id);
    if (p === undefined) return unknownProduct(a.item_id);
    products = [p];
  }
  const docs = products.flatMap((p) => p.faq.map((f) => ({ item: f, tokens: tokensOfFaq(f) })));
  const hits = topK(searchTokens(a.question), docs, 3);
  return ok({ results: hits.map((f) => ({ faq_id: f.faq_id, question: f.question, answer: f.answer })) });
});

// ---------------------------------------------------------------------------------------------------
// Marketing
// ---------------------------------------------------------------------------------------------------

const getPromotions = service('get_promotions', z.object({ item_id: id.optional() }), (a, ctx) => {
  const w = ctx.world;
  let p: Product | undefined;
  if (a.item_id !== undefined) {
    p = productById(w, a.item_id);
    if (p === undefined) return unknownProduct(a.item_id);
  }
  const item = p;
  const forItem = (itemId: string): boolean => item === undefined || item.item_id === itemId;
  return ok({
    coupons: w.coupons
      .filter((c) => item === undefined || couponCovers(c, item))
      .map((c) => ({
        coupon_id: c.coupon_id,
        name: c.name,
        threshold: c.threshold,
        discount: c.discount,
        valid_from: c.valid_from,
        valid_to: c.valid_to,
        per_user_limit: c.per_user_limit,
        remaining: couponRemaining(c, ctx.state),
        members_only: c.members_only,
      })),
    flash_sales: w.flash_sales
      .filter((f) => forItem(f.item_id))
      .map((f) => ({
        flash_id: f.flash_id,
        item_id: f.item_id,
        price: f.price,
        starts_at: f.starts_at,
        ends_at: f.ends_at,
        quantity: f.quantity,
        remaining: f.quantity - f.sold,
      })),
    bundles: w.bundles
      .filter((b) => item === undefined || b.item_ids.includes(item.item_id))
      .map((b) => ({ bundle_id: b.bundle_id, item_ids: b.item_ids.slice(), price: b.price, description: b.description })),
    gifts: w.gifts
      .filter((g) => forItem(g.item_id))
      .map((g) => ({ gift_id: g.gift_id, item_id: g.item_id, gift_name: g.gift_name, remaining: g.remaining })),
    presales: w.presales
      .filter((s) => forItem(s.item_id))
      .map((s) => ({
        presale_id: s.presale_id,
        item_id: s.item_id,
        deposit: s.deposit,
        deposit_value: s.deposit_value,
        final_payment_starts_at: s.final_payment_starts_at,
        ships_by: s.ships_by,
      })),
  });
});

const getCoupon = service('get_coupon', z.object({ coupon_id: id }), (a, ctx) => {
  const c = couponById(ctx.world, a.coupon_id);
  if (c === undefined) return fail('NOT_FOUND', `no coupon ${a.coupon_id}`, 'coupon_id');
  const s = c.scope;
  return ok({
    coupon_id: c.coupon_id,
    name: c.name,
    threshold: c.threshold,
    discount: c.discount,
    scope:
      s.kind === 'all'
        ? { kind: 'all' }
        : s.kind === 'category'
          ? { kind: 'category', category: s.category }
          : { kind: 'items', item_ids: s.item_ids.slice() },
    valid_from: c.valid_from,
    valid_to: c.valid_to,
    per_user_limit: c.per_user_limit,
    remaining: couponRemaining(c, ctx.state),
    members_only: c.members_only,
  });
});

const issueCoupon = service('issue_coupon', z.object({ viewer_id: id, coupon_id: id }), (a, ctx) => {
  const w = ctx.world;
  const viewer = viewerById(w, a.viewer_id);
  if (viewer === undefined) return fail('NOT_FOUND', `no viewer ${a.viewer_id}`, 'viewer_id');
  const c = couponById(w, a.coupon_id);
  if (c === undefined) return fail('NOT_FOUND', `no coupon ${a.coupon_id}`, 'coupon_id');
  const now = ms(w.now);
  if (now < ms(c.valid_from)) return fail('CONFLICT', `coupon ${c.coupon_id} is not valid until ${c.valid_from}`, 'coupon_id');
  if (now > ms(c.valid_to)) return fail('CONFLICT', `coupon ${c.coupon_id} expired at ${c.valid_to}`, 'coupon_id');
  if (c.members_only && viewer.membership === 'none') return fail('CONFLICT', `coupon ${c.coupon_id} is for members only`, 'viewer_id');
  let mine = 0;
  for (const x of ctx.state.issued_coupons) if (x.coupon_id === c.coupon_id && x.viewer_id === viewer.viewer_id) mine++;
  if (mine >= c.per_user_limit)
    return fail('LIMIT_REACHED', `viewer already holds ${mine} of coupon ${c.coupon_id} (limit ${c.per_user_limit})`, 'coupon_id');
  if (couponRemaining(c, ctx.state) === 0) return fail('LIMIT_REACHED', `coupon ${c.coupon_id} has run out`, 'coupon_id');
  ctx.state.issued_coupons.push({ viewer_id: viewer.viewer_id, coupon_id: c.coupon_id });
  return ok({ issued: true, coupon_id: c.coupon_id, viewer_id: viewer.viewer_id });
});

const pushLinkCard = service('push_link_card', z.object({ link_no: linkNo }), (a, ctx) => {
  const p = productByLink(ctx.world, a.link_no);
  if (p === undefined) return fail('NOT_FOUND', `no product at link ${a.link_no}`, 'link_no');
  ctx.state.pushed_cards.push(p.link_no);
  return ok({ pushed: true, link_no: p.link_no, title: p.title });
});

// ---------------------------------------------------------------------------------------------------
// Orders and after-sales
// ---------------------------------------------------------------------------------------------------

const listOrders = service('list_orders', z.object({ viewer_id: id }), (a, ctx) => {
  const w = ctx.world;
  const viewer = viewerById(w, a.viewer_id);
  if (viewer === undefined) return fail('NOT_FOUND', `no viewer ${a.viewer_id}`, 'viewer_id');
  if (viewer.viewer_id !== ctx.viewer_id) return fail('PERMISSION_DENIED', 'orders of another viewer are private', 'viewer_id');
  // Newest first, as an order list in a shopping app reads.
  const orders = w.orders.filter((o) => o.viewer_id === viewer.viewer_id).reverse();
  return ok({
    orders: orders.map((o) => ({
      order_id: o.order_id,
      item_id: o.item_id,
      title: productById(w, o.item_id)?.title ?? '',
      status: o.status,
      placed_at: o.placed_at,
    })),
  });
});

const getOrderStatus = service('get_order_status', z.object({ order_id: id }), (a, ctx) => {
  const o = ownOrder(a.order_id, ctx);
  if (isOutcome(o)) return o;
  const out: { [k: string]: unknown } = { order_id: o.order_id, status: o.status, placed_at: o.placed_at };
  if (o.shipped_at !== undefined) out.shipped_at = o.shipped_at;
  if (o.delivered_at !== undefined) out.delivered_at = o.delivered_at;
  if (o.tracking_no !== undefined) {
    out.tracking_no = o.tracking_no;
    out.carrier = productById(ctx.world, o.item_id)?.shipping.carrier ?? '';
  }
  return ok(out);
});

/** Stable reason codes of check_return_eligibility. */
export type ReturnReasonCode =
  | 'ELIGIBLE'
  | 'NOT_SHIPPED'
  | 'NOT_PAID'
  | 'NOT_DELIVERED'
  | 'ALREADY_REFUNDING'
  | 'ORDER_CLOSED'
  | 'NO_SEVEN_DAY_RETURN'
  | 'WINDOW_EXPIRED'
  | 'EXCLUDED_CUSTOM'
  | 'EXCLUDED_HYGIENE'
  | 'EXCLUDED_OPENED';

/** The human reason per code, in both locales (shown to the agent in the world's locale). */
export const RETURN_REASONS: Readonly<Record<ReturnReasonCode, T2>> = {
  ELIGIBLE: ['在七天无理由退货期内，可以申请退货', 'Within the 7-day no-reason return window; a return can be requested'],
  NOT_SHIPPED: ['订单还未发货，可以直接申请退款', 'Not shipped yet; a refund can be requested directly'],
  NOT_PAID: ['订单还未付款，无需退货，不想要可以直接取消', 'Not paid yet; nothing to return, the order can simply be cancelled'],
  NOT_DELIVERED: ['包裹还在运输途中，签收后才能申请退货', 'The parcel is still in transit; a return can be requested after delivery'],
  ALREADY_REFUNDING: ['该订单已经在退款处理中', 'A refund for this order is already in progress'],
  ORDER_CLOSED: ['订单已关闭', 'The order is closed'],
  NO_SEVEN_DAY_RETURN: ['该商品不支持七天无理由退货', 'This item is sold without 7-day no-reason returns'],
  WINDOW_EXPIRED: ['签收已超过7天，超出七天无理由退货期', 'More than 7 days since delivery; the return window has closed'],
  EXCLUDED_CUSTOM: ['定制款商品不支持七天无理由退货', 'Custom-made items cannot be returned without a reason'],
  EXCLUDED_HYGIENE: ['贴身衣物拆封后因卫生原因不支持退货', 'Intimate wear cannot be returned once unsealed, for hygiene reasons'],
  EXCLUDED_OPENED: ['商品已拆封使用，不支持七天无理由退货', 'The item has been opened or used, so it cannot be returned without a reason'],
};

/** Decide return eligibility: status first, then the item's policy, the 7-day window and its exclusions. */
export function returnEligibility(
  o: Order,
  p: Product | undefined,
  nowIso: string,
): { eligible: boolean; code: ReturnReasonCode; deadline?: string } {
  const deadline = o.delivered_at === undefined ? undefined : toIso(ms(o.delivered_at) + 7 * DAY);
  const withDeadline = (eligible: boolean, code: ReturnReasonCode): { eligible: boolean; code: ReturnReasonCode; deadline?: string } =>
    deadline === undefined ? { eligible, code } : { eligible, code, deadline };
  switch (o.status) {
    case 'unpaid':
      return { eligible: false, code: 'NOT_PAID' };
    case 'paid':
      return { eligible: true, code: 'NOT_SHIPPED' };
    case 'shipped':
      return { eligible: false, code: 'NOT_DELIVERED' };
    case 'refunding':
      return { eligible: false, code: 'ALREADY_REFUNDING' };
    case 'closed':
      return { eligible: false, code: 'ORDER_CLOSED' };
    case 'delivered':
      break;
  }
  if (p !== undefined && !p.after_sales.seven_day_return) return { eligible: false, code: 'NO_SEVEN_DAY_RETURN' };
  if (deadline !== undefined && ms(nowIso) > ms(deadline)) return withDeadline(false, 'WINDOW_EXPIRED');
  if (p !== undefined) {
    const codes = exclusionCodesOf(p);
    const sku = p.skus.find((s) => s.sku_id === o.sku_id);
    if (codes.includes('custom_made') && sku !== undefined && isCustomSku(sku)) return { eligible: false, code: 'EXCLUDED_CUSTOM' };
    if (o.opened && codes.includes('hygiene_item')) return { eligible: false, code: 'EXCLUDED_HYGIENE' };
    if (o.opened && (codes.includes('opened_food') || codes.includes('used_cosmetic'))) return { eligible: false, code: 'EXCLUDED_OPENED' };
  }
  return withDeadline(true, 'ELIGIBLE');
}

const checkReturnEligibility = service('check_return_eligibility', z.object({ order_id: id }), (a, ctx) => {
  const o = ownOrder(a.order_id, ctx);
  if (isOutcome(o)) return o;
  const p = productById(ctx.world, o.item_id);
  const r = returnEligibility(o, p, ctx.world.now);
  const out: { [k: string]: unknown } = {
    order_id: o.order_id,
    eligible: r.eligible,
    reason_code: r.code,
    reason: LX(ctx.world, RETURN_REASONS[r.code]),
  };
  if (r.deadline !== undefined) out.deadline = r.deadline;
  out.return_shipping_insurance = p?.after_sales.return_shipping_insurance ?? false;
  return ok(out);
});

// ---------------------------------------------------------------------------------------------------
// Safety actions
// ---------------------------------------------------------------------------------------------------

const refuseRequest = service(
  'refuse_request',
  z.object({ category: z.enum(['medical', 'superlative', 'off_platform', 'other']), note: z.string().optional() }),
  (a, ctx) => {
    ctx.state.refusals.push({ category: a.category });
    return ok({ recorded: true, category: a.category });
  },
);

/** FNV-1a, 32 bit: a tiny stable hash for ids derived from (seed, counter). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const handoffToHuman = service('handoff_to_human', z.object({ reason: z.string().min(1), order_id: id.optional() }), (a, ctx) => {
  if (a.order_id !== undefined) {
    const o = ownOrder(a.order_id, ctx);
    if (isOutcome(o)) return o;
  }
  // The ticket id depends only on the world and how many hand-offs came before: replays reproduce it.
  const n = ctx.state.handoffs.length;
  const ticket_id = `tk_${fnv1a(`${ctx.world.seed}/handoff/${n}`).toString(16).padStart(8, '0')}`;
  ctx.state.handoffs.push(
    a.order_id === undefined
      ? { viewer_id: ctx.viewer_id, reason: a.reason }
      : { viewer_id: ctx.viewer_id, order_id: a.order_id, reason: a.reason },
  );
  return ok({ ticket_id, queued: true });
});

// ---------------------------------------------------------------------------------------------------
// Registry and dispatch
// ---------------------------------------------------------------------------------------------------

/** Every mock service by canonical tool name (all canonical tools except load_skill). */
export const SERVICES: ReadonlyMap<string, MockService> = new Map(
  [
    getProduct,
    searchProducts,
    checkStock,
    getPromotions,
    getCoupon,
    issueCoupon,
    pushLinkCard,
    listOrders,
    getOrderStatus,
    checkReturnEligibility,
    searchFaq,
    refuseRequest,
    handoffToHuman,
  ].map((s) => [s.name, s] as const),
);

const FAULT_CODES: readonly ToolErrorCode[] = ['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT'];

/**
 * Answer a canonical tool call. With `faults.rate > 0`, each call to a known service draws exactly one
 * number from `faults.rng`; below `rate` the answer is replaced by an injected fault, and the fault's kind
 * is read from the same draw so the stream advances identically whatever happens. A faulted call leaves
 * `ctx.state` unchanged (the action did not happen), so a retry behaves like the first attempt.
 */
export function callService(name: string, args: unknown, ctx: ServiceContext, faults?: FaultOptions): ToolOutcome {
  const svc = SERVICES.get(name);
  if (svc === undefined) return fail('UNKNOWN_TOOL', `no service named ${name}`);
  const code = drawFault(faults);
  if (code === undefined) return svc.call(args, ctx);
  if (code !== 'MALFORMED_OUTPUT') return faultOutcome(name, code);
  // Malformed output: the service "answered", but its text is cut short. Compute the real answer on the
  // overlay, then roll the append-only overlay back to where it was.
  const s = ctx.state;
  const lens = [s.issued_coupons.length, s.pushed_cards.length, s.handoffs.length, s.refusals.length];
  const real = svc.call(args, ctx);
  s.issued_coupons.length = lens[0];
  s.pushed_cards.length = lens[1];
  s.handoffs.length = lens[2];
  s.refusals.length = lens[3];
  return malformedOutcome(name, real);
}

/**
 * The fault of one call, or undefined: with `faults.rate > 0` exactly one number is drawn from
 * `faults.rng`, and the kind is read from the same draw (the stream advances alike whatever happens).
 * Shared by the built-in services and the stateful custom ones (env/custom-state.ts).
 */
export function drawFault(faults?: FaultOptions): ToolErrorCode | undefined {
  const rate = faults === undefined || !(faults.rate > 0) ? 0 : Math.min(1, faults.rate);
  if (rate === 0) return undefined;
  const u = (faults as FaultOptions).rng.next();
  if (u >= rate) return undefined;
  return FAULT_CODES[Math.min(FAULT_CODES.length - 1, Math.floor((u / rate) * FAULT_CODES.length))];
}

/** The answer of an injected TIMEOUT or PERMISSION_DENIED fault of tool `name`. */
export function faultOutcome(name: string, code: ToolErrorCode): ToolOutcome {
  if (code === 'TIMEOUT') return fail('TIMEOUT', `${name} timed out`);
  return fail('PERMISSION_DENIED', `${name}: permission denied by the service`);
}

/** A MALFORMED_OUTPUT fault of tool `name` whose real answer was `real`: the first half of its text. */
export function malformedOutcome(name: string, real: ToolOutcome): ToolOutcome {
  const text = Array.from(JSON.stringify(real.ok ? real.data : real.error));
  return {
    ok: false,
    error: { code: 'MALFORMED_OUTPUT', message: `${name} returned malformed output` },
    raw: text.slice(0, Math.max(1, Math.floor(text.length / 2))).join(''),
  };
}
