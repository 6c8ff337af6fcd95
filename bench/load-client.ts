/**
 * Where the load generator runs. `npm run bench` runs it in a child process of its own
 * (`childProcessLoadClient`: this file, built, as `node dist/bench/load-client.js`, commands over IPC), so
 * the timed connections live in a fresh heap, apart from the orchestrator's micro-benchmarks, its plans of
 * earlier phases and its corpus comparisons; the smoke test runs the same phases in-process
 * (`inProcessLoadClient`). Either way a phase is asked for with plain data (no functions): the throughput
 * plans are made where the connections are (the child keeps them across phases), and the echo corpus goes
 * through files.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Corpus } from './corpus.js';
import { PlanCache, runConcurrency, runThroughput } from './load.js';
import type { ConcurrencyOptions, ConcurrencyResult, Log, ThroughputOptions, ThroughputResult } from './load.js';
import { planRound } from './plan.js';

/** A throughput run asked for with data: plans of `planEpisodes` episodes per round from `seed`; replies recorded to `corpusPath`. */
export type ThroughputRequest = Omit<ThroughputOptions, 'plans' | 'corpus' | 'log'> & {
  planEpisodes: number;
  /** Write every step reply item of the timed rounds here (a corpus file, bench/corpus.ts). */
  corpusPath?: string;
  /** Send progress lines to the bench's log. */
  log?: boolean;
};

/** A concurrency run asked for with data. */
export type ConcurrencyRequest = Omit<ConcurrencyOptions, 'log'> & { log?: boolean };

/** Runs load phases. */
export interface LoadClient {
  /** Where it runs, for the summary's params ("child process" or "in-process"). */
  readonly where: 'child process' | 'in-process';
  /** The child's process id (child process only). */
  readonly pid?: number;
  throughput(r: ThroughputRequest): Promise<ThroughputResult>;
  concurrency(r: ConcurrencyRequest): Promise<ConcurrencyResult>;
  close(): Promise<void>;
}

/** The phases themselves, with plans cached by (seed, episodes per round) across calls. */
class Phases {
  readonly #plans = new Map<string, PlanCache>();

  #plansFor(seed: number, episodes: number): PlanCache {
    const key = `${seed}/${episodes}`;
    let p = this.#plans.get(key);
    if (!p) this.#plans.set(key, (p = new PlanCache((c, r) => planRound(seed, c, r, episodes))));
    return p;
  }

  async throughput(r: ThroughputRequest, log: Log): Promise<ThroughputResult> {
    const { planEpisodes, corpusPath, log: wantLog, ...rest } = r;
    const corpus = corpusPath === undefined ? undefined : new Corpus();
    const result = await runThroughput({ ...rest, plans: this.#plansFor(r.seed, planEpisodes), corpus, log: wantLog ? log : undefined });
    if (corpus && corpusPath !== undefined) corpus.write(corpusPath);
    return result;
  }

  concurrency(r: ConcurrencyRequest, log: Log): Promise<ConcurrencyResult> {
    const { log: wantLog, ...rest } = r;
    return runConcurrency({ ...rest, log: wantLog ? log : undefined });
  }
}

/** The phases in this process (tests; `--in-process-client`). */
export function inProcessLoadClient(log: Log = () => undefined): LoadClient {
  const phases = new Phases();
  return {
    where: 'in-process',
    throughput: (r) => phases.throughput(r, log),
    concurrency: (r) => phases.concurrency(r, log),
    close: () => Promise.resolve(),
  };
}

/** Parent -> child. */
type Command =
  { id: number; kind: 'throughput'; request: ThroughputRequest } | { id: number; kind: 'concurrency'; request: ConcurrencyRequest };
/** Child -> parent. */
type Message =
  { kind: 'log'; line: string } | { kind: 'done'; id: number; result: unknown } | { kind: 'failed'; id: number; error: string };

/** The built entry of this file (dist/bench/load-client.js). */
const LOAD_CLIENT_MAIN = fileURLToPath(import.meta.url);

/**
 * The phases in a child process (`node dist/bench/load-client.js`), one command at a time. Its stdout
 * goes to our stderr (our stdout is the JSON line's alone); progress lines come back as messages.
 */
export function childProcessLoadClient(log: Log = () => undefined): LoadClient {
  const child: ChildProcess = spawn(process.execPath, [LOAD_CLIENT_MAIN], { stdio: ['ignore', 2, 2, 'ipc'], serialization: 'advanced' });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  let exited = false;
  child.on('message', (m: Message) => {
    if (m.kind === 'log') return log(m.line);
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.kind === 'done') p.resolve(m.result);
    else p.reject(new Error(`load client: ${m.error}`));
  });
  child.on('exit', (code, signal) => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error(`load client exited (${signal ?? `code ${code}`}) during a phase`));
    pending.clear();
  });
  const ask = (cmd: Omit<Command, 'id'>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (exited) return reject(new Error('load client is not running'));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...cmd, id } as Command);
    });
  return {
    where: 'child process',
    pid: child.pid,
    throughput: async (request) => (await ask({ kind: 'throughput', request })) as ThroughputResult,
    concurrency: async (request) => (await ask({ kind: 'concurrency', request })) as ConcurrencyResult,
    close: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.disconnect(); // the child exits when its IPC channel closes
      }),
  };
}

/** Child entry: run each command, answer it; exit when the parent disconnects. */
function childMain(): void {
  const send = (m: Message): void => {
    process.send?.(m);
  };
  const phases = new Phases();
  const log: Log = (line) => send({ kind: 'log', line });
  let queue: Promise<void> = Promise.resolve();
  process.on('message', (cmd: Command) => {
    queue = queue.then(async () => {
      try {
        const result = cmd.kind === 'throughput' ? await phases.throughput(cmd.request, log) : await phases.concurrency(cmd.request, log);
        send({ kind: 'done', id: cmd.id, result });
      } catch (e) {
        send({ kind: 'failed', id: cmd.id, error: (e as Error).stack ?? String(e) });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.send !== undefined) childMain();
