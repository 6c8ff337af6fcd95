/**
 * The task consistency check (eval/consistency.ts): zero contradictions over 3,000 seeds per locale and
 * split on the embedded harness and on examples/harness-v2, and each kind of contradiction caught when
 * one is planted (a key, a world, a service answer, a prompt line or a harness rule made wrong on purpose).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locale, Task } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { hookKind } from '../../protocol/harness.js';
import { embeddedHarness, loadHarnessDir } from '../../harness/index.js';
import { generateTask } from '../../env/tasks/generate.js';
import { withInstructedLookups } from '../../env/tasks/instructed.js';
import { callService, worldOfTask } from '../../mock-services/index.js';
import type { World } from '../../mock-services/index.js';
import { CONTRADICTION_CODES, ruleContradictions, runConsistency, taskContradictions, toolMentions, worldContradictions } from '../../eval/consistency.js';
import type { ContradictionCode } from '../../eval/consistency.js';

const set = embeddedHarness();
const V2 = join(import.meta.dirname, '../../examples/harness-v2');

/** The first generated task (from seed 0) that `ok` accepts. */
function findTask(locale: Locale, intent: Task['intent'], ok: (t: Task) => boolean = () => true): Task {
  for (let seed = 0; seed < 5000; seed++) {
    const t = generateTask(seed, locale, { intent });
    if (ok(t)) return t;
  }
  throw new Error(`no ${intent} task found`);
}

const codes = (fs: readonly { code: ContradictionCode }[]): ContradictionCode[] => [...new Set(fs.map((f) => f.code))].sort();

function withKey(t: Task, patch: Partial<Task['answer_key']>): Task {
  return { ...t, answer_key: { ...t.answer_key, ...patch } };
}

function worldCopy(t: Task): World {
  return structuredClone(worldOfTask(t));
}

function withConstraints(h: Harness, params: Record<string, unknown>): Harness {
  return {
    ...h,
    hooks: h.hooks.map((x) => (hookKind(x) === 'output_constraints' ? { ...x, enabled: true, params: { ...x.params, ...params } } : x)),
  };
}

describe('consistency: the shipped harnesses have no contradictions', () => {
  it('embedded harness: 3,000 seeds per locale and split, with the train and eval preset variants of each task', () => {
    const r = runConsistency({ seeds: 3000 });
    expect(r.tasks).toBe(12_000);
    expect(r.variants).toBe(24_000);
    expect(r.examples).toEqual([]);
    expect(r.total).toBe(0);
    expect(Object.keys(r.counts).sort()).toEqual([...CONTRADICTION_CODES].sort());
  }, 120_000);

  it('examples/harness-v2 (renamed tools, a custom tool, task files): 3,000 seeds per locale and split and every task file line', () => {
    const loaded = loadHarnessDir(V2);
    if (!loaded.ok) throw new Error(loaded.errors.join('; '));
    const r = runConsistency({ seeds: 3000, harness: loaded.harness });
    expect(r.task_files).toBeGreaterThan(0);
    expect(r.tasks).toBe(12_000 + r.task_files);
    expect(r.examples).toEqual([]);
    expect(r.total).toBe(0);
  }, 120_000);
});

describe('consistency: each kind of contradiction is caught when planted', () => {
  const qa = findTask('en', 'product_qa', (t) => t.answer_key.optional_tools.includes('check_stock'));

  it('the planted-on tasks are clean before planting', () => {
    expect(taskContradictions(qa, set)).toEqual([]);
  });

  it('CALL_NOT_INSTRUCTED: a key requiring a call no served skill names', () => {
    const bad = withKey(qa, { required_calls: [...qa.answer_key.required_calls, { any_of: [{ name: 'list_orders', arguments: { viewer_id: qa.viewer_id } }] }] });
    const found = taskContradictions(bad, set);
    expect(codes(found)).toEqual(['CALL_NOT_INSTRUCTED']);
    expect(found[0]).toEqual({
      code: 'CALL_NOT_INSTRUCTED',
      a: 'the key requires list_orders',
      b: 'no served skill (product-qa) tells the agent to call it',
    });
  });

  it('INSTRUCTED_CALL_IRRELEVANT: a look-up the served skill names, scored irrelevant', () => {
    const bad = withKey(qa, { optional_tools: qa.answer_key.optional_tools.filter((t) => t !== 'check_stock') });
    expect(taskContradictions(bad, set)).toEqual([
      {
        code: 'INSTRUCTED_CALL_IRRELEVANT',
        a: 'served skill (product-qa) tells the agent to call check_stock',
        b: 'the key scores check_stock an irrelevant call',
      },
    ]);
  });

  it('DISCOVERY_IRRELEVANT: a marketing tool allowed, the discovery that offers it not', () => {
    const m = findTask('zh-CN', 'marketing');
    expect(taskContradictions(m, set)).toEqual([]);
    const bad = withKey(m, {
      required_calls: m.answer_key.required_calls.filter((r) => !r.any_of.some((c) => c.name === 'discover_tools')),
      optional_tools: m.answer_key.optional_tools.filter((t) => t !== 'discover_tools'),
    });
    const found = taskContradictions(bad, set);
    expect(codes(found)).toContain('DISCOVERY_IRRELEVANT');
  });

  it('FACT_NOT_ASKED: a price required of a greeting', () => {
    const g = findTask('en', 'chitchat', (t) => !/how much|price/i.test(t.messages.join(' ')));
    expect(taskContradictions(g, set)).toEqual([]);
    const w = worldOfTask(g);
    const onScreen = w.products.find((p) => p.link_no === w.room.current_link) ?? w.products[0];
    const bad = withKey(g, { required_facts: [...g.answer_key.required_facts, { key: 'live_price', values: [String(onScreen.live_price)] }] });
    expect(codes(taskContradictions(bad, set))).toEqual(['FACT_NOT_ASKED']);
  });

  it('FACT_UNSEEN: a required number nothing the agent sees contains', () => {
    const bad = withKey(qa, { required_facts: [{ key: 'stock', values: ['987654'] }] });
    const found = taskContradictions(bad, set);
    expect(codes(found)).toContain('FACT_UNSEEN');
    expect(found.find((f) => f.code === 'FACT_UNSEEN')?.a).toBe('the key requires stock = 987654');
  });

  it('FORBIDDEN_FACT_IN_DATA: a list price forbidden that an option of the product names', () => {
    const t = findTask('en', 'product_qa', (x) => x.answer_key.forbidden_facts.some((f) => f.key === 'list_price_as_live'));
    expect(taskContradictions(t, set)).toEqual([]);
    const w = worldOfTask(t);
    const onScreen = w.products.find((p) => p.link_no === w.room.current_link);
    const n = onScreen?.skus.flatMap((k) => k.spec_text.match(/\d+/g) ?? [])[0] ?? null;
    const target = n ?? String(w.room.current_link);
    const bad = withKey(t, { forbidden_facts: [{ key: 'list_price_as_live', values: [target] }] });
    const found = taskContradictions(bad, set).filter((f) => f.code === 'FORBIDDEN_FACT_IN_DATA');
    if (n === null) expect(found).toEqual([]);
    else expect(found[0]?.a).toBe(`the key forbids list_price_as_live = ${n}`);
  });

  it('MESSAGE_AGAINST_DATA: "still hasn\'t arrived" about an order that is not on its way', () => {
    const t = findTask('en', 'after_sales', (x) => {
      const w = worldOfTask(x);
      const orders = w.orders.filter((o) => o.viewer_id === x.viewer_id);
      return orders.length > 0 && orders.every((o) => o.status !== 'shipped');
    });
    const bad: Task = { ...t, messages: ['my parcel still hasn\'t arrived'] };
    const found = taskContradictions(bad, set).filter((f) => f.code === 'MESSAGE_AGAINST_DATA');
    expect(found.length).toBeGreaterThan(0);
    expect(found[0].a).toBe('the viewer says the parcel is on its way but late: "my parcel still hasn\'t arrived"');
    expect(found[0].b).toMatch(/^order od_\w+ is (?!shipped)\w+ \(placed /);
  });

  describe('data against data', () => {
    const t = generateTask(3, 'zh-CN');
    it('the room is clean before planting', () => {
      expect(worldContradictions(worldOfTask(t), 'zh-CN')).toEqual([]);
    });

    it('ATTRIBUTE_AGAINST_SKUS: a pack size no option has', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.skus = [{ ...p.skus[0], spec_text: '180粒' }];
      p.attributes = { ...p.attributes, 规格: '1.0g×90粒' };
      const found = worldContradictions(w, 'zh-CN').filter((f) => f.code === 'ATTRIBUTE_AGAINST_SKUS');
      expect(found).toEqual([{ code: 'ATTRIBUTE_AGAINST_SKUS', a: `${p.item_id} attribute 规格: 1.0g×90粒`, b: 'its SKUs: 180粒' }]);
    });

    it('FAQ_AGAINST_DATA: an FAQ saying an item sold without seven-day returns can be returned unopened', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.after_sales = { ...p.after_sales, seven_day_return: false };
      p.faq = [{ faq_id: 'fq_x_1', question: '拆开试穿了能退吗？', answer: '贴身衣物拆封后因卫生原因不支持退换，未拆封可以七天无理由', tags: ['退货'] }];
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'FAQ_AGAINST_DATA')).toEqual([
        {
          code: 'FAQ_AGAINST_DATA',
          a: `${p.item_id}'s FAQ fq_x_1: "贴身衣物拆封后因卫生原因不支持退换，未拆封可以七天无理由"`,
          b: 'the product is sold without seven-day returns',
        },
      ]);
      p.after_sales = { ...p.after_sales, seven_day_return: true };
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'FAQ_AGAINST_DATA')).toEqual([]);
    });

    it('FAQ_AGAINST_DATA: an FAQ recommending a shade the item is not sold in', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.skus = [{ ...p.skus[0], spec_text: 'M01 正红' }];
      p.faq = [{ faq_id: 'fq_x_2', question: '黄皮选哪个色？', answer: '黄皮推荐M05豆沙和M08枫叶棕', tags: ['色号'] }];
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'FAQ_AGAINST_DATA')).toEqual([
        { code: 'FAQ_AGAINST_DATA', a: `${p.item_id}'s FAQ fq_x_2 names option M05, M08: "黄皮推荐M05豆沙和M08枫叶棕"`, b: 'its options: M01 正红' },
      ]);
    });

    it('POLICY_SELF_CONTRADICTS: exceptions to seven-day returns for an item sold without them', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.faq = [];
      p.after_sales = { ...p.after_sales, seven_day_return: false, return_exclusions: ['化妆品拆封使用后不支持七天无理由退货'] };
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'POLICY_SELF_CONTRADICTS')).toEqual([
        {
          code: 'POLICY_SELF_CONTRADICTS',
          a: `${p.item_id} is sold without seven-day returns`,
          b: 'its policy lists exceptions to them: 化妆品拆封使用后不支持七天无理由退货',
        },
      ]);
    });

    it('PRICE_AGAINST_SKUS: one live price in the prompt for options that cost different amounts', () => {
      const w = worldCopy(t);
      const p = w.products.find((x) => x.skus.length >= 2) ?? w.products[0];
      if (p.skus.length < 2) p.skus = [p.skus[0], { ...p.skus[0], sku_id: `${p.skus[0].sku_id}b` }];
      p.skus = p.skus.map((s, i) => ({ ...s, price: p.live_price + i * 10, stock: 50 }));
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'PRICE_AGAINST_SKUS')).toEqual([]);
      const bare = worldContradictions(w, 'zh-CN', { priceLine: (x) => `直播价: ${x.live_price}` }).filter((f) => f.code === 'PRICE_AGAINST_SKUS');
      expect(bare.map((f) => f.a)).toContain(`the prompt states one live price for ${p.item_id}: 直播价: ${p.live_price}`);
    });

    it('PRICE_OF_SOLD_OUT: the headline price belongs to sold-out options only', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.status = 'on_sale';
      p.skus = [
        { ...p.skus[0], price: p.live_price, stock: 0 },
        { ...p.skus[0], sku_id: `${p.skus[0].sku_id}b`, spec_text: '两支装', price: p.live_price + 40, stock: 12 },
      ];
      const found = worldContradictions(w, 'zh-CN').filter((f) => f.code === 'PRICE_OF_SOLD_OUT');
      expect(found).toEqual([
        {
          code: 'PRICE_OF_SOLD_OUT',
          a: `${p.item_id}'s live price ${p.live_price} is the price of sold-out SKUs only`,
          b: `in stock: 两支装 ${p.live_price + 40}`,
        },
      ]);
    });

    it('RETURN_RESULT_SELF_CONTRADICTS: "not returnable" with a return deadline', () => {
      const w = worldCopy(t);
      const planted: typeof callService = (name, args, ctx) => {
        const out = callService(name, args, ctx);
        if (name !== 'check_return_eligibility' || !out.ok) return out;
        return { ...out, data: { ...(out.data as object), eligible: false, reason_code: 'NO_SEVEN_DAY_RETURN', reason: 'no 7-day returns', deadline: '2026-01-01T00:00:00+08:00' } };
      };
      const found = worldContradictions(w, 'zh-CN', { call: planted }).filter((f) => f.code === 'RETURN_RESULT_SELF_CONTRADICTS');
      expect(found.length).toBe(w.orders.length);
      expect(found[0].b).toBe('the same result gives a return deadline 2026-01-01T00:00:00+08:00');
    });

    it('COUPON_LISTING_HIDES_STATE: a coupon listed as running that is not valid yet', () => {
      const w = worldCopy(t);
      expect(w.coupons.length).toBeGreaterThan(0);
      w.coupons[0] = { ...w.coupons[0], valid_from: '2099-01-01T00:00:00+08:00', scope: { kind: 'all' } };
      expect(worldContradictions(w, 'zh-CN').filter((f) => f.code === 'COUPON_LISTING_HIDES_STATE')).toEqual([]);
      const hiding: typeof callService = (name, args, ctx) => {
        const out = callService(name, args, ctx);
        if (name !== 'get_promotions' || !out.ok) return out;
        const d = out.data as { coupons: Record<string, unknown>[] };
        return { ...out, data: { ...d, coupons: d.coupons.map(({ valid_from: _f, remaining: _r, ...rest }) => rest) } };
      };
      const found = worldContradictions(w, 'zh-CN', { call: hiding }).filter((f) => f.code === 'COUPON_LISTING_HIDES_STATE');
      expect(found[0]).toEqual({
        code: 'COUPON_LISTING_HIDES_STATE',
        a: `get_promotions lists coupon ${w.coupons[0].coupon_id} as running`,
        b: 'it is not valid until 2099-01-01T00:00:00+08:00',
      });
    });

    it('COUPON_FOR_SOLD_OUT: a coupon only for a sold-out link', () => {
      const w = worldCopy(t);
      const p = w.products[0];
      p.status = 'sold_out';
      p.skus = p.skus.map((s) => ({ ...s, stock: 0 }));
      w.coupons[0] = { ...w.coupons[0], scope: { kind: 'items', item_ids: [p.item_id] } };
      const found = worldContradictions(w, 'zh-CN').filter((f) => f.code === 'COUPON_FOR_SOLD_OUT');
      expect(found).toEqual([
        { code: 'COUPON_FOR_SOLD_OUT', a: `coupon ${w.coupons[0].coupon_id} applies only to ${p.item_id}`, b: 'every one of them is sold out' },
      ]);
    });
  });

  describe("the harness's rules against its own texts", () => {
    it('BANNED_WORD_IN_HARNESS_TEXT: the prompt bans a word the skills model', () => {
      const zh = set.get('zh-CN');
      const t = findTask('zh-CN', 'product_qa');
      expect(ruleContradictions(withConstraints(zh, { forbidden_words: ['闭眼入'] }), t, 'planted')).toEqual([]);
      const found = ruleContradictions(withConstraints(zh, { forbidden_words: ['宝宝'] }), t, 'planted');
      expect(codes(found)).toEqual(['BANNED_WORD_IN_HARNESS_TEXT']);
      expect(found[0].a).toBe('planted: the prompt bans "宝宝"');
      expect(found[0].b).toMatch(/^skill [a-z-]+ uses it: ".*宝宝.*"$/);
    });

    it('ENDING_AGAINST_KIND: a sales ending required after a question back', () => {
      const en = set.get('en');
      const c = findTask('en', 'clarification');
      const found = ruleContradictions(withConstraints(en, { required_ending: 'Happy shopping!' }), c, 'planted');
      expect(found).toEqual([
        {
          code: 'ENDING_AGAINST_KIND',
          a: 'planted: every reply must end with the sales line "Happy shopping!"',
          b: `this task's reply is a clarify: "${c.answer_key.reference_reply}"`,
        },
      ]);
      expect(ruleContradictions(withConstraints(en, { required_ending: 'Thanks for watching!' }), c, 'planted')).toEqual([]);
      const buy = findTask('en', 'purchase');
      expect(ruleContradictions(withConstraints(en, { required_ending: 'Happy shopping!' }), buy, 'planted')).toEqual([]);
    });
  });
});

describe('toolMentions and the keys that follow them', () => {
  it('reads a call, an avoidance, and a question about returns that is not a negation', () => {
    const names = ['check_stock', 'refuse_request', 'check_return_eligibility', 'get_product'];
    const m = toolMentions(
      '- Call check_stock when asked.\n- Answer normally and do not call refuse_request: usage.\n- 问能不能退换货，必须先调用 check_return_eligibility。',
      names,
    );
    expect([...m.entries()].sort()).toEqual([
      ['check_return_eligibility', 'call'],
      ['check_stock', 'call'],
      ['refuse_request', 'avoid'],
    ]);
  });

  it('a generated key already lists every look-up its served skills name (withInstructedLookups changes nothing)', () => {
    for (let seed = 0; seed < 300; seed++)
      for (const locale of ['zh-CN', 'en'] as const) {
        const t = generateTask(seed, locale);
        expect(withInstructedLookups(t.answer_key, set.get(locale))).toBe(t.answer_key);
      }
  });
});

describe('harness-gym consistency (the CLI)', () => {
  const cli = join(import.meta.dirname, '../../dist/cli/main.js');
  const run = (args: string[]): { code: number; out: string; err: string } => {
    try {
      const out = execFileSync(process.execPath, [cli, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { code: 0, out, err: '' };
    } catch (e) {
      const x = e as { status: number; stdout: string; stderr: string };
      return { code: x.status, out: x.stdout, err: x.stderr };
    }
  };

  it('passes on the embedded harness and prints a count per kind', () => {
    const r = run(['consistency', '--seeds', '40', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { tasks: number; total: number; counts: Record<string, number> };
    expect(report.tasks).toBe(160);
    expect(report.total).toBe(0);
    expect(Object.keys(report.counts)).toEqual([...CONTRADICTION_CODES]);
  }, 60_000);

  it('fails (exit 1, one line on stderr) on a harness whose hand-off skill no longer names the order look-up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hg-consistency-'));
    try {
      cpSync(V2, dir, { recursive: true });
      for (const [locale, from, to] of [
        ['en', 'when it is about an order, find it with list_orders first and include its order_id', 'include order_id when you know it'],
        ['zh-CN', '涉及订单时先用 list_orders 查到那一单，带上它的 order_id', '知道订单号就带上 order_id'],
      ] as const) {
        const f = join(dir, 'skills', locale, 'human-handoff.md');
        const text = readFileSync(f, 'utf8');
        expect(text).toContain(from);
        writeFileSync(f, text.replace(from, to));
      }
      const r = run(['consistency', '--seeds', '60', '--harness', dir, '--examples', '1']);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/CALL_NOT_INSTRUCTED +[1-9]\d*/);
      expect(r.out).toContain('the key requires list_orders');
      expect(r.out).toContain('no served skill (human-handoff) tells the agent to call it');
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(/^harness-gym consistency: \d+ contradictions in the tasks of harness ".+"; first: CALL_NOT_INSTRUCTED in gen-\w+-[\w-]+-\d+-handoff \(details on stdout\)$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
