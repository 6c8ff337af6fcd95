/** Human-readable tables for the CLI's summaries. */
import type { EvalSummary } from '../eval/index.js';

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}

/** An eval summary as a person reads it. */
export function formatSummary(s: EvalSummary): string {
  const out = [
    `policy ${s.policy} on variant ${s.variant}: ${s.episodes} episodes, ${s.errors} errors`,
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
