/** Shared helpers of the recording tests: temp dirs and in-process records. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultEnvConfig } from '../../env/index.js';
import { POLICIES } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { Recorder, readRecords } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';

/** A fresh temporary directory. */
export function tempDir(prefix = 'hg-rec-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A recorder writing in-process episodes into `dir`. */
export function evalRecorder(dir: string, stem: string, sample = 1): Recorder {
  const env = defaultEnvConfig();
  return new Recorder({ dir, sample, stem, created_by: 'eval', env: { limits: env.limits, defaults: env.defaults } });
}

/** Record `episodes` in-process episodes of a policy and variant; returns the records read back. */
export async function recordInProcess(
  dir: string,
  opts: { policy: string; variant: string; episodes: number; seed: number; sample?: number },
): Promise<LoadedRecord[]> {
  const policy = POLICIES.get(opts.policy);
  if (!policy) throw new Error(`no policy ${opts.policy}`);
  const recorder = evalRecorder(dir, `${opts.policy}-${opts.variant}-${opts.seed}`, opts.sample);
  evaluate({ policy, episodes: opts.episodes, seed: opts.seed, variant: opts.variant, recorder });
  await recorder.close();
  const r = readRecords(dir);
  if (!r.ok) throw new Error(r.message);
  return r.result.records;
}
