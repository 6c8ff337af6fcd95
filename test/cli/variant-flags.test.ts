/**
 * Difficulty control from the command line: `--variant` takes a preset or a VariantSpec as JSON, and
 * `--families`, `--intensity`, `--identity-share`, `--split` tune a preset's spec; everything is checked
 * with harness-variants' `parseVariant` before anything runs (`rollout` included: test/rollout).
 */
import { describe, expect, it } from 'vitest';
import { resolveVariantFlags } from '../../cli/variant-args.js';
import { evaluate } from '../../eval/index.js';
import { memorizerPolicy } from '../../policies/index.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure } from './helpers.js';

describe('resolveVariantFlags', () => {
  it('keeps an unmodified preset a name, and turns anything else into a normalised spec', () => {
    expect(resolveVariantFlags({}, 'identity')).toEqual({ variant: 'identity', label: 'identity', spec: null });
    expect(resolveVariantFlags({ variant: 'train' }, 'identity').variant).toBe('train');
    const tuned = resolveVariantFlags({ variant: 'eval', families: ['tools', 'skills'], intensity: 0.3 }, 'identity');
    expect(tuned.variant).toEqual({ families: ['skills', 'tools'], intensity: 0.3, split: 'eval' });
    expect(tuned.label).toBe('{"families":["skills","tools"],"intensity":0.3,"split":"eval"}');
    // A JSON spec without a split is a train spec; flags apply over it.
    expect(resolveVariantFlags({ variant: '{"families":["tools"],"intensity":0.3}' }, 'identity').variant).toEqual({
      families: ['tools'],
      intensity: 0.3,
      split: 'train',
    });
    expect(resolveVariantFlags({ variant: '{"families":["hooks"],"intensity":0.5,"seed":9}', identityShare: 0.25 }, 'identity').variant).toEqual({
      families: ['hooks'],
      intensity: 0.5,
      split: 'train',
      seed: 9,
      identity_share: 0.25,
    });
    // Without --variant the flags start from train's spec; an explicit identity cannot be tuned.
    expect(resolveVariantFlags({ intensity: 0.2 }, 'identity').variant).toEqual({
      families: ['skills', 'tools', 'prompt', 'hooks'],
      intensity: 0.2,
      split: 'train',
    });
    expect(() => resolveVariantFlags({ variant: 'identity', intensity: 0.2 }, 'identity')).toThrow(/identity is the base harness/);
  });

  it('rejects what parseVariant rejects, naming it', () => {
    expect(() => resolveVariantFlags({ variant: 'trian' }, 'identity')).toThrow(/got "trian" \(did you mean train\?\)/);
    expect(() => resolveVariantFlags({ variant: '{"families":["tools"]' }, 'identity')).toThrow(/--variant is not valid JSON/);
    expect(() => resolveVariantFlags({ variant: '{"families":["tools"],"intensity":2}' }, 'identity')).toThrow(/intensity must be in \[0, 1\]/);
    expect(() => resolveVariantFlags({ variant: '{"families":["tools"],"intensity":0.2,"extra":1}' }, 'identity')).toThrow(/invalid variant spec/);
    expect(() => resolveVariantFlags({ variant: '[1]' }, 'identity')).toThrow(/a VariantSpec must be a JSON object .*, got an array \(\[1\]\)/);
    expect(() => resolveVariantFlags({ variant: '"train"' }, 'identity')).toThrow(/got a string/);
  });
});

describe('harness-gym eval with a VariantSpec', () => {
  it('the JSON spec, the same spec as flags, and the library agree; the summary names the spec', async () => {
    const args = ['eval', '--policy', 'memorizer', '--episodes', '20', '--seed', '3', '--json'];
    const [json, flags] = await Promise.all([
      cli([...args, '--variant', '{"families":["tools"],"intensity":0.3}']),
      cli([...args, '--families', 'tools', '--intensity', '0.3']),
    ]);
    expect([json.status, flags.status]).toEqual([0, 0]);
    expect(flags.stdout).toBe(json.stdout);
    const spec = { families: ['tools' as const], intensity: 0.3, split: 'train' as const };
    const lib = evaluate({ policy: memorizerPolicy, episodes: 20, seed: 3, variant: spec });
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(lib)));
    expect(JSON.parse(json.stdout).variant).toBe('{"families":["tools"],"intensity":0.3,"split":"train"}');
  }, 60_000);

  it('a bad family or intensity is a usage error before any episode', async () => {
    const [family, intensity] = await Promise.all([cli(['eval', '--families', 'tool']), cli(['eval', '--intensity', '1.5'])]);
    expect(expectFailure(family, EXIT.usage, 'eval')).toBe(
      'harness-gym eval: --families: "tool" is not one of skills, tools, prompt, hooks (did you mean tools?)',
    );
    expect(expectFailure(intensity, EXIT.usage, 'eval')).toBe('harness-gym eval: --intensity must be a number in [0, 1], got "1.5"');
  });
});

describe('harness-gym variants show|report with a VariantSpec', () => {
  it('show takes a spec (and the old --preset); identity has nothing to show', async () => {
    const [spec, preset, identity] = await Promise.all([
      cli(['variants', 'show', '--seed', '7', '--variant', '{"families":["tools"],"intensity":1}', '--json']),
      cli(['variants', 'show', '--seed', '7', '--preset', 'eval']),
      cli(['variants', 'show', '--variant', 'identity']),
    ]);
    expect(spec.status).toBe(0);
    const out = JSON.parse(spec.stdout) as { applied: string[] };
    expect(out.applied.length).toBeGreaterThan(0);
    expect(out.applied.every((name) => name.startsWith('tools.'))).toBe(true);
    expect(preset.status).toBe(0);
    expect(preset.stdout).toMatch(/^variant v-[0-9a-f]{12} \(preset eval, seed 7\)/);
    expect(expectFailure(identity, EXIT.usage, 'variants show')).toContain('nothing to compare');
  }, 60_000);

  it('report with variant flags: each of its families alone, then the variant itself', async () => {
    const r = await cli(['variants', 'report', '--episodes', '10', '--families', 'tools,hooks', '--intensity', '0.3', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { families: Record<string, { spec: unknown; oracle: number }> };
    expect(Object.keys(out.families)).toEqual(['tools', 'hooks', 'spec']);
    expect(out.families.tools.spec).toEqual({ families: ['tools'], intensity: 0.3, split: 'train' });
    expect(out.families.spec.spec).toEqual({ families: ['tools', 'hooks'], intensity: 0.3, split: 'train' });
    expect(Object.values(out.families).every((row) => row.oracle === 1)).toBe(true);
  }, 60_000);

  it('help lists the choices', async () => {
    const [rollout, show] = await Promise.all([cli(['rollout', '--help']), cli(['variants', 'show', '--help'])]);
    // Commander wraps the help to the terminal's width (80 columns without one): compare the words.
    for (const help of [rollout.stdout, show.stdout].map((h) => h.replace(/\s+/g, ' '))) {
      expect(help).toContain('--variant <preset|json> harness variant: a preset (identity, train, eval) or a VariantSpec as JSON');
      expect(help).toContain('--families <list> operator families, comma-separated: skills, tools, prompt, hooks');
    }
    expect(rollout.stdout).toMatch(/--parser <name>[\s\S]*"hermes"/);
  });
});
