/**
 * The learning proof's short form (examples/learning-proof, issue 43): a small numpy policy trained by GRPO
 * through a real server with the Python client's vector env. It asserts that learning happened (the mean
 * reward of the last quarter of the iterations is above the first quarter's by a margin, the share of GRPO
 * groups whose members all scored the same went down, and so did the share whose members all failed), not
 * exact figures. The full run and its
 * table are `python3 examples/learning-proof/learn.py full` (examples/learning-proof/README.md).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';

const PYTHON = '/usr/bin/python3';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The intent mix learn.py trains on (its MIX). */
const MIX = { product_qa: 0.4, chitchat: 0.15, clarification: 0.15, risky: 0.15, handoff: 0.15 };

let server: RunningServer;
let url: string;

beforeAll(async () => {
  const parsed = parseServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent', defaults: { task_mix: MIX } });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  server = await startServer(parsed.config);
  url = `ws://127.0.0.1:${new URL(server.url).port}/v1/env`;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('learning proof, short form', () => {
  it('GRPO on HSA train variants raises the reward and lowers the shares of all-equal and all-failed groups', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        PYTHON,
        ['examples/learning-proof/learn.py', 'short', '--url', url],
        { cwd: ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 170_000, maxBuffer: 16 << 20 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
    const last = run.stdout.trim().split('\n').pop() ?? '';
    expect(run.code, `${run.stdout}\n${run.stderr.slice(-4000)}`).toBe(0);
    const summary = JSON.parse(last) as Record<string, number | boolean>;
    expect(summary.learned).toBe(true);
    expect(Number(summary.reward_last)).toBeGreaterThan(Number(summary.reward_first));
    expect(Number(summary.all_equal_last)).toBeLessThanOrEqual(Number(summary.all_equal_first));
    // groups in which every member failed (all at the gates' floor): fewer once product_qa is learnable
    expect(Number(summary.all_failed_last)).toBeLessThan(Number(summary.all_failed_first));
  }, 180_000);
});
