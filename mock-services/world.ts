/**
 * The simulated Taobao-Live-style world: a room, its product lineup, marketing, viewers and orders.
 * A generated world is immutable and fully determined by `(seed, locale)`; a task may also carry its
 * world's data inline (`Task.world`). The state that actions change lives in a separate `WorldState`
 * overlay (protocol/domain.ts), so that an episode's mutable state stays small. The data types are
 * defined in protocol/world.ts (tasks carry them) and re-exported here.
 */
import type { Locale } from '../protocol/domain.js';
import type { WorldData } from '../protocol/world.js';

export { CATEGORIES } from '../protocol/world.js';
export type {
  Category,
  RegulatoryKind,
  Sku,
  Faq,
  Shipping,
  AfterSalesPolicy,
  Product,
  Coupon,
  FlashSale,
  Bundle,
  Gift,
  Presale,
  Viewer,
  OrderStatus,
  Order,
  Room,
  WorldData,
} from '../protocol/world.js';

/** A world as the services read it: its data, with the seed its derived ids come from and its locale. */
export interface World extends WorldData {
  /** `generateWorld`'s seed, or the task's `world_seed` for an inline world (hand-off ticket ids hash it). */
  seed: number;
  locale: Locale;
}
