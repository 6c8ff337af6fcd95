/**
 * Frame codec: text frames carry JSON, binary frames MessagePack (PROTOCOL.md "Transport"). One `Packr`
 * and one `Unpackr` per server, reused for every frame (STYLE.md "Hot path").
 *
 * MessagePack settings, and why:
 * - `useRecords: false`: plain maps, readable by any MessagePack library (no msgpackr record extension).
 * - `int64AsType: 'auto'`: a 64-bit integer within ±2^53 decodes as a number (Python's msgpack writes
 *   large ids as uint64), anything larger as a bigint, which then fails the schema instead of losing
 *   precision.
 * - `skipValues: [undefined]`: a missing field is absent in both encodings, as `JSON.stringify` does
 *   (this also selects msgpackr's smallest map headers, fixmap for small objects).
 * JavaScript integers are written as MessagePack integers and other numbers as float64, so integers stay
 * integers; packing the same object twice gives the same bytes (no shared structures, no timestamps).
 */
import { C1, Packr, Unpackr } from 'msgpackr';
import type { Options } from 'msgpackr';

// `skipValues` and `int64AsType: 'auto'` exist at run time in msgpackr 2.x but are missing from its typings.
const PACK_OPTIONS = { useRecords: false, skipValues: [undefined] } as unknown as Options;
const UNPACK_OPTIONS = { useRecords: false, mapsAsObjects: true, int64AsType: 'auto' } as unknown as Options;

/** The outcome of decoding one frame. */
export type Decoded = { ok: true; value: unknown } | { ok: false; message: string };

/** JSON for text frames, MessagePack for binary frames. */
export class Codec {
  readonly #packr = new Packr(PACK_OPTIONS);
  readonly #unpackr = new Unpackr(UNPACK_OPTIONS);

  /** Decode a frame's payload. Never throws: an undecodable frame is `{ok: false}`. */
  decode(data: Buffer, binary: boolean): Decoded {
    try {
      if (!binary) return { ok: true, value: JSON.parse(data.toString('utf8')) };
      const value: unknown = this.#unpackr.unpack(data);
      // 0xc1 is "never used" in MessagePack; msgpackr returns a marker object for it instead of failing.
      if (value === C1) return { ok: false, message: 'invalid MessagePack (0xc1)' };
      return { ok: true, value };
    } catch (e) {
      return { ok: false, message: `${binary ? 'MessagePack' : 'JSON'} decode failed: ${(e as Error).message}` };
    }
  }

  /** Encode a reply: a Buffer of MessagePack for binary, a JSON string for text. */
  encode(value: unknown, binary: boolean): Buffer | string {
    return binary ? this.#packr.pack(value) : JSON.stringify(value);
  }
}
