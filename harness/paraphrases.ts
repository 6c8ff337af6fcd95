/**
 * `paraphrases.yaml` of a harness directory (docs/HARNESS.md "Alternative wordings"): the alternative
 * wordings the HSA operators draw from — synonyms and locale-style names of skills, synonyms of tools,
 * paraphrased skill and tool descriptions, paraphrased prompt blocks — keyed by the harness's own skill,
 * tool and block names. Every list has a `train` half and a held-out `eval` half (the `eval` split draws
 * only from the second). The team writes them (or generates them offline with a strong model and reviews
 * them); an operator whose wordings the file does not give is not applicable. The file is optional.
 *
 * Kept free of loader.ts imports (loader.ts imports this module): the error lines replicate its
 * `zodIssueLines` format, `file: key.path: message`.
 */
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { LOCALES } from '../protocol/domain.js';
import { FILE_LIMITS, FileProblem, depthProblem, parseMessage, readText } from '../protocol/files.js';
import type { Locale } from '../protocol/domain.js';
import { PROMPT_PLACEHOLDERS } from './names.js';
import { deepFreeze } from '../protocol/objects.js';

/** The file's name in a harness directory. */
export const PARAPHRASES_FILE = 'paraphrases.yaml';

/** Alternatives with a training half and a held-out half that the `train` split never uses. */
export interface WordingPool<T> {
  readonly train: readonly T[];
  readonly eval: readonly T[];
}

/** A value per harness locale; a locale left out has none. */
export type PerLocale<T> = Readonly<Partial<Record<Locale, T>>>;

/** A paraphrase of one prompt block: a part left out keeps the block's current text. */
export interface BlockWording {
  readonly title?: string;
  readonly template?: string;
  readonly items?: readonly string[];
}

/** The wordings of one skill. */
export interface SkillWordings {
  /** Semantic renames (`skills.rename.semantic`), the same in every locale. */
  readonly synonyms?: WordingPool<string>;
  /** Chinese or pinyin names (`skills.rename.locale`), the same in every locale. */
  readonly locale_names?: WordingPool<string>;
  /** Paraphrased descriptions (`skills.describe.paraphrase`), per locale. */
  readonly description?: PerLocale<WordingPool<string>>;
}

/** The wordings of one tool. */
export interface ToolWordings {
  /** Semantic renames (`tools.rename.semantic`). */
  readonly synonyms?: WordingPool<string>;
  /** Paraphrased descriptions (`tools.describe.paraphrase`), per locale. */
  readonly description?: PerLocale<WordingPool<string>>;
}

/**
 * A loaded `paraphrases.yaml`, deep-frozen. The three maps have no prototype, so any skill, tool or
 * block name can be looked up (an absent one is `undefined`, even `constructor`).
 */
export interface Paraphrases {
  readonly skills: Readonly<Record<string, SkillWordings>>;
  readonly tools: Readonly<Record<string, ToolWordings>>;
  /** Paraphrases of prompt blocks (`prompt.instructions.paraphrase`), per block id and locale. */
  readonly blocks: Readonly<Record<string, PerLocale<WordingPool<BlockWording>>>>;
}

/** The names a harness has, that the file's keys must be among. */
export interface ParaphraseNames {
  skills: readonly string[];
  tools: readonly string[];
  blocks: readonly string[];
}

const DIGIT_RE = /\p{Nd}/u;
const PLACEHOLDER_RE = /\{\{(\w+)\}\}/g;

/** A non-empty text without digits (numbers a reply may state come from tools and the room). */
const Text = z
  .string()
  .min(1, 'must not be empty')
  .refine((s) => !DIGIT_RE.test(s), { message: 'contains a digit: numbers come from tools and the room, never from harness text' });

/** Text of a prompt block: also only the placeholders the prompt renderer fills. */
const BlockText = Text.superRefine((s, ctx) => {
  for (const m of s.matchAll(PLACEHOLDER_RE)) {
    if (!PROMPT_PLACEHOLDERS.includes(m[1])) {
      ctx.addIssue({ code: 'custom', message: `unknown placeholder {{${m[1]}}} (placeholders: ${PROMPT_PLACEHOLDERS.join(', ')})` });
    }
  }
});

/** A tool name as OpenAI function calling allows it. */
const ToolName = Text.regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be a tool name: 1-64 of A-Z, a-z, 0-9, "_", "-"' });

/** A skill name: one word of at most 64 characters (any script: 商品答疑 and shangpin-dayi are both names). */
const SkillName = Text.regex(/^\S{1,64}$/u, { message: 'must be a skill name: one word (no spaces) of at most 64 characters' });

/** A pool: two non-empty halves with no entry in both. */
function pool<T extends z.ZodType>(entry: T) {
  const half = z.array(entry).min(1, { message: 'must not be empty: every list has a train half and a held-out eval half' });
  return z.strictObject({ train: half, eval: half }).superRefine((p, ctx) => {
    const train = new Set(p.train.map((x) => JSON.stringify(x)));
    p.eval.forEach((x, i) => {
      if (train.has(JSON.stringify(x))) ctx.addIssue({ code: 'custom', path: ['eval', i], message: 'is in the train half too: the eval half is held out' });
    });
  });
}

function perLocale<T extends z.ZodType>(value: T) {
  return z.strictObject(Object.fromEntries(LOCALES.map((l) => [l, value.optional()])) as Record<Locale, z.ZodOptional<T>>);
}

const BlockWordingSchema = z
  .strictObject({ title: BlockText.optional(), template: BlockText.optional(), items: z.array(BlockText).min(1, { message: 'must not be empty' }).optional() })
  .refine((b) => b.title !== undefined || b.template !== undefined || b.items !== undefined, { message: 'gives none of title, template, items' });

/** The schema of `paraphrases.yaml` (docs/HARNESS.md); which keys name the harness's things is checked apart. */
export const ParaphrasesFileSchema = z.strictObject({
  skills: z
    .record(z.string(), z.strictObject({ synonyms: pool(SkillName).optional(), locale_names: pool(SkillName).optional(), description: perLocale(pool(Text)).optional() }))
    .optional(),
  tools: z.record(z.string(), z.strictObject({ synonyms: pool(ToolName).optional(), description: perLocale(pool(Text)).optional() })).optional(),
  blocks: z.record(z.string(), perLocale(pool(BlockWordingSchema))).optional(),
});

/** Keys of one section that name nothing of the harness. */
function unknownKeys(raw: unknown, section: keyof ParaphraseNames, names: readonly string[], errors: string[]): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  const value = (raw as Record<string, unknown>)[section];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const what = { skills: 'skill', tools: 'tool', blocks: 'prompt block' }[section];
  for (const key of Object.keys(value)) {
    if (!names.includes(key)) errors.push(`${PARAPHRASES_FILE}: ${section}.${key}: not a ${what} of this harness (${section}: ${names.join(', ')})`);
  }
}

/** A record without a prototype, holding `r`'s entries in order. */
function bare<T>(r: Record<string, T> | undefined): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, r ?? {});
}

/** Whether a path is a link (a dangling one does not "exist", and is still refused). */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Load `paraphrases.yaml` of a harness directory: undefined when the file is absent (no error), or when
 * it is invalid, with every problem pushed as `paraphrases.yaml: key.path: message` (a key naming no
 * skill, tool or block of `names`; an empty half; an entry in both halves; a digit; an unknown
 * placeholder; a key the schema does not know; the YAML itself).
 */
export function loadParaphrases(dir: string, names: ParaphraseNames, errors: string[]): Paraphrases | undefined {
  const path = join(dir, PARAPHRASES_FILE);
  if (!existsSync(path) && !isLink(path)) return undefined;
  let text: string;
  try {
    text = readText(path, { maxBytes: FILE_LIMITS.harness_yaml_bytes, what: PARAPHRASES_FILE, within: dir });
  } catch (err) {
    errors.push(`${PARAPHRASES_FILE}: (file): ${err instanceof FileProblem ? err.reason : `cannot read: ${(err as Error).message}`}`);
    return undefined;
  }
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (err) {
    errors.push(`${PARAPHRASES_FILE}: (file): invalid YAML: ${parseMessage(err)}`);
    return undefined;
  }
  const deep = depthProblem(raw);
  if (deep !== null) {
    errors.push(`${PARAPHRASES_FILE}: (file): ${deep}`);
    return undefined;
  }
  const before = errors.length;
  const parsed = ParaphrasesFileSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push(`${PARAPHRASES_FILE}: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  }
  unknownKeys(raw, 'skills', names.skills, errors);
  unknownKeys(raw, 'tools', names.tools, errors);
  unknownKeys(raw, 'blocks', names.blocks, errors);
  if (!parsed.success || errors.length > before) return undefined;
  const data = parsed.data;
  return deepFreeze({ skills: bare(data.skills), tools: bare(data.tools), blocks: bare(data.blocks) } as Paraphrases);
}
