// A stop hook of examples/harness-v3 (docs/HARNESS.md "Hook modules"), one the built-in kinds cannot
// state: a restock alert is signed up only for a product whose stock was checked first. Once
// params.subscribe was called, the final reply is sent back unless params.check had succeeded before it
// with the same params.field (the item id). Order and argument both matter. For each item subscribed,
// its last subscribe call is the one judged, so an agent that was sent back can check the stock and
// subscribe again (the service answers the repeat with CONFLICT, an already-made subscription).
export default {
  name: 'checked-before-subscribe',
  version: '1.0.0',
  stages: ['reply'],
  params: {
    type: 'object',
    properties: {
      check: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      subscribe: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      field: { type: 'string', minLength: 1 },
    },
    required: ['check', 'subscribe', 'field'],
    additionalProperties: false,
  },
  codes: {
    STOCK_NOT_CHECKED: {
      'zh-CN': '登记到货提醒之前，没有先查这个商品的库存',
      en: 'The restock alert was signed up before this product’s stock was checked',
    },
  },
  check(input, params) {
    const checked = new Set();
    const last = new Map(); // item -> whether its latest subscribe call came after a successful check
    for (const call of input.calls) {
      if (!call.accepted) continue;
      const value = call.arguments?.[params.field];
      if (call.tool === params.check && call.ok) checked.add(value);
      if (call.tool === params.subscribe) last.set(value, checked.has(value));
    }
    for (const [value, ok] of last) if (!ok) return [{ code: 'STOCK_NOT_CHECKED', evidence: String(value) }];
    return [];
  },
};
