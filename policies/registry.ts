/** The reference policies by name, as the CLI and the remote eval look them up. */
import type { Policy } from './policy.js';
import { oraclePolicy } from './oracle.js';
import { randomPolicy } from './random.js';
import { memorizerFor, memorizerPolicy } from './memorizer.js';
import type { HarnessSet } from '../harness/index.js';

/** Every reference policy, keyed by name. */
export const POLICIES: ReadonlyMap<string, Policy> = new Map<string, Policy>([
  [oraclePolicy.name, oraclePolicy],
  [memorizerPolicy.name, memorizerPolicy],
  [randomPolicy.name, randomPolicy],
]);

/**
 * A reference policy by name, for play in `harness`: the memorizer is fitted to that harness (its names),
 * the others need no fitting. Undefined for an unknown name.
 */
export function policyFor(name: string, harness?: HarnessSet): Policy | undefined {
  if (name === memorizerPolicy.name && harness !== undefined) return memorizerFor(harness);
  return POLICIES.get(name);
}
