/**
 * `ShardedClient` (client/sharded.ts) against in-process servers: the placement rule (with fixed vectors,
 * for clients in other languages), GRPO siblings together, items without seed or id, a replica that goes
 * away (its episodes fail alone with `REPLICA_DOWN`, new ones go to the survivors) and comes back
 * (rejoined: new episodes go to it again, the old ones stay lost), connecting with a replica down or all
 * of them down, and the CLI: `rollout` with `--url` twice prints the single server's summary, a URL given
 * twice is a usage error. test/deploy/replicas.test.ts does the same with real processes, SIGKILL and HAProxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessGymError, ShardedClient, fnv1a32, isItemError, shardIndex, shardKey } from '../../client/index.js';
import type { ItemError, ResetItem, StepItem } from '../../client/index.js';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';
import { startFakeEndpoint } from '../rollout/fake-endpoint.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure } from '../cli/helpers.js';

let servers: TestServer[] = [];
beforeAll(async () => {
  servers = await Promise.all([0, 1, 2].map(() => startTestServer({ allow_oracle_hints: true })));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
});

const TOOL_ERROR_ACTION = {
  message: { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'no_such_tool', arguments: '{}' } }] },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The rule with every replica live. */
const ruleOf = (item: ResetItem, urls: readonly string[]): number => shardIndex(shardKey(item) as string, urls.length);

describe('the sharding rule', () => {
  it('is fnv1a32(group_id, else the decimal seed) mod the live replicas, with fixed values (the Python client\'s too)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect(fnv1a32('直播')).toBe(1840545680); // over UTF-8 bytes
    expect(shardIndex('7', 3)).toBe(fnv1a32('7') % 3);
    const counts = [0, 0, 0];
    for (let s = 1; s <= 300; s++) counts[shardIndex(String(s), 3)]++;
    expect(counts).toEqual([93, 104, 103]);
    expect(() => shardIndex('7', 0)).toThrow(RangeError);
  });

  it('keys on the group, else the seed, else nothing (round-robin)', () => {
    expect(shardKey({ group_id: 'g', seed: 3, episode_id: 'e' })).toBe('g');
    expect(shardKey({ seed: 3, episode_id: 'e' })).toBe('3');
    expect(shardKey({ episode_id: 'e' })).toBeNull();
    expect(shardKey({})).toBeNull();
  });
});

describe('ShardedClient over three in-process servers', () => {
  it('places by the rule, keeps siblings together, fails a lost replica\'s episodes alone, and rejoins it', async () => {
    const urls = servers.map((s) => s.url);
    const events: string[] = [];
    const sc = await ShardedClient.connect(urls, {
      encoding: 'json',
      prefix: 'p',
      rejoin: { retries: 6, backoff_ms: 100 },
      onReplica: (r, e) => events.push(`${r.index}:${e ? e.code : 'up'}`),
    });
    const items = [
      ...Array.from({ length: 24 }, (_, i) => ({ episode_id: `s-${i}`, seed: 300 + i })),
      ...Array.from({ length: 3 }, (_, i) => ({ episode_id: `g-${i}`, group_id: 'grp' })),
      { seed: 77 },
      {},
    ];
    const reset = await sc.reset(items);
    expect(reset.every((r) => r.ok)).toBe(true);
    const ids = reset.map((r) => r.episode_id as string);
    // Items without an id get the client's `<prefix>-<n>`; one without a seed or group goes round-robin (the first: replica 0).
    expect(ids.slice(-2)).toEqual(['p-0', 'p-1']);
    const home = ids.map((id) => sc.replicaOf(id) as number);
    expect(home[27]).toBe(shardIndex('77', 3));
    expect(home[28]).toBe(0);
    for (let i = 0; i < 24; i++) expect(home[i]).toBe(ruleOf(items[i] as ResetItem, urls));
    expect(new Set(home.slice(24, 27))).toEqual(new Set([shardIndex('grp', 3)]));
    expect(new Set(home).size).toBe(3);
    // Group members share the first member's task (they are in one session).
    const tasks = reset.slice(24, 27).map((r) => (r.ok ? r.info.task_id : null));
    expect(new Set(tasks).size).toBe(1);

    const step = (list: readonly string[]) => sc.step(list.map((episode_id): StepItem => ({ episode_id, action: TOOL_ERROR_ACTION })));
    expect((await step(ids)).every((r) => r.ok)).toBe(true);
    expect(await step(['nobody'])).toMatchObject([{ ok: false, episode_id: 'nobody', error: { code: 'UNKNOWN_EPISODE' } }]);

    // Replica 1 goes away: its episodes fail alone, typed; the others go on.
    const port = servers[1]?.port as number;
    await servers[1]?.close();
    await sleep(100);
    const after = await step(ids);
    after.forEach((r, i) => {
      if (home[i] !== 1) return expect(r.ok, ids[i]).toBe(true);
      expect(isItemError(r)).toBe(true);
      expect((r as ItemError).error).toMatchObject({ code: 'REPLICA_DOWN', details: { replica: urls[1] } });
      expect((r as ItemError).error.message).toContain(`replica ${urls[1]} went down; episode ${ids[i]} is lost`);
    });
    expect(sc.replicas.map((r) => r.state)).toEqual(['live', 'down', 'live']);
    expect(sc.liveUrls).toEqual([urls[0], urls[2]]);
    // New episodes: the rule over the two survivors; a new member of the group whose replica died is lost with it.
    const freshItems = Array.from({ length: 12 }, (_, i) => ({ episode_id: `f-${i}`, seed: 900 + i }));
    const fresh = await sc.reset(freshItems);
    expect(fresh.every((r) => r.ok)).toBe(true);
    freshItems.forEach((it) => expect(sc.replicaOf(it.episode_id)).toBe([0, 2][shardIndex(String(it.seed), 2)]));
    expect(home[24]).toBe(1); // fnv1a32('grp') % 3
    expect(await sc.reset([{ episode_id: 'g-3', group_id: 'grp' }])).toMatchObject([
      { ok: false, episode_id: 'g-3', error: { code: 'REPLICA_DOWN', message: expect.stringContaining('the group is lost') } },
    ]);

    // It comes back on the same port: rejoined with a new session; new episodes go to it again by the rule.
    servers[1] = await startTestServer({ port, allow_oracle_hints: true });
    for (let t = 0; t < 100 && sc.replicas[1]?.state !== 'live'; t++) await sleep(50);
    expect(sc.replicas[1]).toMatchObject({ state: 'live', sessions: 2 });
    expect(events).toEqual(['1:REPLICA_DOWN', '1:up']);
    const back = await sc.reset(Array.from({ length: 12 }, (_, i) => ({ episode_id: `b-${i}`, seed: 900 + i })));
    expect(back.every((r) => r.ok)).toBe(true);
    back.forEach((r, i) => expect(sc.replicaOf(r.episode_id as string)).toBe(shardIndex(String(900 + i), 3)));
    // The episodes of its old session stay lost (the new session never had them).
    const old = ids.filter((_, i) => home[i] === 1);
    const stale = await step(old);
    expect(stale.every((r) => !r.ok && r.error.code === 'REPLICA_DOWN')).toBe(true);
    expect((await sc.closeEpisodes(old)).unknown).toEqual(old);
    await sc.disconnect();
    await expect(sc.reset([{ seed: 1 }])).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('with no live replica, items fail alone with NO_REPLICA', async () => {
    const gone = await startTestServer();
    const sc = await ShardedClient.connect([gone.url], { reconnect: { retries: 0, backoff_ms: 10 }, rejoin: { retries: 0, backoff_ms: 10 } });
    expect(await sc.reset([{ episode_id: 'a', seed: 1 }])).toMatchObject([{ ok: true }]);
    await gone.close();
    for (let t = 0; t < 40 && sc.replicas[0]?.state === 'live'; t++) await sleep(25);
    expect(sc.replicas[0]?.state).toBe('gone');
    expect(await sc.reset([{ episode_id: 'b', seed: 2 }])).toMatchObject([{ ok: false, episode_id: 'b', error: { code: 'NO_REPLICA' } }]);
    expect(await sc.step([{ episode_id: 'a', action: { text: 'hi' } }])).toMatchObject([{ ok: false, error: { code: 'REPLICA_DOWN' } }]);
    await sc.disconnect();
  });

  it('without a seed, each replica session gets its own random hello seed: seedless items never repeat across replicas', async () => {
    const urls = servers.map((s) => s.url);
    const sc = await ShardedClient.connect(urls);
    // Round-robin: two seedless items per replica, seeds drawn from each replica's session stream. The
    // replicas run the same config (same server seed): one stream for all would give equal tasks.
    const r = await sc.reset(Array.from({ length: 6 }, () => ({})));
    const tasks = r.map((x) => (x.ok ? x.info.task_id : null));
    expect(tasks.every((t) => typeof t === 'string')).toBe(true);
    expect(new Set(r.map((x) => sc.replicaOf(x.episode_id as string))).size).toBe(3);
    expect(new Set(tasks).size).toBe(6);
    await sc.disconnect();
  });

  it('connects with a replica down (rejoining it later), and refuses when every one is down', async () => {
    const gone = await startTestServer();
    const deadUrl = gone.url;
    await gone.close();
    const sc = await ShardedClient.connect([servers[0]?.url as string, deadUrl], { rejoin: { retries: 0, backoff_ms: 10 } });
    expect(sc.replicas.map((r) => r.state)).toEqual(['live', 'gone']);
    expect(sc.replicas[1]?.last_error).toMatch(/ECONNREFUSED/);
    const r = await sc.reset(Array.from({ length: 8 }, (_, i) => ({ seed: i })));
    expect(r.every((x) => x.ok && sc.replicaOf(x.episode_id) === 0)).toBe(true);
    await sc.disconnect();
    const other = deadUrl.replace('/v1/env', '/v1/env?x');
    const refused = await ShardedClient.connect([deadUrl, other]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HarnessGymError);
    expect(refused).toMatchObject({ code: 'NO_REPLICA', details: { replicas: { [deadUrl]: expect.stringMatching(/ECONNREFUSED/), [other]: expect.any(String) } } });
    await expect(ShardedClient.connect([deadUrl, deadUrl])).rejects.toThrow(/must be distinct/);
  });
});

describe('the CLI with --url repeated', () => {
  it('rollout over two replicas prints the single server\'s summary (GRPO groups of 2)', async () => {
    const fake = await startFakeEndpoint();
    try {
      const args = ['rollout', '--base-url', fake.baseUrl, '--model', 'm', '--seed', '3', '--episodes', '12', '--group-size', '2', '--oracle-hints', '--json'];
      const [one, two] = await Promise.all([
        cli([...args, '--url', servers[0]?.url as string]),
        cli([...args, '--url', servers[1]?.url as string, '--url', servers[2]?.url as string]),
      ]);
      expect(one.status).toBe(0);
      expect(two.stdout).toBe(one.stdout);
      expect(JSON.parse(two.stdout)).toMatchObject({ episodes: 12, completed: 12, failed: 0 });
    } finally {
      await fake.close();
    }
  });

  it('a URL given twice is a usage error', async () => {
    const url = servers[0]?.url as string;
    const r = await cli(['eval', '--episodes', '2', '--url', url, '--url', url]);
    expect(expectFailure(r, EXIT.usage, 'eval')).toBe(`harness-gym eval: --url ${url} is given twice; give each server once`);
  });
});
