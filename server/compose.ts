/**
 * The one place the server composes episode wrappers (env/wrappers.ts) from its config, per session:
 * `ActionHints` with the reference oracle when an item asks for `options.oracle_hints` (allowed only by
 * `allow_oracle_hints`, checked by the session), then `RecordEpisode` outermost when `record.dir` is set,
 * so that a record holds exactly what the client received. Replay (recording/replay.ts) composes the same
 * wrappers, so it replays the server's own path. The only server file that imports policies/ or
 * recording/.
 */
import type { EnvConfig, EpisodeHandle, EpisodeWrapping } from '../env/index.js';
import { ActionHints } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import { RecordEpisode, Recorder } from '../recording/index.js';
import type { ServerConfig } from './config.js';

/** Where a session's wrappers report a failure (a pino logger fits). */
export interface WrappingLog {
  warn(obj: object, msg: string): void;
}

/** The wrappers of one session's episodes; `close` flushes its record file (if it made one). */
export function sessionWrapping(config: ServerConfig, env: () => EnvConfig, sessionId: string, log: WrappingLog): EpisodeWrapping {
  let recorder: Recorder | null = null;
  const record = config.record;
  return {
    wrap(episode, start): EpisodeHandle {
      let handle: EpisodeHandle = episode;
      if (start.oracle_hints) handle = new ActionHints(handle, (s) => oraclePolicy.start(s));
      if (record.dir !== null) {
        // One writer per session; its files appear with the first finished episode.
        recorder ??= new Recorder({
          dir: record.dir,
          sample: record.sample,
          max_file_bytes: record.max_file_bytes,
          stem: `session-${sessionId}`,
          created_by: 'serve',
          env: { limits: env().limits, defaults: env().defaults },
          onError: (e) => log.warn({ err: e }, 'recording failed'),
        });
        handle = new RecordEpisode(handle, recorder, start);
      }
      return handle;
    },
    close: () => recorder?.close() ?? null,
  };
}
