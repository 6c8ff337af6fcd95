/**
 * Compiled once, drawn per reset (harness-variants/build.ts): a seed draws a slot of its spec's pool, the
 * slot's task-independent variant is compiled once and shared, and the per-task operators fit it to each
 * task without changing what the slot's other episodes share.
 */
import { describe, expect, it } from 'vitest';
import { loadBaseHarness } from '../../harness/index.js';
import {
  OPERATORS,
  PRESETS,
  VARIANT_POOL,
  buildVariant,
  poolSlot,
  prepareVariantPool,
  slotSeed,
} from '../../harness-variants/index.js';
import type { HarnessTransform, VariantSpec } from '../../harness-variants/index.js';
import { generateTask, WORLD_POOL, taskWorldSeed } from '../../env/tasks/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { playEpisode } from '../../eval/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { mix32, slotOf, unmix32 } from '../../protocol/rng.js';

const train = PRESETS.train as VariantSpec;

/** `n` seeds that all draw `slot` of a pool of `pool`. */
function seedsOfSlot(slot: number, pool: number, n: number): number[] {
  const out: number[] = [];
  for (let k = 0; out.length < n; k++) out.push(unmix32(slot + k * pool));
  return out;
}

describe('pool slots', () => {
  it('mix32 is a bijection whose inverse unmix32 is; slotOf spreads consecutive seeds over every slot', () => {
    for (const x of [0, 1, 2, 255, 256, 0x7fffffff, 0x80000000, 0xffffffff, 123456789]) {
      expect(mix32(unmix32(x))).toBe(x);
      expect(unmix32(mix32(x))).toBe(x);
    }
    const counts = new Array<number>(VARIANT_POOL).fill(0);
    for (let s = 0; s < VARIANT_POOL * 40; s++) counts[slotOf(s, VARIANT_POOL)]++;
    // 40 per slot on average: every slot drawn, none more than twice its share.
    expect(Math.min(...counts)).toBeGreaterThan(10);
    expect(Math.max(...counts)).toBeLessThan(80);
    expect(seedsOfSlot(17, VARIANT_POOL, 5).map((s) => poolSlot(s, VARIANT_POOL))).toEqual([17, 17, 17, 17, 17]);
  });

  it('a slot compiles from a seed of its own, per split, whatever the pool size', () => {
    expect(slotSeed(3, 'train')).toBe(slotSeed(3, 'train'));
    expect(slotSeed(3, 'train')).not.toBe(slotSeed(3, 'eval'));
    expect(slotSeed(3, 'train')).not.toBe(slotSeed(4, 'train'));
  });
});

describe('compiled variants are shared and fitted per task', () => {
  const base = loadBaseHarness('zh-CN');

  it('seeds of one slot share the compiled tools; the per-task parts follow each task', () => {
    const seeds = seedsOfSlot(5, VARIANT_POOL, 60);
    const built = seeds.map((s) => buildVariant(base, train, s, generateTask(s, 'zh-CN')));
    // The tools are compiled (no per-task operator touches them): one array for the whole slot.
    for (const b of built) expect(b.harness.tools).toBe(built[0].harness.tools);
    // The per-task operators apply by the episode's own seed: some episodes of the slot mask skills,
    // some do not; the viewer's message is rewritten for some.
    const skillCounts = new Set(built.map((b) => b.harness.skills.length));
    expect(skillCounts.size).toBeGreaterThan(1);
    const perTask = new Set(OPERATORS.filter((o) => o.perTask).map((o) => o.name));
    const fitted = built.filter((b) => b.applied.some((a) => perTask.has(a)));
    expect(fitted.length).toBeGreaterThan(30);
    // Compiled operators come first in `applied`, the same for every episode of the slot.
    const compiled = built.map((b) => b.applied.filter((a) => !perTask.has(a)).join(','));
    expect(new Set(compiled).size).toBe(1);
    // The variant id names the episode's seed, not only the slot.
    expect(new Set(built.map((b) => b.variant_id)).size).toBe(seeds.length);
  });

  it('fitting never changes what the slot shares (compiled parts are frozen under the tests)', () => {
    const seeds = seedsOfSlot(9, VARIANT_POOL, 80);
    const first = buildVariant(base, train, seeds[0], generateTask(seeds[0], 'zh-CN'));
    const before = JSON.stringify(first);
    // Frozen compiled parts: a per-task operator that changed one in place would throw here.
    for (const s of seeds) buildVariant(base, train, s, generateTask(s, 'zh-CN'));
    expect(JSON.stringify(buildVariant(base, train, seeds[0], generateTask(seeds[0], 'zh-CN')))).toBe(before);
  });

  it('a variant built from a pool equals the same build again, and pool 0 compiles per seed', () => {
    for (const s of [1, 2, 3, 99, 4242]) {
      const task = generateTask(s, 'en');
      const en = loadBaseHarness('en');
      expect(JSON.stringify(buildVariant(en, train, s, task))).toBe(JSON.stringify(buildVariant(en, train, s, task)));
      const a = buildVariant(en, train, s, task, OPERATORS, 0);
      const b = buildVariant(en, train, s, task, OPERATORS, 0);
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      // Different pools are different variants of the seed (and say so in their id).
      expect(a.variant_id).not.toBe(buildVariant(en, train, s, task).variant_id);
    }
    // Pool 0: seeds of one slot of the default pool do not share a compiled variant.
    const [x, y] = seedsOfSlot(2, VARIANT_POOL, 2);
    expect(buildVariant(base, train, x, generateTask(x, 'zh-CN'), OPERATORS, 0).harness.tools).not.toBe(
      buildVariant(base, train, y, generateTask(y, 'zh-CN'), OPERATORS, 0).harness.tools,
    );
  });

  it('prepareVariantPool compiles every slot once; draws then reuse them', () => {
    const spec: VariantSpec = { families: ['tools'], intensity: 0.5, split: 'eval' };
    expect(prepareVariantPool(base, spec, 32)).toBe(32);
    const tools = new Map<number, unknown>();
    for (let s = 0; s < 400; s++) {
      const b = buildVariant(base, spec, s, generateTask(s, 'zh-CN'), OPERATORS, 32);
      const slot = poolSlot(s, 32);
      if (!tools.has(slot)) tools.set(slot, b.harness.tools);
      expect(b.harness.tools).toBe(tools.get(slot));
    }
    expect(tools.size).toBe(32);
    // A spec with its own seed has one variant whatever the episode: nothing to prepare.
    expect(prepareVariantPool(base, { ...spec, seed: 4 }, 32)).toBe(0);
    expect(prepareVariantPool(base, spec, 0)).toBe(0);
  });

  it('an operator that reads the task without saying perTask is refused with a message', () => {
    const sneaky: HarnessTransform = {
      name: 'test.sneaky',
      family: 'prompt',
      description: 'reads the task while compiled',
      apply(draft) {
        draft.harness.prompt.extra_context.push(draft.task.messages[0]);
      },
    };
    expect(() => buildVariant(base, { families: ['prompt'], intensity: 1, split: 'train' }, 1, generateTask(1, 'zh-CN'), [sneaky], 4)).toThrow(
      'a variant operator without perTask read task.messages: mark it perTask',
    );
  });
});

describe('episodes of one compiled variant stay solvable for every task', () => {
  it('the oracle scores 1.0 on 40 tasks drawn to one slot with one per-task seed (spec seed)', () => {
    const config = defaultEnvConfig();
    const rewards: number[] = [];
    for (let s = 1; s <= 40; s++) {
      // The spec's seed fixes the slot and the per-task draws; the tasks differ by episode seed.
      const rec = playEpisode(config, { policy: oraclePolicy, episodes: 1, seed: s, variant: { ...train, seed: 77 } }, s);
      rewards.push(rec.reward);
    }
    expect(rewards).toEqual(new Array(40).fill(1));
  });
});

describe('generated rooms come from a fixed pool', () => {
  it('a task seed draws one of WORLD_POOL rooms per split, and train and eval rooms differ', () => {
    const train = new Set<number>();
    const evalRooms = new Set<number>();
    for (let s = 0; s < WORLD_POOL * 8; s++) {
      train.add(taskWorldSeed(s, 'train'));
      evalRooms.add(taskWorldSeed(s, 'eval'));
    }
    expect(train.size).toBe(WORLD_POOL);
    expect(evalRooms.size).toBe(WORLD_POOL);
    expect([...train].filter((w) => evalRooms.has(w))).toEqual([]);
    // Seeds of one room still give different tasks (their own streams draw the viewer and the question).
    const [a, b] = seedsOfSlot(3, WORLD_POOL, 2);
    const ta = generateTask(a, 'zh-CN', { intent: 'product_qa' });
    const tb = generateTask(b, 'zh-CN', { intent: 'product_qa' });
    expect(ta.world_seed).toBe(tb.world_seed);
    expect(ta.id).not.toBe(tb.id);
  });
});
