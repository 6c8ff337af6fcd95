/**
 * `harness-gym serve`: run the WebSocket environment server. The entry point owns the process: it reads
 * flags and `HARNESS_GYM_TOKEN`, prints one startup line, and turns SIGTERM/SIGINT into a graceful
 * shutdown (stop accepting, answer in-flight requests, exit 0).
 *
 * Each numeric or enumerated flag is checked as it is parsed against the bounds of its config key, read
 * from the config schema itself (server/config.ts), so a bad flag is a usage error naming the flag (exit
 * 2) and whatever the config loader still rejects afterwards came from the file (exit 4).
 */
import type { Command } from 'commander';
import { loadServerConfig, serverState, startServer, writeHeapSnapshots, ServerConfigSchema } from '../../server/index.js';
import { RewardCatalog } from '../../rewards/index.js';
import { embeddedHarness } from '../../harness/index.js';
import { loadHarnessFlag, tasksOption } from './harness.js';
import { defaultEnvConfig, taskDefaultProblems } from '../../env/index.js';
import { defaultsOf } from '../../server/index.js';
import { mixArg } from '../task-args.js';
import type { MixFlag } from '../task-args.js';
import { choiceArg, collect, intArg, numberArg } from '../args.js';
import { EXIT, fileError, joinErrors, listenFailure, usageError } from '../errors.js';
import { writableDir } from '../files.js';

/** Flags as commander hands them over (parsed values; strings where tests call `flagsToOverrides` directly). */
interface ServeFlags {
  config?: string;
  host?: string;
  port?: string | number;
  token?: string;
  seed?: string | number;
  logLevel?: string;
  maxSessions?: string | number;
  allowOracleHints?: boolean;
  maxBatch?: string | number;
  maxEpisodes?: string | number;
  maxFrameBytes?: string | number;
  maxTurns?: string | number;
  maxErrors?: string | number;
  idleTimeout?: string | number;
  resumeGrace?: string | number;
  pingInterval?: string | number;
  replayWindow?: string | number;
  record?: string;
  recordSample?: string | number;
  rewardsProfile?: string[];
  rewardModules?: string[];
  workers?: string | number;
  workerHeapMb?: string | number;
  v8Pretenuring?: string;
  scheduling?: string;
  variantPool?: number;
  sendBufferBytes?: string | number;
  harness?: string;
  tasks?: string[];
  taskSplit?: string;
  mix?: MixFlag;
  heapSnapshotDir?: string;
}

/** A numeric flag as a number (NaN when not numeric, which the schema reports under the key's name). */
function num(v: string | number | undefined): number | undefined {
  return v === undefined ? undefined : Number(v);
}

/** Flags in the config file's shape; absent flags stay undefined and do not override the file. */
export function flagsToOverrides(f: ServeFlags, env: Readonly<Record<string, string | undefined>> = {}): Record<string, unknown> {
  return {
    host: f.host,
    port: num(f.port),
    token: f.token ?? env.HARNESS_GYM_TOKEN,
    seed: num(f.seed),
    log_level: f.logLevel,
    max_sessions: num(f.maxSessions),
    allow_oracle_hints: f.allowOracleHints,
    harness: f.harness,
    tasks: f.tasks,
    workers: f.workers === undefined || f.workers === 'auto' ? f.workers : Number(f.workers),
    worker_heap_mb:
      f.workerHeapMb === undefined || f.workerHeapMb === 'auto' || f.workerHeapMb === 'v8' ? f.workerHeapMb : Number(f.workerHeapMb),
    v8_pretenuring: f.v8Pretenuring,
    scheduling: f.scheduling,
    variant_pool: num(f.variantPool),
    backpressure: { send_high_water_bytes: num(f.sendBufferBytes) },
    limits: {
      max_batch: num(f.maxBatch),
      max_episodes: num(f.maxEpisodes),
      max_frame_bytes: num(f.maxFrameBytes),
      max_turns: num(f.maxTurns),
      max_errors: num(f.maxErrors),
      idle_timeout_s: num(f.idleTimeout),
      resume_grace_s: num(f.resumeGrace),
      ping_interval_s: num(f.pingInterval),
      replay_window: num(f.replayWindow),
    },
    record: { dir: f.record, sample: num(f.recordSample) },
    // Repeated flags replace the config file's lists (absent flags keep them).
    rewards: { profiles: f.rewardsProfile, module_dirs: f.rewardModules },
    // The task defaults only when given (a `defaults` map of absent keys would still be a `defaults`).
    ...(f.taskSplit !== undefined || f.mix !== undefined ? { defaults: { task_split: f.taskSplit, task_mix: f.mix?.weights } } : {}),
  };
}

/** Whether node's command line (`process.execArgv`) sets V8's allocation-site pretenuring either way. */
export function nodeSetsPretenuring(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(a));
}

/** The parts of a zod schema this file reads (zod 4's classic API, typed structurally). */
interface SchemaNode {
  def: { type: string; values?: unknown[] };
  unwrap?: () => SchemaNode;
  shape?: Record<string, SchemaNode>;
  options?: SchemaNode[] | string[];
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

function unwrapped(s: SchemaNode): SchemaNode {
  let cur = s;
  while (['default', 'prefault', 'optional', 'nullable'].includes(cur.def.type) && cur.unwrap) cur = cur.unwrap();
  return cur;
}

/** The schema of one config key, e.g. `['limits', 'max_batch']`. */
function keySchema(path: readonly string[]): SchemaNode {
  let s = ServerConfigSchema as unknown as SchemaNode;
  for (const key of path) {
    const next = unwrapped(s).shape?.[key];
    if (!next) throw new TypeError(`no config key ${path.join('.')}`);
    s = next;
  }
  return unwrapped(s);
}

/** The argument parser of a flag that sets config key `path`: its bounds or choices are the schema's. */
function configArg(flag: string, path: readonly string[]): (value: string) => number | string {
  const s = keySchema(path);
  if (s.def.type === 'number') {
    const min = s.minValue ?? -Infinity;
    const max = s.maxValue ?? Infinity;
    return s.isInt ? intArg(flag, min, max) : numberArg(flag, min, max);
  }
  if (s.def.type === 'enum') return choiceArg(flag, s.options as string[]);
  if (s.def.type === 'union') {
    // `workers`: a literal ("auto") or an integer.
    const parts = (s.options as SchemaNode[]).map(unwrapped);
    const literals = parts.flatMap((p) => (p.def.type === 'literal' ? ((p.def.values ?? []) as string[]) : []));
    const numeric = parts.find((p) => p.def.type === 'number');
    return (value: string) => {
      if (literals.includes(value)) return value;
      const n = Number(value);
      const min = numeric?.minValue ?? -Infinity;
      const max = numeric?.maxValue ?? Infinity;
      if (numeric && value.trim() !== '' && Number.isInteger(n) && n >= min && n <= max) return n;
      throw usageError(`${flag} must be an integer in [${min}, ${max}] or ${literals.map((l) => `"${l}"`).join(', ')}, got "${value}"`);
    };
  }
  throw new TypeError(`config key ${path.join('.')} has no flag parser`);
}

/** Register `serve` on the program. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the WebSocket environment server (protocol v1 at /v1/env; /healthz, /readyz, /v1/info, /metrics beside it)')
    .option('--config <file>', 'JSON or YAML config file (flags override it)')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface)')
    .option('--port <n>', 'TCP port in [0, 65535]; 0 picks a free one (default 8080)', configArg('--port', ['port']))
    .option('--token <token>', 'shared secret every hello must carry (default: $HARNESS_GYM_TOKEN, else none)')
    .option('--seed <n>', 'server seed for sessions whose hello has no seed (default 0)', configArg('--seed', ['seed']))
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default info)', configArg('--log-level', ['log_level']))
    .option('--max-sessions <n>', 'concurrent sessions (default 256)', configArg('--max-sessions', ['max_sessions']))
    .option('--allow-oracle-hints', 'honour options.oracle_hints (testing only, never training)')
    .option('--max-batch <n>', 'items per reset/step/close frame (default 256)', configArg('--max-batch', ['limits', 'max_batch']))
    .option('--max-episodes <n>', 'unclosed episodes per session (default 4096)', configArg('--max-episodes', ['limits', 'max_episodes']))
    .option('--max-frame-bytes <n>', 'bytes per frame (default 4194304)', configArg('--max-frame-bytes', ['limits', 'max_frame_bytes']))
    .option('--max-turns <n>', 'assistant turns per episode (default 12)', configArg('--max-turns', ['limits', 'max_turns']))
    .option('--max-errors <n>', 'tool errors before an episode is truncated (default 6)', configArg('--max-errors', ['limits', 'max_errors']))
    .option(
      '--idle-timeout <s>',
      'seconds without requests before a session is freed; 0 disables (default 600)',
      configArg('--idle-timeout', ['limits', 'idle_timeout_s']),
    )
    .option('--resume-grace <s>', 'seconds a dropped session waits for a resume (default 60)', configArg('--resume-grace', ['limits', 'resume_grace_s']))
    .option('--ping-interval <s>', 'seconds between WebSocket pings (default 20)', configArg('--ping-interval', ['limits', 'ping_interval_s']))
    .option('--replay-window <n>', 'replies kept per session for re-sent requests (default 64)', configArg('--replay-window', ['limits', 'replay_window']))
    .option('--record <dir>', 'record finished episodes into this directory (default: off)')
    .option(
      '--record-sample <rate>',
      'fraction in [0, 1] of episodes recorded, decided from each seed (default 1)',
      configArg('--record-sample', ['record', 'sample']),
    )
    .option(
      '--workers <n>',
      'worker threads owning the episodes: 0 = the main thread, 1..64, or "auto" (default auto: one per core, at most 8)',
      configArg('--workers', ['workers']),
    )
    .option(
      '--worker-heap-mb <mib>',
      "each worker's heap limit in MiB (64..), auto or v8; new episodes get CAPACITY_REACHED above 70% of it (default v8: V8's own, from the machine's memory; auto: 2000 where V8's own is larger, which halves how far a busy heap grows before a full collection, for more frequent collections)",
      configArg('--worker-heap-mb', ['worker_heap_mb']),
    )
    .option(
      '--v8-pretenuring <setting>',
      "V8's allocation-site pretenuring for this process: off, on, or inherit (leave node's own setting); default off (inherit when node's command line sets it): pretenured episode-state sites fill the old generation with short-lived objects",
      configArg('--v8-pretenuring', ['v8_pretenuring']),
    )
    .option(
      '--scheduling <order>',
      'which requests an episode worker starts first: steps_first (steps before resets and the rest: under load, episodes being played are answered first and new ones wait) or arrival; default steps_first',
      configArg('--scheduling', ['scheduling']),
    )
    .option(
      '--variant-pool <n>',
      'compiled variants kept per variant spec; a reset draws one by its seed (0: compile one per reset; default 256)',
      configArg('--variant-pool', ['variant_pool']),
    )
    .option(
      '--send-buffer-bytes <n>',
      'unsent reply bytes per connection before its reading pauses; cut after backpressure.stall_timeout_s (default 16777216)',
      configArg('--send-buffer-bytes', ['backpressure', 'send_high_water_bytes']),
    )
    .option('--harness <dir>', 'harness directory to serve (docs/HARNESS.md; default: the embedded harness)')
    .option('--tasks <file>', 'task file, JSONL (repeatable; docs/HARNESS.md "Task files"; default: generated tasks)', collect)
    .option(
      '--task-split <split>',
      "defaults.task_split: the task split of resets that name none: train, the held-out eval, or all (each episode's drawn from its seed); default train",
      configArg('--task-split', ['defaults', 'task_split']),
    )
    .option(
      '--mix <weights|file>',
      'defaults.task_mix: the intent mix of resets that name no intent: intent=weight pairs such as product_qa=0.5,chitchat=0.5, or a JSON or YAML file of them (default: the production mix)',
      mixArg('--mix'),
    )
    .option('--rewards-profile <file>', 'reward profile file, JSON or YAML (repeatable; reloaded on SIGHUP)', collect)
    .option('--reward-modules <dir>', 'directory of custom reward modules, *.js/*.mjs (repeatable; reloaded on SIGHUP)', collect)
    .option(
      '--heap-snapshot-dir <dir>',
      'on SIGUSR2, write V8 heap snapshots of the main thread and of every episode worker there (each thread pauses while its heap is written)',
    )
    .action(async (flags: ServeFlags) => {
      if (flags.token === undefined && process.env.HARNESS_GYM_TOKEN === '') {
        throw usageError('HARNESS_GYM_TOKEN is set but empty; unset it, or set it to the token clients must send');
      }
      if (flags.token === '') throw usageError('--token must not be empty; leave it out to accept any client');
      if (flags.host !== undefined && flags.host.trim() === '') throw usageError('--host must not be empty; give e.g. 127.0.0.1 or 0.0.0.0');
      const loaded = loadServerConfig({
        // The server owns the process here: shard the episodes over the spare cores unless told otherwise,
        // and turn V8's allocation-site pretenuring off (server/v8-flags.ts) unless node's own command line
        // already set it.
        base: { workers: 'auto', v8_pretenuring: nodeSetsPretenuring(process.execArgv) ? 'inherit' : 'off' },
        file: flags.config,
        overrides: flagsToOverrides(flags, process.env),
      });
      // The flags were checked as they were parsed: what the loader rejects comes from the file.
      if (!loaded.ok) {
        const errors = loaded.errors.map((e) => (flags.config !== undefined && e.startsWith(`${flags.config}: `) ? e.slice(flags.config.length + 2) : e));
        if (flags.config === undefined) throw usageError(`invalid configuration: ${joinErrors(errors)}`);
        throw fileError(`--config ${flags.config}: ${joinErrors(errors)}`);
      }
      const config = loaded.config;
      if (config.record.dir !== null) writableDir(config.record.dir, flags.record !== undefined ? '--record' : 'record.dir');
      if (flags.heapSnapshotDir !== undefined) writableDir(flags.heapSnapshotDir, '--heap-snapshot-dir');
      // A harness directory is loaded (and cached) here first so that a bad one is one line naming every
      // problem, not the guard's TypeError from inside startServer (server/config.ts harnessOf).
      const harness = config.harness === null ? embeddedHarness() : loadHarnessFlag(config.harness, flags.harness !== undefined ? '--harness' : 'harness');
      const tasks = tasksOption(config.tasks, harness, flags.tasks !== undefined ? '--tasks' : 'tasks');
      // Task defaults every reset would fail with (a mix of intents the tasks do not have, a split they
      // have no task of) stop the start, naming the key (or the flag that set it).
      const problems = taskDefaultProblems(defaultEnvConfig({ harness, ...tasks, ...defaultsOf(config) }), { split: config.defaults?.task_split !== undefined });
      if (problems.length > 0) {
        const byFlag = problems.map((p) =>
          p.replace(/^defaults\.task_split:/, flags.taskSplit !== undefined ? '--task-split:' : 'defaults.task_split:').replace(/^defaults\.task_mix:/, flags.mix !== undefined ? '--mix:' : 'defaults.task_mix:'),
        );
        const fromFile = byFlag.some((p) => p.startsWith('defaults.'));
        if (fromFile && flags.config !== undefined) throw fileError(`--config ${flags.config}: ${joinErrors(byFlag)}`);
        throw usageError(`invalid task defaults: ${joinErrors(byFlag)}`);
      }
      // Reward files are read (and module files imported) before the server starts: a bad one is a
      // start-up error naming the file. HARNESS_GYM_JUDGE_API_KEY is the llm_judge's bearer token.
      const rewards = await RewardCatalog.load(config.rewards, { judge: { api_key: process.env.HARNESS_GYM_JUDGE_API_KEY } });
      if (!rewards.ok) throw fileError(`invalid reward files: ${joinErrors(rewards.errors)}`);
      const catalog = rewards.catalog;
      let running;
      try {
        running = await startServer(config, { rewards: catalog });
      } catch (e) {
        throw listenFailure(e, config.host, config.port) ?? e;
      }
      const ws = running.url.replace(/^http/, 'ws');
      const { workers } = serverState(running.app);
      const where = workers === 0 ? 'episodes on the main thread' : `episodes on ${workers} worker thread${workers === 1 ? '' : 's'}`;
      process.stdout.write(`harness-gym serve: listening on ${running.url} (WebSocket ${ws}/v1/env; ${where})\n`);
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) {
          process.exit(1); // a second signal: stop waiting
        }
        stopping = true;
        running.app.log.info({ signal }, 'shutting down');
        running.close().then(
          () => process.exit(EXIT.ok),
          (e: unknown) => {
            running.app.log.error({ err: e }, 'shutdown failed');
            process.exit(EXIT.internal);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // SIGUSR2 with --heap-snapshot-dir: heap snapshots of every thread, one after another (a second
      // signal while they are written is ignored).
      const snapshotDir = flags.heapSnapshotDir;
      if (snapshotDir !== undefined) {
        let writing = false;
        process.on('SIGUSR2', () => {
          if (writing) return;
          writing = true;
          writeHeapSnapshots(running.app, snapshotDir).then(
            (files) => {
              writing = false;
              running.app.log.info({ files }, 'heap snapshots written');
            },
            (err: unknown) => {
              writing = false;
              running.app.log.error({ err }, 'heap snapshots failed');
            },
          );
        });
      }
      // SIGHUP: re-read the reward files; swap only when all of them validate (sessions are untouched).
      process.on('SIGHUP', () => {
        void catalog.reload().then((r) => {
          if (r.ok) running.app.log.info({ profiles: r.profiles, generation: r.generation }, 'reward profiles reloaded');
          else running.app.log.error({ errors: r.errors }, 'reward reload failed; keeping the previous profiles');
        });
      });
    });
}
