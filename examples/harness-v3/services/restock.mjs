// The restock service of examples/harness-v3 (docs/HARNESS.md "Stateful services"): answers
// subscribe_restock, bound to custom.restock in harness.yaml. It keeps the viewers' restock alerts in its
// own state (WorldState.custom.restock), so a task's answer key can expect the alert that was signed up.
// Deterministic: the same calls on the same room give the same answers and the same state.
export const initial_state = { subscriptions: [] };

function error(code, message, field) {
  return { ok: false, error: field ? { code, message, field } : { code, message } };
}

export default {
  name: 'restock',
  version: '1.0.0',
  initial_state,
  call(tool, args, ctx) {
    const product = ctx.world.products.find((p) => p.item_id === args.item_id);
    if (!product) return error('NOT_FOUND', `no product ${JSON.stringify(args.item_id)} in this room`, 'item_id');
    const sku_id = args.sku_id ?? null;
    const skus = sku_id === null ? product.skus : product.skus.filter((s) => s.sku_id === sku_id);
    if (skus.length === 0) return error('NOT_FOUND', `${product.item_id} has no SKU ${JSON.stringify(sku_id)}`, 'sku_id');
    if (skus.some((s) => s.stock > 0)) {
      return error('CONFLICT', `${sku_id ?? product.item_id} is in stock; no alert is needed`);
    }
    const subscriptions = ctx.custom_state.subscriptions;
    const same = (s) => s.viewer_id === ctx.viewer_id && s.item_id === product.item_id && s.sku_id === sku_id;
    if (subscriptions.some(same)) return error('CONFLICT', `this viewer is already signed up for ${sku_id ?? product.item_id}`);
    const subscription = { viewer_id: ctx.viewer_id, item_id: product.item_id, sku_id };
    // The note is what the agent may tell the viewer: signed up, told when it is back, no date.
    const note =
      ctx.locale === 'en'
        ? 'Restock alert signed up: the viewer is told when it is back in stock. No restock date is known.'
        : '已登记到货提醒：补货后会通知这位观众。补货时间未定。';
    return {
      ok: true,
      result: { subscribed: true, item_id: product.item_id, sku_id, note },
      state: { subscriptions: [...subscriptions, subscription] },
    };
  },
};
