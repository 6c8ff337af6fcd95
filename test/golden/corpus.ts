/**
 * The golden corpus: a small set of recorded episodes, made once and checked into
 * `test/golden/corpus/`, that every later version must replay bit for bit (`harness-gym replay`). It
 * covers the in-process path (`eval --record`: every preset x reference policy x locale, with faults)
 * and the server's own path (the golden server sessions, recorded by `serve --record`: GRPO groups,
 * oracle hints, parsers, VariantSpecs).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaultEnvConfig } from '../../env/index.js';
import { POLICIES } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { Recorder } from '../../recording/index.js';
import type { Locale } from '../../protocol/domain.js';
import { GOLDEN_SESSIONS, runGolden } from './script.js';

export const CORPUS_DIR = join(import.meta.dirname, 'corpus');

/** Episodes per (preset, policy, locale) in the in-process part. */
const PER_CELL = 2;

/** Write the corpus afresh (test/golden/update.ts). */
export async function writeCorpus(dir = CORPUS_DIR): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const env = defaultEnvConfig();
  for (const variant of ['identity', 'train', 'eval']) {
    for (const name of ['oracle', 'memorizer', 'random']) {
      for (const locale of ['zh-CN', 'en'] as Locale[]) {
        const policy = POLICIES.get(name);
        if (policy === undefined) throw new Error(`no policy ${name}`);
        const recorder = new Recorder({
          dir,
          sample: 1,
          stem: `eval-${variant}-${name}-${locale}`,
          created_by: 'eval',
          env: { limits: env.limits, defaults: env.defaults },
          onError: (e) => {
            throw e;
          },
        });
        evaluate({ recorder, policy, episodes: PER_CELL, seed: 5000, variant, locale, faults: 0.15 });
        await recorder.close();
      }
    }
  }
  for (const s of GOLDEN_SESSIONS.filter((g) => g.name === 'oracle-msgpack' || g.name === 'groups-mixed' || g.name === 'naive-json')) {
    await runGolden(s, { record: { dir } });
  }
}
