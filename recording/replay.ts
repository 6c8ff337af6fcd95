/**
 * Bit-exact replay: rebuild a recorded episode from its record alone (seed, resolved variant, variant
 * seed, options, source task, env limits and defaults, reward profile), feed it the recorded actions,
 * and compare the sha256 of every output with the recorded one, then the final reward. The first
 * difference is reported with the field paths and both values.
 */
import { ActionHints, createEpisode, defaultEnvConfig } from '../env/index.js';
import { harnessLabel } from '../harness/index.js';
import type { EnvConfig, Episode, EpisodeHandle, EpisodeRequest } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import { RECORD_VERSION, hashResetOutput, hashStepOutput, packValue, unpackValue } from './format.js';
import type { EpisodeRecordV1 } from './format.js';
import type { LoadedRecord } from './reader.js';

/** One differing field: its path (`info.reward_components.accuracy`) and both values. */
export interface FieldDiff {
  path: string;
  recorded: unknown;
  replayed: unknown;
}

/** Where and how a replay first differed. */
export interface Divergence {
  /** 0 = the reset output; n = the output of the n-th recorded action. */
  step: number;
  kind: 'create' | 'output' | 'error' | 'not_ended' | 'ended_early' | 'reward';
  message: string;
  diffs: FieldDiff[];
}

/** The replay of one record. */
export interface EpisodeReplay {
  episode_id: string;
  file?: string;
  index?: number;
  identical: boolean;
  steps: number;
  divergence?: Divergence;
}

/** The replay of many records. */
export interface ReplaySummary {
  episodes: number;
  identical: number;
  diverged: number;
  results: EpisodeReplay[];
}

/** Most differing fields listed per divergence (a wholesale difference would drown the first ones). */
const MAX_DIFFS = 20;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** Field-by-field differences of two decoded values, sorted key order, at most `max`. */
export function diffValues(recorded: unknown, replayed: unknown, path = '', out: FieldDiff[] = [], max = MAX_DIFFS): FieldDiff[] {
  if (out.length >= max) return out;
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    const n = Math.max(recorded.length, replayed.length);
    for (let i = 0; i < n && out.length < max; i++) diffValues(recorded[i], replayed[i], `${path}[${i}]`, out, max);
    return out;
  }
  if (isObj(recorded) && isObj(replayed)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])].sort();
    for (const k of keys) {
      if (out.length >= max) break;
      diffValues(recorded[k], replayed[k], path === '' ? k : `${path}.${k}`, out, max);
    }
    return out;
  }
  if (recorded instanceof Uint8Array && replayed instanceof Uint8Array) {
    if (Buffer.compare(Buffer.from(recorded), Buffer.from(replayed)) !== 0) out.push({ path: path || '(root)', recorded, replayed });
    return out;
  }
  if (!Object.is(recorded, replayed)) out.push({ path: path || '(root)', recorded, replayed });
  return out;
}

/** Compare a replayed output's bytes with the recorded ones; null when identical. */
function compareOutput(
  step: number,
  recordedHash: string,
  recordedBytes: Uint8Array | undefined,
  replayed: { hash: string; out: Buffer },
): Divergence | null {
  if (replayed.hash === recordedHash) return null;
  const before = recordedBytes ? unpackValue(recordedBytes) : undefined;
  const after = unpackValue(replayed.out);
  const diffs = diffValues(before, after);
  if (diffs.length === 0) diffs.push({ path: '(sha256)', recorded: recordedHash, replayed: replayed.hash });
  return { step, kind: 'output', message: `step ${step}: the output differs from the recording`, diffs };
}

/** The env config a record's episode was created with (profile from the record itself). */
export function envConfigFor(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): EnvConfig {
  return defaultEnvConfig({
    ...base,
    profiles: new Map([[rec.profile.name, rec.profile]]),
    limits: rec.env.limits,
    defaults: rec.env.defaults,
    ...(rec.variant_pool !== undefined ? { variantPool: rec.variant_pool } : {}),
  });
}

/** Rebuild a record's episode (not yet reset), or the reason it cannot be. */
export function rebuildEpisode(
  rec: EpisodeRecordV1,
  base: Partial<EnvConfig> = {},
): { ok: true; episode: Episode } | { ok: false; message: string } {
  const req: EpisodeRequest = {
    episode_id: rec.created_episode_id ?? rec.episode_id,
    seed: rec.seed,
    variant: rec.variant,
    options: { ...rec.options, rewards: rec.profile.name },
    task_override: rec.source_task,
    variant_seed: rec.variant_seed,
  };
  const version = rec.record_version ?? 1;
  if (version !== RECORD_VERSION) {
    return {
      ok: false,
      message:
        `the record is of record version ${version} (written by harness-gym ${rec.server_version}); this build replays version ${RECORD_VERSION} ` +
        (version < RECORD_VERSION
          ? '(since version 2 a seed draws a compiled variant and a room from pools: the same seed means another episode); replay it with the version that wrote it, or record it again'
          : '(a newer format); replay it with a newer harness-gym'),
    };
  }
  const config = envConfigFor(rec, base);
  const have = config.harness.identity;
  if (rec.harness && rec.harness.hash !== have.hash) {
    return {
      ok: false,
      message:
        `the record was made with harness ${harnessLabel(rec.harness)}, ` +
        `this replay has ${harnessLabel(have)}; give that harness's directory with --harness DIR`,
    };
  }
  const created = createEpisode(config, req);
  if (!created.ok) return { ok: false, message: `${created.error.code}: ${created.error.message}` };
  return created;
}

/** Replay one record. Never throws on a bad record: a failure is a divergence. */
export function replayRecord(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): EpisodeReplay {
  const result: EpisodeReplay = { episode_id: rec.episode_id, identical: false, steps: rec.steps.length };
  const built = rebuildEpisode(rec, base);
  if (!built.ok) {
    result.divergence = { step: 0, kind: 'create', message: `cannot rebuild the episode: ${built.message}`, diffs: [] };
    return result;
  }
  // The same wrappers as the server's (server/compose.ts), but recording: the outputs are compared instead.
  const episode: EpisodeHandle = rec.oracle_hints ? new ActionHints(built.episode, (s) => oraclePolicy.start(s)) : built.episode;
  const reset = episode.reset();
  const d0 = compareOutput(0, rec.reset.hash, rec.reset.out, hashResetOutput(reset));
  if (d0) {
    result.divergence = d0;
    return result;
  }
  for (let i = 0; i < rec.steps.length; i++) {
    const n = i + 1;
    const taped = rec.steps[i];
    if (episode.ended) {
      result.divergence = { step: n, kind: 'ended_early', message: `step ${n}: the replayed episode already ended`, diffs: [] };
      return result;
    }
    const r = episode.step(taped.action);
    if (!r.ok) {
      if (taped.error && taped.error.code === r.error.code) continue;
      result.divergence = {
        step: n,
        kind: 'error',
        message: `step ${n}: the replay refused the action (${r.error.code})`,
        diffs: [{ path: 'error', recorded: taped.error ?? null, replayed: { code: r.error.code, message: r.error.message } }],
      };
      return result;
    }
    if (taped.error || taped.hash === undefined) {
      result.divergence = {
        step: n,
        kind: 'error',
        message: `step ${n}: the recording refused the action, the replay accepted it`,
        diffs: [{ path: 'error', recorded: taped.error ?? null, replayed: null }],
      };
      return result;
    }
    const d = compareOutput(n, taped.hash, taped.out, hashStepOutput(r));
    if (d) {
      result.divergence = d;
      return result;
    }
  }
  if (!episode.ended) {
    result.divergence = {
      step: rec.steps.length,
      kind: 'not_ended',
      message: 'the replayed episode did not end after the recorded actions',
      diffs: [],
    };
    return result;
  }
  // The outputs carry the reward; this also catches a record whose reward block was edited.
  const diffs = diffValues(unpackValue(packValue(rec.reward)), unpackValue(packValue(episode.episode.reward)), 'reward');
  if (diffs.length > 0) {
    result.divergence = { step: rec.steps.length, kind: 'reward', message: 'the final reward differs from the recording', diffs };
    return result;
  }
  result.identical = true;
  return result;
}

/** Replay many records (optionally only one episode id). */
export function replayRecords(records: readonly LoadedRecord[], opts: { episode?: string; base?: Partial<EnvConfig> } = {}): ReplaySummary {
  const results: EpisodeReplay[] = [];
  for (const r of records) {
    if (opts.episode !== undefined && r.record.episode_id !== opts.episode) continue;
    const rep = replayRecord(r.record, opts.base);
    rep.file = r.file;
    rep.index = r.index;
    results.push(rep);
  }
  const identical = results.filter((r) => r.identical).length;
  return { episodes: results.length, identical, diverged: results.length - identical, results };
}

/** A divergence as a person reads it. */
export function formatDivergence(rep: EpisodeReplay): string {
  const d = rep.divergence;
  if (!d) return `${rep.episode_id}: identical`;
  const where = rep.file !== undefined ? ` (${rep.file} #${rep.index ?? 0})` : '';
  const lines = [`${rep.episode_id}${where}: DIVERGED at step ${d.step} [${d.kind}] ${d.message}`];
  for (const f of d.diffs) lines.push(`  ${f.path}\n    recorded: ${show(f.recorded)}\n    replayed: ${show(f.replayed)}`);
  return lines.join('\n');
}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return `<${v.length} bytes>`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
