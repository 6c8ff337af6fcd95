/**
 * Skills as Agent Skills Markdown: YAML front matter between `---` fences, then the body. Parsing is
 * strict (the base harness is data we ship, so a bad file is a start-up bug reported with its file and
 * key); rendering is the inverse, so variants can write skills back out.
 */
import YAML from 'yaml';
import { depthProblem, parseMessage } from '../protocol/files.js';
import type { z } from 'zod';
import type { Skill } from '../protocol/harness.js';
import { SkillFrontMatterSchema } from './schema.js';

/** Bad harness data: names the file and the key (a dotted path) that is wrong. */
export class HarnessDataError extends Error {
  readonly file: string;
  readonly key: string;

  constructor(file: string, key: string, detail: string) {
    super(`${file}: ${key}: ${detail}`);
    this.name = 'HarnessDataError';
    this.file = file;
    this.key = key;
  }
}

/** Throw a HarnessDataError for the first issue of a failed zod parse, prefixed with `base` keys. */
export function throwZodIssue(file: string, error: z.ZodError, base: readonly (string | number)[] = []): never {
  const issue = error.issues[0];
  const key = [...base, ...(issue?.path ?? [])].map(String).join('.') || '(root)';
  throw new HarnessDataError(file, key, issue?.message ?? 'invalid');
}

// The opening fence must be the very first line; the closing fence is the next line that is exactly `---`.
const FRONT_MATTER_RE = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/;

/**
 * Parse one skill file. `file` is only used in error messages. The body is returned trimmed of leading
 * and trailing blank lines. Throws HarnessDataError on a missing fence, bad YAML or a bad key.
 */
export function parseSkillMarkdown(text: string, file: string): Skill {
  const normalized = text.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  const m = FRONT_MATTER_RE.exec(normalized);
  if (!m) throw new HarnessDataError(file, 'front matter', 'expected YAML front matter between --- fences at the top');
  let data: unknown;
  try {
    data = YAML.parse(m[1]);
  } catch (err) {
    throw new HarnessDataError(file, 'front matter', `invalid YAML: ${parseMessage(err)}`);
  }
  const deep = depthProblem(data);
  if (deep !== null) throw new HarnessDataError(file, 'front matter', deep);
  const parsed = SkillFrontMatterSchema.safeParse(data ?? {});
  if (!parsed.success) throwZodIssue(file, parsed.error);
  const body = normalized.slice(m[0].length).replace(/^\s*\n/, '').trimEnd();
  if (body.trim() === '') throw new HarnessDataError(file, 'body', 'the skill body is empty');
  const fm = parsed.data;
  return {
    name: fm.name,
    description: fm.description,
    kind: fm.metadata.kind,
    intents: fm.metadata.intents.slice(),
    body,
    metadata: { ...fm.metadata, intents: fm.metadata.intents.slice() },
  };
}

/**
 * Render a skill back to Agent Skills Markdown. `kind` and `intents` are written into `metadata` from the
 * skill's fields (a variant may have changed them); other metadata keys keep their order.
 * `parseSkillMarkdown(renderSkillMarkdown(s), f)` deep-equals `s` for any valid skill.
 */
export function renderSkillMarkdown(skill: Skill): string {
  const metadata = { ...skill.metadata, kind: skill.kind, intents: skill.intents.slice() };
  const front = YAML.stringify({ name: skill.name, description: skill.description, metadata }, { lineWidth: 0 });
  return `---\n${front}---\n\n${skill.body}\n`;
}
