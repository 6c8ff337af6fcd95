import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, defaultRegistry, hookComplianceModule, scoreEpisode } from '../../rewards/index.js';
import { enProductQa, replyTurn, toolTurn, withTrace, zhProductQa } from './fixtures.js';

const score = hookComplianceModule.score;

describe('hook_compliance', () => {
  it('gives a clean episode 1', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['no hook violations'],
      evidence: { violations: [], distinct: [] },
    });
  });

  it('lowers the value per distinct violation, even when a retry fixed it (zh)', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, {
      turns: [
        ...oracle.turns.slice(0, 2),
        replyTurn(2, '全网最低价89.9！', [
          { hook: 'prohibited_phrases', code: 'ABSOLUTE_TERM', message: 'absolute term', evidence: '全网最低' },
        ]),
        replyTurn(3, '最划算的89.9', [{ hook: 'prohibited_phrases', code: 'ABSOLUTE_TERM', message: 'absolute term', evidence: '最' }]),
        replyTurn(4, '1号链接到手价89.9元，喜欢的宝宝直接拍～哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈', [
          { hook: 'reply_format', code: 'TOO_LONG', message: 'too long' },
        ]),
        replyTurn(5, oracle.final_reply!),
      ],
    });
    expect(score(trace, task, {})).toEqual({
      value: 1 - 0.34 * 2,
      reasons: [
        'turn 2: prohibited_phrases/ABSOLUTE_TERM (evidence: 全网最低)',
        'turn 3: prohibited_phrases/ABSOLUTE_TERM (evidence: 最)',
        'turn 4: reply_format/TOO_LONG',
        '2 distinct violation(s)',
      ],
      evidence: {
        violations: [
          { turn: 2, hook: 'prohibited_phrases', code: 'ABSOLUTE_TERM' },
          { turn: 3, hook: 'prohibited_phrases', code: 'ABSOLUTE_TERM' },
          { turn: 4, hook: 'reply_format', code: 'TOO_LONG' },
        ],
        distinct: ['prohibited_phrases/ABSOLUTE_TERM', 'reply_format/TOO_LONG'],
      },
    });
  });

  it('counts tool-argument violations too and reaches 0 at three distinct ones (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, {
      turns: [
        toolTurn(0, [], [{ hook: 'tool_args', code: 'INVALID_ARGUMENTS', message: 'link_no must be an integer' }]),
        replyTurn(1, 'Best ever price!', [
          { hook: 'prohibited_phrases', code: 'ABSOLUTE_TERM', message: 'x', evidence: 'best ever' },
          { hook: 'skill_required', code: 'SKILL_NOT_LOADED', message: 'y' },
        ]),
        replyTurn(2, oracle.final_reply!),
      ],
    });
    const d = score(trace, task, {});
    expect(d.value).toBe(0);
    expect(d.reasons).toEqual([
      'turn 0: tool_args/INVALID_ARGUMENTS',
      'turn 1: prohibited_phrases/ABSOLUTE_TERM (evidence: best ever)',
      'turn 1: skill_required/SKILL_NOT_LOADED',
      '3 distinct violation(s)',
    ]);
  });

  it('scores a hook-blocked episode 0 (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, {
      turns: [replyTurn(0, 'Add me on WeChat', [{ hook: 'prohibited_phrases', code: 'OFF_PLATFORM', message: 'z', evidence: 'WeChat' }])],
      final_reply: null,
      outcome: 'hook_blocked',
    });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['turn 0: prohibited_phrases/OFF_PLATFORM (evidence: WeChat)', 'episode blocked by a hook'],
      evidence: {
        violations: [{ turn: 0, hook: 'prohibited_phrases', code: 'OFF_PLATFORM' }],
        distinct: ['prohibited_phrases/OFF_PLATFORM'],
      },
    });
  });

  it('scores 0 when the final reply breaks a rule the prompt states, though no hook enforced it (zh)', () => {
    const { task, oracle } = zhProductQa();
    // As env/episode.ts records it: reply_format was off, so the Markdown passed every hook and went on air.
    const trace = withTrace(oracle, {
      rule_violations: [{ hook: 'reply_format', code: 'MARKDOWN', message: 'markdown', evidence: '**89.9**' }],
    });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: ['final reply breaks a stated rule: MARKDOWN (evidence: **89.9**)', 'the final reply breaks a rule the prompt states'],
      evidence: { violations: [{ turn: 2, hook: 'reply_format', code: 'MARKDOWN' }], distinct: ['reply_format/MARKDOWN'] },
    });
    // Records written before 0.2 have no rule_violations, and an empty list is no breach.
    expect(score(withTrace(oracle, { rule_violations: [] }), task, {}).value).toBe(1);
  });

  it('costs a breach a retry fixed 0.34, and the same breach in the reply that went on air everything (zh)', () => {
    const { task, oracle } = zhProductQa();
    const tooLong = { hook: 'reply_format', code: 'TOO_LONG', message: 'too long' };
    const fixed = withTrace(oracle, {
      turns: [...oracle.turns.slice(0, 2), replyTurn(2, '哈'.repeat(130), [tooLong]), replyTurn(3, oracle.final_reply!)],
    });
    expect(score(fixed, task, {})).toEqual({
      value: 1 - 0.34,
      reasons: ['turn 2: reply_format/TOO_LONG', '1 distinct violation(s)'],
      evidence: { violations: [{ turn: 2, hook: 'reply_format', code: 'TOO_LONG' }], distinct: ['reply_format/TOO_LONG'] },
    });
    // The same rule, but the hook was off and the 130 chars were the final reply.
    const onAir = withTrace(oracle, { final_reply: '哈'.repeat(130), rule_violations: [{ ...tooLong, evidence: '130 > 120' }] });
    expect(score(onAir, task, {})).toEqual({
      value: 0,
      reasons: ['final reply breaks a stated rule: TOO_LONG (evidence: 130 > 120)', 'the final reply breaks a rule the prompt states'],
      evidence: { violations: [{ turn: 2, hook: 'reply_format', code: 'TOO_LONG' }], distinct: ['reply_format/TOO_LONG'] },
    });
  });

  it('counts a stated rule a hook already reported once, and one it did not on top; the breach on air scores 0 (en)', () => {
    const { task, oracle } = enProductQa();
    const trace = withTrace(oracle, {
      turns: [
        oracle.turns[0]!,
        replyTurn(1, 'Link 1 is 89.9, grab it!!!', [{ hook: 'output_constraints', code: 'MISSING_ENDING', message: 'x' }]),
        replyTurn(2, oracle.final_reply!),
      ],
      rule_violations: [
        { hook: 'output_constraints', code: 'MISSING_ENDING', message: 'x' },
        { hook: 'reply_format', code: 'EMOJI', message: 'e', evidence: '😀' },
        { hook: 'reply_format', code: 'EMOJI', message: 'e', evidence: '😀' },
      ],
    });
    expect(score(trace, task, {})).toEqual({
      value: 0,
      reasons: [
        'turn 1: output_constraints/MISSING_ENDING',
        'final reply breaks a stated rule: EMOJI (evidence: 😀)',
        'the final reply breaks a rule the prompt states',
      ],
      evidence: {
        violations: [
          { turn: 1, hook: 'output_constraints', code: 'MISSING_ENDING' },
          { turn: 2, hook: 'reply_format', code: 'EMOJI' },
        ],
        distinct: ['output_constraints/MISSING_ENDING', 'reply_format/EMOJI'],
      },
    });
    // Only the rule the hook already reported: no line of its own, and still 0.
    const reported = withTrace(trace, { rule_violations: [{ hook: 'output_constraints', code: 'MISSING_ENDING', message: 'x' }] });
    expect(score(reported, task, {})).toEqual({
      value: 0,
      reasons: ['turn 1: output_constraints/MISSING_ENDING', 'the final reply breaks a rule the prompt states'],
      evidence: {
        violations: [{ turn: 1, hook: 'output_constraints', code: 'MISSING_ENDING' }],
        distinct: ['output_constraints/MISSING_ENDING'],
      },
    });
  });

  it('scores one stated-rule breach 0 as three, whatever per_violation: a hard failure, not a cost per violation (zh)', () => {
    const { task, oracle } = zhProductQa();
    const breach = (codes: string[]) =>
      withTrace(oracle, { rule_violations: codes.map((code) => ({ hook: 'reply_format', code, message: 'm' })) });
    expect(score(breach(['MARKDOWN']), task, {}).value).toBe(0);
    expect(score(breach(['TOO_LONG', 'MARKDOWN', 'EMOJI']), task, {}).value).toBe(0);
    expect(score(breach(['MARKDOWN']), task, { per_violation: 0 }).value).toBe(0);
    // per_violation still prices the violations retries fixed.
    expect(score(oracle, task, { per_violation: 0 }).value).toBe(1);
  });

  it("caps the episode at 0.02 through the default profile's hook_compliance gate (zh)", () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, {
      rule_violations: [{ hook: 'reply_format', code: 'MARKDOWN', message: 'markdown', evidence: '**89.9**' }],
    });
    const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
    // Every other module scores the oracle 1: the weighted mean is 1 - 0.15 = 0.85, capped.
    expect({ reward: r.reward, components: r.components, caps: r.caps }).toEqual({
      reward: 0.02,
      components: { accuracy: 1, effectiveness: 1, hook_compliance: 0, tool_rationality: 1, skill_selection: 1 },
      caps: ['capped at 0.02: hook_compliance 0 < 0.01 (weighted mean 0.85)'],
    });
    // A violation a retry fixed is a cost, not a cap: 1 - 0.15 × 0.34.
    const fixed = withTrace(oracle, {
      turns: [
        ...oracle.turns.slice(0, 2),
        replyTurn(2, '**89.9**', [{ hook: 'reply_format', code: 'MARKDOWN', message: 'm' }]),
        replyTurn(3, oracle.final_reply!),
      ],
    });
    const f = scoreEpisode(fixed, task, DEFAULT_PROFILE, defaultRegistry());
    expect({ reward: f.reward, caps: f.caps }).toEqual({ reward: 0.949, caps: undefined });
  });

  it('honours the per_violation param', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, {
      turns: [replyTurn(0, 'x', [{ hook: 'reply_format', code: 'EMOJI', message: 'e' }]), replyTurn(1, oracle.final_reply!)],
    });
    expect(score(trace, task, { per_violation: 0.5 }).value).toBe(0.5);
  });

  it('rejects a misspelt or non-numeric param (checkParams)', () => {
    const check = hookComplianceModule.checkParams!;
    expect(check({ per_violaton: 0.5 })).toEqual(['per_violaton: unknown parameter (did you mean per_violation?); known: per_violation']);
    expect(check({ per_violation: '0.5' })).toEqual(['per_violation: must be a finite number (got "0.5")']);
    expect(check({ per_violation: Number.POSITIVE_INFINITY })).toEqual([
      expect.stringMatching(/^per_violation: must be a finite number \(got /),
    ]);
    expect(check({ per_violation: 0.5 })).toEqual([]);
  });
});
