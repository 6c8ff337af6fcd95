/**
 * Test helpers for the task generator: the evidence a policy sees (prompt facts + required call results),
 * a replay of the required calls, and a checker that applies the base harness's reply-hook patterns.
 */
import type { CanonicalCall, Locale, Task, WorldState } from '../../../protocol/domain.js';
import { emptyWorldState } from '../../../protocol/domain.js';
import type { Harness } from '../../../protocol/harness.js';
import { charLength, extractNumbers } from '../../../protocol/text.js';
import type { World } from '../../../mock-services/world.js';
import { callService, generateWorld } from '../../../mock-services/index.js';
import { loadBaseHarness } from '../../../harness/index.js';
import type { ProhibitedPhrasesParams, ReplyFormatParams } from '../../../harness/index.js';
import { promptFacts } from '../../../env/prompt.js';

/** Fill the arguments a requirement leaves free (they are not matched) so the call can run. */
export function runnableArgs(call: CanonicalCall, task: Task): { [key: string]: unknown } {
  const args = { ...call.arguments };
  if (call.name === 'search_faq' && args.question === undefined) args.question = task.messages.join(' ');
  if (call.name === 'handoff_to_human' && args.reason === undefined) args.reason = task.messages.join(' ');
  return args;
}

/** The outcome of replaying a task's required calls (first alternative of each) on its world. */
export interface Replay {
  world: World;
  state: WorldState;
  results: { name: string; ok: boolean; data: unknown; error?: string }[];
}

/** Replay the required calls in order on a fresh overlay. */
export function replay(task: Task, world: World = generateWorld(task.world_seed, task.locale)): Replay {
  const state = emptyWorldState();
  const results: Replay['results'] = [];
  for (const r of task.answer_key.required_calls) {
    const call = r.any_of[0];
    // MCP discovery is answered by the episode, not a mock service; it has no data to replay.
    if (call.name === 'discover_tools') continue;
    const out = callService(call.name, runnableArgs(call, task), { world, state, viewer_id: task.viewer_id });
    results.push(
      out.ok
        ? { name: call.name, ok: true, data: out.data }
        : { name: call.name, ok: false, data: null, error: `${out.error.code}: ${out.error.message}` },
    );
  }
  return { world, state, results };
}

const STUB_HARNESS = {
  skills: [],
  tools: [],
  prompt: { tools_doc_style: 'none' },
  limits: { reply_max_chars: 120, max_turns: 8 },
} as unknown as Harness;

/** The text of the prompt parts that carry task facts (no skills, tools or limits). */
export function promptEvidenceText(world: World, task: Task): string {
  const f = promptFacts(STUB_HARNESS, world, task);
  return [f.persona_name, f.persona_style, f.current_product, f.lineup, f.faq, f.room, f.viewer].join('\n');
}

/** Every number the policy could legitimately state: prompt, history, messages and required-call results. */
export function evidenceNumbers(task: Task, rep: Replay): Set<number> {
  const texts = [
    promptEvidenceText(rep.world, task),
    ...task.messages,
    ...task.history.map((h) => h.content),
    ...rep.results.map((r) => JSON.stringify(r.data)),
  ];
  return new Set(texts.flatMap((t) => extractNumbers(t)));
}

/** Compare overlays as the rewards do: order-insensitive, hand-off reasons ignored. */
export function normalizeState(s: WorldState): WorldState {
  const sortJson = <T>(xs: readonly T[]): T[] =>
    xs
      .map((x) => JSON.stringify(x))
      .sort()
      .map((x) => JSON.parse(x) as T);
  return {
    issued_coupons: sortJson(s.issued_coupons.map((c) => ({ viewer_id: c.viewer_id, coupon_id: c.coupon_id }))),
    pushed_cards: [...s.pushed_cards].sort((a, b) => a - b),
    handoffs: sortJson(
      s.handoffs.map((h) =>
        h.order_id === undefined ? { viewer_id: h.viewer_id, reason: '' } : { viewer_id: h.viewer_id, order_id: h.order_id, reason: '' },
      ),
    ),
    refusals: sortJson(s.refusals.map((r) => ({ category: r.category }))),
  };
}

// ---------------------------------------------------------------------------------------------------
// Reply hooks (patterns from harness/hooks.yaml, applied the way the hooks describe them)
// ---------------------------------------------------------------------------------------------------

function hookParams<T>(locale: Locale, id: string): T {
  const h = loadBaseHarness(locale).hooks.find((x) => x.id === id);
  if (!h) throw new Error(`base harness has no ${id} hook`);
  return h.params as T;
}

/** Violations of reply_format (markdown, emoji, think leak) and prohibited_phrases in a reply. */
export function replyViolations(reply: string, locale: Locale, specialCosmeticInScope: boolean): string[] {
  const out: string[] = [];
  const fmt = hookParams<ReplyFormatParams>(locale, 'reply_format');
  if (reply.trim() === '') out.push('EMPTY_REPLY');
  if (charLength(reply) > 120) out.push('TOO_LONG');
  for (const p of fmt.markdown_patterns) if (new RegExp(p, 'mu').test(reply)) out.push(`MARKDOWN ${p}`);
  if (new RegExp(fmt.emoji_pattern, 'u').test(reply)) out.push('EMOJI');
  if (new RegExp(fmt.think_pattern, 'iu').test(reply)) out.push('THINK_LEAK');
  const pp = hookParams<ProhibitedPhrasesParams>(locale, 'prohibited_phrases');
  for (const rule of pp.rules) {
    if (rule.unless === 'special_cosmetic_in_scope' && specialCosmeticInScope) continue;
    for (const loc of Object.keys(rule.patterns) as Locale[]) {
      for (const src of rule.patterns[loc] ?? []) {
        const re = new RegExp(src, 'giu');
        for (const m of reply.matchAll(re)) {
          if (rule.negatable) {
            // Stricter than the hook: the negation must sit in the same clause, within the window.
            const neg = pp.negation[loc];
            const before = reply.slice(Math.max(0, (m.index ?? 0) - neg.window), m.index);
            const clause = before.split(/[，。；！？,.;!?]/).pop() ?? '';
            if (new RegExp(neg.pattern, 'iu').test(clause)) continue;
          }
          out.push(`${rule.code} "${m[0]}"`);
        }
      }
    }
  }
  return out;
}
