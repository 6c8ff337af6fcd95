import fc from 'fast-check';
import { pino } from 'pino';
import { Packr } from 'msgpackr';
import type { Options } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { skimMsgpack } from '../../bench/skim.js';
import { MsgpackCodec, PACK_OPTIONS } from '../../protocol/codec.js';
import { EpisodeTable, encodeReply } from '../../server/hosts.js';
import { defaultServerConfig, defaultsOf, harnessOf } from '../../server/config.js';
import { defaultEnvConfig } from '../../env/index.js';
import { Codec } from '../../protocol/codec.js';

const codec = new MsgpackCodec();
const NONE: ReadonlySet<string> = new Set();
const OBS: ReadonlySet<string> = new Set(['observation']);

/** What skimming with `skip` must give: the whole decode with each skipped key's value replaced by its size. */
function expected(value: unknown, skip: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => expected(v, skip));
  if (value instanceof Uint8Array || typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = skip.has(k) ? { skipped_bytes: codec.pack(v).length } : expected(v, skip);
  }
  return out;
}

/** Values of every MessagePack form the server writes: ints of each width, floats, strings, bins, nesting. */
const leaf = fc.oneof(
  fc.integer(),
  fc.integer({ min: -0x80, max: 0xff }),
  fc.integer({ min: -0x8000, max: 0xffff }),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ minLength: 20, maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 20 }),
    // No "__proto__" key: msgpackr's decoder renames it on purpose (prototype safety), so re-encoding the
    // decoded value, as `expected` does, measures one byte less than the bytes the skim reader counts.
    fc.dictionary(fc.oneof(fc.string().filter((k) => k !== '__proto__'), fc.constantFrom('observation', 'info', 'ok')), tie('v'), { maxKeys: 20 }),
  ),
})).v;

describe('bench skim reader (bench/skim.ts)', () => {
  it('decodes what msgpackr decodes when nothing is skipped, over generated values', () => {
    fc.assert(
      fc.property(value, (v) => {
        const bytes = codec.pack(v);
        expect(skimMsgpack(bytes, NONE)).toEqual(codec.unpack(bytes));
      }),
      { numRuns: 400 },
    );
  });

  it('replaces exactly the skipped keys (at any depth) by their encoded size and decodes the rest', () => {
    fc.assert(
      fc.property(value, (v) => {
        const bytes = codec.pack(v);
        expect(skimMsgpack(bytes, OBS)).toEqual(expected(codec.unpack(bytes), OBS));
      }),
      { numRuns: 400 },
    );
  });

  it('reads the 16- and 32-bit headers, 64-bit integers and float32 msgpackr writes', () => {
    const packr = new Packr({ ...(PACK_OPTIONS as object), useFloat32: 1 } as unknown as Options);
    const big = {
      arr16: Array.from({ length: 300 }, (_, i) => i),
      arr32: Array.from({ length: 70_000 }, (_, i) => i % 7),
      map16: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])),
      str16: '価格'.repeat(200),
      str32: 'x'.repeat(70_000),
      bin32: Buffer.alloc(70_000, 7),
      u64: 2 ** 40,
      i64: -(2 ** 40),
      huge: 2n ** 63n - 1n,
      f32: 1.5,
      observation: {
        arr32: Array.from({ length: 70_000 }, (_, i) => i),
        str32: '在庫'.repeat(40_000),
        map16: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, -i])),
      },
    };
    const bytes = packr.pack(big);
    const whole = codec.unpack(bytes) as Record<string, unknown>;
    expect(skimMsgpack(bytes, NONE)).toEqual(whole);
    expect(whole.huge).toBe(2n ** 63n - 1n);
    const skimmed = skimMsgpack(bytes, OBS) as Record<string, unknown>;
    expect(skimmed.observation).toEqual({ skipped_bytes: packr.pack(big.observation).length });
    expect({ ...skimmed, observation: whole.observation }).toEqual(whole);
  });

  it('skims real reset and step replies to everything but their observations', async () => {
    const config = defaultServerConfig({ allow_oracle_hints: true });
    const harness = harnessOf(config);
    const env = defaultEnvConfig({
      limits: { max_turns: config.limits.max_turns, max_errors: config.limits.max_errors },
      harness,
      ...defaultsOf(config),
    });
    const log = pino({ level: 'silent' });
    const table = new EpisodeTable({ config, env: () => env, log, yieldEvery: 64 });
    const wire = new Codec();
    let replies = 0;
    for (let i = 0; i < 24; i++) {
      const id = `e${i}`;
      let reply: { items: { ok: boolean; terminated?: boolean; truncated?: boolean; info: Record<string, unknown> }[] } =
        (await table.apply('s', 1, {
          type: 'reset',
          id: 1,
          items: [{ episode_id: id, seed: 500 + i, variant: 'train', options: { oracle_hints: true } }],
        })) as never;
      for (;;) {
        const bytes = encodeReply(wire, reply, true, log) as Buffer;
        const whole = codec.unpack(bytes);
        const skimmed = skimMsgpack(bytes, OBS) as typeof reply;
        expect(skimmed).toEqual(expected(whole, OBS));
        // What the live phases read is there, whole.
        expect(skimmed.items[0]?.info.oracle_action ?? null).toEqual((whole as typeof reply).items[0]?.info.oracle_action ?? null);
        replies++;
        const item = reply.items[0];
        if (!item || item.terminated || item.truncated || !item.info.oracle_action) break;
        reply = (await table.apply('s', 1, { type: 'step', id: 2, items: [{ episode_id: id, action: item.info.oracle_action }] })) as never;
      }
    }
    expect(replies).toBeGreaterThanOrEqual(48);
  });

  it('throws on truncated values, bytes after the value and types the server never sends', () => {
    const bytes = codec.pack({ observation: { messages: ['a'.repeat(100)] }, ok: true });
    for (const cut of [1, 5, 20, bytes.length - 1]) {
      expect(() => skimMsgpack(bytes.subarray(0, cut), NONE)).toThrow(RangeError);
      expect(() => skimMsgpack(bytes.subarray(0, cut), OBS)).toThrow(RangeError);
    }
    expect(() => skimMsgpack(Buffer.concat([bytes, Buffer.from([0xc0])]), NONE)).toThrow(/1 bytes after the value/);
    expect(() => skimMsgpack(Buffer.from([0xc1]), NONE)).toThrow(/unsupported type 0xc1/);
    expect(() => skimMsgpack(Buffer.from([0x81, 0xab, ...Buffer.from('observation'), 0xd6, 0xff, 0, 0, 0, 0]), OBS)).toThrow(
      /unsupported type 0xd6/,
    );
  });
});
