/**
 * `OwnTexts` (harness-variants/own-texts.ts) answers "do the harness's own texts use this word?" from its
 * parts, remembered per skill and block, instead of normalising the whole text on every per-task reset.
 * Its answer must be exactly the whole text's: checked over built variants of many seeds in both locales
 * (masking and near-duplicates give drafts new skills lists and new skills), for the forbidden-word pools,
 * for words cut across every boundary between two parts, and for words that are not there; one `OwnTexts`
 * serves every harness, as one compiled variant serves every episode of its slot.
 */
import { describe, expect, it } from 'vitest';
import { PRESETS, buildVariant } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { OwnTexts, ownTextsOf } from '../../harness-variants/own-texts.js';
import { FORBIDDEN_WORDS } from '../../harness-variants/ops/pools-hooks.js';
import { generateTask } from '../../env/tasks/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import type { Harness } from '../../protocol/harness.js';
import { normalizeForMatch } from '../../protocol/text.js';
import { Rng } from '../../protocol/rng.js';
import { propertyRuns } from '../property-runs.js';

const SEEDS = propertyRuns(120);

/** Where each part's normalised text ends in the whole (the places a word can span two parts). */
function boundaries(h: Harness): number[] {
  const ends: number[] = [];
  let at = 0;
  const add = (texts: string[]) => {
    at += normalizeForMatch(texts.join('\n')).length;
    ends.push(at);
  };
  for (const s of h.skills) add([s.description, s.body]);
  for (const b of h.prompt.blocks) if (b.id !== 'output_rules') add([b.title, b.template, ...b.items]);
  return ends;
}

describe('OwnTexts', () => {
  const config = defaultEnvConfig();
  for (const locale of ['en', 'zh-CN'] as const) {
    it(`holds a word exactly when the whole normalised text does (${locale}, ${SEEDS} seeds of train and eval)`, () => {
      const base = config.harness.get(locale);
      const own = new OwnTexts();
      const rng = new Rng(7, `own-texts:${locale}`);
      const pool = [...FORBIDDEN_WORDS[locale].train, ...FORBIDDEN_WORDS[locale].eval].map(normalizeForMatch);
      let spanning = 0;
      let held = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        for (const preset of ['train', 'eval'] as const) {
          const h = buildVariant(base, { ...(PRESETS[preset] as VariantSpec), intensity: 1 }, seed, generateTask(seed, locale)).harness;
          const whole = ownTextsOf(h);
          const words = [...pool];
          const ends = boundaries(h);
          expect(ends.at(-1)).toBe(whole.length);
          for (const end of ends.slice(0, -1)) {
            const len = rng.int(2, 8);
            const start = Math.max(0, end - rng.int(1, len - 1));
            const word = whole.slice(start, start + len);
            words.push(word, word + '\u0000', `${word.slice(0, -1)}\u2603`);
            if (start < end && start + len > end) spanning++;
          }
          for (const w of words) {
            const expected = whole.includes(w);
            expect(own.holds(h, w), `${preset} seed ${seed}: ${JSON.stringify(w)}`).toBe(expected);
            if (expected) held++;
          }
        }
      }
      // The cases that matter were met: words across part boundaries, and words held.
      expect(spanning).toBeGreaterThan(8 * SEEDS);
      expect(held).toBeGreaterThan(8 * SEEDS);
    });
  }
});
