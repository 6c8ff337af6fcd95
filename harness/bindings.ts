/**
 * What a harness binds to the environment (docs/HARNESS.md "Bindings"): which reply skill serves each
 * intent, which skills play the built-in strategy roles, and what answers each tool — an operation of a
 * simulated service, the environment itself, or a custom service module of the harness directory.
 *
 * Inside the environment a harness's own names are the canonical ones (tasks, traces, rewards and surface
 * maps speak them). The task generator and the reference policies were written for the embedded
 * harness; they reach a harness's names through these bindings (`EMBEDDED_SKILL_INTENT`, `toolOf`).
 */
import { z } from 'zod';
import type { Intent } from '../protocol/domain.js';
import { CUSTOM_INTENT_RE, INTENTS, isBuiltinIntent } from '../protocol/domain.js';
import { CANONICAL_TOOLS, INTENT_REPLY_SKILLS, STRATEGY_SKILLS } from './names.js';
import type { CanonicalTool } from './names.js';

/**
 * The built-in operations a tool can be bound to, `<service>.<operation>`, each with the embedded tool
 * that exposes it (whose parameters the operation reads).
 */
export const SERVICE_OPERATIONS: Readonly<Record<string, CanonicalTool>> = {
  'product.get_product': 'get_product',
  'product.search_products': 'search_products',
  'product.search_faq': 'search_faq',
  'inventory.check_stock': 'check_stock',
  'marketing.get_promotions': 'get_promotions',
  'marketing.get_coupon': 'get_coupon',
  'marketing.issue_coupon': 'issue_coupon',
  'marketing.push_link_card': 'push_link_card',
  'after_sales.list_orders': 'list_orders',
  'after_sales.get_order_status': 'get_order_status',
  'after_sales.check_return_eligibility': 'check_return_eligibility',
  'after_sales.refuse_request': 'refuse_request',
  'after_sales.handoff_to_human': 'handoff_to_human',
  'environment.load_skill': 'load_skill',
  'environment.discover_tools': 'discover_tools',
};

/** The operation id of each embedded tool (`get_product` -> `product.get_product`). */
export const OPERATION_OF_TOOL: Readonly<Record<CanonicalTool, string>> = Object.fromEntries(
  Object.entries(SERVICE_OPERATIONS).map(([op, tool]) => [tool, op]),
) as Record<CanonicalTool, string>;

/** A custom service module's name: `custom.<name>` binds a tool to `services/<name>.mjs`. */
export const CUSTOM_SERVICE_RE = /^custom\.([a-z0-9]+(?:[-_][a-z0-9]+)*)$/;

/** What answers a tool. */
export type ToolBinding =
  /** A built-in operation, named by the embedded tool that exposes it (`get_product`, `load_skill`). */
  | { kind: 'builtin'; op: CanonicalTool }
  /** A custom service module of the harness directory (`services/<module>.mjs`). */
  | { kind: 'custom'; module: string };

/** How an intent is served. */
export interface IntentBinding {
  /** The reply skill that serves it (none for `multi_intent`, served by its parts' skills). */
  skill?: string;
  /** Whether the task generator makes tasks of it (false: only the harness's task files do). */
  generate: boolean;
  /** A custom intent's task template module (`intents/<module>.mjs`, docs/HARNESS.md "Intents of your own"). */
  module?: string;
  /**
   * A custom intent's generator weight, in points of the production mix: the built-in intents' weights
   * are 46 (product_qa) to 1 (whitelist, handoff) out of 100, so 1 is a handoff's share.
   */
  weight?: number;
}

/** The reply skill each embedded reply skill serves, as the intent it stands for (the generator's vocabulary). */
export const EMBEDDED_SKILL_INTENT: Readonly<Record<string, Intent>> = {
  'product-qa': 'product_qa',
  chitchat: 'chitchat',
  'clarify-intent': 'clarification',
  'after-sales': 'after_sales',
  promotion: 'marketing',
  'purchase-guide': 'purchase',
  'risk-refusal': 'risky',
  'human-handoff': 'handoff',
};

// ---------------------------------------------------------------------------------------------------
// Manifest sections
// ---------------------------------------------------------------------------------------------------

const SKILL_REF = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a skill name (^[a-z0-9]+(-[a-z0-9]+)*$)');

/** A task template module's name: `intents/<name>.mjs`. */
export const INTENT_MODULE_RE = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

const IntentEntrySchema = z.union([
  SKILL_REF,
  z.strictObject({
    skill: SKILL_REF.optional(),
    generate: z.boolean().optional(),
    module: z.string().regex(INTENT_MODULE_RE, 'must be a module name (intents/<module>.mjs; ^[a-z0-9]+([-_][a-z0-9]+)*$)').optional(),
    weight: z.number().finite().positive().max(1000).optional(),
  }),
]);

/**
 * `intents:` of harness.yaml: intent -> skill name, or `{skill, generate}`; an intent of the harness's own
 * (a snake_case name no built-in intent has) is `{skill, module, weight}`.
 */
export const IntentsSectionSchema = z
  .record(z.string(), IntentEntrySchema)
  .superRefine((rec, ctx) => {
    for (const [key, entry] of Object.entries(rec)) {
      const custom = typeof entry === 'object' && entry.module !== undefined;
      if (isBuiltinIntent(key)) {
        if (typeof entry === 'object' && (entry.module !== undefined || entry.weight !== undefined)) {
          ctx.addIssue({ code: 'custom', path: [key, entry.module !== undefined ? 'module' : 'weight'], message: 'a built-in intent is generated by the environment: module and weight are for intents of your own' });
        }
      } else if (!custom) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `unknown intent (intents: ${INTENTS.join(', ')}); an intent of your own needs { skill, module, weight } (docs/HARNESS.md "Intents of your own")`,
        });
      } else if (!CUSTOM_INTENT_RE.test(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `an intent of your own is named like the built-in ones (${String(CUSTOM_INTENT_RE)})` });
      } else if (entry.weight === undefined) {
        ctx.addIssue({ code: 'custom', path: [key, 'weight'], message: 'required: the intent\'s generator weight (1 is a handoff\'s share of the production mix)' });
      } else if (entry.generate === false) {
        ctx.addIssue({ code: 'custom', path: [key, 'generate'], message: 'an intent of your own is generated by its module; leave generate out' });
      }
    }
  });

/** `strategies:` of harness.yaml: built-in strategy role (an embedded strategy skill's name) -> skill name. */
export const StrategiesSectionSchema = z.record(z.string(), SKILL_REF).superRefine((rec, ctx) => {
  for (const key of Object.keys(rec)) {
    if (!(STRATEGY_SKILLS as readonly string[]).includes(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `unknown strategy role (roles: ${STRATEGY_SKILLS.join(', ')})` });
    }
  }
});

/** `tools:` of harness.yaml: tool name -> `<service>.<operation>` or `custom.<module>`. */
export const ToolsSectionSchema = z.record(
  z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'must be a tool name (a letter, then up to 63 of A-Z a-z 0-9 _ . -)'),
  z.string().refine((s) => Object.hasOwn(SERVICE_OPERATIONS, s) || CUSTOM_SERVICE_RE.test(s), {
    message: `must be an operation (${Object.keys(SERVICE_OPERATIONS).join(', ')}) or custom.<module>`,
  }),
);

// ---------------------------------------------------------------------------------------------------
// The bindings of a loaded harness
// ---------------------------------------------------------------------------------------------------

/** The bindings of one loaded harness. Immutable. */
export class HarnessBindings {
  /** Intent -> how it is served; an intent absent here is not served. */
  readonly intents: ReadonlyMap<Intent, IntentBinding>;
  /** Built-in strategy role -> the harness's skill playing it. */
  readonly strategies: ReadonlyMap<string, string>;
  /** Tool name -> what answers it. */
  readonly tools: ReadonlyMap<string, ToolBinding>;
  /** True when every binding is the embedded harness's (names included): nothing to translate. */
  readonly identity: boolean;
  /** The harness's own intents (bound to a task template module), in harness.yaml order. */
  readonly customIntents: readonly Intent[];
  readonly #toolOfOp: ReadonlyMap<CanonicalTool, string>;

  constructor(intents: Map<Intent, IntentBinding>, strategies: Map<string, string>, tools: Map<string, ToolBinding>) {
    this.intents = intents;
    this.strategies = strategies;
    this.tools = tools;
    const byOp = new Map<CanonicalTool, string>();
    for (const [name, b] of tools) if (b.kind === 'builtin' && !byOp.has(b.op)) byOp.set(b.op, name);
    this.#toolOfOp = byOp;
    this.identity = isEmbeddedShape(intents, strategies, tools);
    this.customIntents = Object.freeze([...intents].filter(([i, b]) => b.module !== undefined && !isBuiltinIntent(i)).map(([i]) => i));
  }

  /** The harness tool bound to a built-in operation (named by its embedded tool), if any. */
  toolOf(op: CanonicalTool | string): string | undefined {
    return this.#toolOfOp.get(op as CanonicalTool);
  }

  /** The built-in operation a harness tool is bound to (undefined for custom and unknown tools). */
  opOf(tool: string): CanonicalTool | undefined {
    const b = this.tools.get(tool);
    return b?.kind === 'builtin' ? b.op : undefined;
  }

  /** The harness tool that loads skills (`environment.load_skill`). */
  get loadSkillTool(): string | undefined {
    return this.toolOf('load_skill');
  }

  /** The harness tool that discovers MCP tools (`environment.discover_tools`). */
  get discoverTool(): string | undefined {
    return this.toolOf('discover_tools');
  }

  /** The harness skill the generator's embedded skill name stands for (reply skills by intent, strategy skills by role). */
  skillFor(embeddedSkill: string, intent?: Intent): string | undefined {
    const role = intent ?? EMBEDDED_SKILL_INTENT[embeddedSkill];
    if (role !== undefined && EMBEDDED_SKILL_INTENT[embeddedSkill] !== undefined) return this.intents.get(role)?.skill;
    return this.strategies.get(embeddedSkill);
  }
}

function isEmbeddedShape(intents: Map<Intent, IntentBinding>, strategies: Map<string, string>, tools: Map<string, ToolBinding>): boolean {
  const want = embeddedIntentBindings();
  if (intents.size !== want.size) return false;
  for (const [i, b] of want) {
    const got = intents.get(i);
    if (!got || got.skill !== b.skill || got.generate !== b.generate) return false;
  }
  if (strategies.size !== STRATEGY_SKILLS.length || STRATEGY_SKILLS.some((s) => strategies.get(s) !== s)) return false;
  if (tools.size !== CANONICAL_TOOLS.length) return false;
  return CANONICAL_TOOLS.every((t) => {
    const b = tools.get(t);
    return b?.kind === 'builtin' && b.op === t;
  });
}

/** The embedded harness's intent bindings (INTENT_REPLY_SKILLS), every intent generated. */
export function embeddedIntentBindings(): Map<Intent, IntentBinding> {
  const out = new Map<Intent, IntentBinding>();
  for (const intent of INTENTS) {
    const skills = INTENT_REPLY_SKILLS[intent];
    out.set(intent, skills.length > 0 ? { skill: skills[0], generate: true } : { generate: true });
  }
  return out;
}

/** Parse one `intents:` entry. */
export function intentBindingOf(entry: z.infer<typeof IntentEntrySchema>): IntentBinding {
  if (typeof entry === 'string') return { skill: entry, generate: true };
  const b: IntentBinding = entry.skill === undefined ? { generate: entry.generate ?? true } : { skill: entry.skill, generate: entry.generate ?? true };
  if (entry.module !== undefined) b.module = entry.module;
  if (entry.weight !== undefined) b.weight = entry.weight;
  return b;
}

/** Parse one `tools:` value. */
export function toolBindingOf(value: string): ToolBinding {
  const m = CUSTOM_SERVICE_RE.exec(value);
  if (m) return { kind: 'custom', module: m[1] };
  return { kind: 'builtin', op: SERVICE_OPERATIONS[value] };
}

/** How messages name a binding: `product.get_product`, `custom.risk-report`. */
export function bindingLabel(b: ToolBinding): string {
  return b.kind === 'custom' ? `custom.${b.module}` : OPERATION_OF_TOOL[b.op];
}
