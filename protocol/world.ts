/**
 * The data of a simulated Taobao-Live-style world: a room, its product lineup, marketing, viewers and
 * orders. The types live in `protocol/` because a task may carry its world inline (`Task.world`, a task
 * made from a production log), and every layer that sees a task (rewards too) may import only `protocol/`.
 * The generated `World` (mock-services/world.ts) is this data plus its seed and locale.
 * Prices are in yuan (CNY) with at most two decimals; times are ISO-8601 strings in simulated time.
 */

export type Category = 'apparel' | 'beauty' | 'food' | 'health_food' | 'electronics' | 'home';
export const CATEGORIES: readonly Category[] = ['apparel', 'beauty', 'food', 'health_food', 'electronics', 'home'];

/** Regulatory kind: decides which claims are illegal (medical claims, special-cosmetic efficacy). */
export type RegulatoryKind = 'general' | 'food' | 'health_food' | 'cosmetic' | 'special_cosmetic' | 'medical_device';

export interface Sku {
  sku_id: string;
  /** Spec dimensions, e.g. {颜色: 蓝色, 尺码: M} or {color: blue, size: M}. */
  spec: { [dimension: string]: string };
  /** The spec as one readable string, e.g. "蓝色 M". */
  spec_text: string;
  price: number;
  /** 0 means sold out; 1-10 is "low". */
  stock: number;
}

export interface Faq {
  faq_id: string;
  question: string;
  answer: string;
  tags: string[];
}

export interface Shipping {
  /** Ships within this many hours of payment. */
  ship_within_hours: number;
  ships_from: string;
  free_shipping: boolean;
  carrier: string;
}

export interface AfterSalesPolicy {
  seven_day_return: boolean;
  /** Real exclusions: opened food, used cosmetics, custom items, hygiene items, ... */
  return_exclusions: string[];
  return_shipping_insurance: boolean;
  /** 0 means no price protection. */
  price_protection_days: number;
}

export interface Product {
  item_id: string;
  /** The cart's "N号链接". */
  link_no: number;
  title: string;
  brand: string;
  category: Category;
  regulatory_kind: RegulatoryKind;
  attributes: { [name: string]: string };
  list_price: number;
  live_price: number;
  skus: Sku[];
  faq: Faq[];
  status: 'on_sale' | 'sold_out' | 'presale';
  shipping: Shipping;
  after_sales: AfterSalesPolicy;
  /** Marketing ids that apply to this product. */
  campaign_ids: string[];
}

export interface Coupon {
  coupon_id: string;
  name: string;
  /** Spend at least `threshold` to save `discount` (threshold 0: no threshold). */
  threshold: number;
  discount: number;
  scope: { kind: 'all' } | { kind: 'category'; category: Category } | { kind: 'items'; item_ids: string[] };
  valid_from: string;
  valid_to: string;
  per_user_limit: number;
  remaining: number;
  members_only: boolean;
}

export interface FlashSale {
  flash_id: string;
  item_id: string;
  price: number;
  starts_at: string;
  ends_at: string;
  quantity: number;
  sold: number;
}

export interface Bundle {
  bundle_id: string;
  item_ids: string[];
  price: number;
  description: string;
}

export interface Gift {
  gift_id: string;
  item_id: string;
  gift_name: string;
  /** Gift while stock lasts: how many are left. */
  remaining: number;
}

export interface Presale {
  presale_id: string;
  item_id: string;
  deposit: number;
  /** The deposit counts as this much off the final price ("定金膨胀"). */
  deposit_value: number;
  final_payment_starts_at: string;
  ships_by: string;
}

export interface Viewer {
  viewer_id: string;
  nickname: string;
  membership: 'none' | 'member' | 'vip';
  order_ids: string[];
}

export type OrderStatus = 'unpaid' | 'paid' | 'shipped' | 'delivered' | 'refunding' | 'closed';

export interface Order {
  order_id: string;
  viewer_id: string;
  item_id: string;
  sku_id: string;
  quantity: number;
  paid: number;
  status: OrderStatus;
  placed_at: string;
  shipped_at?: string;
  delivered_at?: string;
  tracking_no?: string;
  /** Whether the goods were opened or used (matters for return exclusions). */
  opened: boolean;
}

export interface Room {
  room_id: string;
  /** The avatar's persona. */
  persona: { name: string; style: string };
  /** The link number currently being presented. */
  current_link: number;
  viewer_count: number;
  started_at: string;
}

/**
 * A world's data: everything but its seed and locale (which a task carries beside it). What the services,
 * the prompt pipeline and the rewards read; `Task.world` holds one as JSON (docs/HARNESS.md "Tasks from
 * production logs").
 */
export interface WorldData {
  /** Simulated "now": every validity window and order date is relative to it. Never the clock. */
  now: string;
  room: Room;
  products: Product[];
  coupons: Coupon[];
  flash_sales: FlashSale[];
  bundles: Bundle[];
  gifts: Gift[];
  presales: Presale[];
  viewers: Viewer[];
  orders: Order[];
}
