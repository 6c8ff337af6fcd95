/** Human-readable tables for the CLI's summaries. */
import type { EvalSummary } from '../eval/index.js';
import { mixShares } from '../env/index.js';

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}

/**
 * Which tasks and which harness a summary played: `task split eval (eval 20), variant split train`, with
 * the mix when it is not the production one.
 */
export function playedLine(s: Pick<EvalSummary, 'task_split' | 'variant_split' | 'task_splits' | 'mix'>): string {
  const counts = Object.entries(s.task_splits)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const harness = s.variant_split === 'none' ? 'variant split none (the base harness)' : `variant split ${s.variant_split}`;
  const mix = Object.entries(s.mix)
    .map(([i, w]) => `${i}=${w}`)
    .join(',');
  const production = JSON.stringify(s.mix) === JSON.stringify(PRODUCTION_SHARES);
  return `task split ${s.task_split}${counts ? ` (${counts})` : ''}, ${harness}${production ? '' : `; mix ${mix}`}`;
}

const PRODUCTION_SHARES = mixShares(undefined);

/** An eval summary as a person reads it. */
export function formatSummary(s: EvalSummary): string {
  const out = [
    `policy ${s.policy} on variant ${s.variant}: ${s.episodes} episodes, ${s.errors} errors`,
    playedLine(s),
    `reward mean ${s.reward.mean.toFixed(4)}  p10 ${s.reward.p10.toFixed(4)}  p50 ${s.reward.p50.toFixed(4)}`,
    'components (mean):',
    table(Object.entries(s.components).map(([k, v]) => [k, v.toFixed(4)])),
    'intents:',
    table(Object.entries(s.intents).map(([k, v]) => [k, String(v)])),
    'outcomes:',
    table(Object.entries(s.outcomes).map(([k, v]) => [k, String(v)])),
  ];
  return out.join('\n') + '\n';
}
