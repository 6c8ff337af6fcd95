/** Loading a harness directory in a test: the harness, or the test fails with the loader's errors. */
import { loadHarnessDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';

/** The harness in `dir`; throws with the loader's errors when it is refused. */
export function loadDir(dir: string): HarnessSet {
  const r = loadHarnessDir(dir);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.harness;
}

/** The loader's errors for `dir`; throws when the harness loads. */
export function refusalsOf(dir: string): string[] {
  const r = loadHarnessDir(dir);
  if (r.ok) throw new Error('expected the harness to be refused');
  return r.errors;
}
