/**
 * Scoring one episode with a profile: run each module, contain its failures, combine the weighted
 * mean, apply the gates, split per segment, and round every number so results are byte-identical
 * across platforms.
 */
import type { RewardDetail, RewardResult, Task, Trace } from '../protocol/domain.js';
import { asksQuestion, clamp01, factStated, ownWords, toolCalls } from './common.js';
import type { RewardRegistry } from './registry.js';
import type { RewardProfile, RewardSegment } from './types.js';

/** Round to 6 decimals; -0 becomes 0. Values too large to scale exactly are left as they are. */
export function round6(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e9) return x;
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}

// Round every number inside a detail's evidence too: modules may put ratios there. A copy (the detail owns
// it); own enumerable keys in `Object.entries` order, without the [key, value] pair `entries` makes per key.
function roundDeep(value: unknown): unknown {
  if (typeof value === 'number') return round6(value);
  if (Array.isArray(value)) return value.map(roundDeep);
  if (value !== null && typeof value === 'object') {
    const src = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k in src) if (Object.hasOwn(src, k)) out[k] = roundDeep(src[k]);
    return out;
  }
  return value;
}

function failedDetail(why: string): RewardDetail {
  return { value: 0, failed: true, reasons: [`module failed: ${why}`] };
}

function describeError(err: unknown): string {
  if (err instanceof Error) return `threw ${err.name}: ${err.message}`;
  return `threw ${String(err)}`;
}

/** Run one module, turning every failure (throw, bad shape, non-finite or out-of-range value) into data. */
function runModule(
  registry: RewardRegistry,
  name: string,
  trace: Trace,
  task: Task,
  params: Readonly<Record<string, unknown>>,
): { detail: RewardDetail; segment: RewardSegment | null } {
  const m = registry.get(name);
  if (m === undefined) return { detail: failedDetail(`unknown module "${name}"`), segment: null };
  let d: RewardDetail;
  try {
    d = m.score(trace, task, params);
  } catch (err) {
    return { detail: failedDetail(describeError(err)), segment: m.segment };
  }
  if (d === null || typeof d !== 'object' || typeof d.value !== 'number') {
    return { detail: failedDetail('returned no numeric value'), segment: m.segment };
  }
  if (!Number.isFinite(d.value)) return { detail: failedDetail(`returned non-finite value ${d.value}`), segment: m.segment };
  if (d.value < 0 || d.value > 1) return { detail: failedDetail(`returned ${d.value} (outside [0, 1])`), segment: m.segment };
  const reasons = Array.isArray(d.reasons) ? d.reasons.map(String) : [];
  const detail: RewardDetail = { value: round6(d.value), reasons };
  if (d.evidence !== undefined) detail.evidence = roundDeep(d.evidence);
  return { detail, segment: m.segment };
}

/**
 * Score a finished episode. composite = Σ weight·value / Σ weight, then every gate whose module is below
 * its threshold caps it, and says so in `caps` (one line per cap that lowered the reward, absent when none); the result is clamped to [0, 1] and rounded to 6 decimals. Segment scores are
 * the weighted means of the modules of each segment; `tool` is null when the task needs no tool calls
 * and the trace made none (load_skill aside), `reply` is null when there is no final reply. Never throws:
 * a failing module scores 0 with `failed: true`.
 */
export function scoreEpisode(trace: Trace, asked: Task, profile: RewardProfile, registry: RewardRegistry): RewardResult {
  const task = readingOf(trace, asked);
  const components: Record<string, number> = {};
  const details: Record<string, RewardDetail> = {};
  const seg = { tool: { w: 0, s: 0 }, reply: { w: 0, s: 0 } };
  let wSum = 0;
  let sum = 0;
  // A profile built in code may skip validation: weights so large that their sum overflows are scaled
  // down by the largest (the weighted mean is the same), so the reward stays finite.
  let total = 0;
  let largest = 0;
  for (const m of profile.modules) {
    if (Number.isFinite(m.weight) && m.weight > 0) {
      total += m.weight;
      largest = Math.max(largest, m.weight);
    }
  }
  const scale = Number.isFinite(total) ? 1 : 1 / largest;
  for (const entry of profile.modules) {
    const { detail, segment } = runModule(registry, entry.name, trace, task, entry.params ?? {});
    components[entry.name] = detail.value;
    details[entry.name] = detail;
    const w = Number.isFinite(entry.weight) && entry.weight > 0 ? entry.weight * scale : 0;
    wSum += w;
    sum += w * detail.value;
    if (segment !== null) {
      seg[segment].w += w;
      seg[segment].s += w * detail.value;
    }
  }
  let reward = wSum > 0 ? sum / wSum : 0;
  if (!Number.isFinite(reward)) reward = 0;
  const weighted = reward;
  let caps: string[] | undefined;
  for (const gate of profile.gates) {
    const v = components[gate.module];
    if (v !== undefined && v < gate.below && gate.cap < weighted) {
      reward = Math.min(reward, gate.cap);
      (caps ??= []).push(`capped at ${gate.cap}: ${gate.module} ${v} < ${gate.below} (weighted mean ${round6(clamp01(weighted))})`);
    }
  }

  const noToolWork = task.answer_key.required_calls.length === 0 && toolCalls(trace).length === 0;
  const mean = (k: RewardSegment): number | null => (seg[k].w > 0 ? round6(clamp01(seg[k].s / seg[k].w)) : null);
  const result: RewardResult = {
    reward: round6(clamp01(reward)),
    components,
    details,
    segments: {
      tool: noToolWork ? null : mean('tool'),
      reply: trace.final_reply === null ? null : mean('reply'),
    },
  };
  if (caps !== undefined) result.caps = caps;
  return result;
}

/**
 * The reading of the task the reply took: an ambiguous request (`expect: "clarify"` with
 * `answer_instead`) answered instead of asked back — no question, every fact of the other reading stated
 * — is scored as that answer (`expect: "answer"`, those facts required); any other reply, as the key says.
 */
export function readingOf(trace: Trace, task: Task): Task {
  const key = task.answer_key;
  const other = key.answer_instead;
  const reply = trace.final_reply;
  if (key.expect !== 'clarify' || other === undefined || reply === null || asksQuestion(reply)) return task;
  const clauses = ownWords(reply, task.messages)
    .split(CLAUSE_BREAK)
    .filter((c) => c.trim() !== '');
  // Each fact within one clause: "link 6 is 89.9 and link 9 is 59" names each price with its link.
  if (!other.required_facts.every((f) => clauses.some((c) => factStated(c, f, task.locale)))) return task;
  // Either skill serves the answer: the clarifying one ("if the context makes it clear, just answer") or
  // the answering one. The one loaded is required, the other allowed.
  const clarifying = key.reply_skills.some((s) => trace.loaded_skills.includes(s));
  const [reply_skills, alsoAllowed] = clarifying ? [key.reply_skills, other.reply_skills] : [other.reply_skills, key.reply_skills];
  const strategy_skills = [...key.strategy_skills];
  for (const s of alsoAllowed) if (!strategy_skills.includes(s) && !reply_skills.includes(s)) strategy_skills.push(s);
  return { ...task, answer_key: { ...key, expect: 'answer', reply_skills, strategy_skills, required_facts: other.required_facts } };
}

/** Where one statement of a reply ends and the next begins (a decimal point does not end one). */
const CLAUSE_BREAK = /[，,;；。!！?？、]|(?<!\d)\.(?!\d)|\band\b|\bwhile\b|\bbut\b|\bwhereas\b|而|但/;
