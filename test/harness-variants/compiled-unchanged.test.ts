/**
 * A compiled variant is shared by every episode its pool slot draws (harness-variants/build.ts), and only
 * its tools and skills lists are frozen (the same in tests as in a server). So nothing an episode does may
 * change it: after episodes of many tasks on one slot, played by the oracle and by the random policy (tool
 * errors, retries, hook violations), the variant's surface harness and rename tables are what they were.
 */
import { describe, expect, it } from 'vitest';
import { PRESETS, buildVariant } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { playEpisode } from '../../eval/index.js';
import { oraclePolicy, randomPolicy } from '../../policies/index.js';

describe('a compiled variant after the episodes drawn to it', () => {
  const config = defaultEnvConfig();
  const base = config.harness.get(config.defaults.locale);
  const train = PRESETS.train as VariantSpec;
  const specs: [string, VariantSpec][] = [
    ['train', train],
    ['eval', PRESETS.eval as VariantSpec],
    ['every operator family at intensity 1', { ...train, intensity: 1 }],
  ];
  for (const [label, preset] of specs) {
    it(`is unchanged (${label}; one slot, 20 tasks, oracle and random policy)`, () => {
      const spec: VariantSpec = { ...preset, seed: 77 };
      const built = buildVariant(base, spec, 0, generateTask(1, base.locale));
      expect(built.identity).toBe(false);
      const before = JSON.stringify({ harness: built.harness, tables: built.tables });
      for (let s = 1; s <= 20; s++) {
        playEpisode(config, { policy: oraclePolicy, episodes: 1, seed: s, variant: spec }, s);
        playEpisode(config, { policy: randomPolicy, episodes: 1, seed: s, variant: spec }, s);
      }
      expect(JSON.stringify({ harness: built.harness, tables: built.tables })).toBe(before);
    });
  }
});
