/**
 * `harness-gym policy`: serve an OpenAI-compatible chat-completions endpoint answered by a reference policy
 * (eval/policy-endpoint.ts), so that `rollout` and the trainer adapters run end to end without a GPU. One
 * start-up line on stdout (`listening on http://HOST:PORT/v1 ...`); SIGTERM and SIGINT stop it (exit 0).
 */
import type { Command } from 'commander';
import { ENDPOINT_POLICIES, startPolicyEndpoint } from '../../eval/index.js';
import { choiceOption, intArg } from '../args.js';
import { EXIT, listenFailure } from '../errors.js';
import { harnessOption } from './harness.js';

interface PolicyFlags {
  host: string;
  port: number;
  policy: string;
  model?: string;
  harness?: string;
}

/** Register `policy` on the program. */
export function registerPolicyCommand(program: Command): void {
  program
    .command('policy')
    .description(
      'serve an OpenAI-compatible chat-completions endpoint (/v1/chat/completions, /v1/models, /healthz) answered by a reference policy: try rollout and the trainer adapters without a GPU',
    )
    .option('--host <host>', 'interface to listen on (0.0.0.0 for every interface)', '127.0.0.1')
    .option('--port <n>', 'TCP port in [0, 65535]; 0 picks a free one', intArg('--port', 0, 65535), 8000)
    .addOption(
      choiceOption(
        '--policy <name>',
        'the policy that answers: memorizer, random and the blind strategies read the conversation; oracle needs the oracle action with each request (rollout --oracle-hints against serve --allow-oracle-hints)',
        ENDPOINT_POLICIES,
      ).default('memorizer'),
    )
    .option('--model <name>', 'the model name served; requests must name it (default: the policy name)')
    .option('--harness <dir>', 'the harness the memorizer is fitted to, as the server serves it (default: the embedded harness)')
    .action(async (f: PolicyFlags) => {
      const { harness } = harnessOption(f.harness);
      const model = f.model ?? f.policy;
      let running;
      try {
        running = await startPolicyEndpoint({ host: f.host, port: f.port, policy: f.policy, model, ...(harness ? { harness } : {}) });
      } catch (e) {
        throw listenFailure(e, f.host, f.port) ?? e;
      }
      process.stdout.write(`harness-gym policy: listening on ${running.baseUrl} (policy ${f.policy}, model ${model}; POST /v1/chat/completions)\n`);
      let stopping = false;
      const stop = (): void => {
        if (stopping) process.exit(1); // a second signal: stop waiting
        stopping = true;
        running.close().then(
          () => process.exit(EXIT.ok),
          () => process.exit(EXIT.internal),
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
}
