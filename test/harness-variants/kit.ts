/** Shared pieces of the per-family operator tests: the case grid, operator lookup, pool disjointness. */
import { expect } from 'vitest';
import type { Locale, Split } from '../../protocol/domain.js';
import type { HarnessTransform } from '../../harness-variants/index.js';
import type { SplitPool } from '../../harness-variants/ops/kit.js';
import { oraclePolicy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { propertyRuns } from '../property-runs.js';

/** Seeds per (split, locale) cell. */
export const SEEDS = propertyRuns(40);
export const SPLITS: readonly Split[] = ['train', 'eval'];
export const LOCALES: readonly Locale[] = ['zh-CN', 'en'];

/** The operator of that name in a family's list (a typo in a test is an error, not a skip). */
export function opFrom(ops: readonly HarnessTransform[], name: string): HarnessTransform {
  const found = ops.find((o) => o.name === name);
  if (!found) throw new Error(`no operator ${name}`);
  return found;
}

/** Every (seed, locale, split) cell of the grid. */
export function* cases(): Generator<{ seed: number; locale: Locale; split: Split }> {
  for (const split of SPLITS) for (const locale of LOCALES) for (let seed = 0; seed < SEEDS; seed++) yield { seed, locale, split };
}

/** The eval half of a pool shares nothing with the train half (compared by `key`, JSON by default). */
export function expectDisjoint<T>(pool: SplitPool<T>, label?: string, key: (x: T) => string = (x) => JSON.stringify(x)): void {
  const train = new Set(pool.train.map(key));
  expect(
    pool.eval.map(key).filter((x) => train.has(x)),
    label,
  ).toEqual([]);
}

/** The oracle, alone with `op` at full intensity, scores exactly 1 with no refused action. */
export function expectOracleScoresOne(op: HarnessTransform, split: Split, locale: Locale): void {
  const summary = evaluate({
    policy: oraclePolicy,
    episodes: SEEDS,
    seed: 1,
    variant: { families: [op.family], intensity: 1, split },
    locale,
    config: { operators: [op] },
  });
  expect(summary.reward.mean, `${op.name} ${split}/${locale}`).toBe(1);
  expect(summary.errors).toBe(0);
}
