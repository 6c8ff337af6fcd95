import { describe, it, expect } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import type { Episode } from '../../env/index.js';
import { WORLD_CACHE_SIZE, worldFor } from '../../mock-services/index.js';
import type { World } from '../../mock-services/index.js';

// A full GC on demand, without starting the test worker with --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const nextJob = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const config = defaultEnvConfig();
function episode(): Episode {
  const created = createEpisode(config, { episode_id: 'w', seed: 77, variant: 'identity' });
  if (!created.ok) throw new Error(created.error.message);
  return created.episode;
}
const getProduct = {
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_product', arguments: JSON.stringify({ link_no: 1 }) } }],
  },
};

describe('an episode does not pin its world', () => {
  it('lets the world be collected and regenerates the same one on demand', async () => {
    const ep = episode();
    ep.reset();
    const json = JSON.stringify(ep.world);

    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    ((w: World) => registry.register(w, 'world'))(ep.world);
    // Evict it from the world cache, then collect in a later job (a WeakRef target lives to the end of one).
    for (let s = 0; s < WORLD_CACHE_SIZE + 10; s++) worldFor(1_000_000 + s, ep.params.task.locale);
    for (let i = 0; i < 10 && !collected; i++) {
      await nextJob();
      gc();
      await nextJob();
    }
    expect(collected).toBe(true);

    // Regenerated: the same world, and the episode steps exactly as a twin that never lost it.
    expect(JSON.stringify(ep.world)).toBe(json);
    const twin = episode();
    twin.reset();
    expect(JSON.stringify(ep.step(getProduct))).toBe(JSON.stringify(twin.step(getProduct)));
  });
});

describe('an episode does not pin its system prompt', () => {
  it('lets the rendered prompt be collected and renders the same one for a full observation', async () => {
    const make = (): Episode => {
      const created = createEpisode(config, { episode_id: 's', seed: 78, variant: 'train', options: { observation: 'full' } });
      if (!created.ok) throw new Error(created.error.message);
      return created.episode;
    };
    const ep = make();
    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    const resetJson = ((): string => {
      const { observation } = ep.reset();
      registry.register(observation.messages[0], 'system');
      return JSON.stringify(observation);
    })();
    for (let i = 0; i < 10 && !collected; i++) {
      await nextJob();
      gc();
      await nextJob();
    }
    expect(collected).toBe(true);

    // Rendered again: the same system message, and the same full observations as a twin that kept it.
    const twin = make();
    const twinReset = twin.reset();
    expect(JSON.stringify(twinReset)).toContain(JSON.stringify(ep.messages[0]));
    expect(resetJson).toBe(JSON.stringify(twinReset.observation));
    const [a, b] = [ep.step(getProduct), twin.step(getProduct)];
    expect(a.ok && a.observation.messages[0]).toEqual({ role: 'system', content: expect.any(String) });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(ep.messages).toEqual(twin.messages);
  });
});
