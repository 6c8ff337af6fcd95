import { describe, expect, it } from 'vitest';
import { hookComplianceModule } from '../../rewards/index.js';
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

  it('counts a rule the prompt states that the final reply breaks, though no hook enforced it (zh)', () => {
    const { task, oracle } = zhProductQa();
    // As env/episode.ts records it: reply_format was off, so the Markdown passed every hook.
    const trace = withTrace(oracle, {
      rule_violations: [{ hook: 'reply_format', code: 'MARKDOWN', message: 'markdown', evidence: '**89.9**' }],
    });
    expect(score(trace, task, {})).toEqual({
      value: 1 - 0.34,
      reasons: ['final reply breaks a stated rule: MARKDOWN (evidence: **89.9**)', '1 distinct violation(s)'],
      evidence: { violations: [{ turn: 2, hook: 'reply_format', code: 'MARKDOWN' }], distinct: ['reply_format/MARKDOWN'] },
    });
    // Records written before 0.2 have no rule_violations, and an empty list is no breach.
    expect(score(withTrace(oracle, { rule_violations: [] }), task, {}).value).toBe(1);
  });

  it('counts a stated rule a hook already reported once, and one it did not on top (en)', () => {
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
      value: 1 - 0.34 * 2,
      reasons: [
        'turn 1: output_constraints/MISSING_ENDING',
        'final reply breaks a stated rule: EMOJI (evidence: 😀)',
        '2 distinct violation(s)',
      ],
      evidence: {
        violations: [
          { turn: 1, hook: 'output_constraints', code: 'MISSING_ENDING' },
          { turn: 2, hook: 'reply_format', code: 'EMOJI' },
        ],
        distinct: ['output_constraints/MISSING_ENDING', 'reply_format/EMOJI'],
      },
    });
  });

  it('reaches 0 at three distinct stated-rule breaches', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, {
      rule_violations: ['TOO_LONG', 'MARKDOWN', 'EMOJI'].map((code) => ({ hook: 'reply_format', code, message: 'm' })),
    });
    expect(score(trace, task, {}).value).toBe(0);
  });

  it('honours the per_violation param', () => {
    const { task, oracle } = zhProductQa();
    const trace = withTrace(oracle, {
      turns: [replyTurn(0, 'x', [{ hook: 'reply_format', code: 'EMOJI', message: 'e' }]), replyTurn(1, oracle.final_reply!)],
    });
    expect(score(trace, task, { per_violation: 0.5 }).value).toBe(0.5);
  });
});
