/**
 * Lookups into a world by id or link number. Lineups hold at most 20 products and a few hundred other
 * records, so a linear scan is faster than building an index per world on every reset.
 */
import type { Coupon, Order, Product, Viewer, World } from './world.js';

/** The product behind "N号链接", or undefined. */
export function productByLink(world: World, linkNo: number): Product | undefined {
  return world.products.find((p) => p.link_no === linkNo);
}

/** The product with this item id, or undefined. */
export function productById(world: World, itemId: string): Product | undefined {
  return world.products.find((p) => p.item_id === itemId);
}

/** The coupon with this id, or undefined. */
export function couponById(world: World, couponId: string): Coupon | undefined {
  return world.coupons.find((c) => c.coupon_id === couponId);
}

/** The viewer with this id, or undefined. */
export function viewerById(world: World, viewerId: string): Viewer | undefined {
  return world.viewers.find((v) => v.viewer_id === viewerId);
}

/** The order with this id, or undefined. */
export function orderById(world: World, orderId: string): Order | undefined {
  return world.orders.find((o) => o.order_id === orderId);
}
