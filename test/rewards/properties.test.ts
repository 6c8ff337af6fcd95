import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_PROFILE, defaultRegistry, factStated, scoreEpisode } from '../../rewards/index.js';
import type { Outcome, Trace, TraceCall, TraceTurn } from '../../protocol/domain.js';
import { REPLY_SKILLS, SCENARIOS, errCall, okCall } from './fixtures.js';

const TOOLS = [
  'get_product',
  'search_products',
  'check_stock',
  'get_promotions',
  'issue_coupon',
  'push_link_card',
  'refuse_request',
  'handoff_to_human',
  'load_skill',
  'nope',
];
const SKILLS = [...REPLY_SKILLS, 'multi-intent', 'live-tone', 'compliance-guard', 'refusal-whitelist', 'unknown-skill'];
const OUTCOMES: Outcome[] = ['accepted', 'refused', 'hook_blocked', 'max_turns', 'error_cap'];
const ERRORS = ['UNKNOWN_TOOL', 'PARSE_ERROR', 'INVALID_ARGUMENTS', 'NOT_FOUND', 'TIMEOUT', 'MALFORMED_OUTPUT'] as const;

const callArb: fc.Arbitrary<TraceCall> = fc
  .record({
    name: fc.constantFrom(...TOOLS),
    args: fc.dictionary(
      fc.constantFrom('link_no', 'item_id', 'coupon_id', 'viewer_id', 'category'),
      fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('P001', 'C10', 'v_1', 'medical')),
    ),
    ok: fc.boolean(),
    error: fc.constantFrom(...ERRORS),
  })
  .map(({ name, args, ok, error }) => (ok ? okCall(name, args) : errCall(name, args, error)));

const violationArb = fc.record({
  hook: fc.constantFrom('reply_format', 'prohibited_phrases', 'factual_risk', 'tool_args'),
  code: fc.constantFrom('TOO_LONG', 'ABSOLUTE_TERM', 'UNGROUNDED_NUMBER', 'INVALID_ARGUMENTS'),
  message: fc.constant('m'),
});

/** An arbitrary trace built from a fixture scenario: its task, with every scored field replaced. */
const caseArb = fc
  .record({
    scenario: fc.integer({ min: 0, max: SCENARIOS.length - 1 }),
    turns: fc.array(
      fc.record({
        calls: fc.array(callArb, { maxLength: 3 }),
        violations: fc.array(violationArb, { maxLength: 2 }),
        content: fc.option(fc.string(), { nil: null }),
      }),
      { maxLength: 5 },
    ),
    reply: fc.option(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom('1号链接到手价89.9元，快拍', 'Sorry, I cannot help.', '满199减20，2号链接', '？', '全网最低!!! 100%'),
      ),
      { nil: null },
    ),
    skills: fc.array(fc.constantFrom(...SKILLS), { maxLength: 4 }),
    outcome: fc.constantFrom(...OUTCOMES),
    refusals: fc.array(fc.constantFrom('medical', 'superlative'), { maxLength: 2 }),
    cards: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
    evidence: fc.array(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constantFrom(89.9, 199, 20)), { maxLength: 6 }),
    maxChars: fc.integer({ min: 60, max: 200 }),
    ruleViolations: fc.array(violationArb, { maxLength: 3 }),
    ending: fc.option(fc.constantFrom('感谢观看', 'Happy shopping!'), { nil: null }),
  })
  .map((c) => {
    const { task, oracle } = SCENARIOS[c.scenario]!();
    const turns: TraceTurn[] = c.turns.map((t, index) => ({
      index,
      thinking: null,
      content: t.content,
      calls: t.calls,
      hook_violations: t.violations,
      kind: t.calls.length > 0 ? 'tool' : 'reply',
    }));
    const trace: Trace = {
      ...oracle,
      turns,
      loaded_skills: c.skills,
      final_reply: c.reply,
      outcome: c.outcome,
      final_state: { issued_coupons: [], pushed_cards: c.cards, handoffs: [], refusals: c.refusals.map((category) => ({ category })) },
      evidence_numbers: c.evidence,
      limits: { reply_max_chars: c.maxChars, max_turns: 8 },
      rule_violations: c.ruleViolations,
    };
    if (c.ending !== null) trace.required_ending = c.ending;
    return { task, trace };
  });

const inUnit = (x: number): boolean => Number.isFinite(x) && x >= 0 && x <= 1;

describe('reward properties', () => {
  it('keeps every value in [0, 1] and scores deterministically', () => {
    fc.assert(
      fc.property(caseArb, ({ task, trace }) => {
        const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
        expect(inUnit(r.reward)).toBe(true);
        for (const v of Object.values(r.components)) expect(inUnit(v)).toBe(true);
        for (const d of Object.values(r.details)) {
          expect(inUnit(d.value)).toBe(true);
          expect(d.failed).toBeUndefined();
        }
        for (const s of [r.segments.tool, r.segments.reply]) expect(s === null || inUnit(s)).toBe(true);
        if (trace.final_reply === null) expect(r.segments.reply).toBeNull();
        const again = scoreEpisode(structuredClone(trace), structuredClone(task), DEFAULT_PROFILE, defaultRegistry());
        expect(JSON.stringify(again)).toBe(JSON.stringify(r));
      }),
      { numRuns: 500, seed: 20260512 },
    );
  });

  it('caps any episode without a final reply at 0.05', () => {
    fc.assert(
      fc.property(caseArb, ({ task, trace }) => {
        const r = scoreEpisode({ ...trace, final_reply: null }, task, DEFAULT_PROFILE, defaultRegistry());
        expect(r.reward).toBeLessThanOrEqual(0.05);
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('gives a reply that states none of the facts an answer task asks for accuracy 0 and at most 0.05', () => {
    fc.assert(
      fc.property(caseArb, ({ task, trace }) => {
        const key = task.answer_key;
        const reply = trace.final_reply;
        fc.pre(key.expect === 'answer' && key.required_facts.length > 0 && reply !== null);
        fc.pre(key.required_facts.every((f) => !factStated(reply!, f, task.locale)));
        const r = scoreEpisode(trace, task, DEFAULT_PROFILE, defaultRegistry());
        expect(r.components.accuracy).toBe(0);
        expect(r.reward).toBeLessThanOrEqual(0.05);
      }),
      { numRuns: 200, seed: 15 },
    );
  });
});
