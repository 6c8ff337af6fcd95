import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { Intent } from '../../../protocol/domain.js';
import { INTENTS, LOCALES } from '../../../protocol/domain.js';
import {
  INTENT_WEIGHTS,
  generateTask,
  generatedTaskId,
  parseGeneratedTaskId,
  sampleIntent,
  taskWorldSeed,
} from '../../../env/tasks/index.js';

describe('generateTask determinism', () => {
  it('the same seed and locale give byte-identical JSON', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(...LOCALES), (seed, locale) => {
        expect(JSON.stringify(generateTask(seed, locale))).toBe(JSON.stringify(generateTask(seed, locale)));
      }),
      { numRuns: 60 },
    );
  });

  it('a task regenerates from its id', () => {
    for (const locale of LOCALES) {
      for (let seed = 0; seed < 40; seed++) {
        const split = seed % 3 === 0 ? 'eval' : 'train';
        const task = generateTask(seed, locale, { split });
        const ref = parseGeneratedTaskId(task.id);
        expect(ref).toEqual({ split, locale, seed, intent: task.intent });
        if (!ref) continue;
        expect(generateTask(ref.seed, ref.locale, { intent: ref.intent, split: ref.split })).toEqual(task);
      }
    }
  });

  it('forcing the sampled intent changes nothing', () => {
    for (let seed = 100; seed < 130; seed++) {
      const sampled = generateTask(seed, 'zh-CN');
      expect(sampled.intent).toBe(sampleIntent(seed));
      expect(generateTask(seed, 'zh-CN', { intent: sampled.intent })).toEqual(sampled);
    }
  });

  it('eval and train use different worlds for the same seed', () => {
    for (let seed = 0; seed < 20; seed++) {
      const train = generateTask(seed, 'en', { intent: 'product_qa' });
      const evalTask = generateTask(seed, 'en', { intent: 'product_qa', split: 'eval' });
      expect(train.world_seed).toBe(taskWorldSeed(seed, 'train'));
      expect(evalTask.world_seed).toBe(taskWorldSeed(seed, 'eval'));
      expect(evalTask.world_seed).not.toBe(train.world_seed);
      expect(evalTask.id).toBe(`gen-eval-en-${seed}-product_qa`);
    }
  });
});

describe('task ids', () => {
  it('round-trip through generatedTaskId and parseGeneratedTaskId', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 32 }),
        fc.constantFrom(...LOCALES),
        fc.constantFrom(...INTENTS),
        fc.constantFrom('train' as const, 'eval' as const),
        (seed, locale, intent, split) => {
          expect(parseGeneratedTaskId(generatedTaskId(seed, locale, intent, split))).toEqual({ seed, locale, intent, split });
        },
      ),
    );
  });

  it('reject ids that are not generated ones', () => {
    for (const id of [
      '',
      'gen-train-zh-CN-1',
      'gen-test-zh-CN-1-chitchat',
      'gen-train-fr-1-chitchat',
      'gen-train-en-1-Dancing',
      'gen-train-en-1-9lives',
      'gen-train-en-x-chitchat',
      'task-1',
      'gen-train-en-1.5-chitchat',
    ]) {
      expect(parseGeneratedTaskId(id)).toBeNull();
    }
    // A snake_case intent may be a harness's own: the id parses, and the source says whether it serves it.
    expect(parseGeneratedTaskId('gen-train-en-1-restock_alert')).toEqual({ split: 'train', locale: 'en', seed: 1, intent: 'restock_alert' });
  });
});

describe('intent mix', () => {
  it('the weights are the production mix and sum to 1', () => {
    expect(Object.keys(INTENT_WEIGHTS).sort()).toEqual([...INTENTS].sort());
    expect(Object.values(INTENT_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('500 seeds follow the production mix within loose bounds', () => {
    const n = 500;
    const counts = Object.fromEntries(INTENTS.map((i) => [i, 0])) as Record<Intent, number>;
    for (let seed = 0; seed < n; seed++) counts[generateTask(seed, seed % 2 === 0 ? 'zh-CN' : 'en').intent]++;
    for (const intent of INTENTS) {
      const expected = INTENT_WEIGHTS[intent] * n;
      // Binomial sd is at most ~11 here; 4 sd plus slack keeps the test stable but still catches a wrong mix.
      const sd = Math.sqrt(n * INTENT_WEIGHTS[intent] * (1 - INTENT_WEIGHTS[intent]));
      expect(Math.abs(counts[intent] - expected), `${intent}: ${counts[intent]} vs ${expected}`).toBeLessThanOrEqual(4 * sd + 2);
    }
    // The big three appear in the production order.
    expect(counts.product_qa).toBeGreaterThan(counts.chitchat);
    expect(counts.chitchat + counts.clarification).toBeGreaterThan(counts.after_sales * 3);
  });

  it('sampled intents over 2000 seeds include every intent', () => {
    const seen = new Set<Intent>();
    for (let seed = 0; seed < 2000; seed++) seen.add(sampleIntent(seed));
    expect([...seen].sort()).toEqual([...INTENTS].sort());
  });
});
