/** The reference policies by name, as the CLI and the remote eval look them up. */
import type { Policy } from './policy.js';
import { oraclePolicy } from './oracle.js';
import { randomPolicy } from './random.js';
import { memorizerPolicy } from './memorizer.js';

/** Every reference policy, keyed by name. */
export const POLICIES: ReadonlyMap<string, Policy> = new Map<string, Policy>([
  [oraclePolicy.name, oraclePolicy],
  [memorizerPolicy.name, memorizerPolicy],
  [randomPolicy.name, randomPolicy],
]);
