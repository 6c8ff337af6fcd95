/**
 * The reward flags commands share: `--reward-modules DIR` (repeatable: custom module directories) and
 * `--rewards FILE|NAME` (a profile file to score with, or the name of a profile the scorer already has).
 */
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { DEFAULT_PROFILE, defaultRegistry, loadProfileFile, loadRewardSet } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';
import { fileError, joinErrors } from './errors.js';

/** The registry with the modules of `dirs` (the built-ins alone when none): a bad module is a file error. */
export async function registryFor(dirs: readonly string[]): Promise<RewardRegistry> {
  if (dirs.length === 0) return defaultRegistry();
  const loaded = await loadRewardSet({ profiles: [], module_dirs: [...dirs] });
  if (loaded.ok) return loaded.set.registry;
  throw fileError(`invalid reward modules: ${joinErrors(loaded.errors)}`);
}

/** Whether a `--rewards` value names a file (a path, or a name with a profile extension) rather than a profile. */
export function isProfileFile(value: string): boolean {
  return value.includes('/') || ['.json', '.yaml', '.yml'].includes(extname(value).toLowerCase()) || existsSync(value);
}

/** Load the profile file `--rewards FILE` names, checked against `registry`; one line per failure (exit 4). */
export function profileFromFile(file: string, registry: RewardRegistry, flag = '--rewards'): RewardProfile {
  const profile = loadProfileFile(file, registry);
  if (profile.ok) return profile.profile;
  // The loader names the file in each error; the line names it once.
  const errors = profile.errors.map((e) => (e.startsWith(`${file}: `) ? e.slice(file.length + 2) : e));
  throw fileError(`${flag} ${file}: ${joinErrors(errors)}`);
}

/** The profiles an in-process run scores with: the built-in `default`, and the file's profile when given. */
export function profilesWith(profile: RewardProfile | undefined): Map<string, RewardProfile> {
  const out = new Map<string, RewardProfile>([[DEFAULT_PROFILE.name, DEFAULT_PROFILE]]);
  if (profile !== undefined) out.set(profile.name, profile);
  return out;
}
