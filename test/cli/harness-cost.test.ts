/**
 * `harness cost OLD NEW`, `harness diff` and `harness validate` on the shipped evolution
 * (examples/harness-v2): what the edit changed, including its bindings and task files, and what it costs
 * the memorizer fitted to the embedded harness, beside the oracle in the new harness.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure } from './helpers.js';

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
