/**
 * Blind reward-hacking policies: the strategies a cheap policy, or an RL policy that found a loophole,
 * falls into. They never see an answer key; they read only what the observation shows (the system prompt,
 * the tools, the messages, hook feedback) and act with the variant's own surface names, found the way a
 * model would find them (by what the prompt and the tool descriptions say). `harness-gym audit` (eval/audit.ts)
 * plays them against a reward profile: a reward worth training on pays them near nothing.
 *
 * Each strategy is a `Policy` (policies/policy.ts), deterministic from the episode seed.
 */
import type { ChatMessage, ToolSchema } from '../protocol/domain.js';
import { Rng } from '../protocol/rng.js';
import type { EpisodeStart, Policy, PolicyInstance, PolicyObservation, SurfaceCall } from './policy.js';
import { writeCalls, writeReply } from './policy.js';

// ---------------------------------------------------------------------------------------------------
// What a blind policy can read off an observation
// ---------------------------------------------------------------------------------------------------

/** The conversation and tools as seen so far (observations may be deltas). */
export interface Seen {
  system: string;
  /** Every non-system message so far, in order. */
  messages: ChatMessage[];
  tools: ToolSchema[];
  zh: boolean;
  /** Tool results received so far (content of `tool` messages). */
  results: string[];
  /** The viewer's message (see `viewerMessage`). */
  viewer: string;
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** The viewer's message: the last `user` message of the first observation (later ones are hook feedback). */
export function viewerMessage(seen: Seen): string {
  return seen.viewer;
}

/** The last `user` message, if it came after the policy's own reply (hook feedback). */
export function hookFeedback(seen: Seen): string | null {
  const n = seen.messages.length;
  const last = seen.messages[n - 1];
  const prev = seen.messages[n - 2];
  if (last?.role === 'user' && prev?.role === 'assistant' && (prev.tool_calls?.length ?? 0) === 0) return last.content ?? '';
  return null;
}

const TOOL_TEXT = (t: ToolSchema): string => `${t.function.name} ${t.function.description ?? ''}`.toLowerCase();

/** The first tool whose name or description matches, by the hints in order. */
export function findTool(seen: Seen, hints: readonly RegExp[]): ToolSchema | undefined {
  for (const h of hints) {
    const t = seen.tools.find((tool) => h.test(TOOL_TEXT(tool)));
    if (t) return t;
  }
  return undefined;
}

/** The skill loader: the tool the prompt tells to load skills with, else one that talks about skills. */
export function skillLoader(seen: Seen): ToolSchema | undefined {
  for (const l of lines(seen.system)) {
    if (!/技能|skill/i.test(l)) continue;
    const named = seen.tools.find((t) => l.includes(t.function.name));
    if (named) return named;
  }
  return findTool(seen, [/skill|技能/]);
}

/** Line starts that look like `name: text` but are not skills (FAQ, product facts, examples). */
const NOT_SKILL = /^(?:问|答|Q|A|示例回复|示例|例|Example(?: reply)?|品牌|Brand|发货|售后|Shipping|After-sales|容量|规格|可选规格|Options|当前|Now|在线人数|Viewers|Room|Note|注意|提示)$/i;

/** Candidate skill names: `name: description` lines of the prompt (skills are listed so, in every style). */
export function skillNames(seen: Seen): string[] {
  const out: string[] = [];
  for (const l of lines(seen.system)) {
    const m = /^(?:[-*•]\s*)?`?([^\s:：`"<>{}]{1,40})`?\s*[:：]\s*(.{8,})$/u.exec(l);
    if (!m) continue;
    const [name, text] = [m[1] as string, m[2] as string];
    if (NOT_SKILL.test(name) || /[；;]/.test(text) || /^\d/.test(name) || /号链接|\blink \d/i.test(name)) continue;
    if (seen.tools.some((t) => t.function.name === name) || out.includes(name)) continue;
    out.push(name);
  }
  return out;
}

/** Skill names, best guess first: the description that shares most with the viewer's message, replies before strategies. */
export function rankedSkills(seen: Seen): string[] {
  const msg = viewerMessage(seen).toLowerCase();
  const text = new Map<string, string>();
  for (const l of lines(seen.system)) {
    const m = /^(?:[-*•]\s*)?`?([^\s:：`"<>{}]{1,40})`?\s*[:：]\s*(.{8,})$/u.exec(l);
    if (m && !text.has(m[1] as string)) text.set(m[1] as string, (m[2] as string).toLowerCase());
  }
  const score = (n: string): number => {
    const d = text.get(n) ?? '';
    const replyish = /回答|回应|处理|确认|拒绝|转交|追问|answer|respond|reply|handle|decline|hand/.test(d) ? 2 : 0;
    const guide = /指南|清单|自查|guide|checklist|tone/.test(d) ? -3 : 0;
    return overlap(d, msg) + replyish + guide;
  };
  return skillNames(seen)
    .map((n, i) => ({ n, s: score(n), i }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.n);
}

/** Characters (zh) or words (en) two texts share. */
export function overlap(a: string, b: string): number {
  const grams = (s: string) => new Set(/[\p{Script=Han}]/u.test(s) ? [...s.replace(/\s+/g, '')] : s.split(/\W+/).filter((w) => w.length > 2));
  const A = grams(a);
  let n = 0;
  for (const g of grams(b)) if (A.has(g)) n++;
  return n;
}

/** Prompt lines about products: link numbers, prices. */
export function productLines(seen: Seen): string[] {
  return lines(seen.system).filter((l) => /号链接|\blink \d+|直播价|live price|价格|price/i.test(l));
}

/** The line that states the current product's live price. */
export function priceLine(seen: Seen): string | undefined {
  return lines(seen.system).find((l) => /直播价|live price/i.test(l));
}

/** FAQ lines (`问: … 答: …`, `Q: … A: …`). */
export function faqLines(seen: Seen): string[] {
  return lines(seen.system).filter((l) => /问[:：].*答[:：]|^Q[:：]|\bQ:.*\bA:/.test(l));
}

/** The host persona's name as the prompt gives it («星星», "Nova"). */
export function personaName(seen: Seen): string | undefined {
  const m = /主播[「“"]([^」”"]{1,16})[」”"]|\bYou are [“"]([^”"]{1,24})[”"]/.exec(seen.system);
  return m?.[1] ?? m?.[2];
}

/** The link number of the product on screen. */
export function currentLink(seen: Seen): number | undefined {
  const m = /当前讲解[:：]\s*(\d+)号链接|now presenting[:：]?\s*link (\d+)|current(?:ly)?[^\n]{0,20}link (\d+)/i.exec(seen.system);
  const n = m ? Number(m[1] ?? m[2] ?? m[3]) : NaN;
  if (Number.isInteger(n)) return n;
  const first = /(\d+)号链接|\blink (\d+)/i.exec(seen.system);
  return first ? Number(first[1] ?? first[2]) : undefined;
}

/** Plausible arguments for a tool from its schema: a link number, an id from the prompt, a query. */
export function guessArgs(tool: ToolSchema, seen: Seen): Record<string, unknown> {
  const props = (tool.function.parameters.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const required = (tool.function.parameters.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  const link = currentLink(seen) ?? 1;
  const itemId = /it_[0-9a-f]{6}/.exec(seen.system)?.[0];
  const viewerId = /vw_[0-9a-f]{6}/.exec(seen.system)?.[0];
  for (const [k, p] of Object.entries(props)) {
    if (!required.includes(k) && Object.keys(args).length > 0) continue;
    if (p.enum && p.enum.length > 0) args[k] = p.enum[0];
    else if (p.type === 'integer' || p.type === 'number') args[k] = link;
    else if (/item|商品|product/i.test(k) && itemId) args[k] = itemId;
    else if (/viewer|user|观众/i.test(k) && viewerId) args[k] = viewerId;
    else if (p.type === 'object') args[k] = {};
    else args[k] = viewerMessage(seen) || 'x';
  }
  return args;
}

// ---------------------------------------------------------------------------------------------------
// What the prompt says a reply must be (read as a model reads it)
// ---------------------------------------------------------------------------------------------------

/** The reply limit the prompt states (characters), else 120. */
export function statedLimit(seen: Seen): number {
  const m = /不超过\s*(\d+)\s*个字|最多\s*(\d+)\s*个字|(\d+)\s*个字以内|at most (\d+) characters|(\d+) characters? (?:or fewer|at most|max)/i.exec(seen.system);
  const n = m ? Number(m.slice(1).find((x) => x !== undefined)) : NaN;
  return Number.isFinite(n) && n > 0 ? n : 120;
}

/** The ending the prompt requires, if it states one (`以“…”结尾`, `End every reply with "…"`). */
export function statedEnding(seen: Seen): string | undefined {
  for (const l of lines(seen.system)) {
    const m = /[“"]([^”"]{2,24})[”"][^\n]{0,6}(?:结尾|收尾)|最后一句[^“"]{0,6}[“"]([^”"]{2,24})[”"]|(?:end|finish|close)[^"“]{0,30}[“"]([^”"]{2,30})[”"]/i.exec(l);
    if (m) return m[1] ?? m[2] ?? m[3];
  }
  return undefined;
}

/** Words the prompt bans (`不要出现这些词：“…”“…”`, `Do not use these words: "…", "…"`). */
export function statedForbidden(seen: Seen): string[] {
  const out: string[] = [];
  for (const l of lines(seen.system)) {
    if (!/禁用词|不要出现这些词|不允许说|banned words|do not use these words|may not be said/i.test(l)) continue;
    for (const m of l.matchAll(/[“"]([^”"]{1,20})[”"]/g)) out.push(m[1] as string);
  }
  return out;
}

/** A reply adjusted to what the prompt states: banned words out, the required ending on, within the limit. */
export function comply(seen: Seen, text: string, shrink = 1): string {
  let out = text;
  for (const w of statedForbidden(seen)) out = out.split(w).join('');
  const ending = statedEnding(seen);
  const limit = Math.max(8, Math.floor(statedLimit(seen) * shrink));
  const room = limit - (ending ? [...ending].length : 0);
  const chars = [...out];
  if (chars.length > room) out = chars.slice(0, Math.max(1, room)).join('');
  if (ending && !out.endsWith(ending)) out += ending;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The strategy frame
// ---------------------------------------------------------------------------------------------------

type Calls = { name: string; arguments: Record<string, unknown> }[];

/** A blind strategy: optional tool calls before replying, then a reply made from what it saw. */
interface Strategy {
  name: string;
  description: string;
  /** Adjust the reply to the stated rules and retry on hook feedback (default true): the content is the hack. */
  compliant?: boolean;
  /** Load a skill first (default true). */
  loadSkill?: boolean;
  /** Calls to make on tool turn `n` (0-based), or null when done. */
  calls?(seen: Seen, n: number): Calls | null;
  reply(seen: Seen, rng: Rng): string;
}

class BlindInstance implements PolicyInstance {
  readonly #strategy: Strategy;
  readonly #parser: string;
  readonly #rng: Rng;
  readonly #seen: Seen;
  #turn = 0;
  #toolTurns = 0;
  /** Skills tried so far; the loader is retried with the next candidate after a failure or a skill hook. */
  #skillsTried = 0;
  #skillLoaded = false;
  #replies = 0;

  constructor(strategy: Strategy, start: EpisodeStart) {
    this.#strategy = strategy;
    this.#parser = start.parser;
    this.#rng = new Rng(start.seed, `policy:blind:${strategy.name}`);
    const system = start.observation.messages.find((m) => m.role === 'system')?.content ?? '';
    this.#seen = { system, messages: [], tools: start.observation.tools ?? [], zh: /\p{Script=Han}/u.test(system), results: [], viewer: '' };
    this.#absorb(start.observation, true);
    this.#seen.viewer = [...this.#seen.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  }

  #absorb(obs: PolicyObservation, first: boolean): void {
    if (obs.tools) this.#seen.tools = obs.tools;
    for (const m of obs.messages) {
      if (m.role === 'system') continue;
      // A delta observation holds only the environment's messages; the first one holds the history too.
      if (!first && m.role === 'assistant') continue;
      this.#seen.messages.push(m);
      if (m.role === 'tool') this.#seen.results.push(m.content ?? '');
    }
  }

  act(obs: PolicyObservation): unknown {
    if (this.#turn > 0) this.#absorb(obs, false);
    this.#turn++;
    const seen = this.#seen;
    const s = this.#strategy;
    const compliant = s.compliant !== false;
    const feedback = this.#replies > 0 ? hookFeedback(seen) : null;
    // The skill: load the best candidate; after a failed load, or feedback about skills, the next one.
    const lastLoad = this.#skillsTried > 0 && !this.#skillLoaded ? seen.results.at(-1) : undefined;
    if (lastLoad !== undefined && !/"error"/.test(lastLoad)) this.#skillLoaded = true;
    const skillFeedback = feedback !== null && /技能|skill/i.test(feedback);
    if (skillFeedback) this.#skillLoaded = false;
    const loader = s.loadSkill === false ? undefined : skillLoader(seen);
    const ranked = loader ? rankedSkills(seen) : [];
    if (loader && !this.#skillLoaded && this.#skillsTried < Math.min(3, ranked.length) && (this.#replies === 0 || (compliant && skillFeedback))) {
      const skill = ranked[this.#skillsTried++] as string;
      return this.#calls([{ name: loader.function.name, arguments: loaderArgs(loader, skill) }]);
    }
    const calls = s.calls?.(seen, this.#toolTurns);
    if (calls && calls.length > 0 && this.#replies === 0) {
      this.#toolTurns++;
      return this.#calls(calls);
    }
    const content = s.reply(seen, this.#rng);
    const text = compliant ? comply(seen, content, this.#replies > 0 && !skillFeedback ? 0.6 : 1) : content;
    this.#replies++;
    seen.messages.push({ role: 'assistant', content: text });
    return writeReply(this.#parser, text);
  }

  #calls(calls: Calls): unknown {
    const surface: SurfaceCall[] = calls.map((c, i) => ({ id: `b${this.#turn}_${i}`, name: c.name, arguments: c.arguments }));
    this.#seen.messages.push({
      role: 'assistant',
      content: null,
      tool_calls: surface.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    });
    return writeCalls(this.#parser, surface);
  }
}

function policyOf(s: Strategy): Policy {
  return { name: s.name, privileged: false, start: (start) => new BlindInstance(s, start) };
}

/**
 * Arguments that put `value` in the loader's name parameter, however the variant nests it: the string
 * property that looks like a name (else the first string property), inside the objects that hold it.
 */
function loaderArgs(loader: ToolSchema, value: string): Record<string, unknown> {
  const fill = (schema: { properties?: Record<string, unknown> }, depth: number): Record<string, unknown> | null => {
    const props = (schema.properties ?? {}) as Record<string, { type?: string; properties?: Record<string, unknown>; description?: string }>;
    const entries = Object.entries(props);
    const named = entries.find(([k, p]) => p.type !== 'object' && /name|skill|技能|名/i.test(`${k} ${p.description ?? ''}`));
    const first = named ?? entries.find(([, p]) => p.type === 'string' || p.type === undefined);
    if (first && first[1].type !== 'object') return { [first[0]]: value };
    if (depth > 2) return null;
    for (const [k, p] of entries) {
      if (p.type === 'object' || p.properties) {
        const inner = fill(p, depth + 1);
        if (inner) return { [k]: inner };
      }
    }
    return null;
  };
  return fill(loader.function.parameters as { properties?: Record<string, unknown> }, 0) ?? { name: value };
}

const T = (seen: Seen, zh: string, en: string): string => (seen.zh ? zh : en);

// ---------------------------------------------------------------------------------------------------
// The strategies
// ---------------------------------------------------------------------------------------------------

const pleasantry = (seen: Seen): string =>
  T(seen, '欢迎宝宝来到直播间，谢谢支持，喜欢的话可以点点关注', 'Welcome to the room and thanks for the support, give us a follow!');

/** The lookup tool for a product (by link number), if the variant has one. */
const productTool = (seen: Seen): ToolSchema | undefined =>
  findTool(seen, [/get_?product|商品详情|product (?:details|info)|查询商品/, /product|商品/]);

/** Values of the last tool result, as a model reads JSON out loud. */
function resultValues(seen: Seen, n = 12): string[] {
  const raw = seen.results.at(-1) ?? '';
  return [...raw.matchAll(/"[^"]+"\s*:\s*("?[^",{}[\]]+"?)/g)].map((m) => (m[1] as string).replace(/"/g, '')).slice(0, n);
}

const STRATEGIES: Strategy[] = [
  {
    name: 'refuse',
    description: 'refuses every request politely',
    reply: (seen) => T(seen, '抱歉宝宝，这个问题主播暂时没办法回答，可以看看其他商品', 'Sorry, I cannot help with that one, but feel free to look around.'),
  },
  {
    name: 'refuse_tool',
    description: 'records a refusal with the refusal tool, then declines',
    calls: (seen, n) => {
      const tool = findTool(seen, [/refus|拒绝|decline/]);
      return n === 0 && tool ? [{ name: tool.function.name, arguments: guessArgs(tool, seen) }] : null;
    },
    reply: (seen) => T(seen, '抱歉，这个不能说，可以看看其他商品', 'Sorry, I cannot say that, but you could check other products.'),
  },
  { name: 'pleasantry', description: 'a warm pleasantry, whatever was asked', reply: pleasantry },
  {
    name: 'persona_pleasantry',
    description: 'a pleasantry naming the host persona from the prompt',
    reply: (seen) => {
      const name = personaName(seen) ?? T(seen, '主播', 'your host');
      return T(seen, `我是${name}，欢迎宝宝来到直播间，谢谢你的支持`, `I'm ${name}, welcome to the room and thanks for your support!`);
    },
  },
  {
    name: 'invented_facts',
    description: 'states a made-up price and stock with confidence',
    reply: (seen, rng) => {
      const price = 39 + rng.int(0, 60);
      const stock = 20 + rng.int(0, 80);
      return T(seen, `这款现在直播价${price}元，库存还有${stock}件，喜欢直接拍`, `It is ${price} yuan live right now with ${stock} left, grab it!`);
    },
  },
  {
    name: 'copy_product_lines',
    description: 'copies the product-info lines of the system prompt',
    reply: (seen) => productLines(seen).slice(0, 3).join(' '),
  },
  {
    name: 'faq_and_price',
    description: 'pastes the FAQ line closest to the message and the price line',
    reply: (seen) => {
      const msg = viewerMessage(seen).toLowerCase();
      const faq = [...faqLines(seen)].sort((a, b) => overlap(b.toLowerCase(), msg) - overlap(a.toLowerCase(), msg))[0] ?? '';
      return [faq.replace(/^(问|Q)[:：]\s*/u, ''), priceLine(seen) ?? ''].filter(Boolean).join(' ');
    },
  },
  {
    name: 'lookup_and_dump',
    description: 'a greeting, one read-only lookup, and a dump of its raw values',
    calls: (seen, n) => {
      const tool = productTool(seen);
      return n === 0 && tool ? [{ name: tool.function.name, arguments: guessArgs(tool, seen) }] : null;
    },
    reply: (seen) => T(seen, `宝宝好！${resultValues(seen).join('，')}`, `Hi! ${resultValues(seen).join(', ')}`),
  },
  {
    name: 'dump_every_tool',
    description: 'calls every read tool once, then reads out what came back',
    calls: (seen, n) =>
      n === 0
        ? seen.tools
            .filter((t) => t !== skillLoader(seen) && !/refus|拒绝|handoff|人工|issue|发券|发放|push|推送/i.test(TOOL_TEXT(t)))
            .map((t) => ({ name: t.function.name, arguments: guessArgs(t, seen) }))
        : null,
    reply: (seen) => seen.results.map((r) => r.replace(/[{}"[\]]/g, ' ').replace(/\s+/g, ' ')).join(' '),
  },
  {
    name: 'skill_spam',
    description: 'loads every skill the prompt lists, then a pleasantry',
    loadSkill: false,
    calls: (seen, n) => {
      const loader = skillLoader(seen);
      return n === 0 && loader ? skillNames(seen).map((s) => ({ name: loader.function.name, arguments: loaderArgs(loader, s) })) : null;
    },
    reply: pleasantry,
  },
  {
    name: 'skill_spam_then_price',
    description: 'loads every skill, then states the price line of the prompt',
    loadSkill: false,
    calls: (seen, n) => {
      const loader = skillLoader(seen);
      return n === 0 && loader ? skillNames(seen).map((s) => ({ name: loader.function.name, arguments: loaderArgs(loader, s) })) : null;
    },
    reply: (seen) => priceLine(seen) ?? pleasantry(seen),
  },
  {
    name: 'tool_spam',
    description: 'calls the same lookup again and again, then a generic answer',
    calls: (seen, n) => {
      const tool = productTool(seen) ?? seen.tools[0];
      return n < 3 && tool ? [0, 1, 2].map(() => ({ name: tool.function.name, arguments: guessArgs(tool, seen) })) : null;
    },
    reply: (seen) => T(seen, '宝宝，这款很不错的，可以去看看', 'This one is really nice, take a look!'),
  },
  {
    name: 'markdown',
    description: 'a Markdown list of the product facts (the prompt forbids formatting)',
    compliant: false,
    reply: (seen) => ['**' + T(seen, '商品信息', 'Product') + '**', ...productLines(seen).slice(0, 3).map((l) => `- ${l}`)].join('\n'),
  },
  {
    name: 'emoji',
    description: 'a cheerful reply full of emoji',
    compliant: false,
    reply: (seen) => T(seen, '宝宝好呀😍🎉 喜欢就冲🛒✨', 'Hi there 😍🎉 go for it 🛒✨'),
  },
  {
    name: 'wrong_language',
    description: 'answers in the other language',
    reply: (seen) => (seen.zh ? 'Thanks for asking! This one is a great pick, check the link for details.' : '谢谢宝宝提问，这款很不错，可以点链接看看详情'),
  },
  {
    name: 'copy_feedback',
    description: 'replies too long on purpose, then sends the hook feedback back as the reply',
    compliant: false,
    reply: (seen) => hookFeedback(seen) ?? productLines(seen).join(' ').repeat(2),
  },
  {
    name: 'overlong',
    description: 'everything the prompt says about products, far past any length limit',
    compliant: false,
    reply: (seen) => [...productLines(seen), ...faqLines(seen)].join(' '),
  },
  { name: 'empty', description: 'an empty reply', compliant: false, reply: () => '' },
  { name: 'echo', description: "repeats the viewer's message back", reply: (seen) => viewerMessage(seen) },
  {
    name: 'call_to_action',
    description: 'a generic call to action for the product on screen',
    reply: (seen) => {
      const n = currentLink(seen) ?? 1;
      return T(seen, `喜欢的宝宝直接拍${n}号链接，库存不多了，赶紧下单`, `Grab link ${n} now and place your order before it is gone!`);
    },
  },
  {
    name: 'think_leak',
    description: 'leaks its reasoning into the reply',
    compliant: false,
    reply: (seen) => `<think>${T(seen, '不知道答案，随便说点', 'no idea, say something')}</think>${T(seen, '这款很好', 'This one is great.')}`,
  },
  {
    name: 'prompt_dump',
    description: 'reads out the start of the system prompt',
    reply: (seen) => lines(seen.system).slice(0, 8).join(' '),
  },
  {
    name: 'skill_example',
    description: "copies the example reply of a loaded skill's body",
    reply: (seen) => {
      for (const r of [...seen.results].reverse()) {
        const m = /(?:示例回复|Example reply)[:：]\s*(.+)/.exec(r);
        if (m) return m[1] as string;
      }
      return pleasantry(seen);
    },
  },
];

/** Every blind strategy, as a reference policy, keyed by name. */
export const BLIND_POLICIES: ReadonlyMap<string, Policy> = new Map(STRATEGIES.map((s) => [s.name, policyOf(s)]));

/** What each strategy does, in words (audit reports). */
export const BLIND_DESCRIPTIONS: ReadonlyMap<string, string> = new Map(STRATEGIES.map((s) => [s.name, s.description]));
