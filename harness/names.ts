/**
 * Canonical names of the base harness: tools, skills, hooks, violation codes and prompt blocks.
 * Variants rename surface names; these stay the canonical vocabulary that maps, tasks and rewards use.
 */
import type { BuiltinIntent } from '../protocol/domain.js';
import type { PromptBlockId } from '../protocol/harness.js';

/** Canonical tool names, in the order the base harness presents them. */
export const CANONICAL_TOOLS = [
  'get_product',
  'search_products',
  'check_stock',
  'get_promotions',
  'get_coupon',
  'issue_coupon',
  'push_link_card',
  'list_orders',
  'get_order_status',
  'check_return_eligibility',
  'search_faq',
  'refuse_request',
  'handoff_to_human',
  'load_skill',
  'discover_tools',
] as const;

/**
 * The simulated service that answers each tool (mock-services/services.ts), and the two tools the
 * environment itself answers. Fixed in this version: a harness's tool files must keep these names.
 */
export const TOOL_SERVICES: Readonly<Record<(typeof CANONICAL_TOOLS)[number], string>> = {
  get_product: 'product service',
  search_products: 'product service',
  check_stock: 'inventory service',
  get_promotions: 'marketing service',
  get_coupon: 'marketing service',
  issue_coupon: 'marketing service',
  push_link_card: 'marketing service',
  list_orders: 'after-sales service',
  get_order_status: 'after-sales service',
  check_return_eligibility: 'after-sales service',
  search_faq: 'product service',
  refuse_request: 'after-sales service (the refusal log)',
  handoff_to_human: 'after-sales service (the hand-off queue)',
  load_skill: 'environment (skill loading)',
  discover_tools: 'environment (MCP discovery)',
};

/** A canonical tool name. */
export type CanonicalTool = (typeof CANONICAL_TOOLS)[number];

/** Reply skills: one of them must be loaded before the final reply. */
export const REPLY_SKILLS = [
  'product-qa',
  'chitchat',
  'clarify-intent',
  'after-sales',
  'promotion',
  'purchase-guide',
  'risk-refusal',
  'human-handoff',
] as const;

/** Strategy skills: they help, are never required and never penalised. */
export const STRATEGY_SKILLS = ['multi-intent', 'refusal-whitelist', 'live-tone', 'compliance-guard'] as const;

/** All canonical skills, reply skills first, in the base harness's order. */
export const CANONICAL_SKILLS: readonly string[] = [...REPLY_SKILLS, ...STRATEGY_SKILLS];

/**
 * The reply skills each intent needs. `multi_intent` is the union of its parts' skills, which only the
 * task knows, so it maps to none here.
 */
export const INTENT_REPLY_SKILLS: Readonly<Record<BuiltinIntent, readonly string[]>> = {
  product_qa: ['product-qa'],
  chitchat: ['chitchat'],
  clarification: ['clarify-intent'],
  after_sales: ['after-sales'],
  purchase: ['purchase-guide'],
  marketing: ['promotion'],
  multi_intent: [],
  risky: ['risk-refusal'],
  whitelist: ['product-qa'],
  handoff: ['human-handoff'],
};

/** Agent Skills name rule (agentskills.io specification). */
export const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The embedded harness's hook ids with the stage each runs at, in its order. Each of these ids is also
 * the library kind of the same name (a hook without `kind` runs the check named by its id).
 */
export const HOOK_STAGES = {
  input_guard: 'input',
  tool_args: 'tool_args',
  skill_required: 'reply',
  reply_format: 'reply',
  prohibited_phrases: 'reply',
  factual_risk: 'reply',
  output_constraints: 'reply',
} as const;

/** A canonical hook id. */
export type HookId = keyof typeof HOOK_STAGES;

/** The embedded harness's hook ids, in its order. */
export const HOOK_IDS = Object.keys(HOOK_STAGES) as HookId[];

/**
 * The library's hook kinds (the checks env/hooks.ts implements) with the stage each runs at: the embedded
 * harness's seven, and `required_call` (a stop hook: a tool that must have been called before the final
 * reply once another was). A harness's hook names its kind with `kind`, or by its id when `kind` is absent.
 */
export const HOOK_KIND_STAGES = {
  ...HOOK_STAGES,
  required_call: 'reply',
} as const;

/** A library hook kind. */
export type HookKind = keyof typeof HOOK_KIND_STAGES;

/** The library's hook kinds: the embedded harness's, in its order, then the others. */
export const HOOK_KINDS = Object.keys(HOOK_KIND_STAGES) as HookKind[];

/**
 * Kinds a harness may hold several hooks of. Of every other kind a harness has at most one: variants
 * find and edit those hooks by kind.
 */
export const REPEATABLE_HOOK_KINDS: readonly HookKind[] = ['required_call'];

/** Violation codes each hook can report. */
export const HOOK_CODES: Readonly<Record<HookId, readonly string[]>> = {
  input_guard: ['EMPTY_INPUT', 'INPUT_TOO_LONG'],
  tool_args: ['INVALID_ARGUMENTS'],
  skill_required: ['SKILL_NOT_LOADED'],
  reply_format: ['EMPTY_REPLY', 'TOO_LONG', 'MARKDOWN', 'EMOJI', 'THINK_LEAK'],
  prohibited_phrases: [
    'ABSOLUTE_TERM',
    'MEDICAL_CLAIM',
    'SPECIAL_COSMETIC_CLAIM',
    'UNAUTHORIZED_PROMISE',
    'OFF_PLATFORM',
    'PERSONAL_EXPERIENCE',
  ],
  factual_risk: ['UNGROUNDED_NUMBER'],
  output_constraints: ['FORBIDDEN_WORD', 'MISSING_ENDING', 'WRONG_LANGUAGE'],
};

/** Every violation code of the embedded harness's hooks, in hook order. */
export const VIOLATION_CODES: readonly string[] = HOOK_IDS.flatMap((id) => HOOK_CODES[id]);

/**
 * The violation codes of each kind. A `required_call` hook reports the code its params name (`code`), so
 * the kind has no fixed codes: consumers of codes (rewards, records) must accept any `^[A-Z][A-Z_]*$`.
 */
export const HOOK_KIND_CODES: Readonly<Record<HookKind, readonly string[]>> = {
  ...HOOK_CODES,
  required_call: [],
};

/** The prompt blocks of the base pipeline, in order. */
export const PROMPT_BLOCK_ORDER: readonly PromptBlockId[] = [
  'persona',
  'product_specs',
  'faq',
  'room_state',
  'prohibitions',
  'skills_index',
  'tools_doc',
  'output_rules',
];

/** The `{{placeholders}}` the prompt renderer (env/prompt.ts) fills. */
export const PROMPT_PLACEHOLDERS: readonly string[] = [
  'persona_name',
  'persona_style',
  'current_product',
  'lineup',
  'faq',
  'room',
  'viewer',
  'skills',
  'tools',
  'reply_max_chars',
  'max_turns',
];
