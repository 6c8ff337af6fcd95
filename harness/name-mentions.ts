/**
 * Names in a harness's texts: which skill and tool names a variant rewrites wherever they stand, and
 * where a bare skill name that is also a word reads as a reference to the skill (which `validate`
 * refuses, since a variant would not rewrite it and would serve the canonical name).
 *
 * Why two classes. A variant that renames a skill or tool must rewrite every mention of it, or the
 * canonical name leaks into the text it serves. A name that cannot be an ordinary word (it holds `_` or
 * a digit: `get_product`, `faq-v2`), and every tool name (a function name), is rewritten wherever it
 * stands as a whole token. A skill name made of words (`promotion`, `after-sales`, `order-care`) is also
 * prose: the embedded English skills and tools say "after-sales policy" and "gifts the promotion does not
 * configure", and rewriting those would garble the text. Such a name is rewritten where the text marks it
 * as a name, in backticks; a bare use where it reads as the name (next to "skill"/"技能", after "load"/
 * "加载", in a sentence that speaks of skills or names the skill-loading tool) is refused with the fix, so no variant can serve it.
 * Measured on the embedded harness, examples/harness-v2 and the team fixture of test/policies: no bare
 * word-like skill name stands in such a place, and every bare one left ("after-sales policy") is prose.
 */
import type { Locale, ToolSchema } from '../protocol/domain.js';
import type { PromptSpec, Skill } from '../protocol/harness.js';

/** Whether a name is renamed wherever it stands as a whole token: it holds `_` or a digit (never a word). */
export function isIdentifierName(name: string): boolean {
  return /[_0-9]/.test(name);
}

/** Identifier characters: a name stands as a whole token when none touches it. */
const ID_CHAR = /[A-Za-z0-9_-]/;

/** Nouns that make a name next to them read as a skill or tool (English, either side; case-insensitive). */
const NOUNS = new Set(['skill', 'skills', 'tool', 'tools']);
/** Verbs that make a name after them (and an optional article) read as a skill or tool. */
const VERBS = new Set(['load', 'loads', 'loading', 'loaded', 'open', 'opens', 'call', 'calls', 'invoke', 'use', 'uses']);
const ARTICLES = new Set(['the', 'a', 'an', 'its', 'your']);
/** Chinese words that make a name next to them read as a skill or tool. */
const ZH_NOUNS = /^(?:技能|工具)/;
const ZH_NOUNS_BEFORE = /(?:技能|工具)[\s：:]*$/;
const ZH_VERBS_BEFORE = /(?:加载|打开|调用|使用|改用|改为|用)\s*$/;

/** Why a bare occurrence at `at` of `name` in `line` reads as a reference; null when it reads as prose. */
function referenceReason(line: string, at: number, name: string, loaders: readonly string[]): string | null {
  const before = line.slice(0, at);
  const after = line.slice(at + name.length);
  const next = /^\s*([A-Za-z]+)/.exec(after)?.[1]?.toLowerCase();
  if (next !== undefined && NOUNS.has(next)) return `it is followed by "${next}"`;
  if (ZH_NOUNS.test(after.trimStart())) return `it is next to "${/^\s*(技能|工具)/.exec(after)?.[1]}"`;
  const noun = /([A-Za-z]+)\s*:?\s*$/.exec(before)?.[1]?.toLowerCase();
  if (noun !== undefined && NOUNS.has(noun)) return `it follows "${noun}"`;
  const v1 = /([A-Za-z]+)\s+$/.exec(before)?.[1];
  if (v1 !== undefined && VERBS.has(v1.toLowerCase())) return `it follows "${v1}"`;
  const v2 = /([A-Za-z]+)\s+([A-Za-z]+)\s+$/.exec(before);
  if (v2 !== null && VERBS.has(v2[1].toLowerCase()) && ARTICLES.has(v2[2].toLowerCase())) return `it follows "${v2[1]} ${v2[2]}"`;
  if (ZH_NOUNS_BEFORE.test(before)) return `it follows "${/(技能|工具)[\s：:]*$/.exec(before)?.[1]}"`;
  const zhVerb = ZH_VERBS_BEFORE.exec(before);
  if (zhVerb) return `it follows "${zhVerb[0].trim()}"`;
  const sentence = sentenceAt(line, at);
  for (const l of loaders) if (mentions(sentence, l)) return `its sentence names the skill-loading tool ${l}`;
  const talk = /\b(skills?)\b|(技能)/i.exec(sentence);
  if (talk) return `its sentence speaks of "${talk[1] ?? talk[2]}"`;
  return null;
}

/** The sentence of `line` around offset `at`: sentences end at 。！？；, or at . ! ? ; before a space. */
function sentenceAt(line: string, at: number): string {
  const end = /[。！？；]|[.!?;](?=\s|$)/g;
  let start = 0;
  for (let m = end.exec(line); m !== null; m = end.exec(line)) {
    const stop = m.index + m[0].length;
    if (m.index >= at) return line.slice(start, stop);
    start = stop;
  }
  return line.slice(start);
}

/** Whether `text` holds `name` as a whole token. */
function mentions(text: string, name: string): boolean {
  return bareAt(text, name, true).length > 0;
}

/** Offsets where `name` stands bare (a whole token, not in backticks; in backticks too with `quoted`). */
function bareAt(text: string, name: string, quoted = false): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const b = text[at - 1];
    const a = text[at + name.length];
    if ((b !== undefined && ID_CHAR.test(b)) || (a !== undefined && ID_CHAR.test(a))) continue;
    if (!quoted && b === '`' && a === '`') continue;
    out.push(at);
  }
  return out;
}

/** A bare skill name that reads as a reference to the skill: the name, and why. */
export interface BareReference {
  name: string;
  reason: string;
}

/**
 * The bare uses of word-like skill names (`isIdentifierName` false) in `text` that read as a reference:
 * next to "skill"/"skills"/"tool"/"tools" or "技能"/"工具", after "load"/"open"/"use"/"call" (and an
 * article) or "加载"/"打开"/"使用"/"调用"/"改用"/"用", or in a sentence that names a skill-loading tool
 * (`loaders`) or speaks of skills ("skill", "skills", "技能"). Each name once per text.
 */
export function bareSkillReferences(text: string, skills: readonly string[], loaders: readonly string[]): BareReference[] {
  const out: BareReference[] = [];
  for (const name of skills) {
    if (isIdentifierName(name) || !text.includes(name)) continue;
    found: for (const line of text.split('\n')) {
      for (const at of bareAt(line, name)) {
        const reason = referenceReason(line, at, name, loaders);
        if (reason !== null) {
          out.push({ name, reason });
          break found;
        }
      }
    }
  }
  return out;
}

/** One `file: key: message` line per bare reference in `text`. */
function lines(file: string, key: string, text: string, skills: readonly string[], loaders: readonly string[]): string[] {
  return bareSkillReferences(text, skills, loaders).map(
    (r) =>
      `${file}: ${key}: "${r.name}" stands bare where it reads as the skill's name (${r.reason}); variants rename a skill name made of words only in backticks, so a renamed variant would still show "${r.name}": write \`${r.name}\` (or reword it as plain prose)`,
  );
}

/** Every string under `value`, with its dotted path. */
function strings(value: unknown, path: string, out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${path}.${i}`, out));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) strings(v, path ? `${path}.${k}` : k, out);
  return out;
}

/** The texts of one locale of a harness that variants serve, to check. */
export interface ServedTexts {
  locale: Locale;
  skills: readonly Skill[];
  tools: readonly ToolSchema[];
  prompt: PromptSpec;
}

/**
 * `validate`'s check: the bare skill names that read as references, in skill bodies and descriptions,
 * tool and parameter descriptions, prompt blocks (one locale's texts each) and the wordings of
 * `paraphrases.yaml` (its names, synonyms and locale names aside). `skills`: the harness's skill names;
 * `loaders`: the tools bound to the skill loader.
 */
export function bareSkillNameErrors(
  texts: readonly ServedTexts[],
  paraphrases: unknown,
  skills: readonly string[],
  loaders: readonly string[],
): string[] {
  const errors: string[] = [];
  for (const { locale, skills: list, tools, prompt } of texts) {
    for (const s of list) {
      const file = `skills/${locale}/${s.name}.md`;
      errors.push(...lines(file, 'description', s.description, skills, loaders), ...lines(file, 'body', s.body, skills, loaders));
    }
    for (const t of tools) {
      // The zh-CN descriptions are the tool files'; the en ones come from tools/i18n/en.json.
      const file = locale === 'zh-CN' ? `tools/${t.function.name}.json` : `tools/i18n/${locale}.json`;
      const key = (k: string) => (locale === 'zh-CN' ? k : `${t.function.name}${k === 'function.description' ? '' : `.${k.replace(/^function\.parameters\.properties\.(\w+)\.description$/, '$1')}`}`);
      if (t.function.description !== undefined) errors.push(...lines(file, key('function.description'), t.function.description, skills, loaders));
      for (const [p, v] of Object.entries((t.function.parameters.properties ?? {}) as Record<string, { description?: unknown }>)) {
        if (typeof v?.description === 'string') errors.push(...lines(file, key(`function.parameters.properties.${p}.description`), v.description, skills, loaders));
      }
    }
    prompt.blocks.forEach((b, i) => {
      const at = `blocks.${i}.${locale}`;
      errors.push(...lines('prompt.yaml', `${at}.title`, b.title, skills, loaders), ...lines('prompt.yaml', `${at}.template`, b.template, skills, loaders));
      b.items.forEach((item, j) => errors.push(...lines('prompt.yaml', `${at}.items.${j}`, item, skills, loaders)));
    });
  }
  for (const [path, text] of strings(paraphrases, '')) {
    if (/\.(?:synonyms|locale_names)\./.test(path)) continue;
    errors.push(...lines('paraphrases.yaml', path, text, skills, loaders));
  }
  return errors;
}
