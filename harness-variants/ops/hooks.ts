/**
 * Hook operators: retry policy, feedback structure and language, which checks run and in what order,
 * and IFEval-style output constraints.
 */
import type { FeedbackStyle } from '../../protocol/harness.js';
import type { HarnessTransform } from '../types.js';
import { poolFor } from './kit.js';
import type { SplitPool } from './kit.js';

const FEEDBACK_STYLES: SplitPool<FeedbackStyle> = { train: ['natural', 'json'], eval: ['tagged'] };

/** hooks.feedback.style: feedback as natural language, a JSON decision or tagged text. */
const feedbackStyle: HarnessTransform = {
  name: 'hooks.feedback.style',
  family: 'hooks',
  description: 'hook feedback structure (natural language, JSON decision, tagged)',
  apply(draft, ctx) {
    draft.harness.retry.feedback_style = ctx.rng.pick(poolFor(FEEDBACK_STYLES, ctx.split));
  },
};

/** Hook operators, in application order. */
export const HOOK_OPS: readonly HarnessTransform[] = [feedbackStyle];
