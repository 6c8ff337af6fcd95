import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_PROFILE, RewardRegistry, defaultRegistry, scoreEpisode, validateProfile } from '../../rewards/index.js';
import type { RewardModule } from '../../rewards/index.js';
import { zhProductQa } from './fixtures.js';

const reg = defaultRegistry();

/** A registry where each default module returns a fixed value (1 unless named), to probe the default profile. */
function fixedRegistry(values: Record<string, number>): RewardRegistry {
  const out = new RewardRegistry();
  for (const m of reg.list()) {
    const value = values[m.name] ?? 1;
    const fixed: RewardModule = { name: m.name, version: m.version, segment: m.segment, score: () => ({ value, reasons: [] }) };
    out.register(fixed);
  }
  return out;
}

/** The default profile's reward when the named modules score the given values and the rest 1. */
function defaultReward(values: Record<string, number>): number {
  const { task, oracle } = zhProductQa();
  return scoreEpisode(oracle, task, DEFAULT_PROFILE, fixedRegistry(values)).reward;
}

describe('profiles', () => {
  it('has the default weights and gates, frozen', () => {
    expect(DEFAULT_PROFILE).toEqual({
      name: 'default',
      modules: [
        { name: 'accuracy', weight: 0.3 },
        { name: 'effectiveness', weight: 0.25 },
        { name: 'hook_compliance', weight: 0.15 },
        { name: 'tool_rationality', weight: 0.15 },
        { name: 'skill_selection', weight: 0.15 },
      ],
      gates: [
        { module: 'accuracy', below: 0.6, cap: 0.05 },
        { module: 'effectiveness', below: 0.4, cap: 0.05 },
        { module: 'hook_compliance', below: 0.01, cap: 0.05 },
      ],
    });
    expect(Object.isFrozen(DEFAULT_PROFILE.modules[0])).toBe(true);
    expect(Object.isFrozen(DEFAULT_PROFILE.gates[0])).toBe(true);
    expect(validateProfile(DEFAULT_PROFILE, reg)).toEqual({ ok: true, profile: DEFAULT_PROFILE });
  });

  it('weighs the default modules .3/.25/.15/.15/.15', () => {
    expect(defaultReward({})).toBe(1);
    // Each module alone at 0.7 (above every gate) costs its weight × 0.3.
    expect(
      ['accuracy', 'effectiveness', 'hook_compliance', 'tool_rationality', 'skill_selection'].map((name) => defaultReward({ [name]: 0.7 })),
    ).toEqual([0.91, 0.925, 0.955, 0.955, 0.955]);
  });

  it('gates the default composite at 0.05: accuracy below 0.6, effectiveness below 0.4, hook compliance below 0.01', () => {
    // At each threshold the composite is the plain weighted mean; just below it, the cap.
    expect(defaultReward({ accuracy: 0.6 })).toBe(0.88); // 1 - .3 × .4
    expect(defaultReward({ accuracy: 0.59 })).toBe(0.05);
    expect(defaultReward({ effectiveness: 0.4 })).toBe(0.85); // 1 - .25 × .6
    expect(defaultReward({ effectiveness: 0.39 })).toBe(0.05);
    expect(defaultReward({ hook_compliance: 0.01 })).toBe(0.8515); // 1 - .15 × .99
    expect(defaultReward({ hook_compliance: 0 })).toBe(0.05);
    // The tool modules have no gate: both at 0 leave .55 + .15.
    expect(defaultReward({ tool_rationality: 0, skill_selection: 0 })).toBe(0.7);
    // A gate only caps: a composite already below 0.05 stays where it is.
    expect(defaultReward({ accuracy: 0, effectiveness: 0, hook_compliance: 0, tool_rationality: 0, skill_selection: 0.2 })).toBe(0.03);
  });

  it('lists the five built-in modules', () => {
    expect(reg.list().map((m) => [m.name, m.segment])).toEqual([
      ['accuracy', 'reply'],
      ['effectiveness', 'reply'],
      ['hook_compliance', 'reply'],
      ['tool_rationality', 'tool'],
      ['skill_selection', 'tool'],
    ]);
  });

  it('accepts a YAML profile with params', () => {
    const raw = parseYaml(
      'name: strict\nmodules:\n  - {name: accuracy, weight: 2, params: {invented_number_factor: 0}}\n  - {name: hook_compliance, weight: 1}\ngates: []\n',
    );
    expect(validateProfile(raw, reg)).toEqual({
      ok: true,
      profile: {
        name: 'strict',
        modules: [
          { name: 'accuracy', weight: 2, params: { invented_number_factor: 0 } },
          { name: 'hook_compliance', weight: 1 },
        ],
        gates: [],
      },
    });
  });

  it('names the key of an unknown module', () => {
    expect(
      validateProfile(
        {
          name: 'p',
          modules: [
            { name: 'accuracy', weight: 1 },
            { name: 'acuracy', weight: 1 },
          ],
          gates: [],
        },
        reg,
      ),
    ).toEqual({
      ok: false,
      errors: [
        'modules[1].name: unknown reward module "acuracy" (known: accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection)',
      ],
    });
  });

  it('names the key of a negative weight', () => {
    expect(validateProfile({ name: 'p', modules: [{ name: 'accuracy', weight: -1 }], gates: [] }, reg)).toEqual({
      ok: false,
      errors: ['modules[0].weight: Too small: expected number to be >=0'],
    });
  });

  it('names missing keys and misspelt keys', () => {
    expect(validateProfile({ name: 'p', modules: [{ name: 'accuracy', wieght: 1 }] }, reg)).toEqual({
      ok: false,
      errors: ['modules[0].weight: required key is missing', 'modules[0]: Unrecognized key: "wieght"'],
    });
    expect(validateProfile(null, reg)).toEqual({ ok: false, errors: ['(root): Invalid input: expected object, received null'] });
  });

  it('rejects duplicates, gates on absent modules, out-of-range gates and all-zero weights', () => {
    const r = validateProfile(
      {
        name: 'p',
        modules: [
          { name: 'accuracy', weight: 0 },
          { name: 'accuracy', weight: 0 },
        ],
        gates: [{ module: 'effectiveness', below: 0.5, cap: 0.2 }],
      },
      reg,
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        'modules[1].name: duplicate module "accuracy" (first at modules[0])',
        'modules: the weights sum to 0; at least one must be positive',
        'gates[0].module: "effectiveness" is not a module of this profile',
      ],
    });
    expect(
      validateProfile({ name: 'p', modules: [{ name: 'accuracy', weight: 1 }], gates: [{ module: 'accuracy', below: 2, cap: 0 }] }, reg),
    ).toEqual({
      ok: false,
      errors: ['gates[0].below: Too big: expected number to be <=1'],
    });
  });

  it('rejects a non-finite weight', () => {
    const r = validateProfile({ name: 'p', modules: [{ name: 'accuracy', weight: Infinity }], gates: [] }, reg);
    expect(r).toEqual({ ok: false, errors: ['modules[0].weight: Invalid input: expected number, received Infinity'] });
  });
});
