/**
 * The benchmark suite's entry point: `npm run bench` (tables) and `npm run bench -- --json` (one JSON
 * line on stdout and nothing else; progress goes to stderr). It measures the built code: the servers are
 * child processes started from dist/ (`harness-gym serve`, dist/bench/echo-server.js), so run
 * `npm run build` first. See bench/RESULTS.md for the method and the latest figures.
 */
import { parseBenchArgs } from './args.js';
import type { BenchCli } from './args.js';
import { childProcessLoadClient, inProcessLoadClient } from './load-client.js';
import { formatReport } from './report.js';
import { childProcessServers } from './servers.js';
import { runSuite } from './suite.js';

async function main(): Promise<number> {
  let cli: BenchCli;
  try {
    cli = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const t0 = performance.now();
  const log = (line: string): void => {
    process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
  // The load generator in a child process of its own unless --in-process-client (or no load phase).
  const load = cli.params.client_process && !cli.params.skip_load ? childProcessLoadClient(log) : inProcessLoadClient(log);
  let summary;
  try {
    summary = await runSuite(cli.params, cli.params.skip_load ? null : childProcessServers(), log, load);
  } finally {
    await load.close();
  }
  process.stdout.write(cli.json ? `${JSON.stringify(summary)}\n` : formatReport(summary));
  return 0;
}

main().then(
  (code) => {
    // Exit explicitly once stdout is flushed: a lingering socket or timer must not keep the bench alive.
    process.stdout.write('', () => process.exit(code));
  },
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
