/**
 * effectiveness (reply segment): was the viewer's message served the way the task expects (answer,
 * decline, ask back, hand off), relevantly and briefly? The reply is read aloud by TTS, so padding is a
 * cost, not a bonus.
 *
 * - Served: an answer states what was asked (the share of the task's required facts; a greeting greets
 *   this viewer, a compliment is thanked for; the viewer's own words repeated back serve nothing), a refusal is recorded and offers an alternative, a
 *   clarification asks, a hand-off is recorded. Over-refusal of an answerable (or whitelisted look-alike)
 *   request serves nothing.
 * - Brevity against the rules the prompt states (version 3): past the length limit or the sentence count
 *   the reply loses value; below the limit at most a gentle preference for concision (a parameter, off by default). No
 *   budget is taken from the reference reply: a good reply may be longer than the oracle's.
 * - Relevance against the evidence of what the viewer asked about: the numbers of that product, order or
 *   coupon (the results of the calls about it), the required facts, the reference reply and the viewer's
 *   messages are in scope; another product's figures, dumps of the room and repeated clauses cost.
 * - The room's language: a reply in another language serves nobody there.
 * - A call to action where one is due.
 * - Speech, not the prompt's layout (version 3.1): a reply that reads out the product card's field labels or
 *   an FAQ's "Q: … A: …" form is pasted, not spoken.
 */
import type { RewardDetail, Task, Trace, TraceCall } from '../../protocol/domain.js';
import { charLength, extractNumbers } from '../../protocol/text.js';
import { asksQuestion, clamp01, factStated, forbiddenStated, hasCallToAction, inLanguage, numParam, offersAlternative, ownWords, refusalPhrased, toolCalls, numericParamsChecker, forEachLeaf } from '../common.js';
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
  missing_cta_factor: 0.8,
  /** Multiplier when the reply is longer than the episode's reply_max_chars (the limit the prompt states). */
  too_long_factor: 0.6,
  /** Multiplier when the reply has more sentences than the prompt allows (`max_sentences`). */
  too_many_sentences_factor: 0.6,
  /** The most sentences the prompt allows ("one or two sentences"); 0 turns the check off. */
  max_sentences: 2,
  /** Multiplier when the reply is shorter than `min_chars`. */
  too_short_factor: 0.5,
  /** Shortest useful spoken reply, in characters. */
  min_chars: 4,
  /**
   * A gentle preference for concision below the stated limit, off by default: a reply longer than
   * `concise_share` of reply_max_chars loses up to `concision_weight` of its value, linearly, reaching it
   * at the limit. Off by default: on, it cost the reference solution reward on English variants with long
   * endings (figures: bench/RESULTS.md "Design measurements cited by the code").
   */
  concise_share: 0.6,
  concision_weight: 0,
  /** Multiplier per distinct number outside the scope of the question (at most `max_unrequested` counted). */
  unrequested_factor: 0.7,
  max_unrequested: 4,
  /** Multiplier when the reply says the same clause twice. */
  repetition_factor: 0.7,
  /**
   * Multiplier when the reply reads out the prompt's layout instead of speaking: its field labels
   * ("brand: …; live price: …", "品牌: …；直播价: …") or an FAQ's question-and-answer form ("A: …", "答: …").
   */
  prompt_layout_factor: 0.3,
} as const;

// The field labels of the prompt's product card and FAQ (env/prompt.ts), followed by a colon: a TTS reply
// never says them. "8:30" and "Plan A" are not labels.
const PROMPT_LAYOUT_EN = /\b(?:brand|live price|list price|options|shipping|after-sales|item id)\s*:\s|(?:^|[\s?.!,;])[qa]\s*:\s/i;
const PROMPT_LAYOUT_ZH = /(?:品牌|直播价|原价|可选规格|发货|售后|商品ID|问|答)\s*[:：]/;

/** Whether a reply reads the prompt's layout out (labels, Q/A) instead of speaking. */
export function readsPromptLayout(reply: string): boolean {
  return PROMPT_LAYOUT_EN.test(reply) || PROMPT_LAYOUT_ZH.test(reply);
}

/** Every number inside a tool result: numeric fields, and the numbers in its strings (titles, dates, specs). */
function collectNumbers(value: unknown, out: Set<number>): void {
  forEachLeaf(value, (leaf) => {
    if (typeof leaf === 'number') {
      if (Number.isFinite(leaf)) out.add(leaf);
    } else for (const n of extractNumbers(leaf)) out.add(n);
  });
}

/**
 * Arguments that name what a task is about: a product (link or item), an option, an order, a coupon. A
 * viewer id or a count names nothing the viewer asked about (the same viewer's other orders are not in scope).
 */
const ENTITY_KEYS: ReadonlySet<string> = new Set(['link_no', 'item_id', 'sku_id', 'order_id', 'coupon_id']);

/** The entity arguments of the task's required calls and solution, as `key=value`. */
function taskEntities(task: Task): Set<string> {
  const out = new Set<string>();
  const add = (args: { [k: string]: unknown } | undefined): void => {
    if (args === undefined) return;
    for (const [k, v] of Object.entries(args)) if (ENTITY_KEYS.has(k) && (typeof v === 'number' || typeof v === 'string')) out.add(`${k}=${String(v)}`);
  };
  for (const r of task.answer_key.required_calls) for (const c of r.any_of) add(c.arguments);
  for (const c of task.answer_key.solution) add(c.arguments);
  return out;
}

/**
 * The numbers a reply may state without padding: those of what the viewer asked about. The required
 * facts, the reference reply and the viewer's messages; and every number in the results of the calls
 * about the task's own product, order or coupon (a call with an argument the task's required calls
 * name): that product's link, options, prices, dates and thresholds, that order's facts, that coupon's
 * terms. Other products' figures and dumps of the room are outside it.
 */
function scopeNumbers(trace: Trace, task: Task, said: readonly number[]): Set<number> {
  const key = task.answer_key;
  const out = new Set<number>();
  for (const f of key.required_facts) for (const v of f.values) for (const n of extractNumbers(v)) out.add(n);
  for (const n of extractNumbers(key.reference_reply)) out.add(n);
  for (const m of task.messages) for (const n of extractNumbers(m)) out.add(n);
  // Most replies say only numbers of these: the tool results need not be walked.
  if (said.every((n) => out.has(n))) return out;
  const entities = taskEntities(task);
  if (entities.size === 0) return out;
  // Twice: a product looked up by its link gives its item id, which a later or earlier call (its
  // promotions, its stock) may use.
  const calls = toolCalls(trace);
  const done = new Set<TraceCall>();
  for (let pass = 0; pass < 2; pass++) {
    for (const call of calls) {
      if (done.has(call) || !call.ok || call.arguments === null) continue;
      let about = false;
      for (const [k, v] of Object.entries(call.arguments)) if ((typeof v === 'number' || typeof v === 'string') && entities.has(`${k}=${String(v)}`)) about = true;
      if (!about) continue;
      done.add(call);
      collectNumbers(call.result, out);
      const r = call.result;
      if (r !== null && typeof r === 'object' && !Array.isArray(r)) {
        for (const [k, v] of Object.entries(r)) if (ENTITY_KEYS.has(k) && (typeof v === 'number' || typeof v === 'string')) entities.add(`${k}=${String(v)}`);
      }
    }
  }
  return out;
}

/** Sentences of a spoken reply: runs ended by a full stop, question or exclamation mark (either width). */
function sentenceCount(reply: string): number {
  return reply
    .replace(/(\d)\.(\d)/g, '$1$2')
    .split(/[.!?。！？]+/)
    .filter((s) => /[\p{L}\p{N}]/u.test(s)).length;
}

/** Whether the reply says one clause twice (normalised), as padding does. */
function repeatsItself(reply: string): boolean {
  const clauses = reply.toLowerCase().split(/[,.!?;，。！？；、]+/);
  if (clauses.length < 2) return false;
  const seen = new Set<string>();
  for (const c of clauses) {
    const k = c.replace(/[^\p{L}\p{N}]+/gu, '');
    if (k.length < 6) continue;
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

const bare = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether the reply's words are all the viewer's own (an echo of the question is no answer to it). */
function echoesViewer(reply: string, messages: readonly string[]): boolean {
  const said = bare(reply);
  // A message shorter than the reply's bare words cannot hold them (its own bare form is no longer).
  return said.length > 0 && messages.some((m) => m.length >= said.length && bare(m).includes(said));
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
        const stated = key.required_facts.filter((f) => factStated(own, f, task.locale)).length;
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
      const answered = key.forbidden_facts.filter((f) => forbiddenStated(ownWords(reply, task.messages), f, task.locale)).map((f) => f.key);
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

  // Brevity against the rules the prompt states: its length limit and sentence count; below the limit
  // only a gentle preference for concision (no budget taken from the reference reply).
  const chars = charLength(reply);
  const max = trace.limits.reply_max_chars;
  const comfortable = Math.floor(max * p('concise_share'));
  if (chars > max) {
    value *= p('too_long_factor');
    reasons.push(`too long for TTS: ${chars} > ${max} chars`);
  } else if (p('concision_weight') > 0 && chars > comfortable && max > comfortable) {
    value *= 1 - (p('concision_weight') * (chars - comfortable)) / (max - comfortable);
    reasons.push(`long: ${chars} of ${max} chars`);
  } else if (chars < p('min_chars')) {
    value *= p('too_short_factor');
    reasons.push(`too short: ${chars} < ${p('min_chars')} chars`);
  }
  // The ending the prompt requires is the harness's sentence, not the reply's: it is not counted.
  const ending = trace.required_ending;
  const spoken = ending !== undefined && ending !== '' && reply.trimEnd().endsWith(ending.trim()) ? reply.trimEnd().slice(0, -ending.trim().length) : reply;
  const sentences = sentenceCount(spoken);
  if (p('max_sentences') > 0 && sentences > p('max_sentences')) {
    value *= p('too_many_sentences_factor');
    reasons.push(`${sentences} sentences (the prompt allows ${p('max_sentences')})`);
  }
  if (repeatsItself(reply)) {
    value *= p('repetition_factor');
    reasons.push('repeats itself');
  }
  if (readsPromptLayout(reply)) {
    value *= p('prompt_layout_factor');
    reasons.push("reads out the prompt's layout (field labels or Q/A) instead of speaking");
  }

  // Relevance: numbers outside what the viewer asked about (another product's figures, a dump of the room).
  const said = [...new Set(extractNumbers(reply))];
  const scope = said.length === 0 ? new Set<number>() : scopeNumbers(trace, task, said);
  const unrequested = said.filter((n) => !scope.has(n));
  if (unrequested.length > 0) {
    value *= p('unrequested_factor') ** Math.min(unrequested.length, p('max_unrequested'));
    reasons.push(`numbers outside the question's scope: ${unrequested.join(', ')}`);
  }

  return {
    value: clamp01(value),
    reasons,
    evidence: { expect: key.expect, served, refusal_recorded: refusalRecorded, cta, chars, limit: max, sentences, unrequested },
  };
}

/** Whether the reply serves the viewer's message as the task expects, relevantly and briefly. */
export const effectivenessModule: RewardModule = {
  name: 'effectiveness',
  version: '3.1.0',
  segment: 'reply',
  score: scoreEffectiveness,
  checkParams: numericParamsChecker(EFFECTIVENESS_DEFAULTS),
};
