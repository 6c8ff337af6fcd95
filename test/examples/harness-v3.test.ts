/**
 * examples/harness-v3 (live-commerce 3.0.0, "Evolution 3: restock alerts"): its own intent restock_alert
 * (intents/restock-alert.mjs), the stateful service behind subscribe_restock (services/restock.mjs) and
 * the hook module checked_before_subscribe (hooks/checked-before-subscribe.mjs), together. Served over a
 * real socket from a worker thread: the oracle plays restock_alert in both locales (reward 1, the final
 * state holds the one subscription), a subscription made without a prior stock check has its reply sent
 * back by the hook module, the records replay identically; and the memorizer fitted to v3 plays its
 * identity and falls on train.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, evaluateRemote } from '../../eval/index.js';
import { generateFor } from '../../env/index.js';
import { loadHarnessDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { memorizerFor, oraclePolicy } from '../../policies/index.js';
import type { Intent, Locale } from '../../protocol/domain.js';
import { readRecords, replayRecords } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import { connect, testConfig } from '../server/helpers.js';

const HARNESS_DIR = join(import.meta.dirname, '../../examples/harness-v3');
const LOCALES: Locale[] = ['zh-CN', 'en'];
const EPISODES = 4;
const dirs: string[] = [];
let harness: HarnessSet;
let records: LoadedRecord[];
const means: Record<string, number> = {};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let blocked: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let probeTask: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let resubscribed: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let accepted: any;

beforeAll(async () => {
  const loaded = loadHarnessDir(HARNESS_DIR);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  harness = loaded.harness;
  const recordDir = mkdtempSync(join(tmpdir(), 'hg-v3-rec-'));
  dirs.push(recordDir);
  const app = buildServer(testConfig({ workers: 1, harness: HARNESS_DIR, record: { dir: recordDir } }));
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    for (const locale of LOCALES) {
      const summary = await evaluateRemote({
        url: url.replace(/^http/, 'ws') + '/v1/env',
        policy: oraclePolicy,
        episodes: EPISODES,
        seed: 3,
        variant: 'identity',
        locale,
        intent: 'restock_alert',
        config: { harness },
      });
      expect(summary.intents).toEqual({ restock_alert: EPISODES });
      means[locale] = summary.reward.mean;
    }
    // An agent that signs the viewer up without checking the stock first.
    probeTask = generateFor(harness, 4, 'zh-CN', 'restock_alert' as Intent, 'train');
    const sub = probeTask.answer_key.solution[1];
    const c = await connect(url);
    await c.hello({});
    const reset = await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'p', seed: 4, task: { id: probeTask.id } }] });
    expect(reset.items[0].ok).toBe(true);
    const call = (id: string, name: string, args: unknown) => ({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      },
    });
    await c.request({ type: 'step', id: 2, items: [{ episode_id: 'p', action: call('c1', 'load_skill', { name: 'restock-alert' }) }] });
    await c.request({ type: 'step', id: 3, items: [{ episode_id: 'p', action: call('c2', 'subscribe_restock', sub.arguments) }] });
    blocked = await c.request({
      type: 'step',
      id: 4,
      items: [{ episode_id: 'p', action: { text: probeTask.answer_key.reference_reply } }],
    });
    // Sent back, it checks the stock and signs up again (the service answers the repeat with CONFLICT).
    await c.request({
      type: 'step',
      id: 5,
      items: [{ episode_id: 'p', action: call('c3', 'check_stock', { item_id: sub.arguments.item_id }) }],
    });
    resubscribed = await c.request({
      type: 'step',
      id: 6,
      items: [{ episode_id: 'p', action: call('c4', 'subscribe_restock', sub.arguments) }],
    });
    accepted = await c.request({
      type: 'step',
      id: 7,
      items: [{ episode_id: 'p', action: { text: probeTask.answer_key.reference_reply } }],
    });
    c.ws.close();
  } finally {
    await closeServer(app);
  }
  const r = readRecords(recordDir);
  if (!r.ok) throw new Error(r.message);
  records = r.result.records.filter((x) => x.record.source_task.intent === 'restock_alert' && x.record.steps.length > 0);
}, 60_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('examples/harness-v3 served from a worker thread', () => {
  it('the oracle scores 1 on restock_alert in both locales, and every final state holds the one subscription', () => {
    expect(means).toEqual({ 'zh-CN': 1, en: 1 });
    const oracle = records.filter((x) => x.record.episode_id !== 'p');
    expect(oracle.length).toBe(2 * EPISODES);
    for (const { record } of oracle) {
      const [, sub] = record.source_task.answer_key.solution;
      expect(sub.name).toBe('subscribe_restock');
      expect(record.trace.final_state.custom).toEqual({
        restock: { subscriptions: [{ viewer_id: record.source_task.viewer_id, ...sub.arguments }] },
      });
    }
  });

  it('the hook module sends back a reply whose subscription had no stock check before it', () => {
    expect(probeTask.id).toBe('gen-train-zh-CN-4-restock_alert');
    expect(blocked).toEqual({
      type: 'step_result',
      id: 4,
      items: [
        {
          ok: true,
          episode_id: 'p',
          observation: {
            messages: [
              {
                role: 'user',
                content:
                  '你的回复没有通过发布前检查：登记到货提醒之前，没有先查这个商品的库存。请先查这个商品的库存，确认卖完后再为观众登记到货提醒，然后回复。请修改后重新回复。',
              },
            ],
          },
          reward: 0,
          terminated: false,
          truncated: false,
          info: {
            task_id: 'gen-train-zh-CN-4-restock_alert',
            intent: 'restock_alert',
            variant_id: 'identity',
            turn: 3,
            hook_violations: [{ hook: 'checked_before_subscribe', code: 'STOCK_NOT_CHECKED' }],
          },
        },
      ],
    });
    // Checked, then signed up again: the repeat is a CONFLICT, the hook is satisfied, the reply accepted.
    expect(resubscribed.items[0].info.tool_errors).toEqual([{ tool_call_id: 'c4', code: 'CONFLICT' }]);
    const end = accepted.items[0];
    expect([end.terminated, end.info.outcome, end.info.hook_violations]).toEqual([true, 'accepted', undefined]);
    expect(end.info.reward_components).toEqual({
      accuracy: 1,
      effectiveness: 1,
      hook_compliance: 0.66,
      tool_rationality: 0.8,
      skill_selection: 1,
    });
    expect(end.info.reward_details.hook_compliance.reasons[0]).toBe(
      'turn 3: checked_before_subscribe/STOCK_NOT_CHECKED (evidence: it_2a7d45)',
    );
  });

  it('the records replay identically', () => {
    const summary = replayRecords(records, { base: { harness } });
    expect(summary.results.filter((r) => r.divergence !== undefined).map((r) => r.divergence?.message)).toEqual([]);
    expect(summary.identical).toBe(records.length);
  });
});

describe('the memorizer fitted to examples/harness-v3', () => {
  it('scores at least 0.9 on identity and less on train', () => {
    const run = (variant: string) =>
      evaluate({ policy: memorizerFor(harness), episodes: 40, seed: 1, variant, locale: 'zh-CN', config: { harness } }).reward.mean;
    const identity = run('identity');
    const train = run('train');
    expect(identity).toBeGreaterThanOrEqual(0.9);
    expect(train).toBeLessThan(identity - 0.4);
    // restock_alert alone: the check_stock call, then the sold-out SKU's subscription by the names it saw.
    const own = (variant: string) =>
      evaluate({
        policy: memorizerFor(harness),
        episodes: 10,
        seed: 1,
        variant,
        locale: 'en',
        intent: 'restock_alert',
        config: { harness },
      }).reward.mean;
    expect(own('identity')).toBe(1);
    expect(own('train')).toBeLessThan(0.5);
  });
});
