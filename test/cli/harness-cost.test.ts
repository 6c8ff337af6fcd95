/**
 * `harness cost OLD NEW`, `harness diff` and `harness validate` on the shipped evolution
 * (examples/harness-v2): what the edit changed, including its bindings and task files, and what it costs
 * the memorizer fitted to the embedded harness, beside the oracle in the new harness.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/errors.js';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cli, expectFailure, tempDir } from './helpers.js';

describe('harness evolution: examples/harness-v2', () => {
  it('validate names what it serves; diff lists the edit, bindings and task files included', async () => {
    const [validate, diff] = await Promise.all([cli(['harness', 'validate', 'examples/harness-v2', '--json']), cli(['harness', 'diff', 'embedded', 'examples/harness-v2'])]);
    expect(validate.status).toBe(0);
    expect(JSON.parse(validate.stdout)).toMatchObject({ ok: true, name: 'live-commerce', version: '2.0.0', skills: 13, tools: 16, hooks: 8, tasks: 60 });
    expect(expectFailure(diff, EXIT.verdict, 'harness diff')).toBe('harness-gym harness diff: 19 changes from "live-commerce" 1.0.0 to "live-commerce" 2.0.0');
    const lines = diff.stdout.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '~ manifest version: 1.0.0 -> 2.0.0',
        '- skill clarify-intent (zh-CN, en)',
        '+ skill ask-which-one (zh-CN, en)',
        '+ skill answer-before-refusing (zh-CN, en)',
        '~ skill risk-refusal: description, body (zh-CN, en)',
        '+ tool report_risk (zh-CN, en)',
        '+ hook refusal_reported (zh-CN, en)',
        '~ binding intent clarification: clarify-intent -> ask-which-one (zh-CN, en)',
        '~ binding intent whitelist: product-qa -> answer-before-refusing (zh-CN, en)',
        '~ binding intent risky: risk-refusal -> risk-refusal (task files only) (zh-CN, en)',
        '+ binding tool report_risk: custom.risk-report (zh-CN, en)',
        '+ task file tasks/risky.jsonl (zh-CN, en)',
        '+ file README.md (zh-CN, en)',
        '~ file paraphrases.yaml: content (zh-CN, en)',
        '+ file services/risk-report.mjs (zh-CN, en)',
      ]),
    );
  }, 60_000);

  it('validate counts the intents the task source serves and names the others with the reason; stdout ends with a newline', async () => {
    // A new user's report: with environment.discover_tools unbound, validate said "11 intents served"
    // while eval said the harness does not serve marketing.
    const dir = join(tempDir('hg-validate-'), 'h');
    cpSync(join(ROOT, 'examples', 'harness-v3'), dir, { recursive: true });
    const yaml = join(dir, 'harness.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^  discover_tools: .*\n/m, ''));
    rmSync(join(dir, 'tools', 'discover_tools.json'));
    const i18n = join(dir, 'tools', 'i18n', 'en.json');
    const names = JSON.parse(readFileSync(i18n, 'utf8')) as Record<string, unknown>;
    for (const k of Object.keys(names)) if (k.startsWith('discover_tools')) delete names[k];
    writeFileSync(i18n, JSON.stringify(names, null, 2));
    const [text, json] = await Promise.all([cli(['harness', 'validate', dir]), cli(['harness', 'validate', dir, '--json'])]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/, 10 intents served \(not served: marketing — no generated task fits the harness's tools\), 60 tasks in task files, /);
    expect(JSON.parse(json.stdout)).toMatchObject({
      intents: ['product_qa', 'chitchat', 'clarification', 'after_sales', 'purchase', 'multi_intent', 'risky', 'whitelist', 'handoff', 'restock_alert'],
      not_served: [{ intent: 'marketing', reason: "no generated task fits the harness's tools" }],
    });
    const [v3, diff] = await Promise.all([cli(['harness', 'validate', 'examples/harness-v3']), cli(['harness', 'diff', 'examples/harness-v3', dir])]);
    expect(v3.stdout).toMatch(/, 11 intents served, 60 tasks/);
    for (const r of [text, json, v3, diff]) expect(r.stdout.endsWith('\n')).toBe(true);
  }, 60_000);

  it('cost: the memorizer fitted to the embedded harness loses on v2 identity and far more under HSA; the oracle stays at 1.0', async () => {
    const r = await cli(['harness', 'cost', 'embedded', 'examples/harness-v2', '--episodes', '40', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      memorizer_old_identity: number;
      edit_cost: number;
      rows: { preset: string; memorizer: number; oracle: number }[];
    };
    expect(out.rows.map((x) => x.preset)).toEqual(['identity', 'train', 'eval']);
    expect(out.rows.map((x) => x.oracle)).toEqual([1, 1, 1]);
    const [identity, train, evalRow] = out.rows;
    expect(out.memorizer_old_identity).toBeGreaterThan(0.9);
    expect(identity.memorizer).toBeLessThan(out.memorizer_old_identity);
    expect(out.edit_cost).toBeCloseTo(out.memorizer_old_identity - identity.memorizer, 4);
    expect(out.memorizer_old_identity - train.memorizer).toBeGreaterThan(0.4);
    expect(out.memorizer_old_identity - evalRow.memorizer).toBeGreaterThan(0.4);
    const bad = await cli(['harness', 'cost', 'embedded', 'examples/harness-v2', '--presets', 'identity,nope']);
    expect(expectFailure(bad, EXIT.usage, 'harness cost')).toMatch(/--presets: unknown preset "nope"/);
  }, 120_000);
});
