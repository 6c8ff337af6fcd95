/**
 * `npm run bench:results`: run the `--json` bench K times (default 3), each in a fresh process, take the
 * median of every numeric key, and rewrite the generated part of bench/RESULTS.md (between the
 * `<!-- generated:start -->` and `<!-- generated:end -->` markers) with the machine, a targets table
 * (target, measured median, met or missed, gap), the latency curve (medians per live count, a table and
 * the chart bench/latency-curve.svg, written beside RESULTS.md), the raw JSON lines and the command.
 * Everything outside the markers (the hand-written analysis) is kept as it is.
 *
 * Usage: node dist/bench/results.js [--runs K] [--out FILE] [bench flags...]   (bench flags go to every run)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { latencyChartSvg } from './chart.js';
import type { CurvePoint } from './curve.js';
import type { BenchSummary } from './suite.js';
import { deepMedian, median } from './stats.js';
import { packageRoot } from '../protocol/package.js';

export const START_MARKER = '<!-- generated:start -->';
export const END_MARKER = '<!-- generated:end -->';
/** The chart's file, beside RESULTS.md (the generated part links it by this relative name). */
export const CHART_FILE = 'latency-curve.svg';
/** The step latency target the chart draws and the curve table compares with (ms). */
export const STEP_TARGET_MS = 10;

/** One bench run in a fresh process: its JSON line and its wall time. */
function runOnce(runJs: string, args: readonly string[]): Promise<{ line: string; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runJs, '--json', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const lines = out.split('\n').filter((l) => l.trim() !== '');
      if (code !== 0 || lines.length !== 1) return reject(new Error(`bench run failed (exit ${code}, ${lines.length} stdout lines)`));
      resolve({ line: lines[0], seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** One row of the targets table. */
interface TargetRow {
  target: string;
  measured: string;
  status: 'met' | 'missed' | 'n/a' | 'reported';
  gap: string;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const show = (v: number | null, digits = 2, unit = ''): string => (v === null ? 'n/a' : `${Number(v.toFixed(digits))}${unit}`);

/** A "at most" target: gap as the excess and the factor over the target. */
function atMost(target: string, v: number | null, limit: number, unit: string, digits = 2): TargetRow {
  if (v === null) return { target, measured: 'n/a', status: 'n/a', gap: 'not measured' };
  const met = v <= limit;
  const factor = limit > 0 ? v / limit : Infinity;
  return {
    target,
    measured: show(v, digits, unit),
    status: met ? 'met' : 'missed',
    gap: met
      ? `${show(limit - v, digits, unit)} to spare`
      : `${show(v - limit, digits, unit)} over${limit > 0 ? ` (${factor.toFixed(1)}x the target)` : ''}`,
  };
}

/** A "at least" target. */
function atLeast(target: string, v: number | null, limit: number, unit: string, digits = 2): TargetRow {
  if (v === null) return { target, measured: 'n/a', status: 'n/a', gap: 'not measured' };
  const met = v >= limit;
  return {
    target,
    measured: show(v, digits, unit),
    status: met ? 'met' : 'missed',
    gap: met
      ? `${show(v - limit, digits, unit)} above`
      : `${show(limit - v, digits, unit)} short (${(v / limit).toFixed(2)} of the target)`,
  };
}

/** One live count of the curve over K runs: the median of each figure over the runs that measured the count. */
export interface MedianCurvePoint {
  live: number;
  /** Runs that measured this count, and those where it held. */
  runs: number;
  held_runs: number;
  /** Held in more than half of the runs that measured it. */
  held: boolean;
  server_p50_ms: number | null;
  server_p99_ms: number | null;
  rtt_p50_ms: number | null;
  rtt_p99_ms: number | null;
  reset_rtt_p50_ms: number | null;
  reset_rtt_p99_ms: number | null;
  concurrent_episodes: number | null;
  failures: number | null;
  steady_steps_per_s: number | null;
}

/**
 * The curve's medians by live count. (Runs may measure different counts, as the search stops where the
 * box stops holding, so the curve is matched by count, not by position as `deepMedian` would.)
 */
export function curveMedians(summaries: readonly Pick<BenchSummary, 'latency_curve'>[]): MedianCurvePoint[] {
  const byLive = new Map<number, CurvePoint[]>();
  for (const s of summaries) {
    for (const p of s.latency_curve ?? []) {
      const list = byLive.get(p.live) ?? [];
      list.push(p);
      byLive.set(p.live, list);
    }
  }
  const med = (list: readonly CurvePoint[], key: keyof CurvePoint): number | null => {
    const v = list.map((p) => p[key]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    return v.length === 0 ? null : median(v);
  };
  return [...byLive.entries()]
    .sort(([a], [b]) => a - b)
    .map(([live, list]) => {
      const heldRuns = list.filter((p) => p.held).length;
      return {
        live,
        runs: list.length,
        held_runs: heldRuns,
        held: heldRuns * 2 > list.length,
        server_p50_ms: med(list, 'server_p50_ms'),
        server_p99_ms: med(list, 'server_p99_ms'),
        rtt_p50_ms: med(list, 'rtt_p50_ms'),
        rtt_p99_ms: med(list, 'rtt_p99_ms'),
        reset_rtt_p50_ms: med(list, 'reset_rtt_p50_ms'),
        reset_rtt_p99_ms: med(list, 'reset_rtt_p99_ms'),
        concurrent_episodes: med(list, 'concurrent_episodes'),
        failures: med(list, 'failures'),
        steady_steps_per_s: med(list, 'steady_steps_per_s'),
      };
    });
}

/** The chart of the curve's medians (bench/latency-curve.svg). */
export function curveChart(curve: readonly MedianCurvePoint[], runs: number): string {
  return latencyChartSvg(curve, {
    targetMs: STEP_TARGET_MS,
    title: `Step latency by live episodes (medians of ${runs} run${runs === 1 ? '' : 's'})`,
  });
}

/** The curve's table and the chart's reference (markdown lines). */
export function curveSection(curve: readonly MedianCurvePoint[], m: BenchSummary): string[] {
  const out: string[] = [];
  out.push('### Latency curve (issue 16)');
  out.push('');
  if (curve.length === 0) {
    out.push('Not measured (no `latency_curve` in the runs: `--curve none`, `--skip-load`, or a bench without the curve).');
    return out;
  }
  const p = m.params;
  out.push(
    `Live episodes over at most ${p.connections} connections, think ${p.think_ms} ms (+-${Math.round(p.think_jitter * 100)}%), ` +
      `${p.live_warmup_s ?? 0} s warm-up per server, steady phase ${Math.max(p.steady_s, (p.latency_window_s ?? 0) > 0 ? (p.latency_window_s ?? 0) + 1 : 0)} s ` +
      `(server-side and round-trip figures over it alone); a count holds when every episode got live with no failure and the ` +
      `server-side step p99 is at most ${p.curve_p99_limit_ms ?? 'n/a'} ms. Medians over the runs that measured the count.`,
  );
  out.push('');
  out.push(
    `![Step latency by live episodes: server-side and round-trip p50 and p99, log-log, with the ${STEP_TARGET_MS} ms target](${CHART_FILE})`,
  );
  out.push('');
  out.push(
    '| live episodes | held (runs) | server p50 ms | server p99 ms | round trip p50 ms | round trip p99 ms | reset round trip p50 / p99 ms | live reached | failures | steady steps/s | server p99 vs 10 ms |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of curve) {
    const vs =
      c.server_p99_ms === null
        ? 'n/a'
        : c.server_p99_ms <= STEP_TARGET_MS
          ? 'met'
          : `${(c.server_p99_ms / STEP_TARGET_MS).toFixed(1)}x over`;
    out.push(
      `| ${c.live.toLocaleString('en-US')} | ${c.held_runs}/${c.runs} | ${show(c.server_p50_ms, 2)} | ${show(c.server_p99_ms, 2)} | ` +
        `${show(c.rtt_p50_ms, 2)} | ${show(c.rtt_p99_ms, 2)} | ${show(c.reset_rtt_p50_ms, 1)} / ${show(c.reset_rtt_p99_ms, 1)} | ${show(c.concurrent_episodes, 0)} | ${show(c.failures, 0)} | ` +
        `${show(c.steady_steps_per_s, 0)} | ${vs} |`,
    );
  }
  out.push('');
  const held = num(m.max_live_held);
  out.push(
    `Largest count held (median of the runs): ${held === null ? 'none' : held.toLocaleString('en-US')}` +
      `${m.curve_stopped_by ? `; the first run's search ended at ${m.curve_stopped_by}` : ''}.`,
  );
  return out;
}

/** The targets of issues 6, 14 and 16, checked against the median summary (and the curve's medians). */
export function targetRows(m: BenchSummary, curve: readonly MedianCurvePoint[] = []): TargetRow[] {
  const p = m.params;
  const standard = p.episodes >= 16384 && p.think_ms === 3000;
  const conc = (row: TargetRow): TargetRow =>
    standard || row.status === 'n/a'
      ? row
      : { ...row, status: 'n/a', gap: `run with ${p.episodes} episodes, think ${p.think_ms} ms: not the target's load` };
  const rows: TargetRow[] = [
    {
      ...atLeast('env/echo ratio >= 0.5 at 64 steps/frame', num(m.ratio), 0.5, '', 3),
      ...(p.steps_per_frame === 64 ? {} : { status: 'n/a' as const, gap: `run at ${p.steps_per_frame} steps/frame` }),
    },
    conc(atLeast('16,384 concurrent live episodes (3 s think time)', num(m.concurrent_episodes), 16384, '', 0)),
    conc(atMost('0 failures at that load', num(m.failures), 0, '', 0)),
    conc(atMost('server-side step p99 <= 10 ms at that load', num(m.step_p99_ms), 10, ' ms', 3)),
    atMost('train reset p50 <= 300 µs', num(m.reset_p50_us), 300, ' µs', 1),
    atMost('train reset p99 <= 2 ms', num(m.reset_p99_us), 2000, ' µs', 1),
    atMost('identity reset p50 <= 100 µs', num(m.identity_reset_p50_us ?? m.micro?.reset_identity?.p50_us), 100, ' µs', 1),
    conc(atMost('RSS <= 32 KB per live episode', num(m.rss_per_episode_kb), 32, ' KiB', 2)),
  ];
  if (curve.length > 0) {
    const held = num(m.max_live_held);
    rows.push({
      target: 'latency curve: live episodes the box holds (stretch 65,536)',
      measured: held === null ? 'none held' : held.toLocaleString('en-US'),
      status: 'reported',
      gap:
        held === null
          ? 'the smallest count did not hold'
          : held >= 65536
            ? 'stretch reached'
            : `${(65536 / held).toFixed(1)}x short of 65,536`,
    });
    const under = curve.filter((c) => c.server_p99_ms !== null && c.server_p99_ms <= STEP_TARGET_MS).map((c) => c.live);
    rows.push({
      target: 'latency curve: largest count with server-side step p99 <= 10 ms',
      measured: under.length === 0 ? 'none' : Math.max(...under).toLocaleString('en-US'),
      status: 'reported',
      gap: under.length > 0 && Math.max(...under) >= 16384 ? '16,384 within the target' : 'short of 16,384',
    });
  }
  const base = num(m.workers_scaling.find((w) => w.workers === 1)?.steps_per_s);
  for (const w of m.workers_scaling) {
    const total = num(w.steps_per_s);
    rows.push({
      target: `workers ${w.workers}: throughput per worker`,
      measured: total === null ? 'n/a' : `${show(total, 0)} steps/s (${show(num(w.steps_per_s_per_worker), 0)} per worker)`,
      status: total === null ? 'n/a' : 'reported',
      gap:
        w.workers === 1
          ? 'baseline'
          : total === null || base === null || base === 0
            ? ''
            : `${(total / base).toFixed(2)}x the 1-worker throughput`,
    });
  }
  return rows;
}

/** The generated section (without the markers). */
export function renderGenerated(runs: readonly { line: string; seconds: number }[], command: string, benchArgs: readonly string[]): string {
  const summaries = runs.map((r) => JSON.parse(r.line) as BenchSummary);
  const m = deepMedian(summaries) as BenchSummary;
  const curve = curveMedians(summaries);
  const mc = summaries[0].machine;
  const out: string[] = [];
  out.push(`Generated by \`${command}\` on ${new Date().toISOString().slice(0, 10)}: ${runs.length} run${runs.length === 1 ? '' : 's'} of`);
  out.push(
    `\`node dist/bench/run.js --json${benchArgs.length > 0 ? ' ' + benchArgs.join(' ') : ''}\`, each a fresh process; figures are the`,
  );
  out.push(`medians per key. Run times: ${runs.map((r) => `${r.seconds.toFixed(0)} s`).join(', ')}.`);
  out.push('');
  out.push('### Machine');
  out.push('');
  out.push(`- CPU: ${mc.cpu_model}, ${mc.cores} cores`);
  out.push(`- Memory: ${mc.total_memory_gib} GiB`);
  out.push(`- Node.js ${mc.node}, ${mc.os}`);
  const loads = summaries.map((x) => x.machine.load_avg_1m).filter((l): l is number => typeof l === 'number');
  if (loads.length > 0) {
    out.push(`- 1-minute load average at the start of each run: ${loads.join(', ')} (above ${mc.cores}, other work shared the machine)`);
  }
  out.push(
    `- Server under test: \`harness-gym serve --workers ${String(m.params.workers)}\` (worker flag supported: ${String(m.params.workers_flag_supported)})`,
  );
  out.push('');
  out.push('### Targets (issues 6, 14, 16)');
  out.push('');
  out.push('| target | measured (median) | status | gap |');
  out.push('|---|---|---|---|');
  for (const r of targetRows(m, curve)) out.push(`| ${r.target} | ${r.measured} | ${r.status} | ${r.gap} |`);
  out.push('');
  out.push(...curveSection(curve, m));
  out.push('');
  out.push('### Headline figures (medians)');
  out.push('');
  const conc = (m.concurrency ?? {}) as Record<string, unknown>;
  out.push('| figure | value |');
  out.push('|---|---|');
  out.push(`| environment steps/s (${m.params.steps_per_frame} steps/frame) | ${show(num(m.env_steps_per_s), 0)} |`);
  out.push(`| echo steps/s (same frames) | ${show(num(m.echo_steps_per_s), 0)} |`);
  out.push(
    `| concurrency: steady steps/s, resets/s | ${show(num(conc.steady_steps_per_s), 0)}, ${show(num(conc.steady_resets_per_s), 0)} |`,
  );
  out.push(
    `| concurrency: client round trip p50 / p99 | ${show(num(conc.rtt_p50_ms), 1, ' ms')} / ${show(num(conc.rtt_p99_ms), 1, ' ms')} |`,
  );
  out.push(
    `| concurrency: reset round trip p50 / p99 | ${show(num(conc.reset_rtt_p50_ms), 1, ' ms')} / ${show(num(conc.reset_rtt_p99_ms), 1, ' ms')} |`,
  );
  out.push(
    `| concurrency: server RSS idle / live | ${show(num(conc.rss_idle_kb), 0, ' KiB')} / ${show(num(conc.rss_live_kb), 0, ' KiB')} |`,
  );
  const tp = (m.throughput ?? {}) as Record<string, unknown>;
  const echo = (m.echo ?? {}) as Record<string, unknown>;
  out.push(
    `| throughput: server CPU per step, env / echo | ${show(num(tp.server_cpu_us_per_step), 1, ' µs')} / ${show(num(echo.server_cpu_us_per_step), 1, ' µs')} |`,
  );
  out.push(
    `| throughput: client CPU per step, env / echo | ${show(num(tp.client_cpu_us_per_step), 1, ' µs')} / ${show(num(echo.client_cpu_us_per_step), 1, ' µs')} |`,
  );
  out.push(
    `| concurrency: CPU in cores, server (main thread) / client / machine | ${show(num(conc.server_cpu_cores), 2)} (${show(num(conc.server_main_cpu_cores), 2)}) / ${show(num(conc.client_cpu_cores), 2)} / ${show(num(conc.machine_cpu_cores), 2)} of ${mc.cores} |`,
  );
  out.push(`| concurrency: server CPU per item (steps and resets) | ${show(num(conc.server_cpu_us_per_item), 1, ' µs')} |`);
  out.push(
    `| concurrency: frames/s, items per frame, server CPU per frame | ${show(num(conc.steady_frames_per_s), 0)}, ${show(num(conc.items_per_frame), 2)}, ${show(num(conc.server_cpu_us_per_frame), 1, ' µs')} |`,
  );
  out.push('');
  out.push("### Micro-benchmarks (medians of the runs' p50 / p99, µs)");
  out.push('');
  out.push('| benchmark | p50 µs | p99 µs |');
  out.push('|---|---|---|');
  for (const [k, v] of Object.entries(m.micro)) out.push(`| ${k} | ${show(num(v.p50_us))} | ${show(num(v.p99_us))} |`);
  out.push('');
  out.push('### Raw JSON lines');
  out.push('');
  out.push('```json');
  for (const r of runs) out.push(r.line);
  out.push('```');
  return out.join('\n');
}

/** Replace the generated part of a RESULTS.md (or append the markers when the document has none). */
export function replaceGenerated(doc: string, generated: string): string {
  const block = `${START_MARKER}\n${generated}\n${END_MARKER}`;
  const a = doc.indexOf(START_MARKER);
  const b = doc.indexOf(END_MARKER);
  if (a < 0 || b < a) return `${doc.trimEnd()}\n\n${block}\n`;
  return doc.slice(0, a) + block + doc.slice(b + END_MARKER.length);
}

async function main(argv: string[]): Promise<void> {
  let runs = 3;
  let out: string | null = null;
  const benchArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = Number(argv[++i]);
    else if (argv[i] === '--out') out = argv[++i];
    else if (argv[i] !== '--json') benchArgs.push(argv[i]);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  const root = packageRoot();
  const runJs = fileURLToPath(new URL('./run.js', import.meta.url));
  const target = out ?? join(root, 'bench', 'RESULTS.md');
  const results: { line: string; seconds: number }[] = [];
  for (let k = 0; k < runs; k++) {
    process.stderr.write(`bench:results: run ${k + 1}/${runs}\n`);
    results.push(await runOnce(runJs, benchArgs));
  }
  const args = [...(runs !== 3 ? ['--runs', String(runs)] : []), ...benchArgs];
  const command = `npm run bench:results${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const doc = existsSync(target) ? readFileSync(target, 'utf8') : '# Benchmark results\n';
  writeFileSync(target, replaceGenerated(doc, renderGenerated(results, command, benchArgs)));
  const chart = join(dirname(target), CHART_FILE);
  writeFileSync(chart, curveChart(curveMedians(results.map((r) => JSON.parse(r.line) as BenchSummary)), results.length));
  process.stderr.write(`bench:results: wrote ${target} and ${chart}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`bench:results failed: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
