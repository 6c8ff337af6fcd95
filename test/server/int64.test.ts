/**
 * Integers stay integers in MessagePack (docs/PROTOCOL.md "Transport": ids come back with the same type).
 * msgpackr writes numbers outside the 32-bit ranges as float64 unless told otherwise; over a real socket,
 * ids at the edges of ±(2^53-1) and just past 32 bits come back as MessagePack integers on every reply
 * type, whether the client sent them as int64 or uint64, and the codec converts without touching shared
 * objects.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { Unpackr } from 'msgpackr';
import { int64Safe, MsgpackCodec, UNPACK_OPTIONS } from '../../protocol/codec.js';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, testConfig } from './helpers.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const IDS = [2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 32, -(2 ** 31) - 1, 2 ** 40 + 7];

/** The MessagePack type byte of the top-level `id` value (the first `id` key of a reply). */
function idTypeByte(raw: Buffer): number {
  const at = raw.indexOf(Buffer.from([0xa2, 0x69, 0x64])); // fixstr "id"
  if (at < 0) throw new Error('no id key');
  return raw[at + 3] as number;
}

/** int64 (d3) or uint64 (cf): an integer; never float64 (cb). */
const INTEGER_TYPES = [0xd3, 0xcf];

describe('MessagePack integers outside 32 bits', () => {
  it('come back as integers on every reply type', async () => {
    server = await startServer(testConfig({ port: 0 }));
    const c = await connect(server.url);
    const hello = { type: 'hello', id: IDS[0], protocol: 1, seed: 4294967295 };
    c.send(hello, true);
    const welcome = await c.next();
    expect(welcome.msg.id).toBe(IDS[0]);
    expect(INTEGER_TYPES).toContain(idTypeByte(welcome.raw));
    for (const id of IDS) {
      const requests = [
        { type: 'ping', id },
        { type: 'reset', id, items: [{ episode_id: `e${id}`, seed: 4294967295 }] },
        { type: 'step', id, items: [{ episode_id: `e${id}`, action: { text: '你好' } }] },
        { type: 'close', id, episode_ids: [`e${id}`] },
        { type: 'fly', id },
        { type: 'reset', id, items: 'not a list' },
      ];
      for (const r of requests) {
        c.send(r, true);
        const reply = await c.next();
        expect(reply.msg.id, `${r.type} ${id}`).toBe(id);
        expect(INTEGER_TYPES, `${r.type} ${id}: type byte`).toContain(idTypeByte(reply.raw));
      }
    }
  });

  it('sent as uint64 (as Python writes them) come back as the same integer', async () => {
    server = await startServer(testConfig({ port: 0 }));
    const c = await connect(server.url);
    await c.hello({}, true);
    // {type: "ping", id: 2^32} with the id as uint64 (cf).
    const frame = Buffer.concat([
      Buffer.from([0x82, 0xa4]),
      Buffer.from('type'),
      Buffer.from([0xa4]),
      Buffer.from('ping'),
      Buffer.from([0xa2]),
      Buffer.from('id'),
      Buffer.from([0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
    ]);
    c.sendRaw(frame);
    const reply = await c.next();
    expect(reply.msg).toEqual({ type: 'pong', id: 2 ** 32 });
    expect(INTEGER_TYPES).toContain(idTypeByte(reply.raw));
  });

  it('int64Safe converts safe integers past 32 bits, copies only their path, and leaves the rest alone', () => {
    const shared = { name: 'tool', parameters: { maximum: 10 } };
    const value = { id: 2 ** 40, items: [shared, { n: [1, -(2 ** 33), 0.5, 2 ** 60] }], big: 4294967295, small: -2147483648 };
    const out = int64Safe(value) as typeof value & { id: unknown };
    expect(out).not.toBe(value);
    expect(out.id).toBe(BigInt(2 ** 40));
    expect(out.items[0]).toBe(shared); // untouched parts are shared, never copied or mutated
    expect((out.items[1] as { n: unknown[] }).n).toEqual([1, BigInt(-(2 ** 33)), 0.5, 2 ** 60]); // 2^60 is not a safe integer
    expect(out.big).toBe(4294967295); // uint32 already packs as an integer
    expect(out.small).toBe(-2147483648);
    expect(value.id).toBe(2 ** 40); // the input is unchanged
    const same = { a: [1, 2, { b: 'x' }] };
    expect(int64Safe(same)).toBe(same);
    // Round trip through the codec: the same numbers, integers on the wire.
    const codec = new MsgpackCodec();
    const bytes = codec.pack(value);
    expect(new Unpackr(UNPACK_OPTIONS).unpack(bytes)).toEqual(value);
    expect(bytes.includes(0xcb)).toBe(true); // 0.5 and 2^60 stay floats
  });
});
