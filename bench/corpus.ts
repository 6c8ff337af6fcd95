/**
 * The echo baseline's corpus: every step reply item the environment server sent during the throughput
 * phase, keyed by (episode_id, step number within the episode's current reset, from 1). The echo server
 * answers the re-sent request frames from it, so its replies carry the very bytes the environment's did.
 *
 * File format: one MessagePack array of `[episode_id, step, item]` triples (plain maps, the server
 * codec's settings, so re-encoding a decoded item gives the bytes the server wrote).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MsgpackCodec } from '../protocol/codec.js';

/** The lookup key of one reply item. */
export function corpusKey(episode_id: string, step: number): string {
  return `${episode_id}\u0000${step}`;
}

/** Step reply items by (episode_id, step). */
export class Corpus {
  readonly items = new Map<string, unknown>();

  /** Keep a reply item; a cycled round re-records the same key with the same item, the first one stays. */
  record(episode_id: string, step: number, item: unknown): void {
    const key = corpusKey(episode_id, step);
    if (!this.items.has(key)) this.items.set(key, item);
  }

  get size(): number {
    return this.items.size;
  }

  /**
   * Whether `other` holds the same items under the same keys, compared as encoded bytes. The echo run
   * records what it received, so this checks its replies item by item whatever order frames came back in
   * (replies on one connection may overtake each other, which changes how later frames are batched).
   */
  sameAs(other: Corpus): boolean {
    if (other.size !== this.size) return false;
    const packr = new MsgpackCodec();
    for (const [key, item] of this.items) {
      if (!other.items.has(key)) return false;
      if (!packr.pack(item).equals(packr.pack(other.items.get(key)))) return false;
    }
    return true;
  }

  /** Write the corpus file. */
  write(path: string): void {
    const triples: unknown[] = [];
    for (const [key, item] of this.items) {
      const sep = key.lastIndexOf('\u0000');
      triples.push([key.slice(0, sep), Number(key.slice(sep + 1)), item]);
    }
    writeFileSync(path, new MsgpackCodec().pack(triples));
  }

  /** Read a corpus file. */
  static read(path: string): Corpus {
    const triples = new MsgpackCodec().unpack(readFileSync(path)) as [string, number, unknown][];
    const c = new Corpus();
    for (const [eid, step, item] of triples) c.record(eid, step, item);
    return c;
  }
}
