/**
 * Rollouts with a real policy: drive episodes on a running harness-gym server (through
 * `HarnessGymClient`) with any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, ...) as the
 * policy. Each episode keeps its conversation: the environment's messages (deltas by default) are appended
 * to the history, and the full history plus the current tool list is sent to the endpoint every turn.
 *
 * Actions: a response with `tool_calls` is sent as a structured message; a response without them is sent
 * as raw text (`{text}`) for the episode's parser (Hermes / Qwen3 XML tool calls written as text, or a
 * plain final reply).
 *
 * Failures are data: endpoint errors (network, timeout, 5xx, 429) are retried with exponential backoff,
 * and a reset the server refuses for memory (`CAPACITY_REACHED`, `details.reason: "memory"`) is sent again
 * after the server's `retry_after_ms` (up to `MEMORY_RETRIES` times);
 * an episode whose endpoint keeps failing is counted as failed and closed on the server, and the run goes
 * on. Each failed record says why (`failed`), and the summary counts the reasons (`failures`, most frequent
 * first), so that a run in which every episode failed can say what to fix. Records and the summary are in
 * episode order, whatever order episodes finish in.
 *
 * Several servers: with a list of URLs the episodes go through a `ShardedClient` (client/sharded.ts),
 * placed by group (GRPO siblings together) or seed. An episode whose replica dies fails alone
 * (`step: REPLICA_DOWN: replica <url> went down; ...`) and the run goes on on the survivors.
 *
 * Test hook: with `oracleHints` the reset asks for `options.oracle_hints` (servers started with
 * `allow_oracle_hints` only) and every request to the endpoint carries the environment's
 * `info.oracle_action` in the `x-harness-gym-oracle-action` header (JSON). A fake endpoint in the tests
 * plays it back; a real endpoint ignores the header. Never use it for training.
 */
import type { ChatMessage, ToolSchema } from '../protocol/domain.js';
import { HarnessGymClient } from './client.js';
import { ShardedClient } from './sharded.js';
import type { EpisodeClient, ShardedClientOptions } from './sharded.js';
import type { ResetItem, ResetOptions, ResetResultItem, StepInfo, VariantSpec, WelcomeMessage } from './types.js';

/** The header that carries `info.oracle_action` to a test endpoint (see the module comment). */
export const ORACLE_ACTION_HEADER = 'x-harness-gym-oracle-action';

/** Options of `runRollout`. */
export interface RolloutOptions {
  /** The environment server's WebSocket URL, e.g. `ws://127.0.0.1:8080/v1/env`; several: replicas (sharded). */
  url: string | readonly string[];
  token?: string;
  /** The endpoint's base URL, e.g. `http://127.0.0.1:8000/v1` (`/chat/completions` is appended). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer ...` when set. */
  apiKey?: string;
  episodes: number;
  /** Episodes in flight at once. */
  concurrency: number;
  /** GRPO group size: consecutive episodes in groups of this many share a task (and variant). Default 1. */
  groupSize?: number;
  /** Episode i uses seed `seed + i`. */
  seed: number;
  /** Variant preset name, or a VariantSpec. */
  variant?: string | VariantSpec;
  /**
   * The task selector of the episode of a seed (a GRPO group's: its first member's seed), e.g. `{split:
   * "eval"}`; absent: none is sent and the server's defaults pick the task (`welcome.defaults.task_split`).
   */
  task?: (seed: number) => ResetItem['task'] | undefined;
  /**
   * What the run plays, for the summary: the task split asked for, the variant's split, and the intent mix
   * (absent: the server's, `welcome.defaults.task_mix`).
   */
  axes?: { task_split: string; variant_split: string; mix?: Record<string, number> };
  locale?: 'zh-CN' | 'en';
  parser?: string;
  /** Extra reset options (faults, rewards, observation, max_turns). */
  options?: Omit<ResetOptions, 'oracle_hints'>;
  /** Test hook: see the module comment. */
  oracleHints?: boolean;
  /** Per-request timeout, ms (default 60 000). */
  timeoutMs?: number;
  /** Retries after a failed request (default 3). */
  retries?: number;
  /** First backoff, ms; doubles per retry (default 500). */
  backoffMs?: number;
  /** Extra fields of the chat-completions request (temperature, max_tokens, ...). */
  sampling?: Record<string, unknown>;
  /** Called after each finished episode (progress bars). */
  onEpisode?: (done: number, total: number, record: RolloutRecord) => void;
  /** Client options (with several URLs, the sharding client's: rejoin policy too). */
  client?: Omit<ShardedClientOptions, 'token'>;
  /** Injected for tests; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Injected for tests; default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/** One finished (or failed) episode. */
export interface RolloutRecord {
  index: number;
  episode_id: string;
  seed: number;
  task_id: string | null;
  intent: string | null;
  variant_id: string | null;
  /** `identity`, or the requested variant's label for augmented episodes. */
  variant_family: string;
  /** The task split the reset asked for (absent when it named none). */
  task_split?: string;
  reward: number;
  components: Record<string, number>;
  outcome: string;
  turns: number;
  /** Endpoint requests retried in this episode. */
  retries: number;
  /**
   * Why the episode failed, absent when it ended normally: `endpoint: ...` (the endpoint's last error
   * once the retries were spent), `reset: CODE: message` or `step: CODE: message` (the environment refused).
   */
  failed?: string;
  /**
   * The episode as it was played, when its reset succeeded (docs/RECORDS.md "Rollout transcripts"): the
   * reset item sent, every action sent (refused ones too, with the error they got), the conversation as the
   * model saw it at the end (`messages`, the episode's own tool list `tools`), and the final reward's
   * `reward_details` and `segments`. `rollout --record DIR` rebuilds record files from it.
   */
  transcript?: RolloutTranscript;
}

/** One episode of a rollout, as played. */
export interface RolloutTranscript {
  reset: ResetItem;
  actions: { action: unknown; error?: { code: string; message: string } }[];
  messages: ChatMessage[];
  tools: ToolSchema[];
  reward_details?: unknown;
  /** The gates that capped the reward (`info.reward_caps`), when any did. */
  reward_caps?: string[];
  segments?: unknown;
}

/** Mean reward and count of one group. */
export interface GroupStat {
  n: number;
  mean: number;
}

/** The run's summary (`--json` prints it as one line). */
export interface RolloutSummary {
  model: string;
  variant: string;
  /** The task split asked for (`train`, `eval`, `all`; the server's default when the run named none). */
  task_split?: string;
  /** The variant's split: the held-out harness side (`none`: the base harness). */
  variant_split?: string;
  /** The intent mix (non-zero shares) of the episodes. */
  mix?: Record<string, number>;
  episodes: number;
  /** Episodes per task split asked for. */
  task_splits?: Record<string, number>;
  completed: number;
  failed: number;
  retries: number;
  reward: { mean: number };
  components: Record<string, number>;
  intents: Record<string, GroupStat>;
  variant_families: Record<string, GroupStat>;
  outcomes: Record<string, number>;
  /** Why episodes failed: each reason and how many episodes it ended, most frequent first. */
  failures: Record<string, number>;
}

/** Everything a run produced. */
export interface RolloutResult {
  summary: RolloutSummary;
  records: RolloutRecord[];
  /** The server's welcome (limits, defaults, harness): what the episodes were played under. */
  welcome: WelcomeMessage;
}

/** An endpoint failure that retrying may fix. */
class TransientError extends Error {}

const MAX_STEPS_GUARD = 64;

/** Consecutive actions the environment refuses as INVALID_ACTION before the episode counts as failed. */
const MAX_INVALID_IN_A_ROW = 3;

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function sortedRecord<T>(m: Map<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of [...m.keys()].sort()) out[k] = m.get(k) as T;
  return out;
}

function groupStats(records: readonly RolloutRecord[], key: (r: RolloutRecord) => string): Record<string, GroupStat> {
  const m = new Map<string, number[]>();
  for (const r of records) {
    const k = key(r);
    m.set(k, [...(m.get(k) ?? []), r.reward]);
  }
  const out = new Map<string, GroupStat>();
  for (const [k, v] of m) out.set(k, { n: v.length, mean: round(mean(v)) });
  return sortedRecord(out);
}

/** Summarise records (completed episodes count in the means; failed ones only in `failed`). */
export function summarizeRollout(
  model: string,
  variant: string,
  records: readonly RolloutRecord[],
  axes?: { task_split: string; variant_split: string; mix?: Record<string, number> },
): RolloutSummary {
  const done = records.filter((r) => r.failed === undefined);
  const compNames = new Set<string>();
  for (const r of done) for (const k of Object.keys(r.components)) compNames.add(k);
  const components = new Map<string, number>();
  for (const c of compNames) components.set(c, round(mean(done.map((r) => r.components[c] ?? 0))));
  const outcomes = new Map<string, number>();
  for (const r of records) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  const reasons = new Map<string, number>();
  for (const r of records) if (r.failed !== undefined) reasons.set(r.failed, (reasons.get(r.failed) ?? 0) + 1);
  const failures: Record<string, number> = {};
  for (const [k, n] of [...reasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) failures[k] = n;
  const splits = new Map<string, number>();
  for (const r of records) if (r.task_split !== undefined) splits.set(r.task_split, (splits.get(r.task_split) ?? 0) + 1);
  return {
    model,
    variant,
    ...(axes ? { task_split: axes.task_split, variant_split: axes.variant_split, ...(axes.mix ? { mix: axes.mix } : {}) } : {}),
    episodes: records.length,
    ...(axes ? { task_splits: sortedRecord(splits) } : {}),
    completed: done.length,
    failed: records.length - done.length,
    retries: records.reduce((a, r) => a + r.retries, 0),
    reward: { mean: round(mean(done.map((r) => r.reward))) },
    components: sortedRecord(components),
    intents: groupStats(done, (r) => r.intent ?? 'unknown'),
    variant_families: groupStats(done, (r) => r.variant_family),
    outcomes: sortedRecord(outcomes),
    failures,
  };
}

/**
 * A summary as a person reads it: rewards by component, intent and variant family; `played` (a line saying
 * which task and variant splits were played) goes under the first line.
 */
export function formatRolloutSummary(s: RolloutSummary, played?: string): string {
  const table = (rows: [string, string][]): string => {
    const w = Math.max(0, ...rows.map(([k]) => k.length));
    return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
  };
  const stat = (g: Record<string, GroupStat>): [string, string][] =>
    Object.entries(g).map(([k, v]) => [k, `${v.mean.toFixed(4)}  (n=${v.n})`]);
  // A section with no rows (every episode failed: no components, no intents) is left out, heading and all.
  const section = (title: string, rows: [string, string][]): string[] => (rows.length > 0 ? [title, table(rows)] : []);
  return (
    [
      `model ${s.model} on variant ${s.variant}: ${s.episodes} episodes, ${s.completed} completed, ${s.failed} failed, ${s.retries} retries`,
      ...(played !== undefined ? [played] : []),
      `reward mean ${s.reward.mean.toFixed(4)}`,
      ...section('components (mean):', Object.entries(s.components).map(([k, v]) => [k, v.toFixed(4)])),
      ...section('intents (mean reward):', stat(s.intents)),
      ...section('variant families (mean reward):', stat(s.variant_families)),
      ...section('outcomes:', Object.entries(s.outcomes).map(([k, v]) => [k, String(v)])),
      ...section('failures (episodes):', Object.entries(s.failures).map(([k, v]) => [String(v), k])),
    ].join('\n') + '\n'
  );
}

interface Completion {
  message: ChatMessage;
  action: unknown;
}

/** Turn a chat-completions response into the assistant message to keep and the action to send. */
export function completionToAction(body: unknown): Completion | null {
  const choice = (body as { choices?: { message?: Record<string, unknown> }[] } | null)?.choices?.[0]?.message;
  if (!choice || typeof choice !== 'object') return null;
  const content = typeof choice.content === 'string' ? choice.content : null;
  const calls = Array.isArray(choice.tool_calls) ? (choice.tool_calls as ChatMessage['tool_calls']) : [];
  if (calls && calls.length > 0) {
    const message: ChatMessage = { role: 'assistant', content, tool_calls: calls };
    if (typeof choice.reasoning_content === 'string') message.reasoning_content = choice.reasoning_content;
    return { message, action: { message } };
  }
  // No structured calls: the text goes through the episode's parser (Qwen3 tool-call text or a reply).
  const text = content ?? '';
  return { message: { role: 'assistant', content: text }, action: { text } };
}

/** Resets refused for memory that an episode retries before it fails (about a minute at the server's 1 s hint). */
export const MEMORY_RETRIES = 60;

/**
 * The wait a reset refused for memory asks for (`CAPACITY_REACHED` with `details.reason: "memory"`,
 * docs/PROTOCOL.md "Errors"), ms; null for any other result. A refusal for `max_episodes` is not retried:
 * it lasts until the client closes episodes.
 */
export function memoryRetryAfter(res: ResetResultItem): number | null {
  if (res.ok || res.error.code !== 'CAPACITY_REACHED') return null;
  const d = res.error.details as { reason?: unknown; retry_after_ms?: unknown } | undefined;
  if (d?.reason !== 'memory') return null;
  const ms = typeof d.retry_after_ms === 'number' && Number.isFinite(d.retry_after_ms) ? d.retry_after_ms : 1000;
  return Math.min(Math.max(ms, 10), 60_000);
}

/** `setTimeout` as a promise: the waits' default (`RolloutOptions.sleep`). */
const timerSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The backoff before retry `attempt` (1-based), ms. */
export function backoffDelay(base: number, attempt: number): number {
  return base * 2 ** (attempt - 1);
}

class Endpoint {
  readonly #opts: RolloutOptions;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(opts: RolloutOptions) {
    this.#opts = opts;
    this.#fetch = opts.fetch ?? fetch;
    this.#sleep = opts.sleep ?? timerSleep;
  }

  /** One completion with retries; `retried` counts the retries spent. Throws only when they are exhausted. */
  async complete(
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    oracle: unknown,
    retried: { n: number },
  ): Promise<Completion> {
    const retries = this.#opts.retries ?? 3;
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        retried.n++;
        await this.#sleep(backoffDelay(this.#opts.backoffMs ?? 500, attempt));
      }
      try {
        return await this.#once(messages, tools, oracle);
      } catch (e) {
        last = e;
        if (!(e instanceof TransientError)) break;
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  }

  async #once(messages: readonly ChatMessage[], tools: readonly ToolSchema[], oracle: unknown): Promise<Completion> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#opts.apiKey) headers.authorization = `Bearer ${this.#opts.apiKey}`;
    if (oracle !== undefined) headers[ORACLE_ACTION_HEADER] = encodeURIComponent(JSON.stringify(oracle));
    const body: Record<string, unknown> = { model: this.#opts.model, messages, ...(this.#opts.sampling ?? {}) };
    if (tools.length > 0) body.tools = tools;
    let res: Response;
    try {
      res = await this.#fetch(`${this.#opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#opts.timeoutMs ?? 60_000),
      });
    } catch (e) {
      // Network errors and timeouts (AbortSignal.timeout) are worth another try. fetch's own message is
      // "fetch failed"; its cause says what failed (connect ECONNREFUSED 127.0.0.1:8000).
      if ((e as Error).name === 'TimeoutError') throw new TransientError(`no answer within ${this.#opts.timeoutMs ?? 60_000} ms`);
      const cause = (e as { cause?: unknown }).cause;
      throw new TransientError(`request failed: ${cause instanceof Error ? cause.message : (e as Error).message}`);
    }
    if (res.status >= 500 || res.status === 429 || res.status === 408) {
      await res.body?.cancel();
      throw new TransientError(`answered HTTP ${res.status}`);
    }
    if (!res.ok) throw new Error(`answered HTTP ${res.status}: ${(await res.text()).slice(0, 200).replace(/\s+/g, ' ')}`);
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new TransientError('answered a body that is not JSON');
    }
    const c = completionToAction(json);
    if (!c) throw new TransientError('answered no choices[0].message');
    return c;
  }
}

function variantLabelOf(v: RolloutOptions['variant']): string {
  if (v === undefined) return 'identity';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Run `episodes` episodes, `concurrency` at a time, against the server at `url` with the endpoint at
 * `baseUrl` as the policy. Resolves with the records (episode order) and the summary; never rejects for
 * an endpoint failure (that episode is failed), only when the server cannot be reached at all.
 */
export async function runRollout(opts: RolloutOptions): Promise<RolloutResult> {
  const urls = typeof opts.url === 'string' ? [opts.url] : [...opts.url];
  const common = { ...(opts.token !== undefined ? { token: opts.token } : {}), client: opts.client?.client ?? 'harness-gym-rollout' };
  let client: EpisodeClient;
  if (urls.length === 1) {
    const { rejoin: _rejoin, onReplica: _onReplica, ...clientOpts } = opts.client ?? {};
    client = await HarnessGymClient.connect(urls[0] as string, { ...clientOpts, ...common });
  } else {
    client = await ShardedClient.connect(urls, { ...(opts.client ?? {}), ...common });
  }
  const endpoint = new Endpoint(opts);
  const label = variantLabelOf(opts.variant);
  const records: RolloutRecord[] = new Array(opts.episodes);
  const groupSize = Math.max(1, opts.groupSize ?? 1);
  let done = 0;
  let next = 0;
  // The limit of in-flight episodes the server allows bounds the concurrency too.
  const limit = Math.max(1, Math.min(opts.concurrency, client.welcome.limits.max_episodes));

  const playOne = async (index: number): Promise<void> => {
    const seed = (opts.seed + index) >>> 0;
    const record = await playEpisode(client, endpoint, opts, index, seed, groupSize, label);
    records[index] = record;
    done++;
    opts.onEpisode?.(done, opts.episodes, record);
  };
  const worker = async (): Promise<void> => {
    while (next < opts.episodes) await playOne(next++);
  };
  const welcome = client.welcome;
  try {
    await Promise.all(Array.from({ length: Math.min(limit, opts.episodes) }, worker));
  } finally {
    await client.disconnect();
  }
  const axes = opts.axes ? { ...opts.axes, mix: opts.axes.mix ?? welcome.defaults.task_mix } : undefined;
  return { summary: summarizeRollout(opts.model, label, records, axes), records, welcome };
}

async function playEpisode(
  client: EpisodeClient,
  endpoint: Endpoint,
  opts: RolloutOptions,
  index: number,
  seed: number,
  groupSize: number,
  label: string,
): Promise<RolloutRecord> {
  const episodeId = `rollout-${index}`;
  const record: RolloutRecord = {
    index,
    episode_id: episodeId,
    seed,
    task_id: null,
    intent: null,
    variant_id: null,
    variant_family: label,
    reward: 0,
    components: {},
    outcome: 'failed',
    turns: 0,
    retries: 0,
  };
  const options: ResetOptions = { ...(opts.options ?? {}) };
  if (opts.locale) options.locale = opts.locale;
  if (opts.parser) options.parser = opts.parser;
  if (opts.oracleHints) options.oracle_hints = true;
  const item: ResetItem = { episode_id: episodeId, seed, options };
  if (opts.variant !== undefined) item.variant = opts.variant;
  if (groupSize > 1) {
    // GRPO: consecutive episodes share a group (task and variant); the group's first member's seed picks them.
    item.group_id = `rollout-g${Math.floor(index / groupSize)}`;
    item.seed = (opts.seed + Math.floor(index / groupSize) * groupSize) >>> 0;
    record.seed = item.seed;
  }
  const task = opts.task?.(item.seed as number);
  if (task !== undefined) {
    item.task = task;
    if (task.split !== undefined) record.task_split = task.split;
  }
  let reset;
  const sleep = opts.sleep ?? timerSleep;
  for (let waits = 0; ; waits++) {
    try {
      [reset] = await client.reset([item]);
    } catch (e) {
      record.failed = `reset: ${(e as Error).message}`;
      return record;
    }
    // A server short of memory for new episodes says when to try again; its live episodes end meanwhile.
    const wait = memoryRetryAfter(reset);
    if (wait === null || waits >= MEMORY_RETRIES) break;
    await sleep(wait);
  }
  if (!reset.ok) {
    record.failed = `reset: ${reset.error.code}: ${reset.error.message}`;
    return record;
  }
  const noteInfo = (info: StepInfo): void => {
    record.task_id = info.task_id;
    record.intent = info.intent;
    record.variant_id = info.variant_id;
    record.variant_family = info.variant_id === 'identity' ? 'identity' : label;
  };
  noteInfo(reset.info);
  const history: ChatMessage[] = reset.observation.messages.slice();
  let tools: ToolSchema[] = reset.observation.tools ?? [];
  const transcript: RolloutTranscript = { reset: item, actions: [], messages: history, tools };
  record.transcript = transcript;
  let info: StepInfo = reset.info;
  const retried = { n: 0 };
  let invalidInARow = 0;
  try {
    for (let actions = 0; actions < MAX_STEPS_GUARD; actions++) {
      let completion: Completion;
      try {
        completion = await endpoint.complete(history, tools, opts.oracleHints ? info.oracle_action : undefined, retried);
      } catch (e) {
        record.failed = `endpoint: ${(e as Error).message}`;
        return record;
      }
      const [res] = await client.step([{ episode_id: episodeId, action: completion.action }]);
      transcript.actions.push(res.ok ? { action: completion.action } : { action: completion.action, error: { code: res.error.code, message: res.error.message } });
      if (!res.ok) {
        // The environment refused the action (INVALID_ACTION): the policy tries again on the same view,
        // a few times; a model stuck on unusable output is not worth more requests.
        if (res.error.code === 'INVALID_ACTION' && ++invalidInARow < MAX_INVALID_IN_A_ROW) continue;
        record.failed = `step: ${res.error.code}: ${res.error.message}`;
        return record;
      }
      invalidInARow = 0;
      record.turns = res.info.turn;
      history.push(completion.message);
      if (opts.options?.observation === 'full') history.splice(0, history.length, ...res.observation.messages);
      else history.push(...res.observation.messages);
      if (res.observation.tools) tools = transcript.tools = res.observation.tools;
      info = res.info;
      if (res.terminated || res.truncated) {
        noteInfo(res.info);
        transcript.reward_details = res.info.reward_details;
        if (res.info.reward_caps !== undefined) transcript.reward_caps = res.info.reward_caps as string[];
        transcript.segments = res.info.segments;
        record.reward = res.reward;
        record.components = (res.info.reward_components ?? {}) as Record<string, number>;
        record.outcome = String(res.info.outcome);
        return record;
      }
    }
    record.failed = 'step guard: the episode did not end';
    return record;
  } finally {
    record.retries = retried.n;
    // Free the episode's slot on the server (finished or failed), so the session stays within max_episodes.
    await client.closeEpisodes([episodeId]).catch(() => undefined);
  }
}
