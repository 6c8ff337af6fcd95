/**
 * A shard worker (server/shards.ts): one thread holding the episodes of the sessions bound to it. It is
 * started with the server config, loads the same reward files the main thread loaded, and answers piscina
 * tasks: `apply` (decode a frame, apply it, encode the reply), `free`, `reload` and `drain`.
 *
 * The handler is also exported as `handleTask` so that a test worker can wrap it (to inject a failure).
 */
import { pino } from 'pino';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { defaultEnvConfig } from '../env/index.js';
import type { EnvConfig } from '../env/index.js';
import { RewardCatalog } from '../rewards/index.js';
import { Codec } from '../protocol/codec.js';
import { Shard } from './shard.js';
import type { SessionRequest } from './shard.js';
import { encodeReply } from './shards.js';
import type { ShardWorkerData, WorkerApplyResult, WorkerTask } from './shards.js';

const data = workerData as ShardWorkerData;
const config = data.config;
const log = pino({ level: config.log_level }).child({ shard_worker: true });
const limits = { max_turns: config.limits.max_turns, max_errors: config.limits.max_errors };

// The reward set: the same files the main thread validated at start-up (a failure here is a start-up error).
let catalog: RewardCatalog | null = null;
let env: EnvConfig = defaultEnvConfig({ limits });
if (config.rewards.profiles.length + config.rewards.module_dirs.length > 0) {
  const loaded = await RewardCatalog.load(config.rewards, { judge: { api_key: data.judgeApiKey } });
  if (!loaded.ok) throw new Error(`shard worker: reward files failed to load: ${loaded.errors.join('; ')}`);
  catalog = loaded.catalog;
  env = defaultEnvConfig({ limits, registry: catalog.current.registry, profiles: catalog.current.profiles });
  catalog.onSwap((set) => {
    env = { ...env, registry: set.registry, profiles: set.profiles };
  });
}

const shard = new Shard({ config, env: () => env, log, yieldEvery: data.yieldEvery });
const codec = new Codec();

/** Answer one task (see `WorkerTask`). */
export async function handleTask(task: WorkerTask): Promise<unknown> {
  switch (task.op) {
    case 'apply': {
      const frame = Buffer.from(task.frame.buffer, task.frame.byteOffset, task.frame.byteLength);
      const decoded = codec.decode(frame, task.binary);
      // The main thread decoded these same bytes and checked the envelope before sending them here.
      if (!decoded.ok) throw new Error(`shard worker: a forwarded frame did not decode: ${decoded.message}`);
      const reply = await shard.apply(task.session, task.seed, decoded.value as SessionRequest);
      const encoded = encodeReply(codec, reply, task.binary, log);
      // An exact-size copy that can be moved (the packer's buffer is reused for the next reply).
      const bytes = typeof encoded === 'string' ? encoded : new Uint8Array(encoded);
      const result: WorkerApplyResult = { bytes, stats: shard.takeStats(), episodes: shard.episodeCount(task.session) };
      if (typeof bytes === 'string') return result;
      // Transfer the reply's buffer instead of cloning it (piscina's Transferable protocol).
      return move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: result } as never);
    }
    case 'free':
      return { freed: shard.free(task.session), stats: shard.takeStats() };
    case 'reload':
      if (catalog) {
        const r = await catalog.reload();
        if (!r.ok) log.error({ errors: r.errors }, 'shard worker: reward reload failed; keeping the previous profiles');
      }
      return null;
    case 'drain':
      await shard.drain();
      return null;
    case 'ping':
      return null;
  }
}

export default handleTask;
