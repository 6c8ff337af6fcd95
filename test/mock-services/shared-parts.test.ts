import { describe, it, expect } from 'vitest';
import { generateWorld, toIso } from '../../mock-services/index.js';

/** `toIso` as it was written first: Date fields of the shifted instant. */
function isoByDate(ms: number): string {
  const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
  const d = new Date(ms + 8 * 3_600_000);
  return (
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}+08:00`
  );
}

describe('toIso tables', () => {
  it('formats every minute of 2025-2027 and everything around it as Date does', () => {
    const start = Date.UTC(2024, 11, 20);
    const end = Date.UTC(2028, 0, 10);
    const wrong: number[] = [];
    for (let ms = start; ms < end; ms += 7 * 60_000) if (toIso(ms) !== isoByDate(ms)) wrong.push(ms);
    expect(wrong).toEqual([]);
    for (const ms of [0, -1, 1, 59_999, 60_000, 1e15, -8 * 3_600_000, Date.UTC(2026, 5, 1, 3, 4, 5), Date.UTC(2026, 5, 1, 3, 4, 0, 1)]) {
      expect(toIso(ms)).toBe(isoByDate(ms));
    }
    expect(toIso(Number.NaN)).toBe(isoByDate(Number.NaN));
  });
});

describe('template parts shared between worlds', () => {
  it('are frozen and shared, and the worlds still read (and serialise) as their own', () => {
    const a = generateWorld(11, 'zh-CN');
    const b = generateWorld(11, 'zh-CN');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const p = a.products[0];
    const q = b.products[0];
    expect(q).not.toBe(p); // per-world records
    expect(q.attributes).toBe(p.attributes); // template combinations, shared
    expect(q.skus[0].spec).toBe(p.skus[0].spec);
    expect(q.after_sales.return_exclusions).toBe(p.after_sales.return_exclusions);
    expect(q.faq[0].tags).toBe(p.faq[0].tags);
    expect(Object.isFrozen(p.attributes) && Object.isFrozen(p.skus[0].spec) && Object.isFrozen(p.faq[0].tags)).toBe(true);
    expect(() => {
      (p.faq[0].tags as string[]).push('x');
    }).toThrow(TypeError);
    // Worlds that need to be edited are copied (test fixtures use structuredClone): the copy is unfrozen.
    const copy = structuredClone(a);
    copy.products[0].after_sales.return_exclusions.push('x');
    expect(a.products[0].after_sales.return_exclusions).not.toContain('x');
  });
});
