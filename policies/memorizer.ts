/**
 * The memorizer: a reference policy that acts like a small model fine-tuned on ONE harness alone (the
 * embedded one, or the harness it is fitted to by `memorizerFor`). It classifies the viewer's message by
 * keywords and follows a fixed script in that harness's names and habits: its tool and skill names as it
 * binds the embedded roles, canonical parameter and result-field names, and its prompt read through its
 * own headers and template lines (memorizer-room.ts). It is
 * not privileged (it never sees the task, the answer key or the variant's map) and it never reads the tool
 * list the observation offers (`observation.tools`): on the identity harness it scores high, on an
 * augmented one it breaks where the surface moved. That gap is the signal HAT trains on (DESIGN.md,
 * "Reference policies"), so the memorizer must stay non-adaptive.
 *
 * Turn plan: turn 1 loads the reply skill of each message part and makes the calls its script needs;
 * later turns make the follow-up calls (an order id found by list_orders, a coupon chosen from
 * get_promotions); the last turn is the reply, composed from templates and the facts read.
 */
import type { CanonicalCall, Intent } from '../protocol/domain.js';
import type { HarnessSet } from '../harness/index.js';
import { hookKind } from '../protocol/harness.js';
import { charLength } from '../protocol/text.js';
import type { EpisodeStart, Policy, PolicyInstance, PolicyObservation, SurfaceCall } from './policy.js';
import { writeCalls, writeReply } from './policy.js';
import type { RoomFacts, RoomReader } from './memorizer-room.js';
import { roomReaderFor } from './memorizer-room.js';
import { embeddedHarness } from '../harness/index.js';
import type { CallResult, Part, ScriptContext } from './memorizer-script.js';
import { MEMORIZED_MAX_CHARS, classify, joinReplies } from './memorizer-script.js';
import type { CustomScript } from './memorizer-custom.js';
import { customPart, customScripts } from './memorizer-custom.js';

/** The base harness's skill loader, memorised by name. */
const LOAD_SKILL = 'load_skill';
/** The base harness's MCP discovery tool, memorised by name. */
const DISCOVER_TOOLS = 'discover_tools';
/** Faults that are worth one more try (the service, not the request, was at fault). */
const TRANSIENT = new Set(['TIMEOUT', 'PERMISSION_DENIED', 'MALFORMED_OUTPUT']);
const MAX_ATTEMPTS = 3;

/** Stable key of a call: name and arguments with sorted keys. */
function signature(name: string, args: Record<string, unknown>): string {
  const keys = Object.keys(args).sort();
  return `${name} ${JSON.stringify(keys.map((k) => [k, args[k]]))}`;
}

/** Cut a reply to the memorised limit at a clause boundary when possible. */
function clip(text: string, max: number): string {
  if (charLength(text) <= max) return text;
  const chars = Array.from(text).slice(0, max);
  const cut = chars.join('');
  const m = /^(.*[，。；！？,.;!?])/su.exec(cut);
  return (m && charLength(m[1]) >= max / 2 ? m[1] : cut).replace(/[，；,;]$/, '');
}

/** How a memorizer fitted to a harness writes the embedded script's names: that harness's tools and skills. */
interface Fit {
  tool(name: string): string;
  /** The harness's skill for an embedded skill name; `intent` when the part serves another intent than the skill's own. */
  skill(name: string, intent?: Intent): string;
  /**
   * The harness's stop hooks (`required_call`) as habits: before an embedded tool the hook watches, the
   * tool it requires, with the watched call's arguments that the required tool takes.
   */
  companions: ReadonlyMap<string, { tool: string; params: readonly string[] }>;
  /** How the harness's prompt is read: its own texts, in its locales (memorizer-room.ts). */
  room: RoomReader;
  /** The last turn that makes calls: two before the harness's turn cap (the embedded cap is 8), so the reply always fits. */
  lastCallTurn: number;
  /** The scripts of the harness's own intents in a locale (memorizer-custom.ts; none for the embedded harness). */
  custom(locale: RoomFacts['locale']): readonly CustomScript[];
}

/** Script parts that answer a question the harness binds to the whitelist intent (in the embedded harness, product-qa serves both). */
const WHITELIST_PARTS = new Set(['whitelist', 'ingredients']);

/** The names a memorizer fitted to `set` uses: each embedded tool and skill as the harness binds its role. */
function fitTo(set: HarnessSet): Fit {
  const b = set.bindings;
  const room = roomReaderFor(set);
  const base = set.get(set.locales[0]);
  const lastCallTurn = base.limits.max_turns - 2;
  const custom = b.customIntents.length === 0 ? () => [] : (locale: RoomFacts['locale']) => customScripts(set, locale);
  if (b.identity) return { tool: (n) => n, skill: (n) => n, companions: new Map(), room, lastCallTurn, custom };
  const companions = new Map<string, { tool: string; params: readonly string[] }>();
  for (const h of base.hooks) {
    if (hookKind(h) !== 'required_call' || !h.enabled) continue;
    const { when_called: watched, require } = h.params as { when_called?: string[]; require?: string };
    const schema = base.tools.find((t) => t.function.name === require);
    if (!schema || require === undefined) continue;
    const params = Object.keys((schema.function.parameters.properties as object | undefined) ?? {});
    for (const w of watched ?? []) companions.set(b.opOf(w) ?? w, { tool: require, params });
  }
  return { tool: (n) => b.toolOf(n) ?? n, skill: (n, intent) => b.skillFor(n, intent) ?? n, companions, room, lastCallTurn, custom };
}

class MemorizerInstance implements PolicyInstance {
  readonly #fit: Fit;
  readonly #parser: string;
  readonly #room: RoomFacts;
  readonly #parts: Part[];
  readonly #compact: boolean;
  readonly #results = new Map<string, CallResult>();
  readonly #attempts = new Map<string, number>();
  /** Signatures of the calls sent last turn, in order. */
  #sent: string[] = [];
  #turn = 0;
  #lastReply: string | null = null;
  /** Stop-hook companions already called. */
  readonly #companionsSent = new Set<string>();

  constructor(start: EpisodeStart, fit: Fit) {
    this.#fit = fit;
    this.#parser = start.parser;
    // Only the chat transcript is read: system prompt, earlier dialogue, the viewer's message.
    const messages = start.observation.messages;
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    this.#room = fit.room.read(system);
    let lastUser = -1;
    messages.forEach((m, i) => {
      if (m.role === 'user') lastUser = i;
    });
    const history = messages
      .slice(0, Math.max(0, lastUser))
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => m.content ?? '');
    const lines = (lastUser >= 0 ? (messages[lastUser].content ?? '') : '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    this.#compact = lines.length > 1;
    // A line shaped like a memorised message of the harness's own intents plays that script; any other, the embedded ones.
    const custom = fit.custom(this.#room.locale);
    this.#parts = lines.map((l) => customPart(custom, l, this.#room) ?? classify(l, this.#room, history));
  }

  /** The parts' classes, for debugging and tests. */
  get kinds(): string[] {
    return this.#parts.map((p) => p.kind);
  }

  act(obs: PolicyObservation, info: Record<string, unknown>): unknown {
    this.#turn++;
    this.#ingest(obs, info);
    // A reply came back with hook feedback: say it again, shorter (the one fix this script knows).
    if (this.#lastReply !== null) {
      const again = clip(this.#compose(true, false), Math.floor(MEMORIZED_MAX_CHARS * 0.8));
      this.#lastReply = again;
      return writeReply(this.#parser, again);
    }
    const giveUp = this.#turn > this.#fit.lastCallTurn;
    const needed: CanonicalCall[] = [];
    const seen = new Set<string>();
    if (!giveUp) {
      for (const part of this.#parts) {
        const step = part.run(this.#ctx(this.#compact, false));
        if ('calls' in step) {
          for (const c of step.calls) {
            const sig = signature(c.name, c.arguments);
            if (!seen.has(sig)) {
              seen.add(sig);
              needed.push(c);
            }
          }
        }
      }
    }
    if (this.#turn === 1) {
      const skills = [...new Set(this.#parts.map((p) => this.#fit.skill(p.skill, WHITELIST_PARTS.has(p.kind) ? 'whitelist' : undefined)))];
      // The base habit: marketing tools come through discovery, so a promotion script discovers first.
      const discover = this.#parts.some((p) => p.skill === 'promotion')
        ? [{ name: DISCOVER_TOOLS, arguments: { server: 'marketing' } }]
        : [];
      needed.unshift(...skills.map((name) => ({ name: LOAD_SKILL, arguments: { name } })), ...discover);
    }
    if (needed.length > 0) return this.#send(this.#withCompanions(needed));
    const text = clip(this.#compose(this.#compact, giveUp), MEMORIZED_MAX_CHARS);
    this.#lastReply = text;
    return writeReply(this.#parser, text);
  }

  #ctx(compact: boolean, giveUp: boolean): ScriptContext {
    return {
      room: this.#room,
      compact,
      result: (name, args) => this.#results.get(signature(name, args)) ?? (giveUp ? { ok: false } : undefined),
    };
  }

  #compose(compact: boolean, giveUp: boolean): string {
    const replies: string[] = [];
    for (const part of this.#parts) {
      const step = part.run(this.#ctx(compact, giveUp || this.#lastReply !== null));
      if ('reply' in step) replies.push(step.reply);
    }
    const text = joinReplies(replies, this.#room.locale);
    return this.#room.locale === 'en' ? text.replace(/^[a-z]/, (c) => c.toUpperCase()) : text;
  }

  /** The calls with each stop hook's required call in front of the call it watches, once per episode. */
  #withCompanions(cs: CanonicalCall[]): CanonicalCall[] {
    const companions = this.#fit.companions;
    if (companions.size === 0) return cs;
    const out: CanonicalCall[] = [];
    for (const c of cs) {
      const companion = companions.get(c.name);
      if (companion && !this.#companionsSent.has(companion.tool)) {
        this.#companionsSent.add(companion.tool);
        const args: Record<string, unknown> = {};
        for (const p of companion.params) if (Object.hasOwn(c.arguments, p)) args[p] = c.arguments[p];
        out.push({ name: companion.tool, arguments: args });
      }
      out.push(c);
    }
    return out;
  }

  #send(cs: readonly CanonicalCall[]): unknown {
    this.#sent = cs.map((c) => signature(c.name, c.arguments));
    const fit = this.#fit;
    const out: SurfaceCall[] = cs.map((c, i) => ({
      id: `call_m${this.#turn}_${i}`,
      name: fit.tool(c.name),
      arguments: c.arguments,
    }));
    return writeCalls(this.#parser, out);
  }

  /**
   * Record the results of the calls sent last turn, and decide which failures to retry. Results are
   * matched by position (the tool messages after the last assistant message, in call order), because
   * the raw-text parsers assign their own call ids.
   */
  #ingest(obs: PolicyObservation, info: Record<string, unknown>): void {
    if (this.#sent.length === 0) return;
    const failed = new Map<string, string>();
    for (const e of (info.tool_errors ?? []) as { tool_call_id?: unknown; code?: unknown }[]) {
      if (typeof e.tool_call_id === 'string') failed.set(e.tool_call_id, String(e.code));
    }
    let lastAssistant = -1;
    obs.messages.forEach((m, i) => {
      if (m.role === 'assistant') lastAssistant = i;
    });
    const tools = obs.messages.slice(lastAssistant + 1).filter((m) => m.role === 'tool');
    this.#sent.forEach((sig, i) => {
      if (sig.startsWith(`${LOAD_SKILL} `)) return;
      const msg = tools[i];
      const code = msg?.tool_call_id === undefined ? undefined : failed.get(msg.tool_call_id);
      if (msg === undefined || code !== undefined) {
        const n = (this.#attempts.get(sig) ?? 0) + 1;
        this.#attempts.set(sig, n);
        // Leave a transient failure unknown so the script asks again; anything else is a dead end.
        if (!(code !== undefined && TRANSIENT.has(code) && n < MAX_ATTEMPTS)) this.#results.set(sig, { ok: false });
        return;
      }
      let data: unknown;
      try {
        data = JSON.parse(msg.content ?? '');
      } catch {
        this.#results.set(sig, { ok: false });
        return;
      }
      this.#results.set(sig, { ok: true, data });
    });
    this.#sent = [];
  }
}

/** The memorizer reference policy: the embedded harness's habits, no privileged knowledge. */
export const memorizerPolicy: Policy = {
  name: 'memorizer',
  privileged: false,
  start: (episode) => new MemorizerInstance(episode, fitted(embeddedHarness())),
};

const fits = new WeakMap<HarnessSet, Fit>();
const policies = new WeakMap<HarnessSet, Policy>();

function fitted(set: HarnessSet): Fit {
  let f = fits.get(set);
  if (!f) fits.set(set, (f = fitTo(set)));
  return f;
}

/**
 * The memorizer fitted to a harness: the same script and habits, in that harness's names (its tools and
 * skills as it binds the embedded roles) and reading its prompt through that harness's own texts, as a
 * small model fine-tuned on that harness alone would play.
 */
export function memorizerFor(set: HarnessSet): Policy {
  if (set === embeddedHarness()) return memorizerPolicy;
  let p = policies.get(set);
  if (!p) {
    const fit = fitted(set);
    p = { name: 'memorizer', privileged: false, start: (episode) => new MemorizerInstance(episode, fit) };
    policies.set(set, p);
  }
  return p;
}
