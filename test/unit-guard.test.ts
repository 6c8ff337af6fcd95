/**
 * The unit project's guard (test/unit-guard.ts) is in force: a unit file that listens, connects, spawns a
 * process or starts a worker thread fails, whichever way it imports the module. (This file runs in the
 * unit project: vitest.projects.ts `UNIT_ALWAYS`.)
 */
import * as childProcess from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { GUARD_MESSAGE } from './unit-guard.js';

describe('the unit project guard', () => {
  it('refuses to listen, on a net or an http server', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(GUARD_MESSAGE);
    expect(() => http.createServer().listen(0, '127.0.0.1')).toThrow(GUARD_MESSAGE);
  });

  it('refuses to connect a socket, and fetch cannot reach a server', async () => {
    expect(() => connect(9, '127.0.0.1')).toThrow(GUARD_MESSAGE);
    await expect(fetch('http://127.0.0.1:9/')).rejects.toThrow();
  });

  it('refuses child processes, through named and namespace imports', () => {
    expect(() => spawn(process.execPath, ['-e', '0'])).toThrow(GUARD_MESSAGE);
    expect(() => execFileSync(process.execPath, ['-e', '0'])).toThrow(GUARD_MESSAGE);
    expect(() => childProcess.fork('-e')).toThrow(GUARD_MESSAGE);
  });

  it('refuses worker threads', () => {
    expect(() => new Worker('0', { eval: true })).toThrow(GUARD_MESSAGE);
  });
});
