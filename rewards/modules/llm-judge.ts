/**
 * llm_judge (reply segment, async): asks an OpenAI-compatible chat-completions endpoint to grade the
 * final reply against a rubric and answer `{"score": 0..1, "reason": "..."}`.
 *
 * A remote judge is slow and fallible, so: every attempt has a timeout (AbortSignal.timeout); network
 * errors, timeouts, 429/5xx and malformed verdicts are retried with exponential backoff; when every
 * attempt failed (or the endpoint refused the request with another 4xx), the component takes the value
 * of a fallback module (default `accuracy`) and its reasons say so. Verdicts are cached in the process by
 * (model, rubric, reply, task id): GRPO groups often produce identical replies, and a rescore of a
 * recorded run should not pay twice. The judge is never part of the default profile (its verdicts are
 * not deterministic); on the synchronous path (`Episode.step`) it answers with the fallback directly.
 */
import { z } from 'zod';
import type { RewardDetail, Task, Trace } from '../../protocol/domain.js';
import { BUILTIN_MODULES } from '../registry.js';
import type { AsyncScoreContext, RewardModule, RewardSegment } from '../types.js';

/** Default rubric: the live-commerce reply qualities the report grades. */
export const DEFAULT_JUDGE_RUBRIC = [
  'You grade one reply of a live-commerce AI avatar to a viewer message.',
  'Score 1 when the reply is accurate, directly helpful, short enough to be spoken, polite and compliant',
  '(no absolute terms, no medical claims, no unauthorised promises, no off-platform contact);',
  'score 0 when it is wrong, unhelpful or non-compliant; use values in between for partial quality.',
].join(' ');

/** Default settings of `llm_judge` (each may be overridden per profile entry in `params`). */
export const LLM_JUDGE_DEFAULTS = {
  /** Base URL of the OpenAI-compatible API (`/chat/completions` is appended). */
  endpoint: 'http://127.0.0.1:8000/v1',
  model: 'judge',
  rubric: DEFAULT_JUDGE_RUBRIC,
  /** Per attempt, in milliseconds. */
  timeout_ms: 10_000,
  /** Attempts after the first one. */
  retries: 2,
  /** Delay before retry n is backoff_ms * 2^(n-1), in milliseconds. */
  backoff_ms: 200,
  /** Module whose value the component takes when the judge cannot answer. */
  fallback: 'accuracy',
  max_tokens: 256,
} as const;

/** Per-profile parameters of the judge (strict: a typo is a load error, via `checkParams`). */
export const LlmJudgeParamsSchema = z.strictObject({
  endpoint: z.url().optional(),
  model: z.string().min(1).optional(),
  rubric: z.string().min(1).optional(),
  timeout_ms: z.int().min(1).max(600_000).optional(),
  retries: z.int().min(0).max(10).optional(),
  backoff_ms: z.int().min(0).max(60_000).optional(),
  fallback: z.string().min(1).optional(),
  max_tokens: z.int().min(1).max(32_768).optional(),
});

/** Options of `createLlmJudgeModule`: defaults for every profile entry, plus what params must not carry. */
export interface LlmJudgeOptions {
  endpoint?: string;
  model?: string;
  rubric?: string;
  timeout_ms?: number;
  retries?: number;
  backoff_ms?: number;
  fallback?: string;
  max_tokens?: number;
  /** Registry name (default `llm_judge`). */
  name?: string;
  version?: string;
  segment?: RewardSegment;
  /** Bearer token for the endpoint. Passed by the entry point (never read from a profile file). */
  api_key?: string;
  /** Fallback lookup for the synchronous path (the async path uses the episode's registry). Default: the built-ins. */
  resolve?: (name: string) => RewardModule | undefined;
}

type Settings = {
  endpoint: string;
  model: string;
  rubric: string;
  timeout_ms: number;
  retries: number;
  backoff_ms: number;
  fallback: string;
  max_tokens: number;
};

/** A judge's answer: the score and the judge's own reason. */
export interface JudgeVerdict {
  score: number;
  reason: string;
}

// Process-wide verdict cache (successful verdicts only). Promises are cached so that concurrent episodes
// with the same reply share one request; a failed request removes its entry.
const CACHE_MAX = 10_000;
const verdictCache = new Map<string, Promise<{ verdict: JudgeVerdict; attempts: number }>>();

/** Forget every cached verdict (tests; a long-running process after a judge model swap keeps its keys apart anyway). */
export function clearJudgeCache(): void {
  verdictCache.clear();
}

/** Cached verdicts right now (tests, diagnostics). */
export function judgeCacheSize(): number {
  return verdictCache.size;
}

/** A failed attempt: why, and whether another attempt may help. */
class AttemptError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}

/**
 * Read a verdict out of the judge's message content: a JSON object (possibly fenced or surrounded by
 * prose) with a numeric `score` in [0, 1] and an optional string `reason`. Null when malformed.
 */
export function parseVerdict(content: unknown): JudgeVerdict | null {
  if (typeof content !== 'string') return null;
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(content.slice(start, end + 1));
  } catch {
    return null;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const { score, reason } = obj as { score?: unknown; reason?: unknown };
  const n = typeof score === 'string' && score.trim() !== '' ? Number(score) : score;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) return null;
  return { score: n, reason: typeof reason === 'string' ? reason : '' };
}

function settingsOf(base: Settings, params: Readonly<Record<string, unknown>>): Settings {
  // Params were checked at load time (checkParams); here unknown or ill-typed values fall back to the base.
  const out = { ...base };
  for (const k of Object.keys(base) as (keyof Settings)[]) {
    const v = params[k];
    if (typeof v === typeof base[k]) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

function judgeMessages(s: Settings, trace: Trace, task: Task, reply: string) {
  const lang = trace.locale.startsWith('zh') ? 'Chinese' : 'English';
  const user = [
    `Viewer message (${lang}): ${task.messages.join('\n')}`,
    task.answer_key.reference_reply === '' ? null : `Reference reply: ${task.answer_key.reference_reply}`,
    `Reply to grade: ${reply}`,
  ]
    .filter((l) => l !== null)
    .join('\n');
  return [
    { role: 'system', content: `${s.rubric}\nAnswer with JSON only: {"score": <number from 0 to 1>, "reason": "<one sentence>"}` },
    { role: 'user', content: user },
  ];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function attempt(s: Settings, apiKey: string | undefined, body: string): Promise<JudgeVerdict> {
  const url = `${s.endpoint.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(s.timeout_ms) });
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new AttemptError(`timeout after ${s.timeout_ms} ms`, true);
    throw new AttemptError(`request failed (${(e as Error).message})`, true);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    const name = (e as { name?: string }).name;
    throw new AttemptError(name === 'TimeoutError' ? `timeout after ${s.timeout_ms} ms` : 'response body unreadable', true);
  }
  if (!res.ok) {
    // Rate limits and server errors may pass; a 400/401/404 will not, so do not spend the retries on it.
    throw new AttemptError(`HTTP ${res.status}`, res.status === 429 || res.status >= 500);
  }
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    content = undefined;
  }
  const verdict = parseVerdict(content);
  if (verdict === null) throw new AttemptError('malformed judge output (expected {"score": 0..1, "reason": ...})', true);
  return verdict;
}

async function judge(s: Settings, apiKey: string | undefined, body: string): Promise<{ verdict: JudgeVerdict; attempts: number }> {
  let last: AttemptError = new AttemptError('no attempt made', false);
  for (let n = 0; n <= s.retries; n++) {
    if (n > 0) await sleep(s.backoff_ms * 2 ** (n - 1));
    try {
      return { verdict: await attempt(s, apiKey, body), attempts: n + 1 };
    } catch (e) {
      last = e instanceof AttemptError ? e : new AttemptError(String(e), true);
      if (!last.retryable) throw Object.assign(last, { attempts: n + 1 });
    }
  }
  throw Object.assign(last, { attempts: s.retries + 1 });
}

/** The fallback's detail, labelled: the component value is the fallback module's value. */
function fallbackDetail(
  s: Settings,
  why: string,
  lookup: (name: string) => RewardModule | undefined,
  trace: Trace,
  task: Task,
): RewardDetail {
  const fb = lookup(s.fallback);
  if (fb === undefined) {
    return { value: 0, failed: true, reasons: [`${why}; fallback module "${s.fallback}" is not registered`] };
  }
  let d: RewardDetail;
  try {
    d = fb.score(trace, task, {});
  } catch (e) {
    return { value: 0, failed: true, reasons: [`${why}; fallback "${s.fallback}" threw: ${(e as Error).message}`] };
  }
  if (!(typeof d?.value === 'number' && d.value >= 0 && d.value <= 1)) {
    return { value: 0, failed: true, reasons: [`${why}; fallback "${s.fallback}" returned no value in [0, 1]`] };
  }
  return {
    value: d.value,
    reasons: [`${why}; fallback ${s.fallback} = ${d.value}`, ...d.reasons.map((r) => `${s.fallback}: ${r}`)],
    evidence: { fallback: s.fallback, error: why },
  };
}

/**
 * Create an LLM-judge module. Register it next to the built-ins and name it in a profile (never the
 * default one); per-entry `params` override the options here (`endpoint`, `model`, `rubric`,
 * `timeout_ms`, `retries`, `backoff_ms`, `fallback`, `max_tokens`).
 */
export function createLlmJudgeModule(options: LlmJudgeOptions = {}): RewardModule {
  const base: Settings = settingsOf({ ...LLM_JUDGE_DEFAULTS }, options as Record<string, unknown>);
  const name = options.name ?? 'llm_judge';
  const apiKey = options.api_key;
  const resolve = options.resolve ?? ((n: string) => BUILTIN_MODULES.find((m) => m.name === n));
  return {
    name,
    version: options.version ?? '1.0.0',
    segment: options.segment ?? 'reply',
    checkParams(params) {
      const r = LlmJudgeParamsSchema.safeParse(params);
      if (r.success) return [];
      return r.error.issues.map((i) =>
        i.code === 'unrecognized_keys'
          ? `${i.keys.join(', ')}: unknown parameter`
          : `${i.path.map(String).join('.') || '(params)'}: ${i.message}`,
      );
    },
    score(trace, task, params) {
      // The synchronous path cannot wait for an endpoint: it answers with the fallback, and says so.
      const s = settingsOf(base, params);
      if (trace.final_reply === null) return { value: 0, reasons: [`no final reply (outcome ${trace.outcome})`] };
      return fallbackDetail(s, `${name} not run (synchronous scoring path)`, resolve, trace, task);
    },
    async scoreAsync(trace: Trace, task: Task, params, ctx: AsyncScoreContext): Promise<RewardDetail> {
      const s = settingsOf(base, params);
      const reply = trace.final_reply;
      if (reply === null) return { value: 0, reasons: [`no final reply (outcome ${trace.outcome})`] };
      const key = JSON.stringify([s.model, s.rubric, reply, task.id]);
      let pending = verdictCache.get(key);
      if (pending === undefined) {
        const body = JSON.stringify({
          model: s.model,
          messages: judgeMessages(s, trace, task, reply),
          temperature: 0,
          max_tokens: s.max_tokens,
        });
        pending = judge(s, apiKey, body);
        if (verdictCache.size >= CACHE_MAX) verdictCache.delete(verdictCache.keys().next().value as string);
        verdictCache.set(key, pending);
        pending.catch(() => verdictCache.delete(key));
      }
      try {
        const { verdict } = await pending;
        const reasons = [`judge ${s.model}: score ${verdict.score}`];
        if (verdict.reason !== '') reasons.push(`judge reason: ${verdict.reason}`);
        return { value: verdict.score, reasons, evidence: { model: s.model } };
      } catch (e) {
        const attempts = (e as { attempts?: number }).attempts ?? s.retries + 1;
        const why = `${name} failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (${(e as Error).message})`;
        return fallbackDetail(s, why, (n) => ctx.module(n) ?? resolve(n), trace, task);
      }
    },
  };
}

/** A judge with the default settings (endpoint and model come from the profile entry's params). */
export const llmJudgeModule: RewardModule = createLlmJudgeModule();
