/**
 * A task against the harness it is played in (docs/HARNESS.md "Task files"): the skills and tools its answer
 * key names must be the harness's, and its reference reply must fit the harness's reply limit. One check for
 * task files and for the tasks of a harness's own intents (env/tasks/custom-intents.ts).
 */
import type { Harness } from '../../protocol/harness.js';
import type { Task } from '../../protocol/domain.js';
import { charLength } from '../../protocol/text.js';
import { checkCustomState, harnessSetOf } from '../../harness/index.js';

/** The task's problems against the harness, each `key: what` (empty: none). */
export function harnessTaskProblems(task: Task, harness: Harness): string[] {
  const out: string[] = [];
  const skills = new Map(harness.skills.map((sk) => [sk.name, sk.kind]));
  const tools = new Set(harness.tools.map((t) => t.function.name));
  const key = task.answer_key;
  key.reply_skills.forEach((name, i) => {
    if (skills.get(name) !== 'reply') out.push(`answer_key.reply_skills.${i}: "${name}" is not a reply skill of the harness`);
  });
  key.strategy_skills.forEach((name, i) => {
    if (!skills.has(name)) out.push(`answer_key.strategy_skills.${i}: "${name}" is not a skill of the harness`);
  });
  const calls: [string, string][] = [
    ...key.required_calls.flatMap((r, i) =>
      r.any_of.map((c, j): [string, string] => [`answer_key.required_calls.${i}.any_of.${j}.name`, c.name]),
    ),
    ...key.solution.map((c, i): [string, string] => [`answer_key.solution.${i}.name`, c.name]),
    ...key.optional_tools.map((n, i): [string, string] => [`answer_key.optional_tools.${i}`, n]),
  ];
  for (const [where, name] of calls) if (!tools.has(name)) out.push(`${where}: "${name}" is not a tool of the harness`);
  out.push(...customStateProblems(key, harness));
  if (charLength(key.reference_reply) > harness.limits.reply_max_chars) {
    out.push(
      `answer_key.reference_reply: ${charLength(key.reference_reply)} characters, over the harness's reply limit (${harness.limits.reply_max_chars})`,
    );
  }
  return out;
}

/**
 * What is wrong with an answer key's custom states (`expected_state.custom`, `optional_state.custom`)
 * against the harness: each must name a stateful service of it (`services/<module>.mjs` exporting
 * `initial_state`) and be a JSON state within its limits. Each problem as `key: what`.
 */
export function customStateProblems(key: Task['answer_key'], harness: Harness): string[] {
  const out: string[] = [];
  const services = harnessSetOf(harness).services;
  const stateful = [...services.values()].filter((s) => s.stateful).map((s) => s.name);
  for (const [field, state] of [['expected_state', key.expected_state], ['optional_state', key.optional_state]] as const) {
    const custom = state?.custom;
    if (custom === undefined) continue;
    for (const [module, value] of Object.entries(custom)) {
      const at = `answer_key.${field}.custom.${module}`;
      const service = services.get(module);
      if (service === undefined || !service.stateful) {
        const why = service === undefined ? 'no service of the harness is named so' : `services/${module}.mjs exports no initial_state (it is read-only)`;
        out.push(`${at}: "${module}" is not a stateful service of the harness: ${why} (stateful: ${stateful.length > 0 ? stateful.join(', ') : 'none'})`);
        continue;
      }
      const checked = checkCustomState(value);
      if (!checked.ok) out.push(`${at}: ${checked.message}`);
    }
  }
  return out;
}
