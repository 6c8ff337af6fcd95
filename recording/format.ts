/**
 * The record format (docs/RECORDS.md): an append-only stream of self-delimiting MessagePack values, a
 * file header first, then one value per finished episode. Everything a replay needs to rebuild the
 * episode bit-exactly is in the record (seed, variant as resolved, variant seed, the source task, the
 * options, the env limits and defaults, the reward profile), and for checking it, the exact bytes of
 * every step output and their sha256.
 */
import { createHash } from 'node:crypto';
import { Unpackr } from 'msgpackr';
import { MsgpackCodec, UNPACK_OPTIONS } from '../protocol/codec.js';
import type { RewardResult, Task, Trace } from '../protocol/domain.js';
import { Rng } from '../protocol/rng.js';
import type { EnvDefaults, EpisodeLimits, ResetOptions } from '../env/index.js';
import type { RewardProfile } from '../rewards/index.js';

/** The `format` field of a file header. */
export const RECORD_FORMAT = 'harness-gym-record';
/**
 * The record format version this code writes and replays. 2: variants compiled once and drawn per reset
 * from a pool, generated tasks' rooms drawn from a fixed pool (harness-gym 0.2): a seed means another
 * variant and another room than under version 1, so version 1 records are refused by replay, with a
 * message, rather than replayed wrongly (they still list, show and rescore: those read the record alone).
 */
export const RECORD_VERSION = 2;
/** File name suffix of record files. */
export const RECORD_EXT = '.hgrec';
/** Default rotation size of a record file (64 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

// The wire codec (protocol/codec.ts), so the bytes hashed here are the bytes a binary client received.
const codec = new MsgpackCodec();
/** The reader decodes streams of values with its own Unpackr of the same settings. */
const unpackr = new Unpackr(UNPACK_OPTIONS);

/** The first value of every record file. */
export interface RecordFileHeader {
  type: 'header';
  format: typeof RECORD_FORMAT;
  version: number;
  /** package.json version of the writer. */
  server_version: string;
  /** What wrote the file: `serve` (a server session) or `eval` (the in-process command). */
  created_by: string;
}

/** One recorded action and what the environment answered. */
export interface RecordedStep {
  /** The action exactly as the environment received it. */
  action: unknown;
  /** sha256 (hex) of `out`; absent when the action was refused (`error`). */
  hash?: string;
  /** MessagePack bytes of the step output `{observation, reward, terminated, truncated, info}`. */
  out?: Uint8Array;
  /** The item error when the environment refused the action (the episode did not change). */
  error?: { code: string; message: string };
}

/** What the list view and filters need without decoding transcripts. */
export interface RecordSummary {
  intent: string;
  outcome: string;
  reward: number;
  turns: number;
  /** The variant as a label: a preset name, `spec`, or `identity`. */
  variant_label: string;
  /** Operator families the variant enables (empty for identity). */
  variant_families: string[];
  /** Canonical hook ids that objected at least once, sorted. */
  hooks_violated: string[];
  /** Violation codes seen, sorted. */
  violation_codes: string[];
  locale: string;
  /** The task's split (absent in records made before it: read `source_task.split`). */
  task_split?: string;
  /** The variant's split, `none` for the base harness (absent in records made before it). */
  variant_split?: string;
}

/** One finished episode. */
export interface EpisodeRecordV1 {
  type: 'episode';
  /** The id the record is listed under (the server's episode id; `eval-<seed>` for in-process runs). */
  episode_id: string;
  /** The id the episode was created with (replay uses it; differs from `episode_id` for in-process runs). */
  created_episode_id: string;
  seed: number;
  /** The variant field as resolved (the item's, or the server default when it had none). */
  variant: unknown;
  /** The seed the variant was realised with (`req.variant_seed ?? seed`). */
  variant_seed: number;
  variant_id: string;
  /**
   * The two held-out axes of the episode: the split of its task (`train` or `eval`: which rooms and tasks)
   * and of its variant (`train`, `eval`, or `none` for the base harness: which harness). Absent in records
   * made before they were written (the task's is `source_task.split` there).
   */
  task_split?: string;
  variant_split?: string;
  /** The record version the episode was written with (absent: 1, before compiled variants). */
  record_version?: number;
  /** The variant pool the variant was drawn from (`EnvConfig.variantPool`; absent in version 1 records). */
  variant_pool?: number;
  /** Reset options as passed to `createEpisode`. */
  options: ResetOptions;
  /** Whether the server added `oracle_action` hints to the outputs (replay adds them too). */
  oracle_hints: boolean;
  /** The task as the variant presented it. */
  task: Task;
  /** The task before the variant touched it (what replay feeds back as `task_override`). */
  source_task: Task;
  /** Env config that shapes the episode beyond the request. */
  env: { limits: EpisodeLimits; defaults: EnvDefaults };
  /**
   * The harness the episode was played in (its manifest's name and version, and the content hash of its
   * directory). Absent in records made before harness directories: those were made with the embedded one.
   */
  harness?: { name: string; version: string; hash: string };
  reward_profile: string;
  /** The profile itself, so a replay scores with it even if the server's profile file changed. */
  profile: RewardProfile;
  /** Version of each module of the profile. */
  reward_modules: Record<string, string>;
  server_version: string;
  created_by: string;
  /** sha256 of the reset output `{observation, info}`, and its bytes. */
  reset: { hash: string; out: Uint8Array };
  steps: RecordedStep[];
  reward: RewardResult;
  /** The finished canonical trace (rescoring and the viewer read it). */
  trace: Trace;
  summary: RecordSummary;
}

/** Any value of a record file. */
export type RecordValue = RecordFileHeader | EpisodeRecordV1;

/** MessagePack bytes of a value, with the server codec's settings. */
export function packValue(value: unknown): Buffer {
  return codec.pack(value);
}

/** Decode one MessagePack value (throws on bad bytes: callers catch). */
export function unpackValue(bytes: Uint8Array): unknown {
  return codec.unpack(bytes);
}

/** The shared Unpackr (the reader decodes streams with it). */
export function recordUnpackr(): Unpackr {
  return unpackr;
}

/** sha256 (hex) of some bytes. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The bytes and hash of a step output; keys in the fixed order of the wire reply. */
export function hashStepOutput(out: { observation: unknown; reward: number; terminated: boolean; truncated: boolean; info: unknown }): {
  hash: string;
  out: Buffer;
} {
  const bytes = packValue({
    observation: out.observation,
    reward: out.reward,
    terminated: out.terminated,
    truncated: out.truncated,
    info: out.info,
  });
  return { hash: sha256(bytes), out: bytes };
}

/** The bytes and hash of a reset output `{observation, info}`. */
export function hashResetOutput(out: { observation: unknown; info: unknown }): { hash: string; out: Buffer } {
  const bytes = packValue({ observation: out.observation, info: out.info });
  return { hash: sha256(bytes), out: bytes };
}

/**
 * Deterministic sampling: whether an episode of this seed is recorded at `rate`. Decided from the seed
 * alone, so a re-run of the same seeds records the same episodes.
 */
export function shouldRecord(seed: number, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return new Rng(seed, 'record').chance(rate);
}

/** Whether a decoded value looks like an episode record (the reader's shape check). */
export function isEpisodeRecord(v: unknown): v is EpisodeRecordV1 {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    r.type === 'episode' &&
    typeof r.episode_id === 'string' &&
    typeof r.seed === 'number' &&
    Array.isArray(r.steps) &&
    typeof r.source_task === 'object' &&
    typeof r.reward === 'object'
  );
}

/** Whether a decoded value is a file header this reader understands. */
export function isFileHeader(v: unknown): v is RecordFileHeader {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return r.type === 'header' && r.format === RECORD_FORMAT;
}
