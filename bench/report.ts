/** The human-readable report of a bench summary (`npm run bench` without `--json`). */
import type { BenchSummary } from './suite.js';

const fmt = (v: unknown, unit = ''): string => (v === null || v === undefined ? 'n/a' : `${String(v)}${unit}`);

/** Render the summary as a few aligned tables. */
export function formatReport(s: BenchSummary): string {
  const lines: string[] = [];
  const m = s.machine;
  lines.push(`harness-gym bench — ${m.cpu_model}, ${m.cores} cores, ${m.total_memory_gib} GiB, Node ${m.node}, ${m.os}`);
  lines.push(`elapsed ${s.elapsed_s} s${s.params.quick ? ' (--quick: smoke run, not a measurement)' : ''}`);
  lines.push('');
  lines.push('micro-benchmarks');
  const names = Object.keys(s.micro);
  const w = Math.max(10, ...names.map((n) => n.length));
  lines.push(`  ${'benchmark'.padEnd(w)}  ${'p50 µs'.padStart(10)}  ${'p99 µs'.padStart(10)}`);
  for (const n of names) lines.push(`  ${n.padEnd(w)}  ${fmt(s.micro[n].p50_us).padStart(10)}  ${fmt(s.micro[n].p99_us).padStart(10)}`);
  if (s.throughput === null) {
    lines.push('', 'load phases skipped (--skip-load)');
    return lines.join('\n') + '\n';
  }
  const tp = s.throughput;
  const echo = s.echo ?? {};
  const c = s.concurrency ?? {};
  lines.push('');
  lines.push(`throughput (${s.params.steps_per_frame} steps/frame, ${s.params.tp_connections} connections)`);
  lines.push(
    `  environment   ${fmt(s.env_steps_per_s)} steps/s  (rtt p50 ${fmt(tp.rtt_p50_ms)} ms, p99 ${fmt(tp.rtt_p99_ms)} ms, ${fmt(tp.steps)} steps)`,
  );
  lines.push(`  echo          ${fmt(s.echo_steps_per_s)} steps/s  (replies match env: ${fmt(echo.replies_match_env)})`);
  lines.push(`  ratio         ${fmt(s.ratio)}`);
  lines.push(
    `  CPU per step  server: env ${fmt(tp.server_cpu_us_per_step, ' µs')}, echo ${fmt(echo.server_cpu_us_per_step, ' µs')}; ` +
      `client: env ${fmt(tp.client_cpu_us_per_step, ' µs')}, echo ${fmt(echo.client_cpu_us_per_step, ' µs')}`,
  );
  lines.push('');
  lines.push(`concurrency (${s.params.episodes} episodes, ${s.params.connections} connections, think ${s.params.think_ms} ms)`);
  lines.push(`  live episodes       ${fmt(s.concurrent_episodes)} (ramp ${fmt(c.ramp_s)} s, complete: ${fmt(c.ramp_complete)})`);
  lines.push(`  failures            ${fmt(s.failures)}  ${JSON.stringify(c.failures ?? {})}`);
  lines.push(`  server step p50/p99 ${fmt(s.step_p50_ms, ' ms')} / ${fmt(s.step_p99_ms, ' ms')}`);
  lines.push(`  client rtt          p50 ${fmt(c.rtt_p50_ms, ' ms')}, p99 ${fmt(c.rtt_p99_ms, ' ms')}`);
  lines.push(`  reset rtt           p50 ${fmt(c.reset_rtt_p50_ms, ' ms')}, p99 ${fmt(c.reset_rtt_p99_ms, ' ms')}`);
  lines.push(`  steady rate         ${fmt(c.steady_steps_per_s)} steps/s, ${fmt(c.steady_resets_per_s)} resets/s`);
  lines.push(
    `  CPU (cores)         server ${fmt(c.server_cpu_cores)} (main thread ${fmt(c.server_main_cpu_cores)}), client ${fmt(c.client_cpu_cores)}, ` +
      `machine ${fmt(c.machine_cpu_cores)} of ${m.cores}; server ${fmt(c.server_cpu_us_per_item, ' µs')} per item`,
  );
  lines.push(
    `  frames              ${fmt(c.steady_frames_per_s)} frames/s, ${fmt(c.items_per_frame)} items per frame; server ${fmt(c.server_cpu_us_per_frame, ' µs')} per frame`,
  );
  lines.push(
    `  memory              idle ${fmt(c.rss_idle_kb, ' KiB')}, live ${fmt(c.rss_live_kb, ' KiB')} -> ${fmt(s.rss_per_episode_kb, ' KiB')}/episode`,
  );
  lines.push('');
  if (s.latency_curve.length > 0) {
    lines.push(`latency curve (think ${s.params.think_ms} ms; ms)`);
    lines.push(
      `  ${'live'.padStart(7)}  ${'srv p50'.padStart(9)}  ${'srv p99'.padStart(9)}  ${'rtt p50'.padStart(9)}  ${'rtt p99'.padStart(9)}  held`,
    );
    for (const c of s.latency_curve) {
      lines.push(
        `  ${String(c.live).padStart(7)}  ${fmt(c.server_p50_ms).padStart(9)}  ${fmt(c.server_p99_ms).padStart(9)}  ` +
          `${fmt(c.rtt_p50_ms).padStart(9)}  ${fmt(c.rtt_p99_ms).padStart(9)}  ${c.held ? 'yes' : `no (${c.why_not ?? ''})`}`,
      );
    }
    lines.push(`  largest held: ${fmt(s.max_live_held)}; search ended: ${fmt(s.curve_stopped_by)}`);
    lines.push('');
  }
  lines.push('worker scaling (throughput phase)');
  for (const r of s.workers_scaling) {
    lines.push(
      `  workers ${String(r.workers).padStart(2)}  ${fmt(r.steps_per_s).padStart(10)} steps/s  ${fmt(r.steps_per_s_per_worker).padStart(10)} per worker  ${fmt(r.server_cpu_us_per_step, ' µs').padStart(10)} server CPU per step`,
    );
  }
  if (s.params.workers_flag_supported === false) lines.push('  (this build of serve has no --workers: not measured)');
  return lines.join('\n') + '\n';
}
