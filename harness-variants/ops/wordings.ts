/**
 * The alternative wordings an operator draws from: the base harness's own `paraphrases.yaml`
 * (docs/HARNESS.md "Alternative wordings"), keyed by its skill, tool and block names. An operator whose
 * wordings the harness does not give for any of its targets is not applicable (`notApplicable`), and
 * says why.
 */
import type { Locale } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { PARAPHRASES_FILE, harnessSetOf } from '../../harness/index.js';
import type { BlockWording, Paraphrases } from '../../harness/index.js';
import type { SplitPool } from './kit.js';

/** The wordings of a base harness's directory (undefined: it has no paraphrases.yaml). */
export function wordingsOf(base: Harness): Paraphrases | undefined {
  return harnessSetOf(base).paraphrases;
}

/** A skill's pool of one kind, if the base harness gives it. */
export function skillNames(base: Harness, skill: string, kind: 'synonyms' | 'locale_names'): SplitPool<string> | undefined {
  return wordingsOf(base)?.skills[skill]?.[kind];
}

/** A skill's description paraphrases in `locale`, if the base harness gives them. */
export function skillDescriptions(base: Harness, skill: string, locale: Locale): SplitPool<string> | undefined {
  return wordingsOf(base)?.skills[skill]?.description?.[locale];
}

/** A tool's semantic renames, if the base harness gives them. */
export function toolSynonyms(base: Harness, tool: string): SplitPool<string> | undefined {
  return wordingsOf(base)?.tools[tool]?.synonyms;
}

/** A tool's description paraphrases in `locale`, if the base harness gives them. */
export function toolDescriptions(base: Harness, tool: string, locale: Locale): SplitPool<string> | undefined {
  return wordingsOf(base)?.tools[tool]?.description?.[locale];
}

/** A prompt block's paraphrases in `locale`, if the base harness gives them. */
export function blockParaphrases(base: Harness, block: string, locale: Locale): SplitPool<BlockWording> | undefined {
  return wordingsOf(base)?.blocks[block]?.[locale];
}

/**
 * The `notApplicable` of an operator that draws `what` (e.g. `skill synonyms (skills.<skill>.synonyms)`;
 * `<locale>` stands for the base harness's locale): undefined when `has(base)` (some thing of the base
 * harness has wordings), else the reason. Memoised per base harness: it is asked on every reset.
 */
export function needsWordings(what: string, has: (base: Harness) => boolean): (base: Harness) => string | undefined {
  const memo = new WeakMap<Harness, string | null>();
  return (base) => {
    let reason = memo.get(base);
    if (reason === undefined) {
      if (has(base)) reason = null;
      else if (wordingsOf(base) === undefined) reason = `the harness has no ${PARAPHRASES_FILE}`;
      else reason = `${PARAPHRASES_FILE} gives no ${what.replaceAll('<locale>', base.locale)}`;
      memo.set(base, reason);
    }
    return reason ?? undefined;
  };
}
