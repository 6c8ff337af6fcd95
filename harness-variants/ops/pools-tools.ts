/**
 * Data of the tool operators: parameter and result-field name pools, styles and decoy tools. Wordings
 * of a harness's own tools (synonyms, description paraphrases) are data of its directory:
 * `paraphrases.yaml`. Every pool has a training half and a held-out half (`SplitPool`); the two halves
 * never share an entry, so the `eval` preset meets names and wordings that training never showed (the
 * tests assert the disjointness).
 */
import type { Locale } from '../../protocol/domain.js';
import type { SplitPool } from './kit.js';

/** Text in both harness locales. */
export type Localized = Readonly<Record<Locale, string>>;

/** Every canonical parameter name of the base tools (tool order of harness/tools). */
export const CANONICAL_PARAMS: readonly string[] = [
  'link_no',
  'item_id',
  'query',
  'category',
  'sku_id',
  'coupon_id',
  'viewer_id',
  'order_id',
  'question',
  'note',
  'reason',
  'name',
];

/**
 * Every canonical result field name the mock services answer with (mock-services/services.ts result
 * shapes). A surface name must never equal one of these, or a renamed field could read as another.
 */
export const CANONICAL_RESULT_FIELDS: readonly string[] = [
  'item_id',
  'link_no',
  'title',
  'brand',
  'category',
  'regulatory_kind',
  'status',
  'list_price',
  'live_price',
  'attributes',
  'skus',
  'sku_id',
  'spec_text',
  'price',
  'stock',
  'shipping',
  'ship_within_hours',
  'ships_from',
  'free_shipping',
  'carrier',
  'after_sales',
  'seven_day_return',
  'return_exclusions',
  'return_shipping_insurance',
  'price_protection_days',
  'results',
  'stock_status',
  'coupons',
  'coupon_id',
  'name',
  'threshold',
  'discount',
  'valid_to',
  'members_only',
  'flash_sales',
  'flash_id',
  'starts_at',
  'ends_at',
  'quantity',
  'remaining',
  'bundles',
  'bundle_id',
  'item_ids',
  'description',
  'gifts',
  'gift_id',
  'gift_name',
  'presales',
  'presale_id',
  'deposit',
  'deposit_value',
  'final_payment_starts_at',
  'ships_by',
  'scope',
  'kind',
  'valid_from',
  'per_user_limit',
  'issued',
  'viewer_id',
  'pushed',
  'orders',
  'order_id',
  'placed_at',
  'shipped_at',
  'delivered_at',
  'tracking_no',
  'eligible',
  'reason_code',
  'reason',
  'deadline',
  'faq_id',
  'question',
  'answer',
  'recorded',
  'ticket_id',
  'queued',
];

/**
 * Parameter synonyms (tools.param.rename). The table is variant-wide and shared with result fields, so a
 * synonym must read right in every place the name occurs: `category` is a product category and a refusal
 * category, `name` a skill's name and a coupon's, `reason` a hand-off reason and a return verdict's.
 */
export const PARAM_SYNONYMS: Readonly<Record<string, SplitPool<string>>> = {
  link_no: { train: ['link_number', 'cart_index'], eval: ['link_idx', 'shelf_no'] },
  item_id: { train: ['goods_id', 'product_id'], eval: ['merch_id', 'listing_id'] },
  sku_id: { train: ['spec_id', 'variant_id'], eval: ['option_id', 'model_code'] },
  query: { train: ['keywords', 'search_text'], eval: ['lookup_text', 'search_terms'] },
  category: { train: ['class_name', 'group'], eval: ['kind_label', 'classification'] },
  coupon_id: { train: ['voucher_id', 'coupon_code'], eval: ['voucher_key', 'promo_code'] },
  viewer_id: { train: ['user_id', 'buyer_id'], eval: ['customer_id', 'audience_id'] },
  order_id: { train: ['order_no', 'order_number'], eval: ['purchase_id', 'trade_id'] },
  question: { train: ['user_question', 'faq_query'], eval: ['ask_text', 'inquiry'] },
  note: { train: ['remark', 'comment'], eval: ['memo', 'annotation'] },
  reason: { train: ['cause', 'why'], eval: ['explanation', 'rationale'] },
  name: { train: ['label', 'entry_name'], eval: ['handle', 'display_name'] },
};

/** Result-field synonyms (tools.result.rename); fields that are also parameters use `PARAM_SYNONYMS`. */
export const RESULT_SYNONYMS: Readonly<Record<string, SplitPool<string>>> = {
  live_price: { train: ['stream_price', 'sale_price'], eval: ['current_price', 'deal_price'] },
  list_price: { train: ['original_price', 'tag_price'], eval: ['msrp', 'retail_price'] },
  price: { train: ['unit_price', 'amount'], eval: ['cost', 'price_value'] },
  stock: { train: ['inventory', 'qty_left'], eval: ['on_hand', 'units_available'] },
  stock_status: { train: ['availability', 'inventory_state'], eval: ['supply_status', 'stock_level'] },
  status: { train: ['state', 'current_status'], eval: ['phase', 'condition'] },
  eligible: { train: ['returnable', 'is_eligible'], eval: ['allowed', 'qualifies'] },
  reason_code: { train: ['reason_key', 'verdict_code'], eval: ['cause_code', 'outcome_code'] },
  tracking_no: { train: ['waybill_no', 'tracking_number'], eval: ['shipment_code', 'parcel_no'] },
  carrier: { train: ['courier', 'logistics_company'], eval: ['shipper', 'delivery_company'] },
  threshold: { train: ['min_spend', 'spend_threshold'], eval: ['order_minimum', 'spend_floor'] },
  discount: { train: ['amount_off', 'reduction'], eval: ['savings', 'off_value'] },
  valid_to: { train: ['expires_at', 'end_time'], eval: ['valid_until', 'expiry'] },
  valid_from: { train: ['starts_from', 'begin_time'], eval: ['valid_since', 'available_from'] },
  remaining: { train: ['left', 'remain_count'], eval: ['still_available', 'balance'] },
  title: { train: ['product_name', 'item_title'], eval: ['headline', 'listing_title'] },
  spec_text: { train: ['spec_name', 'spec_label'], eval: ['option_text', 'variant_text'] },
  deadline: { train: ['return_by', 'due_time'], eval: ['last_day', 'cutoff'] },
  answer: { train: ['reply_text', 'faq_answer'], eval: ['solution', 'response'] },
  placed_at: { train: ['ordered_at', 'created_at'], eval: ['purchase_time', 'order_time'] },
  shipped_at: { train: ['dispatched_at', 'sent_at'], eval: ['ship_time', 'left_warehouse_at'] },
  delivered_at: { train: ['received_at', 'signed_at'], eval: ['arrival_time', 'delivery_time'] },
  members_only: { train: ['vip_only', 'member_exclusive'], eval: ['requires_membership', 'members_exclusive'] },
  per_user_limit: { train: ['limit_per_user', 'max_per_person'], eval: ['per_buyer_cap', 'claim_limit'] },
  free_shipping: { train: ['shipping_free', 'no_shipping_fee'], eval: ['postage_free', 'free_delivery'] },
  ship_within_hours: { train: ['dispatch_hours', 'ships_in_hours'], eval: ['handling_hours', 'lead_time_hours'] },
  brand: { train: ['brand_name', 'maker'], eval: ['label_brand', 'manufacturer'] },
};

/** Case styles of tools.rename.case (dot case is left out: OpenAI function names allow only [A-Za-z0-9_-]). */
export const CASE_STYLES: SplitPool<'camel' | 'pascal' | 'kebab' | 'upper_snake'> = {
  train: ['camel', 'kebab'],
  eval: ['pascal', 'upper_snake'],
};

/** Surface-only optional parameters (tools.param.extra): plausible plumbing that changes nothing. */
export const EXTRA_PARAMS: SplitPool<string> = {
  train: ['trace_id', 'locale', 'verbose', 'request_source', 'caller'],
  eval: ['client_version', 'debug_mode', 'session_tag', 'priority_hint', 'channel'],
};

/** Wrapper parameter names of tools.args.nest. */
export const NEST_WRAPPERS: SplitPool<string> = { train: ['params', 'input'], eval: ['args', 'payload', 'request'] };

/** Tool documentation styles in the prompt (tools.doc.render). */
export const DOC_STYLES: SplitPool<'json' | 'xml' | 'signatures'> = { train: ['json', 'signatures'], eval: ['xml'] };

/** Look-alike name templates (tools.similar); `{n}` is the real tool's surface name. */
export const SIMILAR_NAMES: SplitPool<string> = {
  train: ['{n}_v0', 'legacy_{n}', '{n}_old'],
  eval: ['{n}_deprecated', 'old_{n}', '{n}_disabled'],
};

/** Look-alike descriptions: clearly switched off, pointing at the real tool (`{tool}`, rewritten on materialise). */
export const SIMILAR_DESCRIPTIONS: Readonly<Record<Locale, SplitPool<string>>> = {
  'zh-CN': {
    train: ['【已停用】旧版接口，已下线，调用会失败。请改用 {tool}。', '（已废弃）历史版本，不再维护，不要调用；对应功能请用 {tool}。'],
    eval: ['[停用] 该接口已关闭，仅为兼容保留，请使用 {tool}。'],
  },
  en: {
    train: [
      '[DEPRECATED] Old version, switched off; calls fail. Use {tool} instead.',
      '(disabled) Legacy endpoint kept for compatibility only; do not call it. Use {tool}.',
    ],
    eval: ['[RETIRED] This interface is shut down and kept only for old clients; use {tool}.'],
  },
};

/** A distractor tool: irrelevant to a live-commerce room. */
export interface DecoyTool {
  name: string;
  description: Localized;
  params: Readonly<Record<string, { type: string; description: Localized }>>;
  required: readonly string[];
}

const p = (type: string, zh: string, en: string) => ({ type, description: { 'zh-CN': zh, en } });

/** Distractor tools (tools.distractor). Their parameter names are no canonical field name. */
export const DISTRACTOR_TOOLS: SplitPool<DecoyTool> = {
  train: [
    {
      name: 'get_weather',
      description: { 'zh-CN': '查询某个城市今天的天气预报。', en: "Get today's weather forecast for a city." },
      params: { city: p('string', '城市名。', 'City name.') },
      required: ['city'],
    },
    {
      name: 'play_music',
      description: { 'zh-CN': '在主播的耳机里播放一首背景音乐。', en: "Play a background song in the host's headphones." },
      params: { song: p('string', '歌曲名。', 'Song title.'), volume: p('integer', '音量。', 'Volume.') },
      required: ['song'],
    },
    {
      name: 'lottery_draw',
      description: { 'zh-CN': '为线下门店的年会抽奖抽取一个号码。', en: "Draw a number for an offline store's annual-party raffle." },
      params: { pool_size: p('integer', '号码池大小。', 'Size of the number pool.') },
      required: ['pool_size'],
    },
    {
      name: 'translate_text',
      description: {
        'zh-CN': '把一段文字翻译成另一种语言（供内部文档使用）。',
        en: 'Translate a passage into another language (for internal documents).',
      },
      params: { text: p('string', '原文。', 'Source text.'), target_language: p('string', '目标语言。', 'Target language.') },
      required: ['text', 'target_language'],
    },
    {
      name: 'set_reminder',
      description: { 'zh-CN': '在运营同事的日历上设置提醒。', en: "Set a reminder in an operations colleague's calendar." },
      params: { message: p('string', '提醒内容。', 'Reminder text.'), when: p('string', '提醒时间。', 'When to remind.') },
      required: ['message', 'when'],
    },
  ],
  eval: [
    {
      name: 'book_taxi',
      description: { 'zh-CN': '为主播预约下播后的网约车。', en: 'Book a ride for the host after the stream.' },
      params: { pickup: p('string', '上车地点。', 'Pickup address.'), dropoff: p('string', '目的地。', 'Destination.') },
      required: ['pickup', 'dropoff'],
    },
    {
      name: 'news_headlines',
      description: { 'zh-CN': '获取今日新闻头条。', en: "Fetch today's news headlines." },
      params: { topic: p('string', '新闻主题。', 'News topic.') },
      required: [],
    },
    {
      name: 'calculate_expression',
      description: {
        'zh-CN': '计算一个数学表达式（财务对账用）。',
        en: 'Evaluate an arithmetic expression (for accounting reconciliation).',
      },
      params: { expression: p('string', '表达式。', 'The expression.') },
      required: ['expression'],
    },
    {
      name: 'currency_convert',
      description: {
        'zh-CN': '按今日汇率换算外币（跨境结算用）。',
        en: "Convert between currencies at today's rate (cross-border settlement).",
      },
      params: { from_currency: p('string', '源币种。', 'Source currency.'), to_currency: p('string', '目标币种。', 'Target currency.') },
      required: ['from_currency', 'to_currency'],
    },
    {
      name: 'horoscope_today',
      description: { 'zh-CN': '查询某个星座的今日运势。', en: "Read today's horoscope for a star sign." },
      params: { sign: p('string', '星座。', 'Star sign.') },
      required: ['sign'],
    },
  ],
};
