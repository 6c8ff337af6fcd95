/**
 * No source behaves differently under vitest: `VITEST` (which vitest sets in the environment) is read
 * nowhere outside test/ and the vitest configuration, so the tests run the path a server runs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
/** Not sources: tests and their set-up and build output (at the top), dependencies, hidden folders (.git...). */
const SKIP_TOP = new Set(['test', 'dist']);
const SKIP_FILES = new Set(['vitest.config.ts', 'vitest.projects.ts']);
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && !(dir === ROOT && SKIP_TOP.has(name))) sources(p, out);
    } else if (SOURCE.test(name) && !(dir === ROOT && SKIP_FILES.has(name))) out.push(p);
  }
  return out;
}

/** The files (relative) whose text names the VITEST variable. */
export function vitestReaders(files: readonly string[]): string[] {
  return files.filter((f) => /\bVITEST\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
}

describe('process.env.VITEST', () => {
  it('is read by no source outside test/ and the vitest configuration', () => {
    const files = sources(ROOT);
    expect(files.some((f) => relative(ROOT, f) === 'harness-variants/build.ts')).toBe(true);
    expect(vitestReaders(files)).toEqual([]);
  });

  it('would be found in a source that read it (this file names it, outside the sources walked)', () => {
    expect(vitestReaders([join(ROOT, 'test/no-vitest-env.test.ts')])).toEqual(['test/no-vitest-env.test.ts']);
  });
});
