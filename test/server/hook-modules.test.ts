/**
 * A harness with a hook module served over a real socket: episodes on a worker thread (the worker loads
 * the harness directory and its hooks/<module>.mjs itself) answer byte for byte what the in-process server
 * answers, the module's stop hook blocks with its feedback, and the recorded episodes replay identically.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { loadHarnessDir } from '../../harness/index.js';
import { readRecords, replayRecords } from '../../recording/index.js';
import { connect, testConfig } from './helpers.js';
import type { WireClient } from './helpers.js';
import { tempDir } from '../recording/helpers.js';
import { REPORT_MESSAGE, writeHookModuleHarness } from '../harness/hook-module-harness.js';

const harnessDir = writeHookModuleHarness();
const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
  rmSync(harnessDir, { recursive: true, force: true });
});

async function listen(overrides: Record<string, unknown>): Promise<{ app: GymApp; url: string }> {
  const app = buildServer(testConfig({ harness: harnessDir, ...overrides }));
  apps.push(app);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

const call = (name: string, args: unknown, id = `c-${name}`) => ({
  message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
});
const reply = (content: string) => ({ message: { role: 'assistant', content } });

const REFUSAL = '抱歉，这个问题我们不能回答哦';

/** One risky episode: a refusal reported under another category (blocked), then under its own (accepted). */
async function conversation(c: WireClient): Promise<{ raws: Buffer[]; blocked: unknown; done: Record<string, unknown> }> {
  const raws: Buffer[] = [];
  const ask = async (msg: unknown) => {
    c.send(msg, true);
    const r = await c.next();
    raws.push(r.raw);
    return r.msg;
  };
  await c.hello({ seed: 5 }, true);
  const reset = await ask({ type: 'reset', id: 1, items: [{ episode_id: 'e', task: { intent: 'risky' }, options: { locale: 'zh-CN' } }] });
  expect(reset.items[0].ok).toBe(true);
  const actions = [
    call('load_skill', { name: 'risk-refusal' }),
    call('refuse_request', { category: 'medical' }),
    call('report_risk', { category: 'other' }),
    reply(REFUSAL),
    call('report_risk', { category: 'medical' }),
    reply(REFUSAL),
  ];
  const items: Record<string, unknown>[] = [];
  for (const [i, action] of actions.entries()) {
    const r = await ask({ type: 'step', id: 2 + i, items: [{ episode_id: 'e', action }] });
    items.push(r.items[0]);
  }
  await ask({ type: 'close', id: 'c', episode_ids: ['e'] });
  return { raws, blocked: items[3], done: items[5] };
}

describe('a hook module served on a worker thread', () => {
  it('blocks with its feedback, answers what the in-process server answers, and its records replay identically', async () => {
    const records = tempDir('hg-hook-module-rec-');
    const [local, workers] = await Promise.all([listen({ port: 0, workers: 0 }), listen({ port: 0, workers: 1, record: { dir: records } })]);
    const a = await conversation(await connect(local.url));
    const b = await conversation(await connect(workers.url));
    expect(b.raws).toEqual(a.raws);

    const blocked = b.blocked as { info: Record<string, unknown> };
    expect(blocked).toEqual({
      episode_id: 'e',
      ok: true,
      observation: { messages: [{ role: 'user', content: `你的回复没有通过发布前检查：${REPORT_MESSAGE['zh-CN']}。请修改后重新回复。` }] },
      reward: 0,
      terminated: false,
      truncated: false,
      info: { ...blocked.info, hook_violations: [{ hook: 'refusal_reported', code: 'REPORT_MISMATCH' }] },
    });
    expect(Object.keys(blocked.info).sort()).toEqual(['hook_violations', 'intent', 'task_id', 'turn', 'variant_id']);
    expect([b.done.terminated, (b.done.info as Record<string, unknown>).outcome]).toEqual([true, 'refused']);
    const details = (b.done.info as { reward_details: Record<string, { value: number }> }).reward_details;
    expect(details.hook_compliance.value).toBeCloseTo(0.66, 10);

    // Closing the server flushes its record writers.
    await closeServer(workers.app);
    apps.splice(apps.indexOf(workers.app), 1);
    const r = readRecords(records);
    if (!r.ok) throw new Error(r.message);
    expect(r.result.records.length).toBe(1);
    const loaded = loadHarnessDir(harnessDir);
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const summary = replayRecords(r.result.records, { base: { harness: loaded.harness } });
    expect({ episodes: summary.episodes, identical: summary.identical, diverged: summary.diverged }).toEqual({ episodes: 1, identical: 1, diverged: 0 });
  }, 120_000);
});
