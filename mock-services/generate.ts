/**
 * The world generator: `generateWorld(seed, locale)` builds a whole simulated live room (lineup, marketing,
 * viewers, orders) from a seed. It runs on every episode reset, so it only picks from the static tables of
 * catalog.ts and does arithmetic; every random choice comes from a named `Rng` stream, so that adding a
 * draw to one part (say, orders) never reshuffles another (the lineup).
 */
import type { Locale } from '../protocol/domain.js';
import { Rng } from '../protocol/rng.js';
import {
  BRANDS,
  CARRIERS,
  CATEGORY_NAMES,
  CITIES,
  CUSTOM_MARKERS,
  EXCLUSION_TEXT,
  GIFTS,
  NICKNAMES,
  PERSONA_NAMES,
  PERSONA_STYLES,
  PRODUCT_TEMPLATES,
} from './catalog.js';
import type { ExclusionCode, ProductTemplate, T2 } from './catalog.js';
import { DAY, HOUR, MINUTE, localMidnight, localMs, toIso } from './time.js';
import { CATEGORIES } from './world.js';
import type { Bundle, Category, Coupon, Faq, FlashSale, Gift, Order, OrderStatus, Presale, Product, Sku, Viewer, World } from './world.js';

// ---------------------------------------------------------------------------------------------------
// Static indexes built once at module load
// ---------------------------------------------------------------------------------------------------

const TEMPLATES_BY_CATEGORY: ReadonlyMap<Category, readonly ProductTemplate[]> = new Map(
  CATEGORIES.map((c) => [c, PRODUCT_TEMPLATES.filter((tp) => tp.category === c)]),
);

// Reverse index text -> code, so that services can reason about a product's exclusions from its data alone.
const EXCLUSION_BY_TEXT: ReadonlyMap<string, ExclusionCode> = new Map(
  (Object.keys(EXCLUSION_TEXT) as ExclusionCode[]).flatMap((code) => EXCLUSION_TEXT[code].map((text) => [text, code] as const)),
);

// Carrier name (either locale) -> tracking-number prefix.
const CARRIER_PREFIX: ReadonlyMap<string, string> = new Map(
  CARRIERS.flatMap(([name, prefix]) => [[name[0], prefix] as const, [name[1], prefix] as const]),
);

const COUPON_TIERS: readonly (readonly [threshold: number, discount: number])[] = [
  [0, 5],
  [0, 10],
  [59, 5],
  [99, 10],
  [149, 20],
  [199, 30],
  [299, 50],
  [399, 60],
];

const ORDER_STATUS_WEIGHTS: Readonly<Record<OrderStatus, number>> = {
  unpaid: 0.1,
  paid: 0.15,
  shipped: 0.2,
  delivered: 0.35,
  refunding: 0.1,
  closed: 0.1,
};

const ORDERS_PER_VIEWER: Readonly<Record<'0' | '1' | '2' | '3' | '4', number>> = { '0': 0.2, '1': 0.3, '2': 0.25, '3': 0.15, '4': 0.1 };

/** 2026-01-01 00:00 in UTC+8: worlds live in 2026. */
const YEAR_START = localMs(2026, 1, 1);

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------

/** Round to cents (prices are yuan with at most two decimals). */
function cents(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A shop-style price: ends in .9 or .00 (e.g. 89.9, 129). */
function shopPrice(x: number): number {
  const whole = Math.max(1, Math.floor(x));
  return whole % 10 === 0 || whole < 20 ? whole : cents(whole - 0.1);
}

/** Deterministic unique id: prefix + 6 hex digits drawn from `rng`, redrawn on the rare collision. */
function makeId(prefix: string, rng: Rng, used: Set<string>): string {
  for (;;) {
    const id = `${prefix}_${rng.uint32().toString(16).padStart(8, '0').slice(0, 6)}`;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/** Fill `{a<i>}` and shipping placeholders of an FAQ answer. */
function fillAnswer(
  text: string,
  attrValues: readonly string[],
  vars: { ship_hours: string; ships_from: string; carrier: string },
): string {
  return text.replace(/\{(a\d+|ship_hours|ships_from|carrier)\}/g, (_, k: string) =>
    k[0] === 'a' ? (attrValues[Number(k.slice(1))] ?? '') : vars[k as keyof typeof vars],
  );
}

/** The stable exclusion codes of a product's after-sales policy (texts in either locale are recognised). */
export function exclusionCodesOf(product: Product): ExclusionCode[] {
  const out: ExclusionCode[] = [];
  for (const text of product.after_sales.return_exclusions) {
    const code = EXCLUSION_BY_TEXT.get(text);
    if (code !== undefined) out.push(code);
  }
  return out;
}

/** Whether a SKU is a custom-made variant (engraving, personalisation). */
export function isCustomSku(sku: Sku): boolean {
  return CUSTOM_MARKERS.some((m) => sku.spec_text.includes(m));
}

// ---------------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------------

/**
 * Build the world of `(seed, locale)`. Pure and deterministic: the same arguments always give a deep-equal
 * world whose JSON is byte-identical. `world.now` is a simulated instant in 2026 around 20:00 (UTC+8).
 */
export function generateWorld(seed: number, locale: Locale): World {
  const L = locale === 'zh-CN' ? 0 : 1;
  const tx = (pair: T2): string => pair[L];
  const used = new Set<string>();

  // --- time: a day of 2026, the evening show
  const rTime = new Rng(seed, 'world/time');
  const nowMs = YEAR_START + rTime.int(0, 364) * DAY + 20 * HOUR + rTime.int(0, 11) * 5 * MINUTE;
  const now = toIso(nowMs);

  // --- lineup: one template per category, then more without replacement, then a shuffled link order
  const rLine = new Rng(seed, 'world/lineup');
  const count = rLine.int(8, 20);
  const chosen: ProductTemplate[] = [];
  for (const c of CATEGORIES) chosen.push(rLine.pick(TEMPLATES_BY_CATEGORY.get(c) as readonly ProductTemplate[]));
  const rest = rLine.shuffle(PRODUCT_TEMPLATES.filter((tp) => !chosen.includes(tp)));
  for (const tp of rest) {
    if (chosen.length >= count) break;
    chosen.push(tp);
  }
  const lineup = rLine.shuffle(chosen);

  const rProd = new Rng(seed, 'world/products');
  const products: Product[] = lineup.map((tp, i) => buildProduct(tp, i + 1, rProd, tx, L, used));

  // --- presale: 0-1 product becomes a presale item (never a sold-out one)
  const rMkt = new Rng(seed, 'world/marketing');
  const presales: Presale[] = [];
  if (rMkt.chance(0.35)) {
    const candidates = products.filter((p) => p.status !== 'sold_out');
    if (candidates.length > 0) {
      const p = rMkt.pick(candidates);
      p.status = 'presale';
      const deposit = rMkt.pick([10, 20, 30, 50]);
      const finalStart = localMidnight(nowMs) + rMkt.int(1, 10) * DAY + 20 * HOUR;
      presales.push({
        presale_id: makeId('ps', rMkt, used),
        item_id: p.item_id,
        deposit,
        deposit_value: deposit * rMkt.pick([2, 2.5, 3]),
        final_payment_starts_at: toIso(finalStart),
        ships_by: toIso(localMidnight(finalStart) + rMkt.int(3, 10) * DAY + 18 * HOUR),
      });
      p.shipping.ship_within_hours = 72;
    }
  }
  const onSale = products.filter((p) => p.status === 'on_sale');

  // --- coupons: 2-5; the first is always usable now, so every world has at least one live coupon
  const coupons: Coupon[] = [];
  const nCoupons = rMkt.int(2, 5);
  for (let i = 0; i < nCoupons; i++) coupons.push(buildCoupon(i === 0, rMkt, nowMs, products, tx, L, used));

  // --- flash sales: 0-2 on distinct on-sale items, live now or starting later tonight
  const flash_sales: FlashSale[] = [];
  const nFlash = Math.min(onSale.length, rMkt.pick([0, 1, 1, 2]));
  for (const p of rMkt.sample(onSale, nFlash)) {
    const live = rMkt.chance(0.6);
    const startMs = live ? nowMs - rMkt.int(1, 6) * 5 * MINUTE : nowMs + rMkt.int(2, 12) * 10 * MINUTE;
    const endMs = live ? nowMs + rMkt.int(2, 12) * 5 * MINUTE : startMs + rMkt.int(1, 3) * 10 * MINUTE;
    const quantity = rMkt.int(5, 30) * 10;
    flash_sales.push({
      flash_id: makeId('fs', rMkt, used),
      item_id: p.item_id,
      price: shopPrice(p.live_price * (0.7 + rMkt.next() * 0.15)),
      starts_at: toIso(startMs),
      ends_at: toIso(endMs),
      quantity,
      sold: live ? (rMkt.chance(0.2) ? quantity : rMkt.int(0, quantity)) : 0,
    });
  }

  // --- bundles: 0-2 pairs of on-sale items, cheaper together
  const bundles: Bundle[] = [];
  const nBundles = onSale.length >= 2 ? rMkt.pick([0, 1, 1, 2]) : 0;
  for (let i = 0; i < nBundles; i++) {
    const [a, b] = rMkt.sample(onSale, 2);
    const price = shopPrice((a.live_price + b.live_price) * (0.82 + rMkt.next() * 0.1));
    bundles.push({
      bundle_id: makeId('bd', rMkt, used),
      item_ids: [a.item_id, b.item_id],
      price,
      description: L === 0 ? `${a.title} + ${b.title} 组合购买` : `Buy together: ${a.title} + ${b.title}`,
    });
  }

  // --- gifts: 0-3 items with a gift while stock lasts (some already gone)
  const gifts: Gift[] = [];
  const giftable = products.filter((p) => p.status !== 'sold_out');
  for (const p of rMkt.sample(giftable, Math.min(giftable.length, rMkt.int(0, 3)))) {
    gifts.push({
      gift_id: makeId('gf', rMkt, used),
      item_id: p.item_id,
      gift_name: tx(rMkt.pick(GIFTS[p.category])),
      remaining: rMkt.chance(0.25) ? 0 : rMkt.int(1, 200),
    });
  }

  // --- campaign ids per product, in a fixed kind order (coupons, flash, bundles, gifts, presale)
  for (const p of products) {
    for (const c of coupons) if (couponCovers(c, p)) p.campaign_ids.push(c.coupon_id);
    for (const f of flash_sales) if (f.item_id === p.item_id) p.campaign_ids.push(f.flash_id);
    for (const b of bundles) if (b.item_ids.includes(p.item_id)) p.campaign_ids.push(b.bundle_id);
    for (const g of gifts) if (g.item_id === p.item_id) p.campaign_ids.push(g.gift_id);
    for (const s of presales) if (s.item_id === p.item_id) p.campaign_ids.push(s.presale_id);
  }

  // --- viewers and orders
  const rView = new Rng(seed, 'world/viewers');
  const nViewers = rView.int(5, 20);
  const names = rView.sample(NICKNAMES, nViewers);
  const orderable = products.filter((p) => p.status !== 'presale');
  const viewers: Viewer[] = [];
  const orders: Order[] = [];
  for (const nick of names) {
    const viewer: Viewer = {
      viewer_id: makeId('vw', rView, used),
      nickname: tx(nick),
      membership: rView.weighted({ none: 0.5, member: 0.35, vip: 0.15 }),
      order_ids: [],
    };
    const nOrders = Number(rView.weighted(ORDERS_PER_VIEWER));
    const mine: Order[] = [];
    for (let k = 0; k < nOrders; k++) mine.push(buildOrder(viewer.viewer_id, rView, nowMs, orderable, used));
    // Oldest first: the order list reads like an account history.
    mine.sort((x, y) => (x.placed_at < y.placed_at ? -1 : x.placed_at > y.placed_at ? 1 : x.order_id < y.order_id ? -1 : 1));
    for (const o of mine) {
      viewer.order_ids.push(o.order_id);
      orders.push(o);
    }
    viewers.push(viewer);
  }

  // --- room
  const rRoom = new Rng(seed, 'world/room');
  const room = {
    room_id: makeId('rm', rRoom, used),
    persona: { name: tx(rRoom.pick(PERSONA_NAMES)), style: tx(rRoom.pick(PERSONA_STYLES)) },
    current_link: rRoom.int(1, products.length),
    viewer_count: rRoom.int(800, 50_000),
    started_at: toIso(nowMs - rRoom.int(6, 36) * 5 * MINUTE),
  };

  return { seed, locale, now, room, products, coupons, flash_sales, bundles, gifts, presales, viewers, orders };
}

/** Whether a coupon's scope covers a product. */
export function couponCovers(c: Coupon, p: Product): boolean {
  const s = c.scope;
  return s.kind === 'all' || (s.kind === 'category' ? s.category === p.category : s.item_ids.includes(p.item_id));
}

function buildProduct(tp: ProductTemplate, linkNo: number, r: Rng, tx: (p: T2) => string, L: 0 | 1, used: Set<string>): Product {
  const item_id = makeId('it', r, used);
  const suffix = item_id.slice(3);
  const brand = tx(r.pick(BRANDS[tp.category]));
  const name = tx(r.pick(tp.names));
  const attrValues: string[] = [];
  const attributes: { [name: string]: string } = {};
  for (const [an, vals] of tp.attrs) {
    const val = tx(r.pick(vals));
    attrValues.push(val);
    attributes[tx(an)] = val;
  }

  // Prices: list in the template range, live 60-92% of list, both shop-style.
  const list_price = shopPrice(tp.price[0] + r.next() * (tp.price[1] - tp.price[0]));
  let live_price = shopPrice(list_price * (0.6 + r.next() * 0.32));
  if (live_price >= list_price) live_price = cents(list_price - 1);

  // SKUs: a random subset per dimension, keeping template order, at most 6 combinations.
  const picked: (readonly [T2, readonly (readonly [T2, number])[]])[] = [];
  let combos = 1;
  for (const [dn, vals] of tp.dims) {
    const k = r.int(1, Math.max(1, Math.min(vals.length, Math.floor(6 / combos))));
    const idx = r
      .sample(
        vals.map((_, i) => i),
        k,
      )
      .sort((a, b) => a - b);
    picked.push([dn, idx.map((i) => vals[i])]);
    combos *= k;
  }
  // The live price is the cheapest SKU's price ("from" price), so shift deltas down by the smallest one.
  let minDelta = 0;
  for (const [, vals] of picked) minDelta += Math.min(...vals.map((x) => x[1]));
  const skus: Sku[] = [];
  const soldOutAll = r.chance(0.08);
  const walk = (d: number, spec: { [k: string]: string }, parts: string[], delta: number): void => {
    if (d === picked.length) {
      const roll = r.next();
      const stock = soldOutAll ? 0 : roll < 0.15 ? 0 : roll < 0.35 ? r.int(1, 10) : r.int(11, 999);
      skus.push({
        sku_id: `sk_${suffix}_${skus.length + 1}`,
        spec: { ...spec },
        spec_text: parts.join(' '),
        price: cents(live_price + delta),
        stock,
      });
      return;
    }
    const [dn, vals] = picked[d];
    for (const [val, dlt] of vals) {
      spec[tx(dn)] = tx(val);
      parts.push(tx(val));
      walk(d + 1, spec, parts, delta + dlt);
      parts.pop();
    }
    delete spec[tx(dn)];
  };
  walk(0, {}, [], -minDelta);
  const status: Product['status'] = skus.every((s) => s.stock === 0) ? 'sold_out' : 'on_sale';

  const cityPair = r.pick(CITIES);
  const [carrierPair] = r.pick(CARRIERS);
  const shipping = {
    ship_within_hours: r.pick([24, 48, 72]),
    ships_from: tx(cityPair),
    free_shipping: r.chance(0.85),
    carrier: tx(carrierPair),
  };
  const after_sales = {
    // A few live-room deals are sold without seven-day returns; the rest follow the platform default.
    seven_day_return: !r.chance(0.06),
    return_exclusions: tp.exclusions.map((c) => EXCLUSION_TEXT[c][L]),
    return_shipping_insurance: r.chance(0.6),
    price_protection_days: r.pick([0, 7, 15]),
  };

  const vars = { ship_hours: String(shipping.ship_within_hours), ships_from: shipping.ships_from, carrier: shipping.carrier };
  const nFaq = r.int(Math.min(2, tp.faq.length), Math.min(5, tp.faq.length));
  const faqIdx = r
    .sample(
      tp.faq.map((_, i) => i),
      nFaq,
    )
    .sort((a, b) => a - b);
  const faq: Faq[] = faqIdx.map((fi, k) => {
    const [q, a, tags] = tp.faq[fi];
    return { faq_id: `fq_${suffix}_${k + 1}`, question: tx(q), answer: fillAnswer(tx(a), attrValues, vars), tags: tags.slice() };
  });

  return {
    item_id,
    link_no: linkNo,
    title: `${brand} ${name}`,
    brand,
    category: tp.category,
    regulatory_kind: tp.kind,
    attributes,
    list_price,
    live_price,
    skus,
    faq,
    status,
    shipping,
    after_sales,
    campaign_ids: [],
  };
}

function buildCoupon(
  forceUsable: boolean,
  r: Rng,
  nowMs: number,
  products: readonly Product[],
  tx: (p: T2) => string,
  L: 0 | 1,
  used: Set<string>,
): Coupon {
  const [threshold, discount] = r.pick(COUPON_TIERS);
  const scopeKind = r.weighted({ all: 0.4, category: 0.35, items: 0.25 });
  let scope: Coupon['scope'];
  let scopeName = '';
  if (scopeKind === 'all') scope = { kind: 'all' };
  else if (scopeKind === 'category') {
    const category = r.pick(products).category;
    scope = { kind: 'category', category };
    scopeName = tx(CATEGORY_NAMES[category]);
  } else {
    const items = r.sample(products, r.int(1, 2)).sort((a, b) => a.link_no - b.link_no);
    scope = { kind: 'items', item_ids: items.map((p) => p.item_id) };
    scopeName = L === 0 ? '指定商品' : 'Selected items';
  }
  const window = forceUsable ? 'valid' : r.weighted({ valid: 0.7, upcoming: 0.15, expired: 0.15 });
  const hourNow = Math.floor(nowMs / HOUR) * HOUR;
  let fromMs: number;
  let toMs: number;
  if (window === 'valid') {
    fromMs = hourNow - r.int(1, 72) * HOUR;
    toMs = hourNow + r.int(2, 72) * HOUR;
  } else if (window === 'upcoming') {
    fromMs = hourNow + r.int(2, 48) * HOUR;
    toMs = fromMs + r.int(24, 72) * HOUR;
  } else {
    toMs = hourNow - r.int(1, 48) * HOUR;
    fromMs = toMs - r.int(24, 72) * HOUR;
  }
  const members_only = !forceUsable && r.chance(0.25);
  const base =
    threshold === 0
      ? L === 0
        ? `无门槛${discount}元券`
        : `${discount} yuan off, no minimum`
      : L === 0
        ? `满${threshold}减${discount}`
        : `${discount} off orders over ${threshold}`;
  const prefix = [members_only ? (L === 0 ? '会员专享' : 'Members') : '', scopeName].filter((s) => s !== '');
  const name = prefix.length === 0 ? base : L === 0 ? `${prefix.join('')}${base}` : `${prefix.join(' ')}: ${base}`;
  return {
    coupon_id: makeId('cp', r, used),
    name,
    threshold,
    discount,
    scope,
    valid_from: toIso(fromMs),
    valid_to: toIso(toMs),
    per_user_limit: r.int(1, 2),
    remaining: forceUsable ? r.int(20, 500) : r.chance(0.2) ? 0 : r.int(1, 500),
    members_only,
  };
}

/** Floor an instant to the whole minute (order times read like a shop's records). */
function alignMinute(ms: number): number {
  return Math.floor(ms / MINUTE) * MINUTE;
}

/** A tracking number: the carrier's prefix and 12 digits. */
function trackingNo(prefix: string, r: Rng): string {
  return `${prefix}${r.int(100000, 999999)}${r.int(100000, 999999)}`;
}

function buildOrder(viewer_id: string, r: Rng, nowMs: number, orderable: readonly Product[], used: Set<string>): Order {
  const p = r.pick(orderable);
  const sku = r.pick(p.skus);
  const quantity = r.chance(0.8) ? 1 : 2;
  const status = r.weighted(ORDER_STATUS_WEIGHTS);
  const order_id = makeId('od', r, used);
  const o: Order = {
    order_id,
    viewer_id,
    item_id: p.item_id,
    sku_id: sku.sku_id,
    quantity,
    paid: cents(sku.price * quantity),
    status,
    placed_at: '',
    opened: false,
  };
  // Times per status, all strictly before now: unpaid minutes ago, paid within the shipping window, ...
  if (status === 'unpaid') o.placed_at = toIso(alignMinute(nowMs - r.int(5, 120) * MINUTE));
  else if (status === 'paid') o.placed_at = toIso(alignMinute(nowMs - r.int(10, 20 * 60) * MINUTE));
  else if (status === 'closed') o.placed_at = toIso(alignMinute(nowMs - r.int(2 * 24, 30 * 24) * HOUR - r.int(0, 59) * MINUTE));
  else if (status === 'shipped') {
    const shipped = alignMinute(nowMs - r.int(2, 60) * HOUR - r.int(0, 59) * MINUTE);
    o.placed_at = toIso(shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE);
    o.shipped_at = toIso(shipped);
    o.tracking_no = trackingNo(CARRIER_PREFIX.get(p.shipping.carrier) ?? 'SF', r);
  } else {
    // delivered / refunding: half within the seven-day window, half outside it (never on its edge).
    const agoHours = status === 'refunding' ? r.int(24, 144) : r.chance(0.5) ? r.int(2, 160) : r.int(176, 480);
    const delivered = alignMinute(nowMs - agoHours * HOUR - r.int(0, 59) * MINUTE);
    const shipped = delivered - r.int(24, 96) * HOUR;
    o.placed_at = toIso(shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE);
    o.shipped_at = toIso(shipped);
    o.delivered_at = toIso(delivered);
    o.tracking_no = trackingNo(CARRIER_PREFIX.get(p.shipping.carrier) ?? 'SF', r);
    o.opened = r.chance(0.5);
  }
  return o;
}
