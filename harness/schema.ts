/**
 * zod schemas of the base harness's data files and of each hook's `params`. The loader validates the
 * files once at start-up; the hook engine (env/hooks.ts) parses a hook's params once per HookSpec object,
 * so a variant's hooks are held to the same shapes as the base harness's.
 */
import { z } from 'zod';
import { CUSTOM_INTENT_RE, INTENTS, LOCALES } from '../protocol/domain.js';
import type { Locale } from '../protocol/domain.js';
import { LIMIT_RANGES } from '../protocol/harness.js';
import { PROMPT_BLOCK_ORDER, SKILL_NAME_RE } from './names.js';
import { IntentsSectionSchema, StrategiesSectionSchema, ToolsSectionSchema } from './bindings.js';

const locales = LOCALES as readonly string[];
const intents = INTENTS as readonly string[];

/** A value per locale, both locales required. */
function perLocale<T extends z.ZodType>(value: T) {
  return z.strictObject({ 'zh-CN': value, en: value });
}

/** A regex source string that compiles with the given flags. */
function regexSource(flags: string) {
  return z.string().min(1).superRefine((src, ctx) => {
    try {
      new RegExp(src, flags);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `invalid regex: ${(err as Error).message}` });
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// harness.yaml
// ---------------------------------------------------------------------------------------------------

/** harness.yaml: what names the harness. Both locales are required in this version. */
export const ManifestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit'),
  version: z.string().min(1).max(64),
  description: z.string().max(1024).optional(),
  locales: z
    .array(z.enum(locales as [Locale, ...Locale[]]))
    .refine((l) => l.length === locales.length && locales.every((x) => l.includes(x as Locale)), {
      message: `must list both locales, ${locales.join(' and ')} (every file holds both in this version)`,
    }),
  /** Intent -> the reply skill serving it (docs/HARNESS.md "Bindings"); absent: the embedded harness's. */
  intents: IntentsSectionSchema.optional(),
  /** Built-in strategy role -> the skill playing it; absent: the skills named like the roles. */
  strategies: StrategiesSectionSchema.optional(),
  /** Tool -> the operation or custom service answering it; absent: each tool by its embedded name. */
  tools: ToolsSectionSchema.optional(),
});

// ---------------------------------------------------------------------------------------------------
// Skills
// ---------------------------------------------------------------------------------------------------

/** A skill file's YAML front matter (Agent Skills format; `license` is the one optional extra). */
export const SkillFrontMatterSchema = z.strictObject({
  name: z.string().regex(SKILL_NAME_RE, 'must match ^[a-z0-9]+(-[a-z0-9]+)*$').max(64),
  description: z.string().min(1).max(1024),
  metadata: z.looseObject({
    kind: z.enum(['reply', 'strategy']),
    intents: z
      // A built-in intent, or one of the harness's own (a snake_case name; harness.yaml binds it).
      .array(z.string().refine((s) => intents.includes(s) || CUSTOM_INTENT_RE.test(s), { message: 'unknown intent' }))
      .min(1),
  }),
  license: z.string().optional(),
});

// ---------------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------------

const PropertySchema = z.looseObject({
  type: z.enum(['string', 'integer', 'number', 'boolean', 'array', 'object']),
  description: z.string().min(1),
});

/** One tool file: an OpenAI function tool with a closed object schema. */
export const ToolFileSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().min(1),
    description: z.string().min(1),
    parameters: z.strictObject({
      type: z.literal('object'),
      properties: z.record(z.string(), PropertySchema),
      required: z.array(z.string()).optional(),
      additionalProperties: z.literal(false),
    }),
  }),
});

/** `tools/i18n/<locale>.json`: `{"tool": "...", "tool.param": "..."}`. */
export const ToolI18nSchema = z.record(z.string(), z.string().min(1));

// ---------------------------------------------------------------------------------------------------
// Prompt
// ---------------------------------------------------------------------------------------------------

const LocalizedBlockSchema = z.strictObject({
  title: z.string().min(1),
  template: z.string(),
  items: z.array(z.string().min(1)),
});

/** prompt.yaml: the pipeline's styles and its blocks, each with a text per locale. */
export const PromptFileSchema = z.strictObject({
  header_style: z.enum(['markdown', 'xml', 'brackets', 'plain']),
  separator: z.string(),
  item_style: z.enum(['dash', 'numbered', 'bullet', 'prose']),
  tools_doc_style: z.enum(['none', 'json', 'xml', 'signatures']),
  /** Paragraphs appended to the prompt: one list for both locales, or one per locale. */
  extra_context: z.union([z.array(z.string()), z.strictObject({ 'zh-CN': z.array(z.string()), en: z.array(z.string()) })]),
  blocks: z.array(
    z.strictObject({
      id: z.enum(PROMPT_BLOCK_ORDER as [string, ...string[]]),
      'zh-CN': LocalizedBlockSchema,
      en: LocalizedBlockSchema,
    }),
  ),
});

// ---------------------------------------------------------------------------------------------------
// Hook params
// ---------------------------------------------------------------------------------------------------

/** input_guard: the longest viewer message (characters) the pipeline accepts. */
export const InputGuardParamsSchema = z.strictObject({
  max_input_chars: z.int().min(1),
});

/** reply_format: which checks run and the patterns they use. The length limit comes from `limits`. */
export const ReplyFormatParamsSchema = z.strictObject({
  checks: z.array(z.enum(['EMPTY_REPLY', 'TOO_LONG', 'MARKDOWN', 'EMOJI', 'THINK_LEAK'])),
  markdown_patterns: z.array(regexSource('mu')),
  emoji_pattern: regexSource('u'),
  think_pattern: regexSource('iu'),
});

/** One prohibited-phrase rule: a violation code and its pattern list per locale. */
export const PhraseRuleSchema = z.strictObject({
  code: z.string().regex(/^[A-Z][A-Z_]*$/),
  /** A match preceded (in the same clause) by a negation does not count. */
  negatable: z.boolean(),
  /** The rule is skipped when this context flag is true. */
  unless: z.literal('special_cosmetic_in_scope').optional(),
  patterns: perLocale(z.array(regexSource('iu'))),
});

/**
 * prohibited_phrases: rules in reporting order, how a negation is recognised, and the regex flags per
 * locale. English lists use "i" without "u": V8 runs case-insensitive Unicode regexes about ten times
 * slower, and the English patterns need no Unicode escapes.
 */
export const ProhibitedPhrasesParamsSchema = z.strictObject({
  flags: perLocale(z.enum(['i', 'iu'])),
  negation: perLocale(z.strictObject({ pattern: regexSource('iu'), window: z.int().min(1).max(64) })),
  rules: z.array(PhraseRuleSchema),
});

/** factual_risk: numbers a reply may always state besides the episode's evidence. */
export const FactualRiskParamsSchema = z.strictObject({
  allowed_numbers: z.array(z.number()),
});

/** output_constraints (IFEval-style, enabled by variants): every field optional. */
export const OutputConstraintsParamsSchema = z.strictObject({
  /** One list for both locales, or one per locale (`{zh-CN: [...], en: [...]}`): each episode gets its locale's. */
  forbidden_words: z
    .union([z.array(z.string().min(1)), z.strictObject({ 'zh-CN': z.array(z.string().min(1)), en: z.array(z.string().min(1)) })])
    .optional(),
  required_ending: z.string().min(1).optional(),
  language: z.enum(locales as [Locale, ...Locale[]]).optional(),
});

const EmptyParamsSchema = z.strictObject({});

/** A tool name as the harness's files spell it (canonical: the `tools/*.json` file name). */
const HookToolNameSchema = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be a tool name (^[a-z][a-z0-9_]*$)');

/** A violation message: no final punctuation (the feedback templates add it). */
const ViolationMessageSchema = z
  .string()
  .trim()
  .min(1)
  .refine((s) => !/[。．.！!？?；;，,]$/u.test(s), { message: 'must not end with punctuation (the feedback templates add it)' });

/**
 * required_call (a stop hook): once any tool of `when_called` was called in the episode, the final reply
 * is objected to with `code` and `message` until `require` was called too. Tool names are the harness's
 * canonical ones (the loader checks they are tools of the harness).
 */
export const RequiredCallParamsSchema = z
  .strictObject({
    when_called: z.array(HookToolNameSchema).min(1),
    require: HookToolNameSchema,
    code: z.string().regex(/^[A-Z][A-Z_]*$/, 'must match ^[A-Z][A-Z_]*$'),
    message: perLocale(ViolationMessageSchema),
  })
  .refine((p) => !p.when_called.includes(p.require), {
    message: 'require must not be one of when_called (the hook could never fire)',
    path: ['require'],
  });

/** The params schema of each library hook kind. */
export const HOOK_PARAM_SCHEMAS = {
  input_guard: InputGuardParamsSchema,
  tool_args: EmptyParamsSchema,
  skill_required: EmptyParamsSchema,
  reply_format: ReplyFormatParamsSchema,
  prohibited_phrases: ProhibitedPhrasesParamsSchema,
  factual_risk: FactualRiskParamsSchema,
  output_constraints: OutputConstraintsParamsSchema,
  required_call: RequiredCallParamsSchema,
} as const;

/** Parsed params of input_guard. */
export type InputGuardParams = z.infer<typeof InputGuardParamsSchema>;
/** Parsed params of reply_format. */
export type ReplyFormatParams = z.infer<typeof ReplyFormatParamsSchema>;
/** Parsed params of prohibited_phrases. */
export type ProhibitedPhrasesParams = z.infer<typeof ProhibitedPhrasesParamsSchema>;
/** Parsed params of factual_risk. */
export type FactualRiskParams = z.infer<typeof FactualRiskParamsSchema>;
/** Parsed params of output_constraints. */
export type OutputConstraintsParams = z.infer<typeof OutputConstraintsParamsSchema>;
/** Parsed params of required_call. */
export type RequiredCallParams = z.infer<typeof RequiredCallParamsSchema>;

// ---------------------------------------------------------------------------------------------------
// hooks.yaml
// ---------------------------------------------------------------------------------------------------

/**
 * hooks.yaml: limits, hooks and the retry policy. A hook's kind (its `kind`, else its id) is checked by
 * the loader, then its stage and params against that kind (loadHooks), so that every error is reported.
 */
export const HooksFileSchema = z.strictObject({
  limits: z.strictObject({
    reply_max_chars: z.int().min(LIMIT_RANGES.reply_max_chars.min).max(LIMIT_RANGES.reply_max_chars.max),
    max_turns: z.int().min(LIMIT_RANGES.max_turns.min).max(LIMIT_RANGES.max_turns.max),
  }),
  hooks: z.array(
    z.strictObject({
      id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must match ^[a-z][a-z0-9_]*$'),
      /** The library check it runs (harness/names.ts HOOK_KINDS, checked by the loader); absent: the id. */
      kind: z.string().optional(),
      /** `kind: module`: the module `hooks/<module>.mjs` that runs the check (docs/HARNESS.md "Hook modules"). */
      module: z.string().optional(),
      stage: z.enum(['input', 'tool_args', 'skill_load', 'reply']),
      enabled: z.boolean(),
      params: z.record(z.string(), z.unknown()),
    }),
  ),
  retry: z.strictObject({
    max_retries: z.int().min(0).max(2),
    mode: z.enum(['block', 'auto_correct']),
    feedback_style: z.enum(['natural', 'json', 'tagged']),
    templates: perLocale(z.record(z.string(), z.string().min(1))),
  }),
});
