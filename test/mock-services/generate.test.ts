import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { generateWorld, CATEGORIES, exclusionCodesOf, isCustomSku } from '../../mock-services/index.js';
import type { World } from '../../mock-services/index.js';

const ms = (iso: string): number => Date.parse(iso);
const SEEDS = Array.from({ length: 200 }, (_, i) => i * 7919 + 1);

describe('generateWorld determinism', () => {
  it('same seed and locale -> deep-equal world with byte-identical JSON', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom('zh-CN' as const, 'en' as const), (seed, locale) => {
        const a = generateWorld(seed, locale);
        const b = generateWorld(seed, locale);
        expect(b).toEqual(a);
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      }),
      { numRuns: 50 },
    );
  });

  it('different seeds give different worlds', () => {
    const jsons = new Set(SEEDS.slice(0, 50).map((s) => JSON.stringify(generateWorld(s, 'zh-CN'))));
    expect(jsons.size).toBe(50);
  });

  it('the two locales share structure (same ids, prices, stock) and differ only in text', () => {
    const zh = generateWorld(42, 'zh-CN');
    const en = generateWorld(42, 'en');
    const shape = (w: World) =>
      w.products.map((p) => [
        p.item_id,
        p.link_no,
        p.category,
        p.list_price,
        p.live_price,
        p.skus.map((s) => [s.sku_id, s.price, s.stock]),
      ]);
    expect(shape(en)).toEqual(shape(zh));
    expect(en.orders.map((o) => o.order_id)).toEqual(zh.orders.map((o) => o.order_id));
    expect(en.products[0].title).not.toBe(zh.products[0].title);
  });

  it('does not depend on the wall clock: now is a 2026 instant at 20:xx +08:00', () => {
    for (const s of SEEDS.slice(0, 40)) {
      const w = generateWorld(s, 'zh-CN');
      expect(w.now).toMatch(/^2026-\d\d-\d\dT20:[0-5][05]:00\+08:00$/);
    }
    // Logged, never asserted: timing is a benchmark matter (CONTRIBUTING.md "Tests prove behaviour").
    const t0 = performance.now();
    for (let i = 0; i < 500; i++) generateWorld(i, i % 2 === 0 ? 'zh-CN' : 'en');
    console.log(`generateWorld: ${((performance.now() - t0) / 500).toFixed(3)} ms/world (under vitest transform)`);
  });
});

describe('a world builds its orders on first read', () => {
  const KEYS = ['seed', 'locale', 'now', 'room', 'products', 'coupons', 'flash_sales', 'bundles', 'gifts', 'presales', 'viewers', 'orders'];

  it('orders read first or last, the world is the same: keys in order, JSON, spread, structured clone, assignment', () => {
    for (const s of SEEDS.slice(0, 60)) {
      for (const locale of ['zh-CN', 'en'] as const) {
        const viaJson = generateWorld(s, locale);
        const json = JSON.stringify(viaJson);
        expect(Object.keys(viaJson)).toEqual(KEYS);
        const ordersFirst = generateWorld(s, locale);
        const orders = ordersFirst.orders;
        expect(ordersFirst.orders).toBe(orders);
        expect(JSON.stringify(ordersFirst)).toBe(json);
        expect(Object.keys(ordersFirst)).toEqual(KEYS);
        expect(Object.getOwnPropertyDescriptor(ordersFirst, 'orders')).toMatchObject({ enumerable: true, configurable: true });
        expect(JSON.stringify({ ...generateWorld(s, locale) })).toBe(json);
        expect(JSON.stringify(structuredClone(generateWorld(s, locale)))).toBe(json);
        // Every viewer's order ids name its orders, oldest first, as the viewers were drawn.
        for (const v of viaJson.viewers) expect(viaJson.orders.filter((o) => o.viewer_id === v.viewer_id).map((o) => o.order_id).sort()).toEqual([...v.order_ids].sort());
        const frozen = Object.freeze(generateWorld(s, locale));
        expect(JSON.stringify(frozen)).toBe(json);
        const assigned = generateWorld(s, locale);
        assigned.orders = [];
        expect(assigned.orders).toEqual([]);
        expect(Object.keys(assigned)).toEqual(KEYS);
      }
    }
  });
});

describe('generateWorld invariants over 200 seeds', () => {
  const worlds = SEEDS.flatMap((s) => [generateWorld(s, 'zh-CN'), generateWorld(s, 'en')]);

  it('lineup: 8-20 products, link numbers exactly 1..N, every category, unique ids', () => {
    for (const w of worlds) {
      const n = w.products.length;
      expect(n).toBeGreaterThanOrEqual(8);
      expect(n).toBeLessThanOrEqual(20);
      expect(w.products.map((p) => p.link_no)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(new Set(w.products.map((p) => p.category))).toEqual(new Set(CATEGORIES));
      const ids = [
        ...w.products.map((p) => p.item_id),
        ...w.products.flatMap((p) => p.skus.map((s) => s.sku_id)),
        ...w.products.flatMap((p) => p.faq.map((f) => f.faq_id)),
        ...w.coupons.map((c) => c.coupon_id),
        ...w.viewers.map((v) => v.viewer_id),
        ...w.orders.map((o) => o.order_id),
      ];
      expect(new Set(ids).size).toBe(ids.length);
      expect(w.room.current_link).toBeGreaterThanOrEqual(1);
      expect(w.room.current_link).toBeLessThanOrEqual(n);
      expect(ms(w.room.started_at)).toBeLessThan(ms(w.now));
    }
  });

  it('prices: two decimals, 0 < live < list, SKU prices at or above the live price, 1-6 SKUs, at most 5 FAQ', () => {
    const twoDecimals = (x: number) => Math.abs(x * 100 - Math.round(x * 100)) < 1e-6;
    const bad: string[] = [];
    for (const w of worlds) {
      for (const p of w.products) {
        const where = `${w.seed}/${w.locale}/${p.item_id}`;
        if (!(p.live_price > 0 && p.live_price < p.list_price)) bad.push(`${where}: live ${p.live_price} list ${p.list_price}`);
        if (!twoDecimals(p.live_price) || !twoDecimals(p.list_price) || !p.skus.every((s) => twoDecimals(s.price)))
          bad.push(`${where}: more than two decimals`);
        if (p.skus.length < 1 || p.skus.length > 6) bad.push(`${where}: ${p.skus.length} SKUs`);
        if (Math.min(...p.skus.map((s) => s.price)) !== p.live_price) bad.push(`${where}: cheapest SKU is not the live price`);
        // 2-5 drawn; an FAQ that would contradict the item (returns it is not sold with, a shade it is not
        // sold in) is dropped, so a few keep fewer.
        if (p.faq.length > 5) bad.push(`${where}: ${p.faq.length} FAQ`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('status agrees with stock; sold-out, low and presale cases all occur across seeds', () => {
    let soldOutSku = 0;
    let lowSku = 0;
    let soldOutProduct = 0;
    let presale = 0;
    for (const w of worlds) {
      for (const p of w.products) {
        const allZero = p.skus.every((s) => s.stock === 0);
        expect(p.status === 'sold_out').toBe(allZero);
        for (const s of p.skus) {
          if (s.stock === 0) soldOutSku++;
          else if (s.stock <= 10) lowSku++;
        }
        if (p.status === 'sold_out') soldOutProduct++;
        if (p.status === 'presale') presale++;
      }
      expect(w.presales.length).toBeLessThanOrEqual(1);
      for (const s of w.presales) {
        expect(w.products.find((p) => p.item_id === s.item_id)?.status).toBe('presale');
        expect(s.deposit_value).toBeGreaterThan(s.deposit);
        expect(ms(s.final_payment_starts_at)).toBeGreaterThan(ms(w.now));
        expect(ms(s.ships_by)).toBeGreaterThan(ms(s.final_payment_starts_at));
      }
    }
    expect(soldOutSku).toBeGreaterThan(0);
    expect(lowSku).toBeGreaterThan(0);
    expect(soldOutProduct).toBeGreaterThan(0);
    expect(presale).toBeGreaterThan(0);
  });

  it('regulatory kinds follow the category; at most one medical device', () => {
    const allowed: Record<string, string[]> = {
      apparel: ['general'],
      home: ['general', 'medical_device'],
      electronics: ['general', 'medical_device'],
      food: ['food'],
      health_food: ['health_food'],
      beauty: ['cosmetic', 'special_cosmetic'],
    };
    const kinds = new Set<string>();
    for (const w of worlds) {
      for (const p of w.products) {
        expect(allowed[p.category]).toContain(p.regulatory_kind);
        kinds.add(p.regulatory_kind);
      }
      expect(w.products.filter((p) => p.regulatory_kind === 'medical_device').length).toBeLessThanOrEqual(1);
    }
    expect(kinds).toEqual(new Set(['general', 'food', 'health_food', 'cosmetic', 'special_cosmetic', 'medical_device']));
  });

  it('after-sales: food and cosmetics with seven-day returns carry their opened exclusions, items without them none; shipping values are from the allowed sets', () => {
    let custom = 0;
    let without = 0;
    for (const w of worlds) {
      for (const p of w.products) {
        const codes = exclusionCodesOf(p);
        if (!p.after_sales.seven_day_return) {
          // An exception to a rule the item is not sold under would contradict it.
          expect(p.after_sales.return_exclusions).toEqual([]);
          without++;
          continue;
        }
        if (p.category === 'food' || p.category === 'health_food') expect(codes).toContain('opened_food');
        if (p.category === 'beauty') expect(codes).toContain('used_cosmetic');
        expect([0, 7, 15]).toContain(p.after_sales.price_protection_days);
        expect([24, 48, 72]).toContain(p.shipping.ship_within_hours);
        if (p.skus.some(isCustomSku)) custom++;
      }
    }
    expect(custom).toBeGreaterThan(0);
    expect(without).toBeGreaterThan(0);
  });

  it('coupons: 2-5, windows ordered, at least one usable now; expired, upcoming, exhausted and members-only all occur', () => {
    const seen = { expired: 0, upcoming: 0, exhausted: 0, members: 0, items: 0, category: 0, all: 0 };
    for (const w of worlds) {
      const now = ms(w.now);
      expect(w.coupons.length).toBeGreaterThanOrEqual(2);
      expect(w.coupons.length).toBeLessThanOrEqual(5);
      for (const c of w.coupons) {
        expect(ms(c.valid_from)).toBeLessThan(ms(c.valid_to));
        expect(c.discount).toBeGreaterThan(0);
        expect(c.threshold === 0 || c.threshold > c.discount).toBe(true);
        expect([1, 2]).toContain(c.per_user_limit);
        if (ms(c.valid_to) < now) seen.expired++;
        if (ms(c.valid_from) > now) seen.upcoming++;
        if (c.remaining === 0) seen.exhausted++;
        if (c.members_only) seen.members++;
        seen[c.scope.kind]++;
      }
      const usable = w.coupons.filter((c) => ms(c.valid_from) <= now && now <= ms(c.valid_to) && c.remaining > 0 && !c.members_only);
      expect(usable.length).toBeGreaterThan(0);
      // campaign ids point at real campaigns
      const known = new Set([
        ...w.coupons.map((c) => c.coupon_id),
        ...w.flash_sales.map((f) => f.flash_id),
        ...w.bundles.map((b) => b.bundle_id),
        ...w.gifts.map((g) => g.gift_id),
        ...w.presales.map((s) => s.presale_id),
      ]);
      for (const p of w.products) for (const id of p.campaign_ids) expect(known.has(id)).toBe(true);
    }
    for (const v of Object.values(seen)) expect(v).toBeGreaterThan(0);
  });

  it('flash sales, bundles and gifts respect their bounds', () => {
    for (const w of worlds) {
      expect(w.flash_sales.length).toBeLessThanOrEqual(2);
      expect(w.bundles.length).toBeLessThanOrEqual(2);
      expect(w.gifts.length).toBeLessThanOrEqual(3);
      for (const f of w.flash_sales) {
        const p = w.products.find((x) => x.item_id === f.item_id);
        expect(p?.status).toBe('on_sale');
        expect(f.price).toBeLessThan(p?.live_price ?? 0);
        expect(ms(f.starts_at)).toBeLessThan(ms(f.ends_at));
        expect(f.sold).toBeGreaterThanOrEqual(0);
        expect(f.sold).toBeLessThanOrEqual(f.quantity);
      }
      for (const b of w.bundles) {
        const sum = b.item_ids.reduce((acc, id) => acc + (w.products.find((p) => p.item_id === id)?.live_price ?? 0), 0);
        expect(b.item_ids.length).toBe(2);
        expect(b.price).toBeLessThan(sum);
      }
      for (const g of w.gifts) expect(g.remaining).toBeGreaterThanOrEqual(0);
    }
  });

  it('viewers and orders: 5-20 viewers, 0-4 orders each, every time before now and in causal order', () => {
    const statuses = new Set<string>();
    let withinWindow = 0;
    let beyondWindow = 0;
    for (const w of worlds) {
      const now = ms(w.now);
      expect(w.viewers.length).toBeGreaterThanOrEqual(5);
      expect(w.viewers.length).toBeLessThanOrEqual(20);
      for (const v of w.viewers) {
        expect(v.order_ids.length).toBeLessThanOrEqual(4);
        for (const id of v.order_ids) expect(w.orders.find((o) => o.order_id === id)?.viewer_id).toBe(v.viewer_id);
      }
      for (const o of w.orders) {
        statuses.add(o.status);
        const p = w.products.find((x) => x.item_id === o.item_id);
        expect(p?.skus.some((s) => s.sku_id === o.sku_id)).toBe(true);
        expect(ms(o.placed_at)).toBeLessThan(now);
        const shipped = ['shipped', 'delivered', 'refunding'].includes(o.status);
        const delivered = ['delivered', 'refunding'].includes(o.status);
        expect(o.shipped_at !== undefined).toBe(shipped);
        expect(o.tracking_no !== undefined).toBe(shipped);
        expect(o.delivered_at !== undefined).toBe(delivered);
        if (o.shipped_at !== undefined) expect(ms(o.shipped_at)).toBeGreaterThan(ms(o.placed_at));
        if (o.delivered_at !== undefined) {
          expect(ms(o.delivered_at)).toBeGreaterThan(ms(o.shipped_at as string));
          expect(ms(o.delivered_at)).toBeLessThan(now);
          if (now - ms(o.delivered_at) < 7 * 86_400_000) withinWindow++;
          else beyondWindow++;
        }
        if (!delivered) expect(o.opened).toBe(false);
      }
    }
    expect(statuses).toEqual(new Set(['unpaid', 'paid', 'shipped', 'delivered', 'refunding', 'closed']));
    expect(withinWindow).toBeGreaterThan(0);
    expect(beyondWindow).toBeGreaterThan(0);
  });

  it('en worlds are written in ASCII (titles, brands, attributes, FAQ, nicknames)', () => {
    const bad: string[] = [];
    for (const w of worlds.filter((x) => x.locale === 'en')) {
      const texts = [
        ...w.products.flatMap((p) => [
          p.title,
          p.brand,
          ...Object.keys(p.attributes),
          ...Object.values(p.attributes),
          ...p.skus.map((s) => s.spec_text),
          ...p.faq.flatMap((f) => [f.question, f.answer]),
          ...p.after_sales.return_exclusions,
          p.shipping.carrier,
          p.shipping.ships_from,
        ]),
        ...w.coupons.map((c) => c.name),
        ...w.viewers.map((v) => v.nickname),
        w.room.persona.name,
      ];
      for (const t of texts) if (!/^[\x20-\x7e]+$/.test(t)) bad.push(t);
    }
    expect(bad).toEqual([]);
  });

  it('zh worlds use Chinese titles and FAQ', () => {
    for (const w of worlds.filter((x) => x.locale === 'zh-CN')) {
      for (const p of w.products) {
        expect(p.title).toMatch(/[\u4e00-\u9fff]/);
        for (const f of p.faq) expect(f.question).toMatch(/[\u4e00-\u9fff]/);
      }
    }
  });

  it('generated text avoids what the reply hooks forbid (it may be repeated on air)', () => {
    const banned = /最|第一|唯一|国家级|100%|治疗|治愈|降血压|保证|包赔|免单|微信|QQ|\bbest\b|\bcure\b|\btreat|guarantee/i;
    const bad: string[] = [];
    for (const w of worlds) {
      for (const p of w.products) {
        const texts = [p.title, ...Object.values(p.attributes), ...p.faq.flatMap((f) => [f.question, f.answer])];
        for (const t of texts) {
          if (banned.test(t)) bad.push(t);
          // Whitening words only on registered special cosmetics.
          if (p.regulatory_kind !== 'special_cosmetic' && /美白|祛斑/.test(t)) bad.push(t);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});
