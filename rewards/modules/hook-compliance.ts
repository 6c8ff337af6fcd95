/**
 * hook_compliance (reply segment): did the policy keep the harness's rules? Every hook violation is
 * counted even when a retry fixed it, because in production each one costs a round trip and a hook
 * that auto-corrects can still ship a worse reply; and so is every rule the prompt states that the final
 * reply breaks, whether or not a hook enforces it (`trace.rule_violations`: a variant that turns a check
 * off still tells the policy the rule). A blocked episode scores 0, and so does one whose final reply
 * (the one that went on air) breaks a stated rule (version 3): that is a hard failure, which the default
 * profile's gate turns into a cap; violations a retry fixed cost `per_violation` each.
 */
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { clamp01, numParam, numericParamsChecker } from '../common.js';
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
  // Stated rules the final reply breaks; one a hook already reported counts once.
  const last = trace.turns.at(-1)?.index ?? 0;
  for (const v of trace.rule_violations ?? []) {
    if (distinct.has(`${v.hook}/${v.code}`)) continue;
    violations.push({ turn: last, hook: v.hook, code: v.code });
    distinct.add(`${v.hook}/${v.code}`);
    reasons.push(`final reply breaks a stated rule: ${v.code}${v.evidence !== undefined ? ` (evidence: ${v.evidence})` : ''}`);
  }
  let value: number;
  const brokenOnAir = (trace.rule_violations ?? []).length > 0;
  if (trace.outcome === 'hook_blocked') {
    value = 0;
    reasons.push('episode blocked by a hook');
  } else if (brokenOnAir) {
    // The reply that went on air breaks a rule the prompt states: a hard failure, not a soft cost.
    value = 0;
    reasons.push('the final reply breaks a rule the prompt states');
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
  version: '3.0.0',
  segment: 'reply',
  score: scoreHookCompliance,
  checkParams: numericParamsChecker(HOOK_COMPLIANCE_DEFAULTS),
};
