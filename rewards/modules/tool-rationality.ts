/**
 * tool_rationality (tool segment): were the calls the task needs made, and nothing wasteful? Each
 * call is counted once, in its worst category (failed > irrelevant > redundant). A tool is relevant
 * when a requirement names it, `optional_tools` lists it, or the expected state needs its effect
 * (refuse_request, handoff_to_human, issue_coupon, push_link_card). Injected faults
 * (timeout, permission denied, malformed output) are the environment's fault: neither the failed
 * call nor the retry after it is penalised.
 */
import type { CanonicalCall, RewardDetail, Task, Trace, TraceCall } from '../../protocol/domain.js';
import { INJECTED_FAULTS, LOAD_SKILL, clamp01, numParam, toolCalls, toolOf, numericParamsChecker } from '../common.js';
import { stableJson } from '../../protocol/stable-json.js';
import type { RewardModule } from '../types.js';

/** Default parameters of `tool_rationality`. */
export const TOOL_RATIONALITY_DEFAULTS = {
  /** Value lost per call that repeats an earlier successful identical call. */
  redundant_penalty: 0.15,
  /** Value lost per call to a tool the task has no use for. */
  irrelevant_penalty: 0.25,
  /** Value lost per call that failed by the policy's fault (bad arguments, unknown tool, not found...). */
  failed_penalty: 0.2,
} as const;

/** Numbers compare numerically (a numeric string counts), strings exactly, anything else structurally. */
function argEqual(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number') {
    if (typeof actual === 'number') return actual === expected;
    return typeof actual === 'string' && actual.trim() !== '' && Number(actual) === expected;
  }
  if (typeof expected === 'string') return actual === expected;
  return stableJson(expected) === stableJson(actual);
}

function satisfies(call: TraceCall, want: CanonicalCall): boolean {
  if (!call.ok || call.name !== want.name || call.arguments === null) return false;
  const args = call.arguments;
  return Object.keys(want.arguments).every((k) => Object.hasOwn(args, k) && argEqual(want.arguments[k], args[k]));
}

function describe(c: CanonicalCall): string {
  return `${c.name} ${stableJson(c.arguments)}`;
}

function scoreToolRationality(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>): RewardDetail {
  const p = (k: keyof typeof TOOL_RATIONALITY_DEFAULTS): number => numParam(params, k, TOOL_RATIONALITY_DEFAULTS[k]);
  const key = task.answer_key;
  const calls = toolCalls(trace);
  if (key.required_calls.length === 0 && calls.length === 0) {
    return { value: 1, reasons: ['no tool calls needed and none made'], evidence: { calls: 0 } };
  }
  const reasons: string[] = [];

  let met = 0;
  for (const req of key.required_calls) {
    if (calls.some((c) => req.any_of.some((want) => satisfies(c, want)))) met++;
    else reasons.push(`required call not made: ${req.any_of.map(describe).join(' or ')}`);
  }
  const requiredFrac = key.required_calls.length === 0 ? 1 : met / key.required_calls.length;
  reasons.unshift(`required calls: ${met}/${key.required_calls.length} satisfied`);

  const relevant = new Set<string>([toolOf(trace, LOAD_SKILL), ...key.optional_tools]);
  for (const req of key.required_calls) for (const want of req.any_of) relevant.add(want.name);
  // The state-changing tools are relevant whenever the expected state needs their effect, even when a
  // task lists them only in expected_state (a refusal is checked as state, not as a required call).
  const exp = key.expected_state;
  if (key.expect === 'refuse' || exp.refusals.length > 0) relevant.add(toolOf(trace, 'refuse_request'));
  if (key.expect === 'handoff' || exp.handoffs.length > 0) relevant.add(toolOf(trace, 'handoff_to_human'));
  if (exp.issued_coupons.length > 0 || (key.optional_state?.issued_coupons?.length ?? 0) > 0) relevant.add(toolOf(trace, 'issue_coupon'));
  if (exp.pushed_cards.length > 0) relevant.add(toolOf(trace, 'push_link_card'));

  let failed = 0;
  let irrelevant = 0;
  let redundant = 0;
  const succeeded = new Set<string>();
  for (const call of calls) {
    const sig = `${call.name} ${stableJson(call.arguments)}`;
    if (!call.ok && !(call.error !== undefined && INJECTED_FAULTS.has(call.error))) {
      failed++;
      reasons.push(`failed call ${call.id}: ${call.name} (${call.error ?? 'unknown error'})`);
    } else if (!relevant.has(call.name)) {
      irrelevant++;
      reasons.push(`irrelevant call ${call.id}: ${call.name}`);
    } else if (call.ok && succeeded.has(sig)) {
      redundant++;
      reasons.push(`redundant call ${call.id}: ${sig} repeats a successful call`);
    }
    if (call.ok) succeeded.add(sig);
  }
  const penalty = p('failed_penalty') * failed + p('irrelevant_penalty') * irrelevant + p('redundant_penalty') * redundant;
  const value = clamp01(requiredFrac * Math.max(0, 1 - penalty));
  return {
    value,
    reasons,
    evidence: { calls: calls.length, required_met: met, required_total: key.required_calls.length, failed, irrelevant, redundant },
  };
}

/** Whether the tool calls were the right ones, without waste. */
export const toolRationalityModule: RewardModule = {
  name: 'tool_rationality',
  version: '1.1.0',
  segment: 'tool',
  score: scoreToolRationality,
  checkParams: numericParamsChecker(TOOL_RATIONALITY_DEFAULTS),
};
