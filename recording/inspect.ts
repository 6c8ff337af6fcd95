/**
 * An episode as a person reads it: rebuilt from its record (the transcript is not stored; replaying the
 * recorded actions regenerates it exactly), joined with the canonical trace, so each tool call shows the
 * name the agent used and the canonical one, and each hook objection its feedback. `harness-gym
 * inspect` prints it; the viewer serves it as JSON.
 */
import type { ChatMessage } from '../protocol/domain.js';
import { loadBaseHarness } from '../harness/index.js';
import { buildVariant, parseVariant } from '../harness-variants/index.js';
import type { EnvConfig } from '../env/index.js';
import type { EpisodeRecordV1 } from './format.js';
import { rebuildEpisode } from './replay.js';
import { describeVariant } from './recorder.js';

/** One tool call of a turn. */
export interface CallView {
  id: string;
  surface_name: string;
  canonical_name: string;
  /** Arguments as the agent wrote them (surface names), as a JSON string. */
  surface_arguments: string | null;
  /** Canonical arguments (null when unparseable). */
  canonical_arguments: unknown;
  ok: boolean;
  error: string | null;
  /** The tool message the agent got back (surface form). */
  result: string | null;
}

/** One assistant turn. */
export interface TurnView {
  index: number;
  kind: string;
  thinking: string | null;
  content: string | null;
  calls: CallView[];
  hook_violations: { hook: string; code: string; message: string }[];
  /** The feedback message the hooks sent back, when they asked for a retry. */
  hook_feedback: string | null;
}

/** One reward component. */
export interface ComponentView {
  name: string;
  value: number;
  weight: number | null;
  reasons: string[];
  failed: boolean;
}

/** The whole episode. */
export interface EpisodeView {
  episode_id: string;
  seed: number;
  intent: string;
  locale: string;
  task_id: string;
  viewer_id: string;
  viewer_message: string;
  history: { role: string; content: string }[];
  variant: { id: string; label: string; families: string[]; applied: string[]; variant_seed: number };
  tools: { surface: string; canonical: string | null }[];
  skills: { surface: string; canonical: string | null }[];
  /** The system prompt the agent saw. */
  system_prompt: string | null;
  turns: TurnView[];
  final_reply: string | null;
  outcome: string;
  reward: { total: number; profile: string; segments: { tool: number | null; reply: number | null }; components: ComponentView[] };
  /** Empty when the transcript was rebuilt; otherwise why not (the trace still shows the turns). */
  rebuild_error: string | null;
}

/** Operators the variant applied (recomputed: building a variant is deterministic). */
function appliedOps(rec: EpisodeRecordV1): string[] {
  const parsed = parseVariant(rec.variant);
  if (!parsed.ok || parsed.spec === null) return [];
  try {
    return buildVariant(loadBaseHarness(rec.source_task.locale), parsed.spec, rec.variant_seed, rec.source_task).applied;
  } catch {
    return [];
  }
}

/** Build the view of one record. */
export function inspectRecord(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): EpisodeView {
  let messages: ChatMessage[] = [];
  let rebuildError: string | null = null;
  let tools: { surface: string; canonical: string | null }[] = [];
  let skills: { surface: string; canonical: string | null }[] = [];
  const built = rebuildEpisode(rec, base);
  if (built.ok) {
    const ep = built.episode;
    ep.reset();
    for (const s of rec.steps) if (!ep.ended) ep.step(s.action);
    messages = ep.messages.slice();
    const map = ep.params.map;
    tools = ep.params.harness.tools.map((t) => ({ surface: t.function.name, canonical: map.toolToCanonical(t.function.name) ?? null }));
    skills = ep.params.harness.skills.map((s) => ({ surface: s.name, canonical: map.skillToCanonical(s.name) ?? null }));
  } else {
    rebuildError = built.message;
  }

  // Walk the transcript: each assistant message opens a turn; tool messages are its results; a user
  // message after it is the hooks' feedback.
  const turnMsgs: { assistant: ChatMessage; tools: Map<string, string | null>; feedback: string | null }[] = [];
  // reset wrote the system prompt, the history lines and the viewer's message.
  for (let i = 2 + rec.task.history.length; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'assistant') turnMsgs.push({ assistant: m, tools: new Map(), feedback: null });
    else if (turnMsgs.length > 0 && m.role === 'tool') turnMsgs[turnMsgs.length - 1].tools.set(m.tool_call_id ?? '', m.content);
    else if (turnMsgs.length > 0 && m.role === 'user') turnMsgs[turnMsgs.length - 1].feedback = m.content;
  }

  const turns: TurnView[] = rec.trace.turns.map((t, i) => {
    const tm = turnMsgs[i];
    const surfaceArgs = new Map<string, string>();
    for (const c of tm?.assistant.tool_calls ?? []) surfaceArgs.set(c.id, c.function.arguments);
    return {
      index: t.index,
      kind: t.kind,
      thinking: t.thinking,
      content: t.content,
      calls: t.calls.map((c) => ({
        id: c.id,
        surface_name: c.surface_name,
        canonical_name: c.name,
        surface_arguments: surfaceArgs.get(c.id) ?? null,
        canonical_arguments: c.arguments,
        ok: c.ok,
        error: c.error ?? null,
        result: tm?.tools.get(c.id) ?? null,
      })),
      hook_violations: t.hook_violations.map((v) => ({ hook: v.hook, code: v.code, message: v.message })),
      hook_feedback: tm?.feedback ?? null,
    };
  });

  const variant = describeVariant(rec.variant);
  const components: ComponentView[] = Object.keys(rec.reward.components).map((name) => {
    const d = rec.reward.details[name];
    const w = rec.profile.modules.find((m) => m.name === name);
    return { name, value: rec.reward.components[name], weight: w?.weight ?? null, reasons: d?.reasons ?? [], failed: d?.failed === true };
  });
  return {
    episode_id: rec.episode_id,
    seed: rec.seed,
    intent: rec.task.intent,
    locale: rec.task.locale,
    task_id: rec.task.id,
    viewer_id: rec.task.viewer_id,
    viewer_message: rec.task.messages.join('\n'),
    history: rec.task.history.map((h) => ({ role: h.role, content: h.content })),
    variant: {
      id: rec.variant_id,
      label: variant.label,
      families: variant.families,
      applied: appliedOps(rec),
      variant_seed: rec.variant_seed,
    },
    tools,
    skills,
    system_prompt: messages[0]?.role === 'system' ? messages[0].content : null,
    turns,
    final_reply: rec.trace.final_reply,
    outcome: rec.trace.outcome,
    reward: { total: rec.reward.reward, profile: rec.reward_profile, segments: rec.reward.segments, components },
    rebuild_error: rebuildError,
  };
}

/** The view as text. */
export function formatEpisodeView(v: EpisodeView): string {
  const out: string[] = [];
  out.push(`=== episode ${v.episode_id}  seed ${v.seed}  task ${v.task_id}  intent ${v.intent}  locale ${v.locale}`);
  for (const h of v.history) out.push(`[history ${h.role}] ${h.content}`);
  out.push(`viewer ${v.viewer_id}: ${v.viewer_message}`);
  out.push('');
  out.push(
    `--- harness: variant ${v.variant.id} (${v.variant.label}${v.variant.families.length ? `: ${v.variant.families.join(',')}` : ''}, variant seed ${v.variant.variant_seed})`,
  );
  out.push(`applied operators: ${v.variant.applied.length ? v.variant.applied.join(', ') : '(none)'}`);
  const pair = (x: { surface: string; canonical: string | null }): string =>
    x.canonical === null ? `${x.surface} (decoy)` : x.canonical === x.surface ? x.surface : `${x.surface} = ${x.canonical}`;
  out.push(`tools: ${v.tools.map(pair).join(', ')}`);
  out.push(`skills: ${v.skills.map(pair).join(', ')}`);
  if (v.rebuild_error) out.push(`(transcript not rebuilt: ${v.rebuild_error})`);
  for (const t of v.turns) {
    out.push('');
    out.push(`--- turn ${t.index} (${t.kind})`);
    if (t.thinking) out.push(`thinking: ${t.thinking}`);
    if (t.content !== null && t.content !== '') out.push(`${t.calls.length ? 'text' : 'reply'}: ${t.content}`);
    for (const c of t.calls) {
      const names = c.surface_name === c.canonical_name ? c.canonical_name : `${c.surface_name} -> ${c.canonical_name}`;
      out.push(`call ${names}(${c.surface_arguments ?? ''})`);
      if (c.surface_arguments !== JSON.stringify(c.canonical_arguments))
        out.push(`  canonical args: ${JSON.stringify(c.canonical_arguments)}`);
      out.push(`  ${c.ok ? 'result' : `error ${c.error}`}: ${c.result ?? ''}`);
    }
    for (const h of t.hook_violations) out.push(`hook ${h.hook} ${h.code}: ${h.message}`);
    if (t.hook_feedback) out.push(`hook feedback: ${t.hook_feedback}`);
  }
  out.push('');
  out.push(`--- final reply (${v.outcome}): ${v.final_reply ?? '(none)'}`);
  out.push(
    `--- reward ${v.reward.total.toFixed(4)} (profile ${v.reward.profile}; tool ${v.reward.segments.tool ?? '-'}, reply ${v.reward.segments.reply ?? '-'})`,
  );
  for (const c of v.reward.components) {
    out.push(`${c.name}: ${c.value.toFixed(4)} (weight ${c.weight ?? '-'})${c.failed ? ' FAILED' : ''}`);
    for (const r of c.reasons) out.push(`  - ${r}`);
  }
  return out.join('\n') + '\n';
}
