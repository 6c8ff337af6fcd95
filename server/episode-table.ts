/**
 * The episodes of the sessions one thread holds (the main thread with `workers: 0`, else each worker):
 * one `SessionEnv` (env/session.ts) per session, made on the session's first request, and what they
 * counted. A request comes in validated at the edge and goes out as the reply object to encode.
 */
import type { Logger } from 'pino';
import type { SessionRequest } from '../protocol/wire.js';
import { SessionEnv, emptyStats } from '../env/index.js';
import type { EnvConfig, SessionStats } from '../env/index.js';
import { sessionWrapping } from './compose.js';
import type { ServerConfig } from './config.js';

/** What a table needs from its host. */
export interface EpisodeTableOptions {
  config: ServerConfig;
  /** The environment config new resets use (read per reset: a reward reload swaps it). */
  env: () => EnvConfig;
  log: Logger;
  /** Batch items applied between two yields to the event loop. */
  yieldEvery: number;
}

/** Sessions' episodes, by session id. */
export class EpisodeTable {
  readonly log: Logger;
  readonly #opts: EpisodeTableOptions;
  readonly #sessions = new Map<string, SessionEnv>();
  /** Record writers still flushing after their session was freed (`drain` waits for them). */
  readonly #closing = new Set<Promise<void>>();
  #stats: SessionStats = emptyStats();

  constructor(opts: EpisodeTableOptions) {
    this.#opts = { ...opts, yieldEvery: Math.max(1, Math.floor(opts.yieldEvery)) };
    this.log = opts.log;
  }

  /** Unclosed episodes of a session (0 for one this table does not hold). */
  episodeCount(sessionId: string): number {
    return this.#sessions.get(sessionId)?.episodeCount ?? 0;
  }

  /** The counts since the last call. */
  takeStats(): SessionStats {
    const s = this.#stats;
    this.#stats = emptyStats();
    return s;
  }

  #session(sessionId: string, streamSeed: number): SessionEnv {
    let s = this.#sessions.get(sessionId);
    if (s === undefined) {
      const { config, env, log, yieldEvery } = this.#opts;
      const slog = log.child({ session: sessionId });
      s = new SessionEnv({
        env,
        streamSeed,
        maxEpisodes: config.limits.max_episodes,
        allowHints: config.allow_oracle_hints,
        wrapping: sessionWrapping(config, env, sessionId, slog),
        stats: () => this.#stats,
        log: slog,
        yieldEvery,
      });
      this.#sessions.set(sessionId, s);
    }
    return s;
  }

  /** Apply one request of a session; the reply object. Requests of one session must not overlap. */
  async apply(sessionId: string, streamSeed: number, req: SessionRequest): Promise<object> {
    const s = this.#session(sessionId, streamSeed);
    switch (req.type) {
      case 'reset':
        return { type: 'reset_result', id: req.id, items: await s.reset(req.items) };
      case 'step':
        return { type: 'step_result', id: req.id, items: await s.step(req.items) };
      case 'close':
        return { type: 'closed', id: req.id, ...s.close(req.episode_ids) };
      case 'ping':
        return { type: 'pong', id: req.id };
    }
  }

  /** Free a session's episodes; returns how many there were. Finished episodes' records are flushed. */
  free(sessionId: string): number {
    const s = this.#sessions.get(sessionId);
    if (s === undefined) return 0;
    this.#sessions.delete(sessionId);
    const { freed, closing } = s.free();
    if (closing !== null) {
      const tracked = closing.catch(() => undefined).finally(() => this.#closing.delete(tracked));
      this.#closing.add(tracked);
    }
    return freed;
  }

  /** Free every session (shutdown); resolves with how many episodes were freed once every record file is flushed. */
  async drain(): Promise<number> {
    let n = 0;
    for (const id of [...this.#sessions.keys()]) n += this.free(id);
    await Promise.all([...this.#closing]);
    return n;
  }
}
