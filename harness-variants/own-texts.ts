/**
 * The texts of a draft's harness a policy reads besides the output rules (each skill's description and
 * body, every prompt block but `output_rules`), normalised as the hooks match them, and whether they hold
 * a word.
 *
 * The forbidden-words operator runs on every per-task reset and must not ban a word those texts use.
 * Normalising them was most of that operator's cost, and the parts are nearly the same for every episode
 * of a pool slot: a per-task draft shares its parts with its compiled draft by identity, and replaces a
 * part it changes rather than changing it (build.ts `thinCopy`; masking and near-duplicates replace the
 * skills list, keeping the other skills). So each compiled variant owns one `OwnTexts`, which keeps per
 * part (a skill, a block) its normalised text and the words looked up in it.
 *
 * Whole-text semantics are kept exactly: the parts are joined by a newline before normalising, which
 * normalising drops, and no normalising rule reads across a line break, so the normalised whole is the
 * normalised parts end to end; a word is held when one part holds it or it spans the end of one part and
 * the start of the next.
 */
import type { Harness, PromptBlock, Skill } from '../protocol/harness.js';
import { normalizeForMatch } from '../protocol/text.js';

/** The block the output rules are stated in: per-task operators add to it, and it is not read here. */
const OUTPUT_RULES = 'output_rules';

/** The normalised own texts of a harness, made from its parts (no memo). */
export function ownTextsOf(h: Harness): string {
  const parts: string[] = [];
  for (const s of h.skills) parts.push(s.description, s.body);
  for (const b of h.prompt.blocks) if (b.id !== OUTPUT_RULES) parts.push(b.title, b.template, ...b.items);
  return normalizeForMatch(parts.join('\n'));
}

interface Part {
  /** The part's texts joined by a newline, normalised. */
  text: string;
  /** Normalised word -> whether `text` holds it. */
  holds: Map<string, boolean>;
}

export class OwnTexts {
  /** Per skill or block object (never changed in place, see above): a part dropped from every draft is dropped here too. */
  #parts = new WeakMap<Skill | PromptBlock, Part>();

  /** Whether the own texts of `h` hold `word` (normalised), exactly as `ownTextsOf(h).includes(word)`. */
  holds(h: Harness, word: string): boolean {
    const span = word.length - 1;
    /** The last `span` characters of the normalised text so far. */
    let tail = '';
    const visit = (part: Part): boolean => {
      let held = part.holds.get(word);
      if (held === undefined) part.holds.set(word, (held = part.text.includes(word)));
      if (held) return true;
      if (span > 0 && tail !== '' && (tail + part.text.slice(0, span)).includes(word)) return true;
      tail = part.text.length >= span ? part.text.slice(part.text.length - span) : (tail + part.text).slice(-span);
      return false;
    };
    for (const s of h.skills) if (visit(this.#part(s, () => [s.description, s.body]))) return true;
    for (const b of h.prompt.blocks) {
      if (b.id !== OUTPUT_RULES && visit(this.#part(b, () => [b.title, b.template, ...b.items]))) return true;
    }
    return false;
  }

  #part(key: Skill | PromptBlock, texts: () => string[]): Part {
    let part = this.#parts.get(key);
    if (part === undefined) this.#parts.set(key, (part = { text: normalizeForMatch(texts().join('\n')), holds: new Map() }));
    return part;
  }
}
