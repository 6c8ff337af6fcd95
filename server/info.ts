/**
 * The server description shared by `welcome` and `GET /v1/info` (PROTOCOL.md "Messages"), built once per
 * server from its config and the environment config, so both always agree.
 */
import type { EnvConfig } from '../env/index.js';
import { PARSERS, VARIANT_FAMILIES, VARIANT_PRESETS, harnessMix, mixShares, variantSplitOf } from '../env/index.js';
import type { RequestId, ServerInfo } from '../protocol/wire.js';
import { WIRE_PROTOCOL_VERSION, WIRE_STRING_LIMITS } from '../protocol/wire.js';
import { builtinRewardSetHash } from '../rewards/index.js';
import type { ServerConfig } from './config.js';

/** Build the server description. Key order is fixed (it is part of the reply bytes). */
export function buildServerInfo(
  config: ServerConfig,
  env: EnvConfig,
  server: { name: string; version: string },
  rewardsHash: string = builtinRewardSetHash(env.registry),
): ServerInfo {
  const l = config.limits;
  return {
    protocol: WIRE_PROTOCOL_VERSION,
    server: { name: server.name, version: server.version },
    limits: {
      max_batch: l.max_batch,
      max_episodes: l.max_episodes,
      max_frame_bytes: l.max_frame_bytes,
      max_turns: l.max_turns,
      max_errors: l.max_errors,
      idle_timeout_s: l.idle_timeout_s,
      resume_grace_s: l.resume_grace_s,
      ping_interval_s: l.ping_interval_s,
      replay_window: l.replay_window,
      // Additive to protocol 1 (PROTOCOL.md "Limits"): bounds on client strings, fixed by the protocol module.
      max_id_chars: WIRE_STRING_LIMITS.max_id_chars,
      max_name_chars: WIRE_STRING_LIMITS.max_name_chars,
      max_action_chars: WIRE_STRING_LIMITS.max_action_chars,
      max_action_calls: WIRE_STRING_LIMITS.max_action_calls,
    },
    defaults: {
      // A string on the wire (protocol 1): a preset as its name, a spec as its compact JSON.
      variant: typeof env.defaults.variant === 'string' ? env.defaults.variant : JSON.stringify(env.defaults.variant),
      parser: env.defaults.parser,
      max_turns: l.max_turns,
      observation: env.defaults.observation,
      locale: env.defaults.locale,
      rewards: env.defaults.rewards,
      // Both held-out axes (additive to protocol 1): the tasks' split, and the default variant's.
      task_split: env.defaults.task_split ?? 'train',
      variant_split: variantSplitOf(env.defaults.variant) ?? 'none',
      // The shares of resets that name no intent (non-zero ones); a harness that serves fewer intents
      // draws among those it serves, in these proportions. A harness's own intents are in its production mix.
      task_mix: mixShares(env.defaults.task_mix ?? harnessMix(env.harness)),
    },
    reward_profiles: [...env.profiles.values()].map((p) => ({
      name: p.name,
      modules: p.modules.map((m) => ({ name: m.name, version: env.registry.get(m.name)?.version ?? 'unknown', weight: m.weight })),
    })),
    rewards_hash: rewardsHash,
    variant_presets: [...VARIANT_PRESETS],
    variant_families: [...VARIANT_FAMILIES],
    parsers: [...PARSERS.keys()],
    harness: { ...env.harness.identity },
  };
}

/** The `welcome` reply: the server description plus the session's id and whether it was resumed. */
export function welcomeMessage(info: ServerInfo, id: RequestId, session_id: string, resumed: boolean): object {
  return {
    type: 'welcome',
    id,
    protocol: info.protocol,
    session_id,
    resumed,
    server: info.server,
    limits: info.limits,
    defaults: info.defaults,
    reward_profiles: info.reward_profiles,
    rewards_hash: info.rewards_hash,
    variant_presets: info.variant_presets,
    variant_families: info.variant_families,
    parsers: info.parsers,
    harness: info.harness,
  };
}
