/**
 * Stateful custom services (docs/HARNESS.md "Stateful services"): a module exporting `initial_state` keeps
 * a JSON state in `WorldState.custom`, changed by the `state` its calls return; the answer key's
 * `expected_state.custom.<module>` is scored by accuracy's state check; faults leave the state as it was;
 * bad states are typed errors; task files naming an unknown module are refused. In-process (the socket,
 * worker and replay side: test/recording/stateful-replay.test.ts).
 */
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonlTaskSource, createEpisode, defaultEnvConfig, loadHarnessTasks } from '../../env/index.js';
import type { Episode, EnvConfig, StepResult } from '../../env/index.js';
import { embeddedHarness, loadHarnessDir, CUSTOM_STATE_LIMITS } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { evaluate, taskContradictions } from '../../eval/index.js';
import { oraclePolicy, writeCalls, writeReply } from '../../policies/index.js';
import type { SurfaceCall } from '../../policies/index.js';
import { diffWorldState } from '../../rewards/index.js';
import { stableJson } from '../../protocol/stable-json.js';
import { emptyWorldState } from '../../protocol/domain.js';
import { addCustomTool, restockProducts, restockTaskFile, restockTasks, writeRestockHarness } from './restock-harness.js';
import { loadDir as load } from './load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempHarness(edit?: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-stateful-'));
  dirs.push(dir);
  writeRestockHarness(dir);
  edit?.(dir);
  return dir;
}

const base = load(tempHarness());
const { wanted, other } = restockProducts();
const SUBSCRIBED = { subscriptions: [{ viewer_id: 'vw_mini01', product_id: wanted }] };

function configOf(harness: HarnessSet, file?: string): EnvConfig {
  const src = JsonlTaskSource.fromFiles([file ?? restockTaskFile(harness.dir)], harness.get('zh-CN'));
  if (!src.ok) throw new Error(src.errors.join('\n'));
  return defaultEnvConfig({ harness, taskSource: src.source });
}

function episodeOf(opts: { harness?: HarnessSet; faults?: number; seed?: number; variant?: string } = {}): Episode {
  const config = configOf(opts.harness ?? base);
  const created = createEpisode(config, {
    episode_id: 'e',
    seed: opts.seed ?? 1,
    task: { id: 'restock-zh-train' },
    variant: opts.variant ?? 'identity',
    options: { locale: 'zh-CN', ...(opts.faults !== undefined ? { faults: opts.faults } : {}) },
  });
  if (!created.ok) throw new Error(created.error.message);
  created.episode.reset();
  return created.episode;
}

function calls(ep: Episode, list: Omit<SurfaceCall, 'id'>[]): Extract<StepResult, { ok: true }> {
  const r = ep.step(writeCalls('openai', list.map((c, i) => ({ ...c, id: `c${ep.turn}_${i}` }))));
  if (!r.ok) throw new Error(r.error.message);
  return r;
}

function reply(ep: Episode, text = '好的宝宝，到货提醒已经帮你登记好了'): Extract<StepResult, { ok: true }> {
  const r = ep.step(writeReply('openai', text));
  if (!r.ok) throw new Error(r.error.message);
  return r;
}

/** The content of the last tool message of a step's observation. */
function toolContent(r: Extract<StepResult, { ok: true }>): unknown {
  const tools = r.observation.messages.filter((m) => m.role === 'tool');
  return JSON.parse(String(tools[tools.length - 1].content));
}

const subscribe = (product_id: string) => ({ name: 'subscribe_restock', arguments: { product_id } });
const openSkill = { name: 'open_skill', arguments: { name: 'item-facts' } };

describe('the state of a stateful service', () => {
  it('starts at initial_state, and only a harness with a stateful service has custom state', () => {
    expect(episodeOf().state).toEqual({ ...emptyWorldState(), custom: { restock: { subscriptions: [] } } });
    const plain = createEpisode(defaultEnvConfig(), { episode_id: 'p', seed: 1, variant: 'identity' });
    if (!plain.ok) throw new Error(plain.error.message);
    expect('custom' in plain.episode.state).toBe(false);
    expect(embeddedHarness().services.size).toBe(0);
    expect(base.services.get('restock')?.stateful).toBe(true);
  });

  it('a call changes it; the trace records the change; a duplicate is CONFLICT and changes nothing', () => {
    const ep = episodeOf();
    const first = calls(ep, [openSkill, subscribe(wanted)]);
    expect(toolContent(first)).toEqual({ subscribed: true, product_id: wanted });
    expect(ep.state.custom).toEqual({ restock: SUBSCRIBED });
    expect(Object.isFrozen(ep.state.custom?.restock)).toBe(true);
    const again = calls(ep, [subscribe(wanted)]);
    expect(toolContent(again)).toEqual({ error: { code: 'CONFLICT', message: `already subscribed to ${wanted}` } });
    expect(again.info.tool_errors).toEqual([{ tool_call_id: 'c1_0', code: 'CONFLICT' }]);
    expect(ep.state.custom).toEqual({ restock: SUBSCRIBED });
    const calls1 = ep.trace().turns.flatMap((t) => t.calls);
    expect(calls1.map((c) => c.state_change)).toEqual([undefined, { module: 'restock', before: { subscriptions: [] }, after: SUBSCRIBED }, undefined]);
  });
});

describe('scoring the state', () => {
  it('the oracle scores 1 on tasks expecting the subscription, on identity and on variants, with faults too', () => {
    for (const variant of ['identity', 'train', 'eval']) {
      for (const faults of [0, 0.3]) {
        const s = evaluate({ policy: oraclePolicy, episodes: 6, seed: 11, variant, locale: 'zh-CN', faults, taskSplit: 'all', config: { harness: base, taskSource: configOf(base).taskSource } });
        expect({ variant, faults, mean: s.reward.mean }).toEqual({ variant, faults, mean: 1 });
      }
    }
  });

  it('the subscription made: accuracy 1; not made: the state component is lost (x0.55); the wrong product: missing and unexpected', () => {
    const made = episodeOf();
    calls(made, [openSkill, subscribe(wanted)]);
    const done = reply(made);
    expect(done.reward).toBe(1);
    expect(made.reward?.details.accuracy.reasons).toContain('final state matches the expected state');

    const skipped = episodeOf();
    calls(skipped, [openSkill]);
    const noCall = reply(skipped);
    const acc = skipped.reward?.details.accuracy;
    expect(acc?.value).toBe(0.55);
    expect(acc?.reasons).toContain(`state mismatch in custom: missing [restock: ${stableJson(SUBSCRIBED)}]`);
    expect(noCall.reward).toBeLessThan(1);
    expect(skipped.reward?.details.tool_rationality.value).toBe(0);

    const wrong = episodeOf();
    calls(wrong, [openSkill, subscribe(other)]);
    reply(wrong);
    const got = { subscriptions: [{ viewer_id: 'vw_mini01', product_id: other }] };
    expect(wrong.reward?.details.accuracy.value).toBe(0.55);
    expect(wrong.reward?.details.accuracy.reasons).toContain(
      `state mismatch in custom: missing [restock: ${stableJson(SUBSCRIBED)}]; unexpected [restock: ${stableJson(got)}]`,
    );
  });

  it('compares whole states by deep equality (keys in any order), a module the key does not name must not change, optional_state allows', () => {
    const state = (restock: unknown) => ({ ...emptyWorldState(), custom: { restock } });
    const reordered = { subscriptions: [{ product_id: wanted, viewer_id: 'vw_mini01' }] };
    expect(diffWorldState(state(SUBSCRIBED), state(reordered), undefined, { restock: { subscriptions: [] } })).toEqual({});
    // Not named: the module must end as it started.
    const changed = diffWorldState(emptyWorldState(), state(SUBSCRIBED), undefined, { restock: { subscriptions: [] } });
    expect(changed).toEqual({ custom: { missing: [], unexpected: [`restock: ${stableJson(SUBSCRIBED)}`] } });
    expect(diffWorldState(emptyWorldState(), state({ subscriptions: [] }), undefined, { restock: { subscriptions: [] } })).toEqual({});
    // Optional: made or not, no mismatch.
    const optional = { custom: { restock: SUBSCRIBED } };
    expect(diffWorldState(emptyWorldState(), state(SUBSCRIBED), optional, { restock: { subscriptions: [] } })).toEqual({});
    expect(diffWorldState(emptyWorldState(), state({ subscriptions: [] }), optional, { restock: { subscriptions: [] } })).toEqual({});
    // Built-in states alone keep their old diff (no custom key).
    expect(diffWorldState(emptyWorldState(), emptyWorldState())).toEqual({});
  });
});

describe('faults', () => {
  it('an injected fault leaves the state unchanged, for each kind (the oracle test above retries them to 1)', () => {
    const seen = new Set<string>();
    for (let seed = 1; seen.size < 3 && seed < 200; seed++) {
      const ep = episodeOf({ faults: 1, seed });
      const r = calls(ep, [subscribe(wanted)]);
      const code = (r.info.tool_errors as { code: string }[])[0].code;
      seen.add(code);
      expect(ep.state.custom).toEqual({ restock: { subscriptions: [] } });
      expect(ep.trace().turns[0].calls[0].state_change).toBeUndefined();
    }
    expect([...seen].sort()).toEqual(['MALFORMED_OUTPUT', 'PERMISSION_DENIED', 'TIMEOUT']);
    // At a rate below 1, the first attempts that fail leave it unchanged too.
    let faulted = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const ep = episodeOf({ faults: 0.5, seed });
      const r = calls(ep, [subscribe(wanted)]);
      if (r.info.tool_errors !== undefined) {
        faulted++;
        expect(ep.state.custom).toEqual({ restock: { subscriptions: [] } });
      }
    }
    expect(faulted).toBeGreaterThan(0);
  });
});

const BAD_MODULE = `export default {
  name: 'bad',
  version: '1.0.0',
  initial_state: { n: 0 },
  call(tool, args, ctx) {
    const states = {
      nan: () => ({ n: NaN }),
      map: () => new Map(),
      fn: () => ({ f() {} }),
      undef_in_array: () => ({ list: [undefined] }),
      big: () => ({ s: 'x'.repeat(${CUSTOM_STATE_LIMITS.max_bytes}) }),
      deep: () => { let v = 0; for (let i = 0; i < 40; i++) v = [v]; return v; },
      mutate: () => { ctx.custom_state.n = 1; return { n: 1 }; },
      same: () => ({ n: 0 }),
      ok: () => ({ n: ctx.custom_state.n + 1 }),
    };
    return { ok: true, result: { mode: args.mode }, state: states[args.mode]() };
  },
};
`;

const READ_ONLY = `export default {
  name: 'peek',
  version: '1.0.0',
  call() { return { ok: true, result: { seen: true }, state: { seen: 1 } }; },
};
`;

describe('bad states are typed errors, and the state stays', () => {
  const dir = tempHarness((d) => {
    addCustomTool(d, 'bad_state', 'bad', BAD_MODULE, { mode: { type: 'string', description: '模式。' } }, ['mode']);
    addCustomTool(d, 'peek_state', 'peek', READ_ONLY, {}, []);
  });
  const harness = load(dir);

  it.each([
    ['nan', 'n: NaN is not a finite number'],
    ['map', '(state): not a plain object (Map)'],
    ['fn', 'f: a function is not JSON'],
    ['undef_in_array', 'list[0]: a undefined is not JSON'],
    ['big', `${CUSTOM_STATE_LIMITS.max_bytes + 8} bytes of JSON, over the limit of ${CUSTOM_STATE_LIMITS.max_bytes}`],
    ['deep', `[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels`],
  ])('%s', (mode, why) => {
    const ep = episodeOf({ harness });
    const r = calls(ep, [{ name: 'bad_state', arguments: { mode } }]);
    expect(toolContent(r)).toEqual({ error: { code: 'CONFLICT', message: `bad_state: the service bad returned a state the episode cannot keep: ${why}` } });
    expect(ep.state.custom).toEqual({ restock: { subscriptions: [] }, bad: { n: 0 } });
  });

  it('the state it is shown is frozen; an unchanged state is no change; a good one is kept', () => {
    const ep = episodeOf({ harness });
    const mutate = calls(ep, [{ name: 'bad_state', arguments: { mode: 'mutate' } }]);
    expect(toolContent(mutate)).toEqual({ error: { code: 'CONFLICT', message: expect.stringMatching(/^bad_state: the service failed \(bad: Cannot assign to read only property 'n'/) } });
    calls(ep, [{ name: 'bad_state', arguments: { mode: 'same' } }]);
    calls(ep, [{ name: 'bad_state', arguments: { mode: 'ok' } }]);
    expect(ep.state.custom).toEqual({ restock: { subscriptions: [] }, bad: { n: 1 } });
    expect(ep.trace().turns.map((t) => t.calls[0].state_change)).toEqual([undefined, undefined, { module: 'bad', before: { n: 0 }, after: { n: 1 } }]);
  });

  it('a read-only module returning a state is CONFLICT naming the module', () => {
    const ep = episodeOf({ harness });
    const r = calls(ep, [{ name: 'peek_state', arguments: {} }]);
    expect(toolContent(r)).toEqual({
      error: { code: 'CONFLICT', message: 'peek_state: the service peek returned a state, but it exports no initial_state (a read-only service changes nothing)' },
    });
    expect(ep.state.custom).toEqual({ restock: { subscriptions: [] }, bad: { n: 0 } });
  });
});

describe('initial_state', () => {
  it('a non-JSON initial_state refuses the harness, naming the file and key', () => {
    const dir = tempHarness((d) => writeFileSync(join(d, 'services', 'restock.mjs'), readFileSync(join(d, 'services', 'restock.mjs'), 'utf8').replace('initial_state: { subscriptions: [] }', 'initial_state: { subscriptions: [], since: Infinity }')));
    const r = loadHarnessDir(dir);
    expect(r.ok ? [] : r.errors).toEqual(['services/restock.mjs: default.initial_state: must be a JSON value or a function (world) => JSON: since: Infinity is not a finite number']);
  });

  it('a function of the world; one that throws leaves the module without state and its calls say why', () => {
    const fromWorld = load(tempHarness((d) => writeFileSync(join(d, 'services', 'restock.mjs'), readFileSync(join(d, 'services', 'restock.mjs'), 'utf8').replace('initial_state: { subscriptions: [] }', 'initial_state: (world) => ({ subscriptions: [], room: world.room.room_id })'))));
    const ep = episodeOf({ harness: fromWorld });
    expect(ep.state.custom).toEqual({ restock: { subscriptions: [], room: ep.world.room.room_id } });
    const throwing = load(tempHarness((d) => writeFileSync(join(d, 'services', 'restock.mjs'), readFileSync(join(d, 'services', 'restock.mjs'), 'utf8').replace('initial_state: { subscriptions: [] }', "initial_state: () => { throw new Error('no store'); }"))));
    const broken = episodeOf({ harness: throwing });
    expect(broken.state.custom).toEqual({ restock: null });
    const r = calls(broken, [subscribe(wanted)]);
    expect(toolContent(r)).toEqual({ error: { code: 'CONFLICT', message: 'subscribe_restock: the service restock has no state in this episode (initial_state(world) failed: no store)' } });
  });
});

describe('task files naming custom states', () => {
  function withKey(edit: (key: Record<string, unknown>) => void): string {
    const dir = tempHarness();
    const tasks = restockTasks();
    edit(tasks[0].answer_key as Record<string, unknown>);
    writeFileSync(restockTaskFile(dir), tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    return dir;
  }

  it('an unknown or read-only module, or a bad state, is an error naming the file, line and key', () => {
    const dir = withKey((key) => {
      (key.expected_state as Record<string, unknown>).custom = { restok: {}, restock: { n: 'x'.repeat(CUSTOM_STATE_LIMITS.max_bytes) } };
      key.optional_state = { custom: { peek: {} } };
    });
    const r = loadHarnessTasks(load(dir));
    expect(r.ok ? [] : r.errors).toEqual([
      'tasks/restock.jsonl:1: answer_key.expected_state.custom.restok: "restok" is not a stateful service of the harness: no service of the harness is named so (stateful: restock)',
      `tasks/restock.jsonl:1: answer_key.expected_state.custom.restock: ${CUSTOM_STATE_LIMITS.max_bytes + 8} bytes of JSON, over the limit of ${CUSTOM_STATE_LIMITS.max_bytes}`,
      'tasks/restock.jsonl:1: answer_key.optional_state.custom.peek: "peek" is not a stateful service of the harness: no service of the harness is named so (stateful: restock)',
    ]);
  });

  it('the schema takes custom as an object of modules', () => {
    const dir = withKey((key) => {
      (key.expected_state as Record<string, unknown>).custom = [1];
    });
    const r = loadHarnessTasks(load(dir));
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors[0]).toMatch(/^tasks\/restock\.jsonl:1: answer_key\.expected_state\.custom: /);
  });
});

describe('consistency of keys expecting custom states', () => {
  it('the restock tasks agree with their skill; a key expecting the state that no served skill instructs is CALL_NOT_INSTRUCTED', () => {
    const [task] = restockTasks() as unknown as Parameters<typeof taskContradictions>[0][];
    expect(taskContradictions(task, base)).toEqual([]);
    const silent = load(tempHarness((d) => {
      const file = join(d, 'skills', 'zh-CN', 'item-facts.md');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^- 观众要到货提醒时.*$/m, ''));
    }));
    // Only the state expected (the call not required): the state's tools must be instructed.
    const stateOnly = { ...task, answer_key: { ...task.answer_key, required_calls: [] } };
    expect(taskContradictions(stateOnly, silent)).toEqual([
      { code: 'CALL_NOT_INSTRUCTED', a: 'the key expects the state of custom.restock (subscribe_restock)', b: 'no served skill (item-facts) tells the agent to call it' },
    ]);
  });
});
