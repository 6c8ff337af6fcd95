import { describe, expect, it } from 'vitest';
import { skillSelectionModule } from '../../rewards/index.js';
import { enClarify, enRisky, withTrace, zhMarketing, zhProductQa, zhRisky } from './fixtures.js';

const score = skillSelectionModule.score;

describe('skill_selection', () => {
  it('gives the needed reply skill exactly 1 (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required reply skills: 1/1 loaded'],
      evidence: { loaded: ['product-qa'], missing: [], unneeded: [], repeats: 0 },
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
      evidence: { loaded: ['chitchat'], missing: ['risk-refusal'], unneeded: ['chitchat'], repeats: 0 },
    });
  });

  it('penalises an unneeded reply skill but not strategy skills or unknown names (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(
      score(withTrace(oracle, { loaded_skills: ['live-tone', 'product-qa', 'compliance-guard', 'xyz-distractor'] }), task, {}).value,
    ).toBe(1);
    expect(score(withTrace(oracle, { loaded_skills: ['product-qa', 'promotion'] }), task, {})).toEqual({
      value: 0.75,
      reasons: ['required reply skills: 1/1 loaded', 'unneeded reply skill loaded: promotion'],
      evidence: { loaded: ['product-qa', 'promotion'], missing: [], unneeded: ['promotion'], repeats: 0 },
    });
  });

  it('mildly penalises loading one skill twice (zh)', () => {
    const { task, oracle } = zhRisky();
    expect(score(withTrace(oracle, { loaded_skills: ['risk-refusal', 'risk-refusal', 'risk-refusal'] }), task, {})).toEqual({
      value: 0.8,
      reasons: ['required reply skills: 1/1 loaded', 'skill loaded 3 times: risk-refusal'],
      evidence: { loaded: ['risk-refusal', 'risk-refusal', 'risk-refusal'], missing: [], unneeded: [], repeats: 2 },
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
    const trace = withTrace(oracle, { loaded_skills: ['clarify-intent', 'chitchat'], reply_skill_names: ['clarify-intent'] });
    expect(score(trace, task, {}).value).toBe(1);
  });
});
