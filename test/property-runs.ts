/**
 * How many cases a property test runs (seeds of a sweep, fast-check's `numRuns`). `npm test`, which CI
 * runs, runs them all. `npm run test:unit`, the edit-test loop, sets `HGYM_TEST_QUICK=1` and runs a fifth
 * of them (at least 2), so that the loop takes seconds; the full count still runs on every landing.
 */
export const QUICK = process.env.HGYM_TEST_QUICK === '1';

export function propertyRuns(full: number): number {
  return QUICK ? Math.max(2, Math.ceil(full / 5)) : full;
}
