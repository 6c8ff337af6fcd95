/**
 * hook_compliance (reply segment): did the policy's turns pass the harness's hooks? Every violation is
 * counted even when a retry fixed it, because in production each one costs a round trip and a hook
 * that auto-corrects can still ship a worse reply. A blocked episode scores 0.
 */
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { clamp01, numParam } from '../common.js';
import type { RewardModule } from '../types.js';

/** Default parameters of `hook_compliance`. */
export const HOOK_COMPLIANCE_DEFAULTS = {
  /** Value lost per distinct (hook, code) violation; three distinct violations reach 0. */
  per_violation: 0.34,
} as const;

function scoreHookCompliance(trace: Trace, _task: Task, params: Readonly<Record<string, unknown>>): RewardDetail {
  const perViolation = numParam(params, 'per_violation', HOOK_COMPLIANCE_DEFAULTS.per_violation);
  const reasons: string[] = [];
  const violations: { turn: number; hook: string; code: string }[] = [];
  const distinct = new Set<string>();
  for (const turn of trace.turns) {
    for (const v of turn.hook_violations) {
      violations.push({ turn: turn.index, hook: v.hook, code: v.code });
      distinct.add(`${v.hook}/${v.code}`);
      reasons.push(`turn ${turn.index}: ${v.hook}/${v.code}${v.evidence !== undefined ? ` (evidence: ${v.evidence})` : ''}`);
    }
  }
  let value: number;
  if (trace.outcome === 'hook_blocked') {
    value = 0;
    reasons.push('episode blocked by a hook');
  } else {
    value = clamp01(1 - perViolation * distinct.size);
    if (violations.length === 0) reasons.push('no hook violations');
    else reasons.push(`${distinct.size} distinct violation(s)`);
  }
  return { value, reasons, evidence: { violations, distinct: [...distinct].sort() } };
}

/** Compliance with the harness's hooks across all turns. */
export const hookComplianceModule: RewardModule = {
  name: 'hook_compliance',
  version: '1.0.0',
  segment: 'reply',
  score: scoreHookCompliance,
};
