#!/usr/bin/env node
/**
 * The `harness-gym` a docs block runs (test/docs/command-blocks.test.ts puts wrappers named `harness-gym`,
 * `npx`, `python3` and `python` first on the block's PATH; this file is what the first two exec).
 *
 * - `doc-shell.mjs hg ARGS`: the built CLI with ARGS. The block's text has had the docs' ports replaced
 *   already; a `serve`, `policy` or `view` that names no `--port` gets the free port standing in for its
 *   default one (8080, 8000, 8090), and `--host 0.0.0.0` becomes 127.0.0.1 (the tests listen on loopback
 *   only). A server writes `server-<pid>` (its port) in $HG_STATE, logs to `log-<port>`, and
 *   `exit-<pid>` when it ends, so that `up` can tell started from dead.
 * - A command that only reads the repository's files and prints (`audit`, `calibrate`, `check`,
 *   `consistency`, `mix`, `variants`, `task`, `harness validate|diff|cost`, an in-process `eval` without
 *   `--record`) runs once per test run ($HG_CACHE): a doc that runs the same line again (README and
 *   docs/REWARDS.md both run `audit`) gets its output and exit code. The commands are deterministic (the
 *   golden digest and the determinism tests hold them to it), so this changes no result, only the time.
 * - `doc-shell.mjs up PID...`: waits until every background job PID that is a server listens (or fails
 *   naming the one that exited). The test inserts it after each line that starts a background job.
 *
 * Plain JavaScript, run by node directly: the wrappers exec it, so a background job's PID is this process.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const [mode, ...args] = process.argv.slice(2);
const STATE = process.env.HG_STATE;
const CLI = process.env.HG_CLI;
const PORTS = JSON.parse(process.env.HG_PORTS ?? '{}');
const DEFAULT_PORT = { serve: '8080', policy: '8000', view: '8090' };

function canConnect(port) {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: Number(port) });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

async function up(pids) {
  const deadline = Date.now() + 60_000;
  for (const pid of pids) {
    for (;;) {
      const portFile = join(STATE, `server-${pid}`);
      const exitFile = join(STATE, `exit-${pid}`);
      if (existsSync(exitFile)) {
        const port = existsSync(portFile) ? readFileSync(portFile, 'utf8') : '?';
        const log = existsSync(join(STATE, `log-${port}`)) ? readFileSync(join(STATE, `log-${port}`), 'utf8') : '';
        process.stderr.write(`docs-test: the background server ${pid} exited (${readFileSync(exitFile, 'utf8')}): ${log.slice(-2000)}\n`);
        process.exit(1);
      }
      if (existsSync(portFile) && (await canConnect(readFileSync(portFile, 'utf8')))) break;
      if (!existsSync(portFile) && !alive(pid)) break; // a background job that is not a server, done
      if (Date.now() > deadline) {
        process.stderr.write(`docs-test: the background job ${pid} did not start listening in 60 s\n`);
        process.exit(1);
      }
      await sleep(100);
    }
  }
}

/** Whether a command's output is a function of its arguments and the repository's files alone. */
function pure(argv) {
  const [sub, verb] = argv;
  if (['audit', 'calibrate', 'check', 'consistency', 'mix', 'variants', 'task'].includes(sub)) return !argv.includes('--out');
  if (sub === 'harness') return ['validate', 'diff', 'cost'].includes(verb);
  if (sub === 'eval') return !argv.some((a) => /^--(record|url|out)\b/.test(a));
  return false;
}

async function cached(argv) {
  const dir = join(process.env.HG_CACHE, createHash('sha256').update(JSON.stringify(argv)).digest('hex'));
  let mine = true;
  try {
    mkdirSync(dir);
  } catch {
    mine = false;
  }
  if (!mine) {
    while (!existsSync(join(dir, 'done'))) await sleep(200);
    process.stdout.write(readFileSync(join(dir, 'stdout')));
    process.stderr.write(readFileSync(join(dir, 'stderr')));
    process.exitCode = Number(readFileSync(join(dir, 'done'), 'utf8'));
    return;
  }
  const child = spawn(process.execPath, [CLI, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  const err = [];
  child.stdout.on('data', (d) => (out.push(d), process.stdout.write(d)));
  child.stderr.on('data', (d) => (err.push(d), process.stderr.write(d)));
  child.on('close', (code, signal) => {
    writeFileSync(join(dir, 'stdout'), Buffer.concat(out));
    writeFileSync(join(dir, 'stderr'), Buffer.concat(err));
    const c = code ?? (signal ? 128 : 1);
    writeFileSync(join(dir, 'done'), String(c));
    process.exitCode = c;
  });
}

function hg(argv) {
  const sub = argv[0];
  if (process.env.HG_CACHE && pure(argv)) return cached(argv);
  const server = Object.hasOwn(DEFAULT_PORT, sub);
  if (server) {
    if (!argv.some((a) => a === '--port' || a.startsWith('--port='))) argv.push('--port', String(PORTS[DEFAULT_PORT[sub]]));
    for (let i = 0; i < argv.length - 1; i++) if (argv[i] === '--host' && argv[i + 1] === '0.0.0.0') argv[i + 1] = '127.0.0.1';
  }
  const port = server ? argv[argv.indexOf('--port') + 1] : '';
  const stdio = server ? ['ignore', openSync(join(STATE, `log-${port}`), 'a'), openSync(join(STATE, `log-${port}`), 'a')] : 'inherit';
  const child = spawn(process.execPath, [CLI, ...argv], { stdio });
  if (server) writeFileSync(join(STATE, `server-${process.pid}`), port);
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (server) writeFileSync(join(STATE, `exit-${process.pid}`), String(code ?? signal));
    process.exit(code ?? 1);
  });
}

if (mode === 'hg') await hg(args);
else if (mode === 'up') await up(args);
else {
  process.stderr.write(`doc-shell.mjs: unknown mode ${mode}\n`);
  process.exit(2);
}
