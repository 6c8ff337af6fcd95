/**
 * The order in which an episode thread starts the requests it holds (config `scheduling`).
 *
 * A worker receives every request of its sessions as soon as the main thread may apply it (server/session.ts:
 * a request waits there for the earlier requests it could conflict with), so the requests a worker holds
 * at once never touch the same episode, and any order of starting them is one the protocol allows
 * (PROTOCOL.md: requests about the same episode are applied in arrival order; replies to different
 * requests may come out of order). `steps_first` starts the held steps before the held resets, closes and
 * the rest: under load, the episodes being played are answered first and new episodes wait. For an RL
 * rollout that is the cheaper wait: an episode stalled mid-way holds its policy's context (an LLM's KV
 * cache) while it waits, an episode not started yet holds nothing. `arrival` starts them as they came.
 *
 * Steps overtake a held reset at most `MAX_OVERTAKES` times in a row, then it starts: a client that keeps
 * a pipeline of step frames full cannot hold another session's resets back for ever.
 *
 * Only the start is ordered: a request runs until its first await (a reward module's network call, the
 * yield a long batch makes every couple of milliseconds), and the queue starts the next one then, so an
 * LLM judge's call never holds the thread's other requests back. Between two starts the queue returns to
 * the event loop once, which takes in the messages that arrived meanwhile: a step that arrives while
 * resets are waiting starts before them.
 */

import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** How an episode thread orders the requests it holds (config `scheduling`). */
export type Scheduling = 'steps_first' | 'arrival';

type Job = () => void;

/** Steps that may start in a row while a reset (or another request) is held; then it starts. */
export const MAX_OVERTAKES = 16;

/** Starts held jobs one at a time, steps before the rest (`steps_first`); with `arrival`, each at once. */
export class StartQueue {
  readonly #stepsFirst: boolean;
  readonly #steps: Job[] = [];
  readonly #rest: Job[] = [];
  #draining = false;
  /** Steps started in a row while a non-step job was held. */
  #overtakes = 0;
  #idle: (() => void)[] = [];

  constructor(scheduling: Scheduling) {
    this.#stepsFirst = scheduling === 'steps_first';
  }

  /** Jobs held and not started yet. */
  get held(): number {
    return this.#steps.length + this.#rest.length;
  }

  /** Run `fn` once its turn comes; resolves or rejects with it. `step`: the job is a step request. */
  run<T>(step: boolean, fn: () => Promise<T>): Promise<T> {
    // In arrival order, a job starts as soon as its message is taken in.
    if (!this.#stepsFirst) return fn();
    return new Promise<T>((resolve, reject) => {
      const job = (): void => {
        let p: Promise<T>;
        try {
          p = fn();
        } catch (e) {
          reject(e);
          return;
        }
        p.then(resolve, reject);
      };
      (step ? this.#steps : this.#rest).push(job);
      if (!this.#draining) {
        this.#draining = true;
        // Not at once: the messages that arrived together are all taken in first (a port delivers every
        // queued message in one turn of the event loop), so a step behind a reset in that batch starts first.
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** Resolves once no job is held (started jobs may still be running). */
  whenIdle(): Promise<void> {
    if (this.held === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #next(): Job | undefined {
    // Lines stay short (the requests one thread holds at once): shift is cheap here.
    if (this.#rest.length === 0) {
      this.#overtakes = 0;
      return this.#steps.shift();
    }
    if (this.#steps.length === 0 || this.#overtakes >= MAX_OVERTAKES) {
      this.#overtakes = 0;
      return this.#rest.shift();
    }
    this.#overtakes++;
    return this.#steps.shift();
  }

  async #drain(): Promise<void> {
    try {
      for (let job = this.#next(); job !== undefined; job = this.#next()) {
        job();
        // Back to the event loop: messages that arrived while the job ran are taken in before the next start.
        if (this.held > 0) await yieldToLoop();
      }
    } finally {
      this.#draining = false;
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }
}
