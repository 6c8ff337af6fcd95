/**
 * Scheduling within a session (PROTOCOL.md: replies to different requests may come out of order;
 * requests about the same episode are applied in arrival order): a step of a live episode does not wait
 * for a long reset batch of other episodes, while a step of an episode that batch resets does, and so
 * does a ping.
 */
import { describe, it, expect } from 'vitest';
import { inject, makeApp } from './helpers.js';

const BATCH = 160;
const others = (prefix: string) => Array.from({ length: BATCH }, (_, i) => ({ episode_id: `${prefix}${i}`, variant: 'train' }));

describe('requests of one session', () => {
  it('a step overtakes a reset batch of other episodes, not one that resets its own', async () => {
    const app = await makeApp({ limits: { max_batch: 256 } });
    const c = await inject(app);
    await c.hello({ seed: 9 });
    expect((await c.request({ type: 'reset', id: 'a', items: [{ episode_id: 'live' }] })).items[0].ok).toBe(true);

    c.send({ type: 'reset', id: 'big', items: others('b') });
    c.send({ type: 'step', id: 'step', items: [{ episode_id: 'live', action: { text: '你好' } }] });
    const first = (await c.next()).msg;
    const second = (await c.next()).msg;
    expect([first.id, second.id]).toEqual(['step', 'big']);
    expect(first.items[0]).toMatchObject({ ok: true, episode_id: 'live' });
    expect(second.items).toHaveLength(BATCH);

    // The step names an episode of the pending batch: it waits, then finds the episode reset.
    c.send({ type: 'reset', id: 'big2', items: [...others('c'), { episode_id: 'target' }] });
    c.send({ type: 'step', id: 'step2', items: [{ episode_id: 'target', action: { text: '你好' } }] });
    expect((await c.next()).msg.id).toBe('big2');
    const stepped = (await c.next()).msg;
    expect(stepped).toMatchObject({ id: 'step2', items: [{ ok: true, episode_id: 'target' }] });

    // A step naming a server-made id waits for a batch that makes ids; a ping waits for everything.
    c.send({ type: 'reset', id: 'anon', items: Array.from({ length: BATCH }, () => ({ variant: 'train' })) });
    c.send({ type: 'step', id: 'made', items: [{ episode_id: 'ep-1', action: { text: '你好' } }] });
    c.send({ type: 'ping', id: 'p' });
    const order = [(await c.next()).msg, (await c.next()).msg, (await c.next()).msg];
    expect(order.map((m) => m.id)).toEqual(['anon', 'made', 'p']);
    expect(order[1].items[0]).toMatchObject({ ok: true, episode_id: 'ep-1' });
    await app.close();
  }, 120_000);
});
