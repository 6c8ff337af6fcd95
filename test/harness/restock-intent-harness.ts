/**
 * The mini harness (mini-harness.ts) with an intent of its own, written from docs/HARNESS.md "Intents of
 * your own": `restock_alert` (a viewer asks when a sold-out link is back), served by the reply skill
 * `restock-alert`, made by the task template module `intents/restock-alert.mjs`, and answered through a
 * read-only custom tool `restock_eta` (`services/restock-eta.mjs`). Tests write it into a temporary
 * directory; `writeBrokenModule` swaps in a broken module to show how the harness is refused.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeMiniHarness } from './mini-harness.js';

function skill(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  kind: reply\n  intents: [restock_alert]\n---\n${body}\n`;
}

const SKILL = {
  'zh-CN': skill(
    'restock-alert',
    '观众问售罄的链接什么时候补货时使用。',
    '# 补货提醒\n\n- 用 restock_eta 按商品ID查补货时间。\n- 告诉观众哪个链接暂时售罄、预计几天后补货。\n- 口语化，一两句话。',
  ),
  en: skill(
    'restock-alert',
    'Use when a viewer asks when a sold-out link is back in stock.',
    '# Restock alert\n\n- Call restock_eta with the item id to get the restock time.\n- Tell the viewer the link is sold out for now and in how many days it is back.\n- Spoken style, one or two sentences.',
  ),
};

const TOOL = JSON.stringify(
  {
    type: 'function',
    function: {
      name: 'restock_eta',
      description: '查询商品售罄规格的预计补货时间。',
      parameters: {
        type: 'object',
        properties: { item_id: { type: 'string', description: '商品ID。' } },
        required: ['item_id'],
        additionalProperties: false,
      },
    },
  },
  null,
  2,
);

/** The custom service: read-only, deterministic in the world (days from a hash of the item id); its note backs the restock claim. */
export const RESTOCK_SERVICE = `export default {
  name: 'restock-eta',
  version: '1.0.0',
  call(tool, args, ctx) {
    const p = ctx.world.products.find((x) => x.item_id === args.item_id);
    if (!p) return { ok: false, error: { code: 'NOT_FOUND', message: 'no item ' + args.item_id, field: 'item_id' } };
    const sold = p.skus.filter((s) => s.stock === 0).map((s) => s.spec_text);
    let h = 0;
    for (const c of p.item_id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    const days = sold.length > 0 ? 3 + (h % 8) : 0;
    const note = days === 0 ? '' : ctx.locale === 'en' ? 'back in stock in ' + days + ' days' : '预计' + days + '天后补货';
    return { ok: true, result: { item_id: p.item_id, sold_out_options: sold, restock_in_days: days, note } };
  },
};
`;

/** The task template module: a link with a sold-out option, the viewer asking when it is back, the key. */
export const RESTOCK_MODULE = `export default {
  name: 'restock-alert',
  version: '1.0.0',
  intent: 'restock_alert',
  generate(ctx) {
    const candidates = ctx.world.products.filter((p) => p.skus.some((s) => s.stock === 0));
    if (candidates.length === 0) return null;
    const p = ctx.rng.pick(candidates);
    const eta = ctx.tools['custom.restock-eta'];
    const r = ctx.call(eta, { item_id: p.item_id });
    if (!r.ok) throw new Error(r.error.message);
    const d = r.data.restock_in_days;
    const n = p.link_no;
    const which = ctx.rng.int(0, 1);
    return {
      sub_kind: which === 0 ? 'when_back' : 'sold_out_ask',
      messages: {
        'zh-CN': [n + '号链接什么时候补货呀', n + '号链接断货了吗，啥时候有'][which],
        en: ['When will link ' + n + ' be back in stock?', 'Is link ' + n + ' sold out? When does it come back?'][which],
      },
      answer_key: {
        required_calls: [{ any_of: [{ name: eta, arguments: { item_id: p.item_id } }] }],
        solution: [{ name: eta, arguments: { item_id: p.item_id } }],
        optional_tools: [ctx.tools['product.get_product'], ctx.tools['inventory.check_stock']].filter(Boolean),
        required_facts: [{ key: 'restock_eta', values: ctx.locale === 'en' ? [d + ' days'] : [d + '天'] }],
        reference_reply: {
          'zh-CN': n + '号链接有规格暂时售罄，预计' + d + '天后补货，可以先收藏哦',
          en: 'Link ' + n + ' is sold out in some options for now, and it should be back in stock in ' + d + ' days.',
        },
      },
    };
  },
};
`;

/** Write the mini harness with `restock_alert` into `dir` (created); `module` replaces the task template module's text. */
export function writeRestockHarness(dir: string, module: string = RESTOCK_MODULE): string {
  writeMiniHarness(dir);
  const manifest = readFileSync(join(dir, 'harness.yaml'), 'utf8')
    .replace(
      '  chitchat: { skill: small-talk, generate: false }\n',
      '  chitchat: { skill: small-talk, generate: false }\n  restock_alert: { skill: restock-alert, module: restock-alert, weight: 1 }\n',
    )
    .replace('  open_skill: environment.load_skill\n', '  open_skill: environment.load_skill\n  restock_eta: custom.restock-eta\n');
  writeFileSync(join(dir, 'harness.yaml'), manifest);
  for (const [locale, text] of Object.entries(SKILL)) writeFileSync(join(dir, 'skills', locale, 'restock-alert.md'), text);
  writeFileSync(join(dir, 'tools', 'restock_eta.json'), TOOL);
  const en = JSON.parse(readFileSync(join(dir, 'tools', 'i18n', 'en.json'), 'utf8')) as Record<string, string>;
  en.restock_eta = 'Look up when the sold-out options of a product are back in stock.';
  en['restock_eta.item_id'] = 'The item id.';
  writeFileSync(join(dir, 'tools', 'i18n', 'en.json'), JSON.stringify(en, null, 2));
  mkdirSync(join(dir, 'services'), { recursive: true });
  writeFileSync(join(dir, 'services', 'restock-eta.mjs'), RESTOCK_SERVICE);
  mkdirSync(join(dir, 'intents'), { recursive: true });
  writeFileSync(join(dir, 'intents', 'restock-alert.mjs'), module);
  return dir;
}
