/**
 * Tasks that carry their world inline (`Task.world`, docs/HARNESS.md "Tasks from production logs"): the
 * example file made from production logs loads, every episode plays in the world the line states (not a
 * generated one), the oracle solves each of its tasks on the base harness and on augmented variants,
 * every kind of bad world is reported as `file:line: world.<path>: what`, an episode is byte-identical
 * across runs, and its records replay.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlTaskSource, createEpisode, defaultEnvConfig, generateTask, privilegedView } from '../../env/index.js';
import type { EnvConfig } from '../../env/index.js';
import { TaskSchema } from '../../env/tasks/index.js';
import { checkSpecs, informationProblems, roundTripProblems } from '../../eval/index.js';
import { buildVariant } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { embeddedHarness } from '../../harness/index.js';
import { worldFor, worldOfTask } from '../../mock-services/index.js';
import { oraclePolicy } from '../../policies/index.js';
import type { Task } from '../../protocol/domain.js';
import type { WorldData } from '../../protocol/world.js';
import { ROOT, cli, tempDir } from '../cli/helpers.js';

const EXAMPLE = join(ROOT, 'examples', 'tasks', 'production-log.jsonl');
const zh = embeddedHarness().get('zh-CN');

function loadExample(): { config: EnvConfig; tasks: readonly Task[] } {
  const loaded = JsonlTaskSource.fromFiles([EXAMPLE], zh);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return { config: defaultEnvConfig({ taskSource: loaded.source }), tasks: loaded.source.tasks() };
}

/** Play one task with the oracle; every observation and step output, as JSON, and the final reward. */
function playOracle(config: EnvConfig, task: Task, variant: string | VariantSpec, seed: number): { transcript: string; reward: number; info: Record<string, unknown> } {
  const created = createEpisode(config, { episode_id: 'inline', seed, task: { id: task.id }, variant, options: { locale: task.locale } });
  if (!created.ok) throw new Error(created.error.message);
  const episode = created.episode;
  const reset = episode.reset();
  const out: unknown[] = [reset];
  const policy = oraclePolicy.start({ seed, parser: 'openai', observation: reset.observation, info: reset.info, privileged: privilegedView(episode) });
  let obs = reset.observation;
  let info = reset.info;
  for (let i = 0; i < 16; i++) {
    const step = episode.step(policy.act(obs, info));
    out.push(step);
    if (!step.ok) throw new Error(step.error.message);
    obs = step.observation;
    info = step.info;
    if (step.terminated || step.truncated) return { transcript: JSON.stringify(out), reward: step.reward, info: step.info };
  }
  throw new Error(`${task.id}: the oracle did not finish`);
}

describe('the production-log example file', () => {
  it('loads against the embedded harness: every task carries its world, in both locales', () => {
    const { tasks } = loadExample();
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(new Set(tasks.map((t) => t.locale))).toEqual(new Set(['zh-CN', 'en']));
    expect(new Set(tasks.map((t) => t.intent))).toEqual(new Set(['product_qa', 'chitchat', 'risky', 'marketing']));
    for (const t of tasks) expect(t.world, t.id).toBeDefined();
  });

  it('plays each task in the world its line states: the prompt shows that room and the services answer from it', () => {
    const { config, tasks } = loadExample();
    for (const task of tasks) {
      const created = createEpisode(config, { episode_id: 'w', seed: 1, task: { id: task.id }, variant: 'identity', options: { locale: task.locale } });
      if (!created.ok) throw new Error(created.error.message);
      const ep = created.episode;
      const data = task.world!;
      expect(ep.world).toEqual({ seed: task.world_seed, locale: task.locale, ...data });
      // Not the generated world of the same seed.
      expect(ep.world.products.map((p) => p.item_id)).not.toEqual(worldFor(task.world_seed, task.locale).products.map((p) => p.item_id));
      const system = String(ep.reset().observation.messages[0].content);
      const current = data.products.find((p) => p.link_no === data.room.current_link)!;
      for (const p of data.products) expect(system, task.id).toContain(p.item_id);
      expect(system).toContain(current.title);
      expect(system).toContain(String(current.live_price));
      expect(system).toContain(String(data.room.viewer_count));
      expect(system).toContain(data.room.persona.name);
      expect(system).toContain(data.viewers.find((v) => v.viewer_id === task.viewer_id)!.nickname);
    }
  });

  it('is solved by the oracle: reward 1 on every task, on the base harness and on augmented variants', () => {
    const { config, tasks } = loadExample();
    const scores: Record<string, number[]> = {};
    for (const task of tasks) {
      scores[task.id] = [];
      for (const [variant, seed] of [
        ['identity', 1],
        ['train', 2],
        ['train', 3],
        ['eval', 4],
      ] as const) {
        const r = playOracle(config, task, variant, seed);
        scores[task.id].push(r.reward);
        if (r.reward !== 1) throw new Error(`${task.id} (${variant}, seed ${seed}): reward ${r.reward}: ${JSON.stringify(r.info.reward_reasons ?? r.info)}`);
      }
    }
    for (const [id, rewards] of Object.entries(scores)) expect(rewards, id).toEqual([1, 1, 1, 1]);
  });

  it("keeps the checker's proofs (harness-gym check) under every family alone and the presets", () => {
    const { config, tasks } = loadExample();
    const set = embeddedHarness();
    const problems: string[] = [];
    for (const [i, task] of tasks.entries()) {
      const seed = 100 + i;
      const base = set.get(task.locale);
      const identity = playOracle(config, task, 'identity', seed).reward;
      for (const { name, spec } of checkSpecs()) {
        const a = buildVariant(base, spec, seed, task);
        const b = buildVariant(base, spec, seed, task);
        if (JSON.stringify([a.harness, a.tables, a.task]) !== JSON.stringify([b.harness, b.tables, b.task])) problems.push(`${task.id} ${name}: not deterministic`);
        for (const p of [...roundTripProblems(a, task), ...informationProblems(a, base, task)]) problems.push(`${task.id} ${name}: ${p}`);
        const played = playOracle(config, task, spec, seed).reward;
        if (played !== identity) problems.push(`${task.id} ${name}: reward ${identity} -> ${played}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('plays byte-identically twice, the file loaded anew each time', () => {
    const first = loadExample();
    const second = loadExample();
    for (const i of [0, first.tasks.length - 1]) {
      const a = playOracle(first.config, first.tasks[i], 'train', 7);
      const b = playOracle(second.config, second.tasks[i], 'train', 7);
      expect(a.transcript).toBe(b.transcript);
    }
  });
});

describe('inline worlds', () => {
  it('are the world of the task, built once per task; a task without one keeps its generated world', () => {
    const generated = generateTask(5, 'zh-CN');
    expect(worldOfTask(generated)).toBe(worldFor(generated.world_seed, 'zh-CN'));
    expect('world' in generated).toBe(false);
    const { tasks } = loadExample();
    expect(worldOfTask(tasks[0])).toBe(worldOfTask(tasks[0]));
    // A variant's copy of the task (`{...task, messages}`) shares the world.
    const copy: Task = { ...tasks[0], messages: ['x'] };
    expect(worldOfTask(copy)).toBe(worldOfTask(tasks[0]));
  });

  it('fill in what a log may lack: marketing, orders, FAQ, attributes, tags and order ids default to empty', () => {
    const line = JSON.parse(readFileSync(EXAMPLE, 'utf8').split('\n')[0]) as Task;
    const w = line.world!;
    const bare = {
      ...line,
      world: {
        now: w.now,
        room: w.room,
        products: [{ ...w.products[0], faq: undefined, attributes: undefined, campaign_ids: undefined }],
        viewers: [{ viewer_id: line.viewer_id, nickname: 'n', membership: 'none' }],
      },
    };
    const parsed = TaskSchema.safeParse(JSON.parse(JSON.stringify(bare)));
    expect(parsed.success && parsed.data.world).toMatchObject({
      coupons: [],
      flash_sales: [],
      bundles: [],
      gifts: [],
      presales: [],
      orders: [],
      products: [{ faq: [], attributes: {}, campaign_ids: [] }],
      viewers: [{ order_ids: [] }],
    });
  });

  it('report every kind of error as file:line: world.<path>: what', () => {
    type Line = Task & { world: WorldData };
    const base = JSON.parse(readFileSync(EXAMPLE, 'utf8').split('\n')[0]) as Line;
    const bad: [string, (t: Line) => void][] = [
      ['unknown key', (t) => Object.assign(t.world.products[0], { live_prise: 129 })],
      ['unknown top-level key', (t) => Object.assign(t.world, { seed: 3 })],
      ['missing key', (t) => delete (t.world.room as { persona?: unknown }).persona],
      ['wrong type', (t) => Object.assign(t.world.room, { viewer_count: '3120' })],
      ['negative price', (t) => (t.world.products[0].skus[1].price = -1)],
      ['three decimals', (t) => (t.world.products[0].live_price = 12.345)],
      ['time without offset', (t) => (t.world.now = '2026-12-03 20:15')],
      ['current link of no product', (t) => (t.world.room.current_link = 9)],
      ['duplicate link', (t) => (t.world.products[1].link_no = 1)],
      ['duplicate SKU id', (t) => (t.world.products[1].skus[0].sku_id = 'sk_cream_1')],
      ['order of an unknown SKU', (t) => (t.world.orders[0].sku_id = 'sk_cream_1')],
      ['coupon scope of an unknown item', (t) => (t.world.coupons[0].scope = { kind: 'items', item_ids: ['it_gone'] })],
      ['campaign id of nothing', (t) => t.world.products[2].campaign_ids.push('cp_gone')],
      ['flash sale ending before it starts', (t) => (t.world.flash_sales[0].ends_at = '2026-12-03T20:00:00+08:00')],
      ['asking viewer not listed', (t) => (t.viewer_id = 'vw_nobody')],
    ];
    const dir = tempDir('hg-inline-');
    const path = join(dir, 'bad.jsonl');
    const lines = bad.map(([name, mutate]) => {
      const t = structuredClone(base);
      t.id = `bad-${name.replace(/\W+/g, '-')}`;
      mutate(t);
      return JSON.stringify(t);
    });
    writeFileSync(path, `${lines.join('\n')}\n`);
    const r = JsonlTaskSource.fromFiles([path], zh);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      `${path}:1: world.products.0: Unrecognized key: "live_prise"`,
      `${path}:2: world: Unrecognized key: "seed"`,
      `${path}:3: world.room.persona: Invalid input: expected object, received undefined`,
      `${path}:4: world.room.viewer_count: Invalid input: expected number, received string`,
      `${path}:5: world.products.0.skus.1.price: Too small: expected number to be >=0`,
      `${path}:6: world.products.0.live_price: a price has at most two decimals`,
      `${path}:7: world.now: an ISO-8601 time with an offset, e.g. 2026-12-03T20:00:00+08:00`,
      `${path}:8: world.room.current_link: no product has link_no 9 (links: 1, 2, 3)`,
      `${path}:9: world.products.1.link_no: duplicate link number 1 (first at products.0)`,
      `${path}:10: world.products.1.skus.0.sku_id: duplicate sku_id "sk_cream_1" (first at products.0.skus.0)`,
      `${path}:11: world.orders.0.sku_id: item "it_log_scarf" has no SKU "sk_cream_1"`,
      `${path}:12: world.coupons.0.scope.item_ids.0: no product has item_id "it_gone"`,
      `${path}:13: world.products.2.campaign_ids.1: "cp_gone" is no coupon, flash sale, bundle, gift or presale of the world`,
      `${path}:14: world.flash_sales.0.ends_at: ends_at (2026-12-03T20:00:00+08:00) is before 2026-12-03T21:00:00+08:00`,
      `${path}:15: world.viewers: the task's viewer_id "vw_nobody" is none of the viewers (the asking viewer must be listed)`,
    ]);
  });

  it("docs/HARNESS.md's complete example line loads and the oracle solves it", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'HARNESS.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Tasks from production logs'));
    const line = /```json\n(.*)\n```/.exec(section)?.[1];
    expect(line).toBeDefined();
    const path = join(tempDir('hg-inline-doc-'), 'doc.jsonl');
    writeFileSync(path, `${line}\n`);
    const loaded = JsonlTaskSource.fromFiles([path], zh);
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const config = defaultEnvConfig({ taskSource: loaded.source });
    const [task] = loaded.source.tasks();
    expect(task.world?.coupons).toEqual([]);
    for (const [variant, seed] of [['identity', 1], ['train', 2]] as const) expect(playOracle(config, task, variant, seed).reward).toBe(1);
  });

  it('record and replay: eval --tasks --record, then replay, identical', async () => {
    const dir = tempDir('hg-inline-rec-');
    // The production log's tasks are all held out (split eval): the eval names that split (the default is train).
    const played = await cli(['eval', '--tasks', EXAMPLE, '--task-split', 'eval', '--episodes', '8', '--variant', 'train', '--record', dir, '--json']);
    expect(played.status).toBe(0);
    expect(JSON.parse(played.stdout)).toMatchObject({ episodes: 8, reward: { mean: 1 } });
    const replayed = await cli(['replay', dir]);
    expect(replayed.stdout).toContain('replayed 8 episodes: 8 identical, 0 diverged');
    expect(replayed.status).toBe(0);
  }, 60_000);
});
