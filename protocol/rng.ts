/**
 * Seeded random streams. Every random choice in harness-gym comes from an `Rng` derived from
 * (seed, stream name), so that one consumer drawing more numbers never shifts another's sequence
 * (the same idea as Gymnasium's `np_random` per environment, split by purpose).
 *
 * The generator is Baagøe's Alea keyed by the string `${seed}/${stream}`, computed here exactly as
 * seedrandom's `alea` computes it (same Mash, same seeding, same step; the tests compare the two over
 * many keys and draws). It is inlined because a variant build creates about a hundred streams and
 * seedrandom's closure-based generator made construction a tenth of the reset path.
 */

/** Mash's initial state and its normalisation factor (2^-32). */
const MASH_START = 0xefc8249d;
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;

/**
 * Baagøe's Mash: feed `data` into state `n`, returning the new state (`(n >>> 0) * 2^-32` is its output).
 */
function mash(n: number, data: string): number {
  for (let i = 0; i < data.length; i++) n = mashStep(n, data.charCodeAt(i));
  return n;
}

/**
 * One character of Mash. seedrandom writes `h >>> 0` where this writes `Math.floor(h)`: the two agree
 * because `h` stays in [0, 2^32) (n is non-negative and below 2^32 + 2^27, so 0.0252 * n and its
 * fractional products are far below 2^32), and floor is the faster of the two in V8.
 */
function mashStep(n: number, code: number): number {
  n += code;
  let h = 0.02519603282416938 * n;
  n = Math.floor(h);
  h -= n;
  h *= n;
  n = Math.floor(h);
  h -= n;
  return n + h * 0x100000000; // 2^32
}

// Alea's seeding starts with three mashes of ' ', whatever the key: computed once.
const SPACE_1 = mash(MASH_START, ' ');
const SPACE_2 = mash(SPACE_1, ' ');
const SPACE_3 = mash(SPACE_2, ' ');
const S0_START = (SPACE_1 >>> 0) * TWO_POW_MINUS_32;
const S1_START = (SPACE_2 >>> 0) * TWO_POW_MINUS_32;
const S2_START = (SPACE_3 >>> 0) * TWO_POW_MINUS_32;

/** Mash over the key `${seedText}/${stream}` without building it. */
function mashKey(n: number, seedText: string, stream: string): number {
  return mash(mash(mash(n, seedText), '/'), stream);
}

// The first of the three passes over a key starts from the same state for every key, so keys that share
// a prefix share its Mash states: streams of one seed all begin `${seed}/`, and a variant build creates
// its streams in registry order (`apply:tools.rename.semantic`, `apply:tools.rename.opaque`, ...). The
// states after each character of the last stream are kept, and the next one resumes after the longest
// common prefix. Exact: a state is a pure function of the characters before it.
let lastSeedText = '';
let lastStream = '';
/** lastStates[i]: the first pass's state after `${lastSeedText}/` and i characters of lastStream. */
const lastStates: number[] = [];

function firstPass(seedText: string, stream: string): number {
  if (seedText !== lastSeedText) {
    lastSeedText = seedText;
    lastStream = '';
    lastStates[0] = mash(mash(SPACE_3, seedText), '/');
  }
  let common = 0;
  const max = Math.min(stream.length, lastStream.length);
  while (common < max && stream.charCodeAt(common) === lastStream.charCodeAt(common)) common++;
  let n = lastStates[common];
  for (let i = common; i < stream.length; i++) {
    n = mashStep(n, stream.charCodeAt(i));
    lastStates[i + 1] = n;
  }
  lastStream = stream;
  return n;
}

/** The three seed values' starting points: pass k of Mash over the key is subtracted from the k-th. */
const SEED_STARTS = [S0_START, S1_START, S2_START];

/** A deterministic random stream with the helpers the generators need. */
export class Rng {
  // Alea's state is three values and a carry. Seeding sets the k-th value from the k-th Mash pass over
  // the key `${seed}/${stream}`, and the k-th draw (k <= 3) is the first to read the k-th value: so each
  // pass runs just before the draw that needs it. Many streams are drawn from once (whether an operator
  // applies) or never, and a pass costs a Mash over the whole key.
  readonly #seedText: string;
  readonly #stream: string;
  /** Mash passes done (0-3); also the draws done, while fewer than 3. */
  #passes = 0;
  /** Mash's state after the passes done. */
  #mash = 0;
  #s0 = 0;
  #s1 = 0;
  #s2 = 0;
  #c = 1;

  constructor(seed: number, stream: string) {
    // The key makes streams independent.
    this.#seedText = String(seed >>> 0);
    this.#stream = stream;
  }

  /** The next Mash pass over the key: the seed value the coming draw reads (seedrandom `Alea(seed)`). */
  #seedPass(): void {
    const pass = this.#passes;
    this.#mash = pass === 0 ? firstPass(this.#seedText, this.#stream) : mashKey(this.#mash, this.#seedText, this.#stream);
    let value = SEED_STARTS[pass] - (this.#mash >>> 0) * TWO_POW_MINUS_32;
    if (value < 0) value += 1;
    // Draws so far moved the seed values down as they did: the one this pass gives is now first.
    this.#s0 = value;
    this.#passes = pass + 1;
  }

  /** Alea's step: a float in [0, 1). */
  #draw(): number {
    if (this.#passes < 3) this.#seedPass();
    const t = 2091639 * this.#s0 + this.#c * TWO_POW_MINUS_32;
    this.#s0 = this.#s1;
    this.#s1 = this.#s2;
    this.#c = t | 0;
    return (this.#s2 = t - this.#c);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#draw();
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#draw() * (hi - lo + 1));
  }

  /** A uint32, e.g. to seed a child stream (seedrandom's `int32() >>> 0`). */
  uint32(): number {
    return ((this.#draw() * 0x100000000) | 0) >>> 0;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.#draw() < p;
  }

  /** One element, uniformly. Throws on an empty array (a generator bug, never user input). */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick on an empty array');
    return items[Math.floor(this.#draw() * items.length)];
  }

  /** One key of a weight table, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const k of keys) total += weights[k];
    let x = this.#draw() * total;
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
      const j = Math.floor(this.#draw() * (i + 1));
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

/**
 * The slot of `seed` among `n` (a pool of compiled variants, of generated rooms): murmur3's 32-bit
 * finaliser of the seed, modulo n, so that consecutive seeds spread over the pool. Pure and cheap.
 */
export function slotOf(seed: number, n: number): number {
  return mix32(seed) % n;
}

/** murmur3's fmix32: a bijection on uint32. */
export function mix32(seed: number): number {
  let h = seed >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The inverse of `mix32`: `mix32(unmix32(h)) === h`. */
export function unmix32(h: number): number {
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7ed1b41d) >>> 0;
  h = (h ^ (h >>> 13) ^ (h >>> 26)) >>> 0;
  h = Math.imul(h, 0xa5cb9243) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
