/**
 * The cluster's HAProxy config (deploy/k8s/haproxy-k8s.cfg) run for real on loopback, with what Kubernetes
 * would give it played by the test: a DNS server that answers the headless Service's name
 * (harness-gym-replicas.default.svc.cluster.local) with three addresses, 127.0.0.11-13, each a
 * `harness-gym serve` on the same port, as pods are. Only the resolver's address (the pod's resolv.conf),
 * the frontend's bind and the template's port are substituted. Checked: HAProxy finds the three replicas
 * through DNS and balances new sessions over them; the pin is a dynamic cookie (not a fixed server name);
 * a session dropped behind one HAProxy instance is resumed through another one with the same config (the
 * two HAProxy pods of deploy/k8s/haproxy.yaml), and through the same one by the TypeScript client again and
 * again. Skipped (with a message) only where haproxy is not installed and CI is not set.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HarnessGymClient, isItemError } from '../../client/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const CFG = join(ROOT, 'deploy', 'k8s', 'haproxy-k8s.cfg');
const NAME = 'harness-gym-replicas.default.svc.cluster.local';
const ADDRESSES = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
const HAPROXY = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p)) ?? null;
const SKIP = HAPROXY === null && !process.env.CI;
if (SKIP)
  process.stderr.write('test/deploy/k8s-haproxy.test.ts: SKIPPED: haproxy is not installed (apt-get install haproxy); on CI it runs\n');

interface Proc {
  child: ChildProcess;
  out: string;
}
const procs: Proc[] = [];
let dns: Socket | null = null;
let dir = '';
let port = 0;
const fronts: number[] = [];

function start(cmd: string, args: string[]): Proc {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, out: '' };
  child.stdout?.on('data', (b: Buffer) => (p.out += b.toString('utf8')));
  child.stderr?.on('data', (b: Buffer) => (p.out += b.toString('utf8')));
  procs.push(p);
  return p;
}

function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** A DNS server for one name: its A query answered with `ADDRESSES`, anything else with no answer. */
function dnsServer(): Promise<{ socket: Socket; port: number }> {
  const socket = createSocket('udp4');
  socket.on('message', (q, from) => {
    // Header (12 bytes), then the question: labels, type, class.
    let at = 12;
    const labels: string[] = [];
    while (q[at] !== 0 && at < q.length) {
      const n = q[at] as number;
      labels.push(q.subarray(at + 1, at + 1 + n).toString('ascii'));
      at += n + 1;
    }
    const qtype = q.readUInt16BE(at + 1);
    const question = q.subarray(12, at + 5);
    const name = labels.join('.').toLowerCase();
    const known = name === NAME;
    const answers = known && qtype === 1 ? ADDRESSES : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.readUInt16BE(0), 0); // id
    header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // response, recursion desired and available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((a) => {
      const r = Buffer.alloc(16);
      r.writeUInt16BE(0xc00c, 0); // the question's name
      r.writeUInt16BE(1, 2); // A
      r.writeUInt16BE(1, 4); // IN
      r.writeUInt32BE(5, 6); // TTL
      r.writeUInt16BE(4, 10);
      a.split('.').forEach((b, i) => r.writeUInt8(Number(b), 12 + i));
      return r;
    });
    socket.send(Buffer.concat([header, question, ...records]), from.port, from.address);
  });
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve({ socket, port: socket.address().port })));
}

/** haproxy-k8s.cfg with the resolver at 127.0.0.1:dnsPort, the frontend on 127.0.0.1:front and the replicas' port. */
function config(front: number, dnsPort: number): string {
  let cfg = readFileSync(CFG, 'utf8');
  const subs: [RegExp, string][] = [
    [/^(\s*)parse-resolv-conf$/m, `$1nameserver test 127.0.0.1:${dnsPort}`],
    [/^(\s*bind ):8080$/m, `$1127.0.0.1:${front}`],
    [new RegExp(`^(\\s*server-template r \\d+ ${NAME.replace(/\./g, '\\.')}):8080$`, 'm'), `$1:${port}`],
  ];
  for (const [re, to] of subs) {
    expect(cfg.match(new RegExp(re.source, 'gm'))?.length, `haproxy-k8s.cfg: ${re.source} must match once`).toBe(1);
    cfg = cfg.replace(re, to);
  }
  return cfg;
}

async function sessions(address: string): Promise<number> {
  const text = await (await fetch(`http://${address}:${port}/metrics`)).text();
  return Number(/^harness_gym_sessions (\S+)$/m.exec(text)?.[1]);
}

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await ok()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${procs.map((p) => p.out).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A raw WebSocket through a front: `hello` (or a resume), the welcome, the upgrade response's Set-Cookie. */
function hello(
  front: number,
  msg: Record<string, unknown>,
  cookie?: string,
): Promise<{ ws: WebSocket; reply: Record<string, unknown>; setCookie: string[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${front}/v1/env`, cookie ? { headers: { cookie } } : {});
    let setCookie: string[] = [];
    ws.on('upgrade', (res) => (setCookie = res.headers['set-cookie'] ?? []));
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', id: 1, protocol: 1, ...msg })));
    ws.on('message', (data) => resolve({ ws, reply: JSON.parse(String(data)) as Record<string, unknown>, setCookie }));
    ws.on('error', reject);
  });
}

describe.skipIf(SKIP)('deploy/k8s/haproxy-k8s.cfg: replicas found through DNS, sessions pinned by a dynamic cookie', () => {
  beforeAll(async () => {
    expect(HAPROXY, 'haproxy must be installed on CI (.ci/run installs it)').not.toBeNull();
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.build.json; npm test does)`);
    port = await freePort(ADDRESSES[0]);
    for (const address of ADDRESSES) {
      const p = start(process.execPath, [CLI, 'serve', '--host', address, '--port', String(port), '--workers', '0', '--log-level', 'warn']);
      await until(`serve on ${address}`, async () => /listening on/.test(p.out));
    }
    const server = await dnsServer();
    dns = server.socket;
    dir = mkdtempSync(join(tmpdir(), 'hgym-k8s-haproxy-'));
    // Two HAProxy instances with the same config, as the two pods of deploy/k8s/haproxy.yaml.
    for (let i = 0; i < 2; i++) {
      const front = await freePort();
      const file = join(dir, `haproxy-${i}.cfg`);
      writeFileSync(file, config(front, server.port));
      start(HAPROXY as string, ['-db', '-f', file]);
      fronts.push(front);
    }
    // Every front reaches a replica once DNS has filled the template's slots and their checks passed.
    for (const front of fronts)
      await until(`haproxy on ${front}`, async () => (await fetch(`http://127.0.0.1:${front}/readyz`)).status === 200);
  }, 90_000);

  afterAll(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    dns?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('new sessions are balanced over the three addresses DNS gave, and pinned by a dynamic cookie', async () => {
    const open: WebSocket[] = [];
    const cookies = new Set<string>();
    try {
      await until(
        'sessions on all three replicas',
        async () => {
          const { ws, reply, setCookie } = await hello(fronts[0] as number, {});
          open.push(ws);
          expect(reply.type).toBe('welcome');
          for (const c of setCookie) cookies.add(c.split(';')[0] as string);
          const counts = await Promise.all(ADDRESSES.map(sessions));
          return counts.every((n) => n > 0);
        },
        30_000,
      );
      // One cookie value per replica; derived from its address (hex), not a fixed server name like r1.
      expect(cookies.size).toBe(3);
      for (const c of cookies) expect(c).toMatch(/^hgym_replica=[0-9a-f]{16}$/);
    } finally {
      for (const ws of open) ws.close();
    }
  }, 60_000);

  it('a session dropped behind one HAProxy is resumed through the other, on its replica', async () => {
    for (let n = 0; n < 4; n++) {
      const first = await hello(fronts[0] as number, {});
      const session = first.reply.session_id as string;
      const cookie = (first.setCookie[0] as string).split(';')[0] as string;
      first.ws.terminate(); // a drop: the session waits for a resume
      const again = await hello(fronts[1] as number, { resume: session }, cookie);
      expect(again.reply, `try ${n}`).toMatchObject({ type: 'welcome', session_id: session, resumed: true });
      again.ws.close();
    }
  }, 60_000);

  it("the TypeScript client's resumes through it keep the session and its episode", async () => {
    const client = await HarnessGymClient.connect(`ws://127.0.0.1:${fronts[0]}/v1/env`, { reconnect: { retries: 5, backoff_ms: 50 } });
    try {
      const session = client.sessionId;
      const [reset] = await client.reset([{ episode_id: 'k', seed: 3, variant: 'train' }]);
      expect(isItemError(reset as never)).toBe(false);
      for (let n = 0; n < 5; n++) {
        client.dropConnection();
        await new Promise((r) => setTimeout(r, 50));
        const closed = await client.closeEpisodes(n === 4 ? ['k'] : []);
        expect(client.sessionId).toBe(session);
        if (n === 4) expect(closed.episode_ids).toEqual(['k']); // the episode was still there, on that replica
      }
    } finally {
      await client.disconnect();
    }
  }, 60_000);
});
