/**
 * What the bench reads from the outside of a server: Prometheus metrics over HTTP, readiness, and the
 * resident memory of the server process (and any child processes it runs workers in) from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1: listen on port 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** GET a URL with a timeout; null on any failure. */
async function get(url: string, timeoutMs: number): Promise<{ status: number; text: string } | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  } catch {
    return null;
  }
}

/** Poll `GET /readyz` until it answers 200; throws after `timeoutMs` or when `alive()` turns false. */
export async function waitReady(httpBase: string, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!alive()) throw new Error(`the server at ${httpBase} exited before it was ready`);
    const r = await get(`${httpBase}/readyz`, 1000);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${httpBase}/readyz did not answer 200 within ${timeoutMs} ms`);
}

/** Samples of a Prometheus text exposition: `name{labels}` (labels as written) -> value. */
export type MetricSamples = Map<string, number>;

/** Parse the Prometheus text format (comments skipped; `NaN` kept as NaN). */
export function parseMetrics(text: string): MetricSamples {
  const out: MetricSamples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    if (sp <= 0) continue;
    out.set(line.slice(0, sp).trim(), Number(line.slice(sp + 1)));
  }
  return out;
}

/** GET /metrics and parse it; null when the server does not answer within `timeoutMs`. */
export async function scrapeMetrics(httpBase: string, timeoutMs = 10_000): Promise<MetricSamples | null> {
  const r = await get(`${httpBase}/metrics`, timeoutMs);
  return r && r.status === 200 ? parseMetrics(r.text) : null;
}

/** A sample's value, or null when absent or not finite. */
export function sample(m: MetricSamples | null, key: string): number | null {
  const v = m?.get(key);
  return v === undefined || !Number.isFinite(v) ? null : v;
}

/**
 * Server-side step latency p99 (ms) from the `harness_gym_step_latency_seconds` summary; null when the
 * server has no such summary or observed no step yet (a summary without observations reads 0 or NaN).
 */
export function stepP99Ms(m: MetricSamples | null): number | null {
  return stepQuantileMs(m, 0.99);
}

/** Another quantile of the same summary (0.5, 0.9, 0.99 or 0.999: those the server exports), in ms. */
export function stepQuantileMs(m: MetricSamples | null, q: number): number | null {
  const count = sample(m, 'harness_gym_step_latency_seconds_count');
  const s = sample(m, `harness_gym_step_latency_seconds{quantile="${q}"}`);
  return s === null || count === null || count === 0 ? null : s * 1000;
}

/** VmRSS of one process in KiB, or 0 when it is gone. */
function vmRssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The pids of every descendant of `root` (server workers run as threads or as child processes). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may contain spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // the process ended while we read
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/**
 * Resident memory (bytes) of a server: VmRSS of its process plus that of its descendants, so worker
 * processes count too (worker threads are already inside the process's VmRSS). Null off Linux.
 */
export function serverRssBytes(pid: number): number | null {
  try {
    let kb = vmRssKb(pid);
    for (const d of descendants(pid)) kb += vmRssKb(d);
    return kb * 1024;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux when getconf is missing). */
let clockTicks: number | null = null;
function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU seconds of one process (all its threads) or one thread, from a `stat` file; null when unreadable. */
function statCpuSeconds(path: string): number | null {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after "pid (comm) ": state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / ticksPerSecond();
  } catch {
    return null;
  }
}

/** CPU a server has used so far (s): its process (every thread) and any descendant processes; null off Linux. */
export interface ServerCpu {
  /** Every thread of the server process and its descendants. */
  total_s: number;
  /** The main thread alone (transport, routing, metrics). */
  main_s: number;
}

export function serverCpu(pid: number): ServerCpu | null {
  const own = statCpuSeconds(`/proc/${pid}/stat`);
  if (own === null) return null;
  let total = own;
  // A descendant that ended between the listing and the read counts for nothing.
  for (const d of descendants(pid)) total += statCpuSeconds(`/proc/${d}/stat`) ?? 0;
  return { total_s: total, main_s: statCpuSeconds(`/proc/${pid}/task/${pid}/stat`) ?? 0 };
}

/** Busy CPU seconds of the whole machine so far (every core: user, nice, system, irq, softirq, steal), from /proc/stat. */
export function machineBusyCpuSeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] as string;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice: guest time is inside user already.
    const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
    return busy / ticksPerSecond();
  } catch {
    return null;
  }
}
