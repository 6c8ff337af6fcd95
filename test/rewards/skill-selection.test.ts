import { describe, expect, it } from 'vitest';
import { skillSelectionModule } from '../../rewards/index.js';
import { REPLY_SKILLS, enClarify, enRisky, withTrace, zhMarketing, zhProductQa, zhRisky } from './fixtures.js';

const score = skillSelectionModule.score;

/** Evidence of a selection with nothing unneeded and nothing repeated (the fields a test does not name). */
const none = { missing: [], unneeded: [], unneeded_other: [], repeats: 0 };

describe('skill_selection', () => {
  it('gives the needed reply skill exactly 1 (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required reply skills: 1/1 loaded'],
      evidence: { ...none, loaded: ['product-qa'] },
    });
  });

  it('scores 0 when the needed reply skill was never loaded (en)', () => {
    const { task, oracle } = enRisky();
    expect(score(withTrace(oracle, { loaded_skills: ['chitchat'] }), task, {})).toEqual({
      value: 0,
      reasons: [
        'required reply skills: 0/1 loaded',
        'required reply skill not loaded: risk-refusal',
        'unneeded reply skill loaded: chitchat',
      ],
      evidence: { ...none, loaded: ['chitchat'], missing: ['risk-refusal'], unneeded: ['chitchat'] },
    });
  });

  it('costs 0.25 per unneeded reply skill (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(withTrace(oracle, { loaded_skills: ['product-qa', 'promotion'] }), task, {})).toEqual({
      value: 0.75,
      reasons: ['required reply skills: 1/1 loaded', 'unneeded reply skill loaded: promotion'],
      evidence: { ...none, loaded: ['product-qa', 'promotion'], unneeded: ['promotion'] },
    });
  });

  it('costs 0.15 per unlisted strategy skill or decoy; a strategy skill the task lists is free (zh)', () => {
    const { task, oracle } = zhProductQa(); // lists the strategy skill live-tone
    expect(score(withTrace(oracle, { loaded_skills: ['live-tone', 'product-qa'] }), task, {}).value).toBe(1);
    const loaded = ['live-tone', 'product-qa', 'compliance-guard', 'xyz-distractor'];
    expect(score(withTrace(oracle, { loaded_skills: loaded }), task, {})).toEqual({
      value: 0.7, // 1 - 2 × 0.15
      reasons: ['required reply skills: 1/1 loaded', 'unneeded skill loaded: compliance-guard', 'unneeded skill loaded: xyz-distractor'],
      evidence: { ...none, loaded, unneeded_other: ['compliance-guard', 'xyz-distractor'] },
    });
  });

  it('adds the costs up, and loading every skill to be safe scores 0 (zh)', () => {
    const { task, oracle } = zhProductQa();
    const loaded = ['product-qa', 'promotion', 'xyz-distractor', 'product-qa'];
    expect(score(withTrace(oracle, { loaded_skills: loaded }), task, {})).toEqual({
      value: 0.5, // 1 - (0.25 + 0.15 + 0.1)
      reasons: [
        'required reply skills: 1/1 loaded',
        'unneeded reply skill loaded: promotion',
        'unneeded skill loaded: xyz-distractor',
        'skill loaded 2 times: product-qa',
      ],
      evidence: { ...none, loaded, unneeded: ['promotion'], unneeded_other: ['xyz-distractor'], repeats: 1 },
    });
    // Seven unneeded reply skills: 1 - 7 × 0.25 floors at 0.
    expect(score(withTrace(oracle, { loaded_skills: [...REPLY_SKILLS] }), task, {}).value).toBe(0);
  });

  it('mildly penalises loading one skill twice (zh)', () => {
    const { task, oracle } = zhRisky();
    expect(score(withTrace(oracle, { loaded_skills: ['risk-refusal', 'risk-refusal', 'risk-refusal'] }), task, {})).toEqual({
      value: 0.8,
      reasons: ['required reply skills: 1/1 loaded', 'skill loaded 3 times: risk-refusal'],
      evidence: { ...none, loaded: ['risk-refusal', 'risk-refusal', 'risk-refusal'], repeats: 2 },
    });
  });

  it('scores multi-intent tasks by the share of reply skills loaded (zh)', () => {
    const { task, oracle } = zhMarketing();
    const t2 = structuredClone(task);
    t2.answer_key.reply_skills = ['promotion', 'product-qa'];
    t2.answer_key.strategy_skills = ['multi-intent'];
    expect(score(withTrace(oracle, { loaded_skills: ['multi-intent', 'promotion'] }), t2, {}).value).toBe(0.5);
    expect(score(withTrace(oracle, { loaded_skills: ['multi-intent', 'promotion', 'product-qa'] }), t2, {}).value).toBe(1);
  });

  it("uses the trace's reply_skill_names to tell reply skills from the rest (en)", () => {
    const { task, oracle } = enClarify();
    // With the base list chitchat is another intent's reply skill (0.25); in a harness that lists only
    // clarify-intent it is some other skill (0.15).
    expect(score(withTrace(oracle, { loaded_skills: ['clarify-intent', 'chitchat'] }), task, {}).value).toBe(0.75);
    const trace = withTrace(oracle, { loaded_skills: ['clarify-intent', 'chitchat'], reply_skill_names: ['clarify-intent'] });
    expect(score(trace, task, {})).toEqual({
      value: 0.85,
      reasons: ['required reply skills: 1/1 loaded', 'unneeded skill loaded: chitchat'],
      evidence: { ...none, loaded: ['clarify-intent', 'chitchat'], unneeded_other: ['chitchat'] },
    });
  });

  it('honours params (the per-skill costs)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, { loaded_skills: ['product-qa', 'promotion', 'xyz-distractor'] });
    expect(score(trace, task, { unneeded_penalty: 0, unneeded_other_penalty: 0 }).value).toBe(1);
    expect(score(trace, task, { unneeded_penalty: 0, unneeded_other_penalty: 0.5 }).value).toBe(0.5);
  });
});
