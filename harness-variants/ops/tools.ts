/**
 * Tool operators: names, parameters, descriptions, types, order, decoys, nesting, result fields, and how
 * the tools are documented in the prompt.
 */
import type { HarnessTransform } from '../types.js';
import { freshFrom, poolFor, share, usedNames } from './kit.js';
import type { SplitPool } from './kit.js';

/** Semantic synonyms per canonical tool; the eval half is never used in training. */
const TOOL_SYNONYMS: Record<string, SplitPool<string>> = {
  get_product: { train: ['query_item', 'fetch_product_detail', 'item_info'], eval: ['lookup_goods', 'product_profile'] },
  search_products: { train: ['find_items', 'product_search'], eval: ['goods_finder', 'catalog_query'] },
  check_stock: { train: ['query_inventory', 'stock_lookup'], eval: ['inventory_status', 'sku_availability'] },
  get_promotions: { train: ['list_promotions', 'query_campaigns'], eval: ['marketing_offers', 'deal_center'] },
  get_coupon: { train: ['coupon_detail', 'query_coupon'], eval: ['voucher_info', 'lookup_voucher'] },
  issue_coupon: { train: ['grant_coupon', 'send_coupon'], eval: ['dispatch_voucher', 'award_voucher'] },
  push_link_card: { train: ['show_product_card', 'pin_item_link'], eval: ['display_cart_link', 'surface_link_card'] },
  list_orders: { train: ['query_orders', 'user_orders'], eval: ['order_history', 'buyer_orders'] },
  get_order_status: { train: ['order_status', 'track_order'], eval: ['shipment_progress', 'order_tracker'] },
  check_return_eligibility: { train: ['return_check', 'can_return'], eval: ['refund_eligibility', 'aftersale_check'] },
  search_faq: { train: ['faq_lookup', 'query_faq'], eval: ['knowledge_search', 'help_center_query'] },
  refuse_request: { train: ['decline_request', 'compliance_refusal'], eval: ['policy_block', 'safe_decline'] },
  handoff_to_human: { train: ['transfer_to_agent', 'escalate_human'], eval: ['human_support', 'route_to_staff'] },
  load_skill: { train: ['open_skill', 'read_skill'], eval: ['fetch_playbook', 'get_skill_doc'] },
};

/** tools.rename.semantic: rename some tools to meaningful synonyms. */
const renameSemantic: HarnessTransform = {
  name: 'tools.rename.semantic',
  family: 'tools',
  description: 'rename tools to semantic synonyms (get_product -> query_item)',
  apply(draft, ctx) {
    const used = usedNames(draft);
    const names = draft.harness.tools.map((t) => t.function.name).filter((n) => TOOL_SYNONYMS[n] && draft.tables.tools[n] === undefined);
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const fresh = freshFrom(ctx.rng, poolFor(TOOL_SYNONYMS[n], ctx.split), used);
      if (fresh) draft.tables.tools[n] = fresh;
    }
  },
};

/** Tool operators, in application order. */
export const TOOL_OPS: readonly HarnessTransform[] = [renameSemantic];
