/**
 * The tool router of an episode: which tools it offers (the marketing tools only after MCP discovery, a
 * variant's announced parameter only after its list change), and one call's way from the policy's surface
 * form to a canonical service and back (resolve the name, map the arguments back, validate them against the
 * canonical schema, answer `load_skill` and `discover_tools` itself, dispatch the rest to the simulated
 * services with the episode's fault stream, render the result in the variant's field names).
 *
 * It shares the episode's mutable facts (the world overlay, the evidence numbers, the items in scope, the
 * skills loaded) by reference; the episode keeps the conversation, the hooks and the score.
 */
import type { EvidenceNumbers } from './evidence.js';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import AjvModule from 'ajv';
import type { HookViolation, JsonSchema, ToolError, ToolOutcome, ToolSchema, TraceCall, WorldState } from '../protocol/domain.js';
import { harnessSetOf } from '../harness/index.js';
import { callCustomWithState } from './custom-state.js';
import { MCP_LIST_CHANGED_MARK, hookKind } from '../protocol/harness.js';
import { Rng } from '../protocol/rng.js';
import { extractNumbers } from '../protocol/text.js';
import { shareEncoding } from '../protocol/codec.js';
import { callService } from '../mock-services/index.js';
import type { World } from '../mock-services/index.js';
import { coerceArguments } from './parsers.js';
import type { ParsedCall } from './parsers.js';
import { DISCOVER_TOOLS_TOOL, MARKETING_TOOLS, marketingHub } from './mcp.js';
import type { Harness } from '../protocol/harness.js';
import type { SurfaceMap } from '../protocol/surface.js';
import type { Task } from '../protocol/domain.js';
import { isRecord } from '../protocol/objects.js';
import { runToolArgsHooks } from './hooks.js';

// ajv ships CommonJS with a default export; under NodeNext the class sits on `.default`.
const Ajv = (AjvModule as unknown as { default: typeof AjvType }).default ?? (AjvModule as unknown as typeof AjvType);

/** The canonical name of the progressive-disclosure tool, answered by the episode itself. */
export const LOAD_SKILL_TOOL = 'load_skill';

/** Canonical-trace prefix of tools and skills a variant added as decoys (they map to nothing canonical). */
export const DECOY_PREFIX = 'decoy:';

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

/** Add every number of a text to a set (the evidence a reply may state). */
export function numbersOf(text: string, into: { add(n: number): unknown }): void {
  for (const n of extractNumbers(text)) into.add(n);
}

function toolErrorContent(error: ToolError): string {
  return JSON.stringify(error.field === undefined ? { error: { code: error.code, message: error.message } } : { error });
}

/** Whether a parameter schema has a property marked as announced later (`tools.mcp.list_changed`). */
function hasMark(schema: JsonSchema, depth: number): boolean {
  const props = schema.properties;
  if (!isRecord(props) || depth > 2) return false;
  // Every own property, as Object.values would list them, without the array (asked of every tool at reset).
  for (const k in props) {
    if (!Object.hasOwn(props, k)) continue;
    const p = props[k];
    if (isRecord(p) && (p[MCP_LIST_CHANGED_MARK] === true || hasMark(p, depth + 1))) return true;
  }
  return false;
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

/**
 * The canonical tools of a base harness that its MCP server serves: the marketing tools under their
 * embedded names, when the harness has a discovery tool to find them (otherwise they are plain tools).
 */
export function mcpTools(canonical: Harness): readonly string[] {
  // Asked by every episode's router: once per (frozen) base harness.
  let tools = mcpMemo.get(canonical);
  if (tools === undefined) {
    const b = harnessSetOf(canonical).bindings;
    if (b.identity) tools = MARKETING_TOOLS;
    else if (b.discoverTool === undefined) tools = [];
    else tools = MARKETING_TOOLS.filter((t) => b.opOf(t) === t && canonical.tools.some((x) => x.function.name === t));
    if (Object.isFrozen(canonical)) mcpMemo.set(canonical, tools);
  }
  return tools;
}

const mcpMemo = new WeakMap<Harness, readonly string[]>();

/**
 * The names of a tool list's tools with a property marked as announced later: once per frozen list (a
 * compiled variant's or a base harness's, whose schemas never change), else computed.
 */
function markedTools(tools: readonly ToolSchema[]): ReadonlySet<string> {
  let names = Object.isFrozen(tools) ? markMemo.get(tools) : undefined;
  if (names === undefined) {
    const found = new Set<string>();
    for (const t of tools) if (hasMark(t.function.parameters, 0)) found.add(t.function.name);
    names = found;
    if (Object.isFrozen(tools)) markMemo.set(tools, names);
  }
  return names;
}

const markMemo = new WeakMap<readonly ToolSchema[], ReadonlySet<string>>();

/** What a router reads of its episode's params (env/episode.ts `EpisodeParams`). */
export interface RouterParams {
  seed: number;
  task: Task;
  harness: Harness;
  canonical: Harness;
  map: SurfaceMap;
  faults: number;
}

/** The episode's facts a router reads and adds to (owned by the episode). */
export interface RouterFacts {
  world: () => World;
  state: WorldState;
  evidence: EvidenceNumbers;
  itemsInScope: Set<string>;
  loaded: string[];
}

/** Tools by name, per frozen tool list (a compiled variant's, the base harness's): asked on every call. */
const toolsByName = new WeakMap<readonly ToolSchema[], ReadonlyMap<string, ToolSchema>>();

/** The tool of a list with this name (the first, as `find` would), or undefined. */
function toolNamed(tools: readonly ToolSchema[], name: string): ToolSchema | undefined {
  if (!Object.isFrozen(tools)) return tools.find((t) => t.function.name === name);
  let byName = toolsByName.get(tools);
  if (byName === undefined) {
    const m = new Map<string, ToolSchema>();
    for (const t of tools) if (!m.has(t.function.name)) m.set(t.function.name, t);
    toolsByName.set(tools, (byName = m));
  }
  return byName.get(name);
}

function hasTool(tools: readonly ToolSchema[], name: string): boolean {
  return toolNamed(tools, name) !== undefined;
}

/**
 * The surface names of the MCP tools an episode starts without: per frozen surface tool list (a compiled
 * variant's, whose map's tools are the same for every episode drawn to it), shared and never changed.
 */
function initialHidden(params: RouterParams): ReadonlySet<string> {
  const tools = params.harness.tools;
  let hidden = Object.isFrozen(tools) ? hiddenMemo.get(tools)?.get(params.canonical) : undefined;
  if (hidden === undefined) {
    const names = new Set<string>();
    for (const t of mcpTools(params.canonical)) {
      const surface = params.map.toolToSurface(t);
      if (surface !== undefined) names.add(surface);
    }
    hidden = names;
    if (Object.isFrozen(tools)) {
      let byCanonical = hiddenMemo.get(tools);
      if (byCanonical === undefined) hiddenMemo.set(tools, (byCanonical = new WeakMap()));
      byCanonical.set(params.canonical, hidden);
    }
  }
  return hidden;
}

const hiddenMemo = new WeakMap<readonly ToolSchema[], WeakMap<Harness, ReadonlySet<string>>>();

/** The list offered before discovery, per frozen tool list, with the names it hid. */
const initialOffered = new WeakMap<readonly ToolSchema[], { hidden: readonly string[]; list: readonly ToolSchema[] }>();

function sameNames(names: readonly string[], set: ReadonlySet<string>): boolean {
  if (names.length !== set.size) return false;
  for (const n of names) if (!set.has(n)) return false;
  return true;
}

/**
 * One call, handled: its trace and the content of its `tool` message. Returned, not kept: a tool result
 * is a kilobyte the episode would otherwise hold until its next call.
 */
export interface CallOutcome {
  traced: TraceCall;
  content: string;
}

/** A refused call: its trace entry completed with the error's code, and its `tool` message (the error, or `content`). */
function failed(traced: TraceCall, error: ToolError, content?: string): CallOutcome {
  traced.error = error.code;
  return { traced, content: content ?? toolErrorContent(error) };
}

/** One episode's tools: what is offered, and the calls. */
export class ToolRouter {
  readonly params: RouterParams;
  readonly #facts: RouterFacts;
  /** The fault stream, made on the first call that can fault (`faults` > 0). */
  #faultRng: Rng | null = null;
  /**
   * Surface names of the MCP tools not yet discovered: not offered, UNKNOWN_TOOL when called. Episodes of
   * one compiled variant start with the same names: a shared set until discovery removes some
   * (`#ownHidden`), then a copy of the router's own.
   */
  #hidden: ReadonlySet<string>;
  #hiddenOwned = false;
  /** Whether the offered tool list changed during the current step (the observation then carries it). */
  #toolsChanged = false;
  /** The turn discovery happened on (0: not yet). */
  #discoveredAt = 0;
  /** `tools.mcp.list_changed`: whether this variant's MCP server announces a changed list, and whether it has. */
  readonly #listChange: boolean;
  #listChanged = false;
  /** The turn being played (discovery records it). */
  #turn = 0;

  constructor(params: RouterParams, facts: RouterFacts) {
    this.params = params;
    this.#facts = facts;
    // The marketing tools arrive through discovery (MCP), as in production; the harness holds them all.
    this.#hidden = initialHidden(params);
    let listChange = false;
    if (this.#hidden.size > 0) {
      const marked = markedTools(params.harness.tools);
      for (const name of this.#hidden) if (marked.has(name)) listChange = true;
    }
    this.#listChange = listChange;
  }

  /** The hidden names as a set of this router's own, to change. */
  #ownHidden(): Set<string> {
    if (!this.#hiddenOwned) {
      this.#hidden = new Set(this.#hidden);
      this.#hiddenOwned = true;
    }
    return this.#hidden as Set<string>;
  }

  /** The tools the episode offers now, in the harness's order: a list of its own (a copy of `list`, `offeredList()`'s). */
  offeredTools(list: readonly ToolSchema[] = this.offeredList()): ToolSchema[] {
    const copy = list.slice();
    if (Object.isFrozen(list)) shareEncoding(list, copy);
    return copy;
  }

  /**
   * The tools the episode offers now, not to be changed. Before discovery every episode of a compiled
   * variant (a frozen list, shared) offers the same list: it is made once per list, frozen (so the prompt's
   * tools doc is made once for it too), and written as MessagePack once (its schemas never change:
   * deep-frozen under the tests).
   */
  offeredList(): readonly ToolSchema[] {
    const all = this.params.harness.tools;
    if (this.#discoveredAt !== 0 || !Object.isFrozen(all)) return this.#offeredNow();
    let memo = initialOffered.get(all);
    if (memo === undefined || !sameNames(memo.hidden, this.#hidden)) {
      memo = { hidden: [...this.#hidden], list: Object.freeze(this.#offeredNow()) };
      initialOffered.set(all, memo);
    }
    return memo.list;
  }

  #offeredNow(): ToolSchema[] {
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

  /** A step begins (turn `turn`): the tool list has not changed yet. */
  beginStep(turn: number): void {
    this.#turn = turn;
    this.#toolsChanged = false;
  }

  /**
   * A step ends: whether its observation must carry the tool list (it changed). The MCP server announces
   * its changed list on the step after discovery (tools.mcp.list_changed).
   */
  endStep(): boolean {
    if (this.#listChange && !this.#listChanged && this.#discoveredAt > 0 && this.#turn > this.#discoveredAt) {
      this.#listChanged = true;
      this.#toolsChanged = true;
    }
    return this.#toolsChanged;
  }

  /** Handle one call: resolve, validate, dispatch, render. Its trace, and the content of its `tool` message. */
  call(call: ParsedCall, violations: HookViolation[]): CallOutcome {
    return this.#runCall(call, violations);
  }

  #runCall(call: ParsedCall, violations: HookViolation[]): CallOutcome {
    const traced: TraceCall = { id: call.id, name: call.name, surface_name: call.name, arguments: null, ok: false };
    const target = this.#target(call);
    if (!target.ok) {
      if (target.decoy) {
        traced.name = `${DECOY_PREFIX}${call.name}`;
        traced.arguments = call.arguments;
      }
      return failed(traced, target.error);
    }
    const { canonicalName, args } = target;
    traced.name = canonicalName;
    traced.arguments = args;
    const refused = this.#checkArguments(call, canonicalName, args, target.schema);
    if (refused !== null) {
      violations.push(...refused.violations);
      return failed(traced, refused.error);
    }
    const set = harnessSetOf(this.params.canonical);
    const binding = set.bindings.tools.get(canonicalName);
    const op = binding?.kind === 'builtin' ? binding.op : undefined;
    if (op === LOAD_SKILL_TOOL) return this.#loadSkill(call, args, traced, (e) => failed(traced, e));
    if (op === DISCOVER_TOOLS_TOOL) return this.#discover(call, traced);
    const served = this.#dispatch(call, canonicalName, args, binding, op);
    if (served.state_change !== undefined) traced.state_change = served.state_change;
    return this.#answer(traced, canonicalName, args, served.outcome);
  }

  /**
   * Which tool a call names, and its arguments in canonical form: a parse error, a tool not offered and a
   * decoy (offered, serving nothing: `decoy`, traced under its decoy name) are refusals. Raw (XML) values
   * are coerced by the canonical types after mapping back: a variant may drop type hints.
   */
  #target(
    call: ParsedCall,
  ):
    | { ok: true; canonicalName: string; args: Record<string, unknown>; schema: ToolSchema | undefined }
    | { ok: false; error: ToolError; decoy?: true } {
    const { map, harness } = this.params;
    if (call.error || call.arguments === null) {
      return { ok: false, error: { code: 'PARSE_ERROR', message: call.error?.message ?? 'the arguments could not be parsed' } };
    }
    const canonicalName = map.toolToCanonical(call.name);
    const offered = !this.#hidden.has(call.name) && hasTool(harness.tools, call.name);
    if (!offered) return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `no tool named "${call.name}"` } };
    if (canonicalName === undefined) {
      // A decoy the variant added (a distractor or a look-alike): it exists, but serves nothing here.
      return { ok: false, error: { code: 'CONFLICT', message: `"${call.name}" is not available in this live room` }, decoy: true };
    }
    const schema = toolNamed(this.params.canonical.tools, canonicalName);
    const mapped = map.argsToCanonical(canonicalName, call.arguments);
    const args = call.untyped && schema ? coerceArguments(mapped, schema.function.parameters) : mapped;
    return { ok: true, canonicalName, args, schema };
  }

  /**
   * The hook checks of a call's arguments, or null when they pass: the tool's schema (the library's
   * `tool_args` hook, when enabled, reports its objection; without the hook it is reported as
   * `tool_args`), then the harness's hook modules at stage `tool_args` (docs/HARNESS.md "Hook modules"):
   * an objection refuses the call as the schema would, so the call does not count as made.
   */
  #checkArguments(
    call: ParsedCall,
    canonicalName: string,
    args: Record<string, unknown>,
    schema: ToolSchema | undefined,
  ): { error: ToolError; violations: HookViolation[] } | null {
    const { map, harness } = this.params;
    const locale = this.params.task.locale;
    const argsHook = harness.hooks.find((h) => hookKind(h) === 'tool_args');
    if (schema && (argsHook === undefined || argsHook.enabled)) {
      const validate = validatorFor(schema);
      if (!validate(args)) {
        const first = (validate.errors ?? [])[0];
        const field = first ? map.paramToSurface(canonicalName, errorPath(first)) : '';
        const message = first ? describeArgError(first, field) : 'invalid arguments';
        const schema_error = { message, evidence: call.name };
        const violations: HookViolation[] =
          argsHook !== undefined
            ? runToolArgsHooks([argsHook], { tool: canonicalName, arguments: args, locale, schema_error })
            : [{ hook: 'tool_args', code: 'INVALID_ARGUMENTS', message, evidence: call.name }];
        return { error: field ? { code: 'INVALID_ARGUMENTS', message, field } : { code: 'INVALID_ARGUMENTS', message }, violations };
      }
    }
    const set = harnessSetOf(this.params.canonical);
    if (set.hookModules.size === 0) return null;
    const found = runToolArgsHooks(harness.hooks, {
      tool: canonicalName,
      arguments: args,
      locale,
      world: this.#facts.world(),
      modules: set.hookModules,
    });
    if (found.length === 0) return null;
    return { error: { code: 'INVALID_ARGUMENTS', message: map.rewriteText(found.map((v) => v.message).join('; ')) }, violations: found };
  }

  /** The fault draw of this episode's calls: none when `faults` is 0, else its rate and the episode's fault stream. */
  #faults(): { rate: number; rng: Rng } | undefined {
    return this.params.faults > 0 ? { rate: this.params.faults, rng: (this.#faultRng ??= new Rng(this.params.seed, 'faults')) } : undefined;
  }

  /**
   * A call served: by a harness's custom service (a stateful one may change `state.custom`,
   * env/custom-state.ts, and says how), by the MCP marketing server (same handlers, same fault draw), or
   * by the in-process services; UNKNOWN_TOOL when nothing answers.
   */
  #dispatch(
    call: ParsedCall,
    canonicalName: string,
    args: Record<string, unknown>,
    binding: ReturnType<ReturnType<typeof harnessSetOf>['bindings']['tools']['get']>,
    op: string | undefined,
  ): { outcome: ToolOutcome; state_change?: TraceCall['state_change'] } {
    const ctx = { world: this.#facts.world(), state: this.#facts.state, viewer_id: this.params.task.viewer_id };
    const faults = this.#faults();
    const unanswered: ToolOutcome = { ok: false, error: { code: 'UNKNOWN_TOOL', message: `no service answers "${call.name}"` } };
    if (binding?.kind === 'custom') {
      const service = harnessSetOf(this.params.canonical).services.get(binding.module);
      const answered = service
        ? callCustomWithState(
            service,
            canonicalName,
            args,
            { world: ctx.world, state: ctx.state, viewer_id: ctx.viewer_id, locale: this.params.task.locale },
            this.#facts.state,
            faults,
          )
        : undefined;
      const outcome = answered?.outcome ?? unanswered;
      return answered?.change !== undefined ? { outcome, state_change: answered.change } : { outcome };
    }
    if (op === undefined) return { outcome: unanswered };
    if (op === canonicalName && MARKETING_TOOLS.includes(op)) {
      return {
        outcome: marketingHub(this.params.task.locale, this.params.canonical).callSync(op, args, faults ? { ctx, faults } : { ctx }),
      };
    }
    return { outcome: callService(op, args, ctx, faults) };
  }

  /**
   * The call's trace entry and `tool` message from its outcome: an error rewritten to the variant's names
   * (the services speak canonical ones), or the result, whose numbers become evidence and whose items are
   * noted, mapped to the variant's field names.
   */
  #answer(traced: TraceCall, canonicalName: string, args: Record<string, unknown>, outcome: ToolOutcome): CallOutcome {
    const { map } = this.params;
    if (!outcome.ok) {
      const message = map.rewriteText(outcome.error.message);
      const error: ToolError =
        outcome.error.field === undefined
          ? { code: outcome.error.code, message }
          : { code: outcome.error.code, message, field: map.paramToSurface(canonicalName, outcome.error.field) };
      return failed(traced, error, outcome.raw);
    }
    traced.ok = true;
    traced.result = outcome.data;
    const text = JSON.stringify(outcome.data);
    numbersOf(text, this.#facts.evidence);
    this.#noteItems(args, outcome.data);
    // A map that renames no result field gives the data back as it is: its text is the one just made.
    const surface = map.resultToSurface(canonicalName, outcome.data);
    return { traced, content: surface === outcome.data ? text : JSON.stringify(surface) };
  }

  /**
   * `discover_tools`: read the marketing server's `tools/list`, map its canonical names to the variant's
   * and offer them from now on. The result lists the tools found, in surface names.
   */
  #discover(call: ParsedCall, traced: TraceCall): CallOutcome {
    const found: string[] = [];
    for (const t of marketingHub(this.params.task.locale, this.params.canonical).listedTools()) {
      const surface = this.params.map.toolToSurface(t.function.name);
      if (surface === undefined) continue;
      found.push(surface);
      if (this.#hidden.has(surface)) {
        this.#ownHidden().delete(surface);
        this.#toolsChanged = true;
      }
    }
    if (this.#discoveredAt === 0) this.#discoveredAt = this.#turn;
    traced.ok = true;
    traced.result = { server: 'marketing', tools: found };
    return { traced, content: JSON.stringify({ server: 'marketing', tools: found }) };
  }

  #loadSkill(call: ParsedCall, args: Record<string, unknown>, traced: TraceCall, fail: (e: ToolError) => CallOutcome): CallOutcome {
    // `args` are canonical: the parameter is `name`; its value is the skill's surface name.
    const requested = typeof args.name === 'string' ? args.name : undefined;
    const skill = this.params.harness.skills.find((s) => s.name === requested);
    if (requested === undefined || skill === undefined) {
      return fail({ code: 'NOT_FOUND', message: `no skill named "${requested ?? ''}"` });
    }
    // A distractor or near-duplicate skill loads like any other, under a name no reward expects.
    const canonicalSkill = this.params.map.skillToCanonical(requested) ?? `${DECOY_PREFIX}${requested}`;
    this.#facts.loaded.push(canonicalSkill);
    traced.ok = true;
    traced.result = { name: canonicalSkill };
    return { traced, content: skill.body };
  }

  /** Items the conversation has touched (arguments and any `item_id` in the result, e.g. a viewer's orders). */
  #noteItems(args: Record<string, unknown>, data: unknown): void {
    if (typeof args.item_id === 'string') this.#facts.itemsInScope.add(args.item_id);
    this.#collectItemIds(data, 0);
  }

  #collectItemIds(data: unknown, depth: number): void {
    if (depth > 4) return;
    if (Array.isArray(data)) {
      for (const v of data) this.#collectItemIds(v, depth + 1);
    } else if (isRecord(data)) {
      for (const [k, v] of Object.entries(data)) {
        if (k === 'item_id' && typeof v === 'string') this.#facts.itemsInScope.add(v);
        else if (typeof v === 'object' && v !== null) this.#collectItemIds(v, depth + 1);
      }
    }
  }
}
