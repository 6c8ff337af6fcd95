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
import { customScripts } from '../../policies/memorizer-custom.js';
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

describe('an argument read from an earlier call result (examples/harness-v3 restock_alert)', () => {
  const v3 = loadHarnessDir(join(import.meta.dirname, '../../examples/harness-v3'));
  if (!v3.ok) throw new Error(v3.errors.join('\n'));

  it('learns sku_id as the sold-out element of the check_stock result, and scores 1 on identity', () => {
    const [script] = customScripts(v3.harness, 'zh-CN');
    expect(script.calls.map((c) => c.tool)).toEqual(['check_stock', 'subscribe_restock']);
    expect(Object.fromEntries(script.calls[1].args)).toEqual({
      item_id: { from: 'item_id' },
      sku_id: { from: 'result', call: 0, list: ['skus'], field: 'sku_id', where: { stock: 0, stock_status: 'sold_out' } },
    });
    const r = evaluate({
      policy: memorizerFor(v3.harness),
      episodes: 10,
      seed: 1,
      variant: 'identity',
      locale: 'zh-CN',
      intent: 'restock_alert',
      config: { harness: v3.harness },
    });
    expect(r.reward.mean).toBe(1);
  });
});
