/**
 * The import graph of the sources (CONTRIBUTING.md "Imports flow one way"), read with TypeScript's own
 * pre-processor (`ts.preProcessFile`, type-only imports included): no cycle between files or folders,
 * and each folder imports only the folders below it. A change that adds an import against the flow fails
 * here with the edge that broke it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, it, expect } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const FOLDERS = ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants', 'policies', 'env', 'recording', 'client', 'eval', 'server', 'bench', 'cli'];

/** What each folder may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  protocol: [],
  harness: ['protocol'],
  rewards: ['protocol'],
  'mock-services': ['protocol'],
  'harness-variants': ['protocol', 'harness'],
  // Policies read a harness's bindings (the oracle finds its skill loader; the memorizer is fitted to its names).
  policies: ['protocol', 'harness'],
  env: ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants'],
  recording: ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants', 'policies', 'env'],
  client: ['protocol'],
  eval: ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants', 'policies', 'env', 'recording', 'client'],
  server: ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants', 'env', 'policies', 'recording'],
  bench: ['protocol', 'harness', 'rewards', 'mock-services', 'harness-variants', 'policies', 'env', 'recording', 'client', 'eval'],
  cli: FOLDERS.filter((f) => f !== 'cli' && f !== 'bench'),
};

/** Within server/, only the composition file may import policies/ and recording/. */
const SERVER_COMPOSITION = 'server/compose.ts';

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** file -> the project files it imports (relative paths, `.ts`). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const folder of FOLDERS) {
    for (const file of sources(join(ROOT, folder))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = new Set<string>();
      for (const imp of info.importedFiles) {
        if (!imp.fileName.startsWith('.')) continue;
        targets.add(relative(ROOT, resolve(dirname(file), imp.fileName)).replace(/\.js$/, '.ts'));
      }
      graph.set(relative(ROOT, file), targets);
    }
  }
  return graph;
}

const folderOf = (file: string): string => file.split('/')[0] as string;

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const graph = importGraph();

describe('the import graph', () => {
  it('reads every source folder', () => {
    for (const f of FOLDERS) expect([...graph.keys()].some((file) => folderOf(file) === f), f).toBe(true);
  });

  it('has no cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle between folders, and each folder imports only the folders below it', () => {
    const against: string[] = [];
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      for (const t of targets) {
        const to = folderOf(t);
        if (to !== from && !(ALLOWED[from] ?? []).includes(to)) against.push(`${file} -> ${t}`);
      }
    }
    expect(against).toEqual([]);
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const set = folders.get(folderOf(file)) ?? new Set<string>();
      for (const t of targets) if (folderOf(t) !== folderOf(file)) set.add(folderOf(t));
      folders.set(folderOf(file), set);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it('server/ reaches policies/ and recording/ only through its composition file', () => {
    const edges: string[] = [];
    for (const [file, targets] of graph) {
      if (folderOf(file) !== 'server' || file === SERVER_COMPOSITION) continue;
      for (const t of targets) if (folderOf(t) === 'policies' || folderOf(t) === 'recording') edges.push(`${file} -> ${t}`);
    }
    expect(edges).toEqual([]);
  });

  it('folders import each other through their index.ts only (protocol/ and data tables excepted)', () => {
    const deep: string[] = [];
    for (const [file, targets] of graph) {
      for (const t of targets) {
        const to = folderOf(t);
        if (to === folderOf(file) || to === 'protocol') continue;
        // A folder's public surface is its index.ts; sub-folders with their own index.ts count as surfaces.
        if (!t.endsWith('/index.ts')) deep.push(`${file} -> ${t}`);
      }
    }
    expect(deep).toEqual([]);
  });
});

/** The string literals of a file at least `min` characters long (template heads and plain templates too). */
function longLiterals(file: string, min: number): Set<string> {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && [...node.text].length >= min) {
      out.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('the memorizer imports what it was trained on', () => {
  // The reference-reply text shared by the task generator and the memorizer lives once, in
  // protocol/phrasebook/; a wording copied back into the memorizer would drift from the generator's.
  it('shares no wording with the task generator (names of skills, tools and fields aside)', () => {
    const isName = (s: string) => /^[A-Za-z0-9_.-]+$/.test(s);
    const memo = [...longLiterals(join(ROOT, 'policies', 'memorizer-script.ts'), 10)].filter((s) => !isName(s));
    const intents = new Set<string>();
    for (const file of sources(join(ROOT, 'env', 'tasks', 'intents'))) for (const s of longLiterals(file, 10)) intents.add(s);
    expect(memo.length).toBeGreaterThan(20);
    expect(memo.filter((s) => intents.has(s)).sort()).toEqual([]);
  });
});
