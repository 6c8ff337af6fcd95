/**
 * Seeded random streams. Every random choice in harness-gym comes from an `Rng` derived from
 * (seed, stream name), so that one consumer drawing more numbers never shifts another's sequence
 * (the same idea as Gymnasium's `np_random` per environment, split by purpose).
 */
import seedrandom from 'seedrandom';

/** A deterministic random stream with the helpers the generators need. */
export class Rng {
  readonly #prng: seedrandom.PRNG;

  constructor(seed: number, stream: string) {
    // alea is fast and has a small state; the key string makes streams independent.
    this.#prng = seedrandom.alea(`${seed >>> 0}/${stream}`);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#prng();
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#prng() * (hi - lo + 1));
  }

  /** A uint32, e.g. to seed a child stream. */
  uint32(): number {
    return this.#prng.int32() >>> 0;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.#prng() < p;
  }

  /** One element, uniformly. Throws on an empty array (a generator bug, never user input). */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick on an empty array');
    return items[Math.floor(this.#prng() * items.length)];
  }

  /** One key of a weight table, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const k of keys) total += weights[k];
    let x = this.#prng() * total;
    for (const k of keys) {
      x -= weights[k];
      if (x < 0) return k;
    }
    return keys[keys.length - 1];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.#prng() * (i + 1));
      const t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return out;
  }

  /** `n` distinct elements in random order (all of them when n >= length). */
  sample<T>(items: readonly T[], n: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, n));
  }
}

/** Derive a child seed from a parent seed and a name, deterministically. */
export function deriveSeed(seed: number, name: string): number {
  return new Rng(seed, `derive:${name}`).uint32();
}
