/**
 * Two object helpers every folder needs, kept once here (protocol/ imports nothing and every folder may
 * import it): the "is a JSON object" guard that raw input is checked with before its fields are read, and
 * the deep freeze of data shared by every episode or session.
 */

/** Whether a value is an object and not an array (nor null): a JSON object once parsed. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Freeze an object graph through its enumerable own properties, and return it. An object already frozen
 * is taken as frozen all the way down and not walked again (shared, frozen parts are walked once; a cycle
 * ends).
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
