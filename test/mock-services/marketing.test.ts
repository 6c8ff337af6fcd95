import { describe, it, expect } from 'vitest';
import { callService } from '../../mock-services/index.js';
import type { Coupon, World } from '../../mock-services/index.js';
import { ctxFor, dataOf, errOf, world } from './fixtures.js';

/** A world with a hand-written marketing setup around its `now`. */
function marketWorld(): World {
  const w = world(7, 'zh-CN');
  w.now = '2026-06-18T20:00:00+08:00';
  const [a, b] = w.products;
  a.category = 'beauty';
  b.category = 'food';
  const base = {
    threshold: 99,
    discount: 10,
    per_user_limit: 1,
    remaining: 5,
    members_only: false,
    valid_from: '2026-06-18T00:00:00+08:00',
    valid_to: '2026-06-19T00:00:00+08:00',
  };
  const coupons: Coupon[] = [
    { ...base, coupon_id: 'cp_all', name: '满99减10', scope: { kind: 'all' } },
    { ...base, coupon_id: 'cp_beauty', name: '美妆满99减10', scope: { kind: 'category', category: 'beauty' }, per_user_limit: 2 },
    { ...base, coupon_id: 'cp_itemb', name: '指定商品满99减10', scope: { kind: 'items', item_ids: [b.item_id] } },
    {
      ...base,
      coupon_id: 'cp_future',
      name: '明日券',
      valid_from: '2026-06-19T00:00:00+08:00',
      valid_to: '2026-06-20T00:00:00+08:00',
      scope: { kind: 'all' },
    },
    {
      ...base,
      coupon_id: 'cp_past',
      name: '昨日券',
      valid_from: '2026-06-16T00:00:00+08:00',
      valid_to: '2026-06-18T19:59:00+08:00',
      scope: { kind: 'all' },
    },
    { ...base, coupon_id: 'cp_members', name: '会员专享券', members_only: true, scope: { kind: 'all' } },
    { ...base, coupon_id: 'cp_empty', name: '抢光券', remaining: 0, scope: { kind: 'all' } },
    { ...base, coupon_id: 'cp_one', name: '尾券', remaining: 1, per_user_limit: 2, scope: { kind: 'all' } },
  ];
  w.coupons = coupons;
  w.flash_sales = [
    {
      flash_id: 'fs_1',
      item_id: a.item_id,
      price: 9.9,
      starts_at: '2026-06-18T19:50:00+08:00',
      ends_at: '2026-06-18T20:30:00+08:00',
      quantity: 100,
      sold: 60,
    },
  ];
  w.bundles = [{ bundle_id: 'bd_1', item_ids: [a.item_id, b.item_id], price: 99, description: '组合购买' }];
  w.gifts = [{ gift_id: 'gf_1', item_id: b.item_id, gift_name: '试吃装', remaining: 0 }];
  w.presales = [
    {
      presale_id: 'ps_1',
      item_id: b.item_id,
      deposit: 20,
      deposit_value: 50,
      final_payment_starts_at: '2026-06-20T20:00:00+08:00',
      ships_by: '2026-06-25T18:00:00+08:00',
    },
  ];
  w.viewers[0].membership = 'none';
  w.viewers[1].membership = 'vip';
  return w;
}

const couponView = (c: Coupon) => ({
  coupon_id: c.coupon_id,
  name: c.name,
  threshold: c.threshold,
  discount: c.discount,
  // A coupon that starts later or has run out says so in the listing itself.
  valid_from: c.valid_from,
  valid_to: c.valid_to,
  per_user_limit: c.per_user_limit,
  remaining: c.remaining,
  members_only: c.members_only,
});

describe('get_promotions', () => {
  it('without an item: every campaign of the room, as a whole value', () => {
    const w = marketWorld();
    const [a, b] = w.products;
    expect(dataOf(callService('get_promotions', {}, ctxFor(w)))).toEqual({
      coupons: w.coupons.map(couponView),
      flash_sales: [
        {
          flash_id: 'fs_1',
          item_id: a.item_id,
          price: 9.9,
          starts_at: '2026-06-18T19:50:00+08:00',
          ends_at: '2026-06-18T20:30:00+08:00',
          quantity: 100,
          remaining: 40,
        },
      ],
      bundles: [{ bundle_id: 'bd_1', item_ids: [a.item_id, b.item_id], price: 99, description: '组合购买' }],
      gifts: [{ gift_id: 'gf_1', item_id: b.item_id, gift_name: '试吃装', remaining: 0 }],
      presales: [
        {
          presale_id: 'ps_1',
          item_id: b.item_id,
          deposit: 20,
          deposit_value: 50,
          final_payment_starts_at: '2026-06-20T20:00:00+08:00',
          ships_by: '2026-06-25T18:00:00+08:00',
        },
      ],
    });
  });

  it('with an item: only campaigns whose scope covers it', () => {
    const w = marketWorld();
    const a = w.products[0];
    const out = dataOf(callService('get_promotions', { item_id: a.item_id }, ctxFor(w)));
    expect(out.coupons.map((c: { coupon_id: string }) => c.coupon_id)).toEqual([
      'cp_all',
      'cp_beauty',
      'cp_future',
      'cp_past',
      'cp_members',
      'cp_empty',
      'cp_one',
    ]);
    expect(out.flash_sales.map((f: { flash_id: string }) => f.flash_id)).toEqual(['fs_1']);
    expect(out.bundles.map((x: { bundle_id: string }) => x.bundle_id)).toEqual(['bd_1']);
    expect(out.gifts).toEqual([]);
    expect(out.presales).toEqual([]);
  });

  it('rejects bad arguments and unknown items', () => {
    const w = marketWorld();
    expect(errOf(callService('get_promotions', { item_id: 7 }, ctxFor(w)))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'item_id' });
    expect(errOf(callService('get_promotions', { item_id: 'it_nope' }, ctxFor(w)))).toEqual({ code: 'NOT_FOUND', field: 'item_id' });
  });
});

describe('get_coupon', () => {
  it('returns the full coupon; remaining accounts for coupons issued in this episode', () => {
    const w = marketWorld();
    const ctx = ctxFor(w, w.viewers[0].viewer_id);
    const expected = {
      coupon_id: 'cp_beauty',
      name: '美妆满99减10',
      threshold: 99,
      discount: 10,
      scope: { kind: 'category', category: 'beauty' },
      valid_from: '2026-06-18T00:00:00+08:00',
      valid_to: '2026-06-19T00:00:00+08:00',
      per_user_limit: 2,
      remaining: 5,
      members_only: false,
    };
    expect(dataOf(callService('get_coupon', { coupon_id: 'cp_beauty' }, ctx))).toEqual(expected);
    dataOf(callService('issue_coupon', { viewer_id: w.viewers[0].viewer_id, coupon_id: 'cp_beauty' }, ctx));
    expect(dataOf(callService('get_coupon', { coupon_id: 'cp_beauty' }, ctx))).toEqual({ ...expected, remaining: 4 });
  });

  it('rejects bad arguments and unknown coupons', () => {
    const w = marketWorld();
    expect(errOf(callService('get_coupon', {}, ctxFor(w)))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'coupon_id' });
    expect(errOf(callService('get_coupon', { coupon_id: 1 }, ctxFor(w)))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'coupon_id' });
    expect(errOf(callService('get_coupon', { coupon_id: 'cp_nope' }, ctxFor(w)))).toEqual({ code: 'NOT_FOUND', field: 'coupon_id' });
  });
});

describe('issue_coupon', () => {
  it('issues a valid coupon and appends it to the overlay', () => {
    const w = marketWorld();
    const v = w.viewers[0].viewer_id;
    const ctx = ctxFor(w, v);
    expect(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_all' }, ctx)).toEqual({
      ok: true,
      data: { issued: true, coupon_id: 'cp_all', viewer_id: v },
    });
    expect(ctx.state).toEqual({ issued_coupons: [{ viewer_id: v, coupon_id: 'cp_all' }], pushed_cards: [], handoffs: [], refusals: [] });
  });

  it('LIMIT_REACHED on the second issue when per_user_limit is 1; the overlay is unchanged', () => {
    const w = marketWorld();
    const v = w.viewers[0].viewer_id;
    const ctx = ctxFor(w, v);
    dataOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_all' }, ctx));
    expect(errOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_all' }, ctx))).toEqual({
      code: 'LIMIT_REACHED',
      field: 'coupon_id',
    });
    expect(ctx.state.issued_coupons).toEqual([{ viewer_id: v, coupon_id: 'cp_all' }]);
    // Another viewer still gets one: the limit is per user.
    dataOf(callService('issue_coupon', { viewer_id: w.viewers[1].viewer_id, coupon_id: 'cp_all' }, ctx));
  });

  it('per_user_limit 2 allows exactly two', () => {
    const w = marketWorld();
    const v = w.viewers[0].viewer_id;
    const ctx = ctxFor(w, v);
    dataOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_beauty' }, ctx));
    dataOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_beauty' }, ctx));
    expect(errOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_beauty' }, ctx))).toEqual({
      code: 'LIMIT_REACHED',
      field: 'coupon_id',
    });
  });

  it("LIMIT_REACHED when none remain, counting this episode's issues", () => {
    const w = marketWorld();
    const ctx = ctxFor(w);
    expect(errOf(callService('issue_coupon', { viewer_id: w.viewers[0].viewer_id, coupon_id: 'cp_empty' }, ctx))).toEqual({
      code: 'LIMIT_REACHED',
      field: 'coupon_id',
    });
    dataOf(callService('issue_coupon', { viewer_id: w.viewers[0].viewer_id, coupon_id: 'cp_one' }, ctx));
    expect(errOf(callService('issue_coupon', { viewer_id: w.viewers[1].viewer_id, coupon_id: 'cp_one' }, ctx))).toEqual({
      code: 'LIMIT_REACHED',
      field: 'coupon_id',
    });
  });

  it('CONFLICT for coupons not yet valid, expired, or members-only for a non-member', () => {
    const w = marketWorld();
    const ctx = ctxFor(w);
    const none = w.viewers[0].viewer_id;
    const vip = w.viewers[1].viewer_id;
    expect(errOf(callService('issue_coupon', { viewer_id: none, coupon_id: 'cp_future' }, ctx))).toEqual({
      code: 'CONFLICT',
      field: 'coupon_id',
    });
    expect(errOf(callService('issue_coupon', { viewer_id: none, coupon_id: 'cp_past' }, ctx))).toEqual({
      code: 'CONFLICT',
      field: 'coupon_id',
    });
    expect(errOf(callService('issue_coupon', { viewer_id: none, coupon_id: 'cp_members' }, ctx))).toEqual({
      code: 'CONFLICT',
      field: 'viewer_id',
    });
    expect(ctx.state.issued_coupons).toEqual([]);
    dataOf(callService('issue_coupon', { viewer_id: vip, coupon_id: 'cp_members' }, ctx));
  });

  it('rejects bad arguments and unknown ids', () => {
    const w = marketWorld();
    const ctx = ctxFor(w);
    const v = w.viewers[0].viewer_id;
    expect(errOf(callService('issue_coupon', { coupon_id: 'cp_all' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'viewer_id' });
    expect(errOf(callService('issue_coupon', { viewer_id: v }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'coupon_id' });
    expect(errOf(callService('issue_coupon', { viewer_id: v, coupon_id: null }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'coupon_id',
    });
    expect(errOf(callService('issue_coupon', { viewer_id: 'vw_nope', coupon_id: 'cp_all' }, ctx))).toEqual({
      code: 'NOT_FOUND',
      field: 'viewer_id',
    });
    expect(errOf(callService('issue_coupon', { viewer_id: v, coupon_id: 'cp_nope' }, ctx))).toEqual({
      code: 'NOT_FOUND',
      field: 'coupon_id',
    });
    expect(ctx.state.issued_coupons).toEqual([]);
  });

  it("the generator's guaranteed usable coupon can be issued in every world", () => {
    for (let seed = 0; seed < 30; seed++) {
      const w = world(seed, 'en');
      const ctx = ctxFor(w);
      const results = w.coupons.map((c) =>
        callService('issue_coupon', { viewer_id: w.viewers[0].viewer_id, coupon_id: c.coupon_id }, ctxFor(w)),
      );
      expect(results.some((r) => r.ok)).toBe(true);
      expect(ctx.state.issued_coupons).toEqual([]);
    }
  });
});

describe('push_link_card', () => {
  it('pushes the card and records the link number', () => {
    const w = world(7, 'zh-CN');
    const ctx = ctxFor(w);
    const p = w.products[3];
    expect(callService('push_link_card', { link_no: p.link_no }, ctx)).toEqual({
      ok: true,
      data: { pushed: true, link_no: p.link_no, title: p.title },
    });
    dataOf(callService('push_link_card', { link_no: 1 }, ctx));
    expect(ctx.state.pushed_cards).toEqual([p.link_no, 1]);
  });

  it('rejects bad arguments and unknown links without touching the overlay', () => {
    const w = world(7, 'zh-CN');
    const ctx = ctxFor(w);
    expect(errOf(callService('push_link_card', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('push_link_card', { link_no: '2' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('push_link_card', { link_no: -1 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('push_link_card', { link_no: 99 }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'link_no' });
    expect(ctx.state.pushed_cards).toEqual([]);
  });
});
