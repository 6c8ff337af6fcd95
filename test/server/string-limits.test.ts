/**
 * Bounds on client strings (issue 39, "long episode ids"; PROTOCOL.md "Limits"), over real sockets
 * (127.0.0.1, port 0): an `episode_id` over `max_id_chars` (3.5 MiB, or one character over) is refused
 * with the typed item error `INVALID_MESSAGE` naming the field and the limit, and is not echoed back; an
 * id of exactly `max_id_chars` is accepted; every other client string the server keeps (group and task
 * ids, names, options, variant families, hello fields, request ids, step and close ids) is bounded the
 * same way; `welcome.limits` announces the bounds; and refused resets leave the server's heap where it
 * was (measured after a full GC, the server in this process, not timed).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it, expect, afterEach } from 'vitest';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, metric, testConfig } from './helpers.js';

// The documented limits (PROTOCOL.md "Limits"; protocol/wire.ts `WIRE_STRING_LIMITS`), as a client reads them.
const WIRE_STRING_LIMITS = { max_id_chars: 256, max_name_chars: 128, max_token_chars: 4096, max_variant_families: 64 };
const MAX_ID = WIRE_STRING_LIMITS.max_id_chars;
const MAX_NAME = WIRE_STRING_LIMITS.max_name_chars;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(overrides: Record<string, unknown> = {}): Promise<RunningServer> {
  server = await startServer(testConfig({ port: 0, ...overrides }));
  return server;
}

/** The issue of an INVALID_MESSAGE at `path`, if any. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function issueAt(error: any, path: (string | number)[]): { path: unknown[]; message: string } | undefined {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return error?.details?.issues?.find((i: any) => JSON.stringify(i.path) === JSON.stringify(path));
}

/** A full GC (the flag is set at run time; `gc` is read from a fresh context). */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('client strings are bounded (PROTOCOL.md "Limits")', () => {
  it('welcome.limits announces max_id_chars and max_name_chars', async () => {
    const s = await start();
    const c = await connect(s.url);
    const w = await c.hello();
    expect(w.limits.max_id_chars).toBe(MAX_ID);
    expect(w.limits.max_name_chars).toBe(MAX_NAME);
    c.ws.close(1000);
  });

  it('a 3.5 MiB episode_id is refused with INVALID_MESSAGE naming the field and limit, not echoed; one at the limit is accepted', async () => {
    const s = await start();
    const c = await connect(s.url);
    await c.hello();
    const huge = 'x'.repeat(3.5 * 1024 * 1024);
    const atLimit = 'a'.repeat(MAX_ID);
    const over = 'b'.repeat(MAX_ID + 1);
    for (const binary of [false, true]) {
      c.send({ type: 'reset', id: `r${binary}`, items: [{ episode_id: huge }, { episode_id: over }] }, binary);
      const got = await c.next();
      expect(got.msg.type).toBe('reset_result');
      const [a, b] = got.msg.items;
      for (const refused of [a, b]) {
        expect(refused.ok).toBe(false);
        expect(refused.error.code).toBe('INVALID_MESSAGE');
        expect(refused.episode_id).toBeUndefined();
        expect(issueAt(refused.error, ['episode_id'])?.message).toContain(`at most ${MAX_ID} characters (limits.max_id_chars)`);
      }
      // The reply does not carry the client's megabytes back.
      expect(got.raw.length).toBeLessThan(64 * 1024);
    }
    const r = await c.request({ type: 'reset', id: 'ok', items: [{ episode_id: atLimit }] });
    expect(r.items[0].ok).toBe(true);
    expect(r.items[0].episode_id).toBe(atLimit);
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(1);
    // A step and a close naming an over-limit id fail the same way; the at-limit episode steps.
    const st = await c.request({
      type: 'step',
      id: 'st',
      items: [
        { episode_id: over, action: { text: 'hi' } },
        { episode_id: atLimit, action: { text: 'hi' } },
      ],
    });
    expect(st.items[0].error.code).toBe('INVALID_MESSAGE');
    expect(st.items[0].episode_id).toBeUndefined();
    expect(issueAt(st.items[0].error, ['episode_id'])?.message).toContain('limits.max_id_chars');
    expect(st.items[1].ok).toBe(true);
    const cl = await c.request({ type: 'close', id: 'cl', episode_ids: [atLimit, huge] });
    expect(cl.type).toBe('error');
    expect(cl.error.code).toBe('INVALID_MESSAGE');
    expect(issueAt(cl.error, ['episode_ids', 1])?.message).toContain('limits.max_id_chars');
    expect((await c.request({ type: 'close', id: 'cl2', episode_ids: [atLimit] })).episode_ids).toEqual([atLimit]);
    c.ws.close(1000);
  });

  it('every other client string the server keeps is bounded, with the typed error naming the field', async () => {
    const s = await start();
    const long = (n: number) => 'z'.repeat(n + 1);
    const c = await connect(s.url);
    // hello: client name, resume id, token.
    const h1 = await c.request({ type: 'hello', id: 'h1', protocol: 1, client: long(MAX_NAME) });
    expect(h1.error.code).toBe('INVALID_MESSAGE');
    expect(issueAt(h1.error, ['client'])?.message).toContain('limits.max_name_chars');
    const h2 = await c.request({ type: 'hello', id: 'h2', protocol: 1, resume: long(MAX_ID) });
    expect(issueAt(h2.error, ['resume'])?.message).toContain('limits.max_id_chars');
    const h3 = await c.request({ type: 'hello', id: 'h3', protocol: 1, token: long(WIRE_STRING_LIMITS.max_token_chars) });
    expect(issueAt(h3.error, ['token'])?.message).toContain('limits.max_token_chars');
    expect((await c.hello({ client: 'c'.repeat(MAX_NAME) })).type).toBe('welcome');

    // A string request id over the limit is not echoed (id null).
    const bigId = await c.request({ type: 'ping', id: long(MAX_ID) });
    expect(bigId.type).toBe('error');
    expect(bigId.id).toBeNull();
    expect(issueAt(bigId.error, ['id'])).toBeDefined();
    expect((await c.request({ type: 'ping', id: 'p'.repeat(MAX_ID) })).type).toBe('pong');

    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ group_id: long(MAX_ID) }, ['group_id'], 'limits.max_id_chars'],
      [{ task: { id: long(MAX_ID) } }, ['task', 'id'], 'limits.max_id_chars'],
      [{ task: { intent: long(MAX_NAME) } }, ['task', 'intent'], 'limits.max_name_chars'],
      [{ options: { parser: long(MAX_NAME) } }, ['options', 'parser'], 'limits.max_name_chars'],
      [{ options: { rewards: long(MAX_NAME) } }, ['options', 'rewards'], 'limits.max_name_chars'],
      [{ variant: long(MAX_NAME) }, ['variant'], 'limits.max_name_chars'],
      [{ variant: { families: [long(MAX_NAME)], intensity: 0.5, split: 'train' } }, ['variant', 'families', 0], 'limits.max_name_chars'],
      [
        {
          variant: {
            families: Array.from({ length: WIRE_STRING_LIMITS.max_variant_families + 1 }, () => 'tool_names'),
            intensity: 0.5,
            split: 'train',
          },
        },
        ['variant', 'families'],
        'limits.max_variant_families',
      ],
    ];
    const r = await c.request({ type: 'reset', id: 'cases', items: cases.map(([item], i) => ({ episode_id: `e${i}`, ...item })) });
    cases.forEach(([, path, limit], i) => {
      const item = r.items[i];
      expect(item.ok, JSON.stringify(path)).toBe(false);
      expect(item.error.code).toBe('INVALID_MESSAGE');
      expect(item.episode_id).toBe(`e${i}`);
      // A union (variant) reports its branches; the bound is named in one of them.
      expect(JSON.stringify(item.error.details), JSON.stringify(path)).toContain(limit);
    });
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(0);
    c.ws.close(1000);
  });

  it('refused resets with 1 MiB ids do not grow the server heap (30 resets, after a full GC)', async () => {
    // In process (workers: 0) so that one GC reaches every heap the episodes would live in; a small
    // replay window, which keeps request frames by design (bounded by limits.replay_window).
    const s = await start({ workers: 0, limits: { replay_window: 2 } });
    const c = await connect(s.url);
    await c.hello();
    await c.request({ type: 'reset', id: 'warm', items: [{ episode_id: 'warm' }] });
    await c.request({ type: 'close', id: 'warm-close', episode_ids: ['warm'] });
    fullGc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 30; i++) {
      // Each id distinct (a fresh string), as a hostile client would send them.
      const id = String(i).padStart(8, '0') + 'y'.repeat(1024 * 1024);
      const r = await c.request({ type: 'reset', id: i, items: [{ episode_id: id }] });
      expect(r.items[0].ok).toBe(false);
      expect(r.items[0].error.code).toBe('INVALID_MESSAGE');
    }
    expect(await metric(s.app, 'harness_gym_episodes_live')).toBe(0);
    fullGc();
    const grownMiB = (process.memoryUsage().heapUsed - before) / (1024 * 1024);
    // Kept, the 30 ids alone would be 30 MiB; refused, the server keeps none of them.
    expect(grownMiB).toBeLessThan(8);
    c.ws.close(1000);
  });
});
