/**
 * Helpers shared by the operators: split-aware pools (the `eval` split draws only from its held-out half)
 * and collision-free naming.
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

/** Every identifier the draft already uses (canonical and surface), so that a new name never collides. */
export function usedNames(draft: VariantDraft): Set<string> {
  const t: RenameTables = draft.tables;
  const used = new Set<string>();
  for (const tool of draft.harness.tools) {
    used.add(tool.function.name);
    for (const p of Object.keys((tool.function.parameters.properties ?? {}) as object)) used.add(p);
  }
  for (const s of draft.harness.skills) used.add(s.name);
  for (const table of [t.tools, t.skills, t.fields, t.nest]) for (const v of Object.values(table)) used.add(v);
  for (const list of Object.values(t.extra_params)) for (const v of list) used.add(v);
  for (const d of t.decoys) used.add(d);
  return used;
}

/** A fresh opaque identifier like `t_3f9a2c`, unique among `used` (and added to it). */
export function opaqueName(rng: Rng, prefix: string, used: Set<string>): string {
  for (;;) {
    const name = `${prefix}${rng.uint32().toString(16).padStart(8, '0').slice(0, 6)}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

/** The first candidate not in `used` (in the rng's order), or null when all are taken. */
export function freshFrom(rng: Rng, candidates: readonly string[], used: Set<string>): string | null {
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
