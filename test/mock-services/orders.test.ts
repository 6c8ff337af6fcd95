import { describe, it, expect } from 'vitest';
import { callService, returnEligibility } from '../../mock-services/index.js';
import type { Order, World } from '../../mock-services/index.js';
import { ctxFor, dataOf, errOf, world } from './fixtures.js';

const NOW = '2026-06-18T20:00:00+08:00';

/** A world whose first viewer owns hand-written orders; `now` is fixed. */
function orderWorld(locale: 'zh-CN' | 'en' = 'zh-CN'): { w: World; me: string; other: string } {
  const w = world(7, locale);
  w.now = NOW;
  const me = w.viewers[0].viewer_id;
  const other = w.viewers[1].viewer_id;
  w.orders = [];
  for (const v of w.viewers) v.order_ids = [];
  return { w, me, other };
}

function addOrder(w: World, o: Partial<Order> & { order_id: string; viewer_id: string; status: Order['status'] }): Order {
  const p = w.products[0];
  const order: Order = {
    item_id: p.item_id,
    sku_id: p.skus[0].sku_id,
    quantity: 1,
    paid: p.skus[0].price,
    placed_at: '2026-06-01T10:00:00+08:00',
    opened: false,
    ...o,
  };
  w.orders.push(order);
  w.viewers.find((v) => v.viewer_id === o.viewer_id)?.order_ids.push(order.order_id);
  return order;
}

describe('list_orders', () => {
  it("lists the viewer's own orders, newest first", () => {
    const { w, me } = orderWorld();
    const p = w.products[0];
    addOrder(w, { order_id: 'od_old', viewer_id: me, status: 'delivered', placed_at: '2026-06-01T10:00:00+08:00' });
    addOrder(w, { order_id: 'od_new', viewer_id: me, status: 'unpaid', placed_at: '2026-06-18T19:00:00+08:00' });
    expect(dataOf(callService('list_orders', { viewer_id: me }, ctxFor(w, me)))).toEqual({
      orders: [
        { order_id: 'od_new', item_id: p.item_id, title: p.title, status: 'unpaid', placed_at: '2026-06-18T19:00:00+08:00' },
        { order_id: 'od_old', item_id: p.item_id, title: p.title, status: 'delivered', placed_at: '2026-06-01T10:00:00+08:00' },
      ],
    });
  });

  it('a viewer without orders gets an empty list', () => {
    const { w, me } = orderWorld();
    expect(dataOf(callService('list_orders', { viewer_id: me }, ctxFor(w, me)))).toEqual({ orders: [] });
  });

  it("rejects bad arguments, unknown viewers and other viewers' orders", () => {
    const { w, me, other } = orderWorld();
    const ctx = ctxFor(w, me);
    expect(errOf(callService('list_orders', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'viewer_id' });
    expect(errOf(callService('list_orders', { viewer_id: 12 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'viewer_id' });
    expect(errOf(callService('list_orders', { viewer_id: 'vw_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'viewer_id' });
    expect(errOf(callService('list_orders', { viewer_id: other }, ctx))).toEqual({ code: 'PERMISSION_DENIED', field: 'viewer_id' });
  });

  it('generated worlds: every viewer sees exactly their orders', () => {
    const w = world(5, 'zh-CN');
    for (const v of w.viewers) {
      const out = dataOf(callService('list_orders', { viewer_id: v.viewer_id }, ctxFor(w, v.viewer_id)));
      expect(out.orders.map((o: { order_id: string }) => o.order_id)).toEqual(v.order_ids.slice().reverse());
    }
  });
});

describe('get_order_status', () => {
  it('a shipped order has shipping fields and the carrier; an unpaid one has none', () => {
    const { w, me } = orderWorld();
    addOrder(w, {
      order_id: 'od_s',
      viewer_id: me,
      status: 'shipped',
      placed_at: '2026-06-17T10:00:00+08:00',
      shipped_at: '2026-06-18T09:00:00+08:00',
      tracking_no: 'SF123456789012',
    });
    addOrder(w, { order_id: 'od_u', viewer_id: me, status: 'unpaid', placed_at: '2026-06-18T19:00:00+08:00' });
    const ctx = ctxFor(w, me);
    expect(dataOf(callService('get_order_status', { order_id: 'od_s' }, ctx))).toEqual({
      order_id: 'od_s',
      status: 'shipped',
      placed_at: '2026-06-17T10:00:00+08:00',
      shipped_at: '2026-06-18T09:00:00+08:00',
      tracking_no: 'SF123456789012',
      carrier: w.products[0].shipping.carrier,
    });
    expect(dataOf(callService('get_order_status', { order_id: 'od_u' }, ctx))).toEqual({
      order_id: 'od_u',
      status: 'unpaid',
      placed_at: '2026-06-18T19:00:00+08:00',
    });
  });

  it("rejects bad arguments, unknown orders and other viewers' orders", () => {
    const { w, me, other } = orderWorld();
    addOrder(w, { order_id: 'od_x', viewer_id: other, status: 'paid' });
    const ctx = ctxFor(w, me);
    expect(errOf(callService('get_order_status', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'order_id' });
    expect(errOf(callService('get_order_status', { order_id: 5 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'order_id' });
    expect(errOf(callService('get_order_status', { order_id: 'od_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'order_id' });
    expect(errOf(callService('get_order_status', { order_id: 'od_x' }, ctx))).toEqual({ code: 'PERMISSION_DENIED', field: 'order_id' });
  });
});

describe('check_return_eligibility', () => {
  const delivered = (daysAgo: number): Partial<Order> => {
    const d = Date.parse(NOW) - daysAgo * 86_400_000;
    return { shipped_at: '2026-05-20T10:00:00+08:00', delivered_at: new Date(d).toISOString(), tracking_no: 'SF1' };
  };

  it('a delivered, unopened order within 7 days is ELIGIBLE with its deadline, as a whole value', () => {
    const { w, me } = orderWorld();
    const p = w.products[0];
    p.after_sales.seven_day_return = true;
    p.after_sales.return_exclusions = [];
    p.after_sales.return_shipping_insurance = true;
    addOrder(w, {
      order_id: 'od_ok',
      viewer_id: me,
      status: 'delivered',
      shipped_at: '2026-06-14T10:00:00+08:00',
      delivered_at: '2026-06-15T12:30:00+08:00',
      tracking_no: 'SF1',
    });
    expect(dataOf(callService('check_return_eligibility', { order_id: 'od_ok' }, ctxFor(w, me)))).toEqual({
      order_id: 'od_ok',
      eligible: true,
      reason_code: 'ELIGIBLE',
      reason: '在七天无理由退货期内，可以申请退货',
      deadline: '2026-06-22T12:30:00+08:00',
      return_shipping_insurance: true,
    });
  });

  it("reasons are written in the world's locale", () => {
    const { w, me } = orderWorld('en');
    addOrder(w, { order_id: 'od_u', viewer_id: me, status: 'unpaid' });
    expect(dataOf(callService('check_return_eligibility', { order_id: 'od_u' }, ctxFor(w, me))).reason).toBe(
      'Not paid yet; nothing to return, the order can simply be cancelled',
    );
  });

  it('covers every reason code', () => {
    const { w, me } = orderWorld();
    const [general, food, intimate, cup, noReturn] = w.products;
    general.after_sales = { ...general.after_sales, seven_day_return: true, return_exclusions: [] };
    food.after_sales = { ...food.after_sales, seven_day_return: true, return_exclusions: ['食品拆封后不支持七天无理由退货'] };
    intimate.after_sales = { ...intimate.after_sales, seven_day_return: true, return_exclusions: ['贴身衣物拆封后因卫生原因不支持退货'] };
    cup.after_sales = { ...cup.after_sales, seven_day_return: true, return_exclusions: ['定制刻字款不支持七天无理由退货'] };
    cup.skus = [
      { sku_id: 'sk_std', spec: { 款式: '标准款' }, spec_text: '奶白 标准款', price: 69, stock: 5 },
      { sku_id: 'sk_cus', spec: { 款式: '定制刻字款' }, spec_text: '奶白 定制刻字款', price: 89, stock: 5 },
    ];
    noReturn.after_sales = { ...noReturn.after_sales, seven_day_return: false, return_exclusions: [] };
    const cases: [Partial<Order>, string, boolean][] = [
      [{ status: 'unpaid' }, 'NOT_PAID', false],
      [{ status: 'paid' }, 'NOT_SHIPPED', true],
      [{ status: 'shipped', shipped_at: '2026-06-18T08:00:00+08:00', tracking_no: 'SF1' }, 'NOT_DELIVERED', false],
      [{ status: 'closed' }, 'ORDER_CLOSED', false],
      [{ status: 'refunding', ...delivered(2) }, 'ALREADY_REFUNDING', false],
      [{ status: 'delivered', ...delivered(3) }, 'ELIGIBLE', true],
      [{ status: 'delivered', ...delivered(3), opened: true }, 'ELIGIBLE', true], // opened, but no exclusion applies
      [{ status: 'delivered', ...delivered(8) }, 'WINDOW_EXPIRED', false],
      [{ status: 'delivered', ...delivered(3), item_id: noReturn.item_id, sku_id: noReturn.skus[0].sku_id }, 'NO_SEVEN_DAY_RETURN', false],
      [
        { status: 'delivered', ...delivered(3), item_id: food.item_id, sku_id: food.skus[0].sku_id, opened: true },
        'EXCLUDED_OPENED',
        false,
      ],
      [{ status: 'delivered', ...delivered(3), item_id: food.item_id, sku_id: food.skus[0].sku_id, opened: false }, 'ELIGIBLE', true],
      [
        { status: 'delivered', ...delivered(3), item_id: intimate.item_id, sku_id: intimate.skus[0].sku_id, opened: true },
        'EXCLUDED_HYGIENE',
        false,
      ],
      [{ status: 'delivered', ...delivered(3), item_id: cup.item_id, sku_id: 'sk_cus' }, 'EXCLUDED_CUSTOM', false],
      [{ status: 'delivered', ...delivered(3), item_id: cup.item_id, sku_id: 'sk_std' }, 'ELIGIBLE', true],
    ];
    const ctx = ctxFor(w, me);
    cases.forEach(([o, code, eligible], i) => {
      addOrder(w, { order_id: `od_${i}`, viewer_id: me, ...o, status: o.status as Order['status'] });
      const out = dataOf(callService('check_return_eligibility', { order_id: `od_${i}` }, ctx));
      expect([i, out.reason_code, out.eligible]).toEqual([i, code, eligible]);
      // A deadline is given only where it is the answer: the date to return by, or the date the window closed.
      expect('deadline' in out).toBe(o.delivered_at !== undefined && (eligible || code === 'WINDOW_EXPIRED'));
    });
  });

  it('the window boundary: exactly 7 days is still eligible, one minute later is not', () => {
    const { w, me } = orderWorld();
    const p = w.products[0];
    p.after_sales = { ...p.after_sales, seven_day_return: true, return_exclusions: [] };
    const o = addOrder(w, {
      order_id: 'od_b',
      viewer_id: me,
      status: 'delivered',
      shipped_at: '2026-06-10T10:00:00+08:00',
      delivered_at: '2026-06-11T20:00:00+08:00',
    });
    expect(returnEligibility(o, p, NOW)).toEqual({ eligible: true, code: 'ELIGIBLE', deadline: NOW });
    expect(returnEligibility(o, p, '2026-06-18T20:01:00+08:00')).toEqual({ eligible: false, code: 'WINDOW_EXPIRED', deadline: NOW });
  });

  it("rejects bad arguments, unknown orders and other viewers' orders", () => {
    const { w, me, other } = orderWorld();
    addOrder(w, { order_id: 'od_x', viewer_id: other, status: 'paid' });
    const ctx = ctxFor(w, me);
    expect(errOf(callService('check_return_eligibility', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'order_id' });
    expect(errOf(callService('check_return_eligibility', { order_id: [] }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'order_id' });
    expect(errOf(callService('check_return_eligibility', { order_id: 'od_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'order_id' });
    expect(errOf(callService('check_return_eligibility', { order_id: 'od_x' }, ctx))).toEqual({
      code: 'PERMISSION_DENIED',
      field: 'order_id',
    });
  });

  it('generated worlds yield a spread of reason codes', () => {
    const codes = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const w = world(seed, 'zh-CN');
      for (const o of w.orders)
        codes.add(dataOf(callService('check_return_eligibility', { order_id: o.order_id }, ctxFor(w, o.viewer_id))).reason_code);
    }
    for (const c of [
      'ELIGIBLE',
      'NOT_SHIPPED',
      'NOT_PAID',
      'NOT_DELIVERED',
      'ALREADY_REFUNDING',
      'ORDER_CLOSED',
      'WINDOW_EXPIRED',
      'EXCLUDED_OPENED',
    ])
      expect(codes).toContain(c);
  });
});
