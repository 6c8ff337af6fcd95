/**
 * Multi-intent (~2%): danmaku merged within a short window, so `messages` holds two entries and one reply
 * must answer both. The answer key is the union of the parts' keys, with reply skills in message order and
 * the `multi-intent` strategy skill. Parts are built in compact mode so that both answers fit one reply.
 */
import type { AnswerKey, CanonicalCall, Fact } from '../../../protocol/domain.js';
import { extractNumbers } from '../../../protocol/text.js';
import type { BuildContext, Builder, Draft, SubKind } from '../kit.js';
import { answerKey, draft, linkFact, reqAny } from '../kit.js';
import { MARKETING_PARTS, PURCHASE_PARTS } from './commerce.js';
import { AFTER_SALES_PARTS } from './orders.js';
import { PRODUCT_QA_PARTS } from './product-qa.js';

/** Drop a polite opener from the second answer when the two are joined ("亲，" is said once). */
function stripOpener(s: string): string {
  return s.replace(/^(亲，|宝宝们，|宝宝，)/, '');
}

function union<T>(a: readonly T[], b: readonly T[]): T[] {
  const out = a.slice();
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

/** One `discover_tools` call at the front when either part discovers (both parts may need marketing tools). */
function discoverOnce<T>(items: readonly T[], nameOf: (x: T) => string | undefined): T[] {
  const first = items.find((x) => nameOf(x) === 'discover_tools');
  const rest = items.filter((x) => nameOf(x) !== 'discover_tools');
  return first === undefined ? rest : [first, ...rest];
}

function prefixed(facts: readonly Fact[], i: number): Fact[] {
  return facts.map((f) => ({ key: `m${i}:${f.key}`, values: f.values }));
}

/** The link a part's required calls name, if one does. */
function linkOf(key: AnswerKey): number | undefined {
  for (const r of key.required_calls) for (const c of r.any_of) if (typeof c.arguments.link_no === 'number') return c.arguments.link_no;
  return undefined;
}

/**
 * "drop the link!" right after a question about link N may mean link N or the product on screen: both
 * readings are right, so the key accepts either card (and names either link).
 */
function eitherLink(ctx: BuildContext, kb: AnswerKey, other: number): AnswerKey {
  const current = kb.expected_state.pushed_cards[0];
  if (current === undefined || current === other) return kb;
  const push = (n: number) => ({ name: 'push_link_card', arguments: { link_no: n } });
  return {
    ...kb,
    required_calls: kb.required_calls.map((r) => (r.any_of.some((c) => c.name === 'push_link_card') ? reqAny(push(current), push(other)) : r)),
    required_facts: kb.required_facts.map((f) =>
      f.key === 'link_no' ? { key: 'link_no', values: [...linkFact('link_no', current, ctx.locale).values, ...linkFact('link_no', other, ctx.locale).values] } : f,
    ),
    expected_state: { ...kb.expected_state, pushed_cards: [] },
    optional_state: { ...kb.optional_state, pushed_cards: [current, other] },
  };
}

// Stock claims of one part may be true of the other part's product ("link 3 is in stock; on link 5 the 26
// is sold out"): in a merged key the opposite-stock claims are not forbidden.
const STOCK_CLAIMS = new Set(['sold_out_claim', 'in_stock_claim']);
const withoutStockClaims = (facts: readonly Fact[]): Fact[] => facts.filter((f) => !STOCK_CLAIMS.has(f.key));

/**
 * Numbers the option names of the products in a merged key's scope state (the product on screen and every
 * product its calls name): "50 g + 15 g mini" states 50 and 15.
 */
function optionNumbers(ctx: BuildContext, calls: readonly CanonicalCall[]): Set<number> {
  const out = new Set<number>();
  for (const p of ctx.world.products) {
    const inScope =
      p.link_no === ctx.current.link_no || calls.some((c) => c.arguments.link_no === p.link_no || c.arguments.item_id === p.item_id);
    if (inScope) for (const k of p.skus) for (const n of extractNumbers(k.spec_text)) out.add(n);
  }
  return out;
}

/** A part's forbidden bare numbers that the other part's product names in an option are no longer forbidden. */
function withoutNamed(facts: readonly Fact[], named: ReadonlySet<number>): Fact[] {
  return facts.filter((f) => !f.values.some((v) => /^\d+(?:\.\d+)?$/.test(v.trim()) && named.has(Number(v))));
}

/** Merge two single-message drafts into one multi-intent draft (null when the joint reply is too long). */
export function mergeDrafts(ctx: BuildContext, sub: string, a: Draft, b: Draft): Draft | null {
  const named = optionNumbers(ctx, [...a.answer_key.solution, ...b.answer_key.solution]);
  const ka: AnswerKey = { ...a.answer_key, forbidden_facts: withoutNamed(withoutStockClaims(a.answer_key.forbidden_facts), named) };
  const asked = linkOf(ka);
  const kb0: AnswerKey = { ...b.answer_key, forbidden_facts: withoutNamed(withoutStockClaims(b.answer_key.forbidden_facts), named) };
  const kb: AnswerKey = b.sub_kind === 'buy_current' && asked !== undefined ? eitherLink(ctx, kb0, asked) : kb0;
  const reference =
    ctx.locale === 'en'
      ? `${ka.reference_reply} ${kb.reference_reply}`
      : `${ka.reference_reply.replace(/[。！!]$/, '')}；${stripOpener(kb.reference_reply)}`;
  const merged = answerKey({
    expect: 'answer',
    reply_skills: union(ka.reply_skills, kb.reply_skills),
    strategy_skills: union(['multi-intent'], union(ka.strategy_skills, kb.strategy_skills)),
    required_calls: discoverOnce([...ka.required_calls, ...kb.required_calls], (r) => r.any_of[0]?.name),
    solution: discoverOnce([...ka.solution, ...kb.solution], (c) => c.name),
    optional_tools: union(ka.optional_tools, kb.optional_tools),
    required_facts: [...prefixed(ka.required_facts, 1), ...prefixed(kb.required_facts, 2)],
    forbidden_facts: [...prefixed(ka.forbidden_facts, 1), ...prefixed(kb.forbidden_facts, 2)],
    expected_state: {
      issued_coupons: [...ka.expected_state.issued_coupons, ...kb.expected_state.issued_coupons],
      pushed_cards: [...ka.expected_state.pushed_cards, ...kb.expected_state.pushed_cards],
      handoffs: [...ka.expected_state.handoffs, ...kb.expected_state.handoffs],
      refusals: [...ka.expected_state.refusals, ...kb.expected_state.refusals],
    },
    ...(ka.optional_state !== undefined || kb.optional_state !== undefined
      ? {
          optional_state: {
            issued_coupons: [...(ka.optional_state?.issued_coupons ?? []), ...(kb.optional_state?.issued_coupons ?? [])],
            pushed_cards: [...(ka.optional_state?.pushed_cards ?? []), ...(kb.optional_state?.pushed_cards ?? [])],
          },
        }
      : {}),
    cta: ka.cta || kb.cta,
    reference_reply: reference,
  });
  return draft(sub, a.viewer_id, [...a.messages, ...b.messages], [...a.history, ...b.history], merged);
}

/**
 * A pair of parts. `viewerFirst` says which part chooses the viewer (coupons and orders depend on who
 * asks); the other part is then built for that viewer. Messages keep the pair's order.
 */
function pair(name: string, first: Builder, second: Builder, viewerFirst: 0 | 1 = 0): SubKind {
  return {
    name,
    weight: 1,
    build: (ctx: BuildContext): Draft | null => {
      const compact: BuildContext = { ...ctx, compact: true };
      const lead = viewerFirst === 0 ? first : second;
      const follow = viewerFirst === 0 ? second : first;
      const d1 = lead(compact);
      if (!d1) return null;
      const viewer = ctx.world.viewers.find((v) => v.viewer_id === d1.viewer_id);
      const d2 = follow({ ...compact, viewer });
      if (!d2) return null;
      // Parts with history (follow-ups) would make the merged window ambiguous; keep windows self-contained.
      if (d1.history.length > 0 || d2.history.length > 0) return null;
      const [a, b] = viewerFirst === 0 ? [d1, d2] : [d2, d1];
      return mergeDrafts(ctx, name, a, b);
    },
  };
}

/**
 * Multi-intent pairs: questions asked together. A greeting beside a question ("主播好呀 / 这款直播价多少") is
 * not one of them: it asks one thing, and a key could neither require the chit-chat skill nor call loading
 * it (as the multi-intent skill says, one reply skill per part) a waste.
 */
export const MULTI_INTENT_KINDS: readonly SubKind[] = [
  pair('price_and_coupon', PRODUCT_QA_PARTS.priceOther, MARKETING_PARTS.coupon, 1),
  pair('stock_and_buy', PRODUCT_QA_PARTS.stock, PURCHASE_PARTS.buyLink),
  // Retired (see above), but kept in its place with its weight: a seed whose draw named it moves on to the
  // next pair, and every other seed keeps its task (records and the graded corpus regenerate tasks by seed).
  { name: 'greeting_and_price', weight: 1, build: () => null },
  pair('price_and_order', PRODUCT_QA_PARTS.priceOther, AFTER_SALES_PARTS.orderStatus, 1),
  pair('shipping_and_buy', PRODUCT_QA_PARTS.shipping, PURCHASE_PARTS.buyCurrent),
];
