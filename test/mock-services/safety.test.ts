import { describe, it, expect } from 'vitest';
import { callService } from '../../mock-services/index.js';
import { ctxFor, errOf, world } from './fixtures.js';

describe('refuse_request', () => {
  it('records the refusal category', () => {
    const w = world();
    const ctx = ctxFor(w);
    expect(callService('refuse_request', { category: 'medical', note: '疗效问题' }, ctx)).toEqual({
      ok: true,
      data: { recorded: true, category: 'medical' },
    });
    expect(callService('refuse_request', { category: 'off_platform' }, ctx)).toEqual({
      ok: true,
      data: { recorded: true, category: 'off_platform' },
    });
    expect(ctx.state.refusals).toEqual([{ category: 'medical' }, { category: 'off_platform' }]);
  });

  it('rejects bad arguments without recording anything', () => {
    const ctx = ctxFor(world());
    expect(errOf(callService('refuse_request', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'category' });
    expect(errOf(callService('refuse_request', { category: 'rude' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'category' });
    expect(errOf(callService('refuse_request', { category: 'medical', note: 3 }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'note',
    });
    expect(ctx.state.refusals).toEqual([]);
  });
});

describe('handoff_to_human', () => {
  it('queues a ticket whose id depends on the world seed and the hand-off count only', () => {
    const w = world(7);
    const me = w.viewers.find((v) => v.order_ids.length > 0) ?? w.viewers[0];
    const ctx = ctxFor(w, me.viewer_id);
    const first = callService('handoff_to_human', { reason: '要求赔偿' }, ctx);
    expect(first).toEqual({ ok: true, data: { ticket_id: expect.stringMatching(/^tk_[0-9a-f]{8}$/), queued: true } });
    const orderId = me.order_ids[0];
    const second = callService(
      'handoff_to_human',
      orderId === undefined ? { reason: '物流问题' } : { reason: '物流问题', order_id: orderId },
      ctx,
    );
    expect(ctx.state.handoffs).toEqual([
      { viewer_id: me.viewer_id, reason: '要求赔偿' },
      orderId === undefined
        ? { viewer_id: me.viewer_id, reason: '物流问题' }
        : { viewer_id: me.viewer_id, order_id: orderId, reason: '物流问题' },
    ]);
    // Replaying the same calls on a fresh overlay reproduces the ticket ids; different counts differ.
    const replay = ctxFor(w, me.viewer_id);
    expect(callService('handoff_to_human', { reason: 'other words' }, replay)).toEqual(first);
    expect(second.ok && first.ok && second.data).not.toEqual(first.ok && first.data);
    // Another world seed gives another ticket id.
    expect(callService('handoff_to_human', { reason: 'x' }, ctxFor(world(8)))).not.toEqual(first);
  });

  it('rejects bad arguments, unknown and foreign orders without queueing', () => {
    const w = world(7);
    const owner = w.orders[0].viewer_id;
    const stranger = w.viewers.find((v) => v.viewer_id !== owner)!.viewer_id;
    const ctx = ctxFor(w, stranger);
    expect(errOf(callService('handoff_to_human', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'reason' });
    expect(errOf(callService('handoff_to_human', { reason: '' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'reason' });
    expect(errOf(callService('handoff_to_human', { reason: 'x', order_id: 9 }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'order_id',
    });
    expect(errOf(callService('handoff_to_human', { reason: 'x', order_id: 'od_nope' }, ctx))).toEqual({
      code: 'NOT_FOUND',
      field: 'order_id',
    });
    expect(errOf(callService('handoff_to_human', { reason: 'x', order_id: w.orders[0].order_id }, ctx))).toEqual({
      code: 'PERMISSION_DENIED',
      field: 'order_id',
    });
    expect(ctx.state.handoffs).toEqual([]);
  });
});
