#!/usr/bin/env node
/**
 * The `harness-gym` command line. The only place (with the server's entry) that reads process state:
 * argv, stdout and the exit code. Each command lives in cli/commands/.
 *
 * Failing is uniform (cli/errors.ts): whatever goes wrong, in commander's parsing, in a command or in a
 * callback nobody awaited, ends as one line `harness-gym <command>: <message>` on stderr and the exit code
 * of its kind. A reader of stdout that went away (`inspect DIR | head`) ends the command quietly with 0.
 */
import { Command, CommanderError } from 'commander';
import { registerAuditCommand } from './commands/audit.js';
import { registerCalibrateCommand } from './commands/calibrate.js';
import { registerConsistencyCommand } from './commands/consistency.js';
import { registerHarnessCommands } from './commands/harness.js';
import { registerLocalCommands } from './commands/local.js';
import { registerPolicyCommand } from './commands/policy.js';
import { registerRecordCommands } from './commands/records.js';
import { registerRolloutCommand } from './commands/rollout.js';
import { registerServeCommand } from './commands/serve.js';
import { registerVariantCommands } from './commands/variants.js';
import { EXIT, describeCommanderError, describeFailure } from './errors.js';
import { packageIdentity } from '../protocol/package.js';

const program = new Command();
program
  .name('harness-gym')
  .description('Gym-style environment for training live-commerce agents on augmented harnesses')
  .version(packageIdentity().version, '-V, --version')
  // Parse errors come back as CommanderErrors and are printed here, as one line (not commander's text
  // followed by the whole help). Subcommands inherit both settings (they are made after this).
  .exitOverride()
  .configureOutput({ outputError: () => {} });

registerLocalCommands(program);
registerRolloutCommand(program);
registerPolicyCommand(program);
registerServeCommand(program);
registerVariantCommands(program);
registerRecordCommands(program);
registerAuditCommand(program);
registerCalibrateCommand(program);
registerConsistencyCommand(program);
registerHarnessCommands(program);

/** The subcommand path named on the command line (`variants show`), for the prefix of error lines. */
function commandPath(root: Command, args: readonly string[]): string {
  const names: string[] = [];
  let cmd = root;
  for (const arg of args) {
    if (arg.startsWith('-')) break;
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) break;
    names.push(sub.name());
    cmd = sub;
  }
  return names.join(' ');
}

const command = commandPath(program, process.argv.slice(2));

/** Print the failure as one line and exit with its code. */
function fail(e: unknown): never {
  const { exitCode, message } = e instanceof CommanderError ? describeCommanderError(e, command) : describeFailure(e);
  process.stderr.write(`harness-gym${command ? ` ${command}` : ''}: ${message}\n`);
  if (process.env.HARNESS_GYM_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exit(exitCode);
}

// A closed stdout (the reader quit: `| head`) is not a failure of the command: stop quietly. Writes to a
// pipe report EPIPE asynchronously, as an 'error' event, after the write returned.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') process.exit(EXIT.ok);
  fail(e);
});
process.stderr.on('error', () => {
  // Nowhere left to say anything.
});
// Anything a callback threw or rejected without a handler (a server that fails after start-up).
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

// `harness-gym help <command>` for a command that does not exist is an unknown command, as `harness-gym
// <command>` is (commander would print the general help instead).
const [first, second] = process.argv.slice(2);
if (first === 'help' && second !== undefined && !second.startsWith('-') && !program.commands.some((c) => c.name() === second)) {
  process.stderr.write(`harness-gym: unknown command "${second}"; see harness-gym --help\n`);
  process.exit(EXIT.usage);
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end here with 0; a bare `harness-gym` or `harness-gym variants` printed its
    // help (to stderr) and is a usage error.
    if (e.exitCode === 0) process.exit(EXIT.ok);
    if (e.code === 'commander.help') process.exit(EXIT.usage);
  }
  fail(e);
}
