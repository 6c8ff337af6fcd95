/**
 * `prepareVariantsInBackground` (env/env.ts): a server compiles the rest of a preset's variant pool in the
 * background once a reset has drawn from it, and never compiles a pool that no reset draws from.
 *
 * Each test gives its config an operator list of its own (a copy of OPERATORS): pools are kept per operator
 * list, so these pools start empty whatever other tests of this file compiled.
 */
import { describe, expect, it } from 'vitest';
import { createEpisode, defaultChoiceOf, defaultEnvConfig, prepareVariantsInBackground } from '../../env/index.js';
import type { EnvConfig, PreparedPool } from '../../env/index.js';
import { OPERATORS, PRESETS, compiledVariantSlots } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import type { Locale } from '../../protocol/domain.js';

const POOL = 24;

function freshConfig(): EnvConfig {
  return defaultEnvConfig({ operators: [...OPERATORS], variantPool: POOL });
}

function compiled(config: EnvConfig, preset: 'train' | 'eval', locale: Locale): number {
  return compiledVariantSlots(config.harness.get(locale), PRESETS[preset] as VariantSpec, POOL, config.operators);
}

function resetOne(config: EnvConfig, seed: number, variant: unknown, locale: Locale = 'zh-CN') {
  const c = createEpisode(config, { episode_id: `e${seed}`, seed, variant, options: { locale } });
  if (!c.ok) throw new Error(c.error.message);
  return c.episode.reset();
}

/** Let the event loop turn `n` times (the preparer compiles for about 2 ms per turn). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

describe('prepareVariantsInBackground', () => {
  it('compiles nothing until a reset draws from a pool, then only that pool, and says so once', async () => {
    const config = freshConfig();
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    try {
      await turns(20);
      for (const preset of ['train', 'eval'] as const)
        for (const locale of config.harness.locales) expect(compiled(config, preset, locale)).toBe(0);
      expect(done).toEqual([]);

      resetOne(config, 11, 'train');
      // The draw compiled its own slot; the rest come in the background.
      expect(compiled(config, 'train', 'zh-CN')).toBe(1);
      for (let i = 0; i < 500 && done.length === 0; i++) await turns(1);
      expect(compiled(config, 'train', 'zh-CN')).toBe(POOL);
      expect(done).toEqual([{ locale: 'zh-CN', variant: 'train', slots: POOL - 1, ms: expect.any(Number) }]);
      // The pools nothing drew from are still empty.
      expect(compiled(config, 'eval', 'zh-CN')).toBe(0);
      expect(compiled(config, 'train', 'en')).toBe(0);
      expect(compiled(config, 'eval', 'en')).toBe(0);

      // More draws from a finished pool start nothing more.
      resetOne(config, 12, 'train');
      await turns(20);
      expect(done).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it('prepares each locale and preset that is drawn from, in the order they were first drawn', async () => {
    const config = freshConfig();
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    try {
      resetOne(config, 21, 'eval', 'en');
      resetOne(config, 22, 'train', 'zh-CN');
      for (let i = 0; i < 1000 && done.length < 2; i++) await turns(1);
      expect(done.map((p) => [p.locale, p.variant])).toEqual([
        ['en', 'eval'],
        ['zh-CN', 'train'],
      ]);
      expect(compiled(config, 'eval', 'en')).toBe(POOL);
      expect(compiled(config, 'train', 'zh-CN')).toBe(POOL);
      expect(compiled(config, 'eval', 'zh-CN')).toBe(0);
    } finally {
      stop();
    }
  });

  it('leaves a spec that is not a preset (nor the default variant) to the resets that draw it', async () => {
    const config = freshConfig();
    const spec: VariantSpec = { families: ['tools', 'prompt'], intensity: 0.4, split: 'train' };
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    try {
      resetOne(config, 31, spec);
      await turns(50);
      expect(compiledVariantSlots(config.harness.get('zh-CN'), spec, POOL, config.operators)).toBe(1);
      expect(done).toEqual([]);
    } finally {
      stop();
    }
  });

  it('prepares the default variant when it is a spec', async () => {
    const spec: VariantSpec = { families: ['skills'], intensity: 0.5, split: 'train' };
    const base = freshConfig();
    const config: EnvConfig = { ...base, defaults: { ...base.defaults, variant: spec }, defaultVariant: defaultChoiceOf(spec) };
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    try {
      resetOne(config, 41, undefined);
      for (let i = 0; i < 500 && done.length === 0; i++) await turns(1);
      expect(done).toEqual([{ locale: 'zh-CN', variant: JSON.stringify(spec), slots: POOL - 1, ms: expect.any(Number) }]);
      expect(compiledVariantSlots(config.harness.get('zh-CN'), spec, POOL, config.operators)).toBe(POOL);
    } finally {
      stop();
    }
  });

  it('picks up a pool drawn from before it started; stopping ends the compiling', async () => {
    const config = freshConfig();
    resetOne(config, 51, 'train');
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    for (let i = 0; i < 500 && done.length === 0; i++) await turns(1);
    expect(compiled(config, 'train', 'zh-CN')).toBe(POOL);
    stop();
    resetOne(config, 52, 'eval');
    await turns(50);
    expect(compiled(config, 'eval', 'zh-CN')).toBe(1);
    expect(done).toHaveLength(1);
  });

  it('a pool of 0 (a variant compiled per reset) has nothing to prepare', async () => {
    const config = defaultEnvConfig({ operators: [...OPERATORS], variantPool: 0 });
    const done: PreparedPool[] = [];
    const stop = prepareVariantsInBackground(config, (p) => done.push(p));
    resetOne(config, 61, 'train');
    await turns(20);
    expect(done).toEqual([]);
    stop();
  });

  it('episodes are the same whether their slot was compiled by the background or by their own draw', async () => {
    const prepared = freshConfig();
    const stop = prepareVariantsInBackground(prepared);
    try {
      resetOne(prepared, 70, 'train');
      for (let i = 0; i < 500 && compiled(prepared, 'train', 'zh-CN') < POOL; i++) await turns(1);
      const onDemand = freshConfig();
      for (let seed = 71; seed < 81; seed++) expect(resetOne(prepared, seed, 'train')).toEqual(resetOne(onDemand, seed, 'train'));
    } finally {
      stop();
    }
  });
});
