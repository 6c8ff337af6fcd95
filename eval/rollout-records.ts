/**
 * Record files from rollout transcripts (`harness-gym rollout --record DIR`): each episode a model played
 * on a server is played again in-process from its reset item and its actions, as the server created it
 * (the same harness, limits and defaults, oracle hints when they were asked for), through the same
 * recording wrapper the server uses. The records are then what `replay`, `inspect` and `view` read.
 *
 * A rebuilt episode must end as the server's did — the same final reward and outcome — or it is not
 * recorded: a record that replays but says something else than the run would be worse than none.
 */
import type { ResetOptions } from '../env/index.js';
import { ActionHints, resolveRequest, startEpisode } from '../env/index.js';
import type { EnvConfig, EpisodeHandle } from '../env/index.js';
import { RecordEpisode } from '../recording/index.js';
import type { EpisodeRecorder } from '../recording/index.js';
import { oraclePolicy } from '../policies/index.js';
import type { RolloutRecord } from '../client/index.js';

/** What recording a run's transcripts gave: how many records, and why the others were not made. */
export interface TranscriptRecording {
  recorded: number;
  /** Reason -> episodes. */
  skipped: Record<string, number>;
}

/** Play every finished episode of a rollout again and record it; `config` is the server's (harness, limits, defaults). */
export function recordTranscripts(records: readonly RolloutRecord[], config: EnvConfig, recorder: EpisodeRecorder): TranscriptRecording {
  const out: TranscriptRecording = { recorded: 0, skipped: {} };
  const skip = (why: string): void => {
    out.skipped[why] = (out.skipped[why] ?? 0) + 1;
  };
  for (const r of records) {
    const t = r.transcript;
    if (r.failed !== undefined || t === undefined) {
      skip('the episode failed');
      continue;
    }
    const { oracle_hints: hints, group_share: _share, ...options } = (t.reset.options ?? {}) as ResetOptions & { oracle_hints?: boolean; group_share?: string };
    const seed = t.reset.seed as number;
    const planned = resolveRequest(config, { episode_id: t.reset.episode_id as string, seed, task: t.reset.task, variant: t.reset.variant, options });
    if (!planned.ok) {
      skip(`cannot rebuild: ${planned.error.code}`);
      continue;
    }
    const created = startEpisode(config, planned.plan);
    if (!created.ok) {
      skip(`cannot rebuild: ${created.error.code}`);
      continue;
    }
    const start = {
      episode_id: t.reset.episode_id as string,
      seed,
      variant: planned.plan.variant,
      variant_seed: seed,
      options,
      oracle_hints: hints === true,
    };
    let handle: EpisodeHandle = created.episode;
    if (hints === true) handle = new ActionHints(handle, (s) => oraclePolicy.start(s));
    // Recorded only when it ends as the server's did: the recorder is handed the episode at its end.
    const held: { ended: boolean; reward?: number; outcome?: string } = { ended: false };
    const probe: EpisodeRecorder = {
      begin: (s, e, reset) => recorder.begin(s, e, reset),
      end: (tape) => {
        held.ended = true;
        held.reward = tape.episode.reward?.reward;
        held.outcome = tape.episode.trace().outcome;
        if (held.reward === r.reward && held.outcome === r.outcome) recorder.end(tape);
      },
    };
    const episode = new RecordEpisode(handle, probe, start);
    episode.reset();
    for (const a of t.actions) {
      const res = episode.step(a.action);
      if (!res.ok && a.error === undefined) break;
    }
    if (!held.ended) skip('the rebuilt episode did not end as the run did');
    else if (held.reward !== r.reward || held.outcome !== r.outcome) skip('the rebuilt episode ended otherwise than on the server');
    else out.recorded++;
  }
  return out;
}
