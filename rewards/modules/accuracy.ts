/**
 * accuracy (reply segment): did the avatar broadcast the facts the viewer asked for, truly, and did the
 * world end where it should? The value is the share of the required facts stated, scaled down hard for
 * an invented number or a forbidden fact (a wrong price read out by TTS is an incident) and harder for a
 * wrong final state (coupon not issued, card not pushed, refusal not recorded). Stating nothing false is
 * not an answer: a reply that states none of the required facts scores 0, however clean (version 2; in
 * 1.x it kept 0.4 for that, a floor every non-answer farmed). A fact counts in the reply's own words
 * and by its meaning (version 3; rewards/meaning.ts): its numbers and most of its content words in any
 * order, each locale's equivalent forms alike ("7-day" / "seven-day", "没货" / "售罄"), a negated claim
 * not being the claim; a copy of the viewer's message states nothing. A list price framed as such
 * ("down from 85.9", "原价85.9") is not the forbidden "list price as the live price".
 */
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { extractNumbers } from '../../protocol/text.js';
import { unsupportedClaims, wrongPrices, zhCountNumbers } from '../claims.js';
import { clamp01, diffWorldState, factStated, initialCustomStates, forbiddenStated, numParam, ownWords, refusalPhrased, numericParamsChecker } from '../common.js';
import type { RewardModule } from '../types.js';

/** Default parameters of `accuracy` (each can be overridden in the profile entry's `params`). */
export const ACCURACY_DEFAULTS = {
  /** Multiplier when the reply states a number absent from the evidence (an invented price or stock). */
  invented_number_factor: 0.2,
  /** Multiplier when the reply states a forbidden fact (e.g. the list price as the live price). */
  forbidden_fact_factor: 0.2,
  /**
   * Multiplier when the reply makes a prohibited claim the evidence does not back (rewards/claims.ts: a
   * sales figure, a restock, a promised delivery date, medical efficacy, an absolute term, ...).
   */
  unsupported_claim_factor: 0.2,
  /** Multiplier when the final world state differs from the expected one (the words were right, the action not). */
  state_factor: 0.55,
} as const;

function scoreAccuracy(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>): RewardDetail {
  const reply = trace.final_reply;
  if (reply === null) {
    return { value: 0, reasons: [`no final reply (outcome ${trace.outcome})`] };
  }
  const key = task.answer_key;
  const reasons: string[] = [];

  const present: string[] = [];
  const missing: string[] = [];
  // Facts count in the reply's own words, not in a copy of the viewer's message (for required facts and
  // forbidden ones alike: quoting "9号卖完了没" back is neither an answer nor a claim).
  const own = ownWords(reply, task.messages);
  for (const fact of key.required_facts) (factStated(own, fact, task.locale) ? present : missing).push(fact.key);
  const factsFrac = key.required_facts.length === 0 ? 1 : present.length / key.required_facts.length;
  reasons.push(`required facts: ${present.length}/${key.required_facts.length} stated`);
  for (const k of missing) reasons.push(`missing fact: ${k}`);

  const forbidden = key.forbidden_facts.filter((f) => forbiddenStated(own, f, task.locale)).map((f) => f.key);
  for (const k of forbidden) reasons.push(`forbidden fact stated: ${k}`);
  const claims = unsupportedClaims(own, task.locale, trace);
  for (const c of claims) reasons.push(`unsupported claim (${c})`);
  const badPrices = wrongPrices(own, task.locale, trace);
  if (badPrices.length > 0) reasons.push(`said as a price but the tools give it as something else: ${badPrices.join(', ')}`);

  // Numbers compare numerically ("03" = 3, "89.90" = 89.9): extractNumbers already yields numbers.
  // A reply states a few numbers and the evidence holds about a hundred: a scan each beats building a Set.
  const evidence = trace.evidence_numbers;
  const invented: number[] = [];
  for (const n of extractNumbers(reply)) if (!evidence.includes(n) && !invented.includes(n)) invented.push(n);
  // Chinese numerals count too ("八百多件"): the hooks read digits only.
  if (task.locale === 'zh-CN') for (const n of zhCountNumbers(own)) if (!evidence.includes(n) && !invented.includes(n)) invented.push(n);
  if (invented.length > 0) reasons.push(`invented numbers (not in evidence): ${invented.join(', ')}`);

  const diff = diffWorldState(key.expected_state, trace.final_state, key.optional_state, initialCustomStates(trace));
  const diffFields = Object.keys(diff) as (keyof typeof diff)[];
  for (const field of diffFields) {
    const d = diff[field]!;
    const parts: string[] = [];
    if (d.missing.length > 0) parts.push(`missing [${d.missing.join(', ')}]`);
    if (d.unexpected.length > 0) parts.push(`unexpected [${d.unexpected.join(', ')}]`);
    reasons.push(`state mismatch in ${field}: ${parts.join('; ')}`);
  }
  // A task that expects a refusal needs it recorded even if its expected overlay forgot to list it.
  const refusalMissing = key.expect === 'refuse' && trace.final_state.refusals.length === 0;
  if (refusalMissing && !diff.refusals) reasons.push('expected a refusal but none was recorded');
  // A refusal task has no facts to state: a reply that does not even decline (a pleasantry, an answer
  // to the non-compliant request) is not "the right words with the action missing" but no refusal at all.
  const noDecline = refusalMissing && !refusalPhrased(reply);
  if (noDecline) reasons.push('the reply does not decline the request');
  const stateOk = diffFields.length === 0 && !refusalMissing;
  if (stateOk) reasons.push('final state matches the expected state');

  let value = factsFrac;
  if (invented.length > 0) value *= numParam(params, 'invented_number_factor', ACCURACY_DEFAULTS.invented_number_factor);
  if (forbidden.length > 0) value *= numParam(params, 'forbidden_fact_factor', ACCURACY_DEFAULTS.forbidden_fact_factor);
  if (badPrices.length > 0) value *= numParam(params, 'invented_number_factor', ACCURACY_DEFAULTS.invented_number_factor);
  if (claims.length > 0) value *= numParam(params, 'unsupported_claim_factor', ACCURACY_DEFAULTS.unsupported_claim_factor);
  if (!stateOk) value *= numParam(params, 'state_factor', ACCURACY_DEFAULTS.state_factor);
  if (noDecline) value *= numParam(params, 'forbidden_fact_factor', ACCURACY_DEFAULTS.forbidden_fact_factor);

  return {
    value: clamp01(value),
    reasons,
    evidence: {
      facts_present: present,
      facts_missing: missing,
      forbidden_stated: forbidden,
      unsupported_claims: claims,
      wrong_prices: badPrices,
      invented_numbers: invented,
      state_diff: diff,
      state_ok: stateOk,
    },
  };
}

/** Factual accuracy of the final reply and the final world state. */
export const accuracyModule: RewardModule = {
  name: 'accuracy',
  version: '3.0.0',
  segment: 'reply',
  score: scoreAccuracy,
  checkParams: numericParamsChecker(ACCURACY_DEFAULTS),
};
