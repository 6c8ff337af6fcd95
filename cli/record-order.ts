/**
 * Records in episode order, whoever plays the episodes. The in-process `eval --record` finishes its
 * episodes one after another; `eval --record --url` has up to 64 in flight and they finish in any order
 * (a short episode started later ends first). Written as they finish, the two runs' record files would
 * list the same episodes in different orders, and a remote run's file would differ from run to run.
 * This recorder hands the finished tapes to the real one in the order the episodes began (`begin` is
 * called at each reset, and both evals reset in episode order), so the files are the same every time.
 *
 * A finished tape waits only for the episodes that began before it and are still running; a tape that is
 * never ended (an episode stopped by the step guard: nothing is recorded of it) stops holding the others
 * back at `close`, which writes whatever waits, still in order.
 */
import type { Episode } from '../env/index.js';
import type { EpisodeRecorder, EpisodeTape, RecordStart } from '../recording/index.js';

/** What the wrapped recorder must do (a `Recorder`). */
export interface ClosableRecorder extends EpisodeRecorder {
  readonly recorded: number;
  close(): Promise<void>;
}

/** An `EpisodeRecorder` that writes through `inner` in the order the episodes began. */
export class InOrderRecorder implements EpisodeRecorder {
  readonly #inner: ClosableRecorder;
  /** Position of each begun tape, in begin order. */
  readonly #position = new Map<EpisodeTape, number>();
  /** Ended tapes waiting for an earlier one, by position. */
  readonly #waiting = new Map<number, EpisodeTape>();
  #begun = 0;
  #next = 0;

  constructor(inner: ClosableRecorder) {
    this.#inner = inner;
  }

  /** Episodes handed to the writer so far. */
  get recorded(): number {
    return this.#inner.recorded;
  }

  begin(start: RecordStart, episode: Episode, reset: { observation: unknown; info: Record<string, unknown> }): EpisodeTape | null {
    const tape = this.#inner.begin(start, episode, reset);
    if (tape) this.#position.set(tape, this.#begun++);
    return tape;
  }

  end(tape: EpisodeTape): void {
    const at = this.#position.get(tape);
    if (at === undefined) return;
    this.#waiting.set(at, tape);
    // Hand over every tape whose predecessors are all done.
    for (let t = this.#waiting.get(this.#next); t !== undefined; t = this.#waiting.get(this.#next)) this.#release(this.#next);
  }

  /** Write what waits (in order) and close the writer. */
  async close(): Promise<void> {
    for (const at of [...this.#waiting.keys()].sort((a, b) => a - b)) this.#release(at);
    await this.#inner.close();
  }

  #release(at: number): void {
    const tape = this.#waiting.get(at) as EpisodeTape;
    this.#waiting.delete(at);
    this.#position.delete(tape);
    this.#next = at + 1;
    this.#inner.end(tape);
  }
}
