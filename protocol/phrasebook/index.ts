/**
 * Public surface of `protocol/phrasebook/`: the text tables that the task generator (env/tasks/intents/)
 * and the memorizer reference policy (policies/) share. The memorizer imitates a small model fine-tuned on
 * the generator's tasks, so its replies are the generator's reference replies; policies/ may import only
 * protocol/, so the tables live here, as data, and each side keeps the code that fills them. One file per
 * intent family; text only one side uses stays with that side.
 */
export type { Phrase, Phrases } from './types.js';
export { GREETING_REPLY, COMPLIMENT_REPLY, REAL_PERSON_REPLY, END_TIME_REPLY, PERSONA_NAME_REPLY, CLARIFY_REPLY } from './chat.js';
export { PRICE_REPLY, STOCK_REPLY, ATTRIBUTE_REPLY, FAQ_REPLY, SHIPPING_REPLY, RETURN_POLICY_REPLY } from './product-qa.js';
export {
  ORDER_STATUS_REPLY,
  TRACKING_REPLY,
  TRACKING_STATUS,
  RETURN_ELIGIBLE_REPLY,
  RETURN_INELIGIBLE_REPLY,
  HANDOFF_REPLY,
} from './orders.js';
export { BUY_CURRENT_REPLY, BUY_LINK_REPLY, COUPON_NAME, COUPON_REPLY, FLASH_REPLY, GIFT_REPLY } from './commerce.js';
export {
  MEDICAL_REFUSAL_LEAD,
  PRODUCT_KIND_NAME,
  REFUSAL_ATTRIBUTE_OFFER,
  REFUSAL_DETAILS_OFFER,
  SUPERLATIVE_REPLY,
  OFF_PLATFORM_REPLY,
  INGREDIENT_ATTRIBUTES,
  INGREDIENTS_REPLY,
} from './safety.js';
