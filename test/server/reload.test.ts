/**
 * Reward reload (what SIGHUP does, through `RewardCatalog.reload`, the function the serve command calls):
 * welcome and /v1/info list the new profiles with module versions; a session opened before the reload
 * keeps working and its in-flight episode keeps the profile it started with; a bad file keeps the old
 * set. Then the async scoring path through the server: a frame mixing a judged episode and a plain one.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RewardCatalog, clearJudgeCache } from '../../rewards/index.js';
import type { RewardSources } from '../../rewards/index.js';
import { buildServer, reloadRewards } from '../../server/index.js';
import { inject, makeApp, testConfig } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'hg-reload-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A directory with a module dir and one profile file; returns the sources and a writer for the profile. */
function setup(profileYaml: string): { sources: RewardSources; profile: string; mods: string } {
  const d = join(root, `s${++n}`);
  const mods = join(d, 'mods');
  mkdirSync(mods, { recursive: true });
  writeFileSync(
    join(mods, 'brevity.mjs'),
    `export default { name: 'brevity', version: '3.1.0', segment: 'reply', score: (t) => ({ value: t.final_reply === null ? 0 : 1, reasons: [] }) };\n`,
  );
  const profile = join(d, 'profile.yaml');
  writeFileSync(profile, profileYaml);
  return { sources: { profiles: [profile], module_dirs: [mods] }, profile, mods };
}

async function catalogFor(sources: RewardSources): Promise<RewardCatalog> {
  const r = await RewardCatalog.load(sources);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.catalog;
}

/** Step an episode with plain replies until it ends; returns the final item. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function finish(c: Awaited<ReturnType<typeof inject>>, episode_id: string, tag: string): Promise<any> {
  for (let i = 0; i < 15; i++) {
    const r = await c.request({ type: 'step', id: `${tag}-${i}`, items: [{ episode_id, action: { text: '欢迎来到直播间' } }] });
    const item = r.items[0];
    if (!item.ok || item.terminated || item.truncated) return item;
  }
  throw new Error('episode did not end');
}

describe('reward reload', () => {
  it('swaps profiles for new resets and welcomes; sessions and in-flight episodes keep working', async () => {
    const { sources, profile } = setup(
      'name: brief\nmodules:\n  - {name: accuracy, weight: 1}\n  - {name: brevity, weight: 1}\ngates: []\n',
    );
    const catalog = await catalogFor(sources);
    const app = await makeApp({ rewards: sources }, { rewards: catalog });
    try {
      const before = await inject(app);
      const w1 = await before.hello();
      expect(w1.reward_profiles.map((p: { name: string }) => p.name)).toEqual(['default', 'brief']);
      expect(w1.reward_profiles[1]).toEqual({
        name: 'brief',
        modules: [
          { name: 'accuracy', version: expect.any(String), weight: 1 },
          { name: 'brevity', version: '3.1.0', weight: 1 },
        ],
      });
      const reset = await before.request({
        type: 'reset',
        id: 'r1',
        items: [{ episode_id: 'old', seed: 5, options: { rewards: 'brief' } }],
      });
      expect(reset.items[0].ok).toBe(true);

      // A bad file: the reload fails, nothing changes.
      writeFileSync(profile, 'name: broken\nmodules:\n  - {name: not_registered, weight: 1}\ngates: []\n');
      const bad = await catalog.reload();
      expect(bad.ok).toBe(false);
      if (!bad.ok)
        expect(bad.errors).toEqual([expect.stringContaining(`${profile}: modules[0].name: unknown reward module "not_registered"`)]);
      expect((await (await inject(app)).hello()).reward_profiles.map((p: { name: string }) => p.name)).toEqual(['default', 'brief']);

      // A good file: swapped.
      writeFileSync(profile, 'name: terse\nmodules:\n  - {name: brevity, weight: 2}\ngates: []\n');
      expect(await catalog.reload()).toEqual({ ok: true, profiles: ['default', 'terse'], generation: 1, hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      const after = await inject(app);
      const w2 = await after.hello();
      expect(w2.reward_profiles.slice(1)).toEqual([{ name: 'terse', modules: [{ name: 'brevity', version: '3.1.0', weight: 2 }] }]);
      const info = (await app.inject({ method: 'GET', url: '/v1/info' })).json();
      expect(info.reward_profiles).toEqual(w2.reward_profiles);

      // The session opened before the reload still works, and its episode finishes with "brief".
      expect(await before.alive()).toBe(true);
      const last = await finish(before, 'old', 'old');
      expect(last.ok).toBe(true);
      expect(Object.keys(last.info.reward_components)).toEqual(['accuracy', 'brevity']);
      // New resets in that same session see the new set.
      const gone = await before.request({ type: 'reset', id: 'r2', items: [{ seed: 5, options: { rewards: 'brief' } }] });
      expect(gone.items[0]).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE', details: { profiles: ['default', 'terse'] } } });
      const fresh = await before.request({
        type: 'reset',
        id: 'r3',
        items: [{ episode_id: 'new', seed: 5, options: { rewards: 'terse' } }],
      });
      expect(fresh.items[0].ok).toBe(true);
      const lastNew = await finish(before, 'new', 'new');
      expect(Object.keys(lastNew.info.reward_components)).toEqual(['brevity']);
    } finally {
      await app.close();
    }
  });

  it('reloads on every worker or on none, and names the set in force by its hash (welcome, /v1/info)', async () => {
    const { sources, profile } = setup('name: brief\nmodules:\n  - {name: accuracy, weight: 1}\n  - {name: brevity, weight: 1}\ngates: []\n');
    const catalog = await catalogFor(sources);
    const app = await makeApp({ rewards: sources, workers: 2 }, { rewards: catalog });
    try {
      const hashOf = async (): Promise<string> => {
        const w = await (await inject(app)).hello();
        const info = (await app.inject({ method: 'GET', url: '/v1/info' })).json();
        expect(info.rewards_hash).toBe(w.rewards_hash);
        return w.rewards_hash;
      };
      const first = await hashOf();
      expect(first).toBe(catalog.current.hash);
      expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);

      // A bad file: no thread changes, the hash stays.
      writeFileSync(profile, 'name: broken\nmodules:\n  - {name: not_registered, weight: 1}\ngates: []\n');
      const bad = await reloadRewards(app);
      expect(bad.ok).toBe(false);
      expect(await hashOf()).toBe(first);

      // A good file: the main thread and both workers hold the new set; episodes on the workers score with it.
      writeFileSync(profile, 'name: terse\nmodules:\n  - {name: brevity, weight: 2}\ngates: []\n');
      const good = await reloadRewards(app);
      expect(good).toEqual({ ok: true, profiles: ['default', 'terse'], generation: 1, hash: expect.stringMatching(/^sha256:/) });
      const second = await hashOf();
      expect(second).not.toBe(first);
      expect(good.ok && good.hash).toBe(second);
      const c = await inject(app);
      await c.hello();
      // Enough episodes that both workers hold some.
      const ids = Array.from({ length: 8 }, (_, i) => `e${i}`);
      const reset = await c.request({ type: 'reset', id: 'r', items: ids.map((episode_id, i) => ({ episode_id, seed: 30 + i, options: { rewards: 'terse' } })) });
      expect(reset.items.every((i: { ok: boolean }) => i.ok)).toBe(true);
      for (const id of ids) {
        const last = await finish(c, id, id);
        expect(Object.keys(last.info.reward_components)).toEqual(['brevity']);
      }
      // The same files reloaded again: the same set, the same hash.
      const again = await reloadRewards(app);
      expect(again.ok && again.hash).toBe(second);
    } finally {
      await app.close();
    }
  });

  it('a server whose config names reward files needs the loaded catalog', () => {
    const { sources } = setup('name: p\nmodules:\n  - {name: accuracy, weight: 1}\ngates: []\n');
    expect(() => buildServer(testConfig({ rewards: sources }))).toThrow(/RewardCatalog/);
  });
});

describe('async reward modules through the server', () => {
  let judgeServer: Server | undefined;
  afterAll(async () => {
    judgeServer?.closeAllConnections();
    await new Promise<void>((r) => (judgeServer ? judgeServer.close(() => r()) : r()));
  });

  it('a step frame waits for the judged item, and the plain item in the same frame is unaffected', async () => {
    clearJudgeCache();
    let calls = 0;
    judgeServer = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        // A slow judge: the frame must still carry both items, the judged one with the verdict.
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ choices: [{ message: { content: '{"score": 0.6, "reason": "ok"}' } }] }));
        }, 50);
      });
    });
    await new Promise<void>((r) => judgeServer!.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(judgeServer.address() as AddressInfo).port}/v1`;
    const { sources } = setup(
      `name: judged\nmodules:\n  - {name: accuracy, weight: 1}\n  - {name: llm_judge, weight: 1, params: {endpoint: "${endpoint}", model: fake, timeout_ms: 2000, retries: 0}}\ngates: []\n`,
    );
    const app = await makeApp({ rewards: sources }, { rewards: await catalogFor(sources) });
    try {
      const c = await inject(app);
      await c.hello();
      await c.request({
        type: 'reset',
        id: 'r',
        items: [
          { episode_id: 'j', seed: 9, options: { rewards: 'judged', max_turns: 2 } },
          { episode_id: 'p', seed: 9, options: { max_turns: 2 } },
        ],
      });
      // Load a reply skill first, so that the reply is accepted (a judge grades only a final reply).
      const load = {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"chitchat"}' } }],
        },
      };
      const first = await c.request({
        type: 'step',
        id: 's0',
        items: [
          { episode_id: 'j', action: load },
          { episode_id: 'p', action: load },
        ],
      });
      expect(first.items.map((i: { ok: boolean; terminated: boolean }) => [i.ok, i.terminated])).toEqual([
        [true, false],
        [true, false],
      ]);
      const action = { message: { role: 'assistant', content: '欢迎来到直播间' } };
      const r = await c.request({
        type: 'step',
        id: 's',
        items: [
          { episode_id: 'j', action },
          { episode_id: 'p', action },
        ],
      });
      expect(r.items.map((i: { episode_id: string; ok: boolean }) => [i.episode_id, i.ok])).toEqual([
        ['j', true],
        ['p', true],
      ]);
      const [j, p] = r.items;
      expect(j.terminated).toBe(true);
      expect(j.info.outcome).toBe('accepted');
      expect(j.info.reward_components.llm_judge).toBe(0.6);
      expect(j.info.reward_details.llm_judge.reasons).toEqual(['judge fake: score 0.6', 'judge reason: ok']);
      expect(Object.keys(p.info.reward_components)).toEqual([
        'accuracy',
        'effectiveness',
        'hook_compliance',
        'tool_rationality',
        'skill_selection',
      ]);
      expect(calls).toBe(1);
      expect(await c.alive()).toBe(true);
    } finally {
      await app.close();
    }
  });
});
