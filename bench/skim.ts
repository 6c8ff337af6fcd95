/**
 * A MessagePack reader for the load client of the live phases: it decodes a reply frame as msgpackr does
 * with the wire codec's options (`UNPACK_OPTIONS`: maps as plain objects, 64-bit integers as numbers when
 * safe, else BigInt), except that the value of a map key it is told to skip is stepped over, byte by byte,
 * without being built, and stands as `{ skipped_bytes: n }`.
 *
 * Why: the live phases read a reply's ids, `ok`, errors, `terminated` / `truncated` and
 * `info.oracle_action`, never an observation, and an observation is most of what a reply costs to decode.
 * Most of a `train` reset reply is its system prompt (Chinese text, slow to turn into a JavaScript
 * string) and its tool list (many small objects), and the load client shares the machine's cores with the
 * server under test, so decoding whole replies took a visible share of a core at high live counts (figures: bench/RESULTS.md "Design measurements cited by the code").
 * Stepping over a value reads only its headers. No library offers a skip (msgpackr and @msgpack/msgpack decode whole values), and the
 * format is small; the tests compare this reader with msgpackr over generated values and real replies.
 *
 * Extension types (msgpackr's records, timestamps) and the never-used 0xc1 throw: the server sends none.
 */

/** The value that stands for a skipped one. */
export interface Skipped {
  skipped_bytes: number;
}

const TEXT = new TextDecoder('utf-8');

class Reader {
  pos = 0;
  readonly #buf: Uint8Array;
  readonly #view: DataView;
  readonly #skip: ReadonlySet<string>;

  constructor(buf: Uint8Array, skip: ReadonlySet<string>) {
    this.#buf = buf;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.#skip = skip;
  }

  #need(n: number): void {
    if (this.pos + n > this.#buf.length) throw new RangeError('MessagePack: unexpected end of buffer');
  }

  #u8(): number {
    this.#need(1);
    return this.#buf[this.pos++] as number;
  }

  #u16(): number {
    this.#need(2);
    const v = this.#view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  #u32(): number {
    this.#need(4);
    const v = this.#view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  #str(n: number): string {
    this.#need(n);
    const b = this.#buf;
    const start = this.pos;
    this.pos += n;
    if (n < 24) {
      // Short strings (keys, codes, ids) are ASCII almost always: no decoder call for them.
      let s = '';
      for (let i = start; i < start + n; i++) {
        const c = b[i] as number;
        if (c >= 0x80) return TEXT.decode(b.subarray(start, start + n));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return TEXT.decode(b.subarray(start, start + n));
  }

  #bin(n: number): Uint8Array {
    this.#need(n);
    // A copy, as msgpackr returns (its Buffer does not keep the frame alive).
    const out = Buffer.from(this.#buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  #int64(signed: boolean): number | bigint {
    this.#need(8);
    const v = signed ? this.#view.getBigInt64(this.pos) : this.#view.getBigUint64(this.pos);
    this.pos += 8;
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }

  #map(n: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const key = this.read();
      // As msgpackr does: a `__proto__` key is renamed, never a prototype set.
      let k = typeof key === 'string' ? key : String(key);
      if (k === '__proto__') k = '__proto_';
      if (this.#skip.has(k)) {
        const from = this.pos;
        this.skip();
        out[k] = { skipped_bytes: this.pos - from } satisfies Skipped;
      } else {
        out[k] = this.read();
      }
    }
    return out;
  }

  #array(n: number): unknown[] {
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = this.read();
    return out;
  }

  /** Decode the value at `pos`. */
  read(): unknown {
    const t = this.#u8();
    if (t < 0x80) return t;
    if (t < 0x90) return this.#map(t & 0x0f);
    if (t < 0xa0) return this.#array(t & 0x0f);
    if (t < 0xc0) return this.#str(t & 0x1f);
    if (t >= 0xe0) return t - 0x100;
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.#bin(this.#u8());
      case 0xc5:
        return this.#bin(this.#u16());
      case 0xc6:
        return this.#bin(this.#u32());
      case 0xca: {
        this.#need(4);
        const v = this.#view.getFloat32(this.pos);
        this.pos += 4;
        return v;
      }
      case 0xcb: {
        this.#need(8);
        const v = this.#view.getFloat64(this.pos);
        this.pos += 8;
        return v;
      }
      case 0xcc:
        return this.#u8();
      case 0xcd:
        return this.#u16();
      case 0xce:
        return this.#u32();
      case 0xcf:
        return this.#int64(false);
      case 0xd0: {
        const v = this.#u8();
        return v < 0x80 ? v : v - 0x100;
      }
      case 0xd1: {
        const v = this.#u16();
        return v < 0x8000 ? v : v - 0x10000;
      }
      case 0xd2: {
        this.#need(4);
        const v = this.#view.getInt32(this.pos);
        this.pos += 4;
        return v;
      }
      case 0xd3:
        return this.#int64(true);
      case 0xd9:
        return this.#str(this.#u8());
      case 0xda:
        return this.#str(this.#u16());
      case 0xdb:
        return this.#str(this.#u32());
      case 0xdc:
        return this.#array(this.#u16());
      case 0xdd:
        return this.#array(this.#u32());
      case 0xde:
        return this.#map(this.#u16());
      case 0xdf:
        return this.#map(this.#u32());
      default:
        throw new TypeError(`MessagePack: unsupported type 0x${t.toString(16)} at byte ${this.pos - 1}`);
    }
  }

  /** Step over the value at `pos` without building it. */
  skip(): void {
    // Values still to step over: an array or map header adds its elements (a map two per entry).
    let left = 1;
    while (left > 0) {
      left--;
      const t = this.#u8();
      let n = 0;
      if (t < 0x80 || t >= 0xe0) continue;
      if (t < 0x90) {
        left += 2 * (t & 0x0f);
        continue;
      }
      if (t < 0xa0) {
        left += t & 0x0f;
        continue;
      }
      if (t < 0xc0) n = t & 0x1f;
      else
        switch (t) {
          case 0xc0:
          case 0xc2:
          case 0xc3:
            continue;
          case 0xc4:
          case 0xd9:
            n = this.#u8();
            break;
          case 0xc5:
          case 0xda:
            n = this.#u16();
            break;
          case 0xc6:
          case 0xdb:
            n = this.#u32();
            break;
          case 0xcc:
          case 0xd0:
            n = 1;
            break;
          case 0xcd:
          case 0xd1:
            n = 2;
            break;
          case 0xca:
          case 0xce:
          case 0xd2:
            n = 4;
            break;
          case 0xcb:
          case 0xcf:
          case 0xd3:
            n = 8;
            break;
          case 0xdc:
            left += this.#u16();
            continue;
          case 0xdd:
            left += this.#u32();
            continue;
          case 0xde:
            left += 2 * this.#u16();
            continue;
          case 0xdf:
            left += 2 * this.#u32();
            continue;
          default:
            throw new TypeError(`MessagePack: unsupported type 0x${t.toString(16)} at byte ${this.pos - 1}`);
        }
      this.#need(n);
      this.pos += n;
    }
  }
}

/**
 * Decode one MessagePack value, stepping over the value of every map key in `skip` (at any depth). Throws
 * on bytes that are not one whole MessagePack value of the supported types.
 */
export function skimMsgpack(buf: Uint8Array, skip: ReadonlySet<string>): unknown {
  const r = new Reader(buf, skip);
  const v = r.read();
  if (r.pos !== buf.length) throw new RangeError(`MessagePack: ${buf.length - r.pos} bytes after the value`);
  return v;
}
