/**
 * Intents of a harness's own (docs/HARNESS.md "Intents of your own"): the mini harness with `restock_alert`
 * (test/harness/restock-intent-harness.ts) gets tasks of it from its module, beside the built-in intents by weight,
 * deterministically; a broken module refuses the harness with its file named; the built-in draws do not move.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GeneratorTaskSource, parseMixText } from '../../../env/index.js';
import { generateCustom } from '../../../env/tasks/custom-intents.js';
import { diffHarness, formatHarnessDiff, loadHarnessDir } from '../../../harness/index.js';
import type { Intent, Locale } from '../../../protocol/domain.js';
import { writeMiniHarness } from '../../harness/mini-harness.js';
import { RESTOCK_MODULE, writeRestockHarness } from '../../harness/restock-intent-harness.js';
import { loadDir as load } from '../../harness/load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hg-intents-'));
  dirs.push(d);
  return d;
};
const RESTOCK = 'restock_alert' as Intent;
const set = load(writeRestockHarness(tmp()));
const source = new GeneratorTaskSource(set);

describe('a harness with an intent of its own', () => {
  it('serves it after the built-in intents, in every locale and split', () => {
    for (const locale of ['zh-CN', 'en'] as Locale[]) {
      for (const split of ['train', 'eval'] as const)
        expect(source.served(locale, split)).toEqual(['product_qa', 'chitchat', 'restock_alert']);
    }
  });

  it('makes a task of it in the harness names, whose id regenerates it byte for byte', () => {
    const p = source.pick(1, { intent: RESTOCK }, 'en');
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    const t = p.task;
    expect(t.id).toBe('gen-train-en-1-restock_alert');
    expect(t.intent).toBe('restock_alert');
    expect(t.answer_key.reply_skills).toEqual(['restock-alert']);
    const item = (t.answer_key.solution[0].arguments as { item_id: string }).item_id;
    expect(t.answer_key.solution).toEqual([{ name: 'restock_eta', arguments: { item_id: item } }]);
    expect(t.answer_key.required_calls).toEqual([{ any_of: [{ name: 'restock_eta', arguments: { item_id: item } }] }]);
    expect(t.answer_key.optional_tools).toEqual(['item_lookup', 'stock_lookup']);
    expect(t.messages[0]).toMatch(/^(When will link \d+ be back in stock\?|Is link \d+ sold out\? When does it come back\?)$/);
    const again = source.pick(999, { id: t.id }, 'zh-CN');
    expect(again.ok && JSON.stringify(again.task)).toBe(JSON.stringify(t));
  });

  it('is deterministic: the same seed gives byte-identical tasks, from a fresh load too (property, 200 seeds)', () => {
    const other = new GeneratorTaskSource(load(writeRestockHarness(tmp())));
    for (let seed = 0; seed < 200; seed++) {
      for (const locale of ['zh-CN', 'en'] as Locale[]) {
        const a = source.pick(seed, { intent: RESTOCK, split: seed % 2 ? 'eval' : 'train' }, locale);
        const b = other.pick(seed, { intent: RESTOCK, split: seed % 2 ? 'eval' : 'train' }, locale);
        expect(a.ok).toBe(true);
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
        if (!a.ok) continue;
        // The task's room has the sold-out option the message asks about.
        const made = generateCustom(set, seed, locale, RESTOCK, seed % 2 ? 'eval' : 'train');
        expect(made.ok && made.task).toEqual(a.task);
      }
    }
  });

  it('is drawn by weight beside the built-in ones (weight 1 = a handoff share: 1 point of 100; property over 6,000 seeds)', () => {
    // Served: product_qa (46), chitchat (19), restock_alert (1): its share is 1/66.
    const N = 6000;
    let n = 0;
    const counts = new Map<string, number>();
    for (let seed = 0; seed < N; seed++) {
      const p = source.pick(seed, {}, seed % 2 ? 'en' : 'zh-CN');
      if (!p.ok) throw new Error(p.message);
      counts.set(p.task.intent, (counts.get(p.task.intent) ?? 0) + 1);
      if (p.task.intent === 'restock_alert') n++;
    }
    const share = 1 / 66;
    const sd = Math.sqrt(N * share * (1 - share));
    expect(Math.abs(n - N * share)).toBeLessThan(4 * sd);
    expect(Math.abs((counts.get('product_qa') ?? 0) - (N * 46) / 66)).toBeLessThan(4 * Math.sqrt(N * (46 / 66) * (20 / 66)));
  });

  it('takes its weight in a mix like any intent', () => {
    const mix = parseMixText('product_qa=1,restock_alert=1');
    expect(mix.ok).toBe(true);
    if (!mix.ok) return;
    let n = 0;
    for (let seed = 0; seed < 2000; seed++) {
      const p = source.pick(seed, { mix: mix.mix }, 'zh-CN');
      if (p.ok && p.task.intent === 'restock_alert') n++;
    }
    expect(Math.abs(n - 1000)).toBeLessThan(4 * Math.sqrt(500));
    expect(parseMixText('product_q=1')).toEqual({
      ok: false,
      message:
        'unknown intent "product_q" (did you mean product_qa?); intents are product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff, or a harness\'s own (snake_case)',
    });
  });

  it('leaves the built-in intents as they were: a forced built-in intent gives the task the harness without it gives', () => {
    const plain = new GeneratorTaskSource(load(writeMiniHarness(tmp())));
    for (let seed = 0; seed < 100; seed++) {
      const a = source.pick(seed, { intent: 'product_qa' }, 'zh-CN');
      const b = plain.pick(seed, { intent: 'product_qa' }, 'zh-CN');
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    }
  });

  it('is an unknown intent where the harness does not have it', () => {
    expect(new GeneratorTaskSource(load(writeMiniHarness(tmp()))).pick(1, { intent: RESTOCK }, 'en')).toEqual({
      ok: false,
      code: 'INVALID_MESSAGE',
      message:
        'unknown intent "restock_alert"; expected one of product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff',
    });
  });
});

describe('harness diff', () => {
  it('names the intent binding with its module and weight, and the module file', () => {
    const after = broken(RESTOCK_MODULE + '// edited\n', (m) => m.replace('weight: 1 }', 'weight: 2 }'));
    expect(formatHarnessDiff(diffHarness(set, load(after)))).toBe(
      [
        '~ binding intent restock_alert: restock-alert (module restock-alert, weight 1) -> restock-alert (module restock-alert, weight 2) (zh-CN, en)',
        '~ file intents/restock-alert.mjs: content (zh-CN, en)',
      ].join('\n'),
    );
  });
});

/** The restock harness with its module's text replaced, or with `edit` applied to its manifest. */
function broken(module: string, edit: (manifest: string) => string = (m) => m): string {
  const dir = writeRestockHarness(tmp(), module);
  const file = join(dir, 'harness.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return dir;
}
const loadErrors = (dir: string): string[] => {
  const r = loadHarnessDir(dir);
  return r.ok ? [] : r.errors;
};
const trialError = (dir: string): string => {
  try {
    new GeneratorTaskSource(load(dir));
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('a broken intent module refuses the harness, naming the file', () => {
  it('at load: a missing file, a missing function, a wrong name or intent', () => {
    const noFile = writeRestockHarness(tmp());
    rmSync(join(noFile, 'intents', 'restock-alert.mjs'));
    expect(loadErrors(noFile)).toEqual([
      'intents/restock-alert.mjs: (file): missing: harness.yaml binds intent restock_alert to module restock-alert, which is this file',
    ]);
    expect(loadErrors(broken(`export default { name: 'restock-alert', version: '1.0.0' };\n`))).toEqual([
      'intents/restock-alert.mjs: default.generate: must be a function (ctx) => task | null',
    ]);
    expect(
      loadErrors(
        broken(RESTOCK_MODULE.replace("name: 'restock-alert'", "name: 'restock'").replace("intent: 'restock_alert'", "intent: 'restock'")),
      ),
    ).toEqual([
      'intents/restock-alert.mjs: default.name: must be "restock-alert" (the file name), got "restock"',
      'intents/restock-alert.mjs: default.intent: says "restock", but harness.yaml binds it to intent restock_alert',
    ]);
    expect(loadErrors(broken('export default {;\n'))[0]).toMatch(/^intents\/restock-alert\.mjs: \(file\): cannot load: /);
  });

  it("at load: a skill's metadata.intents naming an intent neither built-in nor bound (a typo, not a new intent)", () => {
    const dir = writeRestockHarness(tmp());
    for (const locale of ['zh-CN', 'en']) {
      const file = join(dir, 'skills', locale, 'restock-alert.md');
      writeFileSync(file, readFileSync(file, 'utf8').replace('intents: [restock_alert]', 'intents: [restock_alrt]'));
    }
    const own = 'the harness\'s own, bound in harness.yaml: restock_alert';
    const builtin = 'built-in: product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff';
    expect(loadErrors(dir)).toEqual([
      `skills/zh-CN/restock-alert.md: metadata.intents.0: "restock_alrt" is no intent (${builtin}; ${own})`,
      `skills/en/restock-alert.md: metadata.intents.0: "restock_alrt" is no intent (${builtin}; ${own})`,
    ]);
  });

  it('at load: the manifest entry (a built-in name with a module, no weight, a name of the wrong form)', () => {
    expect(loadErrors(broken(RESTOCK_MODULE, (m) => m.replace('weight: 1 }', '}')))).toEqual([
      "harness.yaml: intents.restock_alert.weight: required: the intent's generator weight (1 is a handoff's share of the production mix)",
    ]);
    expect(loadErrors(broken(RESTOCK_MODULE, (m) => m.replace('restock_alert:', 'Restock:')))).toEqual([
      'harness.yaml: intents.Restock: an intent of your own is named like the built-in ones (/^[a-z][a-z0-9_]*$/)',
    ]);
    expect(
      loadErrors(
        broken(RESTOCK_MODULE, (m) => m.replace('product_qa: item-facts', 'product_qa: { skill: item-facts, module: restock-alert }')),
      ),
    ).toEqual([
      'harness.yaml: intents.product_qa.module: a built-in intent is generated by the environment: module and weight are for intents of your own',
    ]);
  });

  it('at start-up, when its tasks are tried: a throw, a wrong field, a tool the harness lacks, a bad shape', () => {
    const m = (from: string, to: string): string => {
      const out = RESTOCK_MODULE.replace(from, to);
      if (out === RESTOCK_MODULE) throw new Error(`no ${from}`);
      return out;
    };
    const pre = 'tasks: (files): intents/restock-alert.mjs: generate (seed 0, zh-CN, train): ';
    expect(trialError(broken(m('const n = p.link_no;', "const n = p.link_no; if (n > 0) throw new Error('boom');")))).toBe(
      `${pre}(module): threw: boom`,
    );
    expect(trialError(broken(m("values: ctx.locale === 'en' ? [d + ' days'] : [d + '天']", 'values: []')))).toBe(
      `${pre}answer_key.required_facts.0.values: Too small: expected array to have >=1 items`,
    );
    expect(trialError(broken(m('solution: [{ name: eta,', "solution: [{ name: 'restock_lookup',")))).toBe(
      `${pre}answer_key.solution.0.name: "restock_lookup" is not a tool of the harness`,
    );
    expect(trialError(broken(m('sub_kind:', 'subkind:')))).toBe(
      `${pre}subkind: unknown field (a task has sub_kind, viewer_id, messages, history, answer_key)`,
    );
    expect(trialError(broken(m('generate(ctx) {', 'generate(ctx) { return 42;')))).toBe(
      `${pre}(task): must return a task object or null, got number`,
    );
    expect(trialError(broken(m('generate(ctx) {', 'generate(ctx) { return null;')))).toBe(`${pre}returned null in 16 rooms: no room fits`);
  });
});
