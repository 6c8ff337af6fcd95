/**
 * The load generator in a child process (bench/load-client.ts, built: the child runs dist/bench/load-client.js,
 * which `npm test` builds before vitest): phases asked for over IPC give the results the in-process phases
 * give, the throughput corpus arrives as a file, a phase that throws fails its promise with the child's
 * error, and close() ends the child.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Corpus } from '../../bench/corpus.js';
import { sample, scrapeMetrics } from '../../bench/observe.js';
import { defaultServerConfig, startServer } from '../../server/index.js';

const DIST = fileURLToPath(new URL('../../dist/bench/load-client.js', import.meta.url));

describe.skipIf(!existsSync(DIST))('load generator in a child process (built)', () => {
  it('runs throughput and concurrency phases over IPC, writes the corpus file, reports errors and exits on close', async () => {
    const mod = (await import(pathToFileURL(DIST).href)) as typeof import('../../bench/load-client.js');
    const lines: string[] = [];
    const client = mod.childProcessLoadClient((l) => lines.push(l));
    expect(client.where).toBe('child process');
    const pid = client.pid as number;
    expect(pid).not.toBe(process.pid);
    const server = await startServer(
      defaultServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent', allow_oracle_hints: true, limits: { max_batch: 256 } }),
    );
    const dir = mkdtempSync(join(tmpdir(), 'hg-load-client-'));
    const wsUrl = `${server.url.replace(/^http/, 'ws')}/v1/env`;
    try {
      const corpusPath = join(dir, 'c.msgpack');
      const tp = await client.throughput({
        url: wsUrl,
        connections: 1,
        episodes: 4,
        planEpisodes: 4,
        stepsPerFrame: 4,
        durationS: 0,
        warmupRounds: 0,
        warmupS: 0.2,
        distinctRounds: 1,
        seed: 5,
        maxBatch: 256,
        timeoutMs: 30_000,
        corpusPath,
        log: true,
      });
      expect(tp.failures.total).toBe(0);
      expect(tp.steps).toBeGreaterThan(0);
      expect(tp.warmup_steps).toBeGreaterThan(0);
      expect(Corpus.read(corpusPath).size).toBe(tp.steps);
      expect(lines.some((l) => l.includes('warm-up'))).toBe(true);

      const conc = await client.concurrency({
        url: wsUrl,
        httpUrl: server.url,
        pid: process.pid,
        episodes: 8,
        connections: 2,
        thinkMs: 50,
        jitter: 0.2,
        groupSize: 1,
        tickMs: 10,
        maxInflightFrames: 16,
        rampTimeoutS: 10,
        steadyS: 0.5,
        drainS: 5,
        maxBatch: 256,
        timeoutMs: 30_000,
        seed: 5,
      });
      expect(conc.failures.total).toBe(0);
      expect(conc.concurrent_episodes).toBe(8);
      expect(conc.steps).toBeGreaterThan(0);
      expect(sample(await scrapeMetrics(server.url), 'harness_gym_steps_total')).toBe(tp.steps + tp.warmup_steps + conc.steps);

      // A phase that throws (nothing listens there) fails with the child's error; the child keeps serving.
      await expect(
        client.throughput({
          url: 'ws://127.0.0.1:1/v1/env',
          connections: 1,
          episodes: 1,
          planEpisodes: 1,
          stepsPerFrame: 1,
          durationS: 0,
          warmupRounds: 0,
          distinctRounds: 1,
          seed: 1,
          maxBatch: 1,
          timeoutMs: 1000,
        }),
      ).rejects.toThrow(/load client: .*ECONNREFUSED/s);
    } finally {
      await client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
