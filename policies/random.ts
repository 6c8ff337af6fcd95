/**
 * The random policy: a floor. Each turn it either calls a random tool from the observation's list with
 * arguments of roughly the right types, or says a random reply. Seeded from the episode's seed.
 */
import { Rng } from '../protocol/rng.js';
import type { ToolSchema } from '../protocol/domain.js';
import type { EpisodeStart, Policy, PolicyInstance, PolicyObservation } from './policy.js';
import { writeCalls, writeReply } from './policy.js';

const WORDS_ZH = ['宝宝们', '这个', '链接', '好看', '价格', '可以', '亲', '欢迎', '马上', '看看', '颜色', '不错', '有的'];
const WORDS_EN = ['hi', 'this', 'link', 'nice', 'price', 'yes', 'welcome', 'look', 'color', 'great', 'sure', 'deal'];

function randomValue(rng: Rng, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  switch (type) {
    case 'integer':
      return rng.int(0, 25);
    case 'number':
      return rng.int(0, 500) / 2;
    case 'boolean':
      return rng.chance(0.5);
    case 'string': {
      const e = (schema as { enum?: unknown[] }).enum;
      return e && e.length > 0 ? rng.pick(e) : `x${rng.int(0, 999)}`;
    }
    default:
      return `v${rng.int(0, 99)}`;
  }
}

class RandomInstance implements PolicyInstance {
  readonly #rng: Rng;
  readonly #parser: string;
  readonly #words: readonly string[];
  #tools: ToolSchema[];
  #turn = 0;

  constructor(start: EpisodeStart) {
    this.#rng = new Rng(start.seed, 'policy:random');
    this.#parser = start.parser;
    this.#tools = start.observation.tools ?? [];
    this.#words = String(start.info.task_id ?? '').includes('-en-') ? WORDS_EN : WORDS_ZH;
  }

  act(obs: PolicyObservation): unknown {
    this.#turn++;
    if (obs.tools) this.#tools = obs.tools;
    const rng = this.#rng;
    if (this.#tools.length > 0 && rng.chance(0.6)) {
      const n = rng.int(1, 2);
      const calls = [];
      for (let i = 0; i < n; i++) {
        const tool = rng.pick(this.#tools);
        const props = (tool.function.parameters.properties ?? {}) as Record<string, unknown>;
        const args: Record<string, unknown> = {};
        for (const k of Object.keys(props)) if (rng.chance(0.6)) args[k] = randomValue(rng, props[k]);
        calls.push({ id: `call_${this.#turn}_${i}`, name: tool.function.name, arguments: args });
      }
      return writeCalls(this.#parser, calls);
    }
    const len = rng.int(1, 8);
    const words = [];
    for (let i = 0; i < len; i++) words.push(rng.chance(0.15) ? String(rng.int(1, 300)) : rng.pick(this.#words));
    return writeReply(this.#parser, words.join(this.#words === WORDS_EN ? ' ' : ''));
  }
}

/** The random floor policy. */
export const randomPolicy: Policy = {
  name: 'random',
  privileged: false,
  start: (episode) => new RandomInstance(episode),
};
