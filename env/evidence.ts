/**
 * The numbers an episode's reply may state (its evidence): the room's numbers, which every episode in that
 * room shares, and the few the episode adds itself (the viewer's line, the history, the viewer's message,
 * each tool result). The room's part is one set per room, kept by env/episode.ts; an episode keeps only
 * what it added beyond it. Before this, each episode copied the room's 60-100 numbers into a set of its own
 * at reset: about 1.2 KB of every live episode's ~8 KB, and the copy's allocation on every reset.
 */
export class EvidenceNumbers implements ReadonlySet<number> {
  #base: ReadonlySet<number> = EMPTY;
  #own: Set<number> | null = null;

  /**
   * Share `base` (read-only, never changed after) as the first numbers of this set. Only before any
   * number was added: the episode sets it at reset, before anything else adds.
   */
  setBase(base: ReadonlySet<number>): void {
    if (this.#own !== null && this.#own.size > 0) throw new Error('EvidenceNumbers.setBase after numbers were added');
    this.#base = base;
  }

  add(n: number): this {
    if (!this.#base.has(n)) (this.#own ??= new Set()).add(n);
    return this;
  }

  has(n: number): boolean {
    return this.#base.has(n) || (this.#own !== null && this.#own.has(n));
  }

  get size(): number {
    return this.#base.size + (this.#own?.size ?? 0);
  }

  /** The shared numbers in their order, then the episode's own in the order first added (a Set's order). */
  *values(): SetIterator<number> {
    yield* this.#base;
    if (this.#own !== null) yield* this.#own;
  }

  keys(): SetIterator<number> {
    return this.values();
  }

  *entries(): SetIterator<[number, number]> {
    for (const n of this.values()) yield [n, n];
  }

  [Symbol.iterator](): SetIterator<number> {
    return this.values();
  }

  forEach(fn: (value: number, key: number, set: ReadonlySet<number>) => void, thisArg?: unknown): void {
    for (const n of this.values()) fn.call(thisArg, n, n, this);
  }
}

const EMPTY: ReadonlySet<number> = new Set<number>();
