/**
 * The harness `h = (S, T, P, K)` as plain data: Skills, Tools, the system-prompt Pipeline and Hooks.
 * The base harness is loaded from `harness/` (Markdown + YAML + JSON); variants (harness-variants/) are
 * values of the same type, so the episode engine never hard-codes a name.
 */
import type { Locale, ToolSchema } from './domain.js';

/** A skill in the Agent Skills format. Reply skills shape the final reply; strategy skills guide it. */
export interface Skill {
  /** `^[a-z0-9]+(-[a-z0-9]+)*$` in the base harness; variants may rename it. */
  name: string;
  description: string;
  kind: 'reply' | 'strategy';
  /** Intents the skill serves (canonical intent names; metadata, never shown to the policy as such). */
  intents: string[];
  /** The Markdown body: reply strategy, tool choice, tone. Returned by load_skill. */
  body: string;
  /** The YAML front matter's `metadata` map, as written. */
  metadata: { [key: string]: unknown };
}

/** The blocks of the system prompt, in the production pipeline's vocabulary. */
export type PromptBlockId =
  'persona' | 'product_specs' | 'faq' | 'room_state' | 'prohibitions' | 'skills_index' | 'tools_doc' | 'output_rules';

/** One block of the system prompt: a title and a template with `{{placeholders}}` the renderer fills. */
export interface PromptBlock {
  id: PromptBlockId;
  title: string;
  /** Template lines. Placeholders: see env/prompt.ts. */
  template: string;
  /** Static items of the block (rules, prohibitions), rendered as a list; may be reordered by variants. */
  items: string[];
}

export type HeaderStyle = 'markdown' | 'xml' | 'brackets' | 'plain';

export interface PromptSpec {
  blocks: PromptBlock[];
  header_style: HeaderStyle;
  /** Placed between blocks. */
  separator: string;
  /** How list items render: "- ", "1. ", "• ", or prose (joined into sentences). */
  item_style: 'dash' | 'numbered' | 'bullet' | 'prose';
  /** How the tools are documented inside the prompt (besides the API's `tools`). */
  tools_doc_style: 'none' | 'json' | 'xml' | 'signatures';
  /** Irrelevant context paragraphs appended by a variant (never facts about the task). */
  extra_context: string[];
  /** Progressive disclosure: the skills index shows descriptions only (default) or each body inline. */
  skills_disclosure?: 'index' | 'inline';
}

/** Where a hook runs in the request pipeline. */
export type HookStage = 'input' | 'tool_args' | 'skill_load' | 'reply';

/**
 * A declarative hook. `id` names it (unique in a harness; reported as `hook` in violations); `kind` is
 * the library check it runs (harness/names.ts `HOOK_KINDS`), absent when it is the id (every hook of the
 * embedded harness); `params` are its settings, in the kind's schema.
 */
export interface HookSpec {
  id: string;
  kind?: string;
  /** `kind: module` hooks: the module `hooks/<module>.mjs` of the harness directory that runs the check. */
  module?: string;
  stage: HookStage;
  enabled: boolean;
  params: { [key: string]: unknown };
}

/** The library check a hook runs: its `kind`, or its id when it has none. Look hooks up by this, never by id. */
export function hookKind(spec: Pick<HookSpec, 'id' | 'kind'>): string {
  return spec.kind ?? spec.id;
}

export type FeedbackStyle = 'natural' | 'json' | 'tagged';

/** What happens when a reply hook objects. */
export interface RetryPolicy {
  /** How many times a rejected reply may be retried (0-2). */
  max_retries: number;
  /** `block`: feedback and a retry; `auto_correct`: the environment repairs what it can (length, markdown). */
  mode: 'block' | 'auto_correct';
  feedback_style: FeedbackStyle;
  feedback_locale: Locale;
  /** Feedback templates per violation code; `{message}` and `{evidence}` are filled. */
  templates: { [code: string]: string };
}

/** The numeric limits stated in the prompt and enforced by the hooks. */
export interface HarnessLimits {
  reply_max_chars: number;
  max_turns: number;
}

/** Legal range of the limits: a variant may move them within these bounds. */
/**
 * The longest reference reply the task generator writes (code points). A base harness must allow at least
 * this many characters per reply (`limits.reply_max_chars`), or the tasks' own answers would be too long.
 */
export const REFERENCE_MAX_CHARS = 120;

export const LIMIT_RANGES = {
  reply_max_chars: { min: 60, max: 200 },
  max_turns: { min: 6, max: 12 },
} as const;

export interface Harness {
  /** `base` for the base harness; a variant id otherwise. */
  id: string;
  locale: Locale;
  skills: Skill[];
  /** Canonical tool schemas in the order presented. */
  tools: ToolSchema[];
  prompt: PromptSpec;
  hooks: HookSpec[];
  retry: RetryPolicy;
  limits: HarnessLimits;
  /** A variant's names for canonical fields, so that labels the prompt prints (viewer_id) follow renames. */
  field_names?: { [canonical: string]: string };
}

/**
 * JSON Schema extension keyword marking a parameter a variant's MCP server announces only after discovery
 * (`tools.mcp.list_changed`). The operator sets it; the episode strips it before offering a schema, so
 * policies never see it.
 */
export const MCP_LIST_CHANGED_MARK = 'x-mcp-list-changed';
