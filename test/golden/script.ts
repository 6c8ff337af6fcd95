/**
 * The golden sessions: scripted conversations with the server whose every reply frame is hashed into
 * `test/golden/digest.json`. They cover what must never change by accident (docs/PROTOCOL.md): both
 * encodings, seedless and seeded items, presets and VariantSpecs, locales, parsers, observations,
 * faults, GRPO groups with both shares and across frames, oracle hints, closes, and every item-level
 * and frame-level error a script can provoke deterministically (INTERNAL and TIMEOUT cannot be).
 *
 * Each request is sent alone and its reply awaited, so the frames arrive in one order. The welcome
 * carries a random `session_id`; it is hashed with that field blanked.
 */
import { createHash } from 'node:crypto';
import type { ServerDeps } from '../../server/index.js';
import { inject, makeApp } from '../server/helpers.js';
import type { WireClient } from '../server/helpers.js';

/** One golden session: the server it talks to and the script it plays. */
export interface GoldenSession {
  name: string;
  config: Record<string, unknown>;
  deps?: ServerDeps;
  /** Sends requests; `hash` collects every reply in arrival order. */
  play(c: Recorder): Promise<void>;
}

/** A client that keeps the sha256 of every reply. */
export class Recorder {
  readonly frames: string[] = [];
  /** Decoded replies, in order (for the script's own decisions and for debugging a digest change). */
  readonly replies: unknown[] = [];
  readonly #c: WireClient;
  constructor(c: WireClient) {
    this.#c = c;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async request(value: unknown, binary = false): Promise<any> {
    this.#c.send(value, binary);
    return this.#take();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async raw(data: Buffer | string): Promise<any> {
    this.#c.sendRaw(data);
    return this.#take();
  }

  async #take(): Promise<unknown> {
    const r = await this.#c.next();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const msg = r.msg as any;
    let bytes: Buffer | string = r.raw;
    if (msg?.type === 'welcome') bytes = `${r.binary ? 'b' : 't'}:${JSON.stringify({ ...msg, session_id: '-' })}`;
    this.frames.push(createHash('sha256').update(bytes).digest('hex'));
    this.replies.push(msg);
    return msg;
  }

  /** Wait for the close the server announced (PROTOCOL_VERSION, UNAUTHORIZED). */
  closed(): Promise<{ code: number; reason: string }> {
    return this.#c.closed;
  }
}

const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const assistant = (content: string | null, tool_calls?: unknown[]) => ({
  message: tool_calls === undefined ? { role: 'assistant', content } : { role: 'assistant', content, tool_calls },
});

/** Actions a naive policy takes with the base harness's names: some fail the variant's schemas, on purpose. */
const NAIVE = [
  assistant(null, [call('c1', 'load_skill', { name: 'product-qa' })]),
  assistant(null, [call('c2', 'get_product', { link_no: 1 }), call('c3', 'check_stock', { link_no: 1 })]),
  { text: '<think>价格在工具结果里</think>这款现在直播价很划算，喜欢可以拍哦' },
  { text: 'Thanks for asking! It is a great pick today.' },
];

/** Step every live episode with the oracle's hint until all ended (at most `turns` rounds). */
async function playHints(c: Recorder, items: { episode_id: string; info: { oracle_action?: unknown } }[], binary: boolean, turns = 14) {
  const live = new Map(items.map((it) => [it.episode_id, it.info.oracle_action]));
  for (let t = 0; live.size > 0 && t < turns; t++) {
    const r = await c.request({ type: 'step', id: `hint-${t}`, items: [...live].map(([episode_id, action]) => ({ episode_id, action })) }, binary);
    for (const it of r.items) {
      if (!it.ok || it.terminated || it.truncated) live.delete(it.episode_id);
      else live.set(it.episode_id, it.info.oracle_action);
    }
  }
}

/** Step the given episodes with the naive actions in turn, to their end or four rounds. */
async function playNaive(c: Recorder, ids: string[], binary: boolean, firstId: number) {
  let live = ids;
  for (let t = 0; live.length > 0 && t < NAIVE.length; t++) {
    const r = await c.request({ type: 'step', id: firstId + t, items: live.map((episode_id) => ({ episode_id, action: NAIVE[t] })) }, binary);
    live = r.items.filter((it: { ok: boolean; terminated?: boolean; truncated?: boolean }) => it.ok && !it.terminated && !it.truncated).map((it: { episode_id: string }) => it.episode_id);
  }
}

export const GOLDEN_SESSIONS: GoldenSession[] = [
  {
    name: 'naive-json',
    config: {},
    async play(c) {
      await c.request({ type: 'hello', id: 'h', protocol: 1, seed: 7, client: 'golden' });
      const r = await c.request({
        type: 'reset',
        id: 1,
        items: [
          {},
          { seed: 5 },
          { seed: 6, variant: 'train', options: { locale: 'en' } },
          { seed: 9, variant: 'eval', options: { observation: 'full' } },
          { variant: { families: ['tools', 'skills'], intensity: 0.5, split: 'train' } },
          { seed: 11, options: { faults: 0.5, max_turns: 3 } },
          { episode_id: 'mine', seed: 12, variant: { families: ['prompt', 'hooks'], intensity: 1, split: 'eval', identity_share: 0.5 } },
          { seed: 13, task: { intent: 'after_sales' }, options: { parser: 'hermes' } },
        ],
      });
      const ids = r.items.map((it: { episode_id: string }) => it.episode_id);
      await playNaive(c, ids, false, 2);
      await c.request({ type: 'close', id: 'c', episode_ids: [...ids, 'never-was', 'mine'] });
      await c.request({ type: 'ping', id: 99 });
      await c.request({ type: 'reset', id: 'empty', items: [] });
    },
  },
  {
    name: 'oracle-msgpack',
    config: { allow_oracle_hints: true },
    async play(c) {
      await c.request({ type: 'hello', id: 1, protocol: 1, seed: 3 }, true);
      const parsers = ['auto', 'openai', 'hermes', 'qwen3_xml'];
      const variants = ['identity', 'train', 'eval', { families: ['skills', 'tools', 'prompt', 'hooks'], intensity: 0.7, split: 'train' }];
      const items = parsers.flatMap((parser, p) =>
        variants.map((variant, v) => ({
          episode_id: `o-${p}-${v}`,
          seed: 200 + 10 * p + v,
          variant,
          options: { parser, oracle_hints: true, locale: (p + v) % 2 === 0 ? 'zh-CN' : 'en', faults: v === 3 ? 0.2 : 0 },
        })),
      );
      const r = await c.request({ type: 'reset', id: 2, items }, true);
      await playHints(c, r.items, true);
    },
  },
  {
    name: 'groups-mixed',
    config: { allow_oracle_hints: true },
    async play(c) {
      await c.request({ type: 'hello', id: 'h', protocol: 1, seed: 11 });
      const hinted = { oracle_hints: true };
      // "task+variant" (the default) and "task", each across two frames, seedless and seeded founders.
      const a = await c.request({
        type: 'reset',
        id: 1,
        items: [
          { group_id: 'g1', variant: 'train', options: hinted },
          { group_id: 'g1', options: hinted },
          { group_id: 'g2', seed: 77, variant: 'eval', options: { ...hinted, group_share: 'task' } },
          { group_id: 'g2', options: { ...hinted, group_share: 'task' } },
          {},
        ],
      });
      const b = await c.request(
        {
          type: 'reset',
          id: 2,
          items: [
            { group_id: 'g1', options: hinted },
            { group_id: 'g2', options: { ...hinted, group_share: 'task' } },
            { group_id: 'g2', seed: 78, options: { ...hinted, group_share: 'task' } },
            { group_id: 'g3', task: { split: 'eval' }, options: hinted },
            { group_id: 'g3', options: hinted },
          ],
        },
        true,
      );
      await playHints(c, [...a.items.filter((it: { info?: { oracle_action?: unknown } }) => it.info?.oracle_action !== undefined), ...b.items], false);
      // A group member after its group's episodes were closed founds nothing new: it joins the group.
      await c.request({ type: 'close', id: 3, episode_ids: a.items.map((it: { episode_id: string }) => it.episode_id) });
      await c.request({ type: 'reset', id: 4, items: [{ group_id: 'g1' }, { group_id: 'g2', options: { group_share: 'task' } }] }, true);
    },
  },
  {
    name: 'item-errors',
    config: { limits: { max_episodes: 6 } },
    async play(c) {
      await c.request({ type: 'hello', id: 'h', protocol: 1, seed: 1 });
      await c.request({
        type: 'reset',
        id: 1,
        items: [
          { episode_id: 'a', seed: 1 },
          { episode_id: 'a', seed: 2 },
          { seed: -1 },
          { episode_id: '', seed: 3 },
          { variant: 'nope' },
          { variant: { families: ['tools'], intensity: 2, split: 'train' } },
          { variant: { families: ['colours'], intensity: 0.5, split: 'train' } },
          { variant: { families: ['tools'], intensity: 0.5, split: 'train', identity_share: -0.5 } },
          { task: { id: 'no-such-task' } },
          { task: { intent: 'no_such_intent' } },
          { options: { parser: 'nope' } },
          { options: { rewards: 'nope' } },
          { options: { locale: 'fr' } },
          { options: { oracle_hints: true } },
          { episode_id: 'b', group_id: 'g', seed: 4 },
          { group_id: 'g', seed: 5 },
          { group_id: 'g', variant: 'eval' },
          { group_id: 'g', options: { group_share: 'task' } },
          { unknown_field: 1 },
          'not a map',
        ],
      });
      await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'a' }] });
      await c.request({ type: 'reset', id: 3, items: [{}, {}, {}, {}, {}] });
      await c.request({
        type: 'step',
        id: 4,
        items: [
          { episode_id: 'zzz', action: { text: 'hi' } },
          { episode_id: 'a', action: {} },
          { episode_id: 'a', action: { text: 5 } },
          { episode_id: 'b' },
          { episode_id: 'b', action: { message: { role: 'user', content: 'x' } } },
          { episode_id: 'b', action: { text: '你好' } },
          { episode_id: 'b', action: { text: 'again' } },
          { action: { text: 'who' } },
          { episode_id: '', action: { text: 'empty id' } },
        ],
      });
      // Play `a` to its end, then step it once more (RESET_NEEDED) and reset it again (allowed).
      await playNaive(c, ['a'], false, 10);
      await c.request({ type: 'step', id: 20, items: [{ episode_id: 'a', action: { text: 'late' } }] });
      await c.request({ type: 'reset', id: 21, items: [{ episode_id: 'a', seed: 9 }] });
      await c.request({ type: 'close', id: 22, episode_ids: ['a', 'a', 'gone'] });
    },
  },
  {
    name: 'frame-errors',
    config: { limits: { max_batch: 4, max_frame_bytes: 8192 } },
    async play(c) {
      await c.request({ type: 'ping', id: 'early' });
      await c.raw('{"type":"hello",');
      await c.request({ type: 'hello', id: 'h', protocol: 1, seed: 2 }, true);
      await c.request({ type: 'hello', id: 'again', protocol: 1 });
      await c.raw('not json');
      await c.raw(Buffer.from([0xc1]));
      await c.raw(Buffer.from([0x92, 0x01]));
      await c.raw('[1,2,3]');
      await c.raw('"just a string"');
      await c.request({ id: 5 });
      await c.request({ type: 7, id: 6 });
      await c.request({ type: 'fly', id: 7 });
      await c.request({ type: 'reset', id: 8 });
      await c.request({ type: 'reset', id: 9, items: 'x' });
      await c.request({ type: 'step', id: { no: 1 }, items: [] });
      await c.request({ type: 'close', id: 10, episode_ids: [1, 2] });
      await c.request({ type: 'reset', id: 11, items: [{}, {}, {}, {}, {}] }, true);
      await c.request({ type: 'step', id: 12, items: [{ episode_id: 'x', action: { text: 'y'.repeat(10_000) } }] });
      await c.request({ type: 'ping', id: -9007199254740991 }, true);
      await c.request({ type: 'ping', id: 'still-open' });
    },
  },
  {
    name: 'protocol-version',
    config: {},
    async play(c) {
      await c.request({ type: 'hello', id: 1, protocol: 2 });
      await c.closed();
    },
  },
  {
    name: 'unauthorized',
    config: { token: 'secret' },
    async play(c) {
      await c.request({ type: 'hello', id: 1, protocol: 1, token: 'wrong' }, true);
      await c.closed();
    },
  },
];

/** Play one golden session against a fresh in-process server; the sha256 of each reply, in order. */
export async function runGolden(s: GoldenSession, overrides: Record<string, unknown> = {}): Promise<Recorder> {
  const app = await makeApp({ ...s.config, ...overrides }, s.deps);
  try {
    const rec = new Recorder(await inject(app));
    await s.play(rec);
    return rec;
  } finally {
    await app.close();
  }
}
