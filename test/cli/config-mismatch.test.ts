/**
 * A server that does not match the eval (issue 39, error codes): `eval --url` against a server of another
 * harness (`serve --harness examples/harness-v2`), against replicas whose caps differ, or against a server
 * whose default intent mix the eval would not reproduce, is a configuration mismatch, not a bug of
 * harness-gym: exit 5, one line naming the client code `CONFIG_MISMATCH` and what to give, never
 * `INTERNAL`.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/errors.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { CLI, ROOT, cli, expectFailure } from './helpers.js';

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(overrides: Record<string, unknown>): Promise<string> {
  const s = await startTestServer({ workers: 0, ...overrides });
  servers.push(s);
  return s.url;
}

function expectMismatch(line: string): void {
  expect(line).toContain('CONFIG_MISMATCH');
  expect(line).not.toContain('INTERNAL');
  expect(line).not.toMatch(/a bug/);
}

describe('eval --url against a server that does not match', () => {
  it('serve --harness examples/harness-v2, eval --url without --harness: CONFIG_MISMATCH, exit 5', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--harness', 'examples/harness-v2', '--port', '0', '--workers', '0', '--log-level', 'silent'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out);
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const url = /listening on (http:\/\/[^ ]+)/.exec(line)?.[1];
      const ws = `${url?.replace(/^http/, 'ws')}/v1/env`;
      const r = await cli(['eval', '--url', ws, '--episodes', '2', '--json']);
      const failure = expectFailure(r, EXIT.run, 'eval');
      expectMismatch(failure);
      expect(failure).toMatch(/serves harness .* give the server's harness directory with --harness DIR/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
  }, 60_000);

  it('replicas with different caps: CONFIG_MISMATCH, exit 5', async () => {
    const [a, b] = await Promise.all([serve({}), serve({ limits: { max_turns: 8 } })]);
    const r = await cli(['eval', '--url', a, '--url', b, '--episodes', '2', '--json']);
    const failure = expectFailure(r, EXIT.run, 'eval');
    expectMismatch(failure);
    expect(failure).toMatch(/the replicas differ/);
  }, 60_000);

  it("a server's own default mix, eval without --mix: CONFIG_MISMATCH, exit 5", async () => {
    const url = await serve({ defaults: { task_mix: { chitchat: 1, product_qa: 3 } } });
    const r = await cli(['eval', '--url', url, '--episodes', '2', '--json']);
    const failure = expectFailure(r, EXIT.run, 'eval');
    expectMismatch(failure);
    expect(failure).toMatch(/default mix/);
  }, 60_000);
});
