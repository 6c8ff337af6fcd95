/**
 * The shape check of an episode record value (docs/RECORDS.md "Episode record"): every field `inspect`,
 * `replay`, `rescore` and `view` read, with its type, so a tampered or foreign record is refused by the
 * reader, naming what is wrong, instead of failing later inside a command ("Cannot read properties of
 * undefined"). Fields a command only passes on (the variant, the options, the answer key's contents,
 * the final state) are checked to be of the right kind (object, array), not deeper: the code that uses
 * them validates them itself. Optional fields are those older records lack.
 */
import { z } from 'zod';

const str = z.string();
const num = z.number(); // finite: NaN and Infinity are refused
const obj = z.record(z.string(), z.unknown());
const bytes = z.instanceof(Uint8Array, { message: 'expected bytes' });

const taskSchema = z.object({
  id: str,
  intent: str,
  locale: str,
  split: str.optional(),
  viewer_id: str,
  messages: z.array(str),
  history: z.array(z.object({ role: str, content: str })),
  answer_key: obj,
});

const hookViolation = z.object({ hook: str, code: str, message: str });

const traceSchema = z.object({
  task_id: str,
  intent: str,
  locale: str,
  turns: z.array(
    z.object({
      index: num,
      thinking: str.nullable(),
      content: str.nullable(),
      calls: z.array(z.object({ id: str, name: str, surface_name: str, arguments: obj.nullable(), ok: z.boolean() })),
      hook_violations: z.array(hookViolation),
      kind: str,
    }),
  ),
  loaded_skills: z.array(str),
  reply_skill_names: z.array(str),
  final_reply: str.nullable(),
  outcome: str,
  final_state: obj,
  evidence_numbers: z.array(num),
  limits: z.object({ reply_max_chars: num, max_turns: num }),
  rule_violations: z.array(hookViolation).optional(),
  required_ending: str.optional(),
  tool_operations: z.record(z.string(), str).optional(),
});

const rewardSchema = z.object({
  reward: num,
  components: z.record(z.string(), num),
  details: z.record(z.string(), z.object({ value: num, reasons: z.array(str), failed: z.boolean().optional() })),
  segments: z.object({ tool: num.nullable(), reply: num.nullable() }),
  caps: z.array(str).optional(),
});

const profileSchema = z.object({
  name: str,
  modules: z.array(z.object({ name: str, weight: num, params: obj.optional() })),
  gates: z.array(z.object({ module: str, below: num, cap: num })).optional(),
});

/** An episode record as the commands read it (the value is kept as decoded; this only checks it). */
export const episodeRecordSchema = z.object({
  type: z.literal('episode'),
  episode_id: str,
  created_episode_id: str,
  seed: num,
  variant: z.unknown(),
  variant_seed: num,
  variant_id: str,
  task_split: str.optional(),
  variant_split: str.optional(),
  record_version: num.optional(),
  variant_pool: num.optional(),
  options: obj,
  oracle_hints: z.boolean(),
  task: taskSchema,
  source_task: taskSchema,
  env: z.object({ limits: z.object({ max_turns: num, max_errors: num }), defaults: obj }),
  harness: z.object({ name: str, version: str, hash: str }).optional(),
  reward_profile: str,
  profile: profileSchema,
  reward_modules: z.record(z.string(), str),
  server_version: str,
  created_by: str,
  reset: z.object({ hash: str, out: bytes }),
  steps: z.array(
    z.object({
      action: z.unknown(),
      hash: str.optional(),
      out: bytes.optional(),
      error: z.object({ code: str, message: str }).optional(),
    }),
  ),
  reward: rewardSchema,
  trace: traceSchema,
  summary: z.object({
    intent: str,
    outcome: str,
    reward: num,
    turns: num,
    variant_label: str,
    variant_families: z.array(str),
    hooks_violated: z.array(str),
    violation_codes: z.array(str),
    locale: str,
    task_split: str.optional(),
    variant_split: str.optional(),
  }),
});

/** At most this many problems are named per record; the rest are counted. */
const MAX_ISSUES = 3;

/** One line (no control characters), at most `max` characters. */
function oneLine(s: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The type of a value in words (`string`, `array`, `null`, `missing`). */
function kindOf(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Uint8Array) return 'bytes';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * What is wrong with an episode value, in one line (`trace: expected object, got string; steps: missing`),
 * or null when it has the shape the commands read.
 */
export function episodeRecordProblem(value: unknown): string | null {
  const r = episodeRecordSchema.safeParse(value);
  if (r.success) return null;
  const parts = r.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.') || '(record)';
    if (issue.code === 'invalid_type') {
      const got = kindOf(valueAt(value, issue.path));
      return got === 'missing' ? `${path}: missing` : `${path}: expected ${issue.expected}, got ${got}`;
    }
    return `${path}: ${issue.message}`;
  });
  const more = r.error.issues.length - MAX_ISSUES;
  if (more > 0) parts.push(`${more} more problem${more === 1 ? '' : 's'}`);
  return oneLine(parts.join('; '), 400);
}
