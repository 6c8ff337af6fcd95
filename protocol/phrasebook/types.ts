/**
 * The two shapes of a phrasebook entry. Entries are keyed by locale, so a caller reads its wording as
 * `TABLE[locale]`, whichever side of the import graph it stands on.
 */
import type { Locale } from '../domain.js';

/** One wording per locale, with `{name}` placeholders for the caller to fill. */
export type Phrase = Readonly<Record<Locale, string>>;

/**
 * Paraphrases per locale, with `{name}` placeholders. The order is part of the output: the task generator
 * picks among them with its seeded stream (or takes the shortest for a multi-intent part), so reordering
 * or inserting a paraphrase changes every task built from the table.
 */
export type Phrases = Readonly<Record<Locale, readonly string[]>>;
