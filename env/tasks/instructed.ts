/**
 * Which tools a skill tells the agent to call: the answer keys follow the skills they serve (a look-up a
 * served skill names is never scored irrelevant), and the consistency check (eval/consistency.ts) proves
 * it. A tool is "named to call" when its name appears in a clause of the skill's text without a negation
 * before it ("call check_stock when…"), and "named to avoid" when every mention is negated ("do not call
 * refuse_request").
 */
import type { Harness } from '../../protocol/harness.js';
import type { AnswerKey } from '../../protocol/domain.js';

const NEGATION = /\b(?:do not|don't|never|not|no need|without)\b|不要|不调用|不用|别|勿|无需|不必|(?<!能)不能/i;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const nameRes = new Map<string, RegExp>();
function nameRe(name: string): RegExp {
  let re = nameRes.get(name);
  if (re === undefined) nameRes.set(name, (re = new RegExp(`(?<![A-Za-z0-9_-])${escapeRe(name)}(?![A-Za-z0-9_-])`)));
  return re;
}

/** How a skill's text names a tool: `call` (told to use it), `avoid` (only named in a negated clause), or absent. */
export function toolMentions(text: string, tools: readonly string[]): Map<string, 'call' | 'avoid'> {
  const out = new Map<string, 'call' | 'avoid'>();
  for (const clause of text.split(/[\n.;。；!?！？，,：:]+/)) {
    for (const t of tools) {
      const m = nameRe(t).exec(clause);
      if (!m) continue;
      const negated = NEGATION.test(clause.slice(0, m.index));
      if (!negated) out.set(t, 'call');
      else if (!out.has(t)) out.set(t, 'avoid');
    }
  }
  return out;
}


/** The look-up tools (not the effects, not the environment's) of the embedded harness. */
const LOOKUPS: ReadonlySet<string> = new Set([
  'get_product',
  'search_products',
  'check_stock',
  'get_promotions',
  'get_coupon',
  'list_orders',
  'get_order_status',
  'check_return_eligibility',
  'search_faq',
]);

const lookupMemo = new WeakMap<Harness, Map<string, readonly string[]>>();

/**
 * The embedded-name look-ups a key's served skills name to call, in tool-list order (memoised per harness
 * and skill set). `discover_tools` comes with them when they need it (the marketing look-ups are offered
 * only after discovery).
 */
export function instructedLookups(h: Harness, skills: readonly string[]): readonly string[] {
  let bySkills = lookupMemo.get(h);
  if (bySkills === undefined) lookupMemo.set(h, (bySkills = new Map()));
  const k = skills.join('\n');
  let out = bySkills.get(k);
  if (out === undefined) {
    const names = h.tools.map((t) => t.function.name);
    const called = new Set<string>();
    for (const n of skills) {
      const s = h.skills.find((x) => x.name === n);
      if (s !== undefined) for (const [t, m] of toolMentions(s.body, names)) if (m === 'call' && LOOKUPS.has(t)) called.add(t);
    }
    if (called.has('get_promotions') || called.has('get_coupon')) called.add('discover_tools');
    out = names.filter((t) => called.has(t));
    bySkills.set(k, out);
  }
  return out;
}

/** The key with every look-up its served skills name to call made optional (a copy; the key's order kept, new tools after). */
export function withInstructedLookups(key: AnswerKey, h: Harness): AnswerKey {
  const add = instructedLookups(h, [...key.reply_skills, ...key.strategy_skills]);
  const required = new Set(key.required_calls.flatMap((r) => r.any_of.map((c) => c.name)));
  const missing = add.filter((t) => !key.optional_tools.includes(t) && !required.has(t));
  return missing.length === 0 ? key : { ...key, optional_tools: [...key.optional_tools, ...missing] };
}

