/**
 * An ambiguous request has two right readings: "what's the price?" right after weighing link A against
 * link B may be asked back ("which one?") or answered for both links. Played through a real episode of
 * the generated task, each reading earns the full reward; a half answer (one link's price), a wrong
 * price, or an answer without any price does not.
 */
import { describe, expect, it } from 'vitest';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { generateTask } from '../../env/tasks/generate.js';
import { worldOfTask } from '../../mock-services/index.js';
import type { Task } from '../../protocol/domain.js';

const config = defaultEnvConfig();

function call(id: string, calls: [string, unknown][]) {
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: calls.map(([name, args], i) => ({ id: `${id}_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } })),
    },
  };
}

/** Load a skill (the clarify skill by default), look both links up, then reply `text`; the final reward and its reasons. */
function play(task: Task, text: string, skill = 'clarify-intent'): { reward: number; reasons: string[] } {
  const created = createEpisode(config, { episode_id: 'amb', seed: 1, variant: 'identity', task_override: task });
  if (!created.ok) throw new Error(created.error.message);
  const ep = created.episode;
  ep.reset();
  const [a, b] = (task.answer_key.answer_instead?.required_facts ?? []).map((f) => Number(f.key.split(':')[1]));
  const first = ep.step(
    call('c1', [
      ['load_skill', { name: skill }],
      ['get_product', { link_no: a }],
      ['get_product', { link_no: b }],
    ]),
  );
  if (!first.ok) throw new Error(first.error.message);
  const last = ep.step({ message: { role: 'assistant', content: text } });
  if (!last.ok) throw new Error(last.error.message);
  expect(last.terminated).toBe(true);
  const info = last.info as { reward_details?: Record<string, { reasons: string[] }> };
  return { reward: last.reward, reasons: Object.values(info.reward_details ?? {}).flatMap((d) => d.reasons) };
}

function ambiguousPriceTask(locale: 'en' | 'zh-CN'): Task {
  for (let seed = 0; seed < 2000; seed++) {
    const t = generateTask(seed, locale, { intent: 'clarification' });
    if (t.answer_key.answer_instead !== undefined) return t;
  }
  throw new Error('no ambiguous price task');
}

describe('an ambiguous price question: asking back and answering for both links are both right', () => {
  for (const locale of ['en', 'zh-CN'] as const) {
    const task = ambiguousPriceTask(locale);
    const world = worldOfTask(task);
    const [fa, fb] = task.answer_key.answer_instead?.required_facts ?? [];
    const la = Number(fa.key.split(':')[1]);
    const lb = Number(fb.key.split(':')[1]);
    const priceOf = (n: number) => String(world.products.find((p) => p.link_no === n)?.live_price);
    const pa = priceOf(la);
    const pb = priceOf(lb);
    const say = (en: string, zh: string) => (locale === 'en' ? en : zh);

    it(`${locale}: the key is a clarification with the other reading given (both links' live prices)`, () => {
      expect(task.answer_key.expect).toBe('clarify');
      expect(task.answer_key.answer_instead?.required_facts.map((f) => f.key)).toEqual([`live_price:${la}`, `live_price:${lb}`]);
      expect(task.answer_key.answer_instead?.reply_skills).toEqual(['product-qa']);
      expect(task.history[0].content).toContain(String(la));
    });

    it(`${locale}: asking back which link is meant earns the full reward`, () => {
      const r = play(task, say(`Do you mean link ${la} or link ${lb}?`, `宝宝问的是${la}号还是${lb}号呀？`));
      expect(r.reward).toBe(1);
    });

    it(`${locale}: answering with both links' prices earns the full reward`, () => {
      const r = play(task, say(`Link ${la} is ${pa} live and link ${lb} is ${pb}.`, `${la}号直播价${pa}元，${lb}号${pb}元。`));
      expect(r.reward).toBe(1);
    });

    it(`${locale}: answering with both prices after loading the product Q&A skill (the answer's own skill) earns the full reward`, () => {
      const r = play(task, say(`Link ${la} is ${pa} live and link ${lb} is ${pb}.`, `${la}号直播价${pa}元，${lb}号${pb}元。`), 'product-qa');
      expect(r.reward).toBe(1);
    });

    it(`${locale}: asking back after loading the product Q&A skill loses the skill-selection share`, () => {
      const r = play(task, say(`Do you mean link ${la} or link ${lb}?`, `宝宝问的是${la}号还是${lb}号呀？`), 'product-qa');
      expect(r.reward).toBeLessThan(1);
      expect(r.reasons).toContain('required reply skill not loaded: clarify-intent');
    });

    it(`${locale}: one link's price alone (a guess at which one) is neither reading: below both`, () => {
      const r = play(task, say(`Link ${la} is ${pa} live.`, `${la}号直播价${pa}元。`));
      expect(r.reward).toBeLessThan(0.8);
      expect(r.reasons).toContain('asks no clarifying question');
    });

    it(`${locale}: the two prices swapped between the links is neither reading`, () => {
      expect(pa).not.toBe(pb);
      const r = play(task, say(`Link ${la} is ${pb} live and link ${lb} is ${pa}.`, `${la}号直播价${pb}元，${lb}号${pa}元。`));
      expect(r.reward).toBeLessThan(0.8);
      expect(r.reasons).toContain('asks no clarifying question');
    });
  }
});
