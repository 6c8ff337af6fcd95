/**
 * `audit --task-split` (issue 37): the audit plays every preset on the tasks of the split it names (the
 * presets keep their own variant splits), and its report names both.
 */
import { describe, expect, it } from 'vitest';
import { formatAudit, runAudit } from '../../eval/index.js';
import { cli } from '../cli/helpers.js';

describe('audit --task-split', () => {
  it('held-out tasks on every preset: the oracle is still paid in full, and the report names both splits', async () => {
    const report = runAudit({ episodes: 12, seed: 1, presets: ['identity', 'train', 'eval'], strategies: ['refuse'], taskSplit: 'eval' });
    expect(report.task_split).toBe('eval');
    expect(report.rows.map((r) => [r.policy, r.preset, r.variant_split])).toEqual([
      ['oracle', 'identity', 'none'],
      ['memorizer', 'identity', 'none'],
      ['refuse', 'identity', 'none'],
      ['oracle', 'train', 'train'],
      ['memorizer', 'train', 'train'],
      ['refuse', 'train', 'train'],
      ['oracle', 'eval', 'eval'],
      ['memorizer', 'eval', 'eval'],
      ['refuse', 'eval', 'eval'],
    ]);
    expect(report.rows.filter((r) => r.policy === 'oracle').map((r) => r.mean)).toEqual([1, 1, 1]);
    const text = formatAudit(report);
    expect(text.split('\n')[0]).toBe('reward audit: profile "default", 12 episodes per policy and preset, task split eval');
    expect(text).toContain('\npreset eval (variant split eval)\n');
    expect(text).toContain('\npreset identity (variant split none)\n');

    const r = await cli(['audit', '--episodes', '12', '--presets', 'identity,train,eval', '--strategies', 'refuse', '--task-split', 'eval', '--json']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(JSON.stringify(report) + '\n');
  }, 120_000);
});
