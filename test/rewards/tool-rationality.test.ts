import { describe, expect, it } from 'vitest';
import { toolRationalityModule } from '../../rewards/index.js';
import {
  enHandoff,
  enProductQa,
  errCall,
  okCall,
  replyTurn,
  toolTurn,
  withTrace,
  zhChitchat,
  zhMarketing,
  zhProductQa,
  zhRisky,
} from './fixtures.js';
import type { Scenario } from './fixtures.js';
import type { TraceCall } from '../../protocol/domain.js';

const score = toolRationalityModule.score;

/** The scenario's oracle with its tool turns replaced by `calls` (load_skill kept first). */
function withCalls(s: Scenario, calls: TraceCall[]) {
  const skill = okCall('load_skill', { name: s.task.answer_key.reply_skills[0] });
  return withTrace(s.oracle, { turns: [toolTurn(0, [skill, ...calls]), replyTurn(1, s.oracle.final_reply!)] });
}

describe('tool_rationality', () => {
  it('gives the required call and nothing else exactly 1 (zh)', () => {
    const { task, oracle } = zhProductQa();
    expect(score(oracle, task, {})).toEqual({
      value: 1,
      reasons: ['required calls: 1/1 satisfied'],
      evidence: { calls: 1, required_met: 1, required_total: 1, failed: 0, irrelevant: 0, redundant: 0 },
    });
  });

  it('accepts any listed alternative, compares numbers numerically and strings exactly', () => {
    const s = zhProductQa();
    expect(score(withCalls(s, [okCall('get_product', { item_id: 'P001' })]), s.task, {}).value).toBe(1);
    expect(score(withCalls(s, [okCall('get_product', { link_no: '1' })]), s.task, {}).value).toBe(1);
    expect(score(withCalls(s, [okCall('get_product', { link_no: 1.0, extra: true })]), s.task, {}).value).toBe(1);
    expect(score(withCalls(s, [okCall('get_product', { item_id: 'p001' })]), s.task, {})).toEqual({
      value: 0,
      reasons: ['required calls: 0/1 satisfied', 'required call not made: get_product {"link_no":1} or get_product {"item_id":"P001"}'],
      evidence: { calls: 1, required_met: 0, required_total: 1, failed: 0, irrelevant: 0, redundant: 0 },
    });
  });

  it('does not count a failed call as satisfying a requirement', () => {
    const s = enProductQa();
    const d = score(withCalls(s, [errCall('get_product', { link_no: 1 }, 'TIMEOUT')]), s.task, {});
    expect(d.value).toBe(0);
  });

  it('penalises a redundant repeat of a successful call (en)', () => {
    const s = enProductQa();
    const d = score(withCalls(s, [okCall('get_product', { link_no: 1 }), okCall('get_product', { link_no: 1 })]), s.task, {});
    expect(d.value).toBeCloseTo(0.85, 12);
    expect(d.reasons[1]).toMatch(/^redundant call call_\d+: get_product \{"link_no":1\} repeats a successful call$/);
  });

  it('penalises an irrelevant call (zh) and a state-changing call the task does not need', () => {
    const s = zhProductQa();
    const d = score(
      withCalls(s, [okCall('get_product', { link_no: 1 }), okCall('issue_coupon', { viewer_id: 'v_1', coupon_id: 'C10' })]),
      s.task,
      {},
    );
    expect(d.value).toBe(0.75);
    expect(d.evidence).toEqual({ calls: 2, required_met: 1, required_total: 1, failed: 0, irrelevant: 1, redundant: 0 });
  });

  it('penalises a failed call by the policy, but not an injected fault or the retry after it (en)', () => {
    const s = enProductQa();
    const bad = score(
      withCalls(s, [errCall('get_product', { link_no: 0 }, 'INVALID_ARGUMENTS'), okCall('get_product', { link_no: 1 })]),
      s.task,
      {},
    );
    expect(bad.value).toBe(0.8);
    expect(bad.reasons[1]).toMatch(/^failed call call_\d+: get_product \(INVALID_ARGUMENTS\)$/);
    for (const fault of ['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT'] as const) {
      const ok = score(withCalls(s, [errCall('get_product', { link_no: 1 }, fault), okCall('get_product', { link_no: 1 })]), s.task, {});
      expect(ok.value).toBe(1);
    }
  });

  it('counts an unknown tool once (as failed), not also as irrelevant', () => {
    const s = enProductQa();
    const d = score(
      withCalls(s, [errCall('get_prodcut', { link_no: 1 }, 'UNKNOWN_TOOL'), okCall('get_product', { link_no: 1 })]),
      s.task,
      {},
    );
    expect(d.evidence).toEqual({ calls: 2, required_met: 1, required_total: 1, failed: 1, irrelevant: 0, redundant: 0 });
  });

  it('scores partial requirements proportionally (zh marketing: coupon issued, card not pushed)', () => {
    const s = zhMarketing();
    const d = score(withCalls(s, [okCall('issue_coupon', { viewer_id: 'v_1', coupon_id: 'C10' })]), s.task, {});
    expect(d).toEqual({
      value: 0.5,
      reasons: ['required calls: 1/2 satisfied', 'required call not made: push_link_card {"link_no":2}'],
      evidence: { calls: 1, required_met: 1, required_total: 2, failed: 0, irrelevant: 0, redundant: 0 },
    });
  });

  it('gives 1 when no call is needed and none was made, and penalises a needless search (zh chit-chat)', () => {
    const s = zhChitchat();
    expect(score(s.oracle, s.task, {})).toEqual({ value: 1, reasons: ['no tool calls needed and none made'], evidence: { calls: 0 } });
    expect(score(withCalls(s, [okCall('search_products', { query: '口红' })]), s.task, {}).value).toBe(0.75);
  });

  it('treats the state-changing tools the expected state needs as relevant (refusal, hand-off)', () => {
    const r = zhRisky();
    expect(score(r.oracle, r.task, {}).value).toBe(1);
    const h = enHandoff();
    expect(score(withCalls(h, [okCall('get_order_status', { order_id: 'O-77' }), ...h.oracle.turns[1]!.calls]), h.task, {}).value).toBe(1);
  });
});
