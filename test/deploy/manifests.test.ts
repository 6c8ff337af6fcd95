/**
 * The container image and the Kubernetes manifests (Dockerfile, deploy/k8s/), checked without a cluster or
 * a Docker engine: every manifest parses; the probes' paths are routes of a real server, started from the
 * built CLI with the Deployment's own `args` (host and port moved to loopback), and so is the image's
 * HEALTHCHECK, run as written; the ports agree (EXPOSE, CMD, containerPort, Services, HAProxy); the
 * headless Service selects the server pods and the other one the HAProxy pods; preStop, the grace period
 * (longer than preStop plus a drain measured here with SIGTERM) and resources are set; the HAProxy config
 * of the cluster keeps every line of deploy/haproxy.cfg but the replica list and passes `haproxy -c`
 * (where haproxy is installed; on CI it must be). test/deploy/k8s-haproxy.test.ts runs that config.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

type Obj = Record<string, any>;

/** Every document of every manifest in deploy/k8s, by file. */
function manifests(): Map<string, Obj[]> {
  const out = new Map<string, Obj[]>();
  for (const file of readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const docs = parseAllDocuments(readFileSync(join(K8S, file), 'utf8'));
    for (const d of docs) if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    out.set(
      file,
      docs.map((d) => d.toJS() as Obj).filter((d) => d !== null),
    );
  }
  return out;
}

const files = manifests();
const all = [...files.values()].flat();
function one(kind: string, name: string): Obj {
  const found = all.filter((o) => o.kind === kind && o.metadata?.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0] as Obj;
}
const server = one('Deployment', 'harness-gym-server');
const router = one('Deployment', 'harness-gym-router');
const headless = one('Service', 'harness-gym-replicas');
const front = one('Service', 'harness-gym');
const serverPod = server.spec.template.spec as Obj;
const serverContainer = serverPod.containers[0] as Obj;
const routerContainer = router.spec.template.spec.containers[0] as Obj;

/** The Dockerfile's instructions (continuation lines joined, comments dropped). */
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
function instructions(name: string): string[] {
  return dockerfile.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
}
/** The JSON array of an exec-form instruction (throws on the shell form). */
function execForm(text: string): string[] {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error(`not exec form: ${text}`);
  return parsed as string[];
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** A container port number by name or number. */
function portOf(container: Obj, ref: string | number): number {
  if (typeof ref === 'number') return ref;
  const p = (container.ports as Obj[]).find((x) => x.name === ref);
  if (!p) throw new Error(`no port named ${ref}`);
  return p.containerPort as number;
}

describe('Dockerfile', () => {
  it('is multi-stage (npm ci, the build, a runtime), non-root, and starts node directly (exec form)', () => {
    const stages = instructions('FROM');
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(stages.at(-1)).toMatch(/ AS runtime$/);
    expect(instructions('RUN').some((r) => /^npm ci\b/.test(r))).toBe(true);
    expect(instructions('RUN').some((r) => r.includes('tsc -p tsconfig.build.json'))).toBe(true);
    const user = instructions('USER').at(-1) as string;
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric and not root, so that runAsNonRoot can check it
    expect(execForm(instructions('ENTRYPOINT').at(-1) as string)).toEqual(['node', 'dist/cli/main.js']);
    const cmd = execForm(instructions('CMD').at(-1) as string);
    expect(cmd[0]).toBe('serve');
    expect(flag(cmd, '--host')).toBe('0.0.0.0');
    expect(instructions('EXPOSE')).toEqual([flag(cmd, '--port')]);
    const health = instructions('HEALTHCHECK').at(-1) as string;
    expect(health).toMatch(/ CMD \[/);
    expect(health).toContain(`127.0.0.1:${flag(cmd, '--port')}/readyz`);
  });

  it('.dockerignore keeps node_modules, dist and .git out of the build context', () => {
    const lines = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', 'dist', '.git']) expect(lines).toContain(p);
  });
});

describe('Kubernetes manifests (deploy/k8s)', () => {
  it('parse, and the kustomization lists every manifest and the HAProxy config file', () => {
    const kustomizations = all.filter((o) => o.kind === 'Kustomization');
    expect(kustomizations.length).toBe(1);
    const kustomization = kustomizations[0] as Obj;
    expect(new Set(kustomization.resources)).toEqual(new Set([...files.keys()].filter((f) => f !== 'kustomization.yaml')));
    const generator = (kustomization.configMapGenerator as Obj[]).find(
      (g) => g.name === router.spec.template.spec.volumes[0].configMap.name,
    ) as Obj;
    expect(generator.files).toEqual(['haproxy.cfg=haproxy-k8s.cfg']);
    expect(existsSync(join(K8S, 'haproxy-k8s.cfg'))).toBe(true);
  });

  it('the server Deployment: 3 replicas, the image ports, probes on /readyz and /healthz, preStop, grace, resources', () => {
    expect(server.spec.replicas).toBe(3);
    const cmd = execForm(instructions('CMD').at(-1) as string);
    const args = serverContainer.args as string[];
    expect(args[0]).toBe('serve');
    expect(flag(args, '--host')).toBe('0.0.0.0');
    const port = Number(flag(args, '--port'));
    expect(port).toBe(Number(flag(cmd, '--port')));
    expect(portOf(serverContainer, 'http')).toBe(port);
    expect(serverContainer.readinessProbe.httpGet.path).toBe('/readyz');
    expect(portOf(serverContainer, serverContainer.readinessProbe.httpGet.port)).toBe(port);
    expect(serverContainer.livenessProbe.httpGet.path).toBe('/healthz');
    expect(portOf(serverContainer, serverContainer.livenessProbe.httpGet.port)).toBe(port);
    expect(serverContainer.lifecycle.preStop.exec.command).toEqual(['sleep', expect.stringMatching(/^\d+$/)]);
    for (const kind of ['requests', 'limits'])
      for (const r of ['cpu', 'memory']) expect(serverContainer.resources[kind][r], `${kind}.${r}`).toBeDefined();
    // As many worker threads as CPUs: `auto` would count the node's cores, not the limit.
    expect(flag(args, '--workers')).toBe(String(serverContainer.resources.limits.cpu));
    // The workers' heap limits fit the memory limit: each worker's old generation plus its 48 MiB young
    // generation, and ~600 MiB for the rest of the process (main thread, buffers, code).
    const limitMiB = Number(/^(\d+)Gi$/.exec(serverContainer.resources.limits.memory)?.[1]) * 1024;
    const heapMb = Number(flag(args, '--worker-heap-mb'));
    expect(heapMb).toBeGreaterThanOrEqual(64);
    expect(Number(flag(args, '--workers')) * (heapMb + 48) + 600).toBeLessThanOrEqual(limitMiB);
    expect(serverPod.securityContext.runAsNonRoot).toBe(true);
    expect(String(serverPod.securityContext.runAsUser)).toBe((instructions('USER').at(-1) as string).split(':')[0]);
    // The pod template's labels are what the selector and the PodDisruptionBudget select.
    const labels = server.spec.template.metadata.labels as Obj;
    expect(labels).toMatchObject(server.spec.selector.matchLabels);
    expect(labels).toMatchObject(one('PodDisruptionBudget', 'harness-gym-server').spec.selector.matchLabels);
  });

  it('the headless Service lists the server pods; the other one goes to HAProxy, on the ports they listen on', () => {
    const serverLabels = server.spec.template.metadata.labels as Obj;
    const routerLabels = router.spec.template.metadata.labels as Obj;
    expect(headless.spec.clusterIP).toBe('None');
    expect(serverLabels).toMatchObject(headless.spec.selector);
    expect(routerLabels).not.toMatchObject(headless.spec.selector);
    expect(portOf(serverContainer, headless.spec.ports[0].targetPort)).toBe(portOf(serverContainer, 'http'));
    expect(front.spec.clusterIP).not.toBe('None');
    expect(routerLabels).toMatchObject(front.spec.selector);
    expect(serverLabels).not.toMatchObject(front.spec.selector);
    expect(routerLabels).toMatchObject(router.spec.selector.matchLabels);
    const cfg = readFileSync(join(K8S, 'haproxy-k8s.cfg'), 'utf8');
    expect(cfg).toContain(`bind :${portOf(routerContainer, front.spec.ports[0].targetPort)}`);
    // HAProxy finds the replicas through the headless Service's name, on the servers' port.
    const template = /^\s*server-template \S+ \d+ (\S+):(\d+)/m.exec(cfg);
    expect(template?.[1]).toMatch(new RegExp(`^${headless.metadata.name}\\.[a-z0-9-]+\\.svc\\.cluster\\.local$`));
    expect(Number(template?.[2])).toBe(headless.spec.ports[0].port);
    expect(routerContainer.volumeMounts[0].mountPath).toBe('/usr/local/etc/haproxy');
    expect(routerContainer.lifecycle.preStop).toBeDefined();
    for (const kind of ['requests', 'limits'])
      for (const r of ['cpu', 'memory']) expect(routerContainer.resources[kind][r], `${kind}.${r}`).toBeDefined();
  });

  it("the cluster's HAProxy config keeps every line of deploy/haproxy.cfg but its server lines", () => {
    const directives = (text: string): string[] =>
      text
        .split('\n')
        .map((l) => l.replace(/#.*$/, '').trim())
        .filter((l) => l !== '');
    const k8s = new Set(directives(readFileSync(join(K8S, 'haproxy-k8s.cfg'), 'utf8')));
    const local = directives(readFileSync(join(ROOT, 'deploy', 'haproxy.cfg'), 'utf8')).filter((l) => !l.startsWith('server '));
    // A line may gain words at its end: the cookie `dynamic` (template slots have no fixed cookie values),
    // default-server its resolver.
    const missing = local.filter((l) => !k8s.has(l) && ![...k8s].some((k) => k.startsWith(`${l} `)));
    expect(missing).toEqual([]);
  });
});

describe('a server started with the Deployment args answers the probes and drains on SIGTERM', () => {
  let child: ChildProcess;
  let base: string;
  let output = '';

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.build.json; npm test does)`);
    const args = [...(serverContainer.args as string[])];
    args[args.indexOf('--host') + 1] = '127.0.0.1';
    args[args.indexOf('--port') + 1] = '0';
    child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HARNESS_GYM_TOKEN: undefined },
    });
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no startup line: ${output}`)), 30_000);
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        output += d;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
    });
  }, 60_000);

  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('readiness, liveness and startup probe paths answer 200', async () => {
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
      const res = await fetch(`${base}${serverContainer[probe].httpGet.path}`);
      expect(res.status, probe).toBe(200);
    }
  });

  it("the image's HEALTHCHECK command, run as written (port moved), exits 0", async () => {
    const health = instructions('HEALTHCHECK').at(-1) as string;
    const cmd = execForm(health.slice(health.indexOf(' CMD ') + 5));
    const port = new URL(base).port;
    const argv = cmd.map((a) => a.replace('127.0.0.1:8080', `127.0.0.1:${port}`));
    expect(argv[0]).toBe('node');
    await expect(run(process.execPath, argv.slice(1), { timeout: 10_000 })).resolves.toBeDefined();
  });

  it('SIGTERM: exit 0 well within terminationGracePeriodSeconds minus preStop', async () => {
    const preStop = Number((serverContainer.lifecycle.preStop.exec.command as string[])[1]);
    const budgetMs = (serverPod.terminationGracePeriodSeconds - preStop) * 1000;
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const took = Date.now() - started;
    expect(took).toBeLessThan(budgetMs / 4);
  }, 60_000);
});

const HAPROXY = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p)) ?? null;
describe.skipIf(HAPROXY === null && !process.env.CI)('haproxy -c', () => {
  it("accepts the cluster's HAProxy config", async () => {
    if (HAPROXY === null) throw new Error('haproxy is not installed (.ci/run installs it)');
    const { stdout, stderr } = await run(HAPROXY, ['-c', '-f', join(K8S, 'haproxy-k8s.cfg')]);
    expect(`${stdout}${stderr}`).toMatch(/Configuration file is valid/);
  });
});
