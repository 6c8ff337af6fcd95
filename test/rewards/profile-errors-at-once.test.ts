/**
 * Regression: `validateProfile` required `gates` (`gates: required key is missing`) and stopped at the
 * schema, so a misspelt module, a bad gate or a bad param surfaced only after the shape was fixed, one
 * round at a time. Now `gates` is optional and every problem comes in one result.
 */
import { describe, expect, it } from 'vitest';
import { defaultRegistry, registryWithJudge, validateProfile } from '../../rewards/index.js';

const KNOWN = 'accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection';

describe('validateProfile reports everything at once', () => {
  it('a profile without gates is valid, with no gates', () => {
    expect(validateProfile({ name: 'p', modules: [{ name: 'accuracy', weight: 1 }] }, defaultRegistry())).toEqual({
      ok: true,
      profile: { name: 'p', modules: [{ name: 'accuracy', weight: 1 }], gates: [] },
    });
  });

  it('a missing gates key is not an error among the others', () => {
    expect(validateProfile({ name: 'p', modules: [{ name: 'accuracy', wieght: 1 }] }, defaultRegistry())).toEqual({
      ok: false,
      errors: ['modules[0].weight: required key is missing', 'modules[0]: Unrecognized key: "wieght"'],
    });
  });

  it('shape, registry, gate and param errors together', () => {
    const raw = {
      name: '',
      modules: [
        { name: 'acuracy', weight: 1 },
        { name: 'llm_judge', weight: 1, params: { retries: -1 } },
        { name: 'llm_judge', weight: 'heavy' },
      ],
      gates: [{ module: 'effectiveness', below: 0.5, cap: 0.2, note: 'x' }],
    };
    expect(validateProfile(raw, registryWithJudge())).toEqual({
      ok: false,
      errors: [
        'name: Too small: expected string to have >=1 characters',
        'modules[2].weight: Invalid input: expected number, received string',
        'gates[0]: Unrecognized key: "note"',
        `modules[0].name: unknown reward module "acuracy" (known: ${KNOWN}, llm_judge)`,
        'modules[1].params: retries: Too small: expected number to be >=0',
        'modules[2].name: duplicate module "llm_judge" (first at modules[1])',
        'gates[0].module: "effectiveness" is not a module of this profile',
      ],
    });
  });

  it('judges a gate only when every module entry has a name (otherwise it cannot know the modules)', () => {
    const raw = { name: 'p', modules: [{ weight: 1 }], gates: [{ module: 'accuracy', below: 0.5, cap: 0.2 }] };
    expect(validateProfile(raw, defaultRegistry())).toEqual({ ok: false, errors: ['modules[0].name: required key is missing'] });
  });
});
