/**
 * Reward profiles: the default one, and validation of a profile a designer wrote (YAML or JSON),
 * with messages that name the offending key (e.g. `modules[2].weight: ...`).
 */
import { z } from 'zod';
import type { RewardRegistry } from './registry.js';
import type { RewardProfile } from './types.js';

// Frozen all the way down: the default is shared by every episode of every session.
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The default profile. Gates: an inaccurate reply (accuracy < 0.5) caps the episode at 0.2, whatever
 * else went well; a hook-blocked episode (hook_compliance 0) caps it at 0.1.
 */
export const DEFAULT_PROFILE: RewardProfile = deepFreeze({
  name: 'default',
  modules: [
    { name: 'accuracy', weight: 0.35 },
    { name: 'effectiveness', weight: 0.2 },
    { name: 'hook_compliance', weight: 0.15 },
    { name: 'tool_rationality', weight: 0.15 },
    { name: 'skill_selection', weight: 0.15 },
  ],
  gates: [
    { module: 'accuracy', below: 0.5, cap: 0.2 },
    { module: 'hook_compliance', below: 0.01, cap: 0.1 },
  ],
});

const unit = z.number().min(0).max(1);

/** The profile's shape. Strict objects, so a typo such as `wieght` is reported, not ignored. */
export const RewardProfileSchema = z.strictObject({
  name: z.string().min(1),
  modules: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        weight: z.number().min(0),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1),
  gates: z.array(z.strictObject({ module: z.string().min(1), below: unit, cap: unit })),
});

/** Outcome of `validateProfile`: the parsed profile, or every problem found. */
export type ProfileValidation = { ok: true; profile: RewardProfile } | { ok: false; errors: string[] };

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out === '' ? '(root)' : out;
}

/**
 * Validate a raw profile against the schema and the registry: known modules, no duplicates, gates on
 * modules of the profile, a positive total weight. Never throws; errors are `path: message` strings.
 */
export function validateProfile(raw: unknown, registry: RewardRegistry): ProfileValidation {
  const parsed = RewardProfileSchema.safeParse(raw, {
    // zod's default for a missing key ("expected string, received undefined") hides what happened.
    error: (iss) => (iss.code === 'invalid_type' && iss.input === undefined ? 'required key is missing' : undefined),
  });
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((iss) => `${formatPath(iss.path)}: ${iss.message}`),
    };
  }
  const p = parsed.data;
  const errors: string[] = [];
  const known = registry
    .list()
    .map((m) => m.name)
    .join(', ');
  const firstAt = new Map<string, number>();
  p.modules.forEach((m, i) => {
    if (registry.get(m.name) === undefined) errors.push(`modules[${i}].name: unknown reward module "${m.name}" (known: ${known})`);
    const first = firstAt.get(m.name);
    if (first !== undefined) errors.push(`modules[${i}].name: duplicate module "${m.name}" (first at modules[${first}])`);
    else firstAt.set(m.name, i);
  });
  if (p.modules.every((m) => m.weight === 0)) errors.push('modules: the weights sum to 0; at least one must be positive');
  p.gates.forEach((g, i) => {
    if (!firstAt.has(g.module)) errors.push(`gates[${i}].module: "${g.module}" is not a module of this profile`);
  });
  if (errors.length > 0) return { ok: false, errors };

  // Rebuild the object so the result carries no extra references into the caller's raw input.
  const profile: RewardProfile = {
    name: p.name,
    modules: p.modules.map((m) =>
      m.params === undefined ? { name: m.name, weight: m.weight } : { name: m.name, weight: m.weight, params: { ...m.params } },
    ),
    gates: p.gates.map((g) => ({ module: g.module, below: g.below, cap: g.cap })),
  };
  return { ok: true, profile };
}
