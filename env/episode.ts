/**
 * One episode: the production request pipeline as a Gymnasium-style state machine (DESIGN.md, "One
 * episode"). `reset` assembles the prompt in the variant's surface forms; each `step` parses the policy's
 * assistant turn, runs the hooks, maps tool calls back to canonical form for the services and renders the
 * results in surface form; the final step scores the canonical trace.
 *
 * Everything that varies between harness variants comes in through `Harness` (surface data) and
 * `SurfaceMap` (the bijection); nothing here names a tool, a skill or a hook's wording.
 */
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import AjvModule from 'ajv';
import type {
  ChatMessage,
  HookViolation,
  JsonSchema,
  Outcome,
  Task,
  ToolError,
  ToolErrorCode,
  ToolSchema,
  Trace,
  TraceCall,
  TraceTurn,
  WorldState,
  RewardResult,
} from '../protocol/domain.js';
import { emptyWorldState } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import { MCP_LIST_CHANGED_MARK } from '../protocol/harness.js';
import type { SurfaceMap } from '../protocol/surface.js';
import type { ErrorInfo } from '../protocol/errors.js';
import { Rng } from '../protocol/rng.js';
import { extractNumbers } from '../protocol/text.js';
import { callService, worldFor } from '../mock-services/index.js';
import type { World } from '../mock-services/index.js';
import { needsAsyncScoring, scoreEpisode, scoreEpisodeAsync } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';
import { autoCorrect, feedbackMessage, runInputHooks, runReplyHooks } from './hooks.js';
import { coerceArguments } from './parsers.js';
import type { ActionParser, ParsedAction, ParsedCall } from './parsers.js';
import { renderSystemPrompt, roomFacts, viewerFact } from './prompt.js';
import { DISCOVER_TOOLS_TOOL, MARKETING_TOOLS, marketingHub } from './mcp.js';

// ajv ships CommonJS with a default export; under NodeNext the class sits on `.default`.
const Ajv = (AjvModule as unknown as { default: typeof AjvType }).default ?? (AjvModule as unknown as typeof AjvType);

/** The canonical name of the progressive-disclosure tool, answered by the episode itself. */
export const LOAD_SKILL_TOOL = 'load_skill';

/** Canonical-trace prefix of tools and skills a variant added as decoys (they map to nothing canonical). */
export const DECOY_PREFIX = 'decoy:';

/** The observation: new (or all) chat messages, and the tool list when it changed. */
export interface Observation {
  messages: ChatMessage[];
  tools?: ToolSchema[];
}

/** Everything an episode needs, resolved by the caller (env or server) from the reset item. */
export interface EpisodeParams {
  /** Client-visible id (the server's episode id, or a local one). */
  episode_id: string;
  seed: number;
  /** The task as the variant presents it (a variant may paraphrase the viewer's message). */
  task: Task;
  /** The task as its source produced it, before any variant touched it (GRPO groups share this one). */
  source_task: Task;
  /** The harness in surface form (the variant the policy sees). */
  harness: Harness;
  /** The base harness in canonical form, used to validate mapped-back arguments. */
  canonical: Harness;
  map: SurfaceMap;
  variant_id: string;
  parser: ActionParser;
  /** The episode's turn cap, already the least of the option, the variant's and the server's. */
  max_turns: number;
  /** Tool errors that truncate the episode (`error_cap`). */
  max_errors: number;
  /** Probability of an injected tool fault, in [0, 1]. */
  faults: number;
  observation: 'delta' | 'full';
  profile: RewardProfile;
  registry: RewardRegistry;
  /** The world, held for the episode: a task source's own room, or the one a GRPO group shares. Otherwise generated from the task and held weakly. */
  world?: World;
}

/** What reset returns. */
export interface ResetOutput {
  observation: Observation;
  info: Record<string, unknown>;
}

/** What a successful step returns. */
export interface StepOutput {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

export type StepResult = ({ ok: true } & StepOutput) | { ok: false; error: ErrorInfo };

// Validators compiled once per canonical schema object (the base harness is cached per locale), never per
// episode: reset stays cheap and variants reuse them after mapping arguments back.
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: ToolSchema): ValidateFunction {
  let v = validators.get(schema.function.parameters);
  if (!v) {
    v = ajv.compile(schema.function.parameters);
    validators.set(schema.function.parameters, v);
  }
  return v;
}

/** The canonical path an ajv error is about ("link_no", or "" for the whole object). */
function errorPath(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  const leaf = params.missingProperty ?? params.additionalProperty;
  if (leaf) return base ? `${base}.${leaf}` : leaf;
  return base;
}

/**
 * An argument error in the variant's words. Built from the error's keyword, never from ajv's message,
 * which names canonical properties.
 */
function describeArgError(e: ErrorObject, field: string): string {
  switch (e.keyword) {
    case 'required':
      return `missing required argument "${field}"`;
    case 'additionalProperties':
      return `unknown argument "${field}"`;
    case 'type':
      return `argument "${field}" must be ${(e.params as { type?: string }).type ?? 'of another type'}`;
    case 'enum':
      return `argument "${field}" must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues ?? [])}`;
    default:
      return `argument "${field || 'arguments'}" ${e.message ?? 'is invalid'}`;
  }
}

function numbersOf(text: string, into: Set<number>): void {
  for (const n of extractNumbers(text)) into.add(n);
}

function toolErrorContent(error: ToolError): string {
  return JSON.stringify(error.field === undefined ? { error: { code: error.code, message: error.message } } : { error });
}

/** Whether a parameter schema has a property marked as announced later (`tools.mcp.list_changed`). */
function hasMark(schema: JsonSchema, depth: number): boolean {
  const props = schema.properties;
  if (!isRecord(props) || depth > 2) return false;
  return Object.values(props).some((p) => isRecord(p) && (p[MCP_LIST_CHANGED_MARK] === true || hasMark(p, depth + 1)));
}

/** The schema without the marked properties (`drop`), or with them unmarked. Never mutates the input. */
function unmark(schema: JsonSchema, drop: boolean, depth: number): JsonSchema {
  const props = schema.properties;
  if (!isRecord(props) || depth > 2) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) {
    if (!isRecord(p)) {
      out[k] = p;
    } else if (p[MCP_LIST_CHANGED_MARK] === true) {
      if (drop) continue;
      const { [MCP_LIST_CHANGED_MARK]: _mark, ...rest } = p;
      out[k] = rest;
    } else {
      out[k] = unmark(p, drop, depth + 1);
    }
  }
  return { ...schema, properties: out };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * One live episode. Small and serialisable in spirit: the world is regenerated from the task's seed, and
 * the mutable part is the overlay, the transcript and a few counters.
 */
export class Episode {
  readonly params: EpisodeParams;
  /**
   * The generated world, held weakly: a server keeps thousands of live episodes (ended ones too, until
   * closed), and a world is larger than the rest of an identity episode. While anything else holds it
   * (the world cache, a group sharing it) this is a lookup; once collected, it is regenerated, identical.
   */
  #world: WeakRef<World>;
  readonly #state: WorldState = emptyWorldState();
  readonly #faultRng: Rng;
  /**
   * The conversation after the system message. The system message is the largest part of an episode
   * (the whole rendered prompt) and is needed again only for a `full` observation or `messages`: it is held
   * weakly, like the world, and rendered again, identical, from what it was rendered from (`#shown`).
   */
  readonly #messages: ChatMessage[] = [];
  #system: WeakRef<ChatMessage> | null = null;
  /** The harness as the system prompt showed it at reset (the tools offered then). */
  #shown: Harness | null = null;
  readonly #turns: TraceTurn[] = [];
  readonly #loaded: string[] = [];
  readonly #evidence = new Set<number>();
  readonly #itemsInScope = new Set<string>();
  #turn = 0;
  #errors = 0;
  #retries = 0;
  #ended = false;
  #outcome: Outcome | null = null;
  #finalReply: string | null = null;
  #reward: RewardResult | null = null;
  /** Surface names of the MCP tools not yet discovered: not offered, UNKNOWN_TOOL when called. */
  readonly #hidden = new Set<string>();
  /** Whether the offered tool list changed during the current step (the observation then carries it). */
  #toolsChanged = false;
  /** The turn discovery happened on (0: not yet). */
  #discoveredAt = 0;
  /** `tools.mcp.list_changed`: whether this variant's MCP server announces a changed list, and whether it has. */
  readonly #listChange: boolean;
  #listChanged = false;

  constructor(params: EpisodeParams) {
    this.params = params;
    this.#world = new WeakRef(params.world ?? worldFor(params.task.world_seed, params.task.locale));
    this.#faultRng = new Rng(params.seed, 'faults');
    // The marketing tools arrive through discovery (MCP), as in production; the harness holds them all.
    for (const t of MARKETING_TOOLS) {
      const surface = params.map.toolToSurface(t);
      if (surface !== undefined) this.#hidden.add(surface);
    }
    this.#listChange = params.harness.tools.some((t) => this.#hidden.has(t.function.name) && hasMark(t.function.parameters, 0));
  }

  /** The episode's world: the task source's own (`params.world`), or `worldFor(world_seed, locale)`. */
  get world(): World {
    let world = this.params.world ?? this.#world.deref();
    if (world === undefined) {
      world = worldFor(this.params.task.world_seed, this.params.task.locale);
      this.#world = new WeakRef(world);
    }
    return world;
  }

  /** The tools the episode offers now, in the harness's order. */
  offeredTools(): ToolSchema[] {
    const all = this.params.harness.tools;
    const offered = this.#hidden.size === 0 ? all.slice() : all.filter((t) => !this.#hidden.has(t.function.name));
    if (!this.#listChange) return offered;
    // The announced parameter is absent before the list change, and unmarked after it.
    return offered.map((t) =>
      hasMark(t.function.parameters, 0)
        ? { ...t, function: { ...t.function, parameters: unmark(t.function.parameters, !this.#listChanged, 0) } }
        : t,
    );
  }

  /** The episode itself: an episode is an `EpisodeHandle` (env/wrappers.ts) with no wrapper. */
  get episode(): Episode {
    return this;
  }

  /** True once the episode terminated or was truncated. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Assistant turns taken so far. */
  get turn(): number {
    return this.#turn;
  }

  /** The final reward breakdown, once ended. */
  get reward(): RewardResult | null {
    return this.#reward;
  }

  /** The current world overlay (read-only view for tests and the oracle). */
  get state(): Readonly<WorldState> {
    return this.#state;
  }

  /** The whole conversation so far (a new array). */
  get messages(): readonly ChatMessage[] {
    return this.#shown === null ? [] : [this.#systemMessage(), ...this.#messages];
  }

  /** The system message: the one rendered at reset while anything holds it, else rendered again. */
  #systemMessage(): ChatMessage {
    let message = this.#system?.deref();
    if (message === undefined) {
      const { task } = this.params;
      const world = this.world;
      message = { role: 'system', content: renderSystemPrompt(this.#shown as Harness, world, task, false, roomFacts(world, task.locale)) };
      this.#system = new WeakRef(message);
    }
    return message;
  }

  /** Build the first observation. */
  reset(): ResetOutput {
    const { task, harness } = this.params;
    const world = this.world;
    const offered = this.offeredTools();
    // The room's facts are the same in the variant's prompt and in the canonical facts below: built once.
    const room = roomFacts(world, task.locale);
    const shown = offered.length === harness.tools.length ? harness : { ...harness, tools: offered };
    const system: ChatMessage = { role: 'system', content: renderSystemPrompt(shown, world, task, false, room) };
    this.#shown = shown;
    this.#system = new WeakRef(system);
    for (const line of task.history) this.#messages.push({ role: line.role, content: line.content });
    const userText = task.messages.join('\n');
    this.#messages.push({ role: 'user', content: userText });

    // Evidence comes from canonical facts, never from the variant's wording, so that every variant
    // allows exactly the same numbers (task preservation).
    for (const text of [room.current_product, room.lineup, room.faq, room.room, viewerFact(this.params.canonical, world, task)]) {
      numbersOf(text, this.#evidence);
    }
    for (const line of task.history) numbersOf(line.content, this.#evidence);
    numbersOf(userText, this.#evidence);
    const current = world.products.find((p) => p.link_no === world.room.current_link);
    if (current) this.#itemsInScope.add(current.item_id);

    const inputViolations = runInputHooks(harness.hooks, userText);
    const info = this.#baseInfo();
    if (inputViolations.length > 0) info.hook_violations = inputViolations.map((v) => ({ hook: v.hook, code: v.code }));
    return { observation: { messages: [system, ...this.#messages], tools: offered }, info };
  }

  // Computed once: the server asks on every step, and profile and registry are fixed at creation.
  #asyncScoring: boolean | null = null;

  /** True when the profile has an async module (an LLM judge): the final step should use `stepAsync`. */
  get needsAsyncScoring(): boolean {
    return (this.#asyncScoring ??= needsAsyncScoring(this.params.profile, this.params.registry));
  }

  /**
   * Apply one assistant turn. Errors are data; an INVALID_ACTION leaves the episode unchanged. A final
   * step scores synchronously: async modules (if any) answer with their sync fallback; use `stepAsync`.
   */
  step(action: unknown): StepResult {
    const r = this.#advance(action);
    if (!r.ok || !this.#ended) return r;
    return this.#withReward(r, this.#score());
  }

  /**
   * `step`, awaiting the profile's async reward modules on the final step. Everything up to scoring runs
   * synchronously before the first await (the episode's state advances in call order); for profiles
   * without async modules the result equals `step`'s, byte for byte.
   */
  async stepAsync(action: unknown): Promise<StepResult> {
    const r = this.#advance(action);
    if (!r.ok || !this.#ended) return r;
    if (!this.#reward) {
      const { task, profile, registry } = this.params;
      this.#reward = this.needsAsyncScoring
        ? await scoreEpisodeAsync(this.trace(), task, profile, registry)
        : scoreEpisode(this.trace(), task, profile, registry);
    }
    return this.#withReward(r, this.#reward);
  }

  /** Put the final reward into a final step's result (keys in the order clients have always seen). */
  #withReward(r: { ok: true } & StepOutput, result: RewardResult): StepResult {
    r.reward = result.reward;
    r.info.outcome = this.#outcome;
    r.info.reward_components = result.components;
    r.info.reward_details = result.details;
    r.info.segments = result.segments;
    return r;
  }

  /** The turn itself, without scoring (`reward` is 0 here; the callers add the final reward). */
  #advance(action: unknown): StepResult {
    if (this.#ended) return { ok: false, error: { code: 'RESET_NEEDED', message: 'the episode has ended; reset it' } };
    const parsed = this.params.parser.parse(action, this.#turn + 1);
    if (!parsed.ok) return { ok: false, error: { code: 'INVALID_ACTION', message: parsed.message } };
    this.#turn++;
    this.#toolsChanged = false;
    const firstNew = this.#messages.length;
    this.#messages.push(this.#assistantMessage(parsed.action));
    const info = this.#baseInfo();
    if (parsed.action.thinking !== null) info.thinking = parsed.action.thinking;

    let terminated = false;
    let truncated = false;
    const violations: HookViolation[] = [];
    const turn: TraceTurn = {
      index: this.#turn,
      thinking: parsed.action.thinking,
      content: parsed.action.content,
      calls: [],
      hook_violations: violations,
      kind: parsed.action.calls.length > 0 ? 'tool' : parsed.action.content === null ? 'empty' : 'reply',
    };
    this.#turns.push(turn);

    if (parsed.action.calls.length > 0) {
      const toolErrors: { tool_call_id: string; code: ToolErrorCode }[] = [];
      for (const call of parsed.action.calls) {
        const traced = this.#runCall(call, violations);
        turn.calls.push(traced);
        if (!traced.ok) toolErrors.push({ tool_call_id: call.id, code: traced.error as ToolErrorCode });
      }
      this.#errors += toolErrors.length;
      if (toolErrors.length > 0) info.tool_errors = toolErrors;
      if (this.#errors >= this.params.max_errors) truncated = this.#end('error_cap');
      else if (this.#turn >= this.params.max_turns) truncated = this.#end('max_turns');
    } else {
      const reply = parsed.action.content ?? '';
      const found = runReplyHooks(this.params.harness.hooks, this.#replyContext(reply));
      violations.push(...found);
      if (found.length === 0) {
        terminated = this.#accept(reply);
      } else {
        const retry = this.params.harness.retry;
        const corrected =
          retry.mode === 'auto_correct' ? autoCorrect(reply, found, this.#replyContext(reply), this.params.harness.hooks) : null;
        if (corrected !== null) {
          terminated = this.#accept(corrected);
        } else if (this.#retries < retry.max_retries && this.#turn < this.params.max_turns) {
          this.#retries++;
          this.#messages.push({ role: 'user', content: feedbackMessage(retry, found) });
        } else if (this.#turn >= this.params.max_turns && this.#retries < retry.max_retries) {
          truncated = this.#end('max_turns');
        } else {
          terminated = this.#end('hook_blocked');
        }
      }
    }
    if (violations.length > 0) info.hook_violations = violations.map((v) => ({ hook: v.hook, code: v.code }));

    // The final reward is added by `step` / `stepAsync` (#withReward), after the same keys as before.
    const reward = 0;
    const messages = this.params.observation === 'full' ? [this.#systemMessage(), ...this.#messages] : this.#messages.slice(firstNew + 1);
    // The MCP server announces its changed list on the step after discovery (tools.mcp.list_changed).
    if (this.#listChange && !this.#listChanged && this.#discoveredAt > 0 && this.#turn > this.#discoveredAt) {
      this.#listChanged = true;
      this.#toolsChanged = true;
    }
    // PROTOCOL.md: a step's observation carries `tools` only when the tool set changed, and then in full.
    const observation: Observation = this.#toolsChanged ? { messages, tools: this.offeredTools() } : { messages };
    return { ok: true, observation, reward, terminated, truncated, info };
  }

  /** The finished canonical trace (what rewards see). */
  trace(): Trace {
    const { task, canonical } = this.params;
    return {
      task_id: task.id,
      intent: task.intent,
      locale: task.locale,
      turns: this.#turns,
      loaded_skills: this.#loaded.slice(),
      reply_skill_names: canonical.skills.filter((s) => s.kind === 'reply').map((s) => s.name),
      final_reply: this.#finalReply,
      outcome: this.#outcome ?? 'max_turns',
      final_state: this.#state,
      evidence_numbers: [...this.#evidence].sort((a, b) => a - b),
      limits: { reply_max_chars: this.params.harness.limits.reply_max_chars, max_turns: this.params.max_turns },
    };
  }

  #baseInfo(): Record<string, unknown> {
    const { task, variant_id } = this.params;
    return { task_id: task.id, intent: task.intent, variant_id, turn: this.#turn };
  }

  #assistantMessage(action: ParsedAction): ChatMessage {
    const msg: ChatMessage = { role: 'assistant', content: action.content };
    if (action.calls.length > 0) {
      msg.tool_calls = action.calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments === null ? c.raw_arguments : JSON.stringify(c.arguments) },
      }));
    }
    return msg;
  }

  #replyContext(reply: string) {
    const replySkills = new Set(this.params.canonical.skills.filter((s) => s.kind === 'reply').map((s) => s.name));
    let special = false;
    const world = this.world;
    for (const id of this.#itemsInScope) {
      if (world.products.find((p) => p.item_id === id)?.regulatory_kind === 'special_cosmetic') special = true;
    }
    return {
      reply,
      locale: this.params.task.locale,
      limits: this.params.harness.limits,
      evidence_numbers: this.#evidence as ReadonlySet<number>,
      reply_skill_loaded: this.#loaded.some((s) => replySkills.has(s)),
      special_cosmetic_in_scope: special,
    };
  }

  #accept(reply: string): boolean {
    this.#finalReply = reply;
    this.#end(this.#state.refusals.length > 0 ? 'refused' : 'accepted');
    return true;
  }

  #end(outcome: Outcome): boolean {
    this.#ended = true;
    this.#outcome = outcome;
    return true;
  }

  #score(): RewardResult {
    if (!this.#reward) this.#reward = scoreEpisode(this.trace(), this.params.task, this.params.profile, this.params.registry);
    return this.#reward;
  }

  /** Handle one call: resolve, validate, dispatch, render. Pushes the `tool` message. */
  #runCall(call: ParsedCall, violations: HookViolation[]): TraceCall {
    const { map, harness } = this.params;
    const traced: TraceCall = { id: call.id, name: call.name, surface_name: call.name, arguments: null, ok: false };
    const fail = (error: ToolError, content?: string): TraceCall => {
      traced.error = error.code;
      this.#messages.push({ role: 'tool', tool_call_id: call.id, content: content ?? toolErrorContent(error) });
      return traced;
    };
    if (call.error || call.arguments === null) {
      return fail({ code: 'PARSE_ERROR', message: call.error?.message ?? 'the arguments could not be parsed' });
    }
    const canonicalName = map.toolToCanonical(call.name);
    const offered = !this.#hidden.has(call.name) && harness.tools.some((t) => t.function.name === call.name);
    if (!offered) return fail({ code: 'UNKNOWN_TOOL', message: `no tool named "${call.name}"` });
    if (canonicalName === undefined) {
      // A decoy the variant added (a distractor or a look-alike): it exists, but serves nothing here.
      traced.name = `${DECOY_PREFIX}${call.name}`;
      traced.arguments = call.arguments;
      return fail({ code: 'CONFLICT', message: `"${call.name}" is not available in this live room` });
    }
    traced.name = canonicalName;
    const canonicalSchema = this.params.canonical.tools.find((t) => t.function.name === canonicalName);
    // Map back first, then coerce raw (XML) values by the canonical types: a variant may drop type hints.
    const mapped = map.argsToCanonical(canonicalName, call.arguments);
    const args = call.untyped && canonicalSchema ? coerceArguments(mapped, canonicalSchema.function.parameters) : mapped;
    traced.arguments = args;

    const argsHook = harness.hooks.find((h) => h.id === 'tool_args');
    if (canonicalSchema && (argsHook === undefined || argsHook.enabled)) {
      const validate = validatorFor(canonicalSchema);
      if (!validate(args)) {
        const first = (validate.errors ?? [])[0];
        const field = first ? map.paramToSurface(canonicalName, errorPath(first)) : '';
        const message = first ? describeArgError(first, field) : 'invalid arguments';
        violations.push({ hook: 'tool_args', code: 'INVALID_ARGUMENTS', message, evidence: call.name });
        return fail(field ? { code: 'INVALID_ARGUMENTS', message, field } : { code: 'INVALID_ARGUMENTS', message });
      }
    }

    if (canonicalName === LOAD_SKILL_TOOL) return this.#loadSkill(call, args, traced, fail);
    if (canonicalName === DISCOVER_TOOLS_TOOL) return this.#discover(call, traced);

    const ctx = { world: this.world, state: this.#state, viewer_id: this.params.task.viewer_id };
    const faults = this.params.faults > 0 ? { rate: this.params.faults, rng: this.#faultRng } : undefined;
    // Marketing tools are served by the MCP server (same handlers, same fault draw); the rest in-process.
    const outcome = MARKETING_TOOLS.includes(canonicalName)
      ? marketingHub(this.params.task.locale).callSync(canonicalName, args, faults ? { ctx, faults } : { ctx })
      : callService(canonicalName, args, ctx, faults);
    if (!outcome.ok) {
      // The service speaks canonical names; the policy must read the variant's.
      const message = map.rewriteText(outcome.error.message);
      const error: ToolError =
        outcome.error.field === undefined
          ? { code: outcome.error.code, message }
          : { code: outcome.error.code, message, field: map.paramToSurface(canonicalName, outcome.error.field) };
      return fail(error, outcome.raw);
    }
    traced.ok = true;
    traced.result = outcome.data;
    const text = JSON.stringify(outcome.data);
    numbersOf(text, this.#evidence);
    this.#noteItems(args, outcome.data);
    this.#messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(map.resultToSurface(canonicalName, outcome.data)) });
    return traced;
  }

  /**
   * `discover_tools`: read the marketing server's `tools/list`, map its canonical names to the variant's
   * and offer them from now on. The result lists the tools found, in surface names.
   */
  #discover(call: ParsedCall, traced: TraceCall): TraceCall {
    const found: string[] = [];
    for (const t of marketingHub(this.params.task.locale).listedTools()) {
      const surface = this.params.map.toolToSurface(t.function.name);
      if (surface === undefined) continue;
      found.push(surface);
      if (this.#hidden.delete(surface)) this.#toolsChanged = true;
    }
    if (this.#discoveredAt === 0) this.#discoveredAt = this.#turn;
    traced.ok = true;
    traced.result = { server: 'marketing', tools: found };
    this.#messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ server: 'marketing', tools: found }) });
    return traced;
  }

  #loadSkill(call: ParsedCall, args: Record<string, unknown>, traced: TraceCall, fail: (e: ToolError) => TraceCall): TraceCall {
    // `args` are canonical: the parameter is `name`; its value is the skill's surface name.
    const requested = typeof args.name === 'string' ? args.name : undefined;
    const skill = this.params.harness.skills.find((s) => s.name === requested);
    if (requested === undefined || skill === undefined) {
      return fail({ code: 'NOT_FOUND', message: `no skill named "${requested ?? ''}"` });
    }
    // A distractor or near-duplicate skill loads like any other, under a name no reward expects.
    const canonicalSkill = this.params.map.skillToCanonical(requested) ?? `${DECOY_PREFIX}${requested}`;
    this.#loaded.push(canonicalSkill);
    traced.ok = true;
    traced.result = { name: canonicalSkill };
    this.#messages.push({ role: 'tool', tool_call_id: call.id, content: skill.body });
    return traced;
  }

  /** Items the conversation has touched (arguments and any `item_id` in the result, e.g. a viewer's orders). */
  #noteItems(args: Record<string, unknown>, data: unknown): void {
    if (typeof args.item_id === 'string') this.#itemsInScope.add(args.item_id);
    this.#collectItemIds(data, 0);
  }

  #collectItemIds(data: unknown, depth: number): void {
    if (depth > 4) return;
    if (Array.isArray(data)) {
      for (const v of data) this.#collectItemIds(v, depth + 1);
    } else if (isRecord(data)) {
      for (const [k, v] of Object.entries(data)) {
        if (k === 'item_id' && typeof v === 'string') this.#itemsInScope.add(v);
        else if (typeof v === 'object' && v !== null) this.#collectItemIds(v, depth + 1);
      }
    }
  }
}
