/**
 * The memorizer's path for a harness's own intents (docs/HARNESS.md "Intents of your own"). A model
 * fine-tuned on a harness has seen that harness's tasks of its own intents, and repeats what they did: the
 * shape of the viewer's message, the skill loaded, the calls made (by the names it saw), and the reply's
 * wording with the numbers read from the calls' results. This script learns the same from examples of the
 * intent on the harness it is fitted to (harness/intents.ts `intentExamples`, made by the task generator;
 * the memorizer never sees the task it plays), so it scores about 1 on that harness's identity and falls
 * where a variant renames the tool or skill it memorised (the call fails, the reply has nothing to say).
 *
 * What is learned, per intent and locale:
 * - the message shapes: each example's message with the room's product titles and every number masked;
 *   a message of one of these shapes is this intent;
 * - the calls: each solution call's tool (a built-in operation by its embedded tool, a custom tool by its
 *   name) and where each argument comes from: the product the message names (its item id or link
 *   number), the asking viewer, a field of an earlier call's result list (the `sku_id` of the SKU in a
 *   `check_stock` result whose other fields the examples agree on, e.g. `stock: 0`), or a constant;
 * - the reply: the most common of the examples' reference replies with the calls' result values, the
 *   product's title and its link number turned into slots.
 */
import type { CanonicalCall, Locale } from '../protocol/domain.js';
import type { HarnessSet } from '../harness/index.js';
import { intentExamples } from '../harness/index.js';
import type { IntentExample } from '../harness/index.js';
import type { LineupEntry, RoomFacts } from './memorizer-room.js';
import type { Part, ScriptContext, Step } from './memorizer-script.js';

/** How many examples per intent and locale the memorizer learns from. */
export const CUSTOM_EXAMPLES = 48;

type Prim = string | number | boolean;
/**
 * Where an argument comes from. `result`: the `field` of the first element of the list at `list` in the
 * result of solution call `call` (an earlier one) whose fields match `where`: what the examples' chosen
 * elements have in common (learned by intersecting them).
 */
type ArgRule =
  | { from: 'item_id' | 'link_no' | 'viewer_id' }
  | { from: 'result'; call: number; list: string[]; field: string; where: Record<string, Prim> }
  | { value: unknown };
interface CallRule {
  tool: string;
  args: [string, ArgRule][];
}

/** What the memorizer learned of one custom intent in one locale. */
export interface CustomScript {
  intent: string;
  skill: string;
  shapes: ReadonlySet<string>;
  calls: CallRule[];
  /** The reply with slots `{r<i>.<path>}`, `{title}`, `{link}`. */
  reply: string;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A message's shape: the titles of the room's products and every number masked. */
function shapeOf(message: string, titles: readonly string[]): string {
  let s = message.trim();
  for (const t of [...titles].sort((a, b) => b.length - a.length)) if (t.length > 0) s = s.split(t).join('\u0001T');
  return s.replace(/\d+(?:\.\d+)?/g, '\u0001N');
}

/** The product a message names: by title, else by the first number that is a link number, else the one on screen. */
function subjectOf(message: string, products: readonly LineupEntry[], current: LineupEntry | undefined): LineupEntry | undefined {
  const titled = [...products].sort((a, b) => b.title.length - a.title.length).find((p) => p.title.length > 0 && message.includes(p.title));
  if (titled) return titled;
  for (const m of message.matchAll(/\d+/g)) {
    const p = products.find((x) => x.link_no === Number(m[0]));
    if (p) return p;
  }
  return current;
}

/** Each string or number leaf of a value, with its path. */
function leaves(v: unknown, path: string, out: [string, string][]): void {
  if (typeof v === 'string' || typeof v === 'number') {
    const text = String(v);
    if (text.length > 0) out.push([path, text]);
  } else if (Array.isArray(v)) v.forEach((x, i) => leaves(x, `${path}.${i}`, out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) leaves(x, `${path}.${k}`, out);
}

function leafAt(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Replace a value in a text: a number only as a whole number, a string anywhere. */
function slot(text: string, value: string, name: string): string {
  const re = /^\d+(?:\.\d+)?$/.test(value)
    ? new RegExp(`(?<![\\d.])${escapeRe(value)}(?![\\d]|\\.\\d)`, 'g')
    : new RegExp(escapeRe(value), 'g');
  return text.replace(re, `{${name}}`);
}

const isPrim = (v: unknown): v is Prim => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** An argument value found as a field of a list element of an earlier call's result: the rule reading it there. */
function fromResult(value: unknown, results: readonly unknown[], before: number): ArgRule | null {
  if (!isPrim(value)) return null;
  for (let call = 0; call < before; call++) {
    const walk = (v: unknown, path: string[]): ArgRule | null => {
      if (Array.isArray(v)) {
        for (const el of v) {
          if (typeof el !== 'object' || el === null || Array.isArray(el)) continue;
          const entries = Object.entries(el as Record<string, unknown>);
          const hit = entries.find(([, x]) => x === value);
          if (hit) {
            const where = Object.fromEntries(entries.filter(([k, x]) => k !== hit[0] && isPrim(x))) as Record<string, Prim>;
            return { from: 'result', call, list: path, field: hit[0], where };
          }
        }
        return null;
      }
      if (typeof v === 'object' && v !== null) {
        for (const [k, x] of Object.entries(v)) {
          const r = walk(x, [...path, k]);
          if (r) return r;
        }
      }
      return null;
    };
    const r = walk(results[call], []);
    if (r) return r;
  }
  return null;
}

/** A call rule's signature for voting: a result rule without its `where` (intersected across the votes). */
const sigOf = (calls: readonly CallRule[]): string =>
  JSON.stringify(
    calls.map((c) => ({
      tool: c.tool,
      args: c.args.map(([k, r]) => [k, 'from' in r && r.from === 'result' ? { ...r, where: undefined } : r]),
    })),
  );

function learnOne(set: HarnessSet, intent: string, skill: string, examples: readonly IntentExample[]): CustomScript | null {
  if (examples.length === 0) return null;
  const shapes = new Set<string>();
  const callVotes = new Map<string, { n: number; calls: CallRule[] }>();
  const replyVotes = new Map<string, number>();
  for (const ex of examples) {
    const products: LineupEntry[] = ex.world.products.map((p) => ({ link_no: p.link_no, title: p.title, item_id: p.item_id }));
    const current = products.find((p) => p.link_no === ex.world.room.current_link);
    const message = ex.task.messages.join('\n');
    shapes.add(
      shapeOf(
        message,
        products.map((p) => p.title),
      ),
    );
    const subject = subjectOf(message, products, current);
    const calls: CallRule[] = ex.task.answer_key.solution.map((c: CanonicalCall, i: number) => ({
      tool: set.bindings.opOf(c.name) ?? c.name,
      args: Object.entries(c.arguments).map(([k, v]): [string, ArgRule] => [
        k,
        subject !== undefined && v === subject.item_id
          ? { from: 'item_id' }
          : subject !== undefined && v === subject.link_no
            ? { from: 'link_no' }
            : v === ex.task.viewer_id
              ? { from: 'viewer_id' }
              : (fromResult(v, ex.results, i) ?? { value: v }),
      ]),
    }));
    const sig = sigOf(calls);
    const vote = callVotes.get(sig);
    if (vote === undefined) callVotes.set(sig, { n: 1, calls });
    else {
      vote.n++;
      // What the examples' chosen elements have in common: keep the `where` fields they all agree on.
      vote.calls.forEach((c, ci) =>
        c.args.forEach(([, r], ai) => {
          const other = calls[ci].args[ai][1];
          if ('from' in r && r.from === 'result' && 'from' in other && other.from === 'result') {
            for (const [k, x] of Object.entries(r.where)) if (other.where[k] !== x) delete r.where[k];
          }
        }),
      );
    }
    // The reply: result values first (longest first, so "12" is not cut out of "120"), then the product.
    let reply = ex.task.answer_key.reference_reply;
    const found: [string, string][] = [];
    ex.results.forEach((r, i) => leaves(r, `r${i}`, found));
    if (subject) found.push(['title', subject.title], ['link', String(subject.link_no)]);
    found.sort((a, b) => b[1].length - a[1].length);
    for (const [name, value] of found) if (!reply.includes(`{${name}}`)) reply = slot(reply, value, name);
    replyVotes.set(reply, (replyVotes.get(reply) ?? 0) + 1);
  }
  const best = <T>(m: Map<T, number>): T => [...m].sort((a, b) => b[1] - a[1])[0][0];
  const calls = [...callVotes.values()].sort((a, b) => b.n - a.n)[0].calls;
  return { intent, skill, shapes, calls, reply: best(replyVotes) };
}

const memo = new WeakMap<HarnessSet, Map<Locale, CustomScript[]>>();

/** The scripts of a harness's own intents in a locale, learned once per harness. */
export function customScripts(set: HarnessSet, locale: Locale): CustomScript[] {
  let m = memo.get(set);
  if (!m) memo.set(set, (m = new Map()));
  const hit = m.get(locale);
  if (hit) return hit;
  const out: CustomScript[] = [];
  for (const intent of set.bindings.customIntents) {
    const skill = set.bindings.intents.get(intent)?.skill;
    if (skill === undefined) continue;
    const s = learnOne(set, intent, skill, intentExamples(set, intent, locale, CUSTOM_EXAMPLES));
    if (s) out.push(s);
  }
  m.set(locale, out);
  return out;
}

/** The part a message line plays when it has the shape of a memorised custom intent's message; null otherwise. */
export function customPart(scripts: readonly CustomScript[], line: string, room: RoomFacts): Part | null {
  if (scripts.length === 0) return null;
  const products = room.lineup.length > 0 ? room.lineup : room.current ? [room.current] : [];
  const shape = shapeOf(
    line,
    products.map((p) => p.title),
  );
  const script = scripts.find((s) => s.shapes.has(shape));
  if (!script) return null;
  const current = room.current ?? products[0];
  const subject = subjectOf(line, products, current);
  /** The calls' arguments, given the results so far; null while a result an argument reads is not in. */
  const argsOf = (c: CallRule, results: readonly (ReturnType<ScriptContext['result']> | undefined)[]): Record<string, unknown> | null => {
    const out: Record<string, unknown> = {};
    for (const [k, rule] of c.args) {
      if ('value' in rule) out[k] = rule.value;
      else if (rule.from === 'viewer_id') out[k] = room.viewer_id;
      else if (rule.from === 'link_no') out[k] = subject?.link_no;
      else if (rule.from === 'item_id') out[k] = subject?.item_id;
      else if ('call' in rule) {
        const r = results[rule.call];
        if (r === undefined) return null;
        const list = r.ok ? leafAt(r.data, rule.list) : undefined;
        const el = Array.isArray(list)
          ? (list as unknown[]).find(
              (x) =>
                typeof x === 'object' &&
                x !== null &&
                Object.entries(rule.where).every(([wk, wv]) => (x as Record<string, unknown>)[wk] === wv),
            )
          : undefined;
        out[k] = (el as Record<string, unknown> | undefined)?.[rule.field];
      }
    }
    return out;
  };
  return {
    kind: `custom:${script.intent}`,
    skill: script.skill,
    run(ctx: ScriptContext): Step {
      // In order: a call whose arguments read an earlier result waits for it.
      const calls: CanonicalCall[] = [];
      const results: (ReturnType<ScriptContext['result']> | undefined)[] = [];
      const pending: CanonicalCall[] = [];
      for (const c of script.calls) {
        const args = argsOf(c, results);
        if (args === null) break;
        const call = { name: c.tool, arguments: args };
        calls.push(call);
        const r = ctx.result(call.name, call.arguments);
        results.push(r);
        if (r === undefined) pending.push(call);
      }
      if (pending.length > 0) return { calls: pending };
      let missing = false;
      const text = script.reply.replace(/\{(r\d+(?:\.[^}]+)?|title|link)\}/g, (_, name: string) => {
        if (name === 'title') return subject?.title ?? '';
        if (name === 'link') return subject ? String(subject.link_no) : '';
        const [head, ...path] = name.split('.');
        const r = results[Number(head.slice(1))];
        const v = r?.ok ? leafAt(r.data, path) : undefined;
        if (typeof v !== 'string' && typeof v !== 'number') {
          missing = true;
          return '';
        }
        return String(v);
      });
      // Nothing read: what a memorised habit says when its look-up failed.
      if (missing) return { reply: ctx.room.locale === 'en' ? 'Let me check that for you, one moment.' : '稍等，我帮你确认一下哦' };
      return { reply: text };
    },
  };
}
