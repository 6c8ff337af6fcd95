/**
 * The mini harness (mini-harness.ts) with a stateful custom service, as docs/HARNESS.md "Stateful
 * services" describes one: `services/restock.mjs` keeps the viewers' restock subscriptions,
 * `subscribe_restock {product_id}` adds one (a duplicate is CONFLICT, an unknown product NOT_FOUND), and
 * `tasks/restock.jsonl` holds tasks whose answer key expects the subscription in
 * `expected_state.custom.restock`. Tests write it into a temporary directory.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateWorld } from '../../mock-services/index.js';
import { writeMiniHarness } from './mini-harness.js';

/** The service module: deterministic, its state a list of subscriptions in call order. */
export const RESTOCK_MODULE = `// services/restock.mjs: restock subscriptions (a stateful custom service).
export default {
  name: 'restock',
  version: '1.0.0',
  initial_state: { subscriptions: [] },
  call(tool, args, ctx) {
    const id = args.product_id;
    if (!ctx.world.products.some((p) => p.item_id === id)) {
      return { ok: false, error: { code: 'NOT_FOUND', message: 'no product ' + id, field: 'product_id' } };
    }
    const subs = ctx.custom_state.subscriptions;
    if (subs.some((s) => s.viewer_id === ctx.viewer_id && s.product_id === id)) {
      return { ok: false, error: { code: 'CONFLICT', message: 'already subscribed to ' + id } };
    }
    const sub = { viewer_id: ctx.viewer_id, product_id: id };
    return { ok: true, result: { subscribed: true, product_id: id }, state: { subscriptions: [...subs, sub] } };
  },
};
`;

/** A tool file (the mini harness's shape). */
export function toolFile(name: string, description: string, properties: Record<string, unknown>, required: string[]): string {
  const parameters = { type: 'object', properties, required, additionalProperties: false };
  return JSON.stringify({ type: 'function', function: { name, description, parameters } }, null, 2);
}

/**
 * Bind one more custom tool in a harness directory: `tool: custom.<module>` in harness.yaml (the mini
 * manifest ends with its tools section), its tool file and English texts, and the module's source.
 */
export function addCustomTool(dir: string, tool: string, module: string, source: string, properties: Record<string, unknown>, required: string[]): void {
  writeFileSync(join(dir, 'harness.yaml'), readFileSync(join(dir, 'harness.yaml'), 'utf8') + `  ${tool}: custom.${module}\n`);
  writeFileSync(join(dir, 'tools', `${tool}.json`), toolFile(tool, `${tool} 工具。`, properties, required));
  const en = JSON.parse(readFileSync(join(dir, 'tools', 'i18n', 'en.json'), 'utf8')) as Record<string, string>;
  en[tool] = `The ${tool} tool.`;
  for (const p of Object.keys(properties)) en[`${tool}.${p}`] = `The ${p}.`;
  writeFileSync(join(dir, 'tools', 'i18n', 'en.json'), JSON.stringify(en, null, 2));
  mkdirSync(join(dir, 'services'), { recursive: true });
  writeFileSync(join(dir, 'services', `${module}.mjs`), source);
}

/** The room of the restock tasks (world seed 7, zh-CN): the product asked about and another one. */
export function restockProducts(): { wanted: string; other: string } {
  const world = generateWorld(7, 'zh-CN');
  return { wanted: world.products[0].item_id, other: world.products[1].item_id };
}

const EMPTY_STATE = { issued_coupons: [], pushed_cards: [], handoffs: [], refusals: [] };

/** The restock tasks: a viewer asks to be told when the first link is back (zh-CN, train and eval). */
export function restockTasks(): Record<string, unknown>[] {
  const { wanted } = restockProducts();
  return (['train', 'eval'] as const).map((split) => ({
    id: `restock-zh-${split}`,
    intent: 'product_qa',
    locale: 'zh-CN',
    split,
    world_seed: 7,
    viewer_id: 'vw_mini01',
    messages: ['1号链接到货了提醒我一下'],
    history: [],
    answer_key: {
      expect: 'answer',
      reply_skills: ['item-facts'],
      strategy_skills: [],
      required_calls: [{ any_of: [{ name: 'subscribe_restock', arguments: { product_id: wanted } }] }],
      solution: [{ name: 'subscribe_restock', arguments: { product_id: wanted } }],
      // The skill names the look-ups too: they are allowed, not required.
      optional_tools: ['item_lookup', 'stock_lookup'],
      required_facts: [{ key: 'subscribed', values: ['到货提醒'] }],
      forbidden_facts: [],
      expected_state: { ...EMPTY_STATE, custom: { restock: { subscriptions: [{ viewer_id: 'vw_mini01', product_id: wanted }] } } },
      cta: false,
      reference_reply: '好的宝宝，到货提醒已经帮你登记好了',
    },
  }));
}

/** Write the restock harness into `dir` (created); returns `dir`. Its task file is `tasks/restock.jsonl`. */
export function writeRestockHarness(dir: string): string {
  writeMiniHarness(dir);
  addCustomTool(dir, 'subscribe_restock', 'restock', RESTOCK_MODULE, { product_id: { type: 'string', description: '商品ID。' } }, ['product_id']);
  // The reply skill tells the agent to call it (harness-gym consistency: CALL_NOT_INSTRUCTED otherwise).
  for (const [locale, line] of [
    ['zh-CN', '- 观众要到货提醒时，用 subscribe_restock 帮他订阅。'],
    ['en', '- When a viewer wants a restock notice, call subscribe_restock for them.'],
  ] as const) {
    const file = join(dir, 'skills', locale, 'item-facts.md');
    writeFileSync(file, readFileSync(file, 'utf8').trimEnd() + `\n${line}\n`);
  }
  writeFileSync(join(dir, 'tasks', 'restock.jsonl'), restockTasks().map((t) => JSON.stringify(t)).join('\n') + '\n');
  return dir;
}

/** The path of the restock harness's task file. */
export function restockTaskFile(dir: string): string {
  return join(dir, 'tasks', 'restock.jsonl');
}
