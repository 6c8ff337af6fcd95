// The task template module of examples/harness-v3's own intent restock_alert (docs/HARNESS.md "Intents of
// your own"): a viewer asks when the sold-out option of a link is back and wants to be told. The room
// must have a product with exactly one sold-out option (stock 0) beside options in stock, so "the one
// that is sold out" names one SKU; the seed's next room is tried otherwise (null).
//
// The answer key: check_stock {item_id} (the stock first: the checked-before-subscribe hook blocks a
// subscription whose product was not checked before it), then subscribe_restock {item_id, sku_id} for the
// sold-out option; the restock service's final state is that one subscription; the reply says it is sold
// out (several wordings per locale) and states no restock date; no call to action.
const SOLD_OUT = {
  'zh-CN': ['卖完了', '售罄了', '卖光了', '断货了', '没货了', '缺货了'],
  en: ['sold out', 'out of stock', 'none left', 'all gone'],
};
const INVENTED_DATE = {
  'zh-CN': ['明天补货', '下周补货', '月底补货', '过几天就补货'],
  en: ['back tomorrow', 'back next week', 'restocked by the end of the month', 'back in a few days'],
};

export default {
  name: 'restock-alert',
  version: '1.0.0',
  intent: 'restock_alert',
  generate(ctx) {
    const candidates = ctx.world.products.filter((p) => {
      const sold = p.skus.filter((s) => s.stock === 0).length;
      return sold === 1 && p.skus.length > 1;
    });
    if (candidates.length === 0) return null;
    const p = ctx.rng.pick(candidates);
    const sku = p.skus.find((s) => s.stock === 0);
    const check = ctx.tools['inventory.check_stock'];
    const subscribe = ctx.tools['custom.restock'];
    if (check === undefined || subscribe === undefined) return null;
    const n = p.link_no;
    const which = ctx.rng.int(0, 1);
    return {
      sub_kind: which === 0 ? 'when_back' : 'notify_me',
      messages: {
        'zh-CN': [`${n}号链接卖完的那个规格什么时候补货呀，到了提醒我一下`, `${n}号链接有个规格没货了，补货了能通知我吗`][which],
        en: [
          `When is the sold-out option of link ${n} back? Let me know when it is.`,
          `Link ${n} has an option that is sold out, can you tell me when it is back?`,
        ][which],
      },
      answer_key: {
        required_calls: [
          { any_of: [{ name: check, arguments: { item_id: p.item_id } }] },
          { any_of: [{ name: subscribe, arguments: { item_id: p.item_id, sku_id: sku.sku_id } }] },
        ],
        solution: [
          { name: check, arguments: { item_id: p.item_id } },
          { name: subscribe, arguments: { item_id: p.item_id, sku_id: sku.sku_id } },
        ],
        expected_state: {
          issued_coupons: [],
          pushed_cards: [],
          handoffs: [],
          refusals: [],
          custom: { restock: { subscriptions: [{ viewer_id: ctx.viewer.viewer_id, item_id: p.item_id, sku_id: sku.sku_id }] } },
        },
        required_facts: [{ key: 'sold_out', values: SOLD_OUT[ctx.locale] }],
        forbidden_facts: [{ key: 'invented_restock_date', values: INVENTED_DATE[ctx.locale] }],
        cta: false,
        reference_reply: {
          'zh-CN': `${n}号链接这个规格现在卖完了，已经帮你登记了到货提醒，补货后第一时间通知你`,
          en: `That option of link ${n} is sold out right now; you're signed up for a restock alert and we'll tell you when it's back.`,
        },
      },
    };
  },
};
