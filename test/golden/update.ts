/**
 * Regenerate the golden digest: `npm run golden:update`; with `-- --corpus`, re-record the corpus too
 * (needed only when recorded episodes no longer replay: a change of outputs, or of the record format).
 * Only for a change that means to alter replies or records, in its own commit that says why (README
 * "Golden digest").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, writeCorpus } from './corpus.js';
import { GOLDEN_SESSIONS, runGolden } from './script.js';

const sessions: Record<string, string[]> = {};
for (const s of GOLDEN_SESSIONS) sessions[s.name] = (await runGolden(s)).frames;
const file = join(import.meta.dirname, 'digest.json');
writeFileSync(file, JSON.stringify({ note: 'sha256 of every reply frame of test/golden/script.ts; regenerate with npm run golden:update', sessions }, null, 1) + '\n');
const corpus = process.argv.includes('--corpus');
if (corpus) await writeCorpus();
process.stdout.write(`wrote ${file} (${Object.values(sessions).flat().length} frames)${corpus ? ` and ${CORPUS_DIR}` : ''}\n`);
