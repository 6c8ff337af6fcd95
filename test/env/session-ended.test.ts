/**
 * A session keeps nothing of an episode once it ended (env/session.ts `ENDED`): a step on it is answered
 * RESET_NEEDED exactly as the episode itself answers, its id may be reset again, it counts toward
 * `max_episodes` until closed, and its episode (trace, transcript, reward) can be collected while the id
 * stays unclosed.
 */
import { describe, expect, it } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { SessionEnv, createEpisode, defaultEnvConfig, emptyStats } from '../../env/index.js';
import type { Episode, EpisodeHandle, SessionStats } from '../../env/index.js';
import { oraclePolicy } from '../../policies/index.js';

// A full GC on demand, without starting the test worker with --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const nextJob = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const config = defaultEnvConfig();

/** A session whose wrapping registers every episode it wraps with `registry`. */
function session(registry?: FinalizationRegistry<string>, maxEpisodes = 8): { s: SessionEnv; stats: SessionStats } {
  const stats = emptyStats();
  const s = new SessionEnv({
    env: () => config,
    streamSeed: 5,
    maxEpisodes,
    allowHints: true,
    wrapping: {
      wrap(episode: Episode, start): EpisodeHandle {
        registry?.register(episode, start.episode_id);
        return episode;
      },
      close: () => null,
    },
    stats: () => stats,
    log: { error: () => undefined },
    yieldEvery: 64,
  });
  return { s, stats };
}

/** The oracle's actions for an episode of this seed, played in-process. */
function oracleActions(seed: number): unknown[] {
  const created = createEpisode(config, { episode_id: 'plan', seed, variant: 'train', options: {} });
  if (!created.ok) throw new Error(created.error.message);
  const ep = created.episode;
  const { observation, info } = ep.reset();
  const p = ep.params;
  const policy = oraclePolicy.start({ seed, parser: 'openai', observation, info, privileged: { task: p.task, map: p.map, harness: p.harness } });
  const out: unknown[] = [];
  let obs = observation;
  let last = info;
  for (let i = 0; i < 12; i++) {
    const a = policy.act(obs, last);
    out.push(a);
    const r = ep.step(a);
    if (!r.ok) throw new Error(r.error.code);
    if (r.terminated || r.truncated) return out;
    obs = r.observation;
    last = r.info;
  }
  throw new Error('the oracle did not finish');
}

describe('a session once an episode ended', () => {
  it('answers a step RESET_NEEDED as the episode does, counts it, lets its id be reset, and frees it on close', async () => {
    const seed = 31;
    const actions = oracleActions(seed);
    const { s, stats } = session();
    await s.reset([{ episode_id: 'a', seed, variant: 'train' }]);
    for (const action of actions) await s.step([{ episode_id: 'a', action }]);

    // The episode's own answer after its end, for comparison.
    const twin = createEpisode(config, { episode_id: 'a', seed, variant: 'train', options: {} });
    if (!twin.ok) throw new Error(twin.error.message);
    twin.episode.reset();
    for (const action of actions) twin.episode.step(action);
    const own = twin.episode.step(actions[0]);
    expect(own.ok).toBe(false);

    const [after] = await s.step([{ episode_id: 'a', action: actions[0] }]);
    expect(after).toEqual({ ok: false, episode_id: 'a', error: !own.ok ? own.error : null });
    expect(stats.errors.RESET_NEEDED).toBe(1);
    expect(s.episodeCount).toBe(1);

    // An ended, unclosed id may be reset again (not DUPLICATE_EPISODE), and the new episode plays.
    const [again] = await s.reset([{ episode_id: 'a', seed, variant: 'train' }]);
    expect(again).toMatchObject({ ok: true, episode_id: 'a' });
    expect(s.episodeCount).toBe(1);
    const [first] = await s.step([{ episode_id: 'a', action: actions[0] }]);
    expect(first).toMatchObject({ ok: true, episode_id: 'a' });
    expect(s.close(['a'])).toEqual({ episode_ids: ['a'], unknown: [] });
    expect(s.episodeCount).toBe(0);
  });

  it('still counts an ended episode toward max_episodes until it is closed', async () => {
    const seed = 32;
    const actions = oracleActions(seed);
    const { s } = session(undefined, 1);
    await s.reset([{ episode_id: 'x', seed, variant: 'train' }]);
    for (const action of actions) await s.step([{ episode_id: 'x', action }]);
    const [refused] = await s.reset([{ episode_id: 'y', seed: 33, variant: 'train' }]);
    expect(refused).toMatchObject({ ok: false, episode_id: 'y', error: { code: 'CAPACITY_REACHED' } });
  });

  it('lets an ended, unclosed episode be collected', async () => {
    const seed = 34;
    const actions = oracleActions(seed);
    const collected = new Set<string>();
    const registry = new FinalizationRegistry<string>((id) => collected.add(id));
    const { s } = session(registry);
    await s.reset([
      { episode_id: 'ended', seed, variant: 'train' },
      { episode_id: 'live', seed, variant: 'train' },
    ]);
    for (const action of actions) await s.step([{ episode_id: 'ended', action }]);
    await s.step([{ episode_id: 'live', action: actions[0] }]);
    for (let i = 0; i < 10 && !collected.has('ended'); i++) {
      await nextJob();
      gc();
      await nextJob();
    }
    expect(collected.has('ended')).toBe(true);
    // The live one is still held (and still steps); the ended one is still unclosed.
    expect(collected.has('live')).toBe(false);
    expect(s.episodeCount).toBe(2);
    const [next] = await s.step([{ episode_id: 'live', action: actions[1] }]);
    expect(next).toMatchObject({ ok: true, episode_id: 'live' });
  });
});
