/**
 * The one MessagePack and JSON codec of the project (docs/PROTOCOL.md "Transport"): the server's frames,
 * the TypeScript client's requests, episode records and the bench all encode with these settings, so
 * that the bytes a record hashes are the bytes a binary client received.
 *
 * MessagePack settings, and why:
 * - `useRecords: false`: plain maps, readable by any MessagePack library (no msgpackr record extension).
 * - `int64AsType: 'auto'`: a 64-bit integer within ±2^53 decodes as a number (Python's msgpack writes
 *   large ids as uint64), anything larger as a bigint, which then fails the schema instead of losing
 *   precision.
 * - `skipValues: [undefined]`: a missing field is absent in both encodings, as `JSON.stringify` does
 *   (this also selects msgpackr's smallest map headers, fixmap for small objects).
 * - Integers stay integers: msgpackr writes a number outside the 32-bit ranges as a float64 (`cb`), so an
 *   id of 2^32 sent as a uint64 would come back as a float. Before packing, every safe integer outside
 *   [-2^31, 2^32) becomes a bigint, which msgpackr writes as int64 (`d3`). The walk copies only the
 *   objects on the path to such a number (shared parts such as cached tool lists are never mutated);
 *   a reply without one is packed as it is.
 * Packing the same value twice gives the same bytes (no shared structures, no timestamps).
 */
import { C1, Packr, Unpackr } from 'msgpackr';
import type { Options } from 'msgpackr';

// `skipValues` and `int64AsType: 'auto'` exist at run time in msgpackr 2.x but are missing from its typings.
export const PACK_OPTIONS = { useRecords: false, skipValues: [undefined] } as unknown as Options;
export const UNPACK_OPTIONS = { useRecords: false, mapsAsObjects: true, int64AsType: 'auto' } as unknown as Options;

/** Whether msgpackr would write this integer-valued number as a float64 (outside its 32-bit forms). */
function needsInt64(n: number): boolean {
  return (n >= 0x100000000 || n < -0x80000000) && Number.isSafeInteger(n);
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with every safe integer outside the 32-bit ranges as a bigint (written as int64), copying only
 * what leads to one; `value` itself when there is none.
 */
export function int64Safe<T>(value: T): T {
  return fix(value) as T;
}

function fix(v: unknown): unknown {
  if (typeof v === 'number') return needsInt64(v) ? BigInt(v) : v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string' || typeof x === 'boolean') continue;
      const y = fix(x);
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  // Buffers, typed arrays and other class instances are packed by their own rules.
  if (!isPlain(v)) return v;
  const o = v as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string' || typeof x === 'boolean' || x === undefined) continue;
    const y = fix(x);
    if (y !== x) (out ??= { ...o })[k] = y;
  }
  return out ?? o;
}

/** The outcome of decoding one frame. */
export type Decoded = { ok: true; value: unknown } | { ok: false; message: string };

/** MessagePack with the settings above: one `Packr` and one `Unpackr`, reused (STYLE.md "Hot path"). */
export class MsgpackCodec {
  readonly #packr = new Packr(PACK_OPTIONS);
  readonly #unpackr = new Unpackr(UNPACK_OPTIONS);

  /**
   * Pack a value. The result may be a view into the packer's reused buffer, valid until the next call:
   * copy it (`Buffer.from`) to keep it.
   */
  pack(value: unknown): Buffer {
    return this.#packr.pack(int64Safe(value));
  }

  /** Unpack one value; throws on bytes that are not MessagePack. */
  unpack(bytes: Uint8Array): unknown {
    return this.#unpackr.unpack(bytes);
  }
}

/** JSON for text frames, MessagePack for binary frames. */
export class Codec {
  readonly #msgpack = new MsgpackCodec();

  /** Decode a frame's payload. Never throws: an undecodable frame is `{ok: false}`. */
  decode(data: Buffer, binary: boolean): Decoded {
    try {
      if (!binary) return { ok: true, value: JSON.parse(data.toString('utf8')) };
      const value = this.#msgpack.unpack(data);
      // 0xc1 is "never used" in MessagePack; msgpackr returns a marker object for it instead of failing.
      if (value === C1) return { ok: false, message: 'invalid MessagePack (0xc1)' };
      return { ok: true, value };
    } catch (e) {
      return { ok: false, message: `${binary ? 'MessagePack' : 'JSON'} decode failed: ${(e as Error).message}` };
    }
  }

  /** Encode a value: a Buffer of MessagePack for binary (a view, see `MsgpackCodec.pack`), a JSON string for text. */
  encode(value: unknown, binary: boolean): Buffer | string {
    return binary ? this.#msgpack.pack(value) : JSON.stringify(value);
  }
}
