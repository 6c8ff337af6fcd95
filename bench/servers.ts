/**
 * The servers a bench run talks to. The suite asks a `ServerFactory` for them, so that `npm run bench`
 * measures real child processes (`harness-gym serve` from dist/, and dist/bench/echo-server.js) while
 * the smoke test runs the same suite against in-process servers.
 */
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, waitReady } from './observe.js';

/** A running server under test. */
export interface ServerHandle {
  /** `ws://127.0.0.1:P/v1/env` */
  wsUrl: string;
  /** `http://127.0.0.1:P` */
  httpUrl: string;
  /** The process whose memory is measured; null when it cannot be told apart from the bench's. */
  pid: number | null;
  close(): Promise<void>;
}

/** How the environment server is configured for a phase. */
export interface EnvServerOptions {
  /** `serve --workers` (0 = in-process, "auto"); null omits the flag (a server without it). */
  workers: number | 'auto' | null;
  maxSessions: number;
  maxEpisodes: number;
  maxBatch: number;
  /** `serve --worker-heap-mb` (each worker's heap limit, MiB); null or absent omits the flag. */
  workerHeapMb?: number | 'v8' | null;
  /** `serve --scheduling`; null or absent omits the flag. */
  scheduling?: 'steps_first' | 'arrival' | null;
}

/** Where the suite gets its servers. */
export interface ServerFactory {
  /** Whether the environment server understands `--workers`. */
  readonly workersSupported: boolean;
  env(opts: EnvServerOptions): Promise<ServerHandle>;
  echo(corpusPath: string): Promise<ServerHandle>;
}

/** The built CLI (dist/cli/main.js), next to this file's dist/bench/. */
const CLI_MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));
/** The built echo server (dist/bench/echo-server.js). */
const ECHO_MAIN = fileURLToPath(new URL('./echo-server.js', import.meta.url));

/** Copy a child's output to our stderr, line by line with a prefix (stdout stays the JSON line's alone). */
function forward(child: ChildProcess, prefix: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        process.stderr.write(`${prefix}${buf.slice(0, nl)}\n`);
        buf = buf.slice(nl + 1);
      }
    });
  }
}

/** SIGTERM (graceful), then SIGKILL if the process has not exited within `graceMs`. */
function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Start a child process serving on a free port and wait for its /readyz; a child that exits before it is
 * ready is started once more (on a busy shared machine a start-up can miss the server's own plugin
 * timeout, or read dist/ while a build rewrites it), and a second such exit fails the bench.
 */
async function startChild(args: string[], prefix: string, portArgs: (port: number) => string[]): Promise<ServerHandle> {
  try {
    return await startChildOnce(args, prefix, portArgs);
  } catch (e) {
    if (!(e as Error).message.includes('exited before it was ready')) throw e;
    process.stderr.write(`${prefix}exited before it was ready; starting it once more\n`);
    return startChildOnce(args, prefix, portArgs);
  }
}

/**
 * Node flags for the servers the bench starts, from HGYM_BENCH_NODE_ARGS (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under a phase's load (Node refuses
 * --cpu-prof in NODE_OPTIONS). Unset: none.
 */
function childNodeArgs(): string[] {
  const v = process.env.HGYM_BENCH_NODE_ARGS?.trim();
  return v ? v.split(/\s+/) : [];
}

async function startChildOnce(args: string[], prefix: string, portArgs: (port: number) => string[]): Promise<ServerHandle> {
  const port = await freePort();
  const child = spawn(process.execPath, [...childNodeArgs(), ...args, ...portArgs(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  forward(child, prefix);
  const httpUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(httpUrl, 30_000, () => child.exitCode === null && child.signalCode === null);
  } catch (e) {
    await stopChild(child, 1000);
    throw e;
  }
  return { wsUrl: `ws://127.0.0.1:${port}/v1/env`, httpUrl, pid: child.pid ?? null, close: () => stopChild(child) };
}

/** Does this build's `serve` accept `--workers`? (The flag lands with the worker pool; older builds reject it.) */
function serveHasWorkers(): boolean {
  try {
    return execFileSync(process.execPath, [CLI_MAIN, 'serve', '--help'], { encoding: 'utf8' }).includes('--workers');
  } catch {
    return false;
  }
}

/** Servers as child processes of the bench, from the built dist/. */
export function childProcessServers(): ServerFactory {
  const workersSupported = serveHasWorkers();
  return {
    workersSupported,
    env(opts) {
      const args = [CLI_MAIN, 'serve', '--host', '127.0.0.1', '--log-level', 'warn', '--allow-oracle-hints'];
      args.push(
        '--max-sessions',
        String(opts.maxSessions),
        '--max-episodes',
        String(opts.maxEpisodes),
        '--max-batch',
        String(opts.maxBatch),
      );
      if (opts.workers !== null && workersSupported) args.push('--workers', String(opts.workers));
      if (opts.workerHeapMb != null) args.push('--worker-heap-mb', String(opts.workerHeapMb));
      if (opts.scheduling != null) args.push('--scheduling', opts.scheduling);
      return startChild(args, '[serve] ', (p) => ['--port', String(p)]);
    },
    echo(corpusPath) {
      return startChild([ECHO_MAIN, '--corpus', corpusPath, '--host', '127.0.0.1'], '[echo] ', (p) => ['--port', String(p)]);
    },
  };
}
