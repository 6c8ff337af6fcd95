/**
 * `variants sweep` and `variants sizes`, the commands behind docs/CURRICULUM.md: the reference policies'
 * mean reward as the intensity rises, and the prompt's size in characters and estimated tokens.
 */
import { describe, expect, it } from 'vitest';
import { TOKEN_ESTIMATE, templateJson, textSize } from '../../cli/commands/variants.js';
import { evaluate } from '../../eval/index.js';
import { memorizerPolicy } from '../../policies/index.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure } from './helpers.js';

describe('variants sweep', () => {
  it('one cell per family set, intensity and policy, each the eval of that spec', async () => {
    const r = await cli(['variants', 'sweep', '--episodes', '12', '--families', 'tools,hooks', '--intensities', '0,1', '--policies', 'oracle,memorizer', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { rows: { families: string[]; intensity: number; mean: Record<string, number> }[] };
    expect(out.rows.map((x) => `${x.families.join('+')}@${x.intensity}`)).toEqual(['tools@0', 'tools@1', 'hooks@0', 'hooks@1', 'tools+hooks@0', 'tools+hooks@1']);
    // The oracle is task-preserving everywhere; at intensity 0 nothing applies, so the memorizer keeps its identity score.
    expect(out.rows.every((x) => x.mean.oracle === 1)).toBe(true);
    const identity = evaluate({ policy: memorizerPolicy, episodes: 12, seed: 1, variant: 'identity' }).reward.mean;
    expect(out.rows.filter((x) => x.intensity === 0).map((x) => x.mean.memorizer)).toEqual([identity, identity, identity]);
    const toolsAll = evaluate({ policy: memorizerPolicy, episodes: 12, seed: 1, variant: { families: ['tools'], intensity: 1, split: 'train' } });
    expect(out.rows[1].mean.memorizer).toBe(toolsAll.reward.mean);
    expect(out.rows[1].mean.memorizer).toBeLessThan(identity);
  }, 120_000);

  it('the table form, and a bad list', async () => {
    const [table, bad] = await Promise.all([
      cli(['variants', 'sweep', '--episodes', '3', '--families', 'prompt', '--intensities', '0.5', '--policies', 'random']),
      cli(['variants', 'sweep', '--intensities', '0,,1']),
    ]);
    expect(table.stdout).toMatch(/^mean reward over 3 episodes from seed 1 \(zh-CN, task split train, variant split train\)\nfamilies\s+policy\s+i=0\.5\nprompt\s+random\s+\d\.\d{4}\n$/);
    expect(expectFailure(bad, EXIT.usage, 'variants sweep')).toContain('--intensities must be a comma-separated list of numbers in [0, 1]');
  }, 60_000);
});

describe('variants sizes', () => {
  it('estimates tokens as documented and writes JSON as chat templates do', () => {
    expect(TOKEN_ESTIMATE).toEqual({ cjk: 0.82, other_chars_per_token: 4.1 });
    expect(textSize('你好，world')).toEqual({ chars: 8, tokens: 3 * 0.82 + 5 / 4.1 });
    expect(templateJson({ a: [1, 'x'], b: { c: null }, d: '中' })).toBe('{"a": [1, "x"], "b": {"c": null}, "d": "中"}');
  });

  it('per locale, variant and part; the prompt is the sum of its parts and the oracle conversation is longer', async () => {
    const r = await cli(['variants', 'sizes', '--episodes', '6', '--locale', 'en', '--json']);
    expect(r.status).toBe(0);
    type Stat = { p50: number; p90: number; max: number };
    const out = JSON.parse(r.stdout) as { rows: { locale: string; variant: string; part: string; chars: Stat; tokens: Stat }[] };
    expect(out.rows.map((x) => `${x.variant}/${x.part}`)).toEqual(
      ['identity', 'train', 'eval'].flatMap((v) => ['system', 'messages', 'tools', 'prompt', 'oracle_episode'].map((p) => `${v}/${p}`)),
    );
    expect(out.rows.every((x) => x.locale === 'en' && x.chars.p50 > 0 && x.chars.p50 <= x.chars.p90 && x.chars.p90 <= x.chars.max)).toBe(true);
    const get = (v: string, p: string) => out.rows.find((x) => x.variant === v && x.part === p) as (typeof out.rows)[number];
    expect(get('identity', 'prompt').chars.max).toBeGreaterThanOrEqual(get('identity', 'system').chars.max + get('identity', 'tools').chars.p50);
    expect(get('identity', 'oracle_episode').chars.p50).toBeGreaterThan(get('identity', 'prompt').chars.p50);
    // English is about 4 characters a token.
    const ratio = get('identity', 'prompt').chars.p50 / get('identity', 'prompt').tokens.p50;
    expect(ratio).toBeGreaterThan(3.8);
    expect(ratio).toBeLessThan(4.2);
  }, 120_000);

  it('one variant when variant flags are given, and its label', async () => {
    const r = await cli(['variants', 'sizes', '--episodes', '2', '--locale', 'zh-CN', '--families', 'tools', '--intensity', '0.5']);
    expect(r.status).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(2);
    expect(rows.length).toBe(5);
    expect(rows.every((l) => l.startsWith('zh-CN   {"families":["tools"],"intensity":0.5,"split":"train"}'))).toBe(true);
  }, 60_000);
});
