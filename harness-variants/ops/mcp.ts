/**
 * MCP operators (tools family): the marketing tools come from an MCP server, whose tool list may change
 * mid-episode (`notifications/tools/list_changed`), as production servers do when they are redeployed.
 *
 * `tools.mcp.list_changed` gives one marketing tool a new optional parameter that the server announces
 * only after discovery: the episode offers the tool without it when discovered, and on the next step the
 * list changes and the observation carries the full, updated tool list. The parameter is surface-only
 * (recorded in `tables.extra_params`, dropped when mapping back), so the same canonical actions still
 * solve the task and the oracle's reward does not move.
 */
import type { JsonSchema } from '../../protocol/domain.js';
import type { HarnessTransform } from '../types.js';
import { freshFrom, poolFor, usedNames } from './kit.js';
import type { SplitPool } from './kit.js';
import { MCP_LIST_CHANGED_MARK } from '../../protocol/harness.js';

export { MCP_LIST_CHANGED_MARK };

/** Canonical tools served by the marketing MCP server (mock-services/mcp.ts `MARKETING_TOOLS`). */
const MARKETING = ['get_promotions', 'get_coupon', 'issue_coupon'];

/** Names of the announced parameter; the eval half is never used in training. */
const ANNOUNCED_PARAMS: SplitPool<string> = {
  train: ['campaign_channel', 'display_currency', 'audience_tag'],
  eval: ['promo_region', 'client_build', 'experiment_bucket'],
};

const DESCRIPTIONS = {
  'zh-CN': '可选，新增参数，可不填。',
  en: 'Optional, newly added; may be left out.',
} as const;

/** tools.mcp.list_changed: after discovery, the MCP server announces a marketing tool with a new optional parameter. */
const listChanged: HarnessTransform = {
  name: 'tools.mcp.list_changed',
  family: 'tools',
  description: 'MCP list change mid-episode: a discovered marketing tool gains an optional parameter',
  apply(draft, ctx) {
    const decoys = new Set(draft.tables.decoys);
    const present = MARKETING.filter((n) => !decoys.has(n) && draft.harness.tools.some((t) => t.function.name === n));
    if (present.length === 0) return;
    const tool = ctx.rng.pick(present);
    const schema = draft.harness.tools.find((t) => t.function.name === tool);
    if (!schema) return;
    const used = usedNames(draft);
    for (const extras of Object.values(draft.tables.extra_params)) for (const e of extras) used.add(e);
    const name = freshFrom(ctx.rng, poolFor(ANNOUNCED_PARAMS, ctx.split), used);
    if (!name) return;
    const props = (schema.function.parameters.properties ?? {}) as Record<string, JsonSchema>;
    props[name] = { type: 'string', description: DESCRIPTIONS[ctx.locale], [MCP_LIST_CHANGED_MARK]: true };
    schema.function.parameters.properties = props;
    draft.tables.extra_params[tool] = [...(draft.tables.extra_params[tool] ?? []), name];
  },
};

/** The MCP operators, run after the other tool operators. */
export const MCP_OPS: readonly HarnessTransform[] = [listChanged];
