/**
 * `replay` of records made with another harness (issue 41, the daily loop): the refusal is said once per
 * file, not once per episode marked DIVERGED, and the exit line says why.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedHarness, loadHarnessDir } from '../../harness/index.js';
import { EXIT } from '../../cli/errors.js';
import { cli, expectFailure, tempDir } from './helpers.js';

describe('replay without the harness the records were made with', () => {
  it('prints one refusal line per file, then the summary', async () => {
    const dir = tempDir('hg-replay-refusal-');
    const made = await cli(['eval', '--harness', 'examples/harness-v2', '--policy', 'oracle', '--episodes', '12', '--seed', '3', '--record', dir, '--json']);
    expect(made.status).toBe(0);
    const [file] = readdirSync(dir).filter((n) => n.endsWith('.hgrec'));
    const v2 = loadHarnessDir('examples/harness-v2');
    if (!v2.ok) throw new Error('examples/harness-v2 loads');
    const why =
      `cannot rebuild the episode: the record was made with harness "live-commerce" 2.0.0 (${v2.harness.identity.hash}), ` +
      `this replay has "live-commerce" 1.0.0 (${embeddedHarness().identity.hash}); give that harness's directory with --harness DIR`;
    const r = await cli(['replay', dir]);
    expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual([
      `${join(dir, file)}: 12 episodes (eval-3, …) not replayed: ${why}`,
      'replayed 12 episodes: 0 identical, 12 diverged',
    ]);
    expect(expectFailure(r, EXIT.verdict, 'replay')).toBe(`harness-gym replay: 12 of 12 episodes diverged (first: eval-3); ${why}`);
  }, 60_000);
});
