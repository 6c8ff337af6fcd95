import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { memorizerPolicy, oraclePolicy, randomPolicy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('reference policies on the identity harness', () => {
  it('the oracle solves every task of 300 episodes; at least 8 intents appear', () => {
    const s = evaluate({ policy: oraclePolicy, episodes: 300, seed: 1, variant: 'identity' });
    expect(s.reward).toEqual({ mean: 1, p10: 1, p50: 1 });
    expect(s.errors).toBe(0);
    expect(Object.keys(s.intents).length).toBeGreaterThanOrEqual(8);
    expect(Object.values(s.intents).reduce((a, b) => a + b, 0)).toBe(300);
  });

  it('the oracle scores the same in English, under every parser, and with injected faults', () => {
    const base = evaluate({ policy: oraclePolicy, episodes: 80, seed: 11, variant: 'identity' });
    for (const opts of [{ locale: 'en' as const }, { parser: 'hermes' }, { parser: 'qwen3_xml' }, { parser: 'openai' }, { faults: 0.3 }]) {
      const s = evaluate({ policy: oraclePolicy, episodes: 80, seed: 11, variant: 'identity', ...opts });
      expect(s.reward, JSON.stringify(opts)).toEqual(base.reward);
      expect(s.errors).toBe(0);
    }
  });

  it('on augmented presets the oracle still scores 1 under every parser, while the memorizer falls by at least 0.4', () => {
    for (const variant of ['train', 'eval']) {
      for (const parser of ['openai', 'hermes', 'qwen3_xml']) {
        const s = evaluate({ policy: oraclePolicy, episodes: 60, seed: 21, variant, parser });
        expect(s.reward.mean, `${variant}/${parser}`).toBe(1);
      }
      const identity = evaluate({ policy: memorizerPolicy, episodes: 100, seed: 1, variant: 'identity' });
      const augmented = evaluate({ policy: memorizerPolicy, episodes: 100, seed: 1, variant });
      expect(identity.reward.mean).toBeGreaterThanOrEqual(0.9);
      expect(identity.reward.mean - augmented.reward.mean).toBeGreaterThanOrEqual(0.4);
    }
  });

  it('the random policy is a floor: mean <= 0.2', () => {
    const s = evaluate({ policy: randomPolicy, episodes: 300, seed: 1, variant: 'identity' });
    expect(s.reward.mean).toBeLessThanOrEqual(0.2);
    expect(s.outcomes.accepted ?? 0).toBeLessThan(30);
  });

  it('evaluation is deterministic for many seeds', () => {
    for (const seed of [0, 7, 123456, 4294967200]) {
      for (const policy of [oraclePolicy, randomPolicy]) {
        const a = evaluate({ policy, episodes: 15, seed, variant: 'identity' });
        const b = evaluate({ policy, episodes: 15, seed, variant: 'identity' });
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }
    }
  });
});

describe('harness-gym eval (command line)', () => {
  it('prints one JSON line with the documented keys, and the same line twice', () => {
    const run = () =>
      execFileSync(
        process.execPath,
        ['--import', 'tsx', 'cli/main.ts', 'eval', '--policy', 'random', '--episodes', '40', '--seed', '5', '--json'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
    const first = run();
    expect(first.endsWith('\n')).toBe(true);
    expect(first.trim().split('\n')).toHaveLength(1);
    const parsed = JSON.parse(first);
    // The task split, the variant split, the mix and the splits played are issue 37's (docs/CURRICULUM.md).
    expect(Object.keys(parsed)).toEqual(['policy', 'variant', 'task_split', 'variant_split', 'mix', 'episodes', 'task_splits', 'reward', 'components', 'intents', 'outcomes', 'errors']);
    expect(Object.keys(parsed.reward)).toEqual(['mean', 'p10', 'p50']);
    expect(parsed).toMatchObject({ policy: 'random', variant: 'identity', task_split: 'train', variant_split: 'none', episodes: 40, task_splits: { train: 40 } });
    expect(run()).toBe(first);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(evaluate({ policy: randomPolicy, episodes: 40, seed: 5, variant: 'identity' }))));
  });

  it('rejects a bad argument with a clear message and a non-zero exit', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'eval', '--episodes', '0'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = String((e as { stderr: string }).stderr);
    }
    expect(status).not.toBe(0);
    expect(stderr).toContain('--episodes must be an integer');
  });
});
