/**
 * The latency curve as an SVG chart, written by hand: deterministic text from the numbers alone (no
 * date, no random ids, coordinates rounded to 0.01), so the same figures give the same file.
 *
 * x: live episodes, log scale, a tick at each measured count. y: step latency in ms, log scale, a tick at
 * each power of ten that the data and the target span. Four series (server-side p50 and p99, client round
 * trip p50 and p99), each a polyline with a marker per point (hollow where the count did not hold), a
 * dashed target line (10 ms by default), axis labels and a legend.
 */

/** One point as the chart reads it (a `latency_curve` entry has these fields). */
export interface ChartPoint {
  live: number;
  server_p50_ms: number | null;
  server_p99_ms: number | null;
  rtt_p50_ms: number | null;
  rtt_p99_ms: number | null;
  /** False draws the point's markers hollow (the count did not hold); absent counts as held. */
  held?: boolean;
}

/** Chart options. */
export interface ChartOptions {
  width?: number;
  height?: number;
  /** The target line (ms); null draws none. */
  targetMs?: number | null;
  title?: string;
}

/** The four series: key in a point, legend label, colour, dash pattern. */
export const SERIES = [
  { key: 'server_p50_ms', id: 'server-p50', label: 'server-side step p50', color: '#1f77b4', dash: '' },
  { key: 'server_p99_ms', id: 'server-p99', label: 'server-side step p99', color: '#1f77b4', dash: '6 4' },
  { key: 'rtt_p50_ms', id: 'rtt-p50', label: 'client round trip p50', color: '#ff7f0e', dash: '' },
  { key: 'rtt_p99_ms', id: 'rtt-p99', label: 'client round trip p99', color: '#ff7f0e', dash: '6 4' },
] as const;

/** The plot area inside the SVG (px): left, top, right, bottom edges. */
export interface PlotArea {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Log-scale axes mapping data to pixels. */
export interface Scales {
  area: PlotArea;
  /** x domain (live episodes) and y domain (ms), both > 0. */
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  x(live: number): number;
  y(ms: number): number;
}

const MARGIN = { left: 78, top: 44, right: 24, bottom: 62 };
/** Below this a latency is drawn at it (a log axis has no 0). */
const Y_FLOOR_MS = 0.001;

/** A coordinate as SVG text: two decimals at most, no trailing zeros, no "-0". */
export function fmt(v: number): string {
  const r = Math.round(v * 100) / 100;
  return String(Object.is(r, -0) ? 0 : r);
}

/** XML text and attribute escaping. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** A count with thousands separators (16,384). */
function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A latency tick label: 0.01, 0.1, 1, 10, 100, 1,000 ... (ms). */
export function msLabel(v: number): string {
  return v >= 1 ? thousands(v) : String(Number(v.toPrecision(1)));
}

/** The finite, positive values of a point's series. */
function values(points: readonly ChartPoint[]): number[] {
  const out: number[] = [];
  for (const p of points)
    for (const s of SERIES) {
      const v = p[s.key];
      if (typeof v === 'number' && Number.isFinite(v) && v > 0) out.push(Math.max(v, Y_FLOOR_MS));
    }
  return out;
}

/** The scales of a chart of these points in a `width` x `height` SVG. */
export function scales(points: readonly ChartPoint[], width: number, height: number, targetMs: number | null): Scales {
  const area: PlotArea = { left: MARGIN.left, top: MARGIN.top, right: width - MARGIN.right, bottom: height - MARGIN.bottom };
  const lives = points.map((p) => p.live).filter((n) => Number.isFinite(n) && n > 0);
  const lo = lives.length > 0 ? Math.min(...lives) : 1;
  const hi = lives.length > 0 ? Math.max(...lives) : 10;
  // Half a doubling of room on each side, so end markers are not on the frame.
  const xMin = lo / Math.SQRT2;
  const xMax = (hi === lo ? lo * 2 : hi) * Math.SQRT2;
  const ys = values(points);
  if (targetMs !== null && targetMs > 0) ys.push(targetMs);
  const yLo = ys.length > 0 ? Math.min(...ys) : 1;
  const yHi = ys.length > 0 ? Math.max(...ys) : 10;
  const yMin = 10 ** Math.floor(Math.log10(yLo));
  let yMax = 10 ** Math.ceil(Math.log10(yHi));
  if (yMax <= yMin) yMax = yMin * 10;
  const lx0 = Math.log10(xMin);
  const lx1 = Math.log10(xMax);
  const ly0 = Math.log10(yMin);
  const ly1 = Math.log10(yMax);
  return {
    area,
    xMin,
    xMax,
    yMin,
    yMax,
    x: (live) => area.left + ((Math.log10(live) - lx0) / (lx1 - lx0)) * (area.right - area.left),
    y: (ms) => area.bottom - ((Math.log10(Math.max(ms, Y_FLOOR_MS)) - ly0) / (ly1 - ly0)) * (area.bottom - area.top),
  };
}

/** The SVG text of the latency curve. */
export function latencyChartSvg(points: readonly ChartPoint[], opts: ChartOptions = {}): string {
  const width = opts.width ?? 760;
  const height = opts.height ?? 460;
  const targetMs = opts.targetMs === undefined ? 10 : opts.targetMs;
  const title = opts.title ?? 'Step latency by live episodes';
  const sorted = [...points].filter((p) => Number.isFinite(p.live) && p.live > 0).sort((a, b) => a.live - b.live);
  const sc = scales(sorted, width, height, targetMs);
  const { area } = sc;
  const o: string[] = [];
  o.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  o.push(`<title>${escapeXml(title)}</title>`);
  o.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  o.push(`<text x="${fmt(width / 2)}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);

  // Grid and ticks: y at each power of ten, x at each measured count.
  o.push('<g class="grid" stroke="#e3e3e3" stroke-width="1">');
  const yTicks: number[] = [];
  for (let e = Math.round(Math.log10(sc.yMin)); e <= Math.round(Math.log10(sc.yMax)); e++) yTicks.push(10 ** e);
  for (const t of yTicks) o.push(`<line x1="${fmt(area.left)}" y1="${fmt(sc.y(t))}" x2="${fmt(area.right)}" y2="${fmt(sc.y(t))}"/>`);
  const xTicks = [...new Set(sorted.map((p) => p.live))];
  for (const t of xTicks) o.push(`<line x1="${fmt(sc.x(t))}" y1="${fmt(area.top)}" x2="${fmt(sc.x(t))}" y2="${fmt(area.bottom)}"/>`);
  o.push('</g>');
  o.push('<g class="y-ticks" text-anchor="end">');
  for (const t of yTicks) o.push(`<text x="${fmt(area.left - 8)}" y="${fmt(sc.y(t) + 4)}">${msLabel(t)}</text>`);
  o.push('</g>');
  o.push('<g class="x-ticks" text-anchor="middle">');
  for (const t of xTicks) o.push(`<text x="${fmt(sc.x(t))}" y="${fmt(area.bottom + 18)}">${thousands(t)}</text>`);
  o.push('</g>');

  // Axes and their labels.
  o.push(
    `<rect class="frame" x="${fmt(area.left)}" y="${fmt(area.top)}" width="${fmt(area.right - area.left)}" ` +
      `height="${fmt(area.bottom - area.top)}" fill="none" stroke="#333333" stroke-width="1"/>`,
  );
  o.push(
    `<text class="x-label" x="${fmt((area.left + area.right) / 2)}" y="${fmt(height - 18)}" text-anchor="middle">live episodes (log scale)</text>`,
  );
  const yMid = (area.top + area.bottom) / 2;
  o.push(
    `<text class="y-label" x="20" y="${fmt(yMid)}" text-anchor="middle" transform="rotate(-90 20 ${fmt(yMid)})">step latency, ms (log scale)</text>`,
  );

  // The target line.
  if (targetMs !== null && targetMs > 0) {
    const ty = fmt(sc.y(targetMs));
    o.push(
      `<line class="target" data-ms="${targetMs}" x1="${fmt(area.left)}" y1="${ty}" x2="${fmt(area.right)}" y2="${ty}" ` +
        `stroke="#d62728" stroke-width="1.5" stroke-dasharray="2 3"/>`,
    );
    o.push(
      `<text class="target-label" x="${fmt(area.right - 6)}" y="${fmt(sc.y(targetMs) - 6)}" text-anchor="end" fill="#d62728">${msLabel(targetMs)} ms target</text>`,
    );
  }

  // The series.
  for (const s of SERIES) {
    const pts = sorted.filter((p) => typeof p[s.key] === 'number' && Number.isFinite(p[s.key]) && (p[s.key] as number) > 0);
    o.push(`<g class="series ${s.id}" fill="none" stroke="${s.color}" stroke-width="2">`);
    if (pts.length > 1) {
      const coords = pts.map((p) => `${fmt(sc.x(p.live))},${fmt(sc.y(p[s.key] as number))}`).join(' ');
      o.push(`<polyline points="${coords}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    }
    for (const p of pts) {
      const v = p[s.key] as number;
      o.push(
        `<circle cx="${fmt(sc.x(p.live))}" cy="${fmt(sc.y(v))}" r="3.5" fill="${p.held === false ? '#ffffff' : s.color}" ` +
          `data-live="${p.live}" data-ms="${v}"/>`,
      );
    }
    o.push('</g>');
  }

  // The legend (top left inside the plot).
  const lx = area.left + 12;
  let ly = area.top + 12;
  const rows = SERIES.length + (targetMs !== null && targetMs > 0 ? 1 : 0) + (sorted.some((p) => p.held === false) ? 1 : 0);
  o.push('<g class="legend">');
  o.push(
    `<rect x="${fmt(lx - 6)}" y="${fmt(ly - 8)}" width="190" height="${fmt(rows * 18 + 6)}" fill="#ffffff" fill-opacity="0.9" stroke="#bbbbbb"/>`,
  );
  for (const s of SERIES) {
    o.push(
      `<line x1="${fmt(lx)}" y1="${fmt(ly + 3)}" x2="${fmt(lx + 26)}" y2="${fmt(ly + 3)}" stroke="${s.color}" stroke-width="2"` +
        `${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
    o.push(`<circle cx="${fmt(lx + 13)}" cy="${fmt(ly + 3)}" r="3.5" fill="${s.color}" stroke="${s.color}"/>`);
    o.push(`<text x="${fmt(lx + 34)}" y="${fmt(ly + 7)}">${s.label}</text>`);
    ly += 18;
  }
  if (targetMs !== null && targetMs > 0) {
    o.push(
      `<line x1="${fmt(lx)}" y1="${fmt(ly + 3)}" x2="${fmt(lx + 26)}" y2="${fmt(ly + 3)}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="2 3"/>`,
    );
    o.push(`<text x="${fmt(lx + 34)}" y="${fmt(ly + 7)}">target (${msLabel(targetMs)} ms)</text>`);
    ly += 18;
  }
  if (sorted.some((p) => p.held === false)) {
    o.push(`<circle cx="${fmt(lx + 13)}" cy="${fmt(ly + 3)}" r="3.5" fill="#ffffff" stroke="#555555" stroke-width="2"/>`);
    o.push(`<text x="${fmt(lx + 34)}" y="${fmt(ly + 7)}">hollow: count not held</text>`);
  }
  o.push('</g>');
  o.push('</svg>');
  return o.join('\n') + '\n';
}
