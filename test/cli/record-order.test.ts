/**
 * `InOrderRecorder` (cli/record-order.ts): finished tapes reach the writer in the order their episodes
 * began, whatever order they end in; a tape that never ends (an episode stopped by the step guard) holds
 * the later ones back only until `close`.
 */
import { describe, expect, it } from 'vitest';
import type { Episode } from '../../env/index.js';
import type { EpisodeTape, RecordStart } from '../../recording/index.js';
import { InOrderRecorder } from '../../cli/record-order.js';
import type { ClosableRecorder } from '../../cli/record-order.js';

/** A recorder that keeps the seeds of the tapes it is handed; seeds divisible by `skip` are not sampled. */
function fake(skip = 0): ClosableRecorder & { written: number[]; closed: boolean } {
  const r = {
    written: [] as number[],
    closed: false,
    get recorded() {
      return r.written.length;
    },
    begin(start: RecordStart): EpisodeTape | null {
      return skip > 0 && start.seed % skip === 0 ? null : ({ start } as unknown as EpisodeTape);
    },
    end(tape: EpisodeTape) {
      r.written.push(tape.start.seed);
    },
    async close() {
      r.closed = true;
    },
  };
  return r;
}

const begin = (rec: InOrderRecorder, seed: number) =>
  rec.begin({ seed, variant: { given: 'identity', spec: null, preset: 'identity' }, variant_seed: seed, options: {} }, {} as Episode, { observation: null, info: {} });

describe('InOrderRecorder', () => {
  it('writes in begin order, as soon as every earlier episode has ended; unsampled episodes hold nothing back', async () => {
    const inner = fake(3);
    const rec = new InOrderRecorder(inner);
    const tapes = [1, 2, 3, 4, 5].map((s) => begin(rec, s));
    expect(tapes[2]).toBeNull(); // seed 3 is not sampled
    rec.end(tapes[3] as EpisodeTape); // 4 ends first: waits for 1 and 2
    rec.end(tapes[1] as EpisodeTape);
    expect(inner.written).toEqual([]);
    rec.end(tapes[0] as EpisodeTape);
    expect(inner.written).toEqual([1, 2, 4]);
    rec.end(tapes[4] as EpisodeTape);
    expect(inner.written).toEqual([1, 2, 4, 5]);
    expect(rec.recorded).toBe(4);
    await rec.close();
    expect(inner.closed).toBe(true);
  });

  it('a tape never ended holds the later ones back until close, which writes them in order', async () => {
    const inner = fake();
    const rec = new InOrderRecorder(inner);
    const tapes = [10, 11, 12, 13].map((s) => begin(rec, s)) as EpisodeTape[];
    rec.end(tapes[0]);
    rec.end(tapes[3]);
    rec.end(tapes[2]); // tapes[1] never ends
    expect(inner.written).toEqual([10]);
    await rec.close();
    expect(inner.written).toEqual([10, 12, 13]);
  });
});
