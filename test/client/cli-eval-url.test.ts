import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';

// Async: the server runs in this process, so the child must not block its event loop.
const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = ['--import', 'tsx', 'cli/main.ts', 'eval', '--policy', 'oracle', '--episodes', '50', '--seed', '1', '--json'];

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ token: 't0k' });
});
afterAll(async () => {
  await srv.close();
});

describe('harness-gym eval --url', () => {
  it('prints exactly what the in-process command prints', async () => {
    const [remote, local] = await Promise.all([
      run('node', [...CLI, '--url', srv.url, '--token', 't0k'], { cwd: ROOT }),
      run('node', CLI, { cwd: ROOT }),
    ]);
    expect(remote.stdout).toBe(local.stdout);
    expect(JSON.parse(remote.stdout)).toMatchObject({ policy: 'oracle', episodes: 50, errors: 0 });
  });

  it('the table form too, for the random policy', async () => {
    const args = ['--import', 'tsx', 'cli/main.ts', 'eval', '--policy', 'random', '--episodes', '20', '--seed', '3'];
    const [remote, local] = await Promise.all([
      run('node', [...args, '--url', srv.url, '--token', 't0k'], { cwd: ROOT }),
      run('node', args, { cwd: ROOT }),
    ]);
    expect(remote.stdout).toBe(local.stdout);
    expect(remote.stdout).toContain('policy random');
  });
});
