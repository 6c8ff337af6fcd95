/**
 * A worker thread (server/hosts.ts `WorkerHost`): one thread holding the episodes of the sessions bound to it. It is
 * started with the server config, loads the same reward files the main thread loaded, and answers piscina
 * tasks: `apply` (decode a frame, apply it, encode the reply), `free`, `reload` and `drain`.
 *
 * The handler is also exported as `handleTask` so that a test worker can wrap it (to inject a failure).
 */
import { pino } from 'pino';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { prepareVariantsInBackground } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import { RewardCatalog } from '../rewards/index.js';
import type { RewardSet } from '../rewards/index.js';
import { getHeapStatistics } from 'node:v8';
import { Codec } from '../protocol/codec.js';
import { setWorldCacheShare } from '../mock-services/index.js';
import { IdleCollector } from './idle-collect.js';
import type { SessionRequest } from '../protocol/wire.js';
import { EpisodeTable } from './hosts.js';
import { harnessOf } from './config.js';
import { serverEnvConfig, withRewards } from './env-config.js';
import { encodeReply } from './hosts.js';
import { HeapBudget } from './heap-budget.js';
import { StartQueue } from './start-queue.js';
import type { WorkerData, WorkerApplyResult, WorkerFreeResult, WorkerTask } from './hosts.js';

const data = workerData as WorkerData;
const config = data.config;
const log = pino({ level: config.log_level }).child({ shard_worker: true });

// The reward set: the same files the main thread validated at start-up (a failure here is a start-up error).
let catalog: RewardCatalog | null = null;
// A reloaded reward set waiting for every thread to have loaded it (reload_prepare, then commit or abort).
let pending: RewardSet | null = null;
// The harness: the directory the main thread loaded, loaded again here (the same files, the same hash).
const harness = harnessOf(config);
if (harness.identity.hash !== data.harnessHash) {
  throw new Error(`shard worker: harness ${config.harness} changed on disk since the server started (${data.harnessHash} -> ${harness.identity.hash})`);
}
if (config.rewards.profiles.length + config.rewards.module_dirs.length > 0) {
  const loaded = await RewardCatalog.load(config.rewards, { judge: { api_key: data.judgeApiKey } });
  if (!loaded.ok) throw new Error(`shard worker: reward files failed to load: ${loaded.errors.join('; ')}`);
  catalog = loaded.catalog;
}
// The environment the main thread built, from the same config (server/env-config.ts).
let env: EnvConfig = serverEnvConfig(config, { harness, ...(catalog === null ? {} : { rewards: catalog.current }) });
catalog?.onSwap((set) => {
  env = withRewards(env, set);
});

// New episodes are refused before this worker's heap limit (`worker_heap_mb`) is reached.
const budget = new HeapBudget().start();
const table = new EpisodeTable({ config, env: () => env, log, yieldEvery: data.yieldEvery, budget });
// The episodes of this worker's sessions live here: compile the rest of each preset's variant pool in
// the background once a reset draws from it.
prepareVariantsInBackground(env, ({ ms, ...pool }) => log.debug({ ...pool, ms: Math.round(ms) }, 'variant pool compiled'));
const codec = new Codec();
// Which held request starts next (config `scheduling`, server/start-queue.ts).
const starts = new StartQueue(config.scheduling);
// This worker steps 1/workers of the episodes: it keeps that share of the process's world cache.
setWorldCacheShare(data.workers);
const collector = new IdleCollector({ onCollect: (ms) => log.debug({ ms: Math.round(ms) }, 'idle collection after freeing episodes') });

/** The worker's committed heap (what the host compares to decide whether to replace an empty worker). */
function heapBytes(): number {
  return getHeapStatistics().total_heap_size;
}

/** Answer one task (see `WorkerTask`), and collect the heap once idle after episodes were freed. */
export async function handleTask(task: WorkerTask): Promise<unknown> {
  collector.begin();
  let freed = 0;
  try {
    const [result, n] = await run(task);
    freed = n;
    return result;
  } finally {
    collector.end(freed);
  }
}

/** A task's answer, and how many episodes it freed. */
async function run(task: WorkerTask): Promise<[unknown, number]> {
  switch (task.op) {
    case 'apply': {
      const frame = Buffer.from(task.frame.buffer, task.frame.byteOffset, task.frame.byteLength);
      const decoded = codec.decode(frame, task.binary);
      // The main thread decoded these same bytes and checked the envelope before sending them here.
      if (!decoded.ok) throw new Error(`shard worker: a forwarded frame did not decode: ${decoded.message}`);
      const req = decoded.value as SessionRequest;
      const reply = await starts.run(req.type === 'step', () => table.apply(task.session, task.seed, req));
      const encoded = encodeReply(codec, reply, task.binary, log, true);
      // An exact-size copy that can be moved (the packer's scratch buffer is written over by the next reply).
      const bytes = typeof encoded === 'string' ? encoded : new Uint8Array(encoded);
      const result: WorkerApplyResult = { bytes, stats: table.takeStats(), episodes: table.episodeCount(task.session), heap: budget.reading() };
      if (typeof bytes === 'string') return [result, result.stats.closed];
      // Transfer the reply's buffer instead of cloning it (piscina's Transferable protocol).
      return [move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: result } as never), result.stats.closed];
    }
    case 'free': {
      const freed = table.free(task.session);
      const answer: WorkerFreeResult = { freed, stats: table.takeStats(), heap_bytes: heapBytes() };
      return [answer, freed];
    }
    case 'reload_prepare': {
      pending = null;
      if (catalog === null) return [{ ok: false, errors: ['this worker was started without reward files'] }, 0];
      const r = await catalog.prepare();
      if (!r.ok) {
        log.error({ errors: r.errors }, 'shard worker: reward reload failed; keeping the previous profiles');
        return [r, 0];
      }
      pending = r.set;
      return [{ ok: true, hash: r.set.hash }, 0];
    }
    case 'reload_commit':
      // Only the set this worker prepared, and only if it is the one every thread agreed on.
      if (catalog !== null && pending !== null && pending.hash === task.hash) catalog.commit(pending);
      else log.error({ hash: task.hash, pending: pending?.hash ?? null }, 'shard worker: asked to commit a reward set it did not prepare');
      pending = null;
      return [null, 0];
    case 'reload_abort':
      pending = null;
      return [null, 0];
    case 'drain':
      // Requests held for their start are applied before the sessions are freed.
      await starts.whenIdle();
      return [null, await table.drain()];
    case 'ping':
      return [null, 0];
  }
}

export default handleTask;
