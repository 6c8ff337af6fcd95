// Regression: the identifier rewriter once replaced the plain words "promotion" and "after-sales" in prose
// with renamed skill names; skill names are now rewritten only where the text marks them in backticks.
import { describe, expect, it } from 'vitest';
import { textRewriter } from '../../harness-variants/index.js';

const rewrite = textRewriter({
  tools: { get_product: 'query_item', load_skill: 'open_skill' },
  skills: { promotion: 'deals', 'product-qa': 'goods-qa' },
  fields: { item_id: 'goods_id', reason: 'cause' },
  nest: {},
  extra_params: {},
  decoys: [],
});

describe('textRewriter', () => {
  it('rewrites tool names and snake_case fields anywhere, skill names only in backticks', () => {
    expect(rewrite('Use get_product with item_id, then load_skill `promotion`; mention the promotion.')).toBe(
      'Use query_item with goods_id, then open_skill `deals`; mention the promotion.',
    );
    expect(rewrite('先调用 `get_product`（带上 item_id），再用 `product-qa` 回复')).toBe(
      '先调用 `query_item`（带上 goods_id），再用 `goods-qa` 回复',
    );
  });

  it('respects identifier boundaries and leaves plain words and unknown names alone', () => {
    expect(rewrite('get_product_v0 and my_get_product stay; get_product. ends a sentence')).toBe(
      'get_product_v0 and my_get_product stay; query_item. ends a sentence',
    );
    expect(rewrite('the reason is after-sales policy, product-qa in prose')).toBe('the reason is after-sales policy, product-qa in prose');
    expect(rewrite('`unknown` and `two words item_id`')).toBe('`unknown` and `two words goods_id`');
  });

  it('is the identity when nothing was renamed', () => {
    const id = textRewriter({ tools: {}, skills: {}, fields: {}, nest: {}, extra_params: {}, decoys: [] });
    expect(id('get_product `promotion`')).toBe('get_product `promotion`');
  });
});
