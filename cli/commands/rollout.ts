/**
 * `harness-gym rollout`: drive episodes on a running server with an OpenAI-compatible chat-completions
 * endpoint as the policy (client/rollout.ts), with a progress bar on stderr (TTY only) and a summary of
 * rewards by component, intent and variant family (`--json`: one line).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import cliProgress from 'cli-progress';
import { LOCALES } from '../../protocol/domain.js';
import type { Locale } from '../../protocol/domain.js';
import { formatRolloutSummary, runRollout } from '../../client/index.js';
import { intArg, rateArg } from '../args.js';

interface RolloutFlags {
  url: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
  episodes: number;
  concurrency: number;
  groupSize: number;
  seed: number;
  variant: string;
  locale?: Locale;
  parser?: string;
  faults?: number;
  token?: string;
  out?: string;
  json?: boolean;
  timeout: number;
  retries: number;
  backoff: number;
  temperature?: string;
  maxTokens?: number;
  oracleHints?: boolean;
}

/** Register `rollout` on the program. */
export function registerRolloutCommand(program: Command): void {
  program
    .command('rollout')
    .description('run episodes on a server with an OpenAI-compatible chat-completions endpoint as the policy')
    .requiredOption('--url <ws-url>', 'the environment server, e.g. ws://127.0.0.1:8080/v1/env')
    .requiredOption('--base-url <http-url>', 'the endpoint, e.g. http://127.0.0.1:8000/v1')
    .requiredOption('--model <name>', 'model name sent to the endpoint')
    .option('--api-key <key>', 'endpoint API key (default: $OPENAI_API_KEY)')
    .option('--episodes <n>', 'number of episodes', intArg('--episodes', 1, 10_000_000), 100)
    .option('--concurrency <k>', 'episodes in flight at once', intArg('--concurrency', 1, 100_000), 16)
    .option('--group-size <g>', 'GRPO group size: consecutive episodes share task and variant', intArg('--group-size', 1, 1024), 1)
    .option('--seed <n>', 'seed of the first episode (episode i uses seed + i)', intArg('--seed', 0, 0xffffffff), 1)
    .option('--variant <preset>', 'harness variant preset', 'identity')
    .addOption(new Option('--locale <locale>', 'language of tasks and harness').choices([...LOCALES]))
    .option('--parser <name>', "the episode's action parser (default: the server's)")
    .option('--faults <rate>', 'probability of an injected tool fault per call', rateArg)
    .option('--token <token>', 'auth token for --url')
    .option('--out <file>', 'write one JSON line per episode (episode order) to this file')
    .option('--json', 'print the summary as one JSON line')
    .option('--timeout <ms>', 'per-request timeout of the endpoint', intArg('--timeout', 1, 3_600_000), 60_000)
    .option('--retries <n>', 'retries of a failed endpoint request', intArg('--retries', 0, 100), 3)
    .option('--backoff <ms>', 'first retry delay (doubles per retry)', intArg('--backoff', 0, 600_000), 500)
    .option('--temperature <t>', 'sampling temperature sent to the endpoint')
    .option('--max-tokens <n>', 'max_tokens sent to the endpoint', intArg('--max-tokens', 1, 1_000_000))
    // Test hook only: forwards info.oracle_action to a fake endpoint (see client/rollout.ts).
    .addOption(new Option('--oracle-hints').hideHelp())
    .action(async (f: RolloutFlags) => {
      const bar = process.stderr.isTTY
        ? new cliProgress.SingleBar(
            { stream: process.stderr, format: 'rollout [{bar}] {value}/{total} episodes | {failed} failed | eta {eta}s' },
            cliProgress.Presets.shades_classic,
          )
        : null;
      let failed = 0;
      bar?.start(f.episodes, 0, { failed });
      const sampling: Record<string, unknown> = {};
      if (f.temperature !== undefined) sampling.temperature = Number(f.temperature);
      if (f.maxTokens !== undefined) sampling.max_tokens = f.maxTokens;
      const apiKey = f.apiKey ?? process.env.OPENAI_API_KEY;
      const { summary, records } = await runRollout({
        url: f.url,
        token: f.token,
        baseUrl: f.baseUrl,
        model: f.model,
        ...(apiKey ? { apiKey } : {}),
        episodes: f.episodes,
        concurrency: f.concurrency,
        groupSize: f.groupSize,
        seed: f.seed,
        variant: f.variant,
        ...(f.locale ? { locale: f.locale } : {}),
        ...(f.parser ? { parser: f.parser } : {}),
        ...(f.faults !== undefined ? { options: { faults: f.faults } } : {}),
        oracleHints: f.oracleHints === true,
        timeoutMs: f.timeout,
        retries: f.retries,
        backoffMs: f.backoff,
        sampling,
        onEpisode: (done, _total, r) => {
          if (r.failed !== undefined) failed++;
          bar?.update(done, { failed });
        },
      });
      bar?.stop();
      if (f.out) writeFileSync(f.out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      process.stdout.write(f.json ? JSON.stringify(summary) + '\n' : formatRolloutSummary(summary));
    });
}
