/**
 * A reset item and its variant are parsed once per reset (env/reset-plan.ts `resolveReset`), by every
 * player: a server session (groups and recording included), the in-process `HarnessGymEnv`, and the
 * config's default variant once per config, not per reset: a server config's once per process start
 * (the config keeps the parsed `VariantChoice`, and a worker thread receives it as plain data). Counted at the parse functions themselves:
 * `ResetItemSchema.safeParse` (the item's shape) and harness-variants' `VariantSpecSchema.safeParse`,
 * which `parseVariant` runs for every variant given as a spec object (the variants here are all spec
 * objects, so every parse of one is counted). A second parse anywhere below the resolution step (the
 * session, the episode's construction, a group member, the recorder) makes a count too high.
 *
 * And, over the sources: the item schema is read by the resolution step alone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResetItemSchema } from '../../protocol/wire.js';
import { VariantSpecSchema } from '../../harness-variants/index.js';
import { HarnessGymEnv, SessionEnv, defaultEnvConfig, emptyStats } from '../../env/index.js';
import type { EnvConfig, Episode, EpisodeHandle } from '../../env/index.js';
import { EpisodeTape, RecordEpisode } from '../../recording/index.js';
import { parseServerConfig } from '../../server/config.js';
import { serverEnvConfig } from '../../server/env-config.js';
import type { EpisodeRecordV1, EpisodeRecorder } from '../../recording/index.js';

const SPEC = { families: ['tools', 'skills'], intensity: 0.5, split: 'train' } as const;
const DEFAULT_SPEC = { families: ['prompt'], intensity: 0.4, split: 'train' } as const;

/** Counts of the two parse functions from now on. */
function counters(): { items: () => number; variants: () => number } {
  const items = vi.spyOn(ResetItemSchema, 'safeParse');
  const variants = vi.spyOn(VariantSpecSchema, 'safeParse');
  return { items: () => items.mock.calls.length, variants: () => variants.mock.calls.length };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A session whose every episode is taped, and the records of those that ended. */
function recordingSession(config: EnvConfig): { s: SessionEnv; records: EpisodeRecordV1[] } {
  const records: EpisodeRecordV1[] = [];
  const recorder: EpisodeRecorder = {
    begin: (start, episode, reset) => new EpisodeTape(start, episode, reset),
    end: (tape) => {
      records.push(
        tape.toRecord({ env: { limits: config.limits, defaults: config.defaults }, server_version: 'test', created_by: 'test' }),
      );
    },
  };
  const stats = emptyStats();
  const s = new SessionEnv({
    env: () => config,
    streamSeed: 9,
    maxEpisodes: 64,
    allowHints: false,
    wrapping: {
      wrap: (episode: Episode, start): EpisodeHandle => new RecordEpisode(episode, recorder, start),
      close: () => null,
    },
    stats: () => stats,
    log: { error: () => undefined },
    yieldEvery: 64,
  });
  return { s, records };
}

/** Step every episode with a plain reply until it ends. */
async function playOut(s: SessionEnv, ids: readonly string[]): Promise<void> {
  let live = [...ids];
  for (let turn = 0; turn < 20 && live.length > 0; turn++) {
    const out = await s.step(live.map((episode_id) => ({ episode_id, action: { text: '好的，请稍等。' } })));
    live = out.filter((r) => r.ok && !(r.terminated || r.truncated)).map((r) => (r as { episode_id: string }).episode_id);
  }
  expect(live).toEqual([]);
}

describe('a reset parses its item and its variant once', () => {
  it('in a session: plain items, GRPO group members, the default variant, and the records', async () => {
    const config = defaultEnvConfig({
      defaults: { ...defaultEnvConfig().defaults, variant: { ...DEFAULT_SPEC, families: [...DEFAULT_SPEC.families] } },
    });
    const { s, records } = recordingSession(config);
    const count = counters();
    const items = [
      { episode_id: 'a', seed: 1, variant: SPEC },
      { episode_id: 'b', seed: 2 }, // the default variant
      { episode_id: 'g1', group_id: 'g', seed: 3, variant: SPEC }, // founds a task+variant group
      { episode_id: 'g2', group_id: 'g' }, // shares the founder's parsed variant
      { episode_id: 'g3', group_id: 'g', variant: SPEC }, // compared with the group's, not parsed again
      { episode_id: 't1', group_id: 't', seed: 4, variant: SPEC, options: { group_share: 'task' } },
      { episode_id: 't2', group_id: 't' }, // a "task" member without a variant plays the group's
      { episode_id: 'c', seed: 5 }, // the default again: parsed with the config, not per reset
    ];
    const out = await s.reset(items);
    expect(out.map((r) => r.ok)).toEqual(items.map(() => true));
    const withVariant = items.filter((i) => i.variant !== undefined).length;
    expect(count.items()).toBe(items.length);
    expect(count.variants()).toBe(withVariant); // the config's default was parsed when the config was built
    // Playing the episodes to their end and writing their records parses nothing more.
    await playOut(
      s,
      items.map((i) => i.episode_id),
    );
    expect(records.length).toBe(items.length);
    expect(records.find((r) => r.episode_id === 'b')?.variant).toEqual(DEFAULT_SPEC);
    expect(records.find((r) => r.episode_id === 'a')?.summary.variant_label).toBe('spec');
    expect(count.items()).toBe(items.length);
    expect(count.variants()).toBe(withVariant);
    // A second batch: one parse per item that names a variant, none for the default.
    const again = await s.reset(
      items.map((i) => ({ ...i, episode_id: `${i.episode_id}-2`, ...(i.group_id ? { group_id: `${i.group_id}-2` } : {}) })),
    );
    expect(again.map((r) => r.ok)).toEqual(items.map(() => true));
    expect(count.items()).toBe(2 * items.length);
    expect(count.variants()).toBe(2 * withVariant);
  });

  it('in HarnessGymEnv: its arguments are resolved as a wire item is, once', () => {
    const env = new HarnessGymEnv();
    const count = counters();
    for (let seed = 0; seed < 3; seed++) env.reset({ seed, options: { variant: SPEC, locale: 'en' } });
    expect(count.items()).toBe(3);
    expect(count.variants()).toBe(3);
  });

  it("a server config's default variant: parsed once per process start, on no thread again", async () => {
    const count = counters();
    const parsed = parseServerConfig({ defaults: { variant: { ...DEFAULT_SPEC, families: [...DEFAULT_SPEC.families] } } });
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    expect(count.variants()).toBe(1); // start-up: the config's schema parses it into a VariantChoice
    expect(parsed.config.defaults?.variant).toMatchObject({ given: DEFAULT_SPEC, spec: { families: ['prompt'], intensity: 0.4 } });
    // The main thread's env config, and a worker's: the config crosses to a worker as a structured clone.
    const main = serverEnvConfig(parsed.config);
    const worker = serverEnvConfig(structuredClone(parsed.config));
    for (const config of [main, worker]) {
      expect(config.defaultVariant.given).toBe(config.defaults.variant);
      expect(Object.isFrozen(config.defaultVariant.spec)).toBe(true);
      const { s, records } = recordingSession(config);
      const out = await s.reset([1, 2, 3].map((seed) => ({ episode_id: `d${seed}`, seed })));
      expect(out.map((r) => r.ok)).toEqual([true, true, true]);
      await playOut(s, ['d1', 'd2', 'd3']);
      expect(records.map((r) => r.variant)).toEqual([DEFAULT_SPEC, DEFAULT_SPEC, DEFAULT_SPEC]);
    }
    expect(count.variants()).toBe(1);
    expect(count.items()).toBe(6);
  });

  it("a server config's preset default crosses to a worker as the preset itself", () => {
    const parsed = parseServerConfig({ defaults: { variant: 'eval' } });
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const main = serverEnvConfig(parsed.config).defaultVariant;
    const worker = serverEnvConfig(structuredClone(parsed.config)).defaultVariant;
    expect(worker).toEqual(main);
    expect(worker.spec).toBe(main.spec);
  });

  it('counts a parse that happens twice (the counter can fail)', () => {
    const count = counters();
    VariantSpecSchema.safeParse(SPEC);
    VariantSpecSchema.safeParse(SPEC);
    ResetItemSchema.safeParse({});
    expect([count.items(), count.variants()]).toEqual([1, 2]);
  });
});

const ROOT = resolve(import.meta.dirname, '../..');

/** Source files (relative), less tests, build output and dependencies. */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules' || (dir === ROOT && (name === 'test' || name === 'dist'))) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.ts$/.test(name)) out.push(relative(ROOT, p));
  }
  return out;
}

describe('the reset item schema', () => {
  it('is read by the resolution step alone (protocol/ defines and exports it)', () => {
    const readers = sources(ROOT).filter((f) => /\bResetItemSchema\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(readers.sort()).toEqual(['env/reset-plan.ts', 'protocol/index.ts', 'protocol/wire.ts']);
  });

  it('and no file on the reset path below it parses a variant (session, episode, wrappers, recorder tape)', () => {
    for (const f of ['env/session.ts', 'env/episode.ts', 'env/wrappers.ts', 'env/gym.ts', 'server/hosts.ts', 'server/compose.ts']) {
      expect({ f, parses: /\b(parseVariant|variantRangeError|VariantSpecSchema)\b/.test(readFileSync(join(ROOT, f), 'utf8')) }).toEqual({
        f,
        parses: false,
      });
    }
  });
});
