/**
 * The zod schema of a `Task` (protocol/domain.ts), used to validate tasks that arrive as data (JSONL task
 * files). Defined once; `TaskSchema` must accept every task the generator produces (a test checks it).
 */
import { z } from 'zod';
import type { BuiltinIntent, CustomIntent, Task } from '../../protocol/domain.js';
import { CUSTOM_INTENT_RE, INTENTS, LOCALES } from '../../protocol/domain.js';
import { WorldDataSchema, worldProblems } from './world-schema.js';

const FactSchema = z.object({ key: z.string().min(1), values: z.array(z.string().min(1)).min(1) }).strict();

const CanonicalCallSchema = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict();

const WorldStateSchema = z
  .object({
    issued_coupons: z.array(z.object({ viewer_id: z.string(), coupon_id: z.string() }).strict()),
    pushed_cards: z.array(z.number().int().min(1)),
    handoffs: z.array(z.object({ viewer_id: z.string(), order_id: z.string().optional(), reason: z.string() }).strict()),
    refusals: z.array(z.object({ category: z.string() }).strict()),
    // Stateful custom services' expected final states, by module (checked against the harness on load).
    custom: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** The answer key of a task. */
export const AnswerKeySchema = z
  .object({
    expect: z.enum(['answer', 'refuse', 'clarify', 'handoff']),
    reply_skills: z.array(z.string().min(1)),
    strategy_skills: z.array(z.string().min(1)),
    required_calls: z.array(z.object({ any_of: z.array(CanonicalCallSchema).min(1) }).strict()),
    solution: z.array(CanonicalCallSchema),
    optional_tools: z.array(z.string().min(1)),
    required_facts: z.array(FactSchema),
    forbidden_facts: z.array(FactSchema),
    answer_instead: z.object({ reply_skills: z.array(z.string().min(1)), required_facts: z.array(FactSchema).min(1) }).strict().optional(),
    expected_state: WorldStateSchema,
    optional_state: WorldStateSchema.partial().optional(),
    cta: z.boolean(),
    reference_reply: z.string(),
  })
  .strict();

/** A task as JSON (one line of a JSONL task file). */
export const TaskSchema = z
  .object({
    id: z.string().min(1),
    // A built-in intent, or a harness's own (checked against the harness where the task is served).
    intent: z.union([
      z.enum(INTENTS as unknown as [BuiltinIntent, ...BuiltinIntent[]]),
      z.string().regex(CUSTOM_INTENT_RE, `must be an intent: ${INTENTS.join(', ')}, or one of the harness's own (${String(CUSTOM_INTENT_RE)})`).transform((s) => s as CustomIntent),
    ]),
    locale: z.enum(LOCALES as unknown as [Task['locale'], ...Task['locale'][]]),
    split: z.enum(['train', 'eval']),
    world_seed: z.number().int().min(0).max(0xffffffff),
    viewer_id: z.string().min(1),
    messages: z.array(z.string().min(1)).min(1),
    history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }).strict()),
    answer_key: AnswerKeySchema,
    /** The world stated inline (env/tasks/world-schema.ts); absent: `generateWorld(world_seed, locale)`. */
    world: WorldDataSchema.optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    // Runs once the shape is valid: an inline world must also be consistent, and hold the asking viewer.
    if (task.world === undefined) return;
    for (const p of worldProblems(task.world, task.viewer_id)) ctx.addIssue({ code: 'custom', path: ['world', ...p.path], message: p.message });
  });

// Compile-time check that the schema and the protocol type agree in both directions.
type Parsed = z.infer<typeof TaskSchema>;
const _toTask = (t: Parsed): Task => t;
const _fromTask = (t: Task): Parsed => t;
void _toTask;
void _fromTask;
