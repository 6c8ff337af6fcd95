import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../protocol/domain.js';
import {
  CANONICAL_SKILLS,
  CANONICAL_TOOLS,
  HOOK_IDS,
  PROMPT_BLOCK_ORDER,
  PROMPT_PLACEHOLDERS,
  REPLY_SKILLS,
  SKILL_NAME_RE,
  STRATEGY_SKILLS,
  harnessDataDir,
  loadBaseHarness,
} from '../../harness/index.js';

describe('loadBaseHarness', () => {
  for (const locale of LOCALES) {
    describe(locale, () => {
      const h = loadBaseHarness(locale);

      it('is the base harness in its locale, cached and deep-frozen', () => {
        expect(h.id).toBe('base');
        expect(h.locale).toBe(locale);
        expect(loadBaseHarness(locale)).toBe(h);
        expect(Object.isFrozen(h)).toBe(true);
        expect(Object.isFrozen(h.skills[0].intents)).toBe(true);
        expect(Object.isFrozen(h.tools[0].function.parameters)).toBe(true);
        expect(Object.isFrozen(h.hooks[4].params)).toBe(true);
      });

      it('has the 12 canonical skills in order, with valid names and kinds', () => {
        expect(h.skills.map((s) => s.name)).toEqual([...CANONICAL_SKILLS]);
        for (const s of h.skills) expect(s.name).toMatch(SKILL_NAME_RE);
        expect(h.skills.filter((s) => s.kind === 'reply').map((s) => s.name)).toEqual([...REPLY_SKILLS]);
        expect(h.skills.filter((s) => s.kind === 'strategy').map((s) => s.name)).toEqual([...STRATEGY_SKILLS]);
      });

      it('has skill bodies of 5-15 content lines without digits (bodies must not legitimise numbers)', () => {
        for (const s of h.skills) {
          const lines = s.body.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
          expect(lines.length, s.name).toBeGreaterThanOrEqual(5);
          expect(lines.length, s.name).toBeLessThanOrEqual(15);
          expect(s.body, s.name).not.toMatch(/[0-9０-９]/);
        }
      });

      it('names the tool each reply skill is about in its body', () => {
        const expected: Record<string, string[]> = {
          'product-qa': ['get_product', 'check_stock', 'search_faq'],
          'clarify-intent': ['search_products'],
          'after-sales': ['list_orders', 'get_order_status', 'check_return_eligibility', 'handoff_to_human'],
          promotion: ['get_promotions', 'get_coupon', 'issue_coupon'],
          'purchase-guide': ['get_product', 'check_stock', 'push_link_card'],
          'risk-refusal': ['refuse_request'],
          'human-handoff': ['handoff_to_human'],
          'refusal-whitelist': ['search_faq', 'refuse_request'],
        };
        for (const [name, tools] of Object.entries(expected)) {
          const body = h.skills.find((s) => s.name === name)?.body ?? '';
          for (const t of tools) expect(body, `${name} -> ${t}`).toContain(t);
        }
        const refusal = h.skills.find((s) => s.name === 'risk-refusal')?.body ?? '';
        for (const c of ['medical', 'superlative', 'off_platform', 'other']) expect(refusal).toContain(c);
      });

      it('has the 14 canonical tools in order, each a compilable closed JSON schema', () => {
        expect(h.tools.map((t) => t.function.name)).toEqual([...CANONICAL_TOOLS]);
        const ajv = new Ajv({ strict: true });
        for (const t of h.tools) {
          expect(t.type).toBe('function');
          expect(t.function.parameters.additionalProperties).toBe(false);
          const validate = ajv.compile(t.function.parameters);
          expect(validate({ nope: 1 }), t.function.name).toBe(false);
        }
      });

      it('validates arguments as the services require', () => {
        const ajv = new Ajv();
        const schema = (name: string) => h.tools.find((t) => t.function.name === name)!.function.parameters;
        const getProduct = ajv.compile(schema('get_product'));
        expect([getProduct({}), getProduct({ link_no: 2 }), getProduct({ link_no: 0 }), getProduct({ link_no: '2' })]).toEqual([
          true,
          true,
          false,
          false,
        ]);
        const issue = ajv.compile(schema('issue_coupon'));
        expect([issue({ viewer_id: 'v1', coupon_id: 'c1' }), issue({ coupon_id: 'c1' })]).toEqual([true, false]);
        const refuse = ajv.compile(schema('refuse_request'));
        expect([refuse({ category: 'medical' }), refuse({ category: 'rude' })]).toEqual([true, false]);
        const search = ajv.compile(schema('search_products'));
        expect([search({ query: 'x', category: 'beauty' }), search({ query: 'x', category: 'toys' })]).toEqual([true, false]);
      });

      it('has a description on every tool and every parameter', () => {
        for (const t of h.tools) {
          expect(t.function.description).toBeTruthy();
          const props = t.function.parameters.properties as Record<string, { description?: string }>;
          for (const [p, s] of Object.entries(props)) expect(s.description, `${t.function.name}.${p}`).toBeTruthy();
        }
      });

      it('has the prompt blocks in pipeline order with known placeholders and no digits in static text', () => {
        expect(h.prompt.blocks.map((b) => b.id)).toEqual([...PROMPT_BLOCK_ORDER]);
        expect([h.prompt.header_style, h.prompt.item_style, h.prompt.tools_doc_style]).toEqual(['markdown', 'dash', 'none']);
        const all = h.prompt.blocks.flatMap((b) => [b.title, b.template, ...b.items]).join('\n');
        const used = [...all.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
        expect(new Set(used)).toEqual(new Set(PROMPT_PLACEHOLDERS));
        expect(all.replace(/\{\{\w+\}\}/g, '')).not.toMatch(/[0-9]/);
        const byId = (id: string) => h.prompt.blocks.find((b) => b.id === id)!;
        expect(byId('prohibitions').items).toHaveLength(7);
        expect(byId('output_rules').items.join('\n')).toContain('{{reply_max_chars}}');
      });

      it('has the canonical hooks, retry policy and limits', () => {
        expect(h.hooks.map((k) => [k.id, k.stage, k.enabled])).toEqual([
          ['input_guard', 'input', true],
          ['tool_args', 'tool_args', true],
          ['skill_required', 'reply', true],
          ['reply_format', 'reply', true],
          ['prohibited_phrases', 'reply', true],
          ['factual_risk', 'reply', true],
          ['output_constraints', 'reply', false],
        ]);
        expect(h.hooks.map((k) => k.id)).toEqual(HOOK_IDS);
        expect(h.hooks[6].params).toEqual({});
        expect(h.limits).toEqual({ reply_max_chars: 120, max_turns: 8 });
        expect({ ...h.retry, templates: undefined }).toEqual({
          max_retries: 1,
          mode: 'block',
          feedback_style: 'natural',
          feedback_locale: locale,
          templates: undefined,
        });
        expect(Object.keys(h.retry.templates)).toContain('UNGROUNDED_NUMBER');
      });
    });
  }

  it('uses zh-CN descriptions in the files and English ones from i18n, with the same schemas', () => {
    const zh = loadBaseHarness('zh-CN');
    const en = loadBaseHarness('en');
    const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v), (k, x) => (k === 'description' ? undefined : x));
    expect(strip(en.tools)).toEqual(strip(zh.tools));
    expect(zh.tools[0].function.description).toMatch(/\p{Script=Han}/u);
    expect(en.tools[0].function.description).not.toMatch(/\p{Script=Han}/u);
    expect(en.tools.map((t) => Object.keys(t.function.parameters))).toEqual(zh.tools.map((t) => Object.keys(t.function.parameters)));
  });

  it('ships exactly one file per canonical tool and skill', () => {
    const dir = harnessDataDir();
    const tools = readdirSync(join(dir, 'tools')).filter((f) => f.endsWith('.json'));
    expect(tools.sort()).toEqual(CANONICAL_TOOLS.map((t) => `${t}.json`).sort());
    for (const locale of LOCALES) {
      const skills = readdirSync(join(dir, 'skills', locale));
      expect(skills.sort()).toEqual(CANONICAL_SKILLS.map((s) => `${s}.md`).sort());
    }
  });
});
