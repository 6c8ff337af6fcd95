/**
 * Skill operators: names, descriptions, rule layout and order, distractors and near-duplicates,
 * masking, and disclosure.
 */
import type { HarnessTransform } from '../types.js';
import { freshFrom, poolFor, share, usedNames } from './kit.js';
import type { SplitPool } from './kit.js';

/** Semantic synonyms per canonical skill. */
const SKILL_SYNONYMS: Record<string, SplitPool<string>> = {
  'product-qa': { train: ['item-answers', 'goods-qa'], eval: ['product-consult', 'merch-questions'] },
  chitchat: { train: ['small-talk', 'casual-chat'], eval: ['viewer-banter', 'friendly-talk'] },
  'clarify-intent': { train: ['ask-back', 'disambiguate'], eval: ['clarifying-question', 'confirm-target'] },
  'after-sales': { train: ['post-purchase', 'order-care'], eval: ['returns-desk', 'service-after-sale'] },
  promotion: { train: ['deals', 'coupon-guide'], eval: ['offers-desk', 'campaign-talk'] },
  'purchase-guide': { train: ['how-to-buy', 'checkout-help'], eval: ['buying-steps', 'order-guide'] },
  'risk-refusal': { train: ['safe-decline', 'compliance-refusal'], eval: ['policy-decline', 'risk-guard'] },
  'human-handoff': { train: ['escalate', 'to-human-agent'], eval: ['staff-transfer', 'manual-service'] },
  'multi-intent': { train: ['many-questions', 'split-requests'], eval: ['compound-asks', 'mixed-intents'] },
  'refusal-whitelist': { train: ['allowed-answers', 'no-over-refusal'], eval: ['safe-to-answer', 'answer-whitelist'] },
  'live-tone': { train: ['host-voice', 'stream-tone'], eval: ['anchor-style', 'broadcast-voice'] },
  'compliance-guard': { train: ['ad-law-check', 'claims-check'], eval: ['wording-audit', 'regulation-guard'] },
};

/** skills.rename.semantic: rename some skills to meaningful synonyms. */
const renameSemantic: HarnessTransform = {
  name: 'skills.rename.semantic',
  family: 'skills',
  description: 'rename skills to semantic synonyms (product-qa -> item-answers)',
  apply(draft, ctx) {
    const used = usedNames(draft);
    const names = draft.harness.skills.map((s) => s.name).filter((n) => SKILL_SYNONYMS[n] && draft.tables.skills[n] === undefined);
    for (const n of ctx.rng.sample(names, share(names.length, ctx.intensity, ctx.rng))) {
      const fresh = freshFrom(ctx.rng, poolFor(SKILL_SYNONYMS[n], ctx.split), used);
      if (fresh) draft.tables.skills[n] = fresh;
    }
  },
};

/** Skill operators, in application order. */
export const SKILL_OPS: readonly HarnessTransform[] = [renameSemantic];
