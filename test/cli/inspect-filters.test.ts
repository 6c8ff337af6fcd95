/**
 * `inspect` filters and its summary header (issue 41: 5,416 lines for 100 episodes, the only filter
 * `--episode`, no summary). The built CLI is run through tsx on the sources, over records of a mixed run
 * (the random policy, so rewards, outcomes and reasons differ), and every figure of the
 * summary is recomputed here from the records themselves.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRecords } from '../../recording/index.js';
import type { EpisodeRecordV1 } from '../../recording/index.js';
import { ROOT, tempDir } from './helpers.js';

const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

let dir: string;
let all: EpisodeRecordV1[];

beforeAll(() => {
  dir = tempDir('hg-inspect-filters-');
  const ev = run(['eval', '--policy', 'random', '--episodes', '40', '--seed', '7', '--variant', 'identity', '--record', dir, '--json']);
  expect(ev.status).toBe(0);
  const read = readRecords(dir);
  if (!read.ok) throw new Error(read.message);
  all = read.result.records.map((r) => r.record);
  expect(all).toHaveLength(40);
}, 120_000);

const tally = (xs: string[]): string =>
  [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>()).entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

function summary(chosen: EpisodeRecordV1[], total: number): string {
  const rewards = chosen.map((r) => r.summary.reward).sort((a, b) => a - b);
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const capped = chosen.filter((r) => (r.reward.caps ?? []).length > 0).length;
  const of = chosen.length === total ? `${total} episodes` : `${chosen.length} of ${total} episodes`;
  return [
    `${of}: reward mean ${mean.toFixed(4)}, median ${rewards[Math.floor((rewards.length - 1) / 2)].toFixed(4)}, min ${rewards[0].toFixed(4)}, max ${rewards[rewards.length - 1].toFixed(4)}${capped > 0 ? `; ${capped} capped by a gate` : ''}`,
    `  outcomes: ${tally(chosen.map((r) => r.summary.outcome))}`,
    `  intents:  ${tally(chosen.map((r) => r.summary.intent))}`,
    `  variants: ${tally(chosen.map((r) => r.summary.variant_label))}`,
    '',
  ].join('\n');
}

describe('inspect', () => {
  it('--summary prints the summary of every episode and nothing else', () => {
    const r = run(['inspect', dir, '--summary']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(summary(all, 40));
  });

  it('filters by intent, outcome, reward range and reason, and summarises what they chose', () => {
    const intent = all[0].summary.intent;
    const byIntent = all.filter((r) => r.summary.intent === intent);
    expect(run(['inspect', dir, '--summary', '--intent', intent]).stdout).toBe(summary(byIntent, 40));

    // A threshold inside the run's range of rewards, so both sides hold episodes.
    const distinct = [...new Set(all.map((r) => r.summary.reward))].sort((a, b) => a - b);
    expect(distinct.length).toBeGreaterThan(2);
    const t = distinct[Math.floor(distinct.length / 2)];
    const low = all.filter((r) => r.summary.reward <= t);
    expect(low.length).toBeLessThan(40);
    expect(run(['inspect', dir, '--summary', '--max-reward', String(t)]).stdout).toBe(summary(low, 40));
    const high = all.filter((r) => r.summary.reward >= t);
    expect(high.length).toBeLessThan(40);
    expect(run(['inspect', dir, '--summary', '--min-reward', String(t)]).stdout).toBe(summary(high, 40));

    const outcome = all[0].summary.outcome;
    expect(run(['inspect', dir, '--summary', '--outcome', outcome]).stdout).toBe(summary(all.filter((r) => r.summary.outcome === outcome), 40));

    // A reason some episodes have and others do not.
    const reasons = all.map((r) => Object.values(r.reward.details).flatMap((d) => d.reasons));
    const word = reasons.flat().find((t) => reasons.some((rs) => !rs.some((x) => x.includes(t))))!;
    const withReason = all.filter((_, i) => reasons[i].some((t) => t.toLowerCase().includes(word.toLowerCase())) || (all[i].reward.caps ?? []).some((c) => c.toLowerCase().includes(word.toLowerCase())));
    expect(run(['inspect', dir, '--summary', '--reason', word.toUpperCase()]).stdout).toBe(summary(withReason, 40));
  });

  it('prints the chosen episodes after the summary; no match is a summary saying so; --json has no summary', () => {
    const first = all[0];
    const one = run(['inspect', dir, '--intent', first.summary.intent, '--min-reward', String(first.summary.reward), '--max-reward', String(first.summary.reward)]);
    expect(one.status).toBe(0);
    const chosen = all.filter((r) => r.summary.intent === first.summary.intent && r.summary.reward === first.summary.reward);
    expect(one.stdout.startsWith(summary(chosen, 40))).toBe(true);
    expect(one.stdout.split('\n').filter((l) => l.startsWith('=== episode ')).length).toBe(chosen.length);
    const none = run(['inspect', dir, '--min-reward', '1', '--max-reward', '0']);
    expect(none.stdout).toBe('0 of 40 episodes (no episode matches the filters)\n');
    const json = run(['inspect', dir, '--json', '--intent', first.summary.intent]);
    expect(json.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { episode_id: string }).episode_id)).toEqual(
      all.filter((r) => r.summary.intent === first.summary.intent).map((r) => r.episode_id),
    );
  });

  it('refuses a bad filter value in one line (exit 2)', () => {
    const r = run(['inspect', dir, '--intent', 'product_q']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('harness-gym inspect: --intent: "product_q" is not one of product_qa, chitchat, clarification, after_sales, purchase, marketing, multi_intent, risky, whitelist, handoff (did you mean product_qa?)\n');
  });
});
