import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  ACCURACY_DEFAULTS,
  DEFAULT_PROFILE,
  EFFECTIVENESS_DEFAULTS,
  HOOK_COMPLIANCE_DEFAULTS,
  RewardRegistry,
  SKILL_SELECTION_DEFAULTS,
  TOOL_RATIONALITY_DEFAULTS,
  defaultRegistry,
  scoreEpisode,
  validateProfile,
} from '../../rewards/index.js';
import type { RewardModule, RewardProfile } from '../../rewards/index.js';
import { defaultEnvConfig } from '../../env/index.js';
import { EnvError } from '../../protocol/errors.js';
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
        { module: 'accuracy', below: 0.35, cap: 0.02 },
        { module: 'accuracy', below: 0.6, cap: 0.4 },
        { module: 'accuracy', below: 0.8, cap: 0.5 },
        { module: 'hook_compliance', below: 0.01, cap: 0.02 },
      ],
    });
    expect(Object.isFrozen(DEFAULT_PROFILE.modules[0])).toBe(true);
    expect(Object.isFrozen(DEFAULT_PROFILE.gates[0])).toBe(true);
    expect(validateProfile(DEFAULT_PROFILE, reg)).toEqual({ ok: true, profile: DEFAULT_PROFILE });
  });

  it('weighs the default modules .3/.25/.15/.15/.15', () => {
    expect(defaultReward({})).toBe(1);
    // Each module alone at 0.8 (at or above every gate) costs its weight × 0.2.
    expect(
      ['accuracy', 'effectiveness', 'hook_compliance', 'tool_rationality', 'skill_selection'].map((name) => defaultReward({ [name]: 0.8 })),
    ).toEqual([0.94, 0.95, 0.97, 0.97, 0.97]);
  });

  it('caps the default composite in three accuracy steps: below 0.35 at 0.02, below 0.6 at 0.4, below 0.8 at 0.5', () => {
    // At each threshold the composite is the plain weighted mean (or the next step's cap); just below it, the cap.
    expect(defaultReward({ accuracy: 0.8 })).toBe(0.94); // 1 - .3 × .2
    expect(defaultReward({ accuracy: 0.79 })).toBe(0.5);
    expect(defaultReward({ accuracy: 0.6 })).toBe(0.5);
    expect(defaultReward({ accuracy: 0.59 })).toBe(0.4);
    expect(defaultReward({ accuracy: 0.35 })).toBe(0.4);
    expect(defaultReward({ accuracy: 0.34 })).toBe(0.02);
    expect(defaultReward({ accuracy: 0 })).toBe(0.02);
    // A gate only caps: a composite already below its cap stays where it is (accuracy .5, the rest 0: .15).
    expect(defaultReward({ accuracy: 0.5, effectiveness: 0, hook_compliance: 0.5, tool_rationality: 0, skill_selection: 0 })).toBe(0.225);
    // Under the 0.02 floor too: .15 × .1 = .015 (hook compliance .1 is above its gate).
    expect(defaultReward({ accuracy: 0, effectiveness: 0, hook_compliance: 0.1, tool_rationality: 0, skill_selection: 0 })).toBe(0.015);
    // Above the floor, the floor caps: .015 + .15 × .2 = .045 becomes 0.02.
    expect(defaultReward({ accuracy: 0, effectiveness: 0, hook_compliance: 0.1, tool_rationality: 0, skill_selection: 0.2 })).toBe(0.02);
  });

  it('caps at 0.02 below hook compliance 0.01, and never on effectiveness or the tool modules', () => {
    expect(defaultReward({ hook_compliance: 0.01 })).toBe(0.8515); // 1 - .15 × .99
    expect(defaultReward({ hook_compliance: 0 })).toBe(0.02);
    // Effectiveness weighs and never caps: at 0 it costs its .25.
    expect(defaultReward({ effectiveness: 0 })).toBe(0.75);
    expect(defaultReward({ effectiveness: 0.39 })).toBe(0.8475);
    // The tool modules have no gate: both at 0 leave .55 + .15.
    expect(defaultReward({ tool_rationality: 0, skill_selection: 0 })).toBe(0.7);
  });

  it('lists a caps line per gate that lowers the default composite, none otherwise', () => {
    const { task, oracle } = zhProductQa();
    const caps = (values: Record<string, number>) => scoreEpisode(oracle, task, DEFAULT_PROFILE, fixedRegistry(values)).caps;
    expect(caps({})).toBeUndefined();
    expect(caps({ accuracy: 0.8, effectiveness: 0 })).toBeUndefined();
    expect(caps({ accuracy: 0.7 })).toEqual(['capped at 0.5: accuracy 0.7 < 0.8 (weighted mean 0.91)']);
    expect(caps({ accuracy: 0.3, hook_compliance: 0 })).toEqual([
      'capped at 0.02: accuracy 0.3 < 0.35 (weighted mean 0.64)',
      'capped at 0.4: accuracy 0.3 < 0.6 (weighted mean 0.64)',
      'capped at 0.5: accuracy 0.3 < 0.8 (weighted mean 0.64)',
      'capped at 0.02: hook_compliance 0 < 0.01 (weighted mean 0.64)',
    ]);
    // The weighted mean .45 is under the 0.5 cap: that gate lowers nothing and is not listed.
    expect(caps({ accuracy: 0, effectiveness: 0 })).toEqual([
      'capped at 0.02: accuracy 0 < 0.35 (weighted mean 0.45)',
      'capped at 0.4: accuracy 0 < 0.6 (weighted mean 0.45)',
    ]);
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

  it('refuses weights of 1e308 (their sum would overflow to Infinity) and accepts 1e6, the bound', () => {
    const huge = {
      name: 'huge',
      modules: [
        { name: 'accuracy', weight: 1e308 },
        { name: 'effectiveness', weight: 1e308 },
      ],
    };
    expect(validateProfile(huge, reg)).toEqual({
      ok: false,
      errors: [
        'modules[0].weight: Too big: expected number to be <=1000000',
        'modules[1].weight: Too big: expected number to be <=1000000',
      ],
    });
    expect(validateProfile({ name: 'big', modules: [{ name: 'accuracy', weight: 1e6 }] }, reg)).toEqual({
      ok: true,
      profile: { name: 'big', modules: [{ name: 'accuracy', weight: 1e6 }], gates: [] },
    });
  });

  it('names a misspelt module parameter and suggests the known one (hook_compliance per_violaton)', () => {
    expect(validateProfile({ name: 'p', modules: [{ name: 'hook_compliance', weight: 1, params: { per_violaton: 0.5 } }] }, reg)).toEqual({
      ok: false,
      errors: ['modules[0].params: per_violaton: unknown parameter (did you mean per_violation?); known: per_violation'],
    });
    // The same profile from YAML, with the typo beside a valid key of another module.
    const raw = parseYaml(
      'name: typo\nmodules:\n  - {name: accuracy, weight: 1, params: {state_factor: 0.5}}\n  - {name: hook_compliance, weight: 1, params: {per_violaton: 0.5}}\n',
    );
    expect(validateProfile(raw, reg)).toEqual({
      ok: false,
      errors: ['modules[1].params: per_violaton: unknown parameter (did you mean per_violation?); known: per_violation'],
    });
  });

  it('names every bad parameter at once: an unknown key with and without a near name, a value that is no finite number', () => {
    const known =
      'refuse_base, refuse_unrecorded, clarify_no_question, clarify_answered_factor, missing_cta_factor, too_long_factor, ' +
      'too_many_sentences_factor, max_sentences, too_short_factor, min_chars, concise_share, concision_weight, ' +
      'unrequested_factor, max_unrequested, repetition_factor, prompt_layout_factor';
    const r = validateProfile(
      {
        name: 'p',
        modules: [
          { name: 'effectiveness', weight: 1, params: { max_sentences: '2', concision_weigth: 0.1, xyz: 1 } },
          { name: 'accuracy', weight: 1, params: { state_factor: null, invented_number_factor: Infinity, forbidden_fact_factor: NaN } },
        ],
      },
      reg,
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        'modules[0].params: max_sentences: must be a finite number (got "2")',
        `modules[0].params: concision_weigth: unknown parameter (did you mean concision_weight?); known: ${known}`,
        `modules[0].params: xyz: unknown parameter; known: ${known}`,
        'modules[1].params: state_factor: must be a finite number (got null)',
        'modules[1].params: invented_number_factor: must be a finite number (got Infinity)',
        'modules[1].params: forbidden_fact_factor: must be a finite number (got NaN)',
      ],
    });
  });

  it("checks each built-in module's params against its documented defaults", () => {
    const defaults: Record<string, Record<string, number>> = {
      accuracy: ACCURACY_DEFAULTS,
      effectiveness: EFFECTIVENESS_DEFAULTS,
      hook_compliance: HOOK_COMPLIANCE_DEFAULTS,
      tool_rationality: TOOL_RATIONALITY_DEFAULTS,
      skill_selection: SKILL_SELECTION_DEFAULTS,
    };
    for (const m of reg.list()) {
      const d = defaults[m.name];
      expect({ name: m.name, defaults: m.checkParams?.(d), bogus: m.checkParams?.({ bogus: 1 }) }).toEqual({
        name: m.name,
        defaults: [],
        bogus: [`bogus: unknown parameter; known: ${Object.keys(d).join(', ')}`],
      });
    }
  });

  it('reports a checkParams that throws as a problem of that entry', () => {
    const r = defaultRegistry();
    r.register({
      name: 'fussy',
      version: '1.0.0',
      segment: 'reply',
      score: () => ({ value: 1, reasons: [] }),
      checkParams: () => {
        throw new Error('no params today');
      },
    });
    expect(validateProfile({ name: 'p', modules: [{ name: 'fussy', weight: 1, params: { a: 1 } }] }, r)).toEqual({
      ok: false,
      errors: ['modules[0].params: checkParams threw: no params today'],
    });
  });

  it('scores an unvalidated in-code profile with huge weights to a finite reward', () => {
    const { task, oracle } = zhProductQa();
    const huge: RewardProfile = {
      name: 'huge',
      modules: [
        { name: 'accuracy', weight: 1e308 },
        { name: 'hook_compliance', weight: 1e308 },
      ],
      gates: [],
    };
    expect(validateProfile(huge, reg).ok).toBe(false);
    const r = scoreEpisode(oracle, task, huge, reg);
    expect({ finite: Number.isFinite(r.reward), reward: r.reward, components: r.components }).toEqual({
      finite: true,
      reward: 1, // weights whose sum overflows are scaled by the largest: the mean of two 1s is 1
      components: { accuracy: 1, hook_compliance: 1 },
    });
  });
});

/** What `fn` throws, as the fields an EnvError carries (fails when it throws nothing or something else). */
function envErrorOf(fn: () => unknown): { code: string; message: string; details: unknown } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EnvError);
    const err = e as EnvError;
    return { code: err.code, message: err.message, details: err.details };
  }
  return expect.fail('no error thrown');
}

describe('profiles given in code (defaultEnvConfig)', () => {
  it('throws an EnvError naming the profile and the unknown module "acuracy"', () => {
    const profiles = new Map<string, RewardProfile>([['p', { name: 'p', modules: [{ name: 'acuracy', weight: 1 }], gates: [] }]]);
    const line =
      'profile "p": modules[0].name: unknown reward module "acuracy" (known: accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection)';
    expect(envErrorOf(() => defaultEnvConfig({ profiles }))).toEqual({
      code: 'INVALID_MESSAGE',
      message: `INVALID_MESSAGE: invalid reward profile: ${line}`,
      details: { errors: [line] },
    });
  });

  it('throws for a parameter typo and a profile filed under another name; accepts a valid one and the default', () => {
    const typo: RewardProfile = { name: 't', modules: [{ name: 'hook_compliance', weight: 1, params: { per_violaton: 0.5 } }], gates: [] };
    const misfiled: RewardProfile = { name: 'other', modules: [{ name: 'accuracy', weight: 1 }], gates: [] };
    const errors = [
      'profile "t": modules[0].params: per_violaton: unknown parameter (did you mean per_violation?); known: per_violation',
      'profile "m": its name is "other"',
    ];
    const profiles = new Map([
      ['t', typo],
      ['m', misfiled],
    ]);
    expect(envErrorOf(() => defaultEnvConfig({ profiles }))).toEqual({
      code: 'INVALID_MESSAGE',
      message: `INVALID_MESSAGE: invalid reward profile: ${errors.join('; ')}`,
      details: { errors },
    });
    const good: RewardProfile = { name: 'good', modules: [{ name: 'accuracy', weight: 1 }], gates: [] };
    const config = defaultEnvConfig({
      profiles: new Map([
        ['default', DEFAULT_PROFILE],
        ['good', good],
      ]),
    });
    expect([...config.profiles.keys()]).toEqual(['default', 'good']);
  });
});
