/**
 * Data of the tool operators: name pools, description templates and decoy tools. Every pool has a
 * training half and a held-out half (`SplitPool`); the two halves never share an entry, so the `eval`
 * preset meets names and wordings that training never showed (the tests assert the disjointness).
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

/**
 * Paraphrased tool descriptions (tools.describe.paraphrase), per canonical tool and locale. Each says
 * what the tool does as faithfully as the base text; parameter names in them are canonical and are
 * rewritten to the variant's names on materialise.
 */
export const TOOL_DESCRIPTIONS: Readonly<Record<string, Readonly<Record<Locale, SplitPool<string>>>>> = {
  get_product: {
    'zh-CN': {
      train: [
        '商品详情查询：返回标题、品牌、直播价和原价、各规格库存、属性、发货和售后规则。link_no 和 item_id 只传一个。',
        '按链接号或商品ID（二选一）取一个商品的全部资料，含价格、规格库存、发货与售后。',
      ],
      eval: ['获取单个商品的完整档案（价格、规格与库存、属性、物流、售后）；用链接号或商品ID其中之一定位。'],
    },
    en: {
      train: [
        'Product details: title, brand, live and list price, SKU stock, attributes, shipping and after-sales rules. Pass exactly one of link_no or item_id.',
        'Fetch everything about one product (prices, specs with stock, shipping, after-sales) by its link number or its item id, not both.',
      ],
      eval: [
        'Return the full record of a single product (pricing, specs and stock, attributes, logistics, after-sales); identify it by link number or item id, one of the two.',
      ],
    },
  },
  search_products: {
    'zh-CN': {
      train: [
        '用关键词在本直播间的商品里搜索，返回匹配商品的ID、链接号、标题、直播价和状态。',
        '商品搜索：输入名称、品牌或品类关键词，找出对应的商品和链接号。',
      ],
      eval: ['在直播间货架中按关键词查找商品，结果含商品ID、链接号、标题、直播价与在售状态。'],
    },
    en: {
      train: [
        "Keyword search over this room's products; returns matching item ids, link numbers, titles, live prices and status.",
        'Product search: give a name, brand or kind of product and get the matching items and their link numbers.',
      ],
      eval: ["Find products on the room's shelf by keyword; each hit has its item id, link number, title, live price and sale status."],
    },
  },
  check_stock: {
    'zh-CN': {
      train: [
        '查某个商品每个规格的实时库存，以及有货、紧张或售罄的状态。',
        '库存查询：按商品ID（可再指定规格）返回当前库存数量和库存状态。',
      ],
      eval: ['返回一个商品各SKU此刻的剩余数量和库存状态（有货、紧张、售罄）。'],
    },
    en: {
      train: [
        'Live stock of each SKU of a product, with its status: in stock, low or sold out.',
        'Inventory check: by item id (optionally one SKU), returns the current quantity and stock status.',
      ],
      eval: ["Report how many units of each of a product's SKUs are left right now, and whether it is in stock, low or sold out."],
    },
  },
  get_promotions: {
    'zh-CN': {
      train: [
        '列出当前的营销活动：优惠券、秒杀、套装、赠品和预售，可只看某个商品的。',
        '活动查询：返回进行中的券、限时秒杀、组合套装、赠品与预售信息，可按商品过滤。',
      ],
      eval: ['获取直播间正在进行的所有优惠（券、秒杀、套装、赠品、预售）；传商品ID则只返回与它相关的。'],
    },
    en: {
      train: [
        'List the current promotions: coupons, flash sales, bundles, gifts and presales, optionally for one product.',
        'Promotions lookup: running coupons, flash sales, bundles, gifts and presales, filterable by item.',
      ],
      eval: [
        "Get every offer running in the room (coupons, flash sales, bundles, gifts, presales); pass an item id to see only that item's.",
      ],
    },
  },
  get_coupon: {
    'zh-CN': {
      train: [
        '查看一张券的规则：使用门槛、优惠金额、适用范围、有效期、每人限领、剩余张数、是否会员专享。',
        '优惠券详情：按券ID返回门槛、面额、范围、起止时间、限领数量、余量和会员限制。',
      ],
      eval: ['读取单张优惠券的完整配置（门槛、减免金额、适用范围、有效期、每人上限、剩余数量、会员要求）。'],
    },
    en: {
      train: [
        "One coupon's rules: threshold, discount, scope, validity, per-user limit, how many are left and whether it is members-only.",
        'Coupon details by coupon id: threshold, amount off, scope, validity window, claim limit, remaining count, membership requirement.',
      ],
      eval: [
        "Read a single coupon's full configuration (minimum spend, amount off, scope, validity, per-person cap, remaining, membership rule).",
      ],
    },
  },
  issue_coupon: {
    'zh-CN': {
      train: [
        '把一张券发到观众账户里（会改变账户，只有观众明确要券时才调用）。',
        '发券：给指定观众发放指定优惠券；这是写操作，观众明确想领时再用。',
      ],
      eval: ['向某位观众的账户发放优惠券；会修改账户状态，仅在观众明确要求领券时使用。'],
    },
    en: {
      train: [
        "Put a coupon into a viewer's account (this changes the account; call it only when the viewer clearly wants the coupon).",
        'Issue a coupon to a viewer. It writes to the account, so use it only when the viewer asks for the coupon.',
      ],
      eval: ["Grant a coupon to one viewer's account; it modifies the account, so call it only on a clear request for the coupon."],
    },
  },
  push_link_card: {
    'zh-CN': {
      train: ['在直播间弹出某个链接的商品卡片，观众点一下就能下单。', '弹链接：把指定链接号的商品卡片推到直播画面上，方便观众购买。'],
      eval: ['把某个链接的购买卡片展示给全场观众，点卡片即可下单。'],
    },
    en: {
      train: [
        'Pop up the product card of a link in the room so viewers can tap it and order.',
        "Push a link's product card onto the stream so viewers can buy from it.",
      ],
      eval: ['Show the buy card of a link to the whole room; viewers tap it to order.'],
    },
  },
  list_orders: {
    'zh-CN': {
      train: ['列出某位观众在本店下过的订单。', '订单列表：按观众ID返回其在本店的全部订单。'],
      eval: ['获取一位观众在本店的历史订单。'],
    },
    en: {
      train: ["List a viewer's orders in this store.", "Order list: all of a viewer's orders in this store, by viewer id."],
      eval: ["Get one viewer's order history with this store."],
    },
  },
  get_order_status: {
    'zh-CN': {
      train: [
        '查一个订单的状态和物流：下单、发货、签收时间，快递公司和运单号。',
        '订单进度查询：返回订单状态及物流信息（时间节点、承运商、单号）。',
      ],
      eval: ['追踪单个订单：当前状态、各环节时间、快递公司与运单号。'],
    },
    en: {
      train: [
        "An order's status and logistics: order, shipping and delivery times, carrier and tracking number.",
        'Order progress: the status plus logistics details (timestamps, carrier, tracking number).',
      ],
      eval: ['Track one order: its current status, the time of each step, the carrier and the tracking number.'],
    },
  },
  check_return_eligibility: {
    'zh-CN': {
      train: [
        '判断一个订单能不能退货：是否符合条件、原因、截止时间、有没有运费险。',
        '退货资格检查：返回能否退、原因说明、申请截止时间和运费险情况。',
      ],
      eval: ['核对某个订单的退货条件，给出结论、理由、最晚申请时间以及是否含运费险。'],
    },
    en: {
      train: [
        'Whether an order can be returned: eligibility, the reason, the deadline and return-shipping insurance.',
        'Return eligibility check: can it be returned, why, by when, and is return-shipping insurance included.',
      ],
      eval: [
        "Check an order's return conditions and get the verdict, the reason, the last day to apply and whether return-shipping insurance applies.",
      ],
    },
  },
  search_faq: {
    'zh-CN': {
      train: [
        '在商品常见问题库里检索（用法、保存、适用人群、成分等），返回相关问答。',
        'FAQ检索：用观众的问题或关键词查找商品问答，可限定某个商品。',
      ],
      eval: ['从商品知识库中找出与问题最相关的几条问答（使用方法、储存、人群、成分等）。'],
    },
    en: {
      train: [
        'Search the product FAQ (usage, storage, who it suits, ingredients) and return matching questions and answers.',
        "FAQ search: look up product Q&A with the viewer's question or keywords, optionally for one item.",
      ],
      eval: ['Find the most relevant Q&A entries in the product knowledge base (usage, storage, suitability, ingredients).'],
    },
  },
  refuse_request: {
    'zh-CN': {
      train: [
        '记录一次合规拒答：观众要医疗功效、绝对化说法、平台外联系等违规内容时调用。',
        '合规拒绝登记：遇到违规请求（医疗、绝对化、站外联系或其他）时记下类别。',
      ],
      eval: ['当观众的要求违反合规（医疗功效、极限用语、站外交易等）时，登记这次拒绝及其类别。'],
    },
    en: {
      train: [
        'Record a compliance refusal when a viewer asks for medical efficacy, absolute claims, off-platform contact or other non-compliant content.',
        'Log a refusal of a non-compliant request (medical, superlative, off-platform or other) with its category.',
      ],
      eval: [
        "When a viewer's request breaks the rules (medical claims, superlatives, off-platform deals), register the refusal and its category.",
      ],
    },
  },
  handoff_to_human: {
    'zh-CN': {
      train: [
        '把问题转给人工客服（纠纷、投诉、破损错发、工具解决不了的问题）。',
        '转人工：纠纷、投诉、收到坏货或发错货等工具处理不了的情况交给人工客服。',
      ],
      eval: ['将当前问题升级给人工客服团队处理，适用于投诉、纠纷、破损、错发等情况。'],
    },
    en: {
      train: [
        'Hand the issue to human customer service (disputes, complaints, damaged or wrong items, anything the tools cannot solve).',
        'Escalate to a human agent: disputes, complaints, broken or wrong items and other problems the tools cannot fix.',
      ],
      eval: ['Escalate the current issue to the human support team, for complaints, disputes, damaged or wrongly shipped items.'],
    },
  },
  load_skill: {
    'zh-CN': {
      train: [
        '加载一个技能，返回它的完整说明（回复策略、工具选择、语气）。最终回复之前必须先加载一个回复类技能。',
        '读取技能全文：回复思路、用哪些工具、说话语气。给出最终回复前至少加载一个回复类技能。',
      ],
      eval: ['打开技能手册并返回其全部内容（策略、工具、语气）；最终回复前必须已加载某个回复类技能。'],
    },
    en: {
      train: [
        'Load a skill and return its full instructions (reply strategy, tool choice, tone). A reply skill must be loaded before the final reply.',
        'Read the full text of a skill: how to reply, which tools to use, what tone. Load at least one reply skill before the final reply.',
      ],
      eval: ['Open a skill playbook and return all of it (strategy, tools, tone); some reply skill must be loaded before the final reply.'],
    },
  },
};
