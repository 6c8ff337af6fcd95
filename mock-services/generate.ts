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
import type { ExclusionCode, ProductTemplate } from './catalog.js';
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

/** A weight table for `pickWeighted`: keys in `Object.keys` order, and their weights' sum in that order. */
interface WeightTable<K extends string> {
  readonly keys: readonly K[];
  readonly weights: readonly number[];
  readonly total: number;
}

function weightTable<K extends string>(weights: Readonly<Record<K, number>>): WeightTable<K> {
  const keys = Object.keys(weights) as K[];
  let total = 0;
  for (const k of keys) total += weights[k];
  return { keys, weights: keys.map((k) => weights[k]), total };
}

/**
 * `r.weighted(weights)` draw for draw (one `next()`, weights subtracted in key order, the last key as the
 * fallback), from a table listed once instead of on every call: a world makes about fifty such draws.
 */
function pickWeighted<K extends string>(r: Rng, t: WeightTable<K>): K {
  let x = r.next() * t.total;
  for (let i = 0; i < t.keys.length; i++) {
    x -= t.weights[i];
    if (x < 0) return t.keys[i];
  }
  return t.keys[t.keys.length - 1];
}

const ORDER_STATUS_WEIGHTS = weightTable<OrderStatus>({
  unpaid: 0.1,
  paid: 0.15,
  shipped: 0.2,
  delivered: 0.35,
  refunding: 0.1,
  closed: 0.1,
});

const ORDERS_PER_VIEWER = weightTable({ '0': 0.2, '1': 0.3, '2': 0.25, '3': 0.15, '4': 0.1 });
const MEMBERSHIP_WEIGHTS = weightTable<Viewer['membership']>({ none: 0.5, member: 0.35, vip: 0.15 });
const SCOPE_WEIGHTS = weightTable<Coupon['scope']['kind']>({ all: 0.4, category: 0.35, items: 0.25 });
const WINDOW_WEIGHTS = weightTable({ valid: 0.7, upcoming: 0.15, expired: 0.15 });

const SHIP_HOURS: readonly number[] = [24, 48, 72];
const PRICE_PROTECTION_DAYS: readonly number[] = [0, 7, 15];
const PRESALE_DEPOSITS: readonly number[] = [10, 20, 30, 50];
const DEPOSIT_MULTIPLIERS: readonly number[] = [2, 2.5, 3];
const CAMPAIGN_COUNTS: readonly number[] = [0, 1, 1, 2];

/** 2026-01-01 00:00 in UTC+8: worlds live in 2026. */
const YEAR_START = localMs(2026, 1, 1);

const INDICES: (readonly number[])[] = [];

/**
 * `[0, 1, ..., n-1]`, shared. Picking or sampling it draws exactly what picking or sampling n items would,
 * so the generator can draw an index (to look up a prebuilt text) without changing any world.
 */
function indices(n: number): readonly number[] {
  return (INDICES[n] ??= Array.from({ length: n }, (_, i) => i));
}

/**
 * Sort a short array in place (insertion sort). `Array.prototype.sort` allocates its work arrays on every
 * call, and a world sorts some sixty arrays of one to five elements. With a strict total order (no ties)
 * the result is the one `sort` gives.
 */
function sortSmall<T>(items: T[], before: (a: T, b: T) => boolean): T[] {
  for (let i = 1; i < items.length; i++) {
    const x = items[i];
    let j = i - 1;
    for (; j >= 0 && before(x, items[j]); j--) items[j + 1] = items[j];
    items[j + 1] = x;
  }
  return items;
}

const lessNumber = (a: number, b: number): boolean => a < b;

// ---------------------------------------------------------------------------------------------------
// Templates resolved per locale, once at module load
//
// A world is mostly template text in a new combination, so every text and small object that depends only
// on a template and the locale (a title, an attribute set, a SKU's spec, an FAQ answer, the exclusion
// list) is built once here and shared, frozen, by every world that uses it. Generation then allocates
// little more than the per-world records, and a live world holds only what is really its own.
// ---------------------------------------------------------------------------------------------------

/**
 * Everything an FAQ answer may quote about one product, as one number (its "pick"): the attribute values'
 * combination (numbered as `LocalTemplate.attributes` numbers it) times SHIP_PICKS, plus the shipping
 * values (ship-hours, city and carrier indices in mixed radix, the carrier last).
 */
const SHIP_PICKS = SHIP_HOURS.length * CITIES.length * CARRIERS.length;

/** A placeholder of an FAQ answer: the digit of a product's pick it shows, and the text of each value. */
interface AnswerSlot {
  readonly divisor: number;
  readonly radix: number;
  readonly values: readonly string[];
}

/** An attribute placeholder past the template's attributes: always filled with ''. */
const EMPTY_SLOT: AnswerSlot = { divisor: 1, radix: 1, values: [''] };

/** One FAQ answer split at its placeholders: `parts` around `slots`, so that filling it needs no regex. */
interface AnswerTemplate {
  readonly text: string;
  readonly parts: readonly string[];
  readonly slots: readonly AnswerSlot[];
  /** Filled answers by the values their slots take (mixed radix): a world reuses an earlier world's text. */
  readonly filled: Map<number, string>;
}

/** A template in one locale: its texts, and every combination the generator can draw, built once. */
interface LocalTemplate {
  readonly tp: ProductTemplate;
  /** `${brand} ${name}` by [brand index][name index]. */
  readonly titles: readonly (readonly string[])[];
  readonly brands: readonly string[];
  /** Values per attribute. */
  readonly attrValues: readonly (readonly string[])[];
  /** The attributes object by the attribute value indices (mixed radix, first attribute most significant). */
  readonly attributes: readonly Product['attributes'][];
  /** The spec object and spec text by the dimension value indices (mixed radix, first dimension most significant). */
  readonly specs: readonly { readonly spec: Sku['spec']; readonly text: string }[];
  readonly faq: readonly { readonly question: string; readonly answer: AnswerTemplate; readonly tags: string[] }[];
  readonly exclusions: string[];
}

/** Freeze a value shared by many worlds: worlds are read-only, and a stray write should fail loudly. */
function shared<T extends object>(value: T): T {
  return Object.freeze(value);
}

/** Every combination of indices below `sizes`, in mixed-radix order (the last index varies fastest). */
function combinations(sizes: readonly number[]): number[][] {
  let out: number[][] = [[]];
  for (const n of sizes) out = out.flatMap((c) => indices(n).map((i) => [...c, i]));
  return out;
}

/** Split an answer at its placeholders: `{a<i>}` (value of attribute i), `{ship_hours}`, `{ships_from}`, `{carrier}`. */
function compileAnswer(text: string, attrValues: readonly (readonly string[])[], L: 0 | 1): AnswerTemplate {
  const slotOf = (name: string): AnswerSlot => {
    if (name === 'ship_hours')
      return { divisor: CITIES.length * CARRIERS.length, radix: SHIP_HOURS.length, values: SHIP_HOURS.map(String) };
    if (name === 'ships_from') return { divisor: CARRIERS.length, radix: CITIES.length, values: CITIES.map((c) => c[L]) };
    if (name === 'carrier') return { divisor: 1, radix: CARRIERS.length, values: CARRIERS.map(([c]) => c[L]) };
    const a = Number(name.slice(1));
    if (a >= attrValues.length) return EMPTY_SLOT;
    let stride = SHIP_PICKS;
    for (let b = a + 1; b < attrValues.length; b++) stride *= attrValues[b].length;
    return { divisor: stride, radix: attrValues[a].length, values: attrValues[a] };
  };
  const parts: string[] = [];
  const slots: AnswerSlot[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{(a\d+|ship_hours|ships_from|carrier)\}/g)) {
    parts.push(text.slice(last, m.index));
    slots.push(slotOf(m[1]));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return { text, parts, slots, filled: new Map() };
}

function localTemplate(tp: ProductTemplate, L: 0 | 1): LocalTemplate {
  const brands = BRANDS[tp.category].map((b) => b[L]);
  const attrValues = tp.attrs.map(([, vals]) => vals.map((v) => v[L]));
  const attributes = combinations(tp.attrs.map(([, vals]) => vals.length)).map((pick) => {
    const out: Product['attributes'] = {};
    tp.attrs.forEach(([name], a) => (out[name[L]] = attrValues[a][pick[a]]));
    return shared(out);
  });
  const specs = combinations(tp.dims.map(([, vals]) => vals.length)).map((pick) => {
    const spec: Sku['spec'] = {};
    const values = tp.dims.map(([name, vals], d) => (spec[name[L]] = vals[pick[d]][0][L]));
    return shared({ spec: shared(spec), text: values.join(' ') });
  });
  return {
    tp,
    titles: brands.map((brand) => tp.names.map((name) => `${brand} ${name[L]}`)),
    brands,
    attrValues,
    attributes,
    specs,
    faq: tp.faq.map(([q, a, tags]) => ({ question: q[L], answer: compileAnswer(a[L], attrValues, L), tags: shared(tags.slice()) })),
    exclusions: shared(tp.exclusions.map((c) => EXCLUSION_TEXT[c][L])),
  };
}

/** Each template's local form by locale index, in PRODUCT_TEMPLATES order. */
const LOCAL_TEMPLATES: ReadonlyMap<ProductTemplate, readonly [LocalTemplate, LocalTemplate]> = new Map(
  PRODUCT_TEMPLATES.map((tp) => [tp, [localTemplate(tp, 0), localTemplate(tp, 1)]] as const),
);

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

/** Two lowercase hex digits per byte value. */
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** The id prefixes, each with its number in a world's set of used ids. */
type IdPrefix = 'it' | 'ps' | 'cp' | 'fs' | 'bd' | 'gf' | 'vw' | 'od' | 'rm';
const ID_PREFIXES: readonly IdPrefix[] = ['it', 'ps', 'cp', 'fs', 'bd', 'gf', 'vw', 'od', 'rm'];

/**
 * Deterministic unique id: prefix + 6 hex digits (the top 24 bits of a draw, as `uint32().toString(16)`
 * would print them), redrawn on the rare collision. `used` holds (prefix number, 24 bits) as one integer,
 * which is cheaper to hash than the id text.
 */
function makeId(prefix: IdPrefix, rng: Rng, used: Set<number>): string {
  const base = ID_PREFIXES.indexOf(prefix) * 0x1000000;
  for (;;) {
    const bits = rng.uint32() >>> 8;
    if (!used.has(base + bits)) {
      used.add(base + bits);
      return `${prefix}_${HEX2[bits >>> 16]}${HEX2[(bits >>> 8) & 0xff]}${HEX2[bits & 0xff]}`;
    }
  }
}

/** An FAQ answer for a product's pick (see SHIP_PICKS). Each distinct filling is built once, then shared. */
function fillAnswer(answer: AnswerTemplate, pick: number): string {
  const { parts, slots } = answer;
  if (slots.length === 0) return answer.text;
  let key = 0;
  for (const slot of slots) key = key * slot.radix + (Math.floor(pick / slot.divisor) % slot.radix);
  let text = answer.filled.get(key);
  if (text === undefined) {
    text = parts[0];
    for (let i = 0; i < slots.length; i++) text += slots[i].values[Math.floor(pick / slots[i].divisor) % slots[i].radix] + parts[i + 1];
    answer.filled.set(key, text);
  }
  return text;
}

/** Option codes an FAQ answer names ("M05", "M08"): a capital letter and two digits, standing alone. */
export function optionCodes(text: string): string[] {
  return text.match(/(?<![A-Za-z0-9])[A-Z]\d{2}(?![A-Za-z0-9])/g) ?? [];
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
 *
 * Worlds live on in the world cache and in the episodes that use them, so a world is kept small: texts
 * and small objects that come straight from the templates are shared between worlds (frozen), and arrays
 * are built at their final size (`map`, `slice`), because an array grown by `push` reserves 17 slots and a
 * world has dozens.
 */
export function generateWorld(seed: number, locale: Locale): World {
  const L = locale === 'zh-CN' ? 0 : 1;
  const used = new Set<number>();

  // --- time: a day of 2026, the evening show
  const rTime = new Rng(seed, 'world/time');
  const nowMs = YEAR_START + rTime.int(0, 364) * DAY + 20 * HOUR + rTime.int(0, 11) * 5 * MINUTE;
  const now = toIso(nowMs);

  // --- lineup: one template per category, then more without replacement, then a shuffled link order
  const rLine = new Rng(seed, 'world/lineup');
  const count = rLine.int(8, 20);
  const chosen: ProductTemplate[] = [];
  for (let c = 0; c < CATEGORIES.length; c++)
    chosen.push(rLine.pick(TEMPLATES_BY_CATEGORY.get(CATEGORIES[c]) as readonly ProductTemplate[]));
  const rest = rLine.shuffle(PRODUCT_TEMPLATES.filter((tp) => !chosen.includes(tp)));
  for (let i = 0; i < rest.length && chosen.length < count; i++) chosen.push(rest[i]);
  const lineup = rLine.shuffle(chosen);

  const rProd = new Rng(seed, 'world/products');
  const products = lineup.map((tp, i) =>
    buildProduct((LOCAL_TEMPLATES.get(tp) as readonly [LocalTemplate, LocalTemplate])[L], i + 1, rProd, L, used),
  );

  // --- presale: 0-1 product becomes a presale item (never a sold-out one)
  const rMkt = new Rng(seed, 'world/marketing');
  let presales: Presale[] = [];
  if (rMkt.chance(0.35)) {
    const candidates = products.filter((p) => p.status !== 'sold_out');
    if (candidates.length > 0) {
      const p = rMkt.pick(candidates);
      p.status = 'presale';
      const deposit = rMkt.pick(PRESALE_DEPOSITS);
      const finalStart = localMidnight(nowMs) + rMkt.int(1, 10) * DAY + 20 * HOUR;
      presales = [
        {
          presale_id: makeId('ps', rMkt, used),
          item_id: p.item_id,
          deposit,
          deposit_value: deposit * rMkt.pick(DEPOSIT_MULTIPLIERS),
          final_payment_starts_at: toIso(finalStart),
          ships_by: toIso(localMidnight(finalStart) + rMkt.int(3, 10) * DAY + 18 * HOUR),
        },
      ];
      p.shipping.ship_within_hours = 72;
    }
  }
  const onSale = products.filter((p) => p.status === 'on_sale');

  // --- coupons: 2-5; the first is always usable now, so every world has at least one live coupon
  const coupons = indices(rMkt.int(2, 5)).map((i) => buildCoupon(i === 0, rMkt, nowMs, products, L, used));

  // --- flash sales: 0-2 on distinct on-sale items, live now or starting later tonight
  const nFlash = Math.min(onSale.length, rMkt.pick(CAMPAIGN_COUNTS));
  const flash_sales = rMkt.sample(onSale, nFlash).map((p): FlashSale => {
    const live = rMkt.chance(0.6);
    const startMs = live ? nowMs - rMkt.int(1, 6) * 5 * MINUTE : nowMs + rMkt.int(2, 12) * 10 * MINUTE;
    const endMs = live ? nowMs + rMkt.int(2, 12) * 5 * MINUTE : startMs + rMkt.int(1, 3) * 10 * MINUTE;
    const quantity = rMkt.int(5, 30) * 10;
    return {
      flash_id: makeId('fs', rMkt, used),
      item_id: p.item_id,
      price: shopPrice(p.live_price * (0.7 + rMkt.next() * 0.15)),
      starts_at: toIso(startMs),
      ends_at: toIso(endMs),
      quantity,
      sold: live ? (rMkt.chance(0.2) ? quantity : rMkt.int(0, quantity)) : 0,
    };
  });

  // --- bundles: 0-2 pairs of on-sale items, cheaper together
  const nBundles = onSale.length >= 2 ? rMkt.pick(CAMPAIGN_COUNTS) : 0;
  const bundles = indices(nBundles).map((): Bundle => {
    const pair = rMkt.sample(onSale, 2);
    const a = pair[0];
    const b = pair[1];
    const price = shopPrice((a.live_price + b.live_price) * (0.82 + rMkt.next() * 0.1));
    return {
      bundle_id: makeId('bd', rMkt, used),
      item_ids: [a.item_id, b.item_id],
      price,
      description: L === 0 ? `${a.title} + ${b.title} 组合购买` : `Buy together: ${a.title} + ${b.title}`,
    };
  });

  // --- gifts: 0-3 items with a gift while stock lasts (some already gone)
  const giftable = products.filter((p) => p.status !== 'sold_out');
  const gifts = rMkt.sample(giftable, Math.min(giftable.length, rMkt.int(0, 3))).map((p): Gift => ({
    gift_id: makeId('gf', rMkt, used),
    item_id: p.item_id,
    gift_name: rMkt.pick(GIFTS[p.category])[L],
    remaining: rMkt.chance(0.25) ? 0 : rMkt.int(1, 200),
  }));

  // --- campaign ids per product, in a fixed kind order (coupons, flash, bundles, gifts, presale)
  const marketing: Marketing = { coupons, flash_sales, bundles, gifts, presales };
  for (let i = 0; i < products.length; i++) products[i].campaign_ids = campaignIds(products[i], marketing);

  // --- viewers (their orders are drawn here, built on first use: see `lazyOrders`)
  const orderable = products.filter((p) => p.status !== 'presale');
  const viewers = drawViewers(seed, L, nowMs, orderable, used, null);

  // --- room
  const rRoom = new Rng(seed, 'world/room');
  const room = {
    room_id: makeId('rm', rRoom, used),
    persona: { name: rRoom.pick(PERSONA_NAMES)[L], style: rRoom.pick(PERSONA_STYLES)[L] },
    current_link: rRoom.int(1, products.length),
    viewer_count: rRoom.int(800, 50_000),
    started_at: toIso(nowMs - rRoom.int(6, 36) * 5 * MINUTE),
  };

  return lazyOrders({ seed, locale, now, room, products, coupons, flash_sales, bundles, gifts, presales, viewers }, L, nowMs, orderable);
}

/**
 * The viewers of a world and their orders, from the `world/viewers` stream. With `orders` null, each order
 * is only drawn (every draw made, its id and placement kept, nothing else built); with an array, the
 * orders are built into it, oldest first per viewer, viewer after viewer. The two give the same viewers:
 * the draws are the same, and ids collide only with ids of their own prefix (`makeId`), so the viewers'
 * and orders' ids never depend on the other ids `used` holds.
 */
function drawViewers(seed: number, L: 0 | 1, nowMs: number, orderable: readonly Product[], used: Set<number>, orders: Order[] | null): Viewer[] {
  const rView = new Rng(seed, 'world/viewers');
  const nViewers = rView.int(5, 20);
  const names = rView.sample(NICKNAMES, nViewers);
  return names.map((nick): Viewer => {
    const viewer_id = makeId('vw', rView, used);
    const membership = pickWeighted(rView, MEMBERSHIP_WEIGHTS);
    const nOrders = Number(pickWeighted(rView, ORDERS_PER_VIEWER));
    const mine = indices(nOrders).map(() =>
      orders !== null ? buildOrder(viewer_id, rView, nowMs, orderable, used) : drawOrder(rView, nowMs, orderable, used),
    );
    // Oldest first: the order list reads like an account history. Sorted on the instants, which order
    // exactly as their fixed-width ISO texts do (comparing the texts would also flatten them).
    sortSmall(mine, placedBefore);
    if (orders !== null) for (let k = 0; k < mine.length; k++) orders.push(mine[k].order as Order);
    return { viewer_id, nickname: nick[L], membership, order_ids: mine.map((placed) => placed.order_id) };
  });
}

/** A generated world before its orders: `World` less `orders`. */
type WorldBeforeOrders = Omit<World, 'orders'>;

/** What a world's orders are built from, until they are built (`lazyOrders`). */
interface PendingOrders {
  L: 0 | 1;
  nowMs: number;
  orderable: readonly Product[];
}

/** Each generated world's orders, or what they are built from. */
const ordersOf = new WeakMap<object, Order[] | PendingOrders>();

/**
 * The `orders` property of every generated world: one accessor pair for all of them, so that worlds share
 * their hidden class (a getter of its own per world gave each world a class of its own, and every site
 * that reads a world's fields saw a new one each reset). The orders are built on first read (drawing the
 * viewers again, with the orders this time: `drawViewers`), then kept; assigning replaces them.
 */
const ORDERS_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: World): Order[] | undefined {
    const state = ordersOf.get(this);
    if (state === undefined || Array.isArray(state)) return state;
    const orders: Order[] = [];
    const viewers = drawViewers(this.seed, state.L, state.nowMs, state.orderable, new Set(), orders);
    // The viewers drawn again are the world's own, id for id (a generator bug otherwise).
    for (let i = 0; i < viewers.length; i++) {
      if (viewers[i].order_ids.join() !== this.viewers[i]?.order_ids.join()) throw new Error(`world ${this.seed}: orders drawn again differ`);
    }
    const built = orders.slice();
    ordersOf.set(this, built);
    return built;
  },
  set(this: World, value: Order[]): void {
    ordersOf.set(this, value);
  },
};

/**
 * The world with its `orders`, built on first read. Most episodes never read them (only order tasks and
 * the order tools do), and they are a third of a world's memory and its most expensive part to generate.
 * `orders` is an own enumerable property in its place, last, as before (`ORDERS_PROPERTY`), so JSON,
 * spreads, structured clones and equality see what they always saw.
 */
function lazyOrders(w: WorldBeforeOrders, L: 0 | 1, nowMs: number, orderable: readonly Product[]): World {
  ordersOf.set(w, { L, nowMs, orderable });
  return Object.defineProperty(w, 'orders', ORDERS_PROPERTY) as World;
}

/** A world's campaigns, by kind. */
type Marketing = Pick<World, 'coupons' | 'flash_sales' | 'bundles' | 'gifts' | 'presales'>;

/**
 * The ids of the campaigns that apply to a product, kind by kind, as an exact-size array. A function of
 * its own with index loops: inside `generateWorld`, too large to have its loops inlined, each `for...of`
 * cost an iterator object per step.
 */
function campaignIds(p: Product, m: Marketing): string[] {
  const ids: string[] = [];
  for (let i = 0; i < m.coupons.length; i++) if (couponCovers(m.coupons[i], p)) ids.push(m.coupons[i].coupon_id);
  for (let i = 0; i < m.flash_sales.length; i++) if (m.flash_sales[i].item_id === p.item_id) ids.push(m.flash_sales[i].flash_id);
  for (let i = 0; i < m.bundles.length; i++) if (m.bundles[i].item_ids.includes(p.item_id)) ids.push(m.bundles[i].bundle_id);
  for (let i = 0; i < m.gifts.length; i++) if (m.gifts[i].item_id === p.item_id) ids.push(m.gifts[i].gift_id);
  for (let i = 0; i < m.presales.length; i++) if (m.presales[i].item_id === p.item_id) ids.push(m.presales[i].presale_id);
  return ids.slice();
}

/** Whether a coupon's scope covers a product. */
export function couponCovers(c: Coupon, p: Product): boolean {
  const s = c.scope;
  return s.kind === 'all' || (s.kind === 'category' ? s.category === p.category : s.item_ids.includes(p.item_id));
}

/**
 * One product of the lineup. Draw order is part of the world's identity: item id, brand, name, attribute
 * values, prices, SKU dimensions, stock, shipping, after-sales, FAQ.
 */
function buildProduct(lt: LocalTemplate, linkNo: number, r: Rng, L: 0 | 1, used: Set<number>): Product {
  const tp = lt.tp;
  const item_id = makeId('it', r, used);
  const suffix = item_id.slice(3);
  const brand = r.pick(indices(lt.brands.length));
  const name = r.pick(indices(tp.names.length));
  let attrKey = 0;
  for (let a = 0; a < tp.attrs.length; a++) {
    const n = tp.attrs[a][1].length;
    attrKey = attrKey * n + r.pick(indices(n));
  }

  // Prices: list in the template range, live 60-92% of list, both shop-style.
  const list_price = shopPrice(tp.price[0] + r.next() * (tp.price[1] - tp.price[0]));
  let live_price = shopPrice(list_price * (0.6 + r.next() * 0.32));
  if (live_price >= list_price) live_price = cents(list_price - 1);

  // SKUs: a random subset per dimension, keeping template order, at most 6 combinations.
  const dims = tp.dims;
  let combos = 1;
  const picked = dims.map((dim) => {
    const n = dim[1].length;
    const k = r.int(1, Math.max(1, Math.min(n, Math.floor(6 / combos))));
    combos *= k;
    return sortSmall(r.sample(indices(n), k), lessNumber);
  });
  // The live price is the cheapest SKU's price ("from" price), so shift deltas down by the smallest one.
  let minDelta = 0;
  for (let d = 0; d < dims.length; d++) {
    let min = Infinity;
    for (let j = 0; j < picked[d].length; j++) min = Math.min(min, dims[d][1][picked[d][j]][1]);
    minDelta += min;
  }
  const soldOutAll = r.chance(0.08);
  let allSoldOut = true;
  // Every combination of the picked values, first dimension outermost: `pos` counts like an odometer.
  const pos = dims.map(() => 0);
  const skus = indices(combos).map((n): Sku => {
    let delta = -minDelta;
    let specKey = 0;
    for (let d = 0; d < dims.length; d++) {
      const i = picked[d][pos[d]];
      delta += dims[d][1][i][1];
      specKey = specKey * dims[d][1].length + i;
    }
    for (let d = dims.length - 1; d >= 0 && ++pos[d] === picked[d].length; d--) pos[d] = 0;
    const roll = r.next();
    const stock = soldOutAll ? 0 : roll < 0.15 ? 0 : roll < 0.35 ? r.int(1, 10) : r.int(11, 999);
    if (stock !== 0) allSoldOut = false;
    const spec = lt.specs[specKey];
    return { sku_id: `sk_${suffix}_${n + 1}`, spec: spec.spec, spec_text: spec.text, price: cents(live_price + delta), stock };
  });

  // The live price is a "from" price a viewer can pay: when the product is on sale, one of the
  // cheapest options is in stock (the first one, with a few left; no draw, so the rest of the room is as before).
  if (!allSoldOut && !skus.some((k) => k.price === live_price && k.stock > 0)) {
    const cheapest = skus.find((k) => k.price === live_price);
    if (cheapest !== undefined) cheapest.stock = 3;
  }

  const city = r.pick(indices(CITIES.length));
  const carrier = r.pick(indices(CARRIERS.length));
  const hours = r.pick(indices(SHIP_HOURS.length));
  const shipping = {
    ship_within_hours: SHIP_HOURS[hours],
    ships_from: CITIES[city][L],
    free_shipping: r.chance(0.85),
    carrier: CARRIERS[carrier][0][L],
  };
  const sevenDay = !r.chance(0.06);
  const after_sales = {
    // A few live-room deals are sold without seven-day returns; the rest follow the platform default.
    seven_day_return: sevenDay,
    // Exceptions to seven-day returns exist only where there are seven-day returns.
    return_exclusions: sevenDay ? lt.exclusions : [],
    return_shipping_insurance: r.chance(0.6),
    price_protection_days: r.pick(PRICE_PROTECTION_DAYS),
  };

  const pick = attrKey * SHIP_PICKS + (hours * CITIES.length + city) * CARRIERS.length + carrier;
  const nFaq = r.int(Math.min(2, tp.faq.length), Math.min(5, tp.faq.length));
  const faqIdx = sortSmall(r.sample(indices(tp.faq.length), nFaq), lessNumber);
  // A product sold without seven-day returns has no FAQ saying when it can be returned (the answer would
  // contradict the product's own policy); the draw above is unchanged, so the rest of the room is too.
  // Nor one naming an option code the product is not sold in ("M08" among M01/M05 only).
  const sold = skus.map((k) => k.spec_text).join(' ');
  const faqKept = faqIdx.filter(
    (fi) =>
      (after_sales.seven_day_return || !lt.faq[fi].tags.includes('退货')) &&
      optionCodes(fillAnswer(lt.faq[fi].answer, pick)).every((c) => sold.includes(c)),
  );
  const faq = faqKept.map((fi, k): Faq => {
    const f = lt.faq[fi];
    return { faq_id: `fq_${suffix}_${k + 1}`, question: f.question, answer: fillAnswer(f.answer, pick), tags: f.tags };
  });

  return {
    item_id,
    link_no: linkNo,
    title: lt.titles[brand][name],
    brand: lt.brands[brand],
    category: tp.category,
    regulatory_kind: tp.kind,
    attributes: lt.attributes[attrKey],
    list_price,
    live_price,
    skus,
    faq,
    status: allSoldOut ? 'sold_out' : 'on_sale',
    shipping,
    after_sales,
    campaign_ids: [],
  };
}

function buildCoupon(forceUsable: boolean, r: Rng, nowMs: number, products: readonly Product[], L: 0 | 1, used: Set<number>): Coupon {
  const tier = r.pick(COUPON_TIERS);
  const threshold = tier[0];
  const discount = tier[1];
  const scopeKind = pickWeighted(r, SCOPE_WEIGHTS);
  let scope: Coupon['scope'];
  let scopeName = '';
  if (scopeKind === 'all') scope = { kind: 'all' };
  else if (scopeKind === 'category') {
    const category = r.pick(products).category;
    scope = { kind: 'category', category };
    scopeName = CATEGORY_NAMES[category][L];
  } else {
    // A coupon for chosen items is for items on sale: one for a sold-out link would be a dead offer.
    const onSale = products.filter((p) => p.status !== 'sold_out');
    const items = sortSmall(r.sample(onSale.length > 0 ? onSale : products, r.int(1, 2)), linkBefore);
    scope = { kind: 'items', item_ids: items.map((p) => p.item_id) };
    scopeName = L === 0 ? '指定商品' : 'Selected items';
  }
  const window = forceUsable ? 'valid' : pickWeighted(r, WINDOW_WEIGHTS);
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

const linkBefore = (a: Product, b: Product): boolean => a.link_no < b.link_no;

/** Floor an instant to the whole minute (order times read like a shop's records). */
function alignMinute(ms: number): number {
  return Math.floor(ms / MINUTE) * MINUTE;
}

/** A tracking number: the carrier's prefix and 12 digits. */
function trackingNo(prefix: string, r: Rng): string {
  return `${prefix}${r.int(100000, 999999)}${r.int(100000, 999999)}`;
}



/** An order's id with the instant it was placed at (what a viewer's order history is sorted on), and the order when built. */
interface PlacedOrder {
  order_id: string;
  placedMs: number;
  order: Order | null;
}

/** Placement order, ties broken by order id (ids are unique, so this is a strict total order). */
function placedBefore(x: PlacedOrder, y: PlacedOrder): boolean {
  return x.placedMs < y.placedMs || (x.placedMs === y.placedMs && x.order_id < y.order_id);
}

/**
 * One order. The draws for the status's times (and tracking) happen first; the record is then built in
 * the key order the JSON has always had.
 */
function buildOrder(viewer_id: string, r: Rng, nowMs: number, orderable: readonly Product[], used: Set<number>): PlacedOrder {
  const p = r.pick(orderable);
  const sku = r.pick(p.skus);
  const quantity = r.chance(0.8) ? 1 : 2;
  const status = pickWeighted(r, ORDER_STATUS_WEIGHTS);
  const order_id = makeId('od', r, used);
  const paid = cents(sku.price * quantity);
  // The keys every order has, in the JSON's order; the status's own keys follow.
  const head = (placedMs: number, opened: boolean): Order => ({
    order_id,
    viewer_id,
    item_id: p.item_id,
    sku_id: sku.sku_id,
    quantity,
    paid,
    status,
    placed_at: toIso(placedMs),
    opened,
  });
  // Times per status, all strictly before now: unpaid minutes ago, paid within the shipping window, ...
  if (status === 'unpaid' || status === 'paid' || status === 'closed') {
    const placedMs =
      status === 'unpaid'
        ? alignMinute(nowMs - r.int(5, 120) * MINUTE)
        : status === 'paid'
          ? alignMinute(nowMs - r.int(10, 20 * 60) * MINUTE)
          : alignMinute(nowMs - r.int(2 * 24, 30 * 24) * HOUR - r.int(0, 59) * MINUTE);
    return { order_id, placedMs, order: head(placedMs, false) };
  }
  const prefix = CARRIER_PREFIX.get(p.shipping.carrier) ?? 'SF';
  if (status === 'shipped') {
    const shipped = alignMinute(nowMs - r.int(2, 60) * HOUR - r.int(0, 59) * MINUTE);
    const placedMs = shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE;
    return { order_id, placedMs, order: { ...head(placedMs, false), shipped_at: toIso(shipped), tracking_no: trackingNo(prefix, r) } };
  }
  // delivered / refunding: half within the seven-day window, half outside it (never on its edge).
  const agoHours = status === 'refunding' ? r.int(24, 144) : r.chance(0.5) ? r.int(2, 160) : r.int(176, 480);
  const delivered = alignMinute(nowMs - agoHours * HOUR - r.int(0, 59) * MINUTE);
  const shipped = delivered - r.int(24, 96) * HOUR;
  const placedMs = shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE;
  const tracking_no = trackingNo(prefix, r);
  // Drawn after the tracking number, as it always was.
  const opened = r.chance(0.5);
  return { order_id, placedMs, order: { ...head(placedMs, opened), shipped_at: toIso(shipped), delivered_at: toIso(delivered), tracking_no } };
}

/**
 * `buildOrder`'s draws, in its order, keeping only the order's id and placement (`drawViewers` before the
 * orders are read): the product, the SKU, the quantity, the status, the id, the status's times, then the
 * tracking number's two draws and, for delivered and refunding orders, whether the parcel was opened.
 */
function drawOrder(r: Rng, nowMs: number, orderable: readonly Product[], used: Set<number>): PlacedOrder {
  r.pick(r.pick(orderable).skus);
  r.next(); // quantity
  const status = pickWeighted(r, ORDER_STATUS_WEIGHTS);
  const order_id = makeId('od', r, used);
  let placedMs: number;
  if (status === 'unpaid') placedMs = alignMinute(nowMs - r.int(5, 120) * MINUTE);
  else if (status === 'paid') placedMs = alignMinute(nowMs - r.int(10, 20 * 60) * MINUTE);
  else if (status === 'closed') placedMs = alignMinute(nowMs - r.int(2 * 24, 30 * 24) * HOUR - r.int(0, 59) * MINUTE);
  else if (status === 'shipped') {
    const shipped = alignMinute(nowMs - r.int(2, 60) * HOUR - r.int(0, 59) * MINUTE);
    placedMs = shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE;
    r.next(); // tracking number
    r.next();
  } else {
    const agoHours = status === 'refunding' ? r.int(24, 144) : r.chance(0.5) ? r.int(2, 160) : r.int(176, 480);
    const delivered = alignMinute(nowMs - agoHours * HOUR - r.int(0, 59) * MINUTE);
    const shipped = delivered - r.int(24, 96) * HOUR;
    placedMs = shipped - r.int(4, 30) * HOUR - r.int(0, 59) * MINUTE;
    r.next(); // tracking number
    r.next();
    r.next(); // opened
  }
  return { order_id, placedMs, order: null };
}
