/**
 * skill_selection (tool segment): were the reply skills the task needs loaded before the final reply,
 * and nothing else? Every skill the task does not need costs: a reply skill of another intent most, a
 * strategy skill the task does not list or a decoy less (loading every skill to be safe is not
 * selection); loading one skill twice is a mild waste.
 */
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { clamp01, numParam, numericParamsChecker } from '../common.js';
import type { RewardModule } from '../types.js';

/** Default parameters of `skill_selection`. */
export const SKILL_SELECTION_DEFAULTS = {
  /** Value lost per distinct reply skill loaded that the task does not need. */
  unneeded_penalty: 0.25,
  /** Value lost per distinct other skill (an unlisted strategy skill, a decoy) the task does not need. */
  unneeded_other_penalty: 0.15,
  /** Value lost per repeated load of an already loaded skill. */
  repeat_penalty: 0.1,
} as const;

function scoreSkillSelection(trace: Trace, task: Task, params: Readonly<Record<string, unknown>>): RewardDetail {
  const p = (k: keyof typeof SKILL_SELECTION_DEFAULTS): number => numParam(params, k, SKILL_SELECTION_DEFAULTS[k]);
  const required = task.answer_key.reply_skills;
  // A final reply ends the episode and carries no calls, so every recorded load precedes it.
  const loaded = trace.loaded_skills;
  const loadedSet = new Set(loaded);
  const reasons: string[] = [];

  const missing = required.filter((s) => !loadedSet.has(s));
  const requiredFrac = required.length === 0 ? 1 : (required.length - missing.length) / required.length;
  reasons.push(`required reply skills: ${required.length - missing.length}/${required.length} loaded`);
  for (const s of missing) reasons.push(`required reply skill not loaded: ${s}`);

  const replySkills = new Set(trace.reply_skill_names);
  const needed = new Set([...required, ...task.answer_key.strategy_skills]);
  const unneeded = [...loadedSet].filter((s) => replySkills.has(s) && !needed.has(s));
  const other = [...loadedSet].filter((s) => !replySkills.has(s) && !needed.has(s));
  for (const s of unneeded) reasons.push(`unneeded reply skill loaded: ${s}`);
  for (const s of other) reasons.push(`unneeded skill loaded: ${s}`);

  const counts = new Map<string, number>();
  for (const s of loaded) counts.set(s, (counts.get(s) ?? 0) + 1);
  let repeats = 0;
  for (const [s, n] of counts) {
    if (n > 1) {
      repeats += n - 1;
      reasons.push(`skill loaded ${n} times: ${s}`);
    }
  }

  const penalty = p('unneeded_penalty') * unneeded.length + p('unneeded_other_penalty') * other.length + p('repeat_penalty') * repeats;
  return {
    value: clamp01(requiredFrac * Math.max(0, 1 - penalty)),
    reasons,
    evidence: { loaded: [...loaded], missing, unneeded, unneeded_other: other, repeats },
  };
}

/** Whether the right reply skills were loaded, and no needless ones. */
export const skillSelectionModule: RewardModule = {
  name: 'skill_selection',
  version: '2.0.0',
  segment: 'tool',
  score: scoreSkillSelection,
  checkParams: numericParamsChecker(SKILL_SELECTION_DEFAULTS),
};
