// Regression: `eval --intent marketing --episodes 300 --seed 1` crashed with "no marketing task fits world
// ...": a forced intent must always find a world that supports it.
import { describe, expect, it } from 'vitest';
import { INTENTS } from '../../../protocol/domain.js';
import { generateTask, parseGeneratedTaskId } from '../../../env/tasks/index.js';

describe('a forced intent fits every seed', () => {
  it.each(INTENTS)('%s over 300 seeds (zh-CN) and 100 (en) never throws and regenerates from its id', (intent) => {
    for (const [locale, n] of [
      ['zh-CN', 300],
      ['en', 100],
    ] as const) {
      for (let seed = 1; seed <= n; seed++) {
        const task = generateTask(seed, locale, { intent });
        expect(task.intent).toBe(intent);
        const ref = parseGeneratedTaskId(task.id);
        expect(ref).not.toBeNull();
        expect(generateTask(ref!.seed, ref!.locale, { intent: ref!.intent, split: ref!.split })).toEqual(task);
      }
    }
  });
});
