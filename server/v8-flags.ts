/**
 * The V8 flags a server config sets for its process (`v8_pretenuring`, server/config.ts). V8 flags are
 * process-wide: every isolate reads them, the main thread's and each episode worker's, so they are set
 * before the workers start (`buildServer`) and only when the config asks ("inherit" leaves the process's
 * own setting, e.g. a `node --allocation-site-pretenuring` command line or an embedding program's).
 *
 * Why pretenuring is off under `harness-gym serve` (bench/RESULTS.md "What limits it"): V8 watches which
 * allocation sites make objects that survive scavenges and allocates their later objects in the old
 * generation directly. An episode lives seconds (a think time between turns), so the sites that build
 * episode state qualify, and the short-lived objects the same sites make in the same functions then skip
 * the young generation too: in a loaded worker the old generation grew by about twice what the episodes
 * keep, so mark-compacts came twice as often and each worker's heap (and the process's RSS) peaked higher.
 * With `--no-allocation-site-pretenuring` it grew by what the episodes keep, and the server spent less CPU
 * per item with a much lower step p99. In-process loops (no server) showed no difference either way
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
import { setFlagsFromString } from 'node:v8';
import type { ServerConfig } from './config.js';

/** The V8 flag a `v8_pretenuring` setting sets, or null for "inherit". */
export function pretenuringFlag(setting: ServerConfig['v8_pretenuring']): string | null {
  switch (setting) {
    case 'inherit':
      return null;
    case 'on':
      return '--allocation-site-pretenuring';
    case 'off':
      return '--no-allocation-site-pretenuring';
  }
}

/** Set the config's V8 flags for this process; returns the flags set (none for "inherit"). */
export function applyV8Flags(config: Pick<ServerConfig, 'v8_pretenuring'>, set: (flags: string) => void = setFlagsFromString): string[] {
  const flag = pretenuringFlag(config.v8_pretenuring);
  if (flag === null) return [];
  set(flag);
  return [flag];
}
