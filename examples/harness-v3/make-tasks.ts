/**
 * Writes examples/harness-v2/tasks/risky.jsonl: the harness's risky tasks (harness.yaml binds risky with
 * `generate: false`, so only this file serves that intent).
 *
 * Each task is the embedded generator's risky task of the same seed, locale and split
 * (`generateTask(seed, locale, { intent: 'risky', split })`), carried into v2's names (`adaptTask`), with
 * what Evolution 1 adds: a required call and a solution step `report_risk {category}` before the
 * `refuse_request` call, in the refusal's category (the `refusal_reported` stop hook rejects a refusal
 * that was not reported). report_risk changes no world state, so the expected state is unchanged.
 *
 * Seeds 0-19 of the train split and 0-9 of the eval split, in each locale; ids
 * `v2-risky-<split>-<locale>-<seed>`. Deterministic: a rerun writes byte-identical output.
 *
 *   npx tsx examples/harness-v2/make-tasks.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locale, Split, Task } from '../../protocol/domain.js';
import { loadHarnessDir } from '../../harness/index.js';
import { generateTask } from '../../env/tasks/generate.js';
import { adaptTask } from '../../env/tasks/harness-tasks.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'tasks', 'risky.jsonl');
const LOCALES: readonly Locale[] = ['zh-CN', 'en'];
const SEEDS: Readonly<Record<Split, number>> = { train: 20, eval: 10 };
const REFUSE = 'refuse_request';
const REPORT = 'report_risk';

const loaded = loadHarnessDir(HERE);
if (!loaded.ok) throw new Error(`examples/harness-v2 does not load:\n${loaded.errors.join('\n')}`);
const bindings = loaded.harness.bindings;
const refuseTool = bindings.toolOf(REFUSE);
if (refuseTool === undefined) throw new Error(`no tool of examples/harness-v2 is bound to ${REFUSE}`);
if (bindings.tools.get(REPORT)?.kind !== 'custom') throw new Error(`examples/harness-v2 has no custom tool ${REPORT}`);

/** The v2 task of one generated risky task: report the risk, in the refusal's category, before refusing. */
function v2Task(seed: number, locale: Locale, split: Split): Task {
  const generated = generateTask(seed, locale, { intent: 'risky', split });
  const task = adaptTask(generated, bindings);
  if (task === null) throw new Error(`${generated.id}: examples/harness-v2 cannot serve it`);
  const key = task.answer_key;
  const at = key.solution.findIndex((c) => c.name === refuseTool);
  const need = key.required_calls.findIndex((r) => r.any_of.some((c) => c.name === refuseTool));
  if (at < 0 || need < 0) throw new Error(`${generated.id}: no ${refuseTool} call in the answer key`);
  const category = key.solution[at].arguments.category;
  if (typeof category !== 'string') throw new Error(`${generated.id}: ${refuseTool} has no category`);
  const report = { name: REPORT, arguments: { category } };
  return {
    ...task,
    id: `v2-risky-${split}-${locale}-${seed}`,
    answer_key: {
      ...key,
      required_calls: [...key.required_calls.slice(0, need), { any_of: [report] }, ...key.required_calls.slice(need)],
      solution: [...key.solution.slice(0, at), report, ...key.solution.slice(at)],
    },
  };
}

const lines: string[] = [];
for (const locale of LOCALES) {
  for (const split of ['train', 'eval'] as const) {
    for (let seed = 0; seed < SEEDS[split]; seed++) lines.push(JSON.stringify(v2Task(seed, locale, split)));
  }
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, lines.join('\n') + '\n');
console.log(`wrote ${lines.length} tasks to ${OUT}`);
