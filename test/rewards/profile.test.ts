import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_PROFILE, defaultRegistry, validateProfile } from '../../rewards/index.js';

const reg = defaultRegistry();

describe('profiles', () => {
  it('has the default weights and gates, frozen', () => {
    expect(DEFAULT_PROFILE).toEqual({
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
    expect(Object.isFrozen(DEFAULT_PROFILE.modules[0])).toBe(true);
    expect(validateProfile(DEFAULT_PROFILE, reg)).toEqual({ ok: true, profile: DEFAULT_PROFILE });
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
