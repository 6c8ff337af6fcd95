/**
 * Precomputed oracle actions for the throughput phase. An episode is fixed by its seed, variant and
 * options (PROTOCOL.md "seed fixes the episode"), so the bench plays each one in-process first
 * (env `createEpisode` + the oracle, as `policies/evaluate.ts` does) and keeps the actions; the remote
 * episode with the same reset sees the same observations and accepts the same actions. The server then
 * does no oracle work during the timed phase, and the bench does none either.
 */
import { createEpisode, defaultEnvConfig } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';

/** The variant preset of every load-phase episode: the augmented, training-time reset. */
export const LOAD_VARIANT = 'train';

/** One planned episode: the reset item's fields and the actions to send, in order. */
export interface PlannedEpisode {
  episode_id: string;
  seed: number;
  actions: unknown[];
}

/** One round of one connection: the episodes it resets, then steps until all ended. */
export type RoundPlan = PlannedEpisode[];

/** Hard stop for an episode the environment never ends (the turn cap ends it far sooner). */
const MAX_ACTIONS = 64;

let envConfig: EnvConfig | null = null;

/** Play one episode in-process with the oracle and return its actions (the last one ends it). */
export function planEpisode(episode_id: string, seed: number): PlannedEpisode {
  envConfig ??= defaultEnvConfig();
  const created = createEpisode(envConfig, { episode_id, seed, variant: LOAD_VARIANT, options: {} });
  if (!created.ok) throw new Error(`bench plan: ${created.error.code} ${created.error.message}`);
  const episode = created.episode;
  const { observation, info } = episode.reset();
  const p = episode.params;
  // The parser the server's oracle hints use for this episode (server/session.ts): openai unless a text parser.
  const parser = p.parser.name === 'hermes' || p.parser.name === 'qwen3_xml' ? p.parser.name : 'openai';
  const policy = oraclePolicy.start({ seed, parser, observation, info, privileged: { task: p.task, map: p.map, harness: p.harness } });
  const actions: unknown[] = [];
  let obs = observation;
  let last = info;
  while (actions.length < MAX_ACTIONS) {
    const action = policy.act(obs, last);
    actions.push(action);
    const r = episode.step(action);
    if (!r.ok) throw new Error(`bench plan: the oracle's action was refused (${r.error.code}) on seed ${seed}`);
    if (r.terminated || r.truncated) return { episode_id, seed, actions };
    obs = r.observation;
    last = r.info;
  }
  throw new Error(`bench plan: episode seed ${seed} did not end within ${MAX_ACTIONS} actions`);
}

/**
 * The seed of episode `i` of connection `c` in distinct round `r`: disjoint ranges per connection and
 * round, offset by the bench seed, so every planned episode is a different task.
 */
export function throughputSeed(benchSeed: number, c: number, r: number, i: number): number {
  return (benchSeed * 1_000_003 + c * 10_000_000 + r * 100_000 + i) >>> 0;
}

/** Plan round `r` (a distinct round; the phase cycles through them) of connection `c`: `episodes` episodes. */
export function planRound(benchSeed: number, c: number, r: number, episodes: number): RoundPlan {
  const out: RoundPlan = [];
  for (let i = 0; i < episodes; i++) out.push(planEpisode(`tp${c}.${r}.${i}`, throughputSeed(benchSeed, c, r, i)));
  return out;
}
