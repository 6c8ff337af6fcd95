/**
 * One episode: the production request pipeline as a Gymnasium-style state machine (DESIGN.md, "One
 * episode"). `reset` assembles the prompt in the variant's surface forms; each `step` parses the policy's
 * assistant turn, runs the hooks, maps tool calls back to canonical form for the services and renders the
 * results in surface form (the tool router, env/tool-router.ts); the final step scores the canonical
 * trace.
 *
 * Everything that varies between harness variants comes in through `Harness` (surface data) and
 * `SurfaceMap` (the bijection); nothing here names a tool, a skill or a hook's wording.
 */
import type {
  ChatMessage,
  HookViolation,
  Outcome,
  Task,
  ToolErrorCode,
  ToolSchema,
  Trace,
  TraceTurn,
  WorldState,
  RewardResult,
} from '../protocol/domain.js';
import { emptyWorldState } from '../protocol/domain.js';
import { initCustomStates } from './custom-state.js';
import type { Harness } from '../protocol/harness.js';
import { harnessSetOf } from '../harness/index.js';
import { deepFreeze } from '../protocol/objects.js';
import type { HookModule, HookModuleCall } from '../harness/index.js';
import type { SurfaceMap } from '../protocol/surface.js';
import type { ErrorInfo } from '../protocol/errors.js';
import { worldOfTask } from '../mock-services/index.js';
import type { World } from '../mock-services/index.js';
import { needsAsyncScoring, scoreEpisode, scoreEpisodeAsync } from '../rewards/index.js';
import type { RewardProfile, RewardRegistry } from '../rewards/index.js';
import { feedbackMessage, requiredEnding, runInputHooks, runReplyHooks, statedRuleHooks } from './hooks.js';
import type { ReplyHookContext } from './hooks.js';
import { autoCorrect } from './auto-correct.js';
import type { ActionParser, ParsedAction } from './parsers.js';
import { EvidenceNumbers } from './evidence.js';
import { renderSystemPrompt, roomFacts, viewerFact } from './prompt.js';
import type { RoomFacts } from './prompt.js';
import { DECOY_PREFIX, ToolRouter, numbersOf } from './tool-router.js';

/**
 * Tool errors after which a call does not count as made (ReplyHookContext `called_tools`): the call never
 * reached a service with accepted arguments.
 */
const NOT_CALLED: ReadonlySet<ToolErrorCode> = new Set<ToolErrorCode>(['PARSE_ERROR', 'UNKNOWN_TOOL', 'INVALID_ARGUMENTS']);

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
  /** The variant pool the variant was drawn from (`EnvConfig.variantPool`): records carry it for replay. */
  variant_pool: number;
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

/** A turn played, before its step result is built (a final turn's reward is scored first). */
interface PlayedTurn {
  observation: Observation;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

/** What a step on an ended episode gets (Gymnasium's `ResetNeeded`). */
export function resetNeeded(): { ok: false; error: ErrorInfo } {
  return { ok: false, error: { code: 'RESET_NEEDED', message: 'the episode has ended; reset it' } };
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
   * A task's inline world (`task.world`) is held by the task itself, so it is never collected while the
   * episode lives.
   *
   * Null until the first access after reset: creating a WeakRef keeps its target alive to the end of the
   * current job (ECMA-262 ClearKeptObjects), so references made while an episode is created and reset
   * would pin every world a batch of resets run in one job touched (a frame of many reset items, the
   * bench's loop), evicted ones included. Creation and reset look the world up instead (`#lookupWorld`).
   */
  #world: WeakRef<World> | null = null;
  readonly #state: WorldState = emptyWorldState();
  /**
   * The conversation after the system message. The system message is the largest part of an episode
   * (the whole rendered prompt) and is needed again only for a `full` observation or `messages`: it is held
   * weakly, like the world, and rendered again, identical, from what it was rendered from (`#shown`).
   * Reset keeps that weak reference only for a `full` observation (whose every step sends the message);
   * otherwise it keeps none (a WeakRef made at reset pins its target to the end of the job: see `#world`)
   * and `messages` renders the message again when asked.
   */
  readonly #messages: ChatMessage[] = [];
  #system: WeakRef<ChatMessage> | null = null;
  /** The harness as the system prompt showed it at reset (the tools offered then). */
  #shown: Harness | null = null;
  readonly #turns: TraceTurn[] = [];
  readonly #loaded: string[] = [];
  readonly #evidence = new EvidenceNumbers();
  readonly #itemsInScope = new Set<string>();
  #replyCtx: { turn: number; ctx: ReplyHookContext } | null = null;
  #turn = 0;
  #errors = 0;
  #retries = 0;
  #ended = false;
  #outcome: Outcome | null = null;
  #finalReply: string | null = null;
  #reward: RewardResult | null = null;
  /** The episode's tools: what is offered, and how calls reach the services (env/tool-router.ts). */
  readonly #router: ToolRouter;

  constructor(params: EpisodeParams) {
    this.params = params;
    this.#router = new ToolRouter(params, {
      world: () => this.world,
      state: this.#state,
      evidence: this.#evidence,
      itemsInScope: this.#itemsInScope,
      loaded: this.#loaded,
    });
    // Stateful custom services start from their initial states (none: the overlay keeps its bytes).
    initCustomStates(this.#state, params.canonical, () => this.#lookupWorld());
  }

  /** The tools the episode offers now, in the harness's order. */
  offeredTools(): ToolSchema[] {
    return this.#router.offeredTools();
  }

  /** The episode's world: the task source's own (`params.world`), or the task's (`worldOfTask`: inline, or generated). */
  get world(): World {
    let world = this.params.world ?? this.#world?.deref();
    if (world === undefined) {
      world = worldOfTask(this.params.task);
      this.#world = new WeakRef(world);
    }
    return world;
  }

  /** The world, as `world` gives it, without making a WeakRef (see `#world`): for reset. */
  #lookupWorld(): World {
    return this.params.world ?? this.#world?.deref() ?? worldOfTask(this.params.task);
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
    const world = this.#lookupWorld();
    // The prompt renders from the shared list (its tools doc is memoised per frozen list); the observation
    // gets a copy of its own.
    const list = this.#router.offeredList();
    const offered = this.#router.offeredTools(list);
    // The room's facts are the same in the variant's prompt and in the canonical facts below: built once.
    const room = roomFacts(world, task.locale);
    const shown = list.length === harness.tools.length ? harness : { ...harness, tools: list as ToolSchema[] }; // frozen: read only
    const system: ChatMessage = { role: 'system', content: renderSystemPrompt(shown, world, task, false, room) };
    this.#shown = shown;
    this.#system = this.params.observation === 'full' ? new WeakRef(system) : null;
    for (const line of task.history) this.#messages.push({ role: line.role, content: line.content });
    const userText = task.messages.join('\n');
    this.#messages.push({ role: 'user', content: userText });

    // Evidence comes from canonical facts, never from the variant's wording, so that every variant
    // allows exactly the same numbers (task preservation).
    this.#evidence.setBase(roomNumbers(room));
    numbersOf(viewerFact(this.params.canonical, world, task), this.#evidence);
    for (const line of task.history) numbersOf(line.content, this.#evidence);
    numbersOf(userText, this.#evidence);
    const current = world.products.find((p) => p.link_no === world.room.current_link);
    if (current) this.#itemsInScope.add(current.item_id);

    const modules = this.#hookModules();
    const inputViolations =
      modules === undefined ? runInputHooks(harness.hooks, userText) : runInputHooks(harness.hooks, userText, task.locale, { world, modules });
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
    const played = this.#advance(action);
    if (!played.ok) return played;
    return this.#result(played, this.#ended ? this.#score() : null);
  }

  /**
   * `step`, awaiting the profile's async reward modules on the final step. Everything up to scoring runs
   * synchronously before the first await (the episode's state advances in call order); for profiles
   * without async modules the result equals `step`'s, byte for byte.
   */
  async stepAsync(action: unknown): Promise<StepResult> {
    const played = this.#advance(action);
    if (!played.ok) return played;
    if (!this.#ended) return this.#result(played, null);
    if (!this.#reward) {
      const { task, profile, registry } = this.params;
      this.#reward = this.needsAsyncScoring
        ? await scoreEpisodeAsync(this.trace(), task, profile, registry)
        : scoreEpisode(this.trace(), task, profile, registry);
    }
    return this.#result(played, this.#reward);
  }

  /**
   * A step's result, built once from the turn played and, on the final step, its reward (null before):
   * the final step's `info` carries the outcome and the reward's parts after the turn's own keys, the
   * order clients have always seen.
   */
  #result(played: PlayedTurn, final: RewardResult | null): StepResult {
    const { observation, terminated, truncated, info } = played;
    if (final === null) return { ok: true, observation, reward: 0, terminated, truncated, info };
    info.outcome = this.#outcome;
    info.reward_components = final.components;
    info.reward_details = final.details;
    info.segments = final.segments;
    // Only when a gate lowered the reward, so that uncapped results keep their bytes.
    if (final.caps !== undefined) info.reward_caps = final.caps;
    return { ok: true, observation, reward: final.reward, terminated, truncated, info };
  }

  /** The turn itself, without scoring: what it observed and ended (the caller builds the result). */
  #advance(action: unknown): ({ ok: true } & PlayedTurn) | { ok: false; error: ErrorInfo } {
    if (this.#ended) return resetNeeded();
    const parsed = this.params.parser.parse(action, this.#turn + 1);
    if (!parsed.ok) return { ok: false, error: { code: 'INVALID_ACTION', message: parsed.message } };
    this.#turn++;
    this.#router.beginStep(this.#turn);
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
        const { traced, content } = this.#router.call(call, violations);
        this.#messages.push({ role: 'tool', tool_call_id: call.id, content });
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
          this.#messages.push({ role: 'user', content: feedbackMessage(retry, found, this.params.harness.hooks, this.#hookModules()) });
        } else if (this.#turn >= this.params.max_turns && this.#retries < retry.max_retries) {
          truncated = this.#end('max_turns');
        } else {
          terminated = this.#end('hook_blocked');
        }
      }
    }
    if (violations.length > 0) info.hook_violations = violations.map((v) => ({ hook: v.hook, code: v.code }));

    const messages = this.params.observation === 'full' ? [this.#systemMessage(), ...this.#messages] : this.#messages.slice(firstNew + 1);
    // PROTOCOL.md: a step's observation carries `tools` only when the tool set changed, and then in full.
    const observation: Observation = this.#router.endStep() ? { messages, tools: this.offeredTools() } : { messages };
    return { ok: true, observation, terminated, truncated, info };
  }

  /** The finished canonical trace (what rewards see). */
  trace(): Trace {
    const { task, canonical, harness } = this.params;
    const reply = this.#finalReply;
    const ending = requiredEnding(harness);
    const trace: Trace = {
      task_id: task.id,
      intent: task.intent,
      locale: task.locale,
      turns: this.#turns,
      loaded_skills: this.#loaded.slice(),
      reply_skill_names: [...replySkillNames(canonical)],
      final_reply: this.#finalReply,
      outcome: this.#outcome ?? 'max_turns',
      final_state: this.#state,
      evidence_numbers: this.#evidence.sorted(),
      limits: { reply_max_chars: harness.limits.reply_max_chars, max_turns: this.params.max_turns },
      // The rules the prompt states bind whether or not a hook checks them (rewards score the breaches).
      rule_violations: reply === null ? [] : runReplyHooks(statedRuleHooks(harness), this.#replyContext(reply)),
    };
    if (ending !== undefined) trace.required_ending = ending;
    const renamed = renamedOperations(canonical);
    if (renamed !== undefined) trace.tool_operations = renamed;
    return trace;
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

  /**
   * The reply hooks' context for `reply` at this turn. Made once per turn and reply: the hooks, an auto
   * correction and the finished trace's stated rules read the same state (nothing changes an episode
   * between them).
   */
  #replyContext(reply: string): ReplyHookContext {
    const memo = this.#replyCtx;
    if (memo !== null && memo.turn === this.#turn && memo.ctx.reply === reply) return memo.ctx;
    const replySkills = replySkillNames(this.params.canonical);
    let special = false;
    const products = this.world.products;
    for (const id of this.#itemsInScope) {
      for (let i = 0; i < products.length; i++) {
        if (products[i].item_id === id) {
          if (products[i].regulatory_kind === 'special_cosmetic') special = true;
          break;
        }
      }
    }
    const ctx: ReplyHookContext = {
      reply,
      locale: this.params.task.locale,
      limits: this.params.harness.limits,
      evidence_numbers: this.#evidence as ReadonlySet<number>,
      reply_skill_loaded: this.#loaded.some((s) => replySkills.has(s)),
      special_cosmetic_in_scope: special,
      called_tools: this.#calledTools(),
    };
    const modules = this.#hookModules();
    if (modules !== undefined) {
      ctx.modules = modules;
      ctx.world = this.world;
      ctx.calls = this.#moduleCalls();
    }
    this.#replyCtx = { turn: this.#turn, ctx };
    return ctx;
  }

  /** The harness's hook modules (docs/HARNESS.md "Hook modules"), or undefined when it has none. */
  #hookModules(): ReadonlyMap<string, HookModule> | undefined {
    const modules = harnessSetOf(this.params.canonical).hookModules;
    return modules.size > 0 ? modules : undefined;
  }

  /** The episode's calls so far as module hooks read them: canonical, decoys left out, frozen. */
  #moduleCalls(): readonly HookModuleCall[] {
    const out: HookModuleCall[] = [];
    for (const turn of this.#turns) {
      for (const c of turn.calls) {
        if (c.name.startsWith(DECOY_PREFIX)) continue;
        const call: HookModuleCall = {
          tool: c.name,
          arguments: c.arguments === null ? null : deepFreeze(structuredClone(c.arguments)),
          accepted: !(c.error !== undefined && NOT_CALLED.has(c.error)),
          ok: c.ok,
        };
        if (c.ok) call.result = deepFreeze(structuredClone(c.result ?? null));
        if (c.error !== undefined) call.error = c.error;
        out.push(Object.freeze(call));
      }
    }
    return Object.freeze(out);
  }

  /**
   * Canonical names of the tools called so far whose arguments were accepted (ReplyHookContext
   * `called_tools`), read from the trace: its calls carry canonical names already.
   */
  #calledTools(): ReadonlySet<string> {
    const out = new Set<string>();
    for (const turn of this.#turns) {
      for (const c of turn.calls) {
        if (c.error !== undefined && NOT_CALLED.has(c.error)) continue;
        if (c.name.startsWith(DECOY_PREFIX)) continue;
        out.add(c.name);
      }
    }
    return out;
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
}

const replySkillMemo = new WeakMap<Harness, ReadonlySet<string>>();

/** The names of a canonical harness's reply skills. */
function replySkillNames(canonical: Harness): ReadonlySet<string> {
  let names = replySkillMemo.get(canonical);
  if (names === undefined) {
    names = new Set(canonical.skills.filter((s) => s.kind === 'reply').map((s) => s.name));
    replySkillMemo.set(canonical, names);
  }
  return names;
}

const renamedMemo = new WeakMap<Harness, Record<string, string> | null>();

/**
 * The built-in operations a harness's tools answer under other names than the embedded ones
 * (`{ load_skill: 'open_skill' }`), for the trace's `tool_operations`; undefined when there are none.
 */
export function renamedOperations(canonical: Harness): Record<string, string> | undefined {
  let hit = renamedMemo.get(canonical);
  if (hit === undefined) {
    const out: Record<string, string> = {};
    for (const [tool, b] of harnessSetOf(canonical).bindings.tools) if (b.kind === 'builtin' && b.op !== tool) out[b.op] = tool;
    hit = Object.keys(out).length > 0 ? Object.freeze(out) : null;
    renamedMemo.set(canonical, hit);
  }
  return hit ?? undefined;
}

/** The numbers of a room's facts (product on screen, lineup, FAQ, room state), once per (memoised) room. */
function roomNumbers(room: RoomFacts): ReadonlySet<number> {
  let found = roomNumberMemo.get(room);
  if (found === undefined) {
    const into = new Set<number>();
    for (const text of [room.current_product, room.lineup, room.faq, room.room]) numbersOf(text, into);
    roomNumberMemo.set(room, (found = into));
  }
  return found;
}

const roomNumberMemo = new WeakMap<RoomFacts, ReadonlySet<number>>();
