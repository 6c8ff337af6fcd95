#!/usr/bin/env node
/**
 * The `harness-gym` command line. The only place (with the server's entry) that reads process state:
 * argv, stdout and the exit code. Each command lives in cli/commands/.
 */
import { Command } from 'commander';
import { registerLocalCommands } from './commands/local.js';
import { registerRecordCommands } from './commands/records.js';
import { registerRolloutCommand } from './commands/rollout.js';
import { registerServeCommand } from './commands/serve.js';
import { registerVariantCommands } from './commands/variants.js';
import { packageIdentity } from '../protocol/package.js';

const program = new Command();
program
  .name('harness-gym')
  .description('Gym-style environment for training live-commerce agents on augmented harnesses')
  .version(packageIdentity().version, '-V, --version')
  .showHelpAfterError();

registerLocalCommands(program);
registerRolloutCommand(program);
registerServeCommand(program);
registerVariantCommands(program);
registerRecordCommands(program);

await program.parseAsync(process.argv);
