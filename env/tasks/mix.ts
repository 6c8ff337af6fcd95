/**
 * Which tasks a reset is served: the task split (train, the held-out eval, or both drawn per seed) and the
 * traffic mix (the weight of each intent among resets that name no intent). Both are data of a reset that
 * names neither: the server's `defaults.task_split` and `defaults.task_mix`, the CLI's `--task-split` and
 * `--mix` (docs/CURRICULUM.md "Held-out tasks and held-out harnesses", "The traffic mix").
 *
 * Determinism: the split of `all` is drawn from the seed alone (stream `task/split`), and the intent from
 * the seed and the mix (stream `task/intent`, the stream the generator has always drawn its intent from),
 * so the same seed with the same split and mix is the same task. The production mix is `INTENT_WEIGHTS`
 * itself: a reset without a mix, and a mix whose shares are the production ones, draw exactly the intents
 * they always did.
 */
import type { Intent, Split } from '../../protocol/domain.js';
import { CUSTOM_INTENT_RE, INTENTS, isBuiltinIntent } from '../../protocol/domain.js';
import { Rng } from '../../protocol/rng.js';
import { editDistance } from '../../protocol/text.js';
import { INTENT_WEIGHTS } from './generate.js';

/** A task split as a reset default or a CLI flag: one split, or `all` (each episode's drawn from its seed). */
export type TaskSplit = Split | 'all';

/** The task splits a default or a flag may name. */
export const TASK_SPLITS: readonly TaskSplit[] = ['train', 'eval', 'all'];

/** The splits a task split may give an episode. */
export function splitsOf(choice: TaskSplit): Split[] {
  return choice === 'all' ? ['train', 'eval'] : [choice];
}

/**
 * The split an episode of `seed` plays under `choice`: `train` or `eval` as named; under `all`, `eval`
 * when the first draw of `new Rng(seed, 'task/split')` is below 0.5, else `train` (about half each, and
 * the same seed always the same split, in-process, on a server and in the CLI).
 */
export function taskSplitFor(seed: number, choice: TaskSplit): Split {
  if (choice !== 'all') return choice;
  return new Rng(seed, 'task/split').chance(0.5) ? 'eval' : 'train';
}

/** The variant's side of a held-out evaluation: the spec's `split`, or `none` for the base harness (identity). */
export type VariantSplit = Split | 'none';

/**
 * Weights per intent, as shares that sum to 1 (up to rounding), in `INTENT_WEIGHTS` order; an intent
 * left out of a mix has weight 0. The production mix is `INTENT_WEIGHTS` itself.
 */
export type IntentMix = Readonly<Record<string, number>>;

/** The production mix (DESIGN.md "The domain"), the default of every reset. */
export const PRODUCTION_MIX: IntentMix = INTENT_WEIGHTS;

/**
 * The source report's Table 1: the shares of live-room traffic it gives (product Q&A, chit-chat,
 * clarification, after-sales); the other intents share the rest (12%) and are not broken down there.
 */
export const REPORT_TABLE_1: Readonly<Partial<Record<Intent, number>>> = { product_qa: 0.46, chitchat: 0.19, clarification: 0.16, after_sales: 0.07 };

/** The intents in the order a mix draws them (the production table's order, which the generator always drew in). */
const DRAW_ORDER = Object.keys(INTENT_WEIGHTS) as Intent[];

/** The intents a mix draws among, in draw order: the built-in ones, then a harness's own in the mix's order. */
function drawOrder(weights: Readonly<Record<string, number | undefined>>): Intent[] {
  const custom = Object.keys(weights).filter((k) => !isBuiltinIntent(k)) as Intent[];
  return custom.length === 0 ? DRAW_ORDER : [...DRAW_ORDER, ...custom];
}

/**
 * The production mix with a harness's own intents added (docs/HARNESS.md "Intents of your own"): each
 * weight is in points of the production mix, whose built-in weights are 46 to 1 out of 100, so a weight
 * of 1 is a handoff's share. Without custom intents, the production mix itself (the same draws).
 */
export function withCustomWeights(weights: ReadonlyMap<Intent, number>): IntentMix {
  if (weights.size === 0) return PRODUCTION_MIX;
  const out: Record<string, number> = { ...INTENT_WEIGHTS };
  for (const [intent, w] of weights) out[intent] = w / 100;
  return Object.freeze(out);
}

/** A parsed mix, or what is wrong with it (one line, naming the intent or weight at fault). */
export type MixResult = { ok: true; mix: IntentMix } | { ok: false; message: string };

function normalise(weights: Readonly<Record<string, number | undefined>>): Record<string, number> {
  const order = drawOrder(weights);
  let total = 0;
  for (const i of order) total += weights[i] ?? 0;
  const out: Record<string, number> = {};
  for (const i of order) out[i] = (weights[i] ?? 0) / total;
  return out;
}

const PRODUCTION_SHARES = normalise(INTENT_WEIGHTS);

/** The nearest intent to a misspelt one (edit distance at most 2). */
function nearIntent(word: string): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const i of INTENTS) {
    const d = editDistance(word.toLowerCase(), i);
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

const MIX_EXAMPLE = 'product_qa=0.5,chitchat=0.5';

/**
 * Check and normalise a mix given as a map of intent to weight (a config file's `defaults.task_mix`, a
 * `--mix` file): every key a known intent, every weight a finite number >= 0, not all 0. The shares are the
 * weights over their sum; a mix whose shares are the production ones is `PRODUCTION_MIX` itself.
 */
export function parseMix(input: unknown): MixResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    const kind = Array.isArray(input) ? 'an array' : input === null ? 'null' : `a ${typeof input}`;
    return { ok: false, message: `a mix must be a map of intent to weight, such as {product_qa: 0.5, chitchat: 0.5}, got ${kind}` };
  }
  const weights: Record<string, number> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (!isBuiltinIntent(key)) {
      // A harness's own intent is any snake_case name that is not a misspelt built-in one; whether the
      // harness serves it is checked where the mix meets the harness (the served intents).
      const near = nearIntent(key);
      if (near !== undefined || !CUSTOM_INTENT_RE.test(key)) {
        return { ok: false, message: `unknown intent "${key}"${near ? ` (did you mean ${near}?)` : ''}; intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)` };
      }
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      return { ok: false, message: `the weight of ${key} must be a finite number >= 0, got ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))}` };
    }
    weights[key] = value;
  }
  if (!drawOrder(weights).some((i) => (weights[i] ?? 0) > 0)) {
    return { ok: false, message: `every weight is 0 (or none is given): give at least one intent a positive weight, e.g. ${MIX_EXAMPLE}` };
  }
  const shares = normalise(weights);
  if (Object.keys(shares).length === DRAW_ORDER.length && DRAW_ORDER.every((i) => shares[i] === PRODUCTION_SHARES[i])) return { ok: true, mix: PRODUCTION_MIX };
  return { ok: true, mix: Object.freeze(shares) };
}

/**
 * A mix written as `intent=weight` pairs, comma-separated (`product_qa=0.5,chitchat=0.5`), or `production`
 * for the production mix: the form of the `--mix` flag.
 */
export function parseMixText(text: string): MixResult {
  const trimmed = text.trim();
  if (trimmed === 'production') return { ok: true, mix: PRODUCTION_MIX };
  const weights: Record<string, unknown> = {};
  for (const part of trimmed.split(',')) {
    const pair = part.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) return { ok: false, message: `"${pair}" is not intent=weight; write the mix as ${MIX_EXAMPLE}` };
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    if (Object.hasOwn(weights, key)) return { ok: false, message: `${key} is given twice` };
    const n = raw === '' ? NaN : Number(raw);
    weights[key] = Number.isNaN(n) ? raw : n;
  }
  return parseMix(weights);
}

/** Whether a mix is the production mix. */
export function isProductionMix(mix: IntentMix | undefined): boolean {
  return mix === undefined || mix === PRODUCTION_MIX;
}

/** A mix's non-zero shares, rounded to 4 places, in draw order (what summaries and `welcome` print). */
export function mixShares(mix: IntentMix | undefined): Record<string, number> {
  const shares = mix === undefined || mix === PRODUCTION_MIX ? PRODUCTION_SHARES : normalise(mix);
  const out: Record<string, number> = {};
  for (const i of drawOrder(shares)) if ((shares[i] ?? 0) > 0) out[i] = Math.round(shares[i] * 1e4) / 1e4;
  return out;
}

/** A mix as a label: `production`, or its shares as `intent=share` pairs. */
export function mixLabel(mix: IntentMix | undefined): string {
  if (isProductionMix(mix)) return 'production';
  return Object.entries(mixShares(mix))
    .map(([i, w]) => `${i}=${w}`)
    .join(',');
}

/**
 * The intent a reset of `seed` is served, drawn with the mix (default: production) among `served` (the
 * intents the task source serves in the reset's locale and split). Intents with weight 0 are never drawn;
 * undefined when the mix gives no served intent any weight. Without a mix this is the generator's own draw.
 */
export function mixIntent(seed: number, served: readonly Intent[], mix: IntentMix = PRODUCTION_MIX): Intent | undefined {
  const weights: Partial<Record<Intent, number>> = {};
  let any = false;
  for (const intent of drawOrder(mix)) {
    if ((mix[intent] ?? 0) > 0 && served.includes(intent)) {
      weights[intent] = mix[intent];
      any = true;
    }
  }
  if (!any) return undefined;
  return new Rng(seed, 'task/intent').weighted(weights as Record<Intent, number>);
}
