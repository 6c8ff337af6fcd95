/**
 * Determinism over the wire: seeds drawn from `hello.seed` reproduce across sessions, and the same seeds
 * and actions give byte-identical MessagePack replies in two sessions (and two servers).
 */
import { describe, it, expect, afterEach } from 'vitest';
import fc from 'fast-check';
import type { GymApp } from '../../server/index.js';
import { inject, makeApp } from './helpers.js';
import type { WireClient } from './helpers.js';

let apps: GymApp[] = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

async function client(helloSeed?: number): Promise<WireClient> {
  const app = await makeApp();
  apps.push(app);
  const c = await inject(app);
  await c.hello(helloSeed === undefined ? {} : { seed: helloSeed });
  return c;
}

const ACTIONS = [
  {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } }],
    },
  },
  {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'get_product', arguments: '{"link_no":1}' } }],
    },
  },
  { text: '这款现在直播价很划算，喜欢可以拍哦' },
];

/** Reset three seedless episodes and play the scripted actions; returns every raw reply. */
async function script(c: WireClient): Promise<Buffer[]> {
  const raws: Buffer[] = [];
  c.send({ type: 'reset', id: 1, items: [{}, {}, { options: { faults: 0.5 } }] }, true);
  raws.push((await c.next()).raw);
  for (const [i, action] of ACTIONS.entries()) {
    c.send({ type: 'step', id: 2 + i, items: ['ep-1', 'ep-2', 'ep-3'].map((episode_id) => ({ episode_id, action })) }, true);
    raws.push((await c.next()).raw);
  }
  return raws;
}

describe('determinism', () => {
  it('seeds drawn from hello.seed reproduce across two sessions; another hello.seed draws others', async () => {
    const items = [{}, {}, {}];
    const a = await (await client(42)).request({ type: 'reset', id: 1, items });
    const b = await (await client(42)).request({ type: 'reset', id: 1, items });
    const other = await (await client(43)).request({ type: 'reset', id: 1, items });
    expect(b).toEqual(a);
    const ids = (r: { items: { info: { task_id: string } }[] }) => r.items.map((i) => i.info.task_id);
    expect(ids(other)).not.toEqual(ids(a));
  });

  it('items with a seed draw nothing from the stream', async () => {
    const a = await (await client(7)).request({ type: 'reset', id: 1, items: [{ seed: 99 }, {}] });
    const b = await (await client(7)).request({ type: 'reset', id: 1, items: [{}] });
    expect(a.items[1].observation).toEqual(b.items[0].observation);
  });

  it('sessions without hello.seed are seeded from the server seed and a counter (reproducible per server)', async () => {
    const a = await (await client()).request({ type: 'reset', id: 1, items: [{}, {}] });
    const b = await (await client()).request({ type: 'reset', id: 1, items: [{}, {}] });
    expect(b).toEqual(a);
  });

  it('the same seeds and actions give byte-identical MessagePack replies in two sessions', async () => {
    const a = await script(await client(5));
    const b = await script(await client(5));
    expect(a.length).toBe(4);
    for (let i = 0; i < a.length; i++) expect(b[i].equals(a[i])).toBe(true);
  });

  it('for any hello seed, two sessions agree byte for byte (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0xffffffff }), async (seed) => {
        const a = await client(seed);
        const b = await client(seed);
        a.send({ type: 'reset', id: 1, items: [{}, {}] }, true);
        b.send({ type: 'reset', id: 1, items: [{}, {}] }, true);
        const [ra, rb] = [await a.next(), await b.next()];
        return ra.raw.equals(rb.raw);
      }),
      { numRuns: 8 },
    );
  });
});
