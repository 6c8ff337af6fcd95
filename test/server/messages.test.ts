/**
 * Every message type, compared as whole replies (session_id removed): hello/welcome, reset/reset_result,
 * step/step_result, close/closed, ping/pong, empty batches, id echo with its type, and JSON and MessagePack
 * on one connection each answered in its own encoding.
 */
import { embeddedHarness } from '../../harness/index.js';
import { describe, it, expect, afterEach } from 'vitest';
import { createEpisode, defaultEnvConfig, PARSERS, VARIANT_PRESETS } from '../../env/index.js';
import type { EpisodeRequest } from '../../env/index.js';
import { ReplySchema } from '../../protocol/wire.js';
import { builtinRewardSetHash, defaultRegistry } from '../../rewards/index.js';
import type { GymApp } from '../../server/index.js';
import { inject, makeApp } from './helpers.js';

let app: GymApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** What the in-process environment gives for the same request (JSON round trip drops undefined). */
function localEpisode(req: EpisodeRequest) {
  const created = createEpisode(defaultEnvConfig(), req);
  if (!created.ok) throw new Error(created.error.message);
  return created.episode;
}
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const EXPECTED_INFO = {
  protocol: 1,
  server: { name: 'harness-gym', version: '0.1.0' },
  limits: {
    max_batch: 256,
    max_episodes: 4096,
    max_frame_bytes: 4194304,
    max_turns: 12,
    max_errors: 6,
    idle_timeout_s: 600,
    resume_grace_s: 60,
    ping_interval_s: 20,
    replay_window: 64,
    max_id_chars: 256,
    max_name_chars: 128,
    max_action_chars: 65536,
    max_action_calls: 64,
  },
  defaults: {
    variant: 'identity',
    parser: 'auto',
    max_turns: 12,
    observation: 'delta',
    locale: 'zh-CN',
    rewards: 'default',
    // Both held-out axes (issue 37): the tasks' split and the default variant's; the production mix.
    task_split: 'train',
    variant_split: 'none',
    task_mix: {
      product_qa: 0.46,
      chitchat: 0.19,
      clarification: 0.16,
      after_sales: 0.07,
      purchase: 0.03,
      marketing: 0.03,
      multi_intent: 0.02,
      risky: 0.02,
      whitelist: 0.01,
      handoff: 0.01,
    },
  },
  reward_profiles: [
    {
      name: 'default',
      modules: [
        { name: 'accuracy', version: '3.0.0', weight: 0.3 },
        { name: 'effectiveness', version: '3.1.0', weight: 0.25 },
        { name: 'hook_compliance', version: '3.0.0', weight: 0.15 },
        { name: 'tool_rationality', version: '1.1.0', weight: 0.15 },
        { name: 'skill_selection', version: '2.0.0', weight: 0.15 },
      ],
    },
  ],
  rewards_hash: builtinRewardSetHash(defaultRegistry()),
  variant_presets: [...VARIANT_PRESETS],
  variant_families: ['skills', 'tools', 'prompt', 'hooks'],
  parsers: [...PARSERS.keys()],
  harness: { ...embeddedHarness().identity },
};

describe('hello / welcome', () => {
  it('answers hello with the whole welcome, echoing the id', async () => {
    app = await makeApp();
    const c = await inject(app);
    const w = await c.request({ type: 'hello', id: 'h1', protocol: 1, client: 'test' });
    expect(typeof w.session_id).toBe('string');
    expect(w.session_id.length).toBeGreaterThan(0);
    const { session_id: _sid, ...rest } = w;
    expect(rest).toEqual({ type: 'welcome', id: 'h1', resumed: false, ...EXPECTED_INFO });
    // Key order of the contract's listing.
    expect(Object.keys(w)).toEqual([
      'type',
      'id',
      'protocol',
      'session_id',
      'resumed',
      'server',
      'limits',
      'defaults',
      'reward_profiles',
      'rewards_hash',
      'variant_presets',
      'variant_families',
      'parsers',
      'harness',
    ]);
    expect(ReplySchema.safeParse(w).success).toBe(true);
  });

  it('echoes integer ids as integers and string ids as strings', async () => {
    app = await makeApp();
    const c = await inject(app);
    expect((await c.request({ type: 'hello', id: 0, protocol: 1 })).id).toBe(0);
    expect(await c.request({ type: 'ping', id: 9007199254740991 })).toEqual({ type: 'pong', id: 9007199254740991 });
    expect(await c.request({ type: 'ping', id: -5 })).toEqual({ type: 'pong', id: -5 });
    expect(await c.request({ type: 'ping', id: '7' })).toEqual({ type: 'pong', id: '7' });
    expect(await c.request({ type: 'ping', id: 7 }, true)).toEqual({ type: 'pong', id: 7 });
  });
});

describe('reset / step / close / ping', () => {
  it('reset_result carries exactly what the environment gives for the seed', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    const r = await c.request({ type: 'reset', id: 'r', items: [{ episode_id: 'a', seed: 11, task: { intent: 'product_qa' } }] });
    const local = localEpisode({ episode_id: 'a', seed: 11, task: { intent: 'product_qa' }, options: {} }).reset();
    expect(r).toEqual({ type: 'reset_result', id: 'r', items: [{ ok: true, episode_id: 'a', ...json(local) }] });
    expect(ReplySchema.safeParse(r).success).toBe(true);
  });

  it('step_result carries exactly what the environment gives for the same actions', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a', seed: 3, options: { observation: 'full' } }] });
    const local = localEpisode({ episode_id: 'a', seed: 3, options: { observation: 'full' } });
    local.reset();
    const actions = [
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"chitchat"}' } }],
        },
      },
      { text: '欢迎来到直播间！' },
    ];
    for (const [i, action] of actions.entries()) {
      const s = await c.request({ type: 'step', id: 10 + i, items: [{ episode_id: 'a', action }] });
      const expected = local.step(action);
      if (!expected.ok) throw new Error('local step failed');
      const { ok: _ok, ...out } = expected;
      expect(s).toEqual({ type: 'step_result', id: 10 + i, items: [{ ok: true, episode_id: 'a', ...json(out) }] });
      expect(Object.keys(s.items[0])).toEqual(['ok', 'episode_id', 'observation', 'reward', 'terminated', 'truncated', 'info']);
    }
  });

  it('makes deterministic episode ids ep-<n> when the item names none, skipping ids in use', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello({ seed: 1 });
    const r = await c.request({ type: 'reset', id: 1, items: [{}, { episode_id: 'ep-2' }, {}] });
    expect(r.items.map((i: { episode_id: string }) => i.episode_id)).toEqual(['ep-1', 'ep-2', 'ep-3']);
  });

  it('close answers closed with closed and unknown ids; a closed id is then unknown', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    await c.request({ type: 'reset', id: 1, items: [{ episode_id: 'a' }, { episode_id: 'b' }] });
    expect(await c.request({ type: 'close', id: 2, episode_ids: ['a', 'x', 'a'] })).toEqual({
      type: 'closed',
      id: 2,
      episode_ids: ['a'],
      unknown: ['x'],
    });
    const s = await c.request({ type: 'step', id: 3, items: [{ episode_id: 'a', action: { text: 'hi' } }] });
    expect(s.items[0].error.code).toBe('UNKNOWN_EPISODE');
    expect(await c.request({ type: 'close', id: 4, episode_ids: [] })).toEqual({ type: 'closed', id: 4, episode_ids: [], unknown: [] });
  });

  it('answers ping with pong', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    expect(await c.request({ type: 'ping', id: 'p' })).toEqual({ type: 'pong', id: 'p' });
  });

  it('answers an empty batch with an empty reply', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    expect(await c.request({ type: 'reset', id: 1, items: [] })).toEqual({ type: 'reset_result', id: 1, items: [] });
    expect(await c.request({ type: 'step', id: 2, items: [] })).toEqual({ type: 'step_result', id: 2, items: [] });
  });

  it('keeps result items in request order, one per item, with their episode ids', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    await c.request({
      type: 'reset',
      id: 1,
      items: [
        { episode_id: 'a', seed: 1 },
        { episode_id: 'b', seed: 2 },
      ],
    });
    const s = await c.request({
      type: 'step',
      id: 2,
      items: [
        { episode_id: 'b', action: { text: 'x' } },
        { episode_id: 'nope', action: { text: 'x' } },
        { episode_id: 'a', action: { text: 'x' } },
      ],
    });
    expect(s.items.map((i: { ok: boolean; episode_id: string }) => [i.ok, i.episode_id])).toEqual([
      [true, 'b'],
      [false, 'nope'],
      [true, 'a'],
    ]);
  });

  it('a big batch (over one chunk) comes back whole and in order', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello({ seed: 5 });
    const items = Array.from({ length: 70 }, (_, i) => ({ episode_id: `e${i}`, seed: i }));
    const r = await c.request({ type: 'reset', id: 1, items });
    expect(r.items.map((i: { episode_id: string }) => i.episode_id)).toEqual(items.map((i) => i.episode_id));
    expect(r.items.every((i: { ok: boolean }) => i.ok)).toBe(true);
  });
});

describe('encodings', () => {
  it('answers each request in its own encoding on one connection', async () => {
    app = await makeApp();
    const c = await inject(app);
    c.send({ type: 'hello', id: 1, protocol: 1 }, true);
    const w = await c.next();
    expect([w.binary, w.msg.type]).toEqual([true, 'welcome']);
    c.send({ type: 'ping', id: 2 });
    const a = await c.next();
    expect([a.binary, a.msg]).toEqual([false, { type: 'pong', id: 2 }]);
    c.send({ type: 'ping', id: 3 }, true);
    const b = await c.next();
    expect([b.binary, b.msg]).toEqual([true, { type: 'pong', id: 3 }]);
    // Errors too.
    c.sendRaw(Buffer.from([0xc1]));
    const e = await c.next();
    expect([e.binary, e.msg.error.code]).toEqual([true, 'BAD_FRAME']);
    c.sendRaw('{nope');
    const f = await c.next();
    expect([f.binary, f.msg.error.code]).toEqual([false, 'BAD_FRAME']);
  });

  it('MessagePack replies are plain maps with integers kept as integers', async () => {
    app = await makeApp();
    const c = await inject(app);
    await c.hello();
    c.send({ type: 'reset', id: 1, items: [{ episode_id: 'a', seed: 1 }] }, true);
    const r = await c.next();
    expect(r.binary).toBe(true);
    // 0x83 = fixmap of 3 entries (type, id, items): no msgpackr record extension.
    expect(r.raw[0]).toBe(0x83);
    expect(Number.isInteger(r.msg.items[0].info.turn)).toBe(true);
    expect(r.msg.items[0].info.turn).toBe(0);
  });
});

describe('/v1/info', () => {
  it('is the welcome minus type, id, session_id and resumed', async () => {
    app = await makeApp();
    const res = await app.inject({ method: 'GET', url: '/v1/info' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(EXPECTED_INFO);
  });
});
