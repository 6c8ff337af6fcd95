/**
 * `paraphrases.yaml` (docs/HARNESS.md "Alternative wordings"): the embedded harness's file loads, deep-
 * frozen, with every wording the operators draw; a broken one is refused with one `paraphrases.yaml:
 * key: message` line per problem (unknown skill, tool or block, empty half, an entry in both halves, a
 * digit, an unknown placeholder or key, bad YAML); a harness without the file loads, and the operators
 * that need wordings are not applicable there: they change nothing and are never listed as applied.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Locale, Split } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { Rng } from '../../protocol/rng.js';
import { CANONICAL_SKILLS, CANONICAL_TOOLS, PROMPT_BLOCK_ORDER, embeddedHarness, harnessDataDir, loadHarnessDir, loadParaphrases } from '../../harness/index.js';
import { OPERATORS, buildVariant, notApplicableOperators } from '../../harness-variants/index.js';
import type { HarnessTransform } from '../../harness-variants/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { writeMiniHarness } from './mini-harness.js';
import { loadDir as loaded } from './load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the embedded harness's data files (not its TypeScript) in a fresh directory, then edited. */
function copyHarness(edit: (dir: string) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-paraphrases-'));
  dirs.push(dir);
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  edit(dir);
  return dir;
}

/** The errors of a copy whose paraphrases.yaml is `text`. */
function errorsWith(text: string): string[] {
  const r = loadHarnessDir(copyHarness((d) => writeFileSync(join(d, 'paraphrases.yaml'), text)));
  return r.ok ? [] : r.errors;
}

/** The operators that need wordings. */
const WORDING_OPS = [
  'skills.rename.semantic',
  'skills.rename.locale',
  'skills.describe.paraphrase',
  'tools.rename.semantic',
  'tools.describe.paraphrase',
  'prompt.instructions.paraphrase',
];
const wordingOps: HarnessTransform[] = OPERATORS.filter((o) => WORDING_OPS.includes(o.name));

const CASES: { seed: number; locale: Locale; split: Split }[] = [];
for (const locale of ['zh-CN', 'en'] as const) for (const split of ['train', 'eval'] as const) for (const seed of [1, 2, 3, 4, 5]) CASES.push({ seed, locale, split });

/** What the wording operators can change: names, descriptions and prompt blocks. */
function surface(h: Harness) {
  return {
    skills: h.skills.map((s) => [s.name, s.description]),
    tools: h.tools.map((t) => [t.function.name, t.function.description]),
    blocks: h.prompt.blocks.map((b) => [b.title, b.template, [...b.items]]),
  };
}

describe('the embedded paraphrases.yaml', () => {
  it('loads, deep-frozen, with every wording of every skill, tool and block', () => {
    const p = embeddedHarness().paraphrases;
    if (!p) throw new Error('the embedded harness has no paraphrases');
    expect(Object.isFrozen(p) && Object.isFrozen(p.skills) && Object.isFrozen(p.skills['product-qa']?.description?.en?.train)).toBe(true);
    expect(Object.keys(p.skills)).toEqual(CANONICAL_SKILLS);
    for (const s of CANONICAL_SKILLS) {
      const w = p.skills[s];
      expect([w?.synonyms, w?.locale_names, w?.description?.['zh-CN'], w?.description?.en].every((x) => x !== undefined), s).toBe(true);
    }
    // Every tool but discover_tools (the MCP discovery tool keeps its name and text).
    expect(Object.keys(p.tools)).toEqual(CANONICAL_TOOLS.filter((t) => t !== 'discover_tools'));
    expect(Object.keys(p.blocks)).toEqual(PROMPT_BLOCK_ORDER);
    // A name that is no key is absent, whatever Object.prototype holds.
    expect([p.skills.constructor, p.tools.toString, p.blocks.__proto__]).toEqual([undefined, undefined, undefined]);
    const errors: string[] = [];
    expect(loadParaphrases(harnessDataDir(), { skills: CANONICAL_SKILLS, tools: CANONICAL_TOOLS, blocks: PROMPT_BLOCK_ORDER }, errors)).toEqual(p);
    expect(errors).toEqual([]);
  });

  it('every wording operator applies in the embedded harness', () => {
    for (const locale of embeddedHarness().locales) expect(notApplicableOperators(embeddedHarness().get(locale))).toEqual([]);
  });
});

describe('a broken paraphrases.yaml', () => {
  // The harness's skill and tool files, in file-name order.
  const skills = [...CANONICAL_SKILLS].sort().join(', ');
  const tools = [...CANONICAL_TOOLS].sort().join(', ');
  const placeholders = 'persona_name, persona_style, current_product, lineup, faq, room, viewer, skills, tools, reply_max_chars, max_turns';

  it('a key naming no skill, tool or block of the harness', () => {
    expect(
      errorsWith(
        [
          'skills:',
          '  product-qa: { synonyms: { train: [goods-qa], eval: [item-help] } }',
          '  product-faq: { synonyms: { train: [faq-answers], eval: [faq-help] } }',
          'tools:',
          '  get_weather: { synonyms: { train: [weather_now], eval: [forecast] } }',
          'blocks:',
          '  greeting: { en: { train: [{ title: Hello }], eval: [{ title: Hi }] } }',
        ].join('\n'),
      ),
    ).toEqual([
      `paraphrases.yaml: skills.product-faq: not a skill of this harness (skills: ${skills})`,
      `paraphrases.yaml: tools.get_weather: not a tool of this harness (tools: ${tools})`,
      `paraphrases.yaml: blocks.greeting: not a prompt block of this harness (blocks: ${PROMPT_BLOCK_ORDER.join(', ')})`,
    ]);
  });

  it('an empty half, and an entry in both halves', () => {
    expect(
      errorsWith(
        [
          'skills:',
          '  chitchat:',
          '    synonyms: { train: [], eval: [small-talk] }',
          '    description: { en: { train: [Small talk.], eval: [Small talk.] } }',
          'tools:',
          '  check_stock: { synonyms: { train: [stock_lookup] } }',
        ].join('\n'),
      ),
    ).toEqual([
      'paraphrases.yaml: skills.chitchat.synonyms.train: must not be empty: every list has a train half and a held-out eval half',
      'paraphrases.yaml: skills.chitchat.description.en.eval.0: is in the train half too: the eval half is held out',
      'paraphrases.yaml: tools.check_stock.synonyms.eval: Invalid input: expected array, received undefined',
    ]);
  });

  it('a digit anywhere, and a placeholder the renderer does not fill', () => {
    expect(
      errorsWith(
        [
          'skills:',
          '  promotion: { locale_names: { train: [youhui-huodong], eval: [huodong2] } }',
          'tools:',
          '  get_coupon: { description: { zh-CN: { train: [查询优惠券。], eval: [查询第3张优惠券。] } } }',
          'blocks:',
          '  persona:',
          '    en:',
          '      train: [{ title: Role, template: "You are {{persona_name}}." }]',
          '      eval: [{ title: Host, template: "You are {{host_name}}." }]',
        ].join('\n'),
      ),
    ).toEqual([
      'paraphrases.yaml: skills.promotion.locale_names.eval.0: contains a digit: numbers come from tools and the room, never from harness text',
      'paraphrases.yaml: tools.get_coupon.description.zh-CN.eval.0: contains a digit: numbers come from tools and the room, never from harness text',
      `paraphrases.yaml: blocks.persona.en.eval.0.template: unknown placeholder {{host_name}} (placeholders: ${placeholders})`,
    ]);
  });

  it('a key the schema does not know, a name that is no tool name, a block paraphrase that says nothing', () => {
    expect(
      errorsWith(
        [
          'skills:',
          '  after-sales: { renames: { train: [returns], eval: [refunds] } }',
          'tools:',
          '  list_orders: { synonyms: { train: [my orders], eval: [order_list] } }',
          'blocks:',
          '  faq: { fr: { train: [{ title: FAQ }], eval: [{ title: Questions }] }, en: { train: [{}], eval: [{ title: Questions }] } }',
          'rules: {}',
        ].join('\n'),
      ),
    ).toEqual([
      'paraphrases.yaml: skills.after-sales: Unrecognized key: "renames"',
      'paraphrases.yaml: tools.list_orders.synonyms.train.0: must be a tool name: 1-64 of A-Z, a-z, 0-9, "_", "-"',
      'paraphrases.yaml: blocks.faq.en.train.0: gives none of title, template, items',
      'paraphrases.yaml: blocks.faq: Unrecognized key: "fr"',
      'paraphrases.yaml: (root): Unrecognized key: "rules"',
    ]);
  });

  it('bad YAML is one line naming the file', () => {
    expect(errorsWith('skills: [\n')).toEqual([expect.stringMatching(/^paraphrases\.yaml: \(file\): invalid YAML: Flow sequence in block collection/)]);
    expect(errorsWith('skills:\n  chitchat: {}\n  chitchat: {}\n')).toEqual([expect.stringMatching(/^paraphrases\.yaml: \(file\): invalid YAML: Map keys must be unique/)]);
  });
});

describe('a harness without paraphrases.yaml', () => {
  const without = () => loaded(copyHarness((d) => rmSync(join(d, 'paraphrases.yaml'))));

  it('loads, and the operators that need wordings are not applicable, saying why', () => {
    const set = without();
    expect(set.paraphrases).toBeUndefined();
    for (const locale of set.locales) {
      expect(notApplicableOperators(set.get(locale))).toEqual(WORDING_OPS.map((name) => ({ name, reason: 'the harness has no paraphrases.yaml' })));
    }
  });

  it('variants change none of its names, descriptions or prompt blocks, and never list those operators', () => {
    const set = without();
    for (const { seed, locale, split } of CASES) {
      const base = set.get(locale);
      const task = generateTask(seed, locale);
      const v = buildVariant(base, { families: ['skills', 'tools', 'prompt'], intensity: 1, split }, seed, task, wordingOps);
      expect(v.applied).toEqual([]);
      expect(surface(v.harness)).toEqual(surface(base));
      // The same operators do change the embedded harness (which has the file).
      const e = buildVariant(embeddedHarness().get(locale), { families: ['skills', 'tools', 'prompt'], intensity: 1, split }, seed, task, wordingOps);
      expect(e.applied).toEqual(WORDING_OPS);
      expect(surface(e.harness)).not.toEqual(surface(embeddedHarness().get(locale)));
    }
    // Every operator: a preset variant of it applies none of them.
    const base = set.get('zh-CN');
    const v = buildVariant(base, { families: ['skills', 'tools', 'prompt', 'hooks'], intensity: 1, split: 'train' }, 7, generateTask(7, 'zh-CN'));
    expect(v.applied.filter((n) => WORDING_OPS.includes(n))).toEqual([]);
    expect(v.applied.length).toBeGreaterThan(0);
  });

  it('wordings for some things only: the operator applies to those alone', () => {
    const set = loaded(
      copyHarness((d) =>
        writeFileSync(
          join(d, 'paraphrases.yaml'),
          ['skills:', '  chitchat:', '    description:', '      en: { train: [Friendly small talk with viewers.], eval: [Casual chat with the room.] }'].join('\n'),
        ),
      ),
    );
    const op = wordingOps.filter((o) => o.name === 'skills.describe.paraphrase');
    expect(notApplicableOperators(set.get('zh-CN'), op)).toEqual([
      { name: 'skills.describe.paraphrase', reason: 'paraphrases.yaml gives no zh-CN skill descriptions (skills.<skill>.description.zh-CN)' },
    ]);
    expect(notApplicableOperators(set.get('en'), op)).toEqual([]);
    for (const seed of [1, 2, 3]) {
      const base = set.get('en');
      const v = buildVariant(base, { families: ['skills'], intensity: 1, split: 'train' }, seed, generateTask(seed, 'en'), op);
      const changed = v.harness.skills.filter((s, i) => s.description !== base.skills[i].description);
      expect(changed.map((s) => [s.name, s.description])).toEqual([['chitchat', 'Friendly small talk with viewers.']]);
    }
  });
});

describe('a harness with other names', () => {
  /** The embedded harness in `locale` with fewer skills, tools and blocks, renamed (built in code). */
  function renamed(locale: Locale, skills: string[], tools: string[]): Harness {
    const embedded = embeddedHarness().get(locale);
    return {
      ...embedded,
      skills: embedded.skills.slice(0, skills.length).map((s, i) => ({ ...s, name: skills[i] })),
      tools: embedded.tools.slice(0, tools.length).map((t, i) => ({ ...t, function: { ...t.function, name: tools[i] } })),
      prompt: { ...embedded.prompt, blocks: embedded.prompt.blocks.slice(0, 2) },
    };
  }

  it('the wording operators leave names their wordings do not know alone, and do not crash', () => {
    for (const locale of ['zh-CN', 'en'] as const) {
      // A harness built in code belongs to no directory: its wordings are the embedded harness's.
      const base = renamed(locale, ['faq-bot', 'greeter', 'returns-desk'], ['lookup_item', 'ship_status', 'coupon_desk']);
      // Its two blocks (persona, product_specs) have wordings; none of its skills and tools has.
      expect(notApplicableOperators(base, wordingOps).map((o) => o.name)).toEqual(WORDING_OPS.filter((n) => n !== 'prompt.instructions.paraphrase'));
      for (const { seed, split } of CASES.filter((c) => c.locale === locale)) {
        const v = buildVariant(base, { families: ['skills', 'tools', 'prompt'], intensity: 1, split }, seed, generateTask(seed, locale), wordingOps);
        expect(v.applied).toEqual(['prompt.instructions.paraphrase']);
        expect(surface(v.harness).skills).toEqual(surface(base).skills);
        expect(surface(v.harness).tools).toEqual(surface(base).tools);
      }
    }
  });

  it('a harness directory with its own names: its wordings are keyed by them, and the operators draw them', () => {
    const dir = writeMiniHarness(mkdtempSync(join(tmpdir(), 'hg-paraphrases-mini-')));
    dirs.push(dir);
    const wordings = [
      'skills:',
      '  item-facts:',
      '    synonyms: { train: [goods-facts], eval: [item-answers] }',
      '    description: { en: { train: [Answers about one item.], eval: [Facts of one item.] } }',
      'tools:',
      '  item_lookup: { synonyms: { train: [goods_info], eval: [item_detail] } }',
      '  get_product: { synonyms: { train: [query_item], eval: [product_profile] } }',
    ].join('\n');
    writeFileSync(join(dir, 'paraphrases.yaml'), wordings);
    // get_product is an embedded tool's name, not one of this harness's.
    const r = loadHarnessDir(dir);
    expect(r.ok === false && r.errors).toEqual([
      'paraphrases.yaml: tools.get_product: not a tool of this harness (tools: item_lookup, open_skill, stock_lookup)',
    ]);
    writeFileSync(join(dir, 'paraphrases.yaml'), wordings.split('\n').slice(0, -1).join('\n'));
    const set = loaded(dir);
    expect(notApplicableOperators(set.get('en'), wordingOps).map((o) => o.name)).toEqual(['skills.rename.locale', 'tools.describe.paraphrase', 'prompt.instructions.paraphrase']);
    const base = set.get('en');
    let renamed = 0;
    for (const { seed, split } of CASES.filter((c) => c.locale === 'en')) {
      const v = buildVariant(base, { families: ['skills', 'tools'], intensity: 1, split }, seed, generateTask(seed, 'en'), wordingOps);
      expect(v.applied).toEqual(['skills.rename.semantic', 'skills.describe.paraphrase', 'tools.rename.semantic']);
      // small-talk has no synonyms: a pick of it leaves it as it is.
      expect(v.tables.skills).toEqual(v.tables.skills['item-facts'] === undefined ? {} : { 'item-facts': split === 'train' ? 'goods-facts' : 'item-answers' });
      renamed += Object.keys(v.tables.skills).length;
      expect(v.tables.tools).toEqual({ item_lookup: split === 'train' ? 'goods_info' : 'item_detail' });
      const facts = v.harness.skills.find((s) => s.name === (v.tables.skills['item-facts'] ?? 'item-facts'));
      expect(facts?.description).toBe(split === 'train' ? 'Answers about one item.' : 'Facts of one item.');
      expect(v.harness.skills.find((s) => s.name === 'small-talk')?.description).toBe(base.skills.find((s) => s.name === 'small-talk')?.description);
    }
    expect(renamed).toBeGreaterThan(0);
  });

  it('names that Object.prototype holds are names like any other', () => {
    const base = renamed('en', ['constructor', 'toString', '__proto__'], ['hasOwnProperty', 'valueOf', 'isPrototypeOf']);
    expect(notApplicableOperators(base, wordingOps).map((o) => o.name)).toEqual(WORDING_OPS.filter((n) => n !== 'prompt.instructions.paraphrase'));
    // Applied anyway (as a custom operator list could), each leaves those skills and tools as they are.
    for (const op of wordingOps) {
      const harness = structuredClone(base);
      const tables = { tools: {}, skills: {}, fields: {}, nest: {}, extra_params: {}, decoys: [] };
      op.apply({ harness, tables, task: generateTask(1, 'en') }, { rng: new Rng(1, op.name), intensity: 1, split: 'train', locale: 'en', base });
      expect([surface(harness).skills, surface(harness).tools, tables.skills, tables.tools], op.name).toEqual([surface(base).skills, surface(base).tools, {}, {}]);
    }
  });
});
