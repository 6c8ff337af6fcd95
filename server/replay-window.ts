/**
 * The replay window of a session (docs/PROTOCOL.md "Sessions"): the replies to its last
 * `limits.replay_window` requests, each with the request it answered. After a resume, a request with an
 * answered `id` *and the same content* is a re-send and gets the stored reply instead of being applied
 * again; a request that reuses an answered id with other content (a client that restarted its id counter
 * on the new connection) is a new request, applied, and its reply replaces the stored one.
 *
 * Content: the request's frame bytes are kept beside the reply. A re-send is nearly always the same
 * bytes (a client re-sends what it sent), so the check is a byte comparison; only when the bytes differ
 * are both decoded and compared in canonical form (`stableJson`: key order and encoding do not matter, so
 * a request sent as JSON and re-sent as MessagePack is the same request). Hashing every request's
 * canonical form instead cost more than a tenth of a step (figures: bench/RESULTS.md "Design measurements cited by the code"), for a check that runs only after a
 * resume; the kept bytes are a fraction of the stored reply's.
 */
import type { RequestId } from '../protocol/wire.js';
import { stableJson } from '../protocol/stable-json.js';

/** A stored reply (its bytes in the encoding it went out in) and the request it answered. */
export interface StoredReply {
  bytes: Buffer | string;
  binary: boolean;
  /** The request's frame as received, and whether it was binary. */
  request: Buffer;
  requestBinary: boolean;
}

/** A request as it arrived: frame bytes, frame kind, and the decoded map. */
export interface ArrivedRequest {
  frame: Buffer;
  binary: boolean;
  value: unknown;
}

/** Replay-window key: `1` and `"1"` are different ids. */
function idKey(id: RequestId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

/** A buffer that owns exactly its bytes (a view would keep its whole backing buffer alive). */
function owned(b: Buffer): Buffer {
  return b.byteLength < b.buffer.byteLength ? Buffer.from(b) : b;
}

/** The last `size` replies of a session, by request id, oldest out. */
export class ReplayWindow {
  readonly #size: number;
  readonly #decode: (frame: Buffer, binary: boolean) => unknown;
  readonly #replies = new Map<string, StoredReply>();

  /** `decode` reads a stored request frame back (only when a re-send's bytes differ from it). */
  constructor(size: number, decode: (frame: Buffer, binary: boolean) => unknown) {
    this.#size = size;
    this.#decode = decode;
  }

  get enabled(): boolean {
    return this.#size > 0;
  }

  /** The stored reply to this exact request (same id, same content), if any. */
  resent(id: RequestId, req: ArrivedRequest): StoredReply | undefined {
    const stored = this.#replies.get(idKey(id));
    if (stored === undefined) return undefined;
    if (stored.requestBinary === req.binary && stored.request.equals(req.frame)) return stored;
    return stableJson(this.#decode(stored.request, stored.requestBinary)) === stableJson(req.value) ? stored : undefined;
  }

  /** Store a reply to a request, replacing any earlier one of the same id (it becomes the newest). */
  remember(id: RequestId, req: ArrivedRequest, reply: { bytes: Buffer | string; binary: boolean }): void {
    if (this.#size === 0) return;
    const key = idKey(id);
    this.#replies.delete(key);
    // The encoder hands out views into its own large, reused buffer, and ws frames may be views into a
    // read buffer: stored bytes own exactly their bytes.
    const bytes = typeof reply.bytes === 'string' ? reply.bytes : owned(reply.bytes);
    this.#replies.set(key, { bytes, binary: reply.binary, request: owned(req.frame), requestBinary: req.binary });
    while (this.#replies.size > this.#size) this.#replies.delete(this.#replies.keys().next().value as string);
  }

  clear(): void {
    this.#replies.clear();
  }
}
