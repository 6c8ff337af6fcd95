/**
 * Prompt operators: block and item order, numeric limits, header/separator/item styles, paraphrased
 * instructions, irrelevant context, and the viewer's message.
 */
import type { HeaderStyle } from '../../protocol/harness.js';
import type { HarnessTransform } from '../types.js';
import { poolFor } from './kit.js';
import type { SplitPool } from './kit.js';

const HEADER_STYLES: SplitPool<HeaderStyle> = { train: ['markdown', 'brackets'], eval: ['xml', 'plain'] };

/** prompt.header.style: Markdown headers, 【】 brackets, XML tags or plain labels. */
const headerStyle: HarnessTransform = {
  name: 'prompt.header.style',
  family: 'prompt',
  description: 'header style of the prompt blocks (Markdown, 【】, XML, plain)',
  apply(draft, ctx) {
    draft.harness.prompt.header_style = ctx.rng.pick(poolFor(HEADER_STYLES, ctx.split));
  },
};

/** Prompt operators, in application order. */
export const PROMPT_OPS: readonly HarnessTransform[] = [headerStyle];
