import { describe, it, expect } from 'vitest';
import { Rng } from '../../protocol/rng.js';
import { callService, SERVICES } from '../../mock-services/index.js';
import type { ToolOutcome } from '../../protocol/domain.js';
import { ctxFor, world } from './fixtures.js';

const w = world(7, 'zh-CN');
const link = { link_no: 1 };

describe('fault injection', () => {
  it('is off by default and at rate 0 (and rate 0 draws nothing from the stream)', () => {
    const clean = callService('get_product', link, ctxFor(w));
    const rng = new Rng(1, 'faults');
    for (let i = 0; i < 200; i++) expect(callService('get_product', link, ctxFor(w), { rate: 0, rng })).toEqual(clean);
    expect(rng.next()).toBe(new Rng(1, 'faults').next());
  });

  it('rate 1 always faults, with all three kinds', () => {
    const rng = new Rng(2, 'faults');
    const codes = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const out = callService('get_product', link, ctxFor(w), { rate: 1, rng });
      expect(out.ok).toBe(false);
      if (!out.ok) codes.add(out.error.code);
    }
    expect(codes).toEqual(new Set(['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT']));
  });

  it('MALFORMED_OUTPUT carries a truncated JSON text of the real answer', () => {
    const rng = new Rng(3, 'faults');
    const real = JSON.stringify((callService('get_product', link, ctxFor(w)) as { data: unknown }).data);
    let seen = 0;
    for (let i = 0; i < 60; i++) {
      const out = callService('get_product', link, ctxFor(w), { rate: 1, rng });
      if (!out.ok && out.error.code === 'MALFORMED_OUTPUT') {
        seen++;
        expect(out.raw).toBeDefined();
        expect(real.startsWith(out.raw as string)).toBe(true);
        expect((out.raw as string).length).toBeLessThan(real.length);
        expect(() => JSON.parse(out.raw as string)).toThrow();
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('a faulted call never changes the overlay, whatever the fault', () => {
    const rng = new Rng(4, 'faults');
    const ctx = ctxFor(w);
    for (let i = 0; i < 30; i++) {
      callService('push_link_card', link, ctx, { rate: 1, rng });
      callService('refuse_request', { category: 'other' }, ctx, { rate: 1, rng });
      callService('handoff_to_human', { reason: 'x' }, ctx, { rate: 1, rng });
      callService('issue_coupon', { viewer_id: w.viewers[0].viewer_id, coupon_id: w.coupons[0].coupon_id }, ctx, { rate: 1, rng });
    }
    expect(ctx.state).toEqual({ issued_coupons: [], pushed_cards: [], handoffs: [], refusals: [] });
  });

  it('seeded rate 0.3 is reproducible and faults roughly 30% of 1000 calls', () => {
    const run = (): ToolOutcome[] => {
      const rng = new Rng(5, 'faults');
      const names = [...SERVICES.keys()];
      return Array.from({ length: 1000 }, (_, i) =>
        callService(names[i % names.length], { link_no: 1, query: 'x', item_id: w.products[0].item_id }, ctxFor(w), { rate: 0.3, rng }),
      );
    };
    const a = run();
    const b = run();
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const faults = a.filter(
      (o) =>
        !o.ok &&
        ['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT'].includes(o.error.code) &&
        (o.error.code !== 'PERMISSION_DENIED' || o.error.message.includes('permission denied by the service')),
    ).length;
    expect(faults).toBeGreaterThan(250);
    expect(faults).toBeLessThan(350);
  });

  it('unknown tools are UNKNOWN_TOOL and draw nothing', () => {
    const rng = new Rng(6, 'faults');
    expect(callService('nope', {}, ctxFor(w), { rate: 1, rng })).toEqual({
      ok: false,
      error: { code: 'UNKNOWN_TOOL', message: 'no service named nope' },
    });
    expect(rng.next()).toBe(new Rng(6, 'faults').next());
  });
});
