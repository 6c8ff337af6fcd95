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
 *
 * Packing is done by `writeMsgpack` below, not by msgpackr's packer: the bytes are exactly the ones
 * `new Packr(PACK_OPTIONS).pack(int64Safe(value))` writes (test/protocol/codec.test.ts compares them over
 * generated and recorded values), at about a third of the cost on the server's replies (msgpackr's
 * `skipValues` path collects every object's keys into an array, checks each value against the list and
 * looks it up twice). It writes plain objects, arrays, strings, numbers, booleans, null and undefined
 * itself, and hands anything else (class instances, Maps, Dates, typed arrays, bigints, functions) to
 * msgpackr, whose bytes for a value do not depend on where the value sits.
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

// -------------------------------------------------------------------------------------------------
// The writer. Replies are written into a chunk that is never written over: each value is packed after
// the previous one, and a new chunk is taken once the current one is nearly full, so a returned view
// stays valid for as long as it is held (ws keeps it until the socket has written it), as msgpackr's do.
// -------------------------------------------------------------------------------------------------

/** Bytes of a fresh chunk, at least. */
const MIN_CHUNK = 64 * 1024;
/** A value is started in a new chunk when the current one has fewer bytes left than this. */
const MIN_ROOM = 2048;

let chunk: Buffer = Buffer.allocUnsafeSlow(MIN_CHUNK);
let view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
/** Where the value being written started, and the write position, in `chunk`. */
let start = 0;
let pos = 0;
/** True while a value is being written (a getter that packs is sent to msgpackr instead). */
let writing = false;
/** Object.prototype has no enumerable key and its own `constructor` and `hasOwnProperty` (checked once per packed value). */
let standardPrototype = true;
const OBJECT_HAS_OWN = Object.prototype.hasOwnProperty;
/** msgpackr, for the values the writer does not write itself. */
let fallbackPackr: Packr | null = null;

const utf8Write: ((this: Buffer, s: string, offset: number, length: number) => number) | undefined = (
  Buffer.prototype as unknown as { utf8Write?: (this: Buffer, s: string, offset: number, length: number) => number }
).utf8Write;

/** Make room for `n` more bytes at `pos`: a bigger chunk holding what this value wrote so far. */
function room(n: number): void {
  if (pos + n <= chunk.length) return;
  const written = pos - start;
  const size = Math.max(MIN_CHUNK, (((written + n) * 4 + 4095) >>> 12) << 12);
  const next = Buffer.allocUnsafeSlow(size);
  chunk.copy(next, 0, start, pos);
  chunk = next;
  view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  start = 0;
  pos = written;
}

/** A value msgpackr writes: its bytes, copied in (int64Safe first, as the whole value would have had it). */
function writeFallback(v: unknown): void {
  fallbackPackr ??= new Packr(PACK_OPTIONS);
  const bytes = fallbackPackr.pack(int64Safe(v));
  room(bytes.length);
  bytes.copy(chunk, pos);
  pos += bytes.length;
}

/**
 * Strings from this many UTF-16 units are written by Buffer's native utf8Write, shorter ones by a loop:
 * object keys (internalized, flat strings) below 64, values from 8. The environment's values are mostly
 * cons strings (concatenations), flattened or not, and a loop's charCodeAt dispatches on the string's
 * representation for every character, so for values utf8Write is the faster from a short length on
 * (flat strings narrow the gap) (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
const KEY_NATIVE_FROM = 0x40;
const VALUE_NATIVE_FROM = 8;

/** A string: str header by its UTF-8 length (fixstr, str8, str16, str32), then the bytes. */
function writeString(s: string, nativeFrom: number): void {
  const n = s.length;
  // The header is sized for the UTF-16 length first and moved when the UTF-8 bytes need a bigger one.
  const guess = n < 0x20 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5;
  room(guess + n * 3 + 5);
  const at = pos + guess;
  let len: number;
  if (n < nativeFrom || utf8Write === undefined) {
    // msgpackr's own loop: UTF-8, a lone surrogate as U+FFFD (what Buffer's utf8Write writes too).
    const b = chunk;
    let p = at;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        b[p++] = c;
      } else if (c < 0x800) {
        b[p++] = (c >> 6) | 0xc0;
        b[p++] = (c & 0x3f) | 0x80;
      } else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c & 0x03ff) << 10) + (s.charCodeAt(i + 1) & 0x03ff);
        i++;
        b[p++] = (c >> 18) | 0xf0;
        b[p++] = ((c >> 12) & 0x3f) | 0x80;
        b[p++] = ((c >> 6) & 0x3f) | 0x80;
        b[p++] = (c & 0x3f) | 0x80;
      } else if ((c & 0xf800) === 0xd800) {
        b[p++] = 0xef;
        b[p++] = 0xbf;
        b[p++] = 0xbd;
      } else {
        b[p++] = (c >> 12) | 0xe0;
        b[p++] = ((c >> 6) & 0x3f) | 0x80;
        b[p++] = (c & 0x3f) | 0x80;
      }
    }
    len = p - at;
  } else {
    len = utf8Write.call(chunk, s, at, chunk.length - at);
  }
  const header = len < 0x20 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 5;
  const b = chunk;
  if (header !== guess) {
    if (len > 192) {
      b.copyWithin(pos + header, at, at + len);
    } else {
      // Short: a loop is cheaper than the native call (the header only ever grows here: at most by 2).
      const to = pos + header;
      for (let i = len - 1; i >= 0; i--) b[to + i] = b[at + i];
    }
  }
  if (header === 1) {
    b[pos] = 0xa0 | len;
  } else if (header === 2) {
    b[pos] = 0xd9;
    b[pos + 1] = len;
  } else {
    putSize(pos, len, 0xda);
  }
  pos += header + len;
}

/** A number as msgpackr writes it after int64Safe: the smallest integer form, int64, or float64. */
function writeNumber(v: number): void {
  room(9);
  const b = chunk;
  if (v >>> 0 === v) {
    if (v < 0x80) {
      b[pos++] = v;
    } else if (v < 0x100) {
      b[pos++] = 0xcc;
      b[pos++] = v;
    } else if (v < 0x10000) {
      b[pos++] = 0xcd;
      b[pos++] = v >> 8;
      b[pos++] = v & 0xff;
    } else {
      b[pos++] = 0xce;
      view.setUint32(pos, v);
      pos += 4;
    }
  } else if (v >> 0 === v) {
    if (v >= -0x20) {
      b[pos++] = 0x100 + v;
    } else if (v >= -0x80) {
      b[pos++] = 0xd0;
      b[pos++] = v + 0x100;
    } else if (v >= -0x8000) {
      b[pos++] = 0xd1;
      view.setInt16(pos, v);
      pos += 2;
    } else {
      b[pos++] = 0xd2;
      view.setInt32(pos, v);
      pos += 4;
    }
  } else if (needsInt64(v)) {
    // int64Safe's bigint, written as msgpackr writes it (d3, two's complement, big-endian).
    const hi = Math.floor(v / 0x100000000);
    b[pos++] = 0xd3;
    view.setInt32(pos, hi);
    view.setUint32(pos + 4, v - hi * 0x100000000);
    pos += 8;
  } else {
    b[pos++] = 0xcb;
    view.setFloat64(pos, v);
    pos += 8;
  }
}

/** A container header: fix form below 16, else the 16- or 32-bit form (`base` 0x90 arrays, 0x80 maps). */
function writeLength(n: number, fix: number, b16: number): void {
  room(5);
  if (n < 0x10) {
    chunk[pos++] = fix | n;
  } else {
    putSize(pos, n, b16);
    pos += n < 0x10000 ? 3 : 5;
  }
}

/**
 * A 16- or 32-bit size header at `at`: `b16` and a big-endian uint16 below 0x10000, else `b16 + 1` and a
 * uint32 (str 0xda/0xdb, array 0xdc/0xdd, map 0xde/0xdf). The caller has made room for it.
 */
function putSize(at: number, n: number, b16: number): void {
  if (n < 0x10000) {
    chunk[at] = b16;
    chunk[at + 1] = n >> 8;
    chunk[at + 2] = n & 0xff;
  } else {
    chunk[at] = b16 + 1;
    view.setUint32(at + 1, n);
  }
}

/**
 * A plain object (prototype Object.prototype) as msgpackr writes it: msgpackr tests `constructor ===
 * Object` and then, in `writePlainObject` with `skipValues: [undefined]`, takes its for...in keys that pass
 * `typeof o.hasOwnProperty !== 'function' || o.hasOwnProperty(k)` and whose value is not undefined, in that
 * order. When Object.prototype is as the language made it (no enumerable key, its own `constructor` and
 * `hasOwnProperty`; checked once per packed value), every for...in key is own and both tests pass unless
 * the object has an own `constructor` or `hasOwnProperty` key, so those two keys are watched for instead
 * of reading both properties of every object (two megamorphic loads): on one that could change what
 * msgpackr writes, the object is written again by msgpackr. The count is known at the end: one header
 * byte is kept, and the entries move when it takes the 16- or 32-bit form.
 */
function writeObject(o: Record<string, unknown>): void {
  room(1);
  // Relative to the value's start: a nested write may move the value to a bigger chunk.
  const headerAt = pos++ - start;
  let n = 0;
  if (standardPrototype) {
    for (const k in o) {
      const x = o[k];
      if ((k === 'constructor' && x !== Object) || (k === 'hasOwnProperty' && typeof x === 'function' && x !== OBJECT_HAS_OWN)) {
        pos = start + headerAt;
        return writeFallback(o);
      }
      if (x === undefined) continue;
      writeString(k, KEY_NATIVE_FROM);
      writeValue(x);
      n++;
    }
  } else {
    if (o.constructor !== Object) {
      pos = start + headerAt;
      return writeFallback(o);
    }
    for (const k in o) {
      if (typeof o.hasOwnProperty !== 'function' || o.hasOwnProperty(k)) {
        const x = o[k];
        if (x === undefined) continue;
        writeString(k, KEY_NATIVE_FROM);
        writeValue(x);
        n++;
      }
    }
  }
  if (n < 0x10) {
    chunk[start + headerAt] = 0x80 | n;
    return;
  }
  const extra = n < 0x10000 ? 2 : 4;
  room(extra);
  const at = start + headerAt;
  chunk.copyWithin(at + 1 + extra, at + 1, pos);
  pos += extra;
  putSize(at, n, 0xde);
}

function writeArray(a: unknown[]): void {
  const piece = pieces.get(a);
  if (piece !== undefined && standardPrototype) return writePiece(a, piece);
  writeElements(a);
}

function writeElements(a: unknown[]): void {
  const n = a.length;
  writeLength(n, 0x90, 0xdc);
  for (let i = 0; i < n; i++) writeValue(a[i]);
}

/**
 * Lists whose MessagePack bytes are kept once written (`shareEncoding`): a compiled variant's tool
 * schemas, written into every reset reply of the episodes drawn to it. A copy of such a list names the
 * same entry. Only while Object.prototype is standard (what the bytes were written under).
 */
const pieces = new WeakMap<object, { bytes: Uint8Array | null }>();

function writePiece(a: unknown[], piece: { bytes: Uint8Array | null }): void {
  const kept = piece.bytes;
  if (kept !== null) {
    room(kept.length);
    chunk.set(kept, pos);
    pos += kept.length;
    return;
  }
  // Written as any list, then kept: offsets from `start` survive a move to a bigger chunk (room).
  const from = pos - start;
  writeElements(a);
  piece.bytes = new Uint8Array(chunk.subarray(start + from, pos));
}

/**
 * Keep the MessagePack bytes of `list` once it is written, and write it from them afterwards; with
 * `copy`, write `copy` (a copy of `list`'s elements) from the same bytes. For lists that never change
 * and whose elements never change either: nothing checks that they do not. JSON is not affected.
 */
export function shareEncoding(list: readonly unknown[], copy?: readonly unknown[]): void {
  let piece = pieces.get(list);
  if (piece === undefined) {
    piece = { bytes: null };
    pieces.set(list, piece);
  }
  if (copy !== undefined) pieces.set(copy, piece);
}

function writeValue(v: unknown): void {
  switch (typeof v) {
    case 'string':
      return writeString(v, VALUE_NATIVE_FROM);
    case 'number':
      return writeNumber(v);
    case 'boolean':
      room(1);
      chunk[pos++] = v ? 0xc3 : 0xc2;
      return;
    case 'undefined':
      // An array element or a top-level undefined: msgpackr's fixext 1 of type 0 (object values are skipped).
      room(3);
      chunk[pos++] = 0xd4;
      chunk[pos++] = 0;
      chunk[pos++] = 0;
      return;
    case 'object': {
      if (v === null) {
        room(1);
        chunk[pos++] = 0xc0;
        return;
      }
      // What msgpackr writes as a map or an array without looking further (its constructor test), and
      // only plain objects of Object.prototype (int64Safe's walk, and the own-key shortcut above).
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto === Object.prototype) return writeObject(v as Record<string, unknown>);
      if (proto === Array.prototype && (v as { constructor?: unknown }).constructor === Array) return writeArray(v as unknown[]);
      return writeFallback(v);
    }
    default:
      return writeFallback(v);
  }
}

/** Pack one value into the current chunk; the view of its bytes. */
function writeMsgpack(value: unknown): Buffer {
  if (writing) {
    // Packing from inside a getter of the value being packed: msgpackr, on its own buffer.
    fallbackPackr ??= new Packr(PACK_OPTIONS);
    return Buffer.from(fallbackPackr.pack(int64Safe(value)));
  }
  if (chunk.length - pos < MIN_ROOM) {
    chunk = Buffer.allocUnsafeSlow(Math.max(MIN_CHUNK, chunk.length));
    view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    pos = 0;
  } else {
    pos = (pos + 7) & ~7; // word-aligned starts, as msgpackr's
  }
  start = pos;
  standardPrototype = Object.prototype.constructor === Object && Object.prototype.hasOwnProperty === OBJECT_HAS_OWN;
  for (const _ in Object.prototype) {
    standardPrototype = false;
    break;
  }
  writing = true;
  try {
    writeValue(value);
  } catch (e) {
    pos = start;
    throw e;
  } finally {
    writing = false;
  }
  return chunk.subarray(start, pos);
}

/** The scratch chunk of `writeMsgpackTransient`: written from its start each time, grown as needed. */
let scratch: Buffer | null = null;
let scratchView: DataView | null = null;

/**
 * Pack one value into a scratch chunk that the next call writes over: the view is valid only until then,
 * so the caller copies what it keeps (a worker copies each reply into the buffer it transfers). The bytes
 * are those `writeMsgpack` writes. Why: a reset reply is large and reserves room for its system prompt's
 * worst case (three bytes per UTF-16 unit), so a shared chunk that is never written over takes a fresh
 * buffer every few replies, each a new allocation whose pages are then faulted in (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
function writeMsgpackTransient(value: unknown): Buffer {
  if (writing) return writeMsgpack(value);
  const saved = { chunk, view, start, pos };
  if (scratch === null || scratchView === null) {
    scratch = Buffer.allocUnsafeSlow(MIN_CHUNK * 4);
    scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);
  }
  chunk = scratch;
  view = scratchView;
  pos = 0;
  try {
    const out = writeMsgpack(value);
    // A value bigger than the scratch chunk moved to a bigger one (room): keep that one for next time.
    scratch = chunk;
    scratchView = view;
    return out;
  } finally {
    ({ chunk, view, start, pos } = saved);
  }
}

/** The outcome of decoding one frame. */
export type Decoded = { ok: true; value: unknown } | { ok: false; message: string };

/** MessagePack with the settings above: one `Packr` and one `Unpackr`, reused. */
export class MsgpackCodec {
  readonly #unpackr = new Unpackr(UNPACK_OPTIONS);

  /**
   * Pack a value. The result is a view into a chunk shared with other packed values (never written over
   * once returned): copy it (`Buffer.from`) to keep it without keeping the chunk.
   */
  pack(value: unknown): Buffer {
    return writeMsgpack(value);
  }

  /**
   * Pack a value into a scratch buffer that the next `packTransient` (of any codec) writes over: copy the
   * view before packing again. The same bytes as `pack`.
   */
  packTransient(value: unknown): Buffer {
    return writeMsgpackTransient(value);
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

  /** `encode`, with MessagePack into the scratch buffer of `MsgpackCodec.packTransient` (copy it before the next call). */
  encodeTransient(value: unknown, binary: boolean): Buffer | string {
    return binary ? this.#msgpack.packTransient(value) : JSON.stringify(value);
  }
}
