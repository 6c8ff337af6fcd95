/**
 * Which vitest project each test file belongs to (vitest.config.ts): `unit`, the files that start no
 * socket, server, child process or worker thread (the edit-test loop, `npm run test:unit`), and
 * `integration`, the rest. `npm test` runs both, so every file runs exactly once.
 *
 * A file is sorted by what it does, read from its text and from the test/ helpers it imports (transitively):
 * any of `IO_PATTERNS` there makes it an integration file. What the text does not show (a source function
 * that starts worker threads, say) is caught at run time: the unit project's set-up file
 * (test/unit-guard.ts) makes listening, connecting, spawning and starting a worker throw, so such a file
 * fails in the unit project and is then listed in `INTEGRATION_ALSO`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Text that shows a file (or a helper it imports) starting a socket, server, process, thread or browser. */
export const IO_PATTERNS: readonly RegExp[] = [
  /\.listen\(/,
  /\bstartServer\b/,
  /\bbuildServer\b/,
  /\bcreateServer\b/,
  /\bstartViewer\b/,
  /\bspawn(Sync)?\b/,
  /\bexec(File)?(Sync)?\(/,
  /\bfork\(/,
  /\bnew Worker\b/,
  /\bpiscina\b/i,
  /\bchromium\b/i,
  /\bplaywright\b/i,
  /\bpython3?\b/i,
  /\bhaproxy\b/i,
  /\bnew WebSocket\b/,
  /\bconnect\(/,
  /\bfetch\(/,
  /\bHarnessGymClient\b/,
  /\bcli\(/,
];

/**
 * Files whose text shows none of the patterns but that start servers, processes or worker threads
 * through the sources they call (found by the unit project's run-time guard).
 */
export const INTEGRATION_ALSO: readonly string[] = [];

/** Files that name the patterns without doing any of it: the guard's own test. */
export const UNIT_ALWAYS: readonly string[] = ['test/unit-guard.test.ts', 'test/vitest-projects.test.ts'];

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Every test file, relative to the repository (`test/...`), sorted. */
export function testFiles(): string[] {
  return walk(join(ROOT, 'test'))
    .map((p) => relative(ROOT, p))
    .sort();
}

const IMPORT_RE = /\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;

/** Whether a file, or a test/ helper it imports (transitively), shows one of `IO_PATTERNS`. */
export function showsIo(file: string, seen: Set<string> = new Set()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (IO_PATTERNS.some((re) => re.test(text))) return true;
  for (const m of text.matchAll(IMPORT_RE)) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), (m[1] ?? m[2]) as string)).replace(/\.js$/, '.ts');
    if (!target.startsWith('test/') || !target.endsWith('.ts')) continue;
    if (showsIo(target, seen)) return true;
  }
  return false;
}

/** Whether a test file belongs to the integration project. */
export function isIntegration(file: string): boolean {
  if (UNIT_ALWAYS.includes(file)) return false;
  return INTEGRATION_ALSO.includes(file) || showsIo(file);
}

/** The test files of each project. */
export function projectFiles(): { unit: string[]; integration: string[] } {
  const unit: string[] = [];
  const integration: string[] = [];
  for (const f of testFiles()) (isIntegration(f) ? integration : unit).push(f);
  return { unit, integration };
}
