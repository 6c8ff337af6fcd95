/**
 * The heap limit each episode worker gets (`worker_heap_mb`, server/config.ts).
 *
 * Why "auto" caps it at 2000 MiB: V8 lets a thread's old generation grow to a multiple of what its last
 * full collection left before it starts the next one, and the largest multiple it allows depends on the
 * heap limit (heap-controller.cc `MaxGrowingFactor`): 4 for a limit of 2 GiB or more (1 GiB x the 2 of a
 * build without pointer compression, as Node's is), else 1.3 to 2 rising with the limit from 256 MiB to
 * 2 GiB. A busy worker runs at that largest multiple, so on a machine whose memory gives V8 a default of
 * 2 GiB or more (as on the bench's machine) each worker's heap grows to four times its live objects.
 * Just below the threshold a worker's mark-compacts run at about twice its live objects, so its
 * heap is about half the size, its scavenges are cheaper and its mark-compacts come more often. Over the
 * bench's steady phase "auto" took RSS per live episode down by about a third, but raised server CPU per
 * item a little and the server-side step p99 markedly, so it is not the default: on a machine with memory
 * to spare the CPU matters more, and a container sets its own N (docs/DEPLOY.md "The heap limit")
 * (figures: bench/RESULTS.md "Design measurements cited by the code"); bench/RESULTS.md method item 14.
 */
import { getHeapStatistics } from 'node:v8';
import type { ServerConfig } from './config.js';

/** The limit "auto" gives a worker (MiB): the largest below 2 GiB, where V8's growth multiple doubles. */
export const AUTO_WORKER_HEAP_MB = 2000;

/** V8's young generation in a thread's `heap_size_limit` (MiB): three 16 MiB semi-spaces' worth on 64-bit. */
const YOUNG_GENERATION_MB = 48;

const MIB = 1024 * 1024;

/**
 * Each worker's old-generation limit in MiB, or null for V8's default ("v8", null). "auto" reads V8's default from
 * this thread's `heap_size_limit` (the main thread's, which follows `node --max-old-space-size` when given):
 * AUTO_WORKER_HEAP_MB when that default is larger, else null (a default below 2 GiB already has a growth
 * multiple of at most 2).
 */
export function workerHeapMb(
  setting: ServerConfig['worker_heap_mb'],
  heapSizeLimit: number = getHeapStatistics().heap_size_limit,
): number | null {
  if (setting === 'v8') return null;
  if (setting !== 'auto') return setting;
  const v8DefaultMb = Math.floor(heapSizeLimit / MIB) - YOUNG_GENERATION_MB;
  return v8DefaultMb > AUTO_WORKER_HEAP_MB ? AUTO_WORKER_HEAP_MB : null;
}

/**
 * The old-generation limit a worker actually has (MiB): `workerHeapMb`'s, or V8's default for a thread
 * (this thread's `heap_size_limit` less the young generation) when that is null.
 */
export function workerHeapLimitMb(
  setting: ServerConfig['worker_heap_mb'],
  heapSizeLimit: number = getHeapStatistics().heap_size_limit,
): number {
  return workerHeapMb(setting, heapSizeLimit) ?? Math.floor(heapSizeLimit / MIB) - YOUNG_GENERATION_MB;
}
