import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadBaseHarness } from '../../harness/index.js';
import { FAMILIES, VARIANT_POOL, buildVariant, parseVariant, variantId } from '../../harness-variants/index.js';
import type { Family, VariantSpec } from '../../harness-variants/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { informationProblems, playEpisode, roundTripProblems, runCheck } from '../../eval/index.js';

const specArb: fc.Arbitrary<VariantSpec> = fc.record({
  families: fc.subarray([...FAMILIES] as Family[], { minLength: 1 }),
  intensity: fc.double({ min: 0, max: 1, noNaN: true }),
  split: fc.constantFrom('train' as const, 'eval' as const),
});
const seedArb = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const localeArb = fc.constantFrom('zh-CN' as const, 'en' as const);

describe('HSA properties over random specs and seeds', () => {
  it('the same spec, seed and task build the identical variant', () => {
    fc.assert(
      fc.property(specArb, seedArb, localeArb, (spec, seed, locale) => {
        const task = generateTask(seed, locale);
        const base = loadBaseHarness(locale);
        const a = buildVariant(base, spec, seed, task);
        const b = buildVariant(base, spec, seed, task);
        expect(JSON.stringify([a.harness, a.tables, a.task, a.variant_id, a.applied])).toBe(
          JSON.stringify([b.harness, b.tables, b.task, b.variant_id, b.applied]),
        );
        expect(a.variant_id).toBe(variantId(spec, seed, VARIANT_POOL));
      }),
      { numRuns: 80 },
    );
  });

  it('the oracle scores on every variant exactly what it scores on the base harness', () => {
    const env = defaultEnvConfig();
    fc.assert(
      fc.property(specArb, seedArb, localeArb, (spec, seed, locale) => {
        const base = playEpisode(env, { policy: oraclePolicy, episodes: 1, seed, variant: 'identity', locale }, seed);
        const aug = playEpisode(env, { policy: oraclePolicy, episodes: 1, seed, variant: spec, locale }, seed);
        expect(aug.reward).toBe(base.reward);
        expect(aug.components).toEqual(base.components);
      }),
      { numRuns: 80 },
    );
  });

  it('every rename round-trips and no variant removes what the task needs', () => {
    fc.assert(
      fc.property(specArb, seedArb, localeArb, (spec, seed, locale) => {
        const task = generateTask(seed, locale);
        const base = loadBaseHarness(locale);
        const v = buildVariant(base, spec, seed, task);
        expect(roundTripProblems(v, task)).toEqual([]);
        expect(informationProblems(v, base, task)).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });

  it('each family alone and all together, at full intensity, changes the harness the policy sees', () => {
    for (const families of [...FAMILIES.map((f) => [f]), [...FAMILIES]] as Family[][]) {
      let changed = 0;
      for (let seed = 0; seed < 10; seed++) {
        const task = generateTask(seed, 'zh-CN');
        const base = loadBaseHarness('zh-CN');
        const v = buildVariant(base, { families, intensity: 1, split: 'train' }, seed, task);
        if (JSON.stringify([v.harness, v.task]) !== JSON.stringify([{ ...base, id: v.harness.id }, task])) changed++;
      }
      expect(changed, families.join('+')).toBe(10);
    }
  });

  it('identity_share gives the base harness to that fraction of episodes', () => {
    let identity = 0;
    for (let seed = 0; seed < 400; seed++) {
      const task = generateTask(seed, 'zh-CN');
      const v = buildVariant(
        loadBaseHarness('zh-CN'),
        { families: [...FAMILIES], intensity: 1, split: 'train', identity_share: 0.25 },
        seed,
        task,
      );
      if (v.identity) identity++;
    }
    expect(identity).toBeGreaterThan(60);
    expect(identity).toBeLessThan(140);
  });
});

describe('variant specs', () => {
  it('parses presets and specs, and rejects the rest with a message', () => {
    expect(parseVariant('identity')).toEqual({ ok: true, spec: null, preset: 'identity' });
    expect(parseVariant('train')).toMatchObject({ ok: true, preset: 'train', spec: { split: 'train' } });
    expect(parseVariant({ families: ['tools'], intensity: 0.5, split: 'eval' })).toEqual({
      ok: true,
      spec: { families: ['tools'], intensity: 0.5, split: 'eval' },
    });
    expect(parseVariant('nope')).toMatchObject({ ok: false });
    expect(parseVariant({ families: ['tools'], intensity: 1.5, split: 'train' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('intensity'),
    });
    expect(parseVariant({ families: ['colours'], intensity: 0.5, split: 'train' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('families'),
    });
    expect(parseVariant({ families: [], intensity: 0.5, split: 'train', extra: 1 })).toMatchObject({ ok: false });
  });

  it('variant_id is a stable hash of the normalised spec, the realising seed and the pool size', () => {
    const a = variantId({ families: ['tools', 'skills'], intensity: 0.5, split: 'train' }, 9, 256);
    expect(a).toMatch(/^v-[0-9a-f]{12}$/);
    expect(variantId({ families: ['skills', 'tools', 'tools'], intensity: 0.5, split: 'train' }, 9, 256)).toBe(a);
    expect(variantId({ families: ['skills', 'tools'], intensity: 0.5, split: 'train' }, 10, 256)).not.toBe(a);
    expect(variantId({ families: ['skills', 'tools'], intensity: 0.5, split: 'train', seed: 3 }, 10, 256)).toBe(
      variantId({ families: ['skills', 'tools'], intensity: 0.5, split: 'train', seed: 3 }, 11, 256),
    );
    expect(variantId({ families: ['skills', 'tools'], intensity: 0.5, split: 'train' }, 9, 0)).not.toBe(a);
    expect(variantId({ families: ['skills', 'tools'], intensity: 0.5, split: 'train' }, 9, 512)).not.toBe(a);
  });

  it('variant_id hashes JSON [families, intensity, split, seed, pool], for frozen specs (written once) as for any', () => {
    const reference = (spec: VariantSpec, seed: number, pool: number): string => {
      const families = FAMILIES.filter((f) => spec.families.includes(f));
      const key = JSON.stringify([families, spec.intensity, spec.split, spec.seed === undefined ? seed >>> 0 : spec.seed >>> 0, pool]);
      return 'v-' + createHash('sha256').update(key).digest('hex').slice(0, 12);
    };
    const deepFrozen = (spec: VariantSpec): VariantSpec => Object.freeze({ ...spec, families: Object.freeze([...spec.families]) as Family[] });
    const poolArb = fc.constantFrom(0, 1, 32, 256, 4096);
    fc.assert(
      fc.property(specArb, fc.option(seedArb, { nil: undefined }), seedArb, poolArb, (spec, own, seed, pool) => {
        const s: VariantSpec = own === undefined ? spec : { ...spec, seed: own };
        const want = reference(s, seed, pool);
        expect(variantId(s, seed, pool)).toBe(want);
        const frozen = deepFrozen(s);
        expect(variantId(frozen, seed, pool)).toBe(want);
        // Again: the second call reads the key's start written by the first.
        expect(variantId(frozen, seed, pool)).toBe(want);
      }),
      { numRuns: 300 },
    );
    for (const preset of ['train', 'eval']) {
      const spec = parseVariant(preset);
      if (!spec.ok || spec.spec === null) throw new Error(preset);
      for (const seed of [0, 1, 2 ** 31, 2 ** 32 - 1]) expect(variantId(spec.spec, seed, VARIANT_POOL)).toBe(reference(spec.spec, seed, VARIANT_POOL));
    }
  });
});

describe('harness-gym check', () => {
  it('finds no failure over a band of seeds', () => {
    const r = runCheck({ seeds: 12, from: 1000 });
    expect(r).toEqual({
      determinism: { checked: 12 * 11, failures: 0 },
      task_preservation: { checked: 12 * 11, max_delta: 0 },
      round_trip: { checked: 12 * 11, failures: 0 },
      information: { checked: 12 * 11, failures: 0 },
      examples: [],
    });
  });
});
