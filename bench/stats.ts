/** Small statistics helpers shared by the load generator, the report and `bench:results`. */

/** Nearest-rank quantile of an ascending array (NaN when empty). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const idx = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[idx];
}

/** p50 and p99 of unsorted samples (sorted in place as a Float64Array copy). */
export function p50p99(samples: readonly number[]): { p50: number; p99: number } {
  const s = Float64Array.from(samples).sort();
  return { p50: quantileSorted(s, 0.5), p99: quantileSorted(s, 0.99) };
}

/** The median of numbers (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** Round to `digits` decimals; null stays null and NaN/Infinity become null (JSON has no NaN). */
export function round(x: number | null | undefined, digits = 2): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * The median, key by key, of several JSON values of the same shape: numbers take their median (nulls
 * ignored; all null gives null), objects and arrays recurse, anything else (strings, booleans) is taken
 * from the first value. This is how `bench:results` combines K runs.
 */
export function deepMedian(values: readonly unknown[]): unknown {
  const first = values[0];
  if (typeof first === 'number' || (first === null && values.some((v) => typeof v === 'number'))) {
    const nums = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return nums.length === 0 ? null : median(nums);
  }
  if (Array.isArray(first)) return first.map((_, i) => deepMedian(values.map((v) => (Array.isArray(v) ? v[i] : undefined))));
  if (first !== null && typeof first === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(first))
      out[k] = deepMedian(values.map((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined)));
    return out;
  }
  return first;
}
