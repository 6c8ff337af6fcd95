/**
 * The MessagePack writer (protocol/codec.ts `MsgpackCodec.pack`) writes exactly the bytes msgpackr writes
 * with the project's settings after `int64Safe` (what the codec did before it had a writer of its own):
 * over generated values, the edges of every header and number form, objects msgpackr treats specially
 * (own `constructor`, `hasOwnProperty`, `toJSON`, no prototype, class instances, Maps, Dates, buffers),
 * values bigger than a chunk, and the environment's own reset and step replies.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { MsgpackCodec, PACK_OPTIONS, int64Safe, shareEncoding } from '../../protocol/codec.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { propertyRuns } from '../property-runs.js';

const reference = new Packr(PACK_OPTIONS);
const codec = new MsgpackCodec();

/** The reference bytes, or the reference's error message. */
function expected(v: unknown): string {
  try {
    return Buffer.from(reference.pack(int64Safe(v))).toString('hex');
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

function actual(v: unknown): string {
  try {
    return Buffer.from(codec.pack(v)).toString('hex');
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

function same(v: unknown, what = ''): void {
  expect(actual(v), what).toBe(expected(v));
}

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  31,
  32,
  127,
  128,
  255,
  256,
  65535,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 40 + 7,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53 - 1),
  -(2 ** 53),
  -1,
  -31,
  -32,
  -33,
  -127,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  0.5,
  -0.5,
  1e300,
  5e-324,
  NaN,
  Infinity,
  -Infinity,
  2 ** 60,
  3.14159,
];

/** Strings around every header boundary, in ASCII, 2-byte, 3-byte, 4-byte and lone-surrogate text. */
function edgeStrings(): string[] {
  const out: string[] = [];
  for (const unit of ['a', 'é', '中', '😀', '\ud800', '\udc00', 'a中', '\u0000']) {
    for (const n of [
      0, 1, 10, 11, 15, 16, 21, 31, 32, 33, 63, 64, 65, 85, 86, 127, 128, 255, 256, 257, 21845, 21846, 32768, 65535, 65536,
    ]) {
      out.push(unit.repeat(n).slice(0, Math.max(n, 0)));
      out.push(unit.repeat(n));
    }
  }
  out.push('\ud83d', 'x\ud83d', '\ude00x', '\ud83d\ud83d\ude00');
  return out;
}

describe('MsgpackCodec.pack', () => {
  it('writes every number form as msgpackr does after int64Safe', () => {
    for (const n of EDGE_NUMBERS) {
      same(n, `number ${n}`);
      same([n], `[${n}]`);
      same({ n }, `{n: ${n}}`);
    }
    fc.assert(fc.property(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), fc.float()), (n) => same({ v: [n] })));
  });

  it('writes every string form (UTF-8, lone surrogates as U+FFFD, each header size)', () => {
    for (const s of edgeStrings()) {
      same(s, `string of ${s.length}`);
      same({ [s.slice(0, 300)]: s }, `key of ${Math.min(s.length, 300)}`);
    }
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => same([s, { s }])));
  });

  it('writes generated JSON-like values byte for byte', () => {
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.constantFrom(...EDGE_NUMBERS),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie('any'), { maxLength: 20 }),
        fc.dictionary(fc.string({ maxLength: 12 }), tie('any'), { maxKeys: 20 }),
        fc.sparseArray(tie('any'), { maxLength: 18 }),
      ),
    }));
    fc.assert(
      fc.property(value.any, (v) => same(v)),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('writes what msgpackr treats specially as msgpackr does', () => {
    class Point {
      x = 2 ** 40;
      y = 'y';
    }
    const cases: [string, unknown][] = [
      ['own constructor string', { a: 1, constructor: 'x', b: 2 ** 40 }],
      ['own constructor undefined', { a: 1, constructor: undefined }],
      ['own constructor Object', { a: 1, constructor: Object }],
      ['own constructor with toJSON', { a: 1, constructor: 'x', toJSON: () => ({ j: 2 ** 41 }) }],
      ['toJSON without constructor', { a: 1, toJSON: () => 'ignored' }],
      ['nested', { a: [{ constructor: 'x', toJSON: () => [1, 2] }], b: 3 }],
      ['own hasOwnProperty string', { hasOwnProperty: 'x', a: 1 }],
      ['own hasOwnProperty function', { a: 1, hasOwnProperty: (k: string) => k !== 'b', b: 2, c: 3 }],
      ['own hasOwnProperty builtin', { a: 1, hasOwnProperty: Object.prototype.hasOwnProperty, b: 2 }],
      ['no prototype', Object.assign(Object.create(null) as object, { a: 1, b: 2 ** 40, c: undefined })],
      ['other prototype', Object.assign(Object.create({ inherited: 1 }) as object, { a: 2 ** 40 })],
      ['class instance', { p: new Point() }],
      [
        'Map',
        new Map<unknown, unknown>([
          ['a', 1],
          ['b', [2 ** 40]],
        ]),
      ],
      ['Set', new Set([1, 'a'])],
      ['Date', { at: new Date(1_700_000_000_000) }],
      ['Buffer', [Buffer.from('abc'), new Uint8Array([1, 2, 3])]],
      ['bigint', [12n, -(2n ** 63n), 2n ** 64n - 1n]],
      ['bigint too large', [2n ** 70n]],
      ['function', [() => 1, { f: () => 2 }]],
      ['symbol', [Symbol('s')]],
      ['frozen', Object.freeze({ nested: Object.freeze([1, 2, { deep: 2 ** 33 }]) })],
      ['integer keys', { 2: 'b', 1: 'a', z: 'z', 10: 'c' }],
      ['array subclass', { a: Object.assign(new (class extends Array {})(), { 0: 1, 1: 2 ** 40 }) }],
      ['holes', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ];
    for (const [what, v] of cases) same(v, what);
  });

  it('follows a polluted Object.prototype as msgpackr does', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 5;
    try {
      same({ a: 1, b: [{ c: 2 }] }, 'enumerable key on Object.prototype');
    } finally {
      delete proto.polluted;
    }
    same({ a: 1 }, 'after');
  });

  it('writes values bigger than a chunk, and many values in a row, without writing over earlier ones', () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 40; i++) wide[`k${i}`] = '中'.repeat(i * 100);
    const big: Record<string, unknown> = {};
    for (let i = 0; i < 70_000; i++) big[`k${i}`] = i % 3 === 0 ? undefined : i;
    same({ a: [wide, wide] }, 'wide');
    same(big, 'map32');
    same(new Array(70_000).fill('x'), 'array32');
    const kept: [Buffer, string][] = [];
    for (let i = 0; i < 2000; i++) {
      const v = { i, s: 'x'.repeat(i % 500), w: i % 97 === 0 ? wide : null };
      kept.push([codec.pack(v), expected(v)]);
    }
    for (const [bytes, want] of kept) expect(Buffer.from(bytes).toString('hex')).toBe(want);
  });

  it('packs into a scratch buffer (packTransient) the bytes pack writes, growing it, leaving pack\'s views alone', () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 40; i++) wide[`k${i}`] = '中'.repeat(i * 100);
    // Views from pack stay valid whatever packTransient does in between.
    const kept: [Buffer, string][] = [];
    for (let i = 0; i < 300; i++) {
      const v = { i, s: '宝'.repeat(i % 700), w: i % 37 === 0 ? wide : null, big: i === 150 ? 'q'.repeat(3 << 20) : null };
      const want = expected(v);
      const scratchBytes = codec.packTransient(v);
      expect(Buffer.from(scratchBytes).toString('hex'), `transient ${i}`).toBe(want);
      kept.push([codec.pack(v), want]);
      // The next transient pack writes over the last one: read before packing again (as a worker copies).
      const again = codec.packTransient({ i });
      expect(Buffer.from(again).toString('hex')).toBe(expected({ i }));
    }
    for (const [bytes, want] of kept) expect(Buffer.from(bytes).toString('hex')).toBe(want);
    // The scratch buffer is written from its start: two transient packs share their first byte's place.
    const a = codec.packTransient({ a: 1 });
    const b = codec.packTransient({ b: 2 });
    expect(a.byteOffset).toBe(b.byteOffset);
    expect(a.buffer).toBe(b.buffer);
  });

  it('writes a shared list from the bytes kept at its first write, for the list and its copies', () => {
    // The second element is bigger than any chunk the writer holds (chunks grow to 4x what they must
    // hold): the chunk moves to a bigger one while the list is first written, and the kept bytes are read
    // from the new one.
    const list = Object.freeze([
      { name: 'get_product', n: 2 ** 40, tags: ['中', 'x'.repeat(300)] },
      { name: 'b', deep: { a: [1, 2.5, null] }, text: 'q'.repeat(8 << 20) },
    ]);
    shareEncoding(list);
    const copy = list.slice();
    shareEncoding(list, copy);
    const want = expected({ tools: list });
    same({ pad: 'p'.repeat(1000), tools: list }, 'first write, across a chunk move');
    for (let i = 0; i < 3; i++) {
      expect(actual({ tools: list }), `list ${i}`).toBe(want);
      expect(actual({ tools: copy }), `copy ${i}`).toBe(want);
    }
    const other = list.slice();
    shareEncoding(list, other);
    expect(actual([other, copy])).toBe(expected([list, list]));
    // A polluted Object.prototype is written as msgpackr writes it, not from the kept bytes.
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 5;
    try {
      same({ tools: copy }, 'polluted prototype');
    } finally {
      delete proto.polluted;
    }
    expect(actual({ tools: copy })).toBe(want);
  });

  it("writes the environment's reset and step replies byte for byte", () => {
    const env = defaultEnvConfig();
    for (const variant of ['identity', 'train', 'eval']) {
      for (let seed = 1; seed <= 6; seed++) {
        const created = createEpisode(env, { episode_id: `e${seed}`, seed, variant, options: {} });
        if (!created.ok) throw new Error(created.error.message);
        const episode = created.episode;
        const { observation, info } = episode.reset();
        same(
          { type: 'reset_result', id: seed, items: [{ ok: true, episode_id: `e${seed}`, observation, info }] },
          `${variant} reset ${seed}`,
        );
        const p = episode.params;
        const policy = oraclePolicy.start({
          seed,
          parser: 'openai',
          observation,
          info,
          privileged: { task: p.task, map: p.map, harness: p.harness },
        });
        let obs = observation;
        let last = info;
        for (let turn = 0; turn < 12; turn++) {
          const r = episode.step(policy.act(obs, last));
          same({ type: 'step_result', id: 2 ** 40 + turn, items: [{ ...r, episode_id: `e${seed}` }] }, `${variant} step ${seed}/${turn}`);
          if (!r.ok || r.terminated || r.truncated) break;
          obs = r.observation;
          last = r.info;
        }
      }
    }
  });
});
