import { SPLITS, LOCALES, opFrom, cases, expectDisjoint, expectOracleScoresOne } from './kit.js';
import { describe, expect, it } from 'vitest';
import type { Locale, Split, ToolSchema } from '../../protocol/domain.js';
import type { Harness } from '../../protocol/harness.js';
import { embeddedHarness, loadBaseHarness } from '../../harness/index.js';
import { buildVariant } from '../../harness-variants/index.js';
import type { BuiltVariant, HarnessTransform, VariantSpec } from '../../harness-variants/index.js';
import { TOOL_OPS, isOpaqueTool } from '../../harness-variants/ops/tools.js';
import {
  CANONICAL_PARAMS,
  CANONICAL_RESULT_FIELDS,
  CASE_STYLES,
  DISTRACTOR_TOOLS,
  DOC_STYLES,
  EXTRA_PARAMS,
  NEST_WRAPPERS,
  PARAM_SYNONYMS,
  RESULT_SYNONYMS,
  SIMILAR_DESCRIPTIONS,
  SIMILAR_NAMES,
} from '../../harness-variants/ops/pools-tools.js';
import type { SplitPool } from '../../harness-variants/ops/kit.js';
import { generateTask } from '../../env/index.js';
import { renderSystemPrompt } from '../../env/prompt.js';
import { worldFor } from '../../mock-services/index.js';
import { memorizerPolicy, oraclePolicy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';

const CANONICAL_FIELDS = new Set([...CANONICAL_PARAMS, ...CANONICAL_RESULT_FIELDS]);

/** The embedded harness's wordings (harness/paraphrases.yaml), in the shape of the tables they replaced. */
function wordings<W, T>(table: Readonly<Record<string, W>>, get: (w: W) => T | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, w] of Object.entries(table)) {
    const x = get(w);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

const TOOL_WORDINGS = embeddedHarness().paraphrases?.tools ?? {};
const TOOL_SYNONYMS: Record<string, SplitPool<string>> = wordings(TOOL_WORDINGS, (w) => w.synonyms);
const TOOL_DESCRIPTIONS: Record<string, Record<Locale, SplitPool<string>>> = wordings(TOOL_WORDINGS, (w) =>
  w.description?.['zh-CN'] && w.description.en ? { 'zh-CN': w.description['zh-CN'], en: w.description.en } : undefined,
);

const op = (name: string): HarnessTransform => opFrom(TOOL_OPS, name);

function spec(split: Split): VariantSpec {
  return { families: ['tools'], intensity: 1, split };
}

function build(o: HarnessTransform, seed: number, locale: Locale, split: Split): BuiltVariant {
  return buildVariant(loadBaseHarness(locale), spec(split), seed, generateTask(seed, locale), [o]);
}

/** Every (seed, locale, split) case an operator is checked on. */

function toolNamed(h: Harness, name: string): ToolSchema {
  const t = h.tools.find((x) => x.function.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

const propsOf = (t: ToolSchema): Record<string, Record<string, unknown>> =>
  (t.function.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;

function allOf<T>(pool: SplitPool<T>): T[] {
  return [...pool.train, ...pool.eval];
}

/** Per operator: whether its effect shows on the built variant (compared with the base harness). */
const EFFECTS: Record<string, (v: BuiltVariant, base: Harness) => boolean> = {
  'tools.rename.semantic': (v) => Object.keys(v.tables.tools).length > 0,
  'tools.rename.opaque': (v) => Object.values(v.tables.tools).some((s) => /^t_[0-9a-f]{6}$/.test(s)),
  'tools.rename.case': (v) => Object.values(v.tables.tools).some((s) => /[A-Z-]/.test(s)),
  'tools.param.rename': (v) => Object.keys(v.tables.fields).some((f) => CANONICAL_PARAMS.includes(f)),
  'tools.result.rename': (v) => Object.keys(v.tables.fields).length > 0,
  'tools.describe.paraphrase': (v, base) => v.harness.tools.some((t, i) => t.function.description !== base.tools[i].function.description),
  'tools.describe.drop': (v) => v.harness.tools.some((t) => t.function.description === undefined),
  'tools.types.drop': (v) => v.harness.tools.some((t) => Object.values(propsOf(t)).some((p) => !('type' in p))),
  'tools.param.extra': (v) => Object.keys(v.tables.extra_params).length > 0,
  'tools.param.shuffle': (v, base) =>
    v.harness.tools.some((t, i) => Object.keys(propsOf(t)).join() !== Object.keys(propsOf(base.tools[i])).join()),
  'tools.args.nest': (v) => Object.keys(v.tables.nest).length > 0,
  'tools.distractor': (v) => v.tables.decoys.length > 0 && v.harness.tools.length > 14,
  'tools.similar': (v) => v.tables.decoys.length > 0 && v.harness.tools.length > 14,
  'tools.order.shuffle': (v, base) => v.harness.tools.map((t) => t.function.name).join() !== base.tools.map((t) => t.function.name).join(),
  'tools.doc.render': (v, base) => v.harness.prompt.tools_doc_style !== base.prompt.tools_doc_style,
};

describe('tool operators: registry', () => {
  it('has at least 15 operators, each with an effect check, in the tools family', () => {
    expect(TOOL_OPS.length).toBeGreaterThanOrEqual(15);
    expect(TOOL_OPS.map((o) => o.name).sort()).toEqual(Object.keys(EFFECTS).sort());
    for (const o of TOOL_OPS) expect(o.family).toBe('tools');
  });
});

describe.each(TOOL_OPS.map((o) => [o.name, o] as const))('%s', (name, o) => {
  it('keeps the oracle at exactly 1 alone at intensity 1 (both splits, both locales)', () => {
    for (const split of SPLITS) for (const locale of LOCALES) expectOracleScoresOne(o, split, locale);
  });

  it('is deterministic and visible on every seed', () => {
    for (const { seed, locale, split } of cases()) {
      const a = build(o, seed, locale, split);
      const b = build(o, seed, locale, split);
      expect(JSON.stringify([a.harness, a.tables, a.task])).toBe(JSON.stringify([b.harness, b.tables, b.task]));
      expect(a.applied).toEqual([name]);
      expect(EFFECTS[name](a, loadBaseHarness(locale)), `${split}/${locale}/${seed}`).toBe(true);
    }
  });

  it('keeps the task, the skills and the canonical tools; decoys have no canonical form', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(o, seed, locale, split);
      expect(v.task).toEqual(generateTask(seed, locale));
      expect(v.harness.skills.map((x) => x.name)).toEqual(loadBaseHarness(locale).skills.map((x) => x.name));
      for (const t of loadBaseHarness(locale).tools) {
        const surface = v.map.toolToSurface(t.function.name) as string;
        expect(v.harness.tools.some((x) => x.function.name === surface)).toBe(true);
        expect(v.map.toolToCanonical(surface)).toBe(t.function.name);
      }
      for (const d of v.tables.decoys) expect(v.map.toolToCanonical(d)).toBeUndefined();
      const names = v.harness.tools.map((t) => t.function.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});

describe('tool operators: invariants', () => {
  it('rename.opaque keeps every opaque tool described; describe.drop never drops an opaque tool', () => {
    for (const { seed, locale, split } of cases()) {
      for (const n of ['tools.rename.opaque', 'tools.describe.drop']) {
        const v = buildVariant(loadBaseHarness(locale), spec(split), seed, generateTask(seed, locale), [op('tools.rename.opaque'), op(n)]);
        for (const t of v.harness.tools) {
          if (/^t_[0-9a-f]{6}$/.test(t.function.name)) expect(t.function.description, t.function.name).toBeTruthy();
        }
      }
      const dropped = build(op('tools.describe.drop'), seed, locale, split).harness.tools.filter(
        (t) => t.function.description === undefined,
      );
      // At most half of the tools (15 with discover_tools).
      expect(dropped.length).toBeLessThanOrEqual(8);
    }
  });

  it('rename.opaque skips tools without a description', () => {
    const base = loadBaseHarness('zh-CN');
    const stripped: Harness = structuredClone(base) as Harness;
    for (const t of stripped.tools) delete t.function.description;
    const v = buildVariant(stripped, spec('train'), 3, generateTask(3, 'zh-CN'), [op('tools.rename.opaque')]);
    expect(v.tables.tools).toEqual({});
  });

  it('rename.case uses the split style on the surface name and never collides', () => {
    const styles: Record<string, RegExp> = {
      camel: /^[a-z]+(?:[A-Z][a-z0-9]*)+$/,
      kebab: /^[a-z0-9]+(?:-[a-z0-9]+)+$/,
      pascal: /^(?:[A-Z][a-z0-9]*)+$/,
      upper_snake: /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/,
    };
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.rename.case'), seed, locale, split);
      const surfaces = Object.values(v.tables.tools);
      const fits = (CASE_STYLES[split] as readonly string[]).filter((s) => surfaces.every((x) => styles[s].test(x)));
      expect(fits.length, surfaces.join()).toBeGreaterThan(0);
    }
  });

  it('param.rename and result.rename use their split pool, never a canonical field name, one-to-one', () => {
    for (const { seed, locale, split } of cases()) {
      for (const n of ['tools.param.rename', 'tools.result.rename']) {
        const v = build(op(n), seed, locale, split);
        const values = Object.values(v.tables.fields);
        expect(new Set(values).size).toBe(values.length);
        for (const [c, s] of Object.entries(v.tables.fields)) {
          expect(CANONICAL_FIELDS.has(s), s).toBe(false);
          const pool = PARAM_SYNONYMS[c] ?? RESULT_SYNONYMS[c];
          expect(pool[split]).toContain(s);
        }
        if (n === 'tools.param.rename') for (const c of Object.keys(v.tables.fields)) expect(CANONICAL_PARAMS).toContain(c);
      }
    }
  });

  it('param.rename shows in the schemas and maps arguments both ways', () => {
    const v = build(op('tools.param.rename'), 5, 'zh-CN', 'train');
    const [canonical, surface] = Object.entries(v.tables.fields)[0];
    const tool = loadBaseHarness('zh-CN').tools.find((t) => canonical in propsOf(t)) as ToolSchema;
    const schema = toolNamed(v.harness, tool.function.name);
    expect(Object.keys(propsOf(schema))).toContain(surface);
    expect(Object.keys(propsOf(schema))).not.toContain(canonical);
    expect(v.map.argsToSurface(tool.function.name, { [canonical]: 'x' })).toEqual({ [surface]: 'x' });
    expect(v.map.argsToCanonical(tool.function.name, { [surface]: 'x' })).toEqual({ [canonical]: 'x' });
  });

  it('result.rename renames result fields, nested ones included', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.result.rename'), seed, locale, split);
      const [canonical, surface] = Object.entries(v.tables.fields)[0];
      expect(v.map.resultToSurface('get_product', { skus: [{ [canonical]: 1 }], [canonical]: 2 })).toEqual({
        skus: [{ [surface]: 1 }],
        [surface]: 2,
      });
    }
  });

  it('describe.paraphrase takes descriptions from the split and locale pool', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.describe.paraphrase'), seed, locale, split);
      const base = loadBaseHarness(locale);
      v.harness.tools.forEach((t, i) => {
        if (t.function.description !== base.tools[i].function.description) {
          expect(TOOL_DESCRIPTIONS[base.tools[i].function.name][locale][split]).toContain(t.function.description);
        }
      });
    }
  });

  it('types.drop removes type hints only; enums and descriptions stay', () => {
    const v = build(op('tools.types.drop'), 2, 'zh-CN', 'train');
    const base = loadBaseHarness('zh-CN');
    v.harness.tools.forEach((t, i) => {
      for (const [k, p] of Object.entries(propsOf(t))) {
        const { type: _type, ...rest } = propsOf(base.tools[i])[k];
        expect({ ...p, type: undefined }).toEqual({ ...rest, type: undefined });
      }
    });
    // Raw XML values are coerced by the canonical types, so untyped schemas still work with qwen3_xml.
    const s = evaluate({
      policy: oraclePolicy,
      episodes: 20,
      seed: 1,
      parser: 'qwen3_xml',
      variant: spec('train') as unknown as string,
      config: { operators: [op('tools.types.drop')] },
    });
    expect(s.reward.mean).toBe(1);
  });

  it('param.extra adds optional surface-only parameters that are ignored when mapped back', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.param.extra'), seed, locale, split);
      for (const [tool, extras] of Object.entries(v.tables.extra_params)) {
        expect(extras.length).toBeGreaterThanOrEqual(1);
        expect(extras.length).toBeLessThanOrEqual(2);
        const schema = toolNamed(v.harness, tool);
        for (const e of extras) {
          expect(EXTRA_PARAMS[split]).toContain(e);
          expect(Object.keys(propsOf(schema))).toContain(e);
          expect((schema.function.parameters.required ?? []) as string[]).not.toContain(e);
          expect(v.map.argsToCanonical(tool, { [e]: 'x' })).toEqual({});
        }
      }
    }
  });

  it('param.shuffle reorders parameters without adding or losing any', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.param.shuffle'), seed, locale, split);
      const base = loadBaseHarness(locale);
      v.harness.tools.forEach((t, i) => expect(Object.keys(propsOf(t)).sort()).toEqual(Object.keys(propsOf(base.tools[i])).sort()));
    }
  });

  it('args.nest wraps every argument of a nested tool in one wrapper from the split pool', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.args.nest'), seed, locale, split);
      for (const [tool, wrapper] of Object.entries(v.tables.nest)) {
        expect(NEST_WRAPPERS[split]).toContain(wrapper);
        const schema = toolNamed(v.harness, tool);
        expect(Object.keys(propsOf(schema))).toEqual([wrapper]);
        expect(schema.function.parameters.required).toEqual([wrapper]);
      }
      const [tool, wrapper] = Object.entries(v.tables.nest)[0];
      expect(v.map.argsToSurface(tool, { a: 1 })).toEqual({ [wrapper]: { a: 1 } });
    }
  });

  it('distractor adds pool tools that map to nothing and say they serve something else', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.distractor'), seed, locale, split);
      expect(v.tables.decoys.length).toBeGreaterThanOrEqual(1);
      expect(v.tables.decoys.length).toBeLessThanOrEqual(3);
      const pool = DISTRACTOR_TOOLS[split];
      for (const d of v.tables.decoys) {
        const spec = pool.find((x) => x.name === d);
        expect(spec, d).toBeDefined();
        expect(toolNamed(v.harness, d).function.description).toBe(spec?.description[locale]);
      }
    }
  });

  it('similar adds switched-off look-alikes that point at the real tool by its surface name', () => {
    const combo = [op('tools.rename.semantic'), op('tools.similar')];
    for (const { seed, locale, split } of cases()) {
      const v = buildVariant(loadBaseHarness(locale), spec(split), seed, generateTask(seed, locale), combo);
      expect(v.tables.decoys.length).toBeGreaterThanOrEqual(1);
      for (const d of v.tables.decoys) {
        const real = Object.values(v.tables.tools)
          .concat(loadBaseHarness(locale).tools.map((t) => t.function.name))
          .find((s) => SIMILAR_NAMES[split].some((tpl) => tpl.replace('{n}', s) === d));
        expect(real, d).toBeDefined();
        const desc = toolNamed(v.harness, d).function.description as string;
        expect(desc).toContain(real as string);
        const canonical = v.map.toolToCanonical(real as string) as string;
        expect(SIMILAR_DESCRIPTIONS[locale][split].map((t) => t.replace('{tool}', real as string))).toContain(desc);
        expect(canonical).toBeDefined();
        expect(v.map.toolToCanonical(d)).toBeUndefined();
      }
    }
  });

  it('order.shuffle keeps the same tools, load_skill among them', () => {
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.order.shuffle'), seed, locale, split);
      const names = v.harness.tools.map((t) => t.function.name);
      expect(names).toContain('load_skill');
      expect([...names].sort()).toEqual(
        loadBaseHarness(locale)
          .tools.map((t) => t.function.name)
          .sort(),
      );
    }
  });

  it('doc.render documents the tools in the prompt in a style of the split', () => {
    const marks = { json: '{"name":"get_product"', xml: '<tool name="get_product">', signatures: 'get_product(' };
    for (const { seed, locale, split } of cases()) {
      const v = build(op('tools.doc.render'), seed, locale, split);
      const style = v.harness.prompt.tools_doc_style as keyof typeof marks;
      expect(DOC_STYLES[split]).toContain(style);
      const task = generateTask(seed, locale);
      expect(renderSystemPrompt(v.harness, worldFor(task.world_seed, locale), task)).toContain(marks[style]);
    }
  });

  it('opaque renames are recognised only for t_ + six hex digits', () => {
    const v = build(op('tools.rename.opaque'), 1, 'en', 'train');
    const draft = { harness: v.harness, tables: v.tables, task: v.task };
    for (const c of Object.keys(v.tables.tools)) expect(isOpaqueTool(draft, c)).toBe(true);
    expect(isOpaqueTool({ ...draft, tables: { ...v.tables, tools: { get_product: 'query_item' } } }, 'get_product')).toBe(false);
  });
});

describe('tool operators: pools', () => {
  it('train and eval halves never share an entry', () => {
    for (const [k, p] of Object.entries(TOOL_SYNONYMS)) expectDisjoint(p, `tool ${k}`);
    for (const [k, p] of Object.entries(PARAM_SYNONYMS)) expectDisjoint(p, `param ${k}`);
    for (const [k, p] of Object.entries(RESULT_SYNONYMS)) expectDisjoint(p, `result ${k}`);
    for (const [k, byLocale] of Object.entries(TOOL_DESCRIPTIONS))
      for (const l of LOCALES) expectDisjoint(byLocale[l], `description ${k}/${l}`);
    for (const l of LOCALES) expectDisjoint(SIMILAR_DESCRIPTIONS[l], `similar description ${l}`);
    expectDisjoint(CASE_STYLES, 'case styles');
    expectDisjoint(EXTRA_PARAMS, 'extra params');
    expectDisjoint(NEST_WRAPPERS, 'nest wrappers');
    expectDisjoint(DOC_STYLES, 'doc styles');
    expectDisjoint(SIMILAR_NAMES, 'similar names');
    expectDisjoint({ train: DISTRACTOR_TOOLS.train.map((d) => d.name), eval: DISTRACTOR_TOOLS.eval.map((d) => d.name) }, 'distractors');
    // Across tables too: a field name of one split never appears in the other split of any field table.
    const fieldPools = [...Object.values(PARAM_SYNONYMS), ...Object.values(RESULT_SYNONYMS)];
    expectDisjoint({ train: fieldPools.flatMap((p) => p.train), eval: fieldPools.flatMap((p) => p.eval) }, 'all field synonyms');
  });

  it('no synonym, extra parameter, wrapper or decoy name is a canonical name', () => {
    const canonicalTools = new Set(loadBaseHarness('zh-CN').tools.map((t) => t.function.name));
    const fieldPools = [...Object.values(PARAM_SYNONYMS), ...Object.values(RESULT_SYNONYMS)];
    for (const n of [...fieldPools.flatMap(allOf), ...allOf(EXTRA_PARAMS), ...allOf(NEST_WRAPPERS)])
      expect(CANONICAL_FIELDS.has(n), n).toBe(false);
    for (const d of allOf(DISTRACTOR_TOOLS)) {
      expect(canonicalTools.has(d.name)).toBe(false);
      for (const p of Object.keys(d.params)) expect(CANONICAL_FIELDS.has(p), p).toBe(false);
    }
  });
});

describe('tool operators: the memorizer notices', () => {
  it('renamed parameters break the base-name memorizer', () => {
    const s = evaluate({
      policy: memorizerPolicy,
      episodes: 30,
      seed: 1,
      variant: spec('train') as unknown as string,
      config: { operators: [op('tools.param.rename')] },
    });
    expect(s.reward.mean).toBeLessThan(0.5);
  });
});
