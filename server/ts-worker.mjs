/**
 * Worker bootstrap used only when the server runs from its TypeScript sources (tests, `tsx`): Node 20
 * does not apply `--import tsx` to worker threads, so this plain module registers tsx's loader in the
 * worker and re-exports the TypeScript worker module named by `workerData.tsModule` (server/shards.ts).
 * Built servers load dist/server/shard-worker.js directly and never read this file.
 */
import { workerData } from 'piscina';
import { register } from 'tsx/esm/api';

register();
const mod = await import(workerData.tsModule);

export default mod.default;
