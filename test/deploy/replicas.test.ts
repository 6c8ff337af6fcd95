/**
 * Replicas past one machine (issue 16), on loopback: three `harness-gym serve` processes and HAProxy
 * running the shipped deploy/haproxy.cfg with only its ports substituted. Checked:
 * - `eval` through the sharding client (`--url` three times) and through HAProxy (one `--url`) prints the
 *   line the in-process `eval` prints, and the sharded run spread its episodes over the three replicas;
 * - a resume on a new connection through HAProxy reaches the replica that holds the session (raw, with the
 *   `hgym_replica` cookie; and `HarnessGymClient`'s own reconnect), which no other replica could serve;
 * - a replica killed (SIGKILL) under a `ShardedClient` fails only its episodes, typed (`REPLICA_DOWN`,
 *   `details.replica`), new episodes and GRPO groups go to the survivors; and an `evaluateRemote` over the
 *   replicas whose replica is killed mid-run plays the lost episodes again and gives the in-process summary.
 * Skipped (with a message) only where haproxy is not installed and CI is not set; on CI it must run.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HarnessGymClient, ShardedClient, isItemError, shardIndex, shardKey } from '../../client/index.js';
import type { ItemError, StepItem, StepResultItem } from '../../client/index.js';
import { evaluate, evaluateRemote } from '../../eval/index.js';
import type { EvalOptions } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const CFG = join(ROOT, 'deploy', 'haproxy.cfg');

function findHaproxy(): string | null {
  const dirs = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(delimiter)];
  for (const d of dirs) if (d !== '' && existsSync(join(d, 'haproxy'))) return join(d, 'haproxy');
  return null;
}
const HAPROXY = findHaproxy();
const SKIP = HAPROXY === null && !process.env.CI;
if (SKIP) {
  process.stderr.write('test/deploy/replicas.test.ts: SKIPPED: haproxy is not installed (apt-get install haproxy); on CI (CI set) it runs\n');
}

interface Proc {
  child: ChildProcess;
  out: string;
}
const procs: Proc[] = [];
const replicas: { proc: Proc; port: number; url: string; http: string }[] = [];
let front = 0;
let frontUrl = '';
let haproxy: Proc | null = null;
let dir = '';

function start(cmd: string, args: string[]): Proc {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, out: '' };
  child.stdout?.on('data', (b: Buffer) => (p.out += b.toString('utf8')));
  child.stderr?.on('data', (b: Buffer) => (p.out += b.toString('utf8')));
  procs.push(p);
  return p;
}

/** A replica: `harness-gym serve` on a free port; resolves with the port it listens on. */
function serve(): Promise<{ proc: Proc; port: number }> {
  const proc = start(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '0', '--log-level', 'warn', '--resume-grace', '30']);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 20 s: ${proc.out}`)), 20_000);
    proc.child.stdout?.on('data', () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(proc.out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    });
    proc.child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${proc.out}`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** deploy/haproxy.cfg with the frontend on 127.0.0.1:front and r1..r3 on the replicas' ports; nothing else changes. */
function haproxyConfig(frontPort: number, ports: readonly number[]): string {
  let cfg = readFileSync(CFG, 'utf8');
  const subs: [RegExp, string][] = [
    [/^(\s*bind ):8080$/m, `$1127.0.0.1:${frontPort}`],
    ...ports.map((p, i): [RegExp, string] => [new RegExp(`^(\\s*server r${i + 1} )127\\.0\\.0\\.1:808${i + 1}( cookie r${i + 1})$`, 'm'), `$1127.0.0.1:${p}$2`]),
  ];
  for (const [re, to] of subs) {
    const global = new RegExp(re.source, 'gm');
    expect(cfg.match(global)?.length, `deploy/haproxy.cfg: ${re.source} must match once`).toBe(1);
    cfg = cfg.replace(re, to);
  }
  return cfg;
}

async function metric(http: string, name: string): Promise<number> {
  const text = await (await fetch(`${http}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return Number(line?.slice(name.length + 1) ?? NaN);
}

const resets = (): Promise<number[]> => Promise.all(replicas.map((r) => metric(r.http, 'harness_gym_resets_total')));

/** Wait until `check` resolves true, polling. */
async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; haproxy said: ${haproxy?.out ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A raw WebSocket connection (JSON frames), optionally with a Cookie header; resolves with it and its Set-Cookie. */
function rawConnect(url: string, cookie?: string): Promise<{ ws: WebSocket; setCookie: string[]; next: () => Promise<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, cookie ? { headers: { cookie } } : {});
    let setCookie: string[] = [];
    const queue: Record<string, unknown>[] = [];
    const waiting: ((m: Record<string, unknown>) => void)[] = [];
    ws.on('upgrade', (res) => (setCookie = res.headers['set-cookie'] ?? []));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Record<string, unknown>;
      const w = waiting.shift();
      if (w) w(m);
      else queue.push(m);
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        setCookie,
        next: () => new Promise((res) => (queue.length > 0 ? res(queue.shift() as Record<string, unknown>) : waiting.push(res))),
      }),
    );
  });
}

/** An action that keeps an episode going: a call of a tool that does not exist (a tool error, not a wire error). */
const TOOL_ERROR_ACTION = {
  message: { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'no_such_tool', arguments: '{}' } }] },
};

beforeAll(async () => {
  if (SKIP) return;
  expect(HAPROXY, 'haproxy must be installed on CI (.ci/run installs it)').not.toBeNull();
  expect(existsSync(CLI), 'dist/ must be built (npm test builds it first)').toBe(true);
  const started = await Promise.all([serve(), serve(), serve()]);
  for (const s of started) {
    replicas.push({ proc: s.proc, port: s.port, url: `ws://127.0.0.1:${s.port}/v1/env`, http: `http://127.0.0.1:${s.port}` });
  }
  front = await freePort();
  frontUrl = `ws://127.0.0.1:${front}/v1/env`;
  dir = mkdtempSync(join(tmpdir(), 'hgym-haproxy-'));
  const cfgFile = join(dir, 'haproxy.cfg');
  writeFileSync(cfgFile, haproxyConfig(front, replicas.map((r) => r.port)));
  await run(HAPROXY as string, ['-c', '-q', '-f', cfgFile]);
  haproxy = start(HAPROXY as string, ['-db', '-f', cfgFile]);
  // Up when /readyz answers through it and every replica has passed its health checks (rise 2).
  await until('haproxy', async () => (await fetch(`http://127.0.0.1:${front}/readyz`)).status === 200);
}, 40_000);

afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null && p.child.pid) process.kill(p.child.pid, 'SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('three replicas and HAProxy on loopback', () => {
  it('eval through the sharding client (--url x3) and through HAProxy (one --url) prints the in-process line', async () => {
    const args = [CLI, 'eval', '--policy', 'random', '--variant', 'train', '--faults', '0.1', '--episodes', '60', '--seed', '7', '--json'];
    const before = await resets();
    const [local, sharded] = await Promise.all([
      run(process.execPath, args, { cwd: ROOT }),
      run(process.execPath, [...args, ...replicas.flatMap((r) => ['--url', r.url])], { cwd: ROOT }),
    ]);
    const afterSharded = await resets();
    const routed = await run(process.execPath, [...args, '--url', frontUrl], { cwd: ROOT });
    const afterRouted = await resets();

    expect(JSON.parse(local.stdout)).toMatchObject({ policy: 'random', variant: 'train', episodes: 60 });
    expect(sharded.stdout).toBe(local.stdout);
    expect(routed.stdout).toBe(local.stdout);
    // Sharded: every replica played some of the 60 episodes (by the rule: the seeds' keys over the three URLs).
    const spread = afterSharded.map((n, i) => n - (before[i] as number));
    const expected = [0, 0, 0];
    for (let i = 0; i < 60; i++) expected[shardIndex(String(7 + i), 3)]++;
    expect(spread).toEqual(expected);
    expect(Math.min(...spread)).toBeGreaterThan(0);
    // Through HAProxy: one session, so one replica played all 60.
    expect(afterRouted.map((n, i) => n - (afterSharded[i] as number)).sort((a, b) => a - b)).toEqual([0, 0, 60]);
  });

  it('a resume on a new connection through HAProxy reaches the replica that holds the session', async () => {
    // A session through HAProxy: the 101 pins it with the hgym_replica cookie.
    const a = await rawConnect(frontUrl);
    const pin = a.setCookie.map((c) => c.split(';')[0] as string).find((c) => c.startsWith('hgym_replica='));
    expect(pin, `Set-Cookie of the upgrade: ${a.setCookie.join(' | ')}`).toMatch(/^hgym_replica=r[123]$/);
    const home = Number((pin as string).slice('hgym_replica=r'.length)) - 1;
    a.ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1 }));
    const welcome = await a.next();
    const sessionId = welcome.session_id as string;
    a.ws.send(JSON.stringify({ type: 'reset', id: 2, items: [{ episode_id: 'r-1', seed: 41 }] }));
    expect(((await a.next()).items as { ok: boolean }[])[0]?.ok).toBe(true);
    a.ws.send(JSON.stringify({ type: 'step', id: 3, items: [{ episode_id: 'r-1', action: TOOL_ERROR_ACTION }] }));
    const first = ((await a.next()).items as StepResultItem[])[0] as StepResultItem;
    expect(first).toMatchObject({ ok: true, terminated: false, truncated: false, info: { turn: 1 } });
    // Drop it (no close frame): the session waits for a resume on its replica.
    a.ws.terminate();
    await new Promise((r) => setTimeout(r, 300));

    // No other replica holds it: a resume there is UNKNOWN_SESSION.
    const other = replicas[(home + 1) % 3] as (typeof replicas)[number];
    const wrong = await rawConnect(other.url);
    wrong.ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1, resume: sessionId }));
    expect(await wrong.next()).toMatchObject({ type: 'error', error: { code: 'UNKNOWN_SESSION' } });
    wrong.ws.terminate();

    // Through HAProxy with the cookie: resumed on its replica, and the episode goes on (turn 2).
    const b = await rawConnect(frontUrl, pin);
    b.ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1, resume: sessionId }));
    expect(await b.next()).toMatchObject({ type: 'welcome', session_id: sessionId, resumed: true });
    b.ws.send(JSON.stringify({ type: 'step', id: 2, items: [{ episode_id: 'r-1', action: TOOL_ERROR_ACTION }] }));
    expect(((await b.next()).items as StepResultItem[])[0]).toMatchObject({ ok: true, episode_id: 'r-1', info: { turn: 2 } });
    b.ws.close();

    // HarnessGymClient does the same by itself: six sessions over the replicas, every connection dropped
    // and resumed through HAProxy, every episode goes on in its session.
    const clients = await Promise.all(
      Array.from({ length: 6 }, () => HarnessGymClient.connect(frontUrl, { reconnect: { retries: 4, backoff_ms: 100 }, encoding: 'json' })),
    );
    const sessions = await Promise.all(replicas.map((r) => metric(r.http, 'harness_gym_sessions')));
    expect(sessions.filter((n) => n > 0).length, `sessions per replica: ${sessions.join(', ')}`).toBeGreaterThanOrEqual(2);
    const ids = clients.map((c) => c.sessionId);
    await Promise.all(clients.map((c, i) => c.reset([{ episode_id: `c-${i}`, seed: 100 + i }])));
    for (const [i, r] of (await Promise.all(clients.map((c, i) => c.step([{ episode_id: `c-${i}`, action: TOOL_ERROR_ACTION }])))).entries()) {
      expect(r[0], `client ${i}`).toMatchObject({ ok: true, info: { turn: 1 } });
    }
    for (const c of clients) c.dropConnection();
    const after = await Promise.all(clients.map((c, i) => c.step([{ episode_id: `c-${i}`, action: TOOL_ERROR_ACTION }])));
    after.forEach((r, i) => expect(r[0], `client ${i} after its resume`).toMatchObject({ ok: true, episode_id: `c-${i}`, info: { turn: 2 } }));
    clients.forEach((c, i) => {
      expect(c.sessionId).toBe(ids[i]);
      expect(c.welcome.resumed).toBe(true);
    });
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a replica killed under the sharding client fails only its episodes (REPLICA_DOWN), and new ones go to the survivors', async () => {
    const urls = replicas.map((r) => r.url);
    const downs: { index: number; error: string }[] = [];
    const sc = await ShardedClient.connect(urls, {
      rejoin: { retries: 2, backoff_ms: 200 },
      onReplica: (r, e) => {
        if (e) downs.push({ index: r.index, error: e.code });
      },
    });
    // 30 seeded episodes and a GRPO group of 4 siblings (same group, same seed): the group lands together.
    const items = [
      ...Array.from({ length: 30 }, (_, i) => ({ episode_id: `k-${i}`, seed: 1000 + i })),
      ...Array.from({ length: 4 }, (_, i) => ({ episode_id: `g-${i}`, seed: 5000, group_id: 'grpo-1' })),
    ];
    const reset = await sc.reset(items);
    expect(reset.every((r) => r.ok)).toBe(true);
    const home = items.map((it) => sc.replicaOf(it.episode_id) as number);
    items.forEach((it, i) => expect(home[i]).toBe(shardIndex(shardKey(it) as string, urls.length)));
    expect(new Set(home.slice(30)).size).toBe(1);
    expect(new Set(home).size).toBe(3);
    const step = (ids: readonly string[]): Promise<StepResultItem[]> =>
      sc.step(ids.map((episode_id): StepItem => ({ episode_id, action: TOOL_ERROR_ACTION })));
    const all = items.map((it) => it.episode_id);
    expect((await step(all)).every((r) => r.ok)).toBe(true);

    // Kill the replica of episode k-0 while a step of every episode is in flight.
    const victim = home[0] as number;
    const victimUrl = urls[victim] as string;
    const t0 = Date.now();
    const inFlight = step(all);
    process.kill(replicas[victim]?.proc.child.pid as number, 'SIGKILL');
    const first = await inFlight;
    const second = await step(all.filter((_, i) => first[i]?.ok));
    const failedAt = Date.now() - t0;
    const byId = new Map<string, StepResultItem>();
    for (const r of [...first, ...second]) if (r.episode_id !== undefined && (!byId.has(r.episode_id) || !r.ok)) byId.set(r.episode_id, r);
    items.forEach((it, i) => {
      const r = byId.get(it.episode_id) as StepResultItem;
      if (home[i] !== victim) {
        expect(r, `${it.episode_id} on a survivor`).toMatchObject({ ok: true });
        return;
      }
      expect(isItemError(r), `${it.episode_id} on the killed replica`).toBe(true);
      const e = (r as ItemError).error;
      expect(e.code).toBe('REPLICA_DOWN');
      expect(e.message).toContain(`replica ${victimUrl} went down; episode ${it.episode_id} is lost`);
      expect(e.details).toMatchObject({ replica: victimUrl });
    });
    expect(failedAt, 'the killed replica is given up within the resume policy (3 attempts from 200 ms)').toBeLessThan(10_000);
    expect(downs.map((d) => d.index)).toContain(victim);
    expect(sc.replicas[victim]).toMatchObject({ state: 'down', url: victimUrl });
    expect(sc.liveUrls).toEqual(urls.filter((_, i) => i !== victim));

    // New episodes and a new GRPO group: all on the survivors, all answered.
    const fresh = [
      ...Array.from({ length: 30 }, (_, i) => ({ episode_id: `n-${i}`, seed: 2000 + i })),
      ...Array.from({ length: 3 }, (_, i) => ({ episode_id: `h-${i}`, seed: 6000, group_id: 'grpo-2' })),
    ];
    const again = await sc.reset(fresh);
    expect(again.every((r) => r.ok)).toBe(true);
    const placed = fresh.map((it) => sc.replicaOf(it.episode_id));
    const survivors = [0, 1, 2].filter((i) => i !== victim);
    fresh.forEach((it, i) => expect(placed[i]).toBe(survivors[shardIndex(shardKey(it) as string, 2)]));
    expect(new Set(placed.slice(30)).size).toBe(1);
    expect((await step(fresh.map((f) => f.episode_id))).every((r) => r.ok)).toBe(true);
    // The survivors' own episodes went on all along.
    const closed = await sc.closeEpisodes([...all, ...fresh.map((f) => f.episode_id)]);
    expect(closed.unknown.sort()).toEqual(items.filter((_, i) => home[i] === victim).map((it) => it.episode_id).sort());
    await sc.disconnect();

    // Through HAProxy, a connection pinned to the dead replica is redispatched to a live one (a new session).
    const pinned = await rawConnect(frontUrl, `hgym_replica=r${victim + 1}`);
    pinned.ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1 }));
    expect(await pinned.next()).toMatchObject({ type: 'welcome', resumed: false });
    pinned.ws.close();
  });

  it('evaluateRemote over the replicas, one killed mid-run, plays its episodes again and gives the in-process summary', async () => {
    // One replica is already dead (the test before): connect finds two up, and one of them dies mid-run.
    const live = replicas.filter((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null);
    expect(live.length).toBe(2);
    const victim = live[1] as (typeof live)[number];
    const opts: EvalOptions = { policy: POLICIES.get('random')!, episodes: 60, seed: 11, variant: 'train', faults: 0.1 };
    const local = evaluate(opts);
    let inFlightOnVictim = -1;
    const downs: number[] = [];
    const seen = new Set<string>();
    let replayed = 0;
    const remote = await evaluateRemote({
      ...opts,
      url: replicas.map((r) => r.url),
      batch: 24,
      client: { rejoin: { retries: 1, backoff_ms: 100 }, onReplica: (r, e) => e && downs.push(r.index) },
      onShards: (sc) => {
        const reset = sc.reset.bind(sc);
        sc.reset = (items) => {
          for (const it of items) {
            if (seen.has(it.episode_id as string)) replayed++;
            seen.add(it.episode_id as string);
          }
          return reset(items);
        };
        const step = sc.step.bind(sc);
        let calls = 0;
        sc.step = (items) => {
          const p = step(items);
          if (++calls === 3) {
            inFlightOnVictim = sc.replicas[replicas.indexOf(victim)]?.episodes ?? 0;
            process.kill(victim.proc.child.pid as number, 'SIGKILL');
          }
          return p;
        };
      },
    });
    expect(inFlightOnVictim).toBeGreaterThan(0);
    // The victim's unfinished episodes were reset again, on the survivor.
    expect(replayed).toBeGreaterThan(0);
    expect(replayed).toBeLessThanOrEqual(inFlightOnVictim);
    expect(downs).toContain(replicas.indexOf(victim));
    expect(JSON.stringify(remote)).toBe(JSON.stringify(local));
  });
});
