/**
 * The zod schema of a task's inline world (`Task.world`, protocol/world.ts `WorldData`): the room, the
 * products and the marketing a task made from a production log states instead of naming a generated world
 * by its seed (docs/HARNESS.md "Tasks from production logs").
 *
 * The shape is the world the services read, key for key, so that an inline world needs no adapter: what
 * `get_product` answers is what the file says. Unknown keys are errors (a misspelt `live_prise` would
 * otherwise vanish silently and the product would have no live price). Lists a log may lack (marketing,
 * orders, FAQ, attributes, tags) default to empty. Past the shape, `worldProblems` checks that the world
 * is consistent — ids unique, every reference resolving (the product on screen, coupon scopes, campaign
 * ids, orders and their SKUs) — since a dangling id would surface mid-episode as a NOT_FOUND that no
 * answer key expects.
 */
import { z } from 'zod';
import type { Category, WorldData } from '../../protocol/world.js';
import { CATEGORIES } from '../../protocol/world.js';

const id = z.string().min(1);
const text = z.string().min(1);

/** A price in yuan: finite, at least 0, at most two decimals (as the generated worlds and the prompt state them). */
const money = z
  .number()
  .min(0)
  .refine((x) => Number.isFinite(x) && Math.abs(Math.round(x * 100) - x * 100) < 1e-6, 'a price has at most two decimals');

const count = z.number().int().min(0);

// The services compare times with Date.parse; an explicit offset keeps that independent of the host's zone.
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const time = z
  .string()
  .refine((s) => ISO_RE.test(s) && !Number.isNaN(Date.parse(s)), 'an ISO-8601 time with an offset, e.g. 2026-12-03T20:00:00+08:00');

const SkuSchema = z
  .object({
    sku_id: id,
    spec: z.record(z.string(), z.string()).default({}),
    spec_text: text,
    price: money,
    stock: count,
  })
  .strict();

const FaqSchema = z.object({ faq_id: id, question: text, answer: text, tags: z.array(z.string()).default([]) }).strict();

const ShippingSchema = z
  .object({ ship_within_hours: z.number().min(0), ships_from: z.string(), free_shipping: z.boolean(), carrier: z.string() })
  .strict();

const AfterSalesSchema = z
  .object({
    seven_day_return: z.boolean(),
    return_exclusions: z.array(text).default([]),
    return_shipping_insurance: z.boolean(),
    price_protection_days: count,
  })
  .strict();

const ProductSchema = z
  .object({
    item_id: id,
    link_no: z.number().int().min(1),
    title: text,
    brand: z.string(),
    category: z.enum(CATEGORIES as unknown as [Category, ...Category[]]),
    regulatory_kind: z.enum(['general', 'food', 'health_food', 'cosmetic', 'special_cosmetic', 'medical_device']),
    attributes: z.record(z.string(), z.string()).default({}),
    list_price: money,
    live_price: money,
    skus: z.array(SkuSchema).min(1),
    faq: z.array(FaqSchema).default([]),
    status: z.enum(['on_sale', 'sold_out', 'presale']),
    shipping: ShippingSchema,
    after_sales: AfterSalesSchema,
    campaign_ids: z.array(id).default([]),
  })
  .strict();

const ScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }).strict(),
  z.object({ kind: z.literal('category'), category: z.enum(CATEGORIES as unknown as [Category, ...Category[]]) }).strict(),
  z.object({ kind: z.literal('items'), item_ids: z.array(id).min(1) }).strict(),
]);

const CouponSchema = z
  .object({
    coupon_id: id,
    name: text,
    threshold: money,
    discount: money.refine((x) => x > 0, 'a coupon saves more than 0'),
    scope: ScopeSchema,
    valid_from: time,
    valid_to: time,
    per_user_limit: z.number().int().min(1),
    remaining: count,
    members_only: z.boolean(),
  })
  .strict();

const FlashSaleSchema = z
  .object({ flash_id: id, item_id: id, price: money, starts_at: time, ends_at: time, quantity: count, sold: count })
  .strict();

const BundleSchema = z.object({ bundle_id: id, item_ids: z.array(id).min(2), price: money, description: z.string() }).strict();

const GiftSchema = z.object({ gift_id: id, item_id: id, gift_name: text, remaining: count }).strict();

const PresaleSchema = z
  .object({ presale_id: id, item_id: id, deposit: money, deposit_value: money, final_payment_starts_at: time, ships_by: time })
  .strict();

const ViewerSchema = z
  .object({ viewer_id: id, nickname: text, membership: z.enum(['none', 'member', 'vip']), order_ids: z.array(id).default([]) })
  .strict();

const OrderSchema = z
  .object({
    order_id: id,
    viewer_id: id,
    item_id: id,
    sku_id: id,
    quantity: z.number().int().min(1),
    paid: money,
    status: z.enum(['unpaid', 'paid', 'shipped', 'delivered', 'refunding', 'closed']),
    placed_at: time,
    shipped_at: time.optional(),
    delivered_at: time.optional(),
    tracking_no: id.optional(),
    opened: z.boolean(),
  })
  .strict();

const RoomSchema = z
  .object({
    room_id: id,
    persona: z.object({ name: text, style: z.string() }).strict(),
    current_link: z.number().int().min(1),
    viewer_count: count,
    started_at: time,
  })
  .strict();

/** One problem of a well-shaped world: where (a key path inside `world`) and what. */
export interface WorldProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Why a well-shaped world is inconsistent (empty when it is not): duplicate ids and link numbers, and
 * references that name nothing. `viewerId` is the task's asking viewer, who must be one of the viewers.
 */
export function worldProblems(w: WorldData, viewerId?: string): WorldProblem[] {
  const out: WorldProblem[] = [];
  const unique = <T>(list: readonly T[], key: (x: T) => string | number, at: string, field: string, what: string): void => {
    const first = new Map<string | number, number>();
    list.forEach((x, i) => {
      const k = key(x);
      const prev = first.get(k);
      if (prev === undefined) first.set(k, i);
      else out.push({ path: [at, i, field], message: `duplicate ${what} ${JSON.stringify(k)} (first at ${at}.${prev})` });
    });
  };
  unique(w.products, (p) => p.item_id, 'products', 'item_id', 'item_id');
  unique(w.products, (p) => p.link_no, 'products', 'link_no', 'link number');
  // SKU and FAQ ids are unique across the world: an order names its SKU by id, and FAQ hits are returned by id.
  const skuFirst = new Map<string, string>();
  const faqFirst = new Map<string, string>();
  w.products.forEach((p, i) => {
    p.skus.forEach((s, j) => {
      const prev = skuFirst.get(s.sku_id);
      if (prev === undefined) skuFirst.set(s.sku_id, `products.${i}.skus.${j}`);
      else out.push({ path: ['products', i, 'skus', j, 'sku_id'], message: `duplicate sku_id "${s.sku_id}" (first at ${prev})` });
    });
    p.faq.forEach((f, j) => {
      const prev = faqFirst.get(f.faq_id);
      if (prev === undefined) faqFirst.set(f.faq_id, `products.${i}.faq.${j}`);
      else out.push({ path: ['products', i, 'faq', j, 'faq_id'], message: `duplicate faq_id "${f.faq_id}" (first at ${prev})` });
    });
  });
  const items = new Set(w.products.map((p) => p.item_id));
  const links = w.products.map((p) => p.link_no);
  if (!links.includes(w.room.current_link)) {
    out.push({ path: ['room', 'current_link'], message: `no product has link_no ${w.room.current_link} (links: ${links.join(', ')})` });
  }
  const item = (itemId: string, path: (string | number)[]): void => {
    if (!items.has(itemId)) out.push({ path, message: `no product has item_id "${itemId}"` });
  };
  const later = (from: string, to: string, path: (string | number)[], what: string): void => {
    if (Date.parse(to) < Date.parse(from)) out.push({ path, message: `${what} (${to}) is before ${from}` });
  };

  unique(w.coupons, (c) => c.coupon_id, 'coupons', 'coupon_id', 'coupon_id');
  w.coupons.forEach((c, i) => {
    if (c.threshold > 0 && c.discount > c.threshold) out.push({ path: ['coupons', i, 'discount'], message: `saves ${c.discount}, more than its threshold ${c.threshold}` });
    later(c.valid_from, c.valid_to, ['coupons', i, 'valid_to'], 'valid_to');
    if (c.scope.kind === 'items') c.scope.item_ids.forEach((x, j) => item(x, ['coupons', i, 'scope', 'item_ids', j]));
  });
  unique(w.flash_sales, (f) => f.flash_id, 'flash_sales', 'flash_id', 'flash_id');
  w.flash_sales.forEach((f, i) => {
    item(f.item_id, ['flash_sales', i, 'item_id']);
    later(f.starts_at, f.ends_at, ['flash_sales', i, 'ends_at'], 'ends_at');
    if (f.sold > f.quantity) out.push({ path: ['flash_sales', i, 'sold'], message: `${f.sold} sold of ${f.quantity}` });
  });
  unique(w.bundles, (b) => b.bundle_id, 'bundles', 'bundle_id', 'bundle_id');
  w.bundles.forEach((b, i) => b.item_ids.forEach((x, j) => item(x, ['bundles', i, 'item_ids', j])));
  unique(w.gifts, (g) => g.gift_id, 'gifts', 'gift_id', 'gift_id');
  w.gifts.forEach((g, i) => item(g.item_id, ['gifts', i, 'item_id']));
  unique(w.presales, (s) => s.presale_id, 'presales', 'presale_id', 'presale_id');
  w.presales.forEach((s, i) => item(s.item_id, ['presales', i, 'item_id']));

  const campaigns = new Set<string>([
    ...w.coupons.map((c) => c.coupon_id),
    ...w.flash_sales.map((f) => f.flash_id),
    ...w.bundles.map((b) => b.bundle_id),
    ...w.gifts.map((g) => g.gift_id),
    ...w.presales.map((s) => s.presale_id),
  ]);
  w.products.forEach((p, i) =>
    p.campaign_ids.forEach((c, j) => {
      if (!campaigns.has(c)) out.push({ path: ['products', i, 'campaign_ids', j], message: `"${c}" is no coupon, flash sale, bundle, gift or presale of the world` });
    }),
  );

  unique(w.viewers, (v) => v.viewer_id, 'viewers', 'viewer_id', 'viewer_id');
  unique(w.orders, (o) => o.order_id, 'orders', 'order_id', 'order_id');
  const viewers = new Set(w.viewers.map((v) => v.viewer_id));
  w.orders.forEach((o, i) => {
    if (!viewers.has(o.viewer_id)) out.push({ path: ['orders', i, 'viewer_id'], message: `no viewer has viewer_id "${o.viewer_id}"` });
    const p = w.products.find((x) => x.item_id === o.item_id);
    if (p === undefined) item(o.item_id, ['orders', i, 'item_id']);
    else if (!p.skus.some((s) => s.sku_id === o.sku_id)) out.push({ path: ['orders', i, 'sku_id'], message: `item "${o.item_id}" has no SKU "${o.sku_id}"` });
    if (o.shipped_at !== undefined) later(o.placed_at, o.shipped_at, ['orders', i, 'shipped_at'], 'shipped_at');
    if (o.delivered_at !== undefined) later(o.shipped_at ?? o.placed_at, o.delivered_at, ['orders', i, 'delivered_at'], 'delivered_at');
  });
  w.viewers.forEach((v, i) =>
    v.order_ids.forEach((oid, j) => {
      const o = w.orders.find((x) => x.order_id === oid);
      if (o === undefined) out.push({ path: ['viewers', i, 'order_ids', j], message: `no order has order_id "${oid}"` });
      else if (o.viewer_id !== v.viewer_id) out.push({ path: ['viewers', i, 'order_ids', j], message: `order "${oid}" belongs to viewer "${o.viewer_id}"` });
    }),
  );
  if (viewerId !== undefined && !viewers.has(viewerId)) {
    out.push({ path: ['viewers'], message: `the task's viewer_id "${viewerId}" is none of the viewers (the asking viewer must be listed)` });
  }
  return out;
}

/** The shape of `Task.world`, before the consistency checks (`TaskSchema` runs those with the task's viewer). */
export const WorldDataSchema = z
  .object({
    now: time,
    room: RoomSchema,
    products: z.array(ProductSchema).min(1),
    coupons: z.array(CouponSchema).default([]),
    flash_sales: z.array(FlashSaleSchema).default([]),
    bundles: z.array(BundleSchema).default([]),
    gifts: z.array(GiftSchema).default([]),
    presales: z.array(PresaleSchema).default([]),
    viewers: z.array(ViewerSchema).min(1),
    orders: z.array(OrderSchema).default([]),
  })
  .strict();

// Compile-time check that the schema's output and the world's data type agree in both directions.
type Parsed = z.infer<typeof WorldDataSchema>;
const _toData = (w: Parsed): WorldData => w;
const _fromData = (w: WorldData): Parsed => w;
void _toData;
void _fromData;
