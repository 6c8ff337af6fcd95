/**
 * The oracle: privileged, it knows the task's answer key and the variant's surface names, and solves the
 * task the canonical way, written in the episode's surface forms. Its reward must not move across variants
 * (task preservation); that is what proves the mapping machinery.
 *
 * Plan: one turn loading the reply skills and making every required call; calls that hit an injected fault
 * are retried on the next turn; then the reference reply.
 */
import type { CanonicalCall } from '../protocol/domain.js';
import type { Harness } from '../protocol/harness.js';
import { hookKind } from '../protocol/harness.js';
import type { EpisodeStart, Policy, PolicyInstance, PolicyObservation, SurfaceCall } from './policy.js';
import { toSurface, writeCalls, writeReply } from './policy.js';
import { embeddedHarness, harnessSetOf } from '../harness/index.js';

const LOAD_SKILL = 'load_skill';
const DISCOVER_TOOLS = 'discover_tools';
/** Canonical tools served by the marketing MCP server (mock-services/mcp.ts `MARKETING_TOOLS`). */
const MARKETING = new Set(['get_promotions', 'get_coupon', 'issue_coupon']);

/**
 * The reference reply as this harness wants it said: an IFEval-style `required_ending` that a variant's
 * output constraints demand is appended (the prompt states it, so a real agent can do the same).
 */
function withRequiredEnding(reply: string, harness: Harness): string {
  const hook = harness.hooks.find((h) => hookKind(h) === 'output_constraints' && h.enabled);
  const ending = hook?.params.required_ending;
  if (typeof ending !== 'string' || ending.length === 0 || reply.endsWith(ending)) return reply;
  // Latin text needs a space after a sentence's end; Chinese does not.
  return /[.!?]$/.test(reply) && /^[A-Za-z]/.test(ending) ? `${reply} ${ending}` : reply + ending;
}

class OracleInstance implements PolicyInstance {
  readonly #parser: string;
  readonly #reply: string;
  #pending: SurfaceCall[];
  #sent = new Map<string, SurfaceCall>();
  #turn = 0;

  constructor(start: EpisodeStart) {
    const ctx = start.privileged;
    if (!ctx) throw new Error('the oracle needs privileged context');
    this.#parser = start.parser;
    const key = ctx.task.answer_key;
    // Marketing tools are offered only after MCP discovery: a solution that uses one discovers first
    // (generated answer keys already do; a hand-written task file may not).
    // The base harness names its tools: the skill-loading and discovery tools are found by what they do.
    const b = harnessSetOf(ctx.canonical ?? embeddedHarness().get(ctx.task.locale)).bindings;
    const loadSkill = b.loadSkillTool ?? LOAD_SKILL;
    const discover = b.discoverTool ?? DISCOVER_TOOLS;
    const needsDiscovery =
      b.discoverTool !== undefined && key.solution.some((c) => MARKETING.has(c.name) && b.opOf(c.name) === c.name) && !key.solution.some((c) => c.name === discover);
    const canonical: CanonicalCall[] = [
      ...key.reply_skills.map((s) => ({ name: loadSkill, arguments: { name: ctx.map.skillToSurface(s) ?? s } })),
      ...(needsDiscovery ? [{ name: discover, arguments: { server: 'marketing' } }] : []),
      ...key.solution,
    ];
    this.#pending = [];
    canonical.forEach((c, i) => {
      const surface = toSurface(ctx.map, c, `call_o${i}`);
      if (surface) this.#pending.push(surface);
    });
    this.#reply = withRequiredEnding(key.reference_reply, ctx.harness);
  }

  act(_obs: PolicyObservation, info: Record<string, unknown>): unknown {
    this.#turn++;
    if (this.#turn > 1) {
      // Retry what failed (an injected timeout, a malformed answer, a denied permission).
      const failed = (info.tool_errors ?? []) as { tool_call_id: string }[];
      this.#pending = failed.map((f) => this.#sent.get(f.tool_call_id)).filter((c): c is SurfaceCall => c !== undefined);
    }
    if (this.#pending.length === 0) return writeReply(this.#parser, this.#reply);
    const calls = this.#pending.map((c, i) => ({ ...c, id: `call_${this.#turn}_${i}` }));
    this.#sent = new Map(calls.map((c) => [c.id, c]));
    this.#pending = [];
    return writeCalls(this.#parser, calls);
  }
}

/** The privileged oracle policy. */
export const oraclePolicy: Policy = {
  name: 'oracle',
  privileged: true,
  start: (episode) => new OracleInstance(episode),
};
