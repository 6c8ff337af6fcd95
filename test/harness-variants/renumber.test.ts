/**
 * A shuffle of numbered rules numbers them again (docs/HARNESS.md, "How its variants are drawn"): after
 * `skills.rules.shuffle` or `prompt.items.shuffle`, every numbered list reads 1..n in order, in each
 * numbering style of either locale, and the rules are the same texts (as a multiset). Rules that kept
 * their old numbers would let the original order be read back.
 */
import { describe, expect, it } from 'vitest';
import { loadBaseHarness } from '../../harness/index.js';
import { PRESETS, buildVariant } from '../../harness-variants/index.js';
import type { HarnessTransform } from '../../harness-variants/index.js';
import { PROMPT_OPS } from '../../harness-variants/ops/prompt.js';
import { SKILL_OPS } from '../../harness-variants/ops/skills.js';
import { generateTask } from '../../env/tasks/index.js';
import type { Locale, Split } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { propertyRuns } from '../property-runs.js';

const SEEDS = propertyRuns(300);
const opFrom = (ops: readonly HarnessTransform[], name: string): HarnessTransform => ops.find((o) => o.name === name) as HarnessTransform;
const STYLES = ['{n}. ', '{n}) ', '{n}）', '{n}、', '({n}) ', '（{n}）', '[{n}] ', '第{n}条：', '规则{n}：', 'Rule {n}: ', 'Step {n}: '];
const NUMBERED = /^(\d+(?:\. |\) |）|、)|\(\d+\) |（\d+）|\[\d+\] |第\d+条：|规则\d+：|Rule \d+: |Step \d+: )(.*)$/;
const BULLET = /^- (.*)$/;

/** The body with each run of `- ` rules numbered 1..n in `style`. */
function numbered(body: string, style: string): string {
  let n = 0;
  return body
    .split('\n')
    .map((line) => {
      const m = line.match(BULLET);
      if (m === null) {
        n = 0;
        return line;
      }
      return style.replace('{n}', String(++n)) + m[1];
    })
    .join('\n');
}

/** Each run of consecutive numbered lines: the numbers in order and the texts. */
function numberedRuns(lines: readonly string[]): { numbers: number[]; texts: string[] }[] {
  const runs: { numbers: number[]; texts: string[] }[] = [];
  let run: { numbers: number[]; texts: string[] } | null = null;
  for (const line of lines) {
    const m = line.match(NUMBERED);
    if (m === null) {
      run = null;
      continue;
    }
    if (run === null) runs.push((run = { numbers: [], texts: [] }));
    run.numbers.push(Number(m[1].match(/\d+/)?.[0]));
    run.texts.push(m[2]);
  }
  return runs;
}

const oneToN = (numbers: readonly number[]) => numbers.map((_, i) => i + 1);
const sorted = (xs: readonly string[]) => [...xs].sort();

/** The embedded harness of `locale` with every skill's rules and every block's items numbered in `style`. */
function numberedHarness(locale: Locale, style: string): Harness {
  const base = loadBaseHarness(locale);
  return {
    ...base,
    skills: base.skills.map((s) => ({ ...s, body: numbered(s.body, style) })),
    prompt: {
      ...base.prompt,
      blocks: base.prompt.blocks.map((b) => ({ ...b, items: b.items.map((item, i) => style.replace('{n}', String(i + 1)) + item) })),
    },
  };
}

function cells(): { seed: number; locale: Locale; split: Split; style: string }[] {
  const out: { seed: number; locale: Locale; split: Split; style: string }[] = [];
  for (let seed = 0; seed < SEEDS; seed++) {
    out.push({ seed, locale: seed % 2 === 0 ? 'zh-CN' : 'en', split: seed % 4 < 2 ? 'train' : 'eval', style: STYLES[seed % STYLES.length] });
  }
  return out;
}

function variantOf(h: Harness, op: HarnessTransform | null, seed: number, locale: Locale, split: Split) {
  const task = generateTask(seed, locale);
  if (op === null) return buildVariant(h, PRESETS[split]!, seed, task);
  return buildVariant(h, { families: [op.family], intensity: 1, split }, seed, task, [op]);
}

describe('numbered rules are numbered again after a shuffle', () => {
  it(`skills.rules.shuffle: every numbered run reads 1..n and keeps its rule texts (${SEEDS} seeds, ${STYLES.length} styles, both locales)`, () => {
    const op = opFrom(SKILL_OPS, 'skills.rules.shuffle');
    let moved = 0;
    for (const { seed, locale, split, style } of cells()) {
      const h = numberedHarness(locale, style);
      const v = variantOf(h, op, seed, locale, split);
      for (const s of v.harness.skills) {
        const before = numberedRuns(h.skills.find((b) => b.name === s.name)!.body.split('\n'));
        const after = numberedRuns(s.body.split('\n'));
        expect(after.length).toBe(before.length);
        after.forEach((run, i) => {
          expect(run.numbers, `${style} ${s.name} seed ${seed}`).toEqual(oneToN(run.numbers));
          expect(sorted(run.texts)).toEqual(sorted(before[i].texts));
          if (run.texts.join() !== before[i].texts.join()) moved++;
        });
      }
    }
    // The shuffle did move rules: the property is not met by leaving them alone.
    expect(moved).toBeGreaterThan(SEEDS);
  });

  it(`prompt.items.shuffle: numbered items read 1..n and keep their texts (${SEEDS} seeds)`, () => {
    const op = opFrom(PROMPT_OPS, 'prompt.items.shuffle');
    let moved = 0;
    for (const { seed, locale, split, style } of cells()) {
      const h = numberedHarness(locale, style);
      const v = variantOf(h, op, seed, locale, split);
      for (const b of v.harness.prompt.blocks) {
        if (b.items.length === 0) continue;
        const before = numberedRuns(h.prompt.blocks.find((x) => x.id === b.id)!.items)[0];
        const [after] = numberedRuns(b.items);
        expect(after.numbers, `${style} ${b.id} seed ${seed}`).toEqual(oneToN(after.numbers));
        expect(sorted(after.texts)).toEqual(sorted(before.texts));
        if (after.texts.join() !== before.texts.join()) moved++;
      }
    }
    expect(moved).toBeGreaterThan(SEEDS / 2);
  });

  it(`the train and eval presets: every numbered run of every skill body reads 1..n (${SEEDS} seeds)`, () => {
    for (const { seed, locale, split, style } of cells()) {
      const v = variantOf(numberedHarness(locale, style), null, seed, locale, split);
      for (const s of v.harness.skills) {
        for (const run of numberedRuns(s.body.split('\n'))) expect(run.numbers, `${style} ${s.name} seed ${seed}`).toEqual(oneToN(run.numbers));
      }
    }
  });
});
