import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRemote } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { VARIANT_PRESETS } from '../../env/index.js';
import type { EvalOptions } from '../../eval/index.js';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

// The memorizer joins when policies/ exports it; the oracle and random are always there.
const NAMES = ['oracle', 'memorizer', 'random'].filter((n) => POLICIES.has(n));

describe('evaluateRemote equals the in-process evaluate', () => {
  for (const encoding of ['msgpack', 'json'] as const) {
    for (const name of NAMES) {
      it(`${name} over ${encoding}: 60 episodes, the whole summary and its JSON`, async () => {
        const opts: EvalOptions = { policy: POLICIES.get(name)!, episodes: 60, seed: 5, variant: 'identity' };
        const local = evaluate(opts);
        // A batch of 16 makes slots refill many times (episodes of different lengths interleave).
        const remote = await evaluateRemote({ ...opts, url: srv.url, encoding, batch: 16 });
        expect(remote).toEqual(local);
        expect(JSON.stringify(remote)).toBe(JSON.stringify(local));
        expect(remote.episodes).toBe(60);
      });
    }
  }

  it('with options: English, the hermes parser, injected faults, one intent, a seed that wraps past 2^32', async () => {
    for (const extra of [{ locale: 'en' as const, parser: 'hermes' }, { faults: 0.3 }, { intent: 'after_sales', seed: 4294967290 }]) {
      for (const name of ['oracle', 'random']) {
        const opts: EvalOptions = { policy: POLICIES.get(name)!, episodes: 20, seed: 9, variant: 'identity', ...extra };
        const remote = await evaluateRemote({ ...opts, url: srv.url });
        expect(JSON.stringify(remote), `${name} ${JSON.stringify(extra)}`).toBe(JSON.stringify(evaluate(opts)));
      }
    }
  });

  it('under augmented presets: the oracle keeps its score, the memorizer drops, both equal in-process', async () => {
    const presets = VARIANT_PRESETS.filter((v) => v !== 'identity');
    expect(presets.length).toBeGreaterThan(0);
    for (const variant of presets) {
      for (const name of ['oracle', 'memorizer'].filter((n) => POLICIES.has(n))) {
        const opts: EvalOptions = { policy: POLICIES.get(name)!, episodes: 30, seed: 2, variant };
        const remote = await evaluateRemote({ ...opts, url: srv.url, encoding: 'json' });
        expect(JSON.stringify(remote), `${name} on ${variant}`).toBe(JSON.stringify(evaluate(opts)));
        const identity = evaluate({ ...opts, variant: 'identity' });
        if (name === 'oracle') expect(remote.reward).toEqual(identity.reward);
        else expect(remote.reward.mean).toBeLessThan(identity.reward.mean);
      }
    }
  });

  it('the oracle really solves the tasks remotely (the comparison is not between two empty runs)', async () => {
    const s = await evaluateRemote({ policy: POLICIES.get('oracle')!, episodes: 30, seed: 1, variant: 'identity', url: srv.url });
    expect(s.reward).toEqual({ mean: 1, p10: 1, p50: 1 });
    expect(Object.values(s.outcomes).reduce((a, b) => a + b, 0)).toBe(30);
  });
});
