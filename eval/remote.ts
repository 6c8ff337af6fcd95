/**
 * Remote evaluation: run a reference policy against a running server through `HarnessGymClient`, with
 * many episodes in flight and one batched frame per round, and summarise exactly as the in-process
 * `evaluate` (eval/evaluate.ts) does. Given the same arguments and a server with the default config,
 * the two summaries are equal byte for byte when JSON-stringified.
 *
 * Why they agree: episode i uses the explicit seed `seed + i` (the server draws nothing), the per-episode
 * loop below mirrors `playEpisode` step for step (an item error counts and the policy acts again on the
 * same observation; the same step guard), and the records are summarised in episode order. The oracle's
 * privileged context {task, map, harness} comes from resolving the very same request locally with
 * `createEpisode` (deterministic: same seed, same task and variant), never from `oracle_hints`.
 *
 * Recording (`eval --record DIR --url ...`): the client has every action and reply, and the local twin of
 * each episode is already built, so with a recorder the twin is reset and stepped with the same actions
 * inside the same `RecordEpisode` wrapper the in-process eval uses. Every output of the twin is compared
 * with the server's reply (sha256 of the same MessagePack bytes) before it is taped: a record is written
 * only of what the server sent, and replays identically in-process; a server whose replies differ (another
 * version or config) stops the run with an error instead of leaving records that would not replay.
 *
 * Several servers (`eval --url A --url B ...`): the episodes go through a `ShardedClient`
 * (client/sharded.ts), placed on the replicas by seed. The replicas must serve the same harness with the
 * same turn and error caps (checked once connected). An episode whose replica dies (its item error is
 * `REPLICA_DOWN`) is played again from its reset on a survivor: an episode is fixed by its seed and the
 * reference policies by theirs, so the summary is still the in-process one. With a recorder a lost
 * episode stops the run instead (its half-taped twin cannot be unwound, and the records would not be in
 * episode order). When no replica is left the run stops with `NO_REPLICA`.
 */
import { defaultEnvConfig, harnessMix, mixShares, resolveRequest, startEpisode } from '../env/index.js';
import { harnessLabel } from '../harness/index.js';
import type { EnvConfig, EnvDefaults, EpisodeHandle, EpisodeLimits, EpisodeRequest, ResetOptions, StepResult } from '../env/index.js';
import type { Split } from '../protocol/domain.js';
import type { PolicyInstance, PolicyObservation, PrivilegedContext } from '../policies/index.js';
import { RecordEpisode, hashResetOutput, hashStepOutput } from '../recording/index.js';
import type { EpisodeRecorder } from '../recording/index.js';
import { HarnessGymClient, HarnessGymError, ShardedClient, unwrap } from '../client/index.js';
import type { EpisodeClient, ResetItem, ShardedClientOptions, StepInfo, StepResultItem, WelcomeMessage } from '../client/index.js';
import { evalTaskSelector, summarize } from './evaluate.js';
import type { EpisodeRecord, EvalOptions, EvalSummary } from './evaluate.js';

/** Options of `evaluateRemote`: the in-process options plus where the server is. */
export type RemoteEvalOptions = Omit<EvalOptions, 'recorder'> & {
  /**
   * Records the episodes (see the module comment): a recorder, or a function that makes one once
   * connected, given the env limits and defaults the episodes are mirrored with (the server's limits),
   * which the records must carry to replay.
   */
  recorder?: EpisodeRecorder | ((env: { limits: EpisodeLimits; defaults: EnvDefaults }) => EpisodeRecorder);
  /**
   * The server's WebSocket URL, e.g. `ws://127.0.0.1:8080/v1/env`; several URLs: replicas, through a
   * `ShardedClient` (see the module comment).
   */
  url: string | readonly string[];
  token?: string;
  /** Episodes in flight at once (default 64, capped by the server's `max_batch` and `max_episodes`). */
  batch?: number;
  /** Frame encoding (default MessagePack). */
  encoding?: 'msgpack' | 'json';
  /** Extra client options (reconnect policy, timeout; with several URLs the rejoin policy too); `token` and `encoding` above win. */
  client?: Omit<ShardedClientOptions, 'token' | 'encoding'>;
  /** Called once connected (one URL), e.g. for tests that disturb the connection mid-run. */
  onConnect?: (client: HarnessGymClient) => void;
  /** Called once connected (several URLs), e.g. for tests that kill a replica mid-run. */
  onShards?: (client: ShardedClient) => void;
};

/** Same guard as `playEpisode`: a policy that never ends an episode gets this many actions at most. */
const MAX_STEPS_GUARD = 64;
const DEFAULT_BATCH = 64;

interface Running {
  index: number;
  episode_id: string;
  instance: PolicyInstance;
  obs: PolicyObservation;
  info: StepInfo;
  /** Intent at reset, for the guard's record (as `playEpisode` uses the reset info). */
  resetIntent: string;
  /** The split of the episode's task. */
  split: Split;
  errors: number;
  actions: number;
  /** The local twin in its recording wrapper (only when recording). */
  mirror?: EpisodeHandle;
}

/**
 * The reset item of episode i, with only the options the in-process loop would pass, and its task selector:
 * the split always, the intent when forced or drawn by the mix here (`evalTaskSelector`), so that the
 * server's own task defaults never decide an eval's tasks.
 */
function resetItemFor(opts: Omit<EvalOptions, 'recorder'>, config: EnvConfig, episodeId: string, seed: number): ResetItem {
  const options: ResetOptions = {};
  if (opts.locale) options.locale = opts.locale;
  if (opts.parser) options.parser = opts.parser;
  if (opts.faults !== undefined) options.faults = opts.faults;
  if (opts.rewards) options.rewards = opts.rewards;
  const item: ResetItem = { episode_id: episodeId, seed, variant: opts.variant };
  const task = evalTaskSelector(config, opts, seed);
  if (!task.ok) throw new HarnessGymError({ code: task.error.code as 'UNKNOWN_TASK', message: task.error.message });
  item.task = task.task as ResetItem['task'];
  if (Object.keys(options).length > 0) item.options = options;
  return item;
}

/** Evaluate a policy against a running server; the summary equals `evaluate(opts)`'s for the same server config. */
export async function evaluateRemote(opts: RemoteEvalOptions): Promise<EvalSummary> {
  const urls = typeof opts.url === 'string' ? [opts.url] : [...opts.url];
  const common = {
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    encoding: opts.encoding ?? 'msgpack',
    client: opts.client?.client ?? 'harness-gym-remote-eval',
  } as const;
  if (urls.length === 1) {
    const { rejoin: _rejoin, onReplica: _onReplica, ...clientOpts } = opts.client ?? {};
    const client = await HarnessGymClient.connect(urls[0] as string, { ...clientOpts, ...common });
    try {
      opts.onConnect?.(client);
      return await runEpisodes(client, [client.welcome], opts);
    } finally {
      await client.close();
    }
  }
  const shards = await ShardedClient.connect(urls, { ...(opts.client ?? {}), ...common });
  try {
    opts.onShards?.(shards);
    const welcomes = shards.welcomes.filter((w): w is WelcomeMessage => w !== null);
    return await runEpisodes(shards, welcomes, opts);
  } finally {
    await shards.disconnect();
  }
}

/** Whether two mixes' shares (as `welcome.defaults.task_mix` prints them) are the same. */
function sameShares(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number | undefined>>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

/** An item error that says the episode's replica is gone (a `ShardedClient`'s; see client/sharded.ts). */
function replicaLost(res: { ok: boolean; error?: { code: string } }): boolean {
  return res.ok === false && res.error?.code === 'REPLICA_DOWN';
}

/** The server and this build disagree: records would not replay, and the figures are not this build's. */
function mismatch(episodeId: string, seed: number, what: string): HarnessGymError {
  return new HarnessGymError({
    code: 'CONFIG_MISMATCH',
    message: `the server's ${what} of episode ${episodeId} (seed ${seed}) differs from this build's: the server runs another version or config, and its episodes cannot be recorded to replay here`,
  });
}

/** Compare the server's step reply with the twin's result. */
function sameStep(remote: StepResultItem, local: StepResult): boolean {
  if (!remote.ok || !local.ok) return !remote.ok && !local.ok && remote.error.code === local.error.code;
  return hashStepOutput(remote).hash === hashStepOutput(local).hash;
}

async function runEpisodes(client: EpisodeClient, welcomes: readonly WelcomeMessage[], opts: RemoteEvalOptions): Promise<EvalSummary> {
  const limits = client.welcome.limits;
  // Replicas must be interchangeable: the same harness, turn and error caps (they shape every output).
  for (const w of welcomes) {
    const a = (w as { harness?: { hash: string } }).harness?.hash;
    const b = (client.welcome as { harness?: { hash: string } }).harness?.hash;
    if (a !== b || w.limits.max_turns !== limits.max_turns || w.limits.max_errors !== limits.max_errors) {
      throw new HarnessGymError({
        code: 'CONFIG_MISMATCH',
        message: `the replicas differ (harness ${String(b)} with max_turns ${limits.max_turns} and max_errors ${limits.max_errors}, against harness ${String(a)} with ${w.limits.max_turns} and ${w.limits.max_errors}): give replicas of one config`,
      });
    }
  }
  const inFlight = Math.max(1, Math.min(opts.batch ?? DEFAULT_BATCH, limits.max_batch, limits.max_episodes));
  // Episodes are resolved locally with the server's turn and error caps (they shape outputs, and records
  // must carry them to replay); everything else is the local default config.
  const config = defaultEnvConfig({ ...opts.config, limits: { max_turns: limits.max_turns, max_errors: limits.max_errors } });
  // The twin plays in the harness the server serves, or its episodes (and the oracle's hints) would differ.
  const served = (client.welcome as { harness?: { name: string; version: string; hash: string } }).harness;
  const mine = config.harness.identity;
  if (served !== undefined && served.hash !== mine.hash) {
    throw new HarnessGymError({
      code: 'CONFIG_MISMATCH',
      message: `the server serves harness ${harnessLabel(served)} and this eval has ${harnessLabel(mine)}: give the server's harness directory with --harness DIR`,
    });
  }
  // An eval names each episode's split, and its intent when a mix draws it; without a mix the server's
  // default mix would draw the intents, and this eval's episodes (the production mix) would not be the server's.
  const serverMix = client.welcome.defaults.task_mix;
  if (opts.mix === undefined && opts.intent === undefined && serverMix !== undefined && !sameShares(serverMix, mixShares(harnessMix(config.harness)))) {
    throw new HarnessGymError({
      code: 'CONFIG_MISMATCH',
      message: `the server draws intents with its own default mix (${Object.entries(serverMix).map(([i, w]) => `${i}=${w}`).join(',')}): give the eval a mix with --mix (--mix production for the production mix), and it draws each episode's intent itself`,
    });
  }
  const recorder = typeof opts.recorder === 'function' ? opts.recorder({ limits: config.limits, defaults: config.defaults }) : opts.recorder;
  const records: EpisodeRecord[] = new Array(opts.episodes);
  // Episodes finished, for onProgress.
  let completed = 0;
  let running: Running[] = [];
  let next = 0;
  // Episodes whose replica died, to play again from their reset (several URLs only), and how often each was.
  const again: number[] = [];
  const restarts = new Map<number, number>();
  const restart = (index: number, res: StepResultItem | { ok: false; error: { code: string; message: string; details?: unknown } }): void => {
    const n = (restarts.get(index) ?? 0) + 1;
    // A recorder cannot unwind a half-taped twin; and an episode lost more often than there are URLs is not bad luck.
    if (recorder || n > Math.max(1, typeof opts.url === 'string' ? 1 : opts.url.length)) unwrap(res as StepResultItem);
    restarts.set(index, n);
    again.push(index);
  };

  while (next < opts.episodes || running.length > 0 || again.length > 0) {
    // Fill the free slots with new episodes (the lost ones first), in episode order, in one reset frame.
    const starting: number[] = [];
    while (again.length > 0 && running.length + starting.length < inFlight) starting.push(again.shift() as number);
    while (next < opts.episodes && running.length + starting.length < inFlight) starting.push(next++);
    if (starting.length > 0) running = running.concat(await startEpisodes(client, opts, config, starting, recorder, restart));
    if (running.length === 0) continue;

    // One step frame for every running episode.
    const actions = running.map((r) => {
      r.actions++;
      return { episode_id: r.episode_id, action: r.instance.act(r.obs, r.info) };
    });
    const results = await client.step(actions);
    const still: Running[] = [];
    const finished: string[] = [];
    running.forEach((r, j) => {
      const res = results[j] as StepResultItem;
      if (replicaLost(res)) {
        // Its replica is gone: play it again from the reset elsewhere (its slot on the server is gone too).
        restart(r.index, res);
        finished.push(r.episode_id);
        return;
      }
      if (r.mirror) {
        // Recording: the twin takes the same action, and must answer what the server answered.
        const local = r.mirror.step(actions[j].action);
        if (!sameStep(res, local)) throw mismatch(r.episode_id, (opts.seed + r.index) >>> 0, `reply to action ${r.actions}`);
      }
      if (!res.ok) {
        // As in playEpisode: the environment refused the action; the policy acts again on the same view.
        r.errors++;
      } else {
        r.obs = res.observation;
        r.info = res.info;
        if (res.terminated || res.truncated) {
          records[r.index] = {
            reward: res.reward,
            components: (res.info.reward_components ?? {}) as Record<string, number>,
            intent: String(res.info.intent),
            outcome: String(res.info.outcome),
            errors: r.errors,
            task_split: r.split,
          };
          finished.push(r.episode_id);
          opts.onProgress?.(++completed, opts.episodes, res.reward);
          return;
        }
      }
      if (r.actions >= MAX_STEPS_GUARD) {
        records[r.index] = { reward: 0, components: {}, intent: r.resetIntent, outcome: 'max_turns', errors: r.errors + 1, task_split: r.split };
        finished.push(r.episode_id);
        opts.onProgress?.(++completed, opts.episodes, 0);
        return;
      }
      still.push(r);
    });
    running = still;
    // Free the finished episodes so the session stays within max_episodes.
    if (finished.length > 0) await client.closeEpisodes(finished);
  }
  return summarize(opts.policy.name, opts.variant, records, { taskSplit: opts.taskSplit, mix: opts.mix });
}

async function startEpisodes(
  client: EpisodeClient,
  opts: RemoteEvalOptions,
  config: ReturnType<typeof defaultEnvConfig>,
  indices: readonly number[],
  recorder: EpisodeRecorder | undefined,
  restart: (index: number, res: { ok: false; error: { code: string; message: string } }) => void,
): Promise<Running[]> {
  const items = indices.map((i) => resetItemFor(opts, config, `eval-${i}`, (opts.seed + i) >>> 0));
  const results = await client.reset(items);
  const started: Running[] = [];
  indices.forEach((index, j) => {
    const res = results[j] as (typeof results)[number];
    if (replicaLost(res)) {
      restart(index, res as { ok: false; error: { code: string; message: string } });
      return;
    }
    const ok = unwrap(res);
    const item = items[j];
    const seed = item.seed as number;
    // The same request resolved locally: the oracle's privileged context and the parser's name.
    const { task, variant, options } = item;
    const planned = resolveRequest(config, {
      episode_id: item.episode_id as string,
      seed,
      task,
      variant,
      options: options as EpisodeRequest['options'],
    });
    if (!planned.ok) throw new HarnessGymError(planned.error);
    const local = startEpisode(config, planned.plan);
    if (!local.ok) throw new HarnessGymError(local.error);
    const params = local.episode.params;
    if (params.task.id !== ok.info.task_id) {
      throw new HarnessGymError({
        code: 'CONFIG_MISMATCH',
        message: `the server and the local env resolved seed ${seed} to different tasks (${String(ok.info.task_id)} vs ${params.task.id}): different configs or versions`,
      });
    }
    let mirror: EpisodeHandle | undefined;
    if (recorder) {
      // Listed as the in-process eval lists its records (eval-<seed>), created as the server created it.
      const start = { episode_id: `eval-${seed}`, seed, variant: planned.plan.variant, variant_seed: seed, options: (options ?? {}) as ResetOptions, oracle_hints: false };
      mirror = new RecordEpisode(local.episode, recorder, start);
      if (hashResetOutput(mirror.reset()).hash !== hashResetOutput(ok).hash) throw mismatch(ok.episode_id, seed, 'reset output');
    }
    const privileged: PrivilegedContext | undefined = opts.policy.privileged
      ? { task: params.task, map: params.map, harness: params.harness, canonical: params.canonical }
      : undefined;
    const instance = opts.policy.start({
      seed,
      parser: params.parser.name === 'auto' ? 'openai' : params.parser.name,
      observation: ok.observation,
      info: ok.info,
      privileged,
    });
    started.push({
      index,
      episode_id: ok.episode_id,
      instance,
      obs: ok.observation,
      info: ok.info,
      resetIntent: String(ok.info.intent),
      split: params.source_task.split,
      errors: 0,
      actions: 0,
      ...(mirror ? { mirror } : {}),
    });
  });
  return started;
}
