/**
 * Reward profiles: the default one, and validation of a profile a designer wrote (YAML or JSON),
 * with messages that name the offending key (e.g. `modules[2].weight: ...`), all of them at once.
 */
import { z } from 'zod';
import type { RewardRegistry } from './registry.js';
import type { RewardProfile } from './types.js';
import { deepFreeze, isRecord } from '../protocol/objects.js';

// Frozen all the way down (deepFreeze): the default is shared by every episode of every session.

/**
 * The default profile (rewards 3.0). Gates cap only hard failures, in three steps by how bad they are
 * on air: a reply that states little of what was asked, or something invented, forbidden or unsupported
 * (accuracy below 0.35: those multiply accuracy by 0.2), is capped at 0.02; the right words with the
 * wrong action (a refusal, hand-off or coupon not recorded: accuracy times 0.55), or half an answer, at
 * 0.4; two thirds of an answer at 0.5. An episode blocked by a hook, or whose final reply breaks a rule
 * the prompt states (hook_compliance 0), is capped at 0.02. Effectiveness (brevity, relevance, a call to
 * action) weighs and never caps: a soft score does not make a cliff. Every cap that applies is a reason
 * line (`caps`). (2.0 capped at 0.05 below effectiveness 0.4 and below accuracy 0.6; docs/REWARDS.md
 * "The default profile" says what that cost. The floor is 0.02, not 2.0's 0.05: a pleasantry that rightly
 * answers greetings, compliments and "what's your name?" otherwise earned 0.15 on the production mix
 * from the floor alone, the audit's limit.)
 */
export const DEFAULT_PROFILE: RewardProfile = deepFreeze({
  name: 'default',
  modules: [
    { name: 'accuracy', weight: 0.3 },
    { name: 'effectiveness', weight: 0.25 },
    { name: 'hook_compliance', weight: 0.15 },
    { name: 'tool_rationality', weight: 0.15 },
    { name: 'skill_selection', weight: 0.15 },
  ],
  gates: [
    { module: 'accuracy', below: 0.35, cap: 0.02 },
    { module: 'accuracy', below: 0.6, cap: 0.4 },
    { module: 'accuracy', below: 0.8, cap: 0.5 },
    { module: 'hook_compliance', below: 0.01, cap: 0.02 },
  ],
});

const unit = z.number().min(0).max(1);

/** One module entry of a profile. Strict, so a typo such as `wieght` is reported, not ignored. */
const RewardProfileModuleSchema = z.strictObject({
  name: z.string().min(1),
  // Finite and bounded: two weights near the float limit would sum to Infinity and every reward to NaN.
  weight: z.number().min(0).max(1e6),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** One gate of a profile. */
const RewardGateSchema = z.strictObject({ module: z.string().min(1), below: unit, cap: unit });

/**
 * The profile's shape, as a designer writes it. Strict objects, so a typo such as `wieght` is reported,
 * not ignored. `gates` may be left out: no gates is a valid profile (the loaded profile has `gates: []`).
 */
export const RewardProfileSchema = z.strictObject({
  name: z.string().min(1),
  modules: z.array(RewardProfileModuleSchema).min(1),
  gates: z.array(RewardGateSchema).optional(),
});

/** Outcome of `validateProfile`: the parsed profile, or every problem found. */
export type ProfileValidation = { ok: true; profile: RewardProfile } | { ok: false; errors: string[] };

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out === '' ? '(root)' : out;
}

/** A usable module name of a raw entry (what the registry checks need), whatever else is wrong with it. */
function entryName(entry: unknown): string | undefined {
  return isRecord(entry) && typeof entry.name === 'string' && entry.name.length > 0 ? entry.name : undefined;
}

/**
 * The checks beyond the shape, run on the raw value so that they still run when the shape is wrong
 * elsewhere: a designer who misspelt a key and a module name hears about both at once, not in two
 * rounds. Each check runs only on the parts it can judge (a gate is checked against the profile's
 * modules only when every module entry has a name; the zero-sum rule only when every weight is a number).
 */
function registryProblems(raw: unknown, registry: RewardRegistry): string[] {
  if (!isRecord(raw) || !Array.isArray(raw.modules)) return [];
  const entries: unknown[] = raw.modules;
  const errors: string[] = [];
  const known = registry
    .list()
    .map((m) => m.name)
    .join(', ');
  const firstAt = new Map<string, number>();
  entries.forEach((entry, i) => {
    const name = entryName(entry);
    if (name === undefined) return;
    const m = registry.get(name);
    if (m === undefined) errors.push(`modules[${i}].name: unknown reward module "${name}" (known: ${known})`);
    const first = firstAt.get(name);
    if (first !== undefined) errors.push(`modules[${i}].name: duplicate module "${name}" (first at modules[${first}])`);
    else firstAt.set(name, i);
    const params = (entry as Record<string, unknown>).params;
    if (typeof m?.checkParams !== 'function' || (params !== undefined && !isRecord(params))) return;
    let problems: string[];
    try {
      problems = m.checkParams(params ?? {});
    } catch (e) {
      problems = [`checkParams threw: ${(e as Error).message}`];
    }
    for (const p of problems) errors.push(`modules[${i}].params: ${p}`);
  });
  if (entries.length > 0 && entries.every((e) => isRecord(e) && e.weight === 0)) {
    errors.push('modules: the weights sum to 0; at least one must be positive');
  }
  if (Array.isArray(raw.gates) && entries.every((e) => entryName(e) !== undefined)) {
    raw.gates.forEach((g: unknown, i) => {
      const target = isRecord(g) && typeof g.module === 'string' && g.module.length > 0 ? g.module : undefined;
      if (target !== undefined && !firstAt.has(target)) errors.push(`gates[${i}].module: "${target}" is not a module of this profile`);
    });
  }
  return errors;
}

/**
 * Validate a raw profile against the schema and the registry: the shape (strict keys; `gates`
 * optional), known modules, no duplicates, gates on modules of the profile, a positive total weight,
 * and each module's own `checkParams`. Every problem is reported in one result, shape problems first
 * (in document order), then the others. Never throws; errors are `path: message` strings.
 */
export function validateProfile(raw: unknown, registry: RewardRegistry): ProfileValidation {
  const parsed = RewardProfileSchema.safeParse(raw, {
    // zod's default for a missing key ("expected string, received undefined") hides what happened.
    error: (iss) => (iss.code === 'invalid_type' && iss.input === undefined ? 'required key is missing' : undefined),
  });
  const errors = parsed.success ? [] : parsed.error.issues.map((iss) => `${formatPath(iss.path)}: ${iss.message}`);
  errors.push(...registryProblems(raw, registry));
  if (!parsed.success || errors.length > 0) return { ok: false, errors };

  // Rebuild the object so the result carries no extra references into the caller's raw input.
  const p = parsed.data;
  const profile: RewardProfile = {
    name: p.name,
    modules: p.modules.map((m) =>
      m.params === undefined ? { name: m.name, weight: m.weight } : { name: m.name, weight: m.weight, params: { ...m.params } },
    ),
    gates: (p.gates ?? []).map((g) => ({ module: g.module, below: g.below, cap: g.cap })),
  };
  return { ok: true, profile };
}
