/**
 * Source comments carry no benchmark figures and no issue numbers: figures go stale and belong in
 * bench/RESULTS.md ("Design measurements cited by the code"), which a comment points to; an issue number
 * narrates history the commit log keeps. A comment line (`//`, `/*` or a JSDoc `*` line) that holds a
 * figure with a unit (ns, µs, us, ms, KB/KiB, MB/MiB, GB/GiB, %, "x faster") or "issue NN" fails, unless
 * `ALLOWED` lists it, each entry with why it stays.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SKIP_TOP = new Set(['test', 'dist', 'docs', 'examples']);
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** A figure with a unit, or an issue number. */
const FIGURE = /(\d[\d,.]*\s?(ns|µs|us|ms|KB|KiB|MB|MiB|GB|GiB)\b|\d[\d.]*\s?%|\d[\d.]*\s?(x|×) (faster|slower)|\bissue #?\d+)/gi;
/** A comment line: starts with `//`, `/*` or a JSDoc `*`. */
const COMMENT = /^\s*(\/\/|\*|\/\*)/;

/** Defaults, limits and constants the code sets (not measurements): what the comment documents is the value. */
const CONSTANTS: Record<string, string[]> = {
  'bench/chart.ts': ['10 ms'],
  'bench/echo-server.ts': ['4 MiB'],
  'bench/load.ts': ['10 ms', '0.5 ms', '20%'],
  'cli/progress.ts': ['100 ms'],
  'client/sharded.ts': ['200 ms'],
  'eval/policy-endpoint.ts': ['32 MiB'],
  'protocol/files.ts': ['64 MiB', '256 KiB'],
  'recording/format.ts': ['64 MiB'],
  'recording/inspect.ts': ['64 KiB'],
  'recording/writer.ts': ['64 MiB', '1 MiB'],
  'server/config.ts': ['4 MiB', '64 MiB', '2000 MiB', '2 GiB', '2 GiB', '70%'],
  'server/heap-budget.ts': ['48 MiB', '80%', '80%'],
  'server/latency-summary.ts': ['0.1%', '1 µs'],
  // AUTO_WORKER_HEAP_MB's value, and V8's own heap-limit thresholds for its growth multiple (heap-controller.cc).
  'server/worker-heap.ts': ['2000 MiB', '2 GiB', '1 GiB', '256 MiB', '2 GiB', '2 GiB', '2 GiB', '2 GiB', '16 MiB'],
};

/** Data, not measurements: the production intent shares the task generator draws with, and example texts. */
const DATA: Record<string, string[]> = {
  'env/tasks/intents/chat.ts': ['19%', '16%'],
  'env/tasks/intents/commerce.ts': ['3%', '3%'],
  'env/tasks/intents/multi.ts': ['2%'],
  'env/tasks/intents/orders.ts': ['7%', '1%'],
  'env/tasks/intents/product-qa.ts': ['46%'],
  'env/tasks/intents/safety.ts': ['2%', '1%'],
  'env/tasks/mix.ts': ['12%'],
  'mock-services/catalog.ts': ['100%'],
  'mock-services/generate.ts': ['92%'],
  'rewards/meaning.ts': ['92%', '8%'],
};

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && !(dir === ROOT && SKIP_TOP.has(name))) sources(p, out);
    } else if (SOURCE.test(name) && !/^vitest\./.test(name)) out.push(p);
  }
  return out;
}

/** Each file's figures in comment lines, in order, those of `allowed` taken out (each allowed once per listing). */
export function figuresIn(files: readonly string[], allowed: Record<string, string[]>[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of files) {
    const rel = relative(ROOT, f);
    const left = allowed.flatMap((a) => a[rel] ?? []);
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!COMMENT.test(line)) continue;
      for (const m of line.matchAll(FIGURE)) {
        const i = left.indexOf(m[0]);
        if (i >= 0) left.splice(i, 1);
        else (out[rel] ??= []).push(m[0]);
      }
    }
  }
  return out;
}

describe('source comments', () => {
  it('hold no benchmark figure and no issue number beyond the allow-lists', () => {
    const files = sources(ROOT);
    expect(files.some((f) => relative(ROOT, f) === 'server/hosts.ts')).toBe(true);
    expect(figuresIn(files, [CONSTANTS, DATA])).toEqual({});
  });

  it('would be caught: a figure with a unit or an issue number in a comment (this file, outside the sources walked)', () => {
    // A figure: 35 µs, 2.5x faster (issue 42).
    const found = figuresIn([join(ROOT, 'test/no-figures-in-comments.test.ts')], []);
    expect(found['test/no-figures-in-comments.test.ts']).toEqual(expect.arrayContaining(['35 µs', '2.5x faster', 'issue 42']));
  });
});
