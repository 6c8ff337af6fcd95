import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { AnswerKey, BuiltinIntent, Intent, Locale, Task, WorldState } from '../../../protocol/domain.js';
import { INTENTS, LOCALES, emptyWorldState } from '../../../protocol/domain.js';
import { charLength, extractNumbers, normalizeForMatch } from '../../../protocol/text.js';
import { generateWorld } from '../../../mock-services/index.js';
import { INTENT_REPLY_SKILLS, REPLY_SKILLS, STRATEGY_SKILLS, CANONICAL_TOOLS } from '../../../harness/index.js';
import { TaskSchema, generateTask, generateTaskInWorld, taskWorldSeed } from '../../../env/tasks/index.js';
import { evidenceNumbers, normalizeState, replay, replyViolations } from './helpers.js';
import { propertyRuns } from '../../property-runs.js';

const SEEDS = Array.from({ length: 100 }, (_, i) => i * 7919 + 13);

/**
 * The replayed overlay as the key sees it: a change `optional_state` allows and `expected_state` does not
 * expect is left out (either reading of the message is right, e.g. "drop the link" after a question about
 * link N pushes link N or the one on screen); every other change stays and must be expected.
 */
function keyedState(state: WorldState, key: AnswerKey): WorldState {
  const actual = normalizeState(state);
  if (key.optional_state === undefined) return actual;
  const expected = normalizeState(key.expected_state);
  const allowed = normalizeState({ ...emptyWorldState(), ...key.optional_state });
  const keep = <T>(xs: readonly T[], exp: readonly T[], opt: readonly T[]): T[] => {
    const left = exp.map((x) => JSON.stringify(x));
    const optional = opt.map((x) => JSON.stringify(x));
    return xs.filter((x) => {
      const j = JSON.stringify(x);
      const i = left.indexOf(j);
      if (i >= 0) {
        left.splice(i, 1);
        return true;
      }
      return !optional.includes(j);
    });
  };
  return {
    issued_coupons: keep(actual.issued_coupons, expected.issued_coupons, allowed.issued_coupons),
    pushed_cards: keep(actual.pushed_cards, expected.pushed_cards, allowed.pushed_cards),
    handoffs: keep(actual.handoffs, expected.handoffs, allowed.handoffs),
    refusals: keep(actual.refusals, expected.refusals, allowed.refusals),
  };
}

/** Everything wrong with one task's answer key (empty when it is internally consistent). */
function problems(task: Task): string[] {
  const out: string[] = [];
  const key = task.answer_key;
  const world = generateWorld(task.world_seed, task.locale);
  const ref = key.reference_reply;

  const schema = TaskSchema.safeParse(task);
  if (!schema.success) out.push(`schema: ${schema.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  if (!world.viewers.some((v) => v.viewer_id === task.viewer_id)) out.push(`unknown viewer ${task.viewer_id}`);

  // Required facts are stated by the reference; forbidden ones are not.
  const nref = normalizeForMatch(ref);
  for (const f of key.required_facts)
    if (!f.values.some((v) => nref.includes(normalizeForMatch(v)))) out.push(`fact ${f.key} ${JSON.stringify(f.values)} not in reference`);
  for (const f of key.forbidden_facts)
    if (f.values.some((v) => nref.includes(normalizeForMatch(v)))) out.push(`forbidden ${f.key} ${JSON.stringify(f.values)} in reference`);

  // Length, format and prohibited phrases, as the base harness's reply hooks see them.
  if (charLength(ref) > 120) out.push(`reference too long (${charLength(ref)})`);
  const special = world.products.some(
    (p) =>
      p.regulatory_kind === 'special_cosmetic' &&
      (p.link_no === world.room.current_link ||
        ref.includes(p.title) ||
        Object.values(p.attributes).some((v) => ref.includes(v)) ||
        p.faq.some((f) => ref.includes(f.answer))),
  );
  for (const v of replyViolations(ref, task.locale, special)) out.push(`hook ${v}`);

  // Required calls succeed in order; every number of the reference is in the evidence; the state matches
  // (a change answer_key.optional_state allows may be made or not).
  const rep = replay(task, world);
  for (const r of rep.results) if (!r.ok) out.push(`call ${r.name} failed: ${r.error}`);
  const evidence = evidenceNumbers(task, rep);
  for (const n of extractNumbers(ref)) if (!evidence.has(n)) out.push(`ungrounded number ${n}`);
  expect(keyedState(rep.state, key)).toEqual(normalizeState(key.expected_state));
  // Any alternative of a required card push is a card the key expects or allows, not only the first one replayed.
  const cards = [...key.expected_state.pushed_cards, ...(key.optional_state?.pushed_cards ?? [])];
  for (const r of key.required_calls)
    for (const c of r.any_of)
      if (c.name === 'push_link_card' && !cards.includes(c.arguments.link_no as number))
        out.push(`push_link_card ${String(c.arguments.link_no)} not in state`);

  // Skills and tools use canonical names; the intent's reply skills are required.
  for (const s of key.reply_skills) if (!REPLY_SKILLS.includes(s as never)) out.push(`unknown reply skill ${s}`);
  for (const s of key.strategy_skills) if (!STRATEGY_SKILLS.includes(s as never)) out.push(`unknown strategy skill ${s}`);
  for (const t of [...key.optional_tools, ...key.required_calls.flatMap((r) => r.any_of.map((c) => c.name))])
    if (!CANONICAL_TOOLS.includes(t as never)) out.push(`unknown tool ${t}`);
  return out;
}

describe('generated answer keys are internally consistent', () => {
  for (const locale of LOCALES) {
    for (const intent of INTENTS) {
      it(`${intent} (${locale}) over 100 seeds`, () => {
        const bad: string[] = [];
        const subKinds = new Set<string>();
        for (const seed of SEEDS) {
          const world = generateWorld(taskWorldSeed(seed, 'train'), locale);
          const { task, sub_kind } = generateTaskInWorld(world, seed, locale, intent, 'train');
          subKinds.add(sub_kind);
          expect(task.intent).toBe(intent);
          for (const p of problems(task)) bad.push(`${task.id} [${sub_kind}] ${p} :: ${task.answer_key.reference_reply}`);
        }
        expect(bad).toEqual([]);
        // Several sub-kinds show up for every intent (the world supports more than one way to ask).
        expect(subKinds.size).toBeGreaterThanOrEqual(2);
      });
    }
  }
});

describe('answer keys follow the intent rules', () => {
  const cases: [BuiltinIntent, Locale][] = INTENTS.flatMap((i) => LOCALES.map((l) => [i, l] as [BuiltinIntent, Locale]));
  it.each(cases)('%s (%s): expectation, reply skills and state', (intent, locale) => {
    for (const seed of SEEDS.slice(0, 30)) {
      const world = generateWorld(taskWorldSeed(seed, 'train'), locale);
      const { task } = generateTaskInWorld(world, seed, locale, intent, 'train');
      const key = task.answer_key;
      const expected = { risky: 'refuse', clarification: 'clarify', handoff: 'handoff' } as Partial<Record<Intent, string>>;
      expect(key.expect).toBe(expected[intent] ?? 'answer');
      if (intent === 'multi_intent') {
        expect(task.messages).toHaveLength(2);
        expect(key.strategy_skills).toContain('multi-intent');
        expect(key.reply_skills.length).toBeGreaterThanOrEqual(2);
      } else {
        expect(task.messages).toHaveLength(1);
        expect(key.reply_skills).toEqual([...INTENT_REPLY_SKILLS[intent]]);
      }
      if (intent === 'whitelist') expect(key.strategy_skills).toContain('refusal-whitelist');
      if (intent === 'risky') {
        // One category, or (special-cosmetic efficacy, which no category names) either of several, each
        // allowed in the state and accepted as the required call.
        const either = key.optional_state?.refusals ?? [];
        if (key.expected_state.refusals.length === 0) {
          expect(either.length).toBeGreaterThanOrEqual(2);
          expect(key.required_calls.find((r) => r.any_of[0].name === 'refuse_request')?.any_of.map((c) => c.arguments)).toEqual(either);
        } else expect(key.expected_state.refusals).toHaveLength(1);
      }
      if (intent === 'purchase') expect(key.expected_state.pushed_cards).toHaveLength(1);
      if (intent === 'handoff') expect(key.expected_state.handoffs).toHaveLength(1);
      if (intent === 'purchase' || intent === 'marketing') expect(key.cta).toBe(true);
      if (intent === 'chitchat' || intent === 'clarification') expect(key.required_calls).toEqual([]);
      if (intent === 'after_sales' || intent === 'handoff') {
        const owner = world.viewers.find((v) => v.viewer_id === task.viewer_id);
        expect(owner?.order_ids.length ?? 0).toBeGreaterThan(0);
        expect(key.required_calls[0]).toEqual({ any_of: [{ name: 'list_orders', arguments: { viewer_id: task.viewer_id } }] });
      }
    }
  });
});

describe('answer keys hold for arbitrary seeds, splits and sampled intents', () => {
  it('every generated task is consistent (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.constantFrom(...LOCALES),
        fc.constantFrom('train' as const, 'eval' as const),
        (seed, locale, split) => {
          const task = generateTask(seed, locale, { split });
          expect(problems(task)).toEqual([]);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });
});
