/**
 * Set-up of the `unit` vitest project (vitest.config.ts): listening, connecting, spawning a process and
 * starting a worker thread throw, so that a unit file doing any of them fails instead of slowing the
 * edit-test loop. Such a file belongs in the integration project (vitest.projects.ts `INTEGRATION_ALSO`).
 * The patches are made on the modules' objects and then synced into their ES module exports, so named
 * imports (`import { spawn } from 'node:child_process'`) see them too.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

/** The start of every error the guard throws (test/unit-guard.test.ts matches it). */
export const GUARD_MESSAGE = 'the unit project starts no socket, server, process or thread';

function refuse(what: string): never {
  throw new Error(`${GUARD_MESSAGE}: ${what} (move the file to the integration project: vitest.projects.ts)`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('net.Server.listen');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('net.Socket.connect');
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = (): never => refuse(`child_process.${name}`);
}
(workerThreads as unknown as Record<string, unknown>).Worker = class {
  constructor() {
    refuse('new worker_threads.Worker');
  }
};
syncBuiltinESMExports();
