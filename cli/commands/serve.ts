/**
 * `harness-gym serve`: run the WebSocket environment server. The entry point owns the process: it reads
 * flags and `HARNESS_GYM_TOKEN`, prints one startup line, and turns SIGTERM/SIGINT into a graceful
 * shutdown (stop accepting, answer in-flight requests, exit 0).
 */
import type { Command } from 'commander';
import { loadServerConfig, serverState, startServer } from '../../server/index.js';
import { RewardCatalog } from '../../rewards/index.js';

/** Flags as commander hands them over (strings; the config schema validates and names the key). */
interface ServeFlags {
  config?: string;
  host?: string;
  port?: string;
  token?: string;
  seed?: string;
  logLevel?: string;
  maxSessions?: string;
  allowOracleHints?: boolean;
  maxBatch?: string;
  maxEpisodes?: string;
  maxFrameBytes?: string;
  maxTurns?: string;
  maxErrors?: string;
  idleTimeout?: string;
  resumeGrace?: string;
  pingInterval?: string;
  replayWindow?: string;
  record?: string;
  recordSample?: string;
  rewardsProfile?: string[];
  rewardModules?: string[];
  workers?: string;
  sendBufferBytes?: string;
}

/** Commander collector for repeatable flags. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A numeric flag as a number (NaN when not numeric, which the schema reports under the key's name). */
function num(v: string | undefined): number | undefined {
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
    workers: f.workers === undefined || f.workers === 'auto' ? f.workers : Number(f.workers),
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
  };
}

/** Register `serve` on the program. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the WebSocket environment server (protocol v1 at /v1/env)')
    .option('--config <file>', 'JSON or YAML config file (flags override it)')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
    .option('--port <n>', 'TCP port; 0 picks a free one (default 8080)')
    .option('--token <token>', 'shared secret every hello must carry (default: $HARNESS_GYM_TOKEN, else none)')
    .option('--seed <n>', 'server seed for sessions whose hello has no seed (default 0)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (default info)')
    .option('--max-sessions <n>', 'concurrent sessions (default 256)')
    .option('--allow-oracle-hints', 'honour options.oracle_hints (testing only, never training)')
    .option('--max-batch <n>', 'items per reset/step/close frame (default 256)')
    .option('--max-episodes <n>', 'unclosed episodes per session (default 4096)')
    .option('--max-frame-bytes <n>', 'bytes per frame (default 4194304)')
    .option('--max-turns <n>', 'assistant turns per episode (default 12)')
    .option('--max-errors <n>', 'tool errors before an episode is truncated (default 6)')
    .option('--idle-timeout <s>', 'seconds without requests before a session is freed; 0 disables (default 600)')
    .option('--resume-grace <s>', 'seconds a dropped session waits for a resume (default 60)')
    .option('--ping-interval <s>', 'seconds between WebSocket pings (default 20)')
    .option('--replay-window <n>', 'replies kept per session for re-sent requests (default 64)')
    .option('--record <dir>', 'record finished episodes into this directory (default: off)')
    .option('--record-sample <rate>', 'fraction of episodes recorded, decided from each seed (default 1)')
    .option('--workers <n>', 'worker threads owning the episodes: 0 = the main thread, or "auto" (default auto: one per core, at most 8)')
    .option(
      '--send-buffer-bytes <n>',
      'unsent reply bytes per connection before its reading pauses; cut after backpressure.stall_timeout_s (default 16777216)',
    )
    .option('--rewards-profile <file>', 'reward profile file, JSON or YAML (repeatable; reloaded on SIGHUP)', collect)
    .option('--reward-modules <dir>', 'directory of custom reward modules, *.js/*.mjs (repeatable; reloaded on SIGHUP)', collect)
    .action(async (flags: ServeFlags) => {
      const loaded = loadServerConfig({
        // The server owns the process here: shard the episodes over the spare cores unless told otherwise.
        base: { workers: 'auto' },
        file: flags.config,
        overrides: flagsToOverrides(flags, process.env),
      });
      if (!loaded.ok) {
        process.stderr.write(`harness-gym serve: invalid configuration\n${loaded.errors.map((e) => `  ${e}\n`).join('')}`);
        process.exitCode = 2;
        return;
      }
      // Reward files are read (and module files imported) before the server starts: a bad one is a
      // start-up error naming the file. HARNESS_GYM_JUDGE_API_KEY is the llm_judge's bearer token.
      const rewards = await RewardCatalog.load(loaded.config.rewards, { judge: { api_key: process.env.HARNESS_GYM_JUDGE_API_KEY } });
      if (!rewards.ok) {
        process.stderr.write(`harness-gym serve: invalid reward files\n${rewards.errors.map((e) => `  ${e}\n`).join('')}`);
        process.exitCode = 2;
        return;
      }
      const catalog = rewards.catalog;
      const running = await startServer(loaded.config, { rewards: catalog });
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
          () => process.exit(0),
          (e: unknown) => {
            running.app.log.error({ err: e }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // SIGHUP: re-read the reward files; swap only when all of them validate (sessions are untouched).
      process.on('SIGHUP', () => {
        void catalog.reload().then((r) => {
          if (r.ok) running.app.log.info({ profiles: r.profiles, generation: r.generation }, 'reward profiles reloaded');
          else running.app.log.error({ errors: r.errors }, 'reward reload failed; keeping the previous profiles');
        });
      });
    });
}
