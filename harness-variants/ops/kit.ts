/**
 * Helpers shared by the operators: split-aware pools (the `eval` split draws only from its held-out half),
 * collision-free naming, and finding names in text. Operators run on every reset, over the same base
 * texts: what depends on a text alone is computed once per text (bounded memos), never a regex per call.
 */
import type { Split } from '../../protocol/domain.js';
import type { Rng } from '../../protocol/rng.js';
import type { RenameTables, VariantDraft } from '../types.js';

/** A pool with a training half and a held-out half that `train` never uses. */
export interface SplitPool<T> {
  train: readonly T[];
  eval: readonly T[];
}

/** The half of a pool a split may draw from. */
export function poolFor<T>(pool: SplitPool<T>, split: Split): readonly T[] {
  return split === 'eval' ? pool.eval : pool.train;
}

/**
 * Every identifier the draft already uses (canonical and surface), so that a new name never collides;
 * names added to it are taken too. Over a sealed draft (a compiled variant's: `sealToolNames`), a view:
 * the tool-side names are looked up in the sealed set, not copied into a new one on every reset.
 */
export function usedNames(draft: VariantDraft): NameSet {
  const t: RenameTables = draft.tables;
  const fixed = sealedNames.get(draft.harness.tools);
  const own = new Set<string>();
  if (fixed === undefined) {
    addToolNames(own, draft);
    addValues(own, t.tools);
  }
  for (const s of draft.harness.skills) own.add(s.name);
  addValues(own, t.skills);
  if (fixed === undefined) return own;
  return { has: (name) => own.has(name) || fixed.has(name), add: (name) => own.add(name) };
}

/** The names of the tools, their parameters and the tables other than the skills'. */
function addToolNames(used: Set<string>, draft: VariantDraft): void {
  const t = draft.tables;
  for (const tool of draft.harness.tools) {
    used.add(tool.function.name);
    for (const p of Object.keys(tool.function.parameters.properties ?? {})) used.add(p);
  }
  addValues(used, t.fields);
  addValues(used, t.nest);
  for (const tool in t.extra_params) for (const v of t.extra_params[tool]) used.add(v);
  for (const d of t.decoys) used.add(d);
}

/**
 * The tool-side names of finished drafts, by their tools list: a compiled variant's tools and tables no
 * longer change (per-task operators only add skills and drop skill renames), and its per-task operators
 * ask for the names on every reset.
 */
const sealedNames = new WeakMap<object, ReadonlySet<string>>();

/** Seal a finished draft's tools and tables (other than the skills' renames): `usedNames` lists them once. */
export function sealToolNames(draft: VariantDraft): void {
  const used = new Set<string>();
  addToolNames(used, draft);
  addValues(used, draft.tables.tools);
  sealedNames.set(draft.harness.tools, used);
}

function addValues(used: Set<string>, table: Record<string, string>): void {
  for (const k in table) used.add(table[k]);
}

/**
 * A shuffled copy of `items` that differs from their order whenever it can (so a reorder is visible): one
 * `rng.shuffle`, and when that gave the same order back, the first item moved to the end (no further draw).
 */
export function reorder<T>(rng: Rng, items: readonly T[]): T[] {
  const out = rng.shuffle(items);
  if (items.length > 1 && out.every((x, i) => x === items[i])) out.push(out.shift() as T);
  return out;
}

/**
 * A list marker that numbers its item, in any style a harness or `skills.rules.numbering` writes
 * (`1. `, `1) `, `1）`, `1、`, `(1) `, `（1）`, `[1] `, `第1条：`, `规则1：`, `Rule 1: `, `Step 1: `).
 */
const NUMBERED_MARKER = /^(?:\d+(?:\. |\) |）|、)|\(\d+\) |（\d+）|\[\d+\] |第\d+条：|规则\d+：|Rule \d+: |Step \d+: )/;

/** The numbering marker a text starts with, or null. */
export function numberMarker(text: string): string | null {
  return NUMBERED_MARKER.exec(text)?.[0] ?? null;
}

/**
 * `reorder`, then the numbers put back in place: where a numbered item stood, the numbered item moved there
 * takes that place's marker, so a shuffled `1. 2. 3.` list still reads 1, 2, 3 (its items keeping their
 * numbers would let the original order be read back). `marker` gives an item's numbering marker (null:
 * none), `withMarker` the item with another one. The same draws as `reorder`: a list without numbers
 * comes out as `reorder` gives it.
 */
export function reorderNumbered<T>(rng: Rng, items: readonly T[], marker: (x: T) => string | null, withMarker: (x: T, m: string) => T): T[] {
  const out = reorder(rng, items);
  for (let i = 0; i < out.length; i++) {
    const place = marker(items[i]);
    if (place === null || out[i] === items[i] || marker(out[i]) === null) continue;
    out[i] = withMarker(out[i], place);
  }
  return out;
}

/** A deep copy of JSON data (what `structuredClone` gives for it, without the serialisation round trip). */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines own properties, as a parse would (even a key named "__proto__").
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyJson(v)])) as T;
}

/** Whether a UTF-16 code unit is an identifier character ([A-Za-z0-9_-]); NaN (out of range) is not. */
function isIdentifierCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * Whether `text` holds `name` with no identifier character ([A-Za-z0-9_-]) right before or after it:
 * what the regex `(?<![A-Za-z0-9_\-])NAME(?![A-Za-z0-9_\-])` finds for the escaped name (the boundaries
 * materialize's rewriter uses), without compiling a regex per name. A name of identifier characters is
 * found so exactly when it is one of the text's maximal identifier runs, which are listed once per text
 * (operators ask about the same base texts reset after reset); any other name is looked for at each of
 * its occurrences.
 */
export function mentionsName(text: string, name: string): boolean {
  if (isIdentifier(name)) return identifierRuns(text).has(name);
  let at = text.indexOf(name);
  while (at !== -1) {
    if (!isIdentifierCode(text.charCodeAt(at - 1)) && !isIdentifierCode(text.charCodeAt(at + name.length))) return true;
    // An empty name occurs at every index, up to text.length: stop there.
    at = at < text.length ? text.indexOf(name, at + 1) : -1;
  }
  return false;
}

/**
 * Whether any of the texts of `owner` mentions `name` (as `mentionsName`), the texts' identifier runs
 * listed once per owner object: a compiled variant's skills and prompt are asked again on every reset of
 * its pool slot. The owner's texts must not change (they are a compiled variant's, or a fresh object's).
 */
export function ownerMentions(owner: object, texts: (o: object) => readonly string[], name: string): boolean {
  if (!isIdentifier(name)) return texts(owner).some((t) => mentionsName(t, name));
  let runs = ownerRuns.get(owner);
  if (runs === undefined) {
    const set = new Set<string>();
    for (const t of texts(owner)) for (const r of t.match(/[A-Za-z0-9_-]+/g) ?? []) set.add(r);
    ownerRuns.set(owner, (runs = set));
  }
  return runs.has(name);
}

const ownerRuns = new WeakMap<object, ReadonlySet<string>>();

const isIdentifier = stringMemo((name: string): boolean => /^[A-Za-z0-9_-]+$/.test(name));

/** The maximal runs of identifier characters in a text. */
const identifierRuns = stringMemo((text: string): ReadonlySet<string> => new Set(text.match(/[A-Za-z0-9_-]+/g)));

/**
 * Memoise a pure function of a string. The memo is bounded and simply cleared when full: the base
 * harness's texts come back every reset and are re-computed once after a clear, while texts that
 * operators generate (a reshuffled skill body) are seldom seen twice.
 */
export function stringMemo<T>(compute: (s: string) => T, limit = 1024): (s: string) => T {
  const memo = new Map<string, T>();
  return (s) => {
    let v = memo.get(s);
    if (v === undefined) {
      if (memo.size >= limit) memo.clear();
      v = compute(s);
      memo.set(s, v);
    }
    return v;
  };
}

/** Names taken so far, to which an operator adds the ones it takes: a Set, or a view over one. */
export interface NameSet {
  has(name: string): boolean;
  add(name: string): unknown;
}

/** A fresh opaque identifier like `t_3f9a2c`, unique among `used` (and added to it). */
export function opaqueName(rng: Rng, prefix: string, used: NameSet): string {
  for (;;) {
    const name = `${prefix}${rng.uint32().toString(16).padStart(8, '0').slice(0, 6)}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

/** The first candidate not in `used` (in the rng's order), or null when all are taken. */
export function freshFrom(rng: Rng, candidates: readonly string[], used: NameSet): string | null {
  for (const c of rng.shuffle(candidates)) {
    if (!used.has(c)) {
      used.add(c);
      return c;
    }
  }
  return null;
}

/** Convert a snake_case or kebab-case identifier to another case style. */
export function recase(name: string, style: 'snake' | 'kebab' | 'camel' | 'pascal' | 'upper_snake' | 'dot'): string {
  const words = name.split(/[-_.]/).filter(Boolean);
  switch (style) {
    case 'snake':
      return words.join('_');
    case 'kebab':
      return words.join('-');
    case 'camel':
      return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
    case 'pascal':
      return words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
    case 'upper_snake':
      return words.join('_').toUpperCase();
    case 'dot':
      return words.join('.');
  }
}

/** How many of `n` items an operator touches at this intensity (at least one). */
export function share(n: number, intensity: number, rng: Rng): number {
  return Math.max(1, Math.min(n, Math.round(n * (0.3 + 0.7 * intensity) + (rng.next() - 0.5))));
}
