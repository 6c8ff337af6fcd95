/**
 * A harness with its own names (issue 14): a minimal directory written from docs/HARNESS.md (two reply
 * skills, two tools bound to simulated services, a skill loader, one hook, a task file) loads, passes the
 * HSA checker, is played by the oracle at 1.0 in every preset and over a real socket; custom service
 * modules answer their tools; and every binding error class is refused with its file and key.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadHarnessDir } from '../../harness/index.js';
import { createEpisode, defaultEnvConfig, loadHarnessTasks } from '../../env/index.js';
import { evaluate, runCheck } from '../../eval/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, testConfig } from '../server/helpers.js';
import { MINI_TASKS, writeMiniHarness } from './mini-harness.js';
import { loadDir as load } from './load-dir.js';

const dirs: string[] = [];
const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function miniDir(edit: (dir: string) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-mini-'));
  dirs.push(dir);
  writeMiniHarness(dir);
  edit(dir);
  return dir;
}

/** The errors of a mini harness after an edit. */
function errorsAfter(edit: (dir: string) => void): string[] {
  const r = loadHarnessDir(miniDir(edit));
  if (r.ok) {
    const tasks = loadHarnessTasks(r.harness);
    return tasks.ok ? [] : tasks.errors;
  }
  return r.errors;
}

/** Edit harness.yaml as data. */
function manifest(dir: string, edit: (m: Record<string, any>) => void): void {
  const file = join(dir, 'harness.yaml');
  const m = YAML.parse(readFileSync(file, 'utf8')) as Record<string, any>;
  edit(m);
  writeFileSync(file, YAML.stringify(m));
}

describe('a minimal harness with its own names', () => {
  it('loads: its skills, tools and one hook, bound by its manifest', () => {
    const h = load(miniDir());
    expect(h.identity).toMatchObject({ name: 'mini-shop', version: '0.1.0' });
    const zh = h.get('zh-CN');
    expect(zh.skills.map((s) => s.name)).toEqual(['item-facts', 'small-talk']);
    expect(zh.tools.map((t) => t.function.name)).toEqual(['item_lookup', 'stock_lookup', 'open_skill']);
    expect(zh.hooks.map((k) => [k.id, k.kind])).toEqual([['no_markdown', 'reply_format']]);
    expect(zh.prompt.blocks.map((b) => b.id)).toEqual(['persona', 'product_specs', 'skills_index']);
    expect(h.bindings.loadSkillTool).toBe('open_skill');
    expect(h.bindings.toolOf('get_product')).toBe('item_lookup');
    expect([...h.bindings.intents]).toEqual([
      ['product_qa', { skill: 'item-facts', generate: true }],
      ['chitchat', { skill: 'small-talk', generate: false }],
    ]);
  });

  it('serves only what it binds: generated product questions in its names, greetings from its task file', () => {
    const h = load(miniDir());
    const config = defaultEnvConfig({ harness: h });
    const tools = new Set(['item_lookup', 'stock_lookup']);
    const intents = new Map<string, number>();
    for (let seed = 0; seed < 120; seed++) {
      const picked = config.taskSource.pick(seed, {}, seed % 2 === 0 ? 'zh-CN' : 'en');
      if (!picked.ok) throw new Error(picked.message);
      const t = picked.task;
      intents.set(t.intent, (intents.get(t.intent) ?? 0) + 1);
      const key = t.answer_key;
      expect(key.reply_skills).toEqual([t.intent === 'chitchat' ? 'small-talk' : 'item-facts']);
      for (const c of [...key.solution, ...key.required_calls.flatMap((r) => r.any_of)]) expect(tools.has(c.name)).toBe(true);
      if (t.intent === 'chitchat') expect(MINI_TASKS.map((x) => x.id)).toContain(t.id);
      // The same seed and locale pick the same task again.
      expect(config.taskSource.pick(seed, {}, t.locale)).toEqual(picked);
    }
    expect([...intents.keys()].sort()).toEqual(['chitchat', 'product_qa']);
    const refused = config.taskSource.pick(1, { intent: 'after_sales' }, 'zh-CN');
    expect(refused).toEqual({
      ok: false,
      code: 'UNKNOWN_TASK',
      message: 'harness "mini-shop" does not serve intent after_sales in locale zh-CN, split train (it serves product_qa, chitchat)',
    });
  });

  it('passes the HSA checker and the oracle scores 1.0 on identity, train and eval', () => {
    const h = load(miniDir());
    const report = runCheck({ seeds: 40, harness: h });
    expect(report.determinism.failures).toBe(0);
    expect(report.task_preservation.max_delta).toBe(0);
    expect(report.round_trip.failures).toBe(0);
    expect(report.information.failures).toBe(0);
    for (const variant of ['identity', 'train', 'eval']) {
      for (const locale of ['zh-CN', 'en'] as const) {
        expect(evaluate({ policy: oraclePolicy, episodes: 60, seed: 11, variant, locale, config: { harness: h } }).reward.mean).toBe(1);
      }
    }
  }, 120_000);

  it('is played over a real socket: welcome names it, the oracle earns 1.0 in its names', async () => {
    const dir = miniDir();
    const app = buildServer(testConfig({ harness: dir, allow_oracle_hints: true }));
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await connect(url);
    const w = await c.hello({ seed: 1 });
    expect(w.harness).toMatchObject({ name: 'mini-shop', version: '0.1.0' });
    const items = [1, 2, 3, 4, 5, 6].map((seed) => ({
      episode_id: `m${seed}`,
      seed,
      variant: seed % 2 === 0 ? 'train' : 'identity',
      options: { locale: seed % 3 === 0 ? 'en' : 'zh-CN', oracle_hints: true },
    }));
    const r = await c.request({ type: 'reset', id: 'r', items });
    const live = new Map<string, unknown>();
    for (const it of r.items) {
      expect(it.ok).toBe(true);
      live.set(it.episode_id, it.info.oracle_action);
    }
    const identity = r.items.find((it: { episode_id: string }) => it.episode_id === 'm1');
    expect(identity.observation.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['item_lookup', 'stock_lookup', 'open_skill']);
    const rewards = new Map<string, number>();
    for (let turn = 0; live.size > 0 && turn < 12; turn++) {
      const s = await c.request({ type: 'step', id: turn, items: [...live].map(([episode_id, action]) => ({ episode_id, action })) });
      for (const it of s.items) {
        expect(it.ok).toBe(true);
        if (it.terminated || it.truncated) {
          rewards.set(it.episode_id, it.reward);
          live.delete(it.episode_id);
        } else live.set(it.episode_id, it.info.oracle_action);
      }
    }
    expect([...rewards.values()]).toEqual(items.map(() => 1));
    c.ws.close();
  }, 60_000);
});

describe('custom service modules', () => {
  const SERVICE = `export default {
  name: 'gift-wrap',
  version: '1.0.0',
  call(tool, args, ctx) {
    if (args.style === 'boom') throw new Error('wrapping machine jammed');
    if (args.style !== 'plain' && args.style !== 'festive') return { ok: false, error: { code: 'INVALID_ARGUMENTS', message: 'unknown style', field: 'style' } };
    return { ok: true, result: { tool, style: args.style, viewer: ctx.viewer_id, locale: ctx.locale } };
  },
};
`;
  const TOOL = {
    type: 'function',
    function: {
      name: 'wrap_gift',
      description: '为订单选择礼品包装。',
      parameters: { type: 'object', properties: { style: { type: 'string', description: '包装样式。' } }, required: ['style'], additionalProperties: false },
    },
  };
  function withService(dir: string, service = SERVICE): void {
    manifest(dir, (m) => (m.tools.wrap_gift = 'custom.gift-wrap'));
    writeFileSync(join(dir, 'tools', 'wrap_gift.json'), JSON.stringify(TOOL));
    const en = join(dir, 'tools', 'i18n', 'en.json');
    writeFileSync(en, JSON.stringify({ ...JSON.parse(readFileSync(en, 'utf8')), wrap_gift: 'Choose gift wrapping.', 'wrap_gift.style': 'The wrapping style.' }));
    mkdirSync(join(dir, 'services'), { recursive: true });
    writeFileSync(join(dir, 'services', 'gift-wrap.mjs'), service);
  }

  it('answers the tool bound to it: results, its typed errors, and a throw as a typed error', () => {
    const h = load(miniDir((d) => withService(d)));
    expect(h.services.get('gift-wrap')?.version).toBe('1.0.0');
    const config = defaultEnvConfig({ harness: h });
    const call = (style: string) => {
      const created = createEpisode(config, { episode_id: 'g', seed: 2, variant: 'identity', options: { parser: 'openai', locale: 'en' } });
      if (!created.ok) throw new Error(created.error.message);
      const ep = created.episode;
      ep.reset();
      const out = ep.step({
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'wrap_gift', arguments: JSON.stringify({ style }) } }] },
      });
      if (!out.ok) throw new Error('step refused');
      return out.observation.messages.find((m) => m.role === 'tool')?.content;
    };
    const viewer = (() => {
      const created = createEpisode(config, { episode_id: 'v', seed: 2, variant: 'identity', options: { locale: 'en' } });
      return created.ok ? created.episode.params.task.viewer_id : '';
    })();
    expect(JSON.parse(call('festive') ?? '')).toEqual({ tool: 'wrap_gift', style: 'festive', viewer, locale: 'en' });
    expect(call('square')).toContain('INVALID_ARGUMENTS');
    expect(call('boom')).toContain('wrapping machine jammed');
  });

  it('a missing or malformed module is refused at load, naming the file', () => {
    expect(errorsAfter((d) => manifest(d, (m) => (m.tools.item_lookup = 'custom.nowhere')))).toEqual([
      'services/nowhere.mjs: (file): missing: harness.yaml binds a tool to custom.nowhere, which is answered by this module',
    ]);
    expect(errorsAfter((d) => withService(d, "export default { name: 'gift-wrap', version: '' };\n"))).toEqual([
      'services/gift-wrap.mjs: default.version: must be a non-empty string',
      'services/gift-wrap.mjs: default.call: must be a function (tool, args, ctx) => { ok, result } | { ok: false, error }',
    ]);
    expect(errorsAfter((d) => withService(d, 'export default { name: "other", version: "1", call() {} };\n'))).toEqual([
      'services/gift-wrap.mjs: default.name: must be "gift-wrap" (the file name), got "other"',
    ]);
    expect(errorsAfter((d) => withService(d, 'this is not javascript\n'))[0]).toMatch(/^services\/gift-wrap\.mjs: \(file\): cannot load: /);
  });
});

describe('binding errors, each with its file and key', () => {
  it('intents: unknown intent, unknown skill, a strategy skill, multi_intent with a skill, no skill', () => {
    expect(errorsAfter((d) => manifest(d, (m) => (m.intents.gossip = 'item-facts')))).toContain(
      'harness.yaml: intents.gossip: unknown intent (intents: product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff); an intent of your own needs { skill, module, weight } (docs/HARNESS.md "Intents of your own")',
    );
    expect(
      errorsAfter((d) => {
        for (const locale of ['zh-CN', 'en']) {
          const f = join(d, 'skills', locale, 'small-talk.md');
          writeFileSync(f, readFileSync(f, 'utf8').replace('kind: reply', 'kind: strategy'));
        }
        manifest(d, (m) => {
          m.intents = { product_qa: 'item-answers', chitchat: 'small-talk', multi_intent: { skill: 'item-facts' }, handoff: {} };
        });
      }),
    ).toEqual([
      'harness.yaml: intents.product_qa: "item-answers" is not a skill of the harness (skills: item-facts, small-talk)',
      'harness.yaml: intents.chitchat: "small-talk" is a strategy skill; an intent is served by a reply skill (metadata.kind: reply)',
      "harness.yaml: intents.multi_intent.skill: multi_intent is served by its parts' skills; give { generate: true } or leave it out",
      'harness.yaml: intents.handoff: names no skill (give the reply skill that serves it)',
    ]);
  });

  it('without intents: the embedded bindings, whose skills must then exist', () => {
    const errors = errorsAfter((d) => manifest(d, (m) => delete m.intents));
    expect(errors[0]).toBe(
      'skills/zh-CN/product-qa.md: (file): missing: the skill "product-qa" is needed by the intents product_qa, whitelist (or bind the intents to your skills under intents: in harness.yaml)',
    );
    expect(errors).toHaveLength(8);
  });

  it('strategies: unknown role, unknown skill', () => {
    expect(errorsAfter((d) => manifest(d, (m) => (m.strategies = { 'multi-intent': 'juggling', 'small-talk': 'small-talk' })))).toEqual([
      'harness.yaml: strategies.small-talk: unknown strategy role (roles: multi-intent, refusal-whitelist, live-tone, compliance-guard)',
    ]);
    expect(errorsAfter((d) => manifest(d, (m) => (m.strategies = { 'multi-intent': 'juggling' })))).toEqual([
      'harness.yaml: strategies.multi-intent: "juggling" is not a skill of the harness',
    ]);
  });

  it('tools: an unknown operation, a binding without a file, a file without a binding, an operation bound twice, no skill loader', () => {
    expect(errorsAfter((d) => manifest(d, (m) => (m.tools.item_lookup = 'product.teleport')))[0]).toMatch(
      /^harness\.yaml: tools\.item_lookup: must be an operation \(product\.get_product, .*\) or custom\.<module>$/,
    );
    expect(
      errorsAfter((d) => {
        manifest(d, (m) => {
          m.tools.ghost_tool = 'product.search_faq';
          m.tools.stock_lookup = 'product.get_product';
          delete m.tools.open_skill;
        });
      }),
    ).toEqual([
      'harness.yaml: tools.stock_lookup: product.get_product is already bound to item_lookup; an operation answers one tool',
      'harness.yaml: tools.ghost_tool: no file tools/ghost_tool.json',
      'tools/open_skill.json: (file): not bound: add "open_skill: <service>.<operation>" or "open_skill: custom.<module>" under tools: in harness.yaml',
      'harness.yaml: tools: no tool is bound to environment.load_skill, so no skill can be loaded (bind one, e.g. load_skill: environment.load_skill)',
    ]);
  });

  it('a renamed tool keeps the parameters its operation reads', () => {
    const errors = errorsAfter((d) => {
      const f = join(d, 'tools', 'stock_lookup.json');
      writeFileSync(f, readFileSync(f, 'utf8').replace('"sku_id"', '"variant_id"'));
      const en = join(d, 'tools', 'i18n', 'en.json');
      writeFileSync(en, readFileSync(en, 'utf8').replace('stock_lookup.sku_id', 'stock_lookup.variant_id'));
    });
    expect(errors).toEqual([
      'tools/stock_lookup.json: function.parameters.properties.variant_id: the inventory service (inventory.check_stock) reads no parameter "variant_id" (it takes item_id, sku_id)',
      'tools/stock_lookup.json: function.parameters.properties: missing "sku_id", which the inventory service (inventory.check_stock) reads',
    ]);
  });

  it('skills: a file in one locale only, an invalid file name, a kind that differs between locales; prompt: a block twice', () => {
    const errors = errorsAfter((d) => {
      rmSync(join(d, 'skills', 'en', 'small-talk.md'));
      writeFileSync(join(d, 'skills', 'en', 'Small Talk.md'), readFileSync(join(d, 'skills', 'zh-CN', 'small-talk.md')));
      const f = join(d, 'skills', 'en', 'item-facts.md');
      writeFileSync(f, readFileSync(f, 'utf8').replace('kind: reply', 'kind: strategy'));
      const p = join(d, 'prompt.yaml');
      const prompt = YAML.parse(readFileSync(p, 'utf8'));
      prompt.blocks.push(prompt.blocks[0]);
      writeFileSync(p, YAML.stringify(prompt));
    });
    expect(errors).toEqual([
      'prompt.yaml: blocks.3.id: "persona" again (first at blocks.0); a block appears at most once',
      'skills/en/Small Talk.md: (file): "Small Talk" is not a valid skill name (^[a-z0-9]+(-[a-z0-9]+)*$, at most 64 characters)',
      'skills/en/small-talk.md: (file): missing: every skill has a file in each locale (skills/zh-CN/small-talk.md exists)',
      'skills/en/item-facts.md: metadata.kind: "strategy" but skills/zh-CN/item-facts.md says "reply"',
    ]);
  });

  it('tasks: an intent left to task files that has none, and a task naming what the harness lacks', () => {
    expect(errorsAfter((d) => rmSync(join(d, 'tasks'), { recursive: true }))).toEqual([
      'harness.yaml: intents.chitchat: generate: false, but the harness has no task files (tasks/*.jsonl) to serve it',
    ]);
    const errors = errorsAfter((d) => {
      const bad = { ...MINI_TASKS[0], id: 'bad', answer_key: { ...MINI_TASKS[0].answer_key, reply_skills: ['chitchat'], optional_tools: ['get_product'] } };
      writeFileSync(join(d, 'tasks', 'more.jsonl'), `${JSON.stringify(bad)}\n`);
    });
    expect(errors).toEqual([
      'tasks/more.jsonl:1: answer_key.reply_skills.0: "chitchat" is not a reply skill of the harness',
      'tasks/more.jsonl:1: answer_key.optional_tools.0: "get_product" is not a tool of the harness',
    ]);
  });

  it('every error of a directory is reported at once', () => {
    const errors = errorsAfter((d) => {
      manifest(d, (m) => {
        m.intents.product_qa = 'nope';
        m.tools.item_lookup = 'custom.nowhere';
        m.strategies = { 'live-tone': 'nope' };
      });
      rmSync(join(d, 'skills', 'en', 'small-talk.md'));
    });
    expect(errors).toEqual([
      'skills/en/small-talk.md: (file): missing: every skill has a file in each locale (skills/zh-CN/small-talk.md exists)',
      'harness.yaml: intents.product_qa: "nope" is not a skill of the harness (skills: item-facts, small-talk)',
      'harness.yaml: strategies.live-tone: "nope" is not a skill of the harness',
      'services/nowhere.mjs: (file): missing: harness.yaml binds a tool to custom.nowhere, which is answered by this module',
    ]);
  });
});
