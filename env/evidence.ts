/**
 * The numbers an episode's reply may state (its evidence): the room's numbers, which every episode in that
 * room shares, and the few the episode adds itself (the viewer's line, the history, the viewer's message,
 * each tool result). The room's part is one set per room, kept by env/episode.ts; an episode keeps only
 * what it added beyond it, rather than a copy of the room's numbers: a copy would be a sizeable share of a
 * live episode's memory and an allocation on every reset (figures: bench/RESULTS.md "Design measurements cited by the code").
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

  /**
   * Every number in ascending order, as `[...set].sort((a, b) => a - b)` gives them (a new array): the
   * shared part sorted once per base set, merged with the episode's own, which never repeat it. A final
   * step's trace asks for this, and sorting the room's numbers through the set's iterator showed in an
   * oracle step's profile (figures: bench/RESULTS.md "Design measurements cited by the code").
   */
  sorted(): number[] {
    const base = sortedBase(this.#base);
    const own = this.#own;
    if (own === null || own.size === 0) return base.slice();
    const mine = [...own].sort(ascending);
    const out: number[] = new Array<number>(base.length + mine.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < base.length && j < mine.length) out[k++] = base[i] < mine[j] ? base[i++] : mine[j++];
    while (i < base.length) out[k++] = base[i++];
    while (j < mine.length) out[k++] = mine[j++];
    return out;
  }
}

const EMPTY: ReadonlySet<number> = new Set<number>();

const ascending = (a: number, b: number): number => a - b;

/** A base set's numbers in ascending order, once per set (bases are shared and never change). */
const sortedBases = new WeakMap<ReadonlySet<number>, readonly number[]>();

function sortedBase(base: ReadonlySet<number>): readonly number[] {
  let sorted = sortedBases.get(base);
  if (sorted === undefined) sortedBases.set(base, (sorted = [...base].sort(ascending)));
  return sorted;
}
