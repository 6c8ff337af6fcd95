/**
 * The order an episode worker starts the requests it holds (server/start-queue.ts): with `steps_first`,
 * the steps among requests taken in together start before the resets and the rest, a step that arrives
 * while others are held overtakes the held resets (at most MAX_OVERTAKES times in a row), a job that awaits
 * holds nothing back, and results and errors reach their callers; with `arrival`, each starts as it comes,
 * as before the queue.
 */
import { describe, it, expect } from 'vitest';
import { MAX_OVERTAKES, StartQueue } from '../../server/start-queue.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A job that notes its start and finishes at once with its name. */
function job(started: string[], name: string): () => Promise<string> {
  return async () => {
    started.push(name);
    return name;
  };
}

describe('StartQueue', () => {
  it('steps_first: of the jobs taken in together, the steps start first, each line in arrival order', async () => {
    const q = new StartQueue('steps_first');
    const started: string[] = [];
    const results = Promise.all([
      q.run(false, job(started, 'reset-a')),
      q.run(true, job(started, 'step-1')),
      q.run(false, job(started, 'close-b')),
      q.run(false, job(started, 'reset-c')),
      q.run(true, job(started, 'step-2')),
    ]);
    // Nothing starts in the turn that took the jobs in.
    expect(started).toEqual([]);
    expect(q.held).toBe(5);
    expect(await results).toEqual(['reset-a', 'step-1', 'close-b', 'reset-c', 'step-2']);
    expect(started).toEqual(['step-1', 'step-2', 'reset-a', 'close-b', 'reset-c']);
    expect(q.held).toBe(0);
  });

  it('steps_first: a step taken in while resets are held starts before them', async () => {
    const q = new StartQueue('steps_first');
    const started: string[] = [];
    const all = [q.run(false, job(started, 'reset-1')), q.run(false, job(started, 'reset-2')), q.run(false, job(started, 'reset-3'))];
    // The first reset starts on the next turn of the loop; the step arrives in the turn after it.
    await turn();
    expect(started).toEqual(['reset-1']);
    all.push(q.run(true, job(started, 'step')));
    await Promise.all(all);
    expect(started).toEqual(['reset-1', 'step', 'reset-2', 'reset-3']);
  });

  it('steps_first: steps overtake a held reset at most MAX_OVERTAKES times in a row', async () => {
    const q = new StartQueue('steps_first');
    const started: string[] = [];
    const all = [q.run(false, job(started, 'reset-1')), q.run(false, job(started, 'reset-2'))];
    for (let i = 0; i < 2 * MAX_OVERTAKES + 3; i++) all.push(q.run(true, job(started, `step-${i}`)));
    await Promise.all(all);
    const steps = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `step-${from + i}`);
    expect(started).toEqual([
      ...steps(0, MAX_OVERTAKES),
      'reset-1',
      ...steps(MAX_OVERTAKES, 2 * MAX_OVERTAKES),
      'reset-2',
      ...steps(2 * MAX_OVERTAKES, 2 * MAX_OVERTAKES + 3),
    ]);
  });

  it('steps_first: a job that awaits does not hold the next one back', async () => {
    const q = new StartQueue('steps_first');
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = q.run(true, async () => {
      started.push('judge');
      await gate; // an LLM judge's network call
      started.push('judge done');
      return 'judged';
    });
    const fast = q.run(false, job(started, 'reset'));
    expect(await fast).toBe('reset');
    expect(started).toEqual(['judge', 'reset']);
    release();
    expect(await slow).toBe('judged');
    expect(started).toEqual(['judge', 'reset', 'judge done']);
  });

  it('passes errors, thrown or rejected, to their callers and goes on', async () => {
    const q = new StartQueue('steps_first');
    const threw = q.run(true, () => {
      throw new Error('thrown');
    });
    const rejected = q.run(false, () => Promise.reject(new Error('rejected')));
    const fine = q.run(false, async () => 7);
    await expect(threw).rejects.toThrow('thrown');
    await expect(rejected).rejects.toThrow('rejected');
    expect(await fine).toBe(7);
  });

  it('whenIdle resolves once every held job has started', async () => {
    const q = new StartQueue('steps_first');
    await q.whenIdle();
    const started: string[] = [];
    const jobs = [q.run(false, job(started, 'a')), q.run(false, job(started, 'b')), q.run(true, job(started, 'c'))];
    await q.whenIdle();
    expect([...started].sort()).toEqual(['a', 'b', 'c']);
    expect(q.held).toBe(0);
    await Promise.all(jobs);
  });

  it('arrival: each job starts as it is taken in, in order', async () => {
    const q = new StartQueue('arrival');
    const started: string[] = [];
    const results = Promise.all([
      q.run(false, job(started, 'reset')),
      q.run(true, job(started, 'step')),
      q.run(false, job(started, 'close')),
    ]);
    expect(started).toEqual(['reset', 'step', 'close']);
    expect(q.held).toBe(0);
    expect(await results).toEqual(['reset', 'step', 'close']);
  });
});
