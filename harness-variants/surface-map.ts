/**
 * `TableMap`: the `SurfaceMap` of a variant, built once from its rename tables. Every lookup is a Map
 * hit; nothing is compiled per call.
 */
import type { SurfaceMap } from '../protocol/surface.js';
import { rewriterOf } from './materialize.js';
import type { RenameTables } from './types.js';
import { foreignKey, readForeignKey } from '../protocol/surface.js';
import { isRecord } from '../protocol/objects.js';

const EMPTY: ReadonlyMap<string, never> = new Map<string, never>();

// The rename tables are dictionary-mode objects (harness-variants/build.ts `table`), which Object.entries
// reads slowly (a sorted key list, then a pair array per key): they are read with `for...in`, which lists
// the same keys in the same order (own keys only, as Object.entries).

function invert(table: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const canonical in table) if (Object.hasOwn(table, canonical)) out.set(table[canonical], canonical);
  return out;
}

/** A table's entries as a map (the shared empty map when it has none). */
function mapOfTable<V, W = V>(table: Record<string, V>, value: (v: V) => W = (v) => v as unknown as W): ReadonlyMap<string, W> {
  let out: Map<string, W> | null = null;
  for (const k in table) if (Object.hasOwn(table, k)) (out ??= new Map<string, W>()).set(k, value(table[k]));
  return out ?? (EMPTY as ReadonlyMap<string, W>);
}

/** A table's entries as pairs, in order. */
function pairsOf(table: Record<string, string>): [string, string][] {
  const out: [string, string][] = [];
  for (const k in table) if (Object.hasOwn(table, k)) out.push([k, table[k]]);
  return out;
}

/**
 * Canonical -> surface for every kept name, and its inverse, built in one pass. Should two names share a
 * surface form (no variant the operators build has that), the inverse is made as it always was, through
 * an object of the pairs, so that the same name wins.
 */
function bijection(names: readonly string[], table: Record<string, string>): [Map<string, string>, Map<string, string>] {
  const forward = new Map<string, string>();
  const back = new Map<string, string>();
  let shared = false;
  for (const n of names) {
    const surface = table[n] ?? n;
    forward.set(n, surface);
    if (back.has(surface)) shared = true;
    back.set(surface, n);
  }
  return [forward, shared ? invert(Object.fromEntries(forward)) : back];
}



function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** The bijection of one variant. */
export class TableMap implements SurfaceMap {
  readonly #tools: Map<string, string>; // canonical -> surface
  readonly #toolsBack: Map<string, string>; // surface -> canonical
  readonly #skills: Map<string, string>;
  readonly #skillsBack: Map<string, string>;
  readonly #fields: ReadonlyMap<string, string>;
  readonly #fieldsBack: ReadonlyMap<string, string>;
  readonly #nest: ReadonlyMap<string, string>;
  readonly #extra: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * What `rewriteText` is made from: the tools' and skills' renames as pairs (the fields' are `#fields`).
   * Not the variant's tables themselves: those are large dictionaries, and an episode keeps its map.
   */
  readonly #renamedTools: [string, string][];
  readonly #renamedSkills: [string, string][];
  // Built on first use: most episodes never see a service error message to rewrite.
  #rewrite: ((text: string) => string) | null = null;

  /**
   * @param canonicalTools every canonical tool the variant keeps (renamed or not)
   * @param canonicalSkills every canonical skill the variant keeps
   * @param toolsOf a map of the same tools and fields to share them from (`withSkills`)
   */
  constructor(tables: RenameTables, canonicalTools: readonly string[], canonicalSkills: readonly string[], toolsOf?: TableMap) {
    [this.#skills, this.#skillsBack] = bijection(canonicalSkills, tables.skills);
    this.#renamedSkills = pairsOf(tables.skills);
    if (toolsOf !== undefined) {
      // The same tools and fields as that map's (its tables' tools, fields, nesting and extras are these).
      this.#tools = toolsOf.#tools;
      this.#toolsBack = toolsOf.#toolsBack;
      this.#fields = toolsOf.#fields;
      this.#fieldsBack = toolsOf.#fieldsBack;
      this.#nest = toolsOf.#nest;
      this.#extra = toolsOf.#extra;
      this.#renamedTools = toolsOf.#renamedTools;
      return;
    }
    [this.#tools, this.#toolsBack] = bijection(canonicalTools, tables.tools);
    // Most variants leave some of these empty: they then share one empty map.
    this.#fields = mapOfTable(tables.fields);
    this.#fieldsBack = this.#fields.size === 0 ? EMPTY : invert(tables.fields);
    this.#nest = mapOfTable(tables.nest);
    this.#extra = mapOfTable(tables.extra_params, (v) => new Set(v));
    this.#renamedTools = pairsOf(tables.tools);
  }

  /**
   * The map of the same variant with other skills (a per-task operator masked some): the tools' and
   * fields' maps are this one's, shared; `tables` must differ from this map's only in the skills' renames.
   */
  withSkills(tables: RenameTables, canonicalSkills: readonly string[]): TableMap {
    return new TableMap(tables, [], canonicalSkills, this);
  }

  toolToCanonical(surface: string): string | undefined {
    return this.#toolsBack.get(surface);
  }

  toolToSurface(canonical: string): string | undefined {
    return this.#tools.get(canonical);
  }

  /** A surface field name back to canonical (unrenamed names are their own canonical form). */
  #fieldBack(surface: string): string {
    const c = this.#fieldsBack.get(surface);
    if (c !== undefined) return c;
    // A canonical name that the variant renamed is not a valid surface name: keep it visibly foreign so
    // that validation reports it instead of silently accepting the base harness's name.
    return this.#fields.has(surface) ? foreignKey(surface, 'base') : surface;
  }

  argsToCanonical(tool: string, args: { [key: string]: unknown }): { [key: string]: unknown } {
    let source = args;
    const out: Record<string, unknown> = {};
    const wrapper = this.#nest.get(tool);
    if (wrapper !== undefined) {
      let inner = args[wrapper];
      // Raw-text (XML) calls carry the wrapper's object as a JSON string.
      if (typeof inner === 'string') inner = parseObject(inner) ?? inner;
      source = isRecord(inner) ? inner : {};
      // Anything beside the wrapper is foreign: kept, marked, so that the schema reports it as unknown
      // (a flat call in the base harness's shape must not pass as a nested one).
      for (const [k, v] of Object.entries(args)) if (k !== wrapper) out[foreignKey(k, 'outside')] = v;
      if (inner !== undefined && !isRecord(inner)) out[foreignKey(wrapper, 'value')] = inner;
    }
    const extra = this.#extra.get(tool);
    for (const [k, v] of Object.entries(source)) {
      if (extra?.has(k)) continue; // surface-only optional parameter: accepted and ignored
      out[this.#fieldBack(k)] = v;
    }
    return out;
  }

  argsToSurface(tool: string, args: { [key: string]: unknown }): { [key: string]: unknown } {
    const inner: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) inner[this.#fields.get(k) ?? k] = v;
    const wrapper = this.#nest.get(tool);
    return wrapper === undefined ? inner : { [wrapper]: inner };
  }

  paramToSurface(tool: string, path: string): string {
    const renamed = path
      .split('.')
      .map((p) => readForeignKey(p)?.name ?? this.#fields.get(p) ?? p)
      .join('.');
    const wrapper = this.#nest.get(tool);
    // A foreign key beside the wrapper is reported by its own (surface) name, not under the wrapper.
    if (wrapper === undefined || path.includes(foreignKey('', 'outside'))) return renamed;
    if (path.includes(foreignKey('', 'value'))) return wrapper;
    return renamed ? `${wrapper}.${renamed}` : wrapper;
  }

  rewriteText(text: string): string {
    this.#rewrite ??= rewriterOf(this.#renamedTools, this.#fields, this.#renamedSkills);
    return this.#rewrite(text);
  }

  resultToSurface(_tool: string, data: unknown): unknown {
    if (this.#fields.size === 0) return data;
    return this.#renameKeys(data);
  }

  #renameKeys(data: unknown): unknown {
    if (Array.isArray(data)) return data.map((d) => this.#renameKeys(d));
    if (!isRecord(data)) return data;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) out[this.#fields.get(k) ?? k] = this.#renameKeys(v);
    return out;
  }

  skillToCanonical(surface: string): string | undefined {
    return this.#skillsBack.get(surface);
  }

  skillToSurface(canonical: string): string | undefined {
    return this.#skills.get(canonical);
  }
}
