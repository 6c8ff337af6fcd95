/**
 * effectiveness (reply segment): was the viewer's message served the way the task expects (answer,
 * decline, ask back, hand off), relevantly and briefly? The reply is read aloud by TTS, so padding is a
 * cost, not a bonus.
 *
 * - Served: an answer states what was asked (the share of the task's required facts; a greeting greets
 *   this viewer, a compliment is thanked for; the viewer's own words repeated back serve nothing), a refusal is recorded and offers an alternative, a
 *   clarification asks, a hand-off is recorded. Over-refusal of an answerable (or whitelisted look-alike)
 *   request serves nothing.
 * - Brevity: a reply longer than its length budget (the reference reply's spoken length with some slack,
 *   plus a required ending) loses value in proportion; past the harness's hard limit, more.
 * - Relevance: numbers the viewer did not ask for (not in the required facts, the reference reply or the
 *   viewer's own message) cost each: a dump of tool values or of the prompt's product lines is not an answer.
 * - The room's language: a reply in another language serves nobody there.
 * - A call to action where one is due.
 */
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { charLength, extractNumbers } from '../../protocol/text.js';
import { asksQuestion, clamp01, factStated, hasCallToAction, inLanguage, numParam, offersAlternative, ownWords, refusalPhrased } from '../common.js';
import type { RewardModule } from '../types.js';

/** Default parameters of `effectiveness`. */
export const EFFECTIVENESS_DEFAULTS = {
  /** Score of a recorded refusal that offers no alternative (the alternative earns the rest). */
  refuse_base: 0.8,
  /** Score of a reply that declines in words but records no refusal. */
  refuse_unrecorded: 0.3,
  /** Score of a clarify reply that asks no question. */
  clarify_no_question: 0.2,
  /** Multiplier when a clarify reply already states an answer fact (a forbidden fact of the task). */
  clarify_answered_factor: 0.5,
  /** Multiplier when a call to action is expected and missing. */
  missing_cta_factor: 0.7,
  /** Multiplier when the reply is longer than the episode's reply_max_chars (on top of the budget). */
  too_long_factor: 0.6,
  /** Multiplier when the reply is shorter than `min_chars`. */
  too_short_factor: 0.5,
  /** Shortest useful spoken reply, in characters. */
  min_chars: 4,
  /** The length budget: the reference reply's length times this... */
  budget_ratio: 1.5,
  /** ...but at least the reference's length plus this many characters. */
  budget_slack: 20,
  /** Multiplier per distinct unrequested number (at most `max_unrequested` counted). */
  unrequested_factor: 0.6,
  max_unrequested: 4,
} as const;

/** The numbers a reply may state without padding: asked for, in the reference answer, or in the viewer's message. */
function requestedNumbers(task: Task): Set<number> {
  const key = task.answer_key;
  const out = new Set<number>();
  for (const f of key.required_facts) for (const v of f.values) for (const n of extractNumbers(v)) out.add(n);
  for (const n of extractNumbers(key.reference_reply)) out.add(n);
  for (const m of task.messages) for (const n of extractNumbers(m)) out.add(n);
  return out;
}

const bare = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether the reply's words are all the viewer's own (an echo of the question is no answer to it). */
function echoesViewer(reply: string, messages: readonly string[]): boolean {
  const said = bare(reply);
  return said.length > 0 && messages.some((m) => bare(m).includes(said));
}

function scoreEffectiveness(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>): RewardDetail {
  const reply = trace.final_reply;
  if (reply === null) return { value: 0, reasons: [`no final reply (outcome ${trace.outcome})`] };
  const p = (k: keyof typeof EFFECTIVENESS_DEFAULTS): number => numParam(params, k, EFFECTIVENESS_DEFAULTS[k]);
  const key = task.answer_key;
  const reasons: string[] = [];
  const refusalRecorded = trace.final_state.refusals.length > 0;
  const declinedInWords = refusalPhrased(reply);

  let served: number;
  switch (key.expect) {
    case 'answer': {
      if (refusalRecorded || declinedInWords) {
        served = 0;
        reasons.push(
          `over-refusal: the task expects an answer but the reply ${refusalRecorded ? 'recorded a refusal' : 'is phrased as a refusal'}`,
        );
      } else if (echoesViewer(reply, task.messages)) {
        served = 0;
        reasons.push("repeats the viewer's message instead of answering it");
      } else if (key.required_facts.length > 0) {
        const own = ownWords(reply, task.messages);
        const stated = key.required_facts.filter((f) => factStated(own, f)).length;
        served = stated / key.required_facts.length;
        reasons.push(`answers what was asked: ${stated}/${key.required_facts.length} of the facts the message asks for`);
      } else {
        served = 1;
        reasons.push('answered without refusing');
      }
      break;
    }
    case 'refuse': {
      const alt = offersAlternative(reply);
      if (refusalRecorded) {
        served = alt ? 1 : p('refuse_base');
        reasons.push('refusal recorded');
      } else if (declinedInWords) {
        served = p('refuse_unrecorded');
        reasons.push('declined in words but no refusal was recorded');
      } else {
        served = 0;
        reasons.push('the task expects a refusal but the reply does not decline');
      }
      if (served > 0) reasons.push(alt ? 'offers an alternative' : 'offers no alternative');
      break;
    }
    case 'clarify': {
      const asked = asksQuestion(reply);
      served = asked ? 1 : p('clarify_no_question');
      reasons.push(asked ? 'asks a clarifying question' : 'asks no clarifying question');
      const answered = key.forbidden_facts.filter((f) => factStated(ownWords(reply, task.messages), f)).map((f) => f.key);
      if (answered.length > 0) {
        served *= p('clarify_answered_factor');
        reasons.push(`answers before clarifying: ${answered.join(', ')}`);
      }
      break;
    }
    case 'handoff': {
      served = trace.final_state.handoffs.length > 0 ? 1 : 0;
      reasons.push(served === 1 ? 'hand-off recorded' : 'the task expects a hand-off but none was recorded');
      break;
    }
  }

  let value = served;
  // A reply in another language than the room's serves no viewer there.
  if (!inLanguage(reply, task.locale)) {
    value = 0;
    reasons.push(`not in the room's language (${task.locale})`);
  }
  const cta = hasCallToAction(reply);
  if (key.cta) {
    if (cta) reasons.push('call to action present');
    else {
      value *= p('missing_cta_factor');
      reasons.push('call to action expected but missing');
    }
  }

  // Brevity: the budget is what the answer needs to be said, with some slack.
  const chars = charLength(reply);
  const ref = charLength(key.reference_reply) + (trace.required_ending === undefined ? 0 : charLength(trace.required_ending));
  const budget = Math.max(Math.ceil(ref * p('budget_ratio')), ref + p('budget_slack'));
  if (chars > budget) {
    value *= budget / chars;
    reasons.push(`padded: ${chars} spoken chars for a budget of ${budget}`);
  }
  const max = trace.limits.reply_max_chars;
  if (chars > max) {
    value *= p('too_long_factor');
    reasons.push(`too long for TTS: ${chars} > ${max} chars`);
  } else if (chars < p('min_chars')) {
    value *= p('too_short_factor');
    reasons.push(`too short: ${chars} < ${p('min_chars')} chars`);
  }

  // Relevance: numbers nobody asked for.
  const requested = requestedNumbers(task);
  const unrequested = [...new Set(extractNumbers(reply))].filter((n) => !requested.has(n));
  if (unrequested.length > 0) {
    value *= p('unrequested_factor') ** Math.min(unrequested.length, p('max_unrequested'));
    reasons.push(`unrequested numbers: ${unrequested.join(', ')}`);
  }

  return {
    value: clamp01(value),
    reasons,
    evidence: { expect: key.expect, served, refusal_recorded: refusalRecorded, cta, chars, budget, unrequested },
  };
}

/** Whether the reply serves the viewer's message as the task expects, relevantly and briefly. */
export const effectivenessModule: RewardModule = {
  name: 'effectiveness',
  version: '2.0.0',
  segment: 'reply',
  score: scoreEffectiveness,
};
