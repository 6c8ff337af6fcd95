/**
 * GRPO groups (PROTOCOL.md "Groups"): members share the first member's task (and, by default, its seed and
 * variant), across frames; conflicting members are INVALID_MESSAGE.
 */
import { describe, it, expect, afterEach } from 'vitest';
import type { GymApp } from '../../server/index.js';
import v8 from 'node:v8';
import vm from 'node:vm';
import { MAX_CLOSED_GROUPS } from '../../env/index.js';
import { inject, makeApp } from './helpers.js';

// A full GC on demand, without starting the test worker with --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let app: GymApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function session(seed = 9) {
  app = await makeApp();
  const c = await inject(app);
  await c.hello({ seed });
  return c;
}

type Item = {
  ok: boolean;
  episode_id: string;
  observation: { messages: unknown[] };
  info: Record<string, unknown>;
  error?: { code: string };
};

describe('groups', () => {
  it('"task+variant" (default): every member gets the first member\'s task, seed and variant, across frames', async () => {
    const c = await session();
    const r1 = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { group_id: 'g', episode_id: 'g0' },
        { group_id: 'g', episode_id: 'g1' },
      ],
    });
    const r2 = await c.request({ type: 'reset', id: 2, items: [{ group_id: 'g', episode_id: 'g2' }] });
    const items: Item[] = [...r1.items, ...r2.items];
    expect(items.every((i) => i.ok)).toBe(true);
    // Same seed and task: identical observations and info.
    for (const i of items.slice(1)) {
      expect(i.observation).toEqual(items[0].observation);
      expect(i.info).toEqual(items[0].info);
    }
    // An explicit seed equal to the group's is fine; another one conflicts.
    const other = await c.request({ type: 'reset', id: 3, items: [{ group_id: 'g', episode_id: 'g3', seed: 12345 }] });
    expect(other.items[0]).toEqual({
      ok: false,
      episode_id: 'g3',
      error: {
        code: 'INVALID_MESSAGE',
        message: expect.any(String),
        details: { issues: [{ path: ['seed'], message: expect.any(String) }] },
      },
    });
  });

  it('"task+variant" members share the first member\'s built variant and play exactly as a lone episode of its seed', async () => {
    app = await makeApp({ allow_oracle_hints: true });
    const c = await inject(app);
    await c.hello({ seed: 21 });
    const options = { oracle_hints: true, observation: 'full' };
    // Four members over two frames on an augmented preset (the first fixes the seed), and a lone episode of that seed.
    const seed = 777;
    const member = (k: number) => ({ group_id: 'g', episode_id: `m${k}`, variant: 'train', options, ...(k === 0 ? { seed } : {}) });
    const first = await c.request({ type: 'reset', id: 1, items: [member(0), member(1)] });
    const more = await c.request({ type: 'reset', id: 2, items: [member(2), member(3)] });
    const lone = await c.request({ type: 'reset', id: 3, items: [{ episode_id: 'lone', seed, variant: 'train', options }] });
    const resets: Item[] = [...first.items, ...more.items, ...lone.items];
    const strip = ({ episode_id: _id, ...rest }: Record<string, unknown>) => JSON.stringify(rest);
    expect(resets.every((i) => i.ok)).toBe(true);
    expect(resets.map(strip)).toEqual(resets.map(() => strip(resets[4] as unknown as Record<string, unknown>)));
    expect(resets[0].info.variant_id).not.toBe('identity');

    // Every member steps with the oracle's hints, in the same frames as the lone episode: identical replies.
    const live = new Map(resets.map((i) => [i.episode_id, i.info.oracle_action]));
    for (let turn = 0; live.size > 0 && turn < 12; turn++) {
      const r = await c.request({ type: 'step', id: 10 + turn, items: [...live].map(([episode_id, action]) => ({ episode_id, action })) });
      const lines = (r.items as Record<string, unknown>[]).map(strip);
      expect(lines).toEqual(lines.map(() => lines[lines.length - 1]));
      for (const it of r.items) {
        expect(it.ok).toBe(true);
        if (it.terminated || it.truncated) live.delete(it.episode_id);
        else live.set(it.episode_id, it.info.oracle_action);
      }
    }
    expect(live.size).toBe(0);

    // Once its members are closed and collected, a late member builds the variant again: the same reset.
    await c.request({ type: 'close', id: 30, episode_ids: ['m0', 'm1', 'm2', 'm3', 'lone'] });
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 0));
      gc();
    }
    const late = await c.request({ type: 'reset', id: 31, items: [member(4)] });
    expect(strip(late.items[0])).toBe(strip(resets[4] as unknown as Record<string, unknown>));
  });

  it('group members after the first draw no seed from the session stream', async () => {
    const a = await session(21);
    const withGroup = await a.request({ type: 'reset', id: 1, items: [{ group_id: 'g' }, { group_id: 'g' }, { group_id: 'g' }, {}] });
    await app?.close();
    const b = await session(21);
    const without = await b.request({ type: 'reset', id: 1, items: [{}, {}] });
    // The 4th item of the first session drew the 2nd seed of the stream.
    expect(withGroup.items[3].info.task_id).toBe(without.items[1].info.task_id);
    expect(withGroup.items[3].observation).toEqual(without.items[1].observation);
  });

  it('"task" members after the first draw no seed either, and each gets its own augmented variant', async () => {
    const a = await session(21);
    const grouped = await a.request({
      type: 'reset',
      id: 1,
      items: [
        { group_id: 't', variant: 'train', options: { group_share: 'task' } },
        { group_id: 't', variant: 'train', options: { group_share: 'task' } },
        { group_id: 't', variant: 'train', options: { group_share: 'task' } },
        { variant: 'train' },
      ],
    });
    await app?.close();
    const b = await session(21);
    const plain = await b.request({ type: 'reset', id: 1, items: [{ variant: 'train' }, { variant: 'train' }] });
    const items: Item[] = grouped.items;
    expect(items.every((i) => i.ok)).toBe(true);
    expect(new Set(items.slice(0, 3).map((i) => i.info.task_id)).size).toBe(1);
    expect(new Set(items.slice(0, 3).map((i) => i.info.variant_id)).size).toBe(3);
    expect(items[3].info.task_id).toBe(plain.items[1].info.task_id);
    expect(items[3].observation).toEqual(plain.items[1].observation);
  });

  it('a conflicting variant or group_share is INVALID_MESSAGE; the other members proceed', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { group_id: 'g', episode_id: 'a', variant: 'identity' },
        { group_id: 'g', episode_id: 'b', variant: { families: ['x'], intensity: 0.5, split: 'train' } },
        { group_id: 'g', episode_id: 'c', options: { group_share: 'task' } },
        { group_id: 'g', episode_id: 'd', variant: 'identity' },
      ],
    });
    expect(r.items.map((i: Item) => [i.episode_id, i.error?.code ?? 'ok'])).toEqual([
      ['a', 'ok'],
      ['b', 'INVALID_MESSAGE'],
      ['c', 'INVALID_MESSAGE'],
      ['d', 'ok'],
    ]);
    expect(r.items[1].error.details.issues[0].path).toEqual(['variant']);
    expect(r.items[2].error.details.issues[0].path).toEqual(['options', 'group_share']);
  });

  it('"task": the same task for every member, each its own seed (variant seed) and explicit seeds allowed', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { group_id: 't', episode_id: 'a', options: { group_share: 'task' } },
        { group_id: 't', episode_id: 'b', options: { group_share: 'task' }, seed: 777 },
        { group_id: 't', episode_id: 'c', options: { group_share: 'task' } },
      ],
    });
    const items: Item[] = r.items;
    expect(items.every((i) => i.ok)).toBe(true);
    expect(new Set(items.map((i) => i.info.task_id)).size).toBe(1);
    // The task (viewer message) is the first member's even though seed 777 alone would pick another.
    const alone = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'solo', seed: 777 }] });
    expect(alone.items[0].info.task_id).not.toBe(items[0].info.task_id);
    expect(items[1].observation).toEqual(items[0].observation);
  });

  it('a group whose first member failed is founded by the next successful member', async () => {
    const c = await session();
    const r = await c.request({
      type: 'reset',
      id: 1,
      items: [
        { group_id: 'g', episode_id: 'bad', task: { id: 'no-such-task' } },
        { group_id: 'g', episode_id: 'first', seed: 5 },
        { group_id: 'g', episode_id: 'second' },
      ],
    });
    expect(r.items.map((i: Item) => i.error?.code ?? 'ok')).toEqual(['UNKNOWN_TASK', 'ok', 'ok']);
    expect(r.items[2].observation).toEqual(r.items[1].observation);
  });

  it('a session remembers every group with an open episode, and the most recent closed ones up to a bound', async () => {
    app = await makeApp({ limits: { max_batch: 1024 } });
    const c = await inject(app);
    await c.hello({ seed: 5 });
    // One-member groups, closed at once: more than the bound plus its slack.
    const total = MAX_CLOSED_GROUPS + MAX_CLOSED_GROUPS / 4 + 64;
    const kept = await c.request({
      type: 'reset',
      id: 'k',
      items: [{ group_id: 'open', episode_id: 'open-0', seed: 5, variant: 'identity' }],
    });
    expect(kept.items[0].ok).toBe(true);
    for (let from = 0, f = 0; from < total; from += 1024, f++) {
      const n = Math.min(1024, total - from);
      const ids = Array.from({ length: n }, (_, i) => from + i);
      const r = await c.request({
        type: 'reset',
        id: `r${f}`,
        items: ids.map((g) => ({ group_id: `g${g}`, episode_id: `e${g}`, seed: 1000 + g, variant: 'identity' })),
      });
      expect(r.items.every((i: Item) => i.ok)).toBe(true);
      const closed = await c.request({ type: 'close', id: `c${f}`, episode_ids: ids.map((g) => `e${g}`) });
      expect(closed.episode_ids).toHaveLength(n);
    }
    // A late member of a recent closed group still joins it: a different seed conflicts with the group's.
    const recent = await c.request({ type: 'reset', id: 'late', items: [{ group_id: `g${total - 1}`, seed: 1, variant: 'identity' }] });
    expect(recent.items[0]).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
    // The oldest closed groups were forgotten: a member with the same id founds a new group.
    const old = await c.request({ type: 'reset', id: 'old', items: [{ group_id: 'g0', seed: 1, variant: 'identity' }] });
    expect(old.items[0].ok).toBe(true);
    // A group with an open episode is never forgotten, however old.
    const member = await c.request({ type: 'reset', id: 'm', items: [{ group_id: 'open', seed: 6, variant: 'identity' }] });
    expect(member.items[0]).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
  });

  it('group ids are scoped to the session', async () => {
    app = await makeApp();
    const a = await inject(app);
    await a.hello({ seed: 1 });
    const b = await inject(app);
    await b.hello({ seed: 2 });
    const ra = await a.request({ type: 'reset', id: 1, items: [{ group_id: 'g', seed: 10 }] });
    const rb = await b.request({ type: 'reset', id: 1, items: [{ group_id: 'g', seed: 20 }] });
    expect(ra.items[0].ok && rb.items[0].ok).toBe(true);
    expect(rb.items[0].info.task_id).not.toBe(ra.items[0].info.task_id);
  });
});
