/**
 * The reference policies on a harness's own intent (docs/HARNESS.md "Intents of your own"): the oracle
 * follows the module's answer key (1.0), and the memorizer fitted to the harness plays the intent from what
 * it memorised of the harness's examples (about 1 on identity), and falls on the HSA presets, where the tool
 * and skill it memorised are renamed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../eval/index.js';
import { loadHarnessDir } from '../../harness/index.js';
import { memorizerFor, oraclePolicy } from '../../policies/index.js';
import type { Locale } from '../../protocol/domain.js';
import { writeRestockHarness } from '../harness/restock-intent-harness.js';

const dir = writeRestockHarness(mkdtempSync(join(tmpdir(), 'hg-restock-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const loaded = loadHarnessDir(dir);
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const set = loaded.harness;
const EPISODES = 30;

describe.each(['zh-CN', 'en'] as Locale[])('restock_alert (%s)', (locale) => {
  const run = (policy: typeof oraclePolicy, variant: string) =>
    evaluate({ policy, episodes: EPISODES, seed: 1, variant, locale, intent: 'restock_alert', config: { harness: set } });

  it('the oracle scores 1.0 on identity, train and eval', () => {
    for (const variant of ['identity', 'train', 'eval']) {
      const r = run(oraclePolicy, variant);
      expect(r.intents).toEqual({ restock_alert: EPISODES });
      expect([variant, r.reward.mean]).toEqual([variant, 1]);
    }
  });

  it('the memorizer fitted to the harness scores at least 0.9 on identity, and less on train', () => {
    const memorizer = memorizerFor(set);
    const identity = run(memorizer, 'identity').reward.mean;
    const train = run(memorizer, 'train').reward.mean;
    expect(identity).toBeGreaterThanOrEqual(0.9);
    expect(train).toBeLessThan(identity - 0.5);
  });
});
