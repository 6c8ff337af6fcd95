/**
 * An episode as a person reads it: rebuilt from its record (the transcript is not stored; replaying the
 * recorded actions regenerates it exactly), joined with the canonical trace, so each tool call shows the
 * name the agent used and the canonical one, and each hook objection its feedback. What the model saw
 * (the system prompt and the tool schemas) comes from the recorded output bytes themselves, not from the
 * rebuild, and the answer key from the source task: a reward designer debugs a reward from exactly
 * these. `harness-gym inspect` prints it; the viewer serves it as JSON.
 */
import type { AnswerKey, ChatMessage, ToolSchema } from '../protocol/domain.js';
import type { SurfaceMap } from '../protocol/surface.js';
import { loadBaseHarness } from '../harness/index.js';
import { buildVariant, parseVariant } from '../harness-variants/index.js';
import type { RenameTables } from '../harness-variants/index.js';
import type { EnvConfig } from '../env/index.js';
import { RECORD_VERSION, unpackValue } from './format.js';
import type { EpisodeRecordV1 } from './format.js';
import { rebuildEpisode } from './replay.js';
import { describeVariant } from './recorder.js';
import { readForeignKey } from '../protocol/surface.js';
import { isRecord } from '../protocol/objects.js';

/** An argument the variant's map placed on no canonical parameter (validation rejects it), and why. */
export interface UnmappedArgument {
  /** The key as the agent wrote it. */
  name: string;
  value: unknown;
  /** What was wrong with it, in words. */
  reason: string;
}

/** One tool call of a turn. */
export interface CallView {
  id: string;
  surface_name: string;
  /** The trace's name: the canonical tool, or `decoy:<surface>` for a decoy. */
  canonical_name: string;
  /** Whether the agent called one of the variant's decoys (tools that stand for no canonical tool). */
  decoy: boolean;
  /** Arguments as the agent wrote them (surface names), as a JSON string. */
  surface_arguments: string | null;
  /** Canonical arguments the call mapped to (null when unparseable); the rest are in `unmapped_arguments`. */
  canonical_arguments: { [key: string]: unknown } | null;
  unmapped_arguments: UnmappedArgument[];
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

/** One tool schema as the model was offered it, with the canonical tool it stands for. */
export interface ToolSchemaView {
  surface: string;
  /** Null for a decoy (or when the variant could not be rebuilt). */
  canonical: string | null;
  description: string | null;
  /** The JSON Schema of the parameters, in surface form. */
  parameters: unknown;
}

/** A tool list the model was offered: at reset (`after_turn` 0), or after a turn whose observation carried a new one. */
export interface ToolListView {
  after_turn: number;
  tools: ToolSchemaView[];
}

/** The whole episode. */
export interface EpisodeView {
  episode_id: string;
  seed: number;
  intent: string;
  locale: string;
  task_id: string;
  /** The task's split (`train` or the held-out `eval`). */
  task_split: string;
  viewer_id: string;
  viewer_message: string;
  history: { role: string; content: string }[];
  variant: {
    id: string;
    label: string;
    /** The variant's split (`train`, the held-out `eval`, `none` for the base harness). */
    split: string;
    families: string[];
    applied: string[];
    variant_seed: number;
    /** The variant's map as its rename tables (canonical -> surface); empty for identity, null when it cannot be rebuilt. */
    tables: RenameTables | null;
  };
  /** Every tool and skill of the variant's harness (surface = canonical; canonical null for a decoy). */
  tools: { surface: string; canonical: string | null }[];
  skills: { surface: string; canonical: string | null }[];
  /** The system prompt the agent saw (from the recorded reset output). */
  system_prompt: string | null;
  /** The tool schemas the agent saw, as offered (from the recorded outputs). */
  tool_lists: ToolListView[];
  /** The source task's answer key (canonical names): what the rewards score against. */
  answer_key: AnswerKey;
  turns: TurnView[];
  final_reply: string | null;
  outcome: string;
  /** `caps`: the gates that capped the reward, one line each (absent when none did). */
  reward: { total: number; profile: string; segments: { tool: number | null; reply: number | null }; components: ComponentView[]; caps?: string[] };
  /** Empty when the transcript was rebuilt; otherwise why not (the trace still shows the turns). */
  rebuild_error: string | null;
}

function emptyTables(): RenameTables {
  return { tools: {}, skills: {}, fields: {}, nest: {}, extra_params: {}, decoys: [] };
}

/** Operators the variant applied and its rename tables (recomputed: building a variant is deterministic). */
function variantParts(rec: EpisodeRecordV1): { applied: string[]; tables: RenameTables | null } {
  const parsed = parseVariant(rec.variant);
  if (!parsed.ok) return { applied: [], tables: null };
  if (parsed.spec === null) return { applied: [], tables: emptyTables() };
  // A version 1 record's seed drew its variant another way: this build cannot say which it was.
  if ((rec.record_version ?? 1) !== RECORD_VERSION) return { applied: [], tables: null };
  try {
    const built = buildVariant(loadBaseHarness(rec.source_task.locale), parsed.spec, rec.variant_seed, rec.source_task, undefined, rec.variant_pool);
    return { applied: built.applied, tables: built.tables };
  } catch {
    return { applied: [], tables: null };
  }
}

/** A marked argument key's reason (protocol/surface.ts `ForeignReason`), said in words. */
function unmappedReason(why: string, name: string, tool: string, tables: RenameTables | null): string {
  const wrapper = tables?.nest[tool];
  const holder = wrapper === undefined ? 'the object that holds every argument' : `"${wrapper}", the object that holds every argument`;
  if (why === 'outside') return `given beside ${holder} of this tool in this variant`;
  if (why === 'value') return 'must be the object that holds every argument of this tool in this variant';
  if (why === 'base') {
    const surface = tables?.fields[name];
    return surface === undefined
      ? "the base harness's name of a parameter this variant renamed"
      : `the base harness's name of a parameter this variant calls "${surface}"`;
  }
  return 'not a parameter of this tool';
}

/** Canonical arguments split into those on canonical parameters and those the map could not place. */
function splitArguments(
  tool: string,
  args: { [key: string]: unknown } | null,
  tables: RenameTables | null,
): { canonical: { [key: string]: unknown } | null; unmapped: UnmappedArgument[] } {
  if (args === null) return { canonical: null, unmapped: [] };
  const canonical: { [key: string]: unknown } = {};
  const unmapped: UnmappedArgument[] = [];
  for (const [k, value] of Object.entries(args)) {
    const foreign = readForeignKey(k);
    if (foreign === null) canonical[k] = value;
    else unmapped.push({ name: foreign.name, value, reason: unmappedReason(foreign.reason, foreign.name, tool, tables) });
  }
  return { canonical, unmapped };
}

/** The `observation` of recorded output bytes, or null when they do not decode to one. */
function recordedObservation(bytes: Uint8Array | undefined): { messages?: ChatMessage[]; tools?: ToolSchema[] } | null {
  if (bytes === undefined) return null;
  try {
    const out = unpackValue(bytes);
    return isRecord(out) && isRecord(out.observation) ? (out.observation as { messages?: ChatMessage[]; tools?: ToolSchema[] }) : null;
  } catch {
    return null;
  }
}

/** What the model saw: the system prompt at reset and every tool list it was offered, from the recorded bytes. */
function whatTheModelSaw(rec: EpisodeRecordV1, map: SurfaceMap | null): { system_prompt: string | null; tool_lists: ToolListView[] } {
  const schemaView = (t: ToolSchema): ToolSchemaView => ({
    surface: t.function.name,
    canonical: map?.toolToCanonical(t.function.name) ?? null,
    description: t.function.description ?? null,
    parameters: t.function.parameters,
  });
  const reset = recordedObservation(rec.reset.out);
  const first = reset?.messages?.[0];
  const toolLists: ToolListView[] = [];
  if (Array.isArray(reset?.tools)) toolLists.push({ after_turn: 0, tools: reset.tools.map(schemaView) });
  // A refused action (an item error) is no turn: count only the actions that got an output.
  let turn = 0;
  for (const s of rec.steps) {
    if (s.out === undefined) continue;
    turn++;
    const obs = recordedObservation(s.out);
    if (Array.isArray(obs?.tools)) toolLists.push({ after_turn: turn, tools: obs.tools.map(schemaView) });
  }
  return { system_prompt: first?.role === 'system' ? first.content : null, tool_lists: toolLists };
}

/** Build the view of one record. */
export function inspectRecord(rec: EpisodeRecordV1, base: Partial<EnvConfig> = {}): EpisodeView {
  let messages: ChatMessage[] = [];
  let rebuildError: string | null = null;
  let tools: { surface: string; canonical: string | null }[] = [];
  let skills: { surface: string; canonical: string | null }[] = [];
  let map: SurfaceMap | null = null;
  const built = rebuildEpisode(rec, base);
  if (built.ok) {
    const ep = built.episode;
    ep.reset();
    for (const s of rec.steps) if (!ep.ended) ep.step(s.action);
    messages = ep.messages.slice();
    const m = ep.params.map;
    map = m;
    tools = ep.params.harness.tools.map((t) => ({ surface: t.function.name, canonical: m.toolToCanonical(t.function.name) ?? null }));
    skills = ep.params.harness.skills.map((s) => ({ surface: s.name, canonical: m.skillToCanonical(s.name) ?? null }));
  } else {
    rebuildError = built.message;
  }
  const { applied, tables } = variantParts(rec);
  const decoys = new Set(tables?.decoys ?? []);

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
      calls: t.calls.map((c) => {
        const args = splitArguments(c.name, c.arguments, tables);
        return {
          id: c.id,
          surface_name: c.surface_name,
          canonical_name: c.name,
          decoy: decoys.has(c.surface_name),
          surface_arguments: surfaceArgs.get(c.id) ?? null,
          canonical_arguments: args.canonical,
          unmapped_arguments: args.unmapped,
          ok: c.ok,
          error: c.error ?? null,
          result: tm?.tools.get(c.id) ?? null,
        };
      }),
      hook_violations: t.hook_violations.map((v) => ({ hook: v.hook, code: v.code, message: v.message })),
      hook_feedback: tm?.feedback ?? null,
    };
  });

  const variant = describeVariant(rec.variant);
  const saw = whatTheModelSaw(rec, map);
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
    task_split: rec.task_split ?? rec.source_task.split,
    viewer_id: rec.task.viewer_id,
    viewer_message: rec.task.messages.join('\n'),
    history: rec.task.history.map((h) => ({ role: h.role, content: h.content })),
    variant: {
      id: rec.variant_id,
      label: variant.label,
      split: rec.variant_split ?? variant.split,
      families: variant.families,
      applied,
      variant_seed: rec.variant_seed,
      tables,
    },
    tools,
    skills,
    // The recorded bytes are what the model saw; the rebuild stands in only if they do not decode.
    system_prompt: saw.system_prompt ?? (messages[0]?.role === 'system' ? messages[0].content : null),
    tool_lists: saw.tool_lists,
    answer_key: rec.source_task.answer_key,
    turns,
    final_reply: rec.trace.final_reply,
    outcome: rec.trace.outcome,
    reward: {
      total: rec.reward.reward,
      profile: rec.reward_profile,
      segments: rec.reward.segments,
      components,
      ...(rec.reward.caps !== undefined ? { caps: rec.reward.caps } : {}),
    },
    rebuild_error: rebuildError,
  };
}

/** A canonical call as the rewards' reasons write it: `name {"arg":value}`. */
function callText(c: { name: string; arguments: { [key: string]: unknown } }): string {
  return `${c.name} ${JSON.stringify(c.arguments)}`;
}

/** A segment's score, or that the episode had nothing of that kind to score. */
function segmentText(x: number | null): string {
  return x === null ? 'not scored' : x.toFixed(4);
}

/** The answer key in a few lines: what the rewards score the episode against. */
function answerKeyLines(k: AnswerKey): string[] {
  const list = (xs: readonly string[]): string => (xs.length ? xs.join(', ') : '(none)');
  const facts = (fs: AnswerKey['required_facts']): string =>
    fs.length ? fs.map((f) => `${f.key} = ${f.values.join(' | ')}`).join('; ') : '(none)';
  const state = Object.entries(k.expected_state)
    .filter(([, xs]) => Array.isArray(xs) && xs.length > 0)
    .map(([name, xs]) => `${name} ${JSON.stringify(xs)}`);
  // A stateful custom service's expected state (cut: a state may be up to 64 KiB).
  for (const [module, v] of Object.entries(k.expected_state.custom ?? {})) {
    const text = JSON.stringify(v);
    state.push(`custom.${module} ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`);
  }
  const out = [
    `--- answer key: expect ${k.expect}, call to action ${k.cta ? 'expected' : 'not expected'}`,
    `reply skills: ${list(k.reply_skills)}; strategy skills: ${list(k.strategy_skills)}`,
  ];
  if (k.required_calls.length === 0) out.push('required calls: (none)');
  for (const r of k.required_calls) out.push(`required call: ${r.any_of.map(callText).join(' or ')}`);
  out.push(`required facts: ${facts(k.required_facts)}`);
  out.push(`forbidden facts: ${facts(k.forbidden_facts)}`);
  out.push(`expected state: ${state.length ? state.join('; ') : 'unchanged'}`);
  out.push(`reference reply: ${k.reference_reply}`);
  return out;
}

/** The view as text. */
export function formatEpisodeView(v: EpisodeView): string {
  const out: string[] = [];
  out.push(`=== episode ${v.episode_id}  seed ${v.seed}  task ${v.task_id}  intent ${v.intent}  locale ${v.locale}  task split ${v.task_split}  variant split ${v.variant.split}`);
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
  out.push('');
  out.push(...answerKeyLines(v.answer_key));
  if (v.rebuild_error) out.push(`(transcript not rebuilt: ${v.rebuild_error})`);
  for (const t of v.turns) {
    out.push('');
    out.push(`--- turn ${t.index} (${t.kind})`);
    if (t.thinking) out.push(`thinking: ${t.thinking}`);
    if (t.content !== null && t.content !== '') out.push(`${t.calls.length ? 'text' : 'reply'}: ${t.content}`);
    for (const c of t.calls) {
      const names = c.decoy
        ? `${c.surface_name} (decoy)`
        : c.surface_name === c.canonical_name
          ? c.canonical_name
          : `${c.surface_name} -> ${c.canonical_name}`;
      out.push(`call ${names}(${c.surface_arguments ?? ''})`);
      if (c.unmapped_arguments.length > 0 || c.surface_arguments !== JSON.stringify(c.canonical_arguments))
        out.push(`  canonical args: ${c.canonical_arguments === null ? '(unparseable)' : JSON.stringify(c.canonical_arguments)}`);
      for (const u of c.unmapped_arguments) out.push(`  not mapped: ${u.name} = ${JSON.stringify(u.value)} (${u.reason})`);
      out.push(`  ${c.ok ? 'result' : `error ${c.error}`}: ${c.result ?? ''}`);
    }
    for (const h of t.hook_violations) out.push(`hook ${h.hook} ${h.code}: ${h.message}`);
    if (t.hook_feedback) out.push(`hook feedback: ${t.hook_feedback}`);
  }
  out.push('');
  out.push(`--- final reply (${v.outcome}): ${v.final_reply ?? '(none)'}`);
  out.push(
    `--- reward ${v.reward.total.toFixed(4)} (profile ${v.reward.profile}; tool segment: ${segmentText(v.reward.segments.tool)}, reply segment: ${segmentText(v.reward.segments.reply)})`,
  );
  for (const cap of v.reward.caps ?? []) out.push(cap);
  for (const c of v.reward.components) {
    out.push(`${c.name}: ${c.value.toFixed(4)} (${c.weight === null ? 'not weighted' : `weight ${c.weight}`})${c.failed ? ' FAILED' : ''}`);
    for (const r of c.reasons) out.push(`  - ${r}`);
  }
  return out.join('\n') + '\n';
}
