/**
 * bench/chart.ts: the latency curve's SVG is well-formed XML, puts every point where a log-log plot puts
 * it, draws the 10 ms target where a 10 ms point sits, has its axis labels and legend, and is the same
 * text for the same numbers.
 */
import { describe, expect, it } from 'vitest';
import { latencyChartSvg, SERIES } from '../../bench/chart.js';
import type { ChartPoint } from '../../bench/chart.js';
import { allElements, parseXml } from './xml.js';
import type { XmlElement } from './xml.js';

// The default geometry: 760 x 460, plot area x 78..736, y 44..398.
const LEFT = 78;
const RIGHT = 760 - 24;
const TOP = 44;
const BOTTOM = 460 - 62;

const POINTS: ChartPoint[] = [
  { live: 256, server_p50_ms: 1, server_p99_ms: 10, rtt_p50_ms: 2, rtt_p99_ms: 20 },
  { live: 1024, server_p50_ms: 2, server_p99_ms: 40, rtt_p50_ms: 4, rtt_p99_ms: 80 },
  { live: 4096, server_p50_ms: 5, server_p99_ms: 100, rtt_p50_ms: 10, rtt_p99_ms: 100 },
  { live: 65536, server_p50_ms: 50, server_p99_ms: 100, rtt_p50_ms: 60, rtt_p99_ms: 100, held: false },
];

const byClass = (root: XmlElement, cls: string): XmlElement[] =>
  allElements(root).filter((e) => (e.attrs.class ?? '').split(/\s+/).includes(cls));

/** The markers of one series: live -> [cx, cy, fill]. */
function markers(root: XmlElement, id: string): Map<number, { cx: number; cy: number; fill: string; ms: number }> {
  const [group] = byClass(root, id);
  expect(group, id).toBeDefined();
  const out = new Map<number, { cx: number; cy: number; fill: string; ms: number }>();
  for (const c of group.children.filter((e) => e.name === 'circle')) {
    out.set(Number(c.attrs['data-live']), {
      cx: Number(c.attrs.cx),
      cy: Number(c.attrs.cy),
      fill: c.attrs.fill,
      ms: Number(c.attrs['data-ms']),
    });
  }
  return out;
}

describe('latency chart SVG', () => {
  const svg = latencyChartSvg(POINTS, { targetMs: 10, title: 'p50 & p99 <by live>' });
  const root = parseXml(svg);

  it('is one well-formed <svg> document with its size, title and a white background', () => {
    expect(root.name).toBe('svg');
    expect(root.attrs).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', width: '760', height: '460', viewBox: '0 0 760 460' });
    expect(root.children.find((e) => e.name === 'title')?.text).toBe('p50 & p99 <by live>');
    expect(svg).toContain('p50 &amp; p99 &lt;by live&gt;');
    // The checker itself refuses broken XML.
    expect(() => parseXml('<svg><g></svg>')).toThrow(/closes/);
    expect(() => parseXml('<svg a=1/>')).toThrow(/malformed/);
    expect(() => parseXml('<svg>a & b</svg>')).toThrow(/bare &/);
    expect(() => parseXml('<svg/><svg/>')).toThrow(/second root/);
  });

  it('places every point on log-log axes: x by live episodes, y by milliseconds', () => {
    // x: log2 domain 7.5 .. 16.5 (half a doubling beyond 256 and 65,536); y: decades 1 .. 100 ms.
    const x = (live: number): number => LEFT + ((Math.log2(live) - 7.5) / 9) * (RIGHT - LEFT);
    const y = (ms: number): number => BOTTOM - (Math.log10(ms) / 2) * (BOTTOM - TOP);
    for (const s of SERIES) {
      const m = markers(root, s.id);
      expect([...m.keys()]).toEqual(POINTS.map((p) => p.live));
      for (const p of POINTS) {
        const got = m.get(p.live);
        expect(got, `${s.id} ${p.live}`).toBeDefined();
        expect(got?.ms).toBe(p[s.key]);
        expect(got?.cx).toBeCloseTo(x(p.live), 2);
        expect(got?.cy).toBeCloseTo(y(p[s.key] as number), 2);
      }
    }
    // Spot checks by hand: 256 live is 0.5/9 of the way across; 10 ms the middle of 1..100; 100 ms the top.
    const p99 = markers(root, 'server-p99');
    expect(p99.get(256)?.cx).toBeCloseTo(114.56, 2);
    expect(p99.get(256)?.cy).toBe(221);
    expect(p99.get(4096)?.cy).toBe(TOP);
    expect(markers(root, 'server-p50').get(256)?.cy).toBe(BOTTOM);
    // Each series is one polyline through its markers, in live order.
    for (const s of SERIES) {
      const [group] = byClass(root, s.id);
      const line = group.children.find((e) => e.name === 'polyline');
      const m = markers(root, s.id);
      expect(line?.attrs.points).toBe([...m.values()].map((v) => `${v.cx},${v.cy}`).join(' '));
    }
  });

  it('draws the target line at the height of a 10 ms point, with axis labels and a four-series legend', () => {
    const [target] = byClass(root, 'target');
    expect(target.name).toBe('line');
    expect(Number(target.attrs.y1)).toBe(221);
    expect(target.attrs.y2).toBe(target.attrs.y1);
    expect(Number(target.attrs.x1)).toBe(LEFT);
    expect(Number(target.attrs.x2)).toBe(RIGHT);
    expect(byClass(root, 'target-label')[0].text).toBe('10 ms target');
    expect(byClass(root, 'x-label')[0].text).toBe('live episodes (log scale)');
    expect(byClass(root, 'y-label')[0].text).toBe('step latency, ms (log scale)');
    const legend = byClass(root, 'legend')[0]
      .children.filter((e) => e.name === 'text')
      .map((e) => e.text);
    expect(legend).toEqual([...SERIES.map((s) => s.label), 'target (10 ms)', 'hollow: count not held']);
    // Tick labels: each live count on x, each decade on y.
    expect(byClass(root, 'x-ticks')[0].children.map((e) => e.text)).toEqual(['256', '1,024', '4,096', '65,536']);
    expect(byClass(root, 'y-ticks')[0].children.map((e) => e.text)).toEqual(['1', '10', '100']);
  });

  it('draws a count that did not hold hollow', () => {
    const m = markers(root, 'rtt-p99');
    expect(m.get(65536)?.fill).toBe('#ffffff');
    expect(m.get(256)?.fill).toBe('#ff7f0e');
  });

  it('is the same text for the same numbers, whatever their order, and skips missing values', () => {
    expect(latencyChartSvg([...POINTS].reverse(), { targetMs: 10, title: 'p50 & p99 <by live>' })).toBe(svg);
    const gappy = latencyChartSvg([
      { live: 16, server_p50_ms: 0.5, server_p99_ms: null, rtt_p50_ms: 0.8, rtt_p99_ms: 3 },
      { live: 64, server_p50_ms: 0.7, server_p99_ms: 2, rtt_p50_ms: null, rtt_p99_ms: 5 },
    ]);
    const g = parseXml(gappy);
    expect([...markers(g, 'server-p99').keys()]).toEqual([64]);
    expect([...markers(g, 'rtt-p50').keys()]).toEqual([16]);
    expect(byClass(g, 'server-p99')[0].children.some((e) => e.name === 'polyline')).toBe(false);
    // The y axis spans the data and the default 10 ms target: 0.1 .. 10 ms.
    expect(byClass(g, 'y-ticks')[0].children.map((e) => e.text)).toEqual(['0.1', '1', '10']);
    // An empty curve still gives a valid chart.
    expect(parseXml(latencyChartSvg([])).name).toBe('svg');
  });
});
