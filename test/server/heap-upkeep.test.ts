/**
 * The pieces that keep memory bounded after episodes are freed (server/idle-collect.ts,
 * mock-services/cache.ts): a collector that runs once a thread is idle after frees and never while it
 * works, and a world cache sized to the thread's share of the episodes.
 */
import { describe, it, expect, afterEach, beforeEach, vi } from 'vitest';
import { IdleCollector } from '../../server/idle-collect.js';
import { WORLD_CACHE_SIZE, setWorldCacheShare, worldFor } from '../../mock-services/index.js';

/** Let `ms` of (fake) time pass. */
const sleep = async (ms: number) => {
  await vi.advanceTimersByTimeAsync(ms);
};

describe('IdleCollector', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once, after the delay, when a task freed episodes and no task followed', async () => {
    const times: number[] = [];
    const c = new IdleCollector({ delayMs: 30, onCollect: (ms) => times.push(ms) });
    c.begin();
    c.end(0);
    await sleep(60);
    expect(c.collections).toBe(0); // nothing freed: nothing to collect
    c.begin();
    c.end(3);
    await sleep(10);
    expect(c.collections).toBe(0); // not before the delay
    await sleep(60);
    expect(c.collections).toBe(1);
    expect(times[0]).toBeGreaterThanOrEqual(0);
    await sleep(60);
    expect(c.collections).toBe(1); // once per idle period
  });

  it('never collects while a task runs, and a new task postpones the collection', async () => {
    const c = new IdleCollector({ delayMs: 30 });
    c.begin();
    c.begin();
    c.end(5); // one task still running
    await sleep(60);
    expect(c.collections).toBe(0);
    c.end(0);
    await sleep(15);
    c.begin(); // work again before the delay ran out
    await sleep(60);
    expect(c.collections).toBe(0);
    c.end(0);
    await sleep(60);
    expect(c.collections).toBe(1);
  });

  it('counts frees made outside a task (the main thread ending sessions)', async () => {
    const c = new IdleCollector({ delayMs: 20 });
    c.noteFreed(1);
    await sleep(50);
    expect(c.collections).toBe(1);
  });
});

describe('the world cache share', () => {
  afterEach(() => setWorldCacheShare(1));

  it('keeps 1/N of the process budget in an isolate that holds 1/N of the episodes', () => {
    setWorldCacheShare(4);
    const first = worldFor(7_000_000, 'zh-CN');
    expect(worldFor(7_000_000, 'zh-CN')).toBe(first);
    for (let s = 1; s <= WORLD_CACHE_SIZE / 4; s++) worldFor(7_000_000 + s, 'zh-CN');
    // A quarter of the budget later, the first world was evicted: the same world, built again.
    const again = worldFor(7_000_000, 'zh-CN');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // With the whole budget, a quarter of it does not evict.
    setWorldCacheShare(1);
    const kept = worldFor(8_000_000, 'zh-CN');
    for (let s = 1; s <= WORLD_CACHE_SIZE / 4; s++) worldFor(8_000_000 + s, 'zh-CN');
    expect(worldFor(8_000_000, 'zh-CN')).toBe(kept);
  });
});
