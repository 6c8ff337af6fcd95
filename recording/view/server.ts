/**
 * `harness-gym view`: a local, read-only web page over a directory of records. Plain HTML, one vanilla
 * JS file and one stylesheet served by fastify (no CDN, no build step); the page asks two JSON routes:
 * `/api/episodes` (the list with what the filters and charts need) and `/api/episodes/:key` (one episode,
 * rebuilt as `harness-gym inspect` shows it). Binds 127.0.0.1 only: records hold whole tasks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { readRecords } from '../reader.js';
import type { LoadedRecord } from '../reader.js';
import { inspectRecord } from '../inspect.js';

/** One row of the list. */
export interface EpisodeRow {
  key: number;
  episode_id: string;
  file: string;
  index: number;
  seed: number;
  intent: string;
  outcome: string;
  reward: number;
  turns: number;
  locale: string;
  variant_id: string;
  variant_label: string;
  variant_families: string[];
  hooks_violated: string[];
  components: Record<string, number>;
}

/** A running viewer. */
export interface RunningViewer {
  app: FastifyInstance;
  url: string;
  episodes: number;
  warnings: string[];
  close(): Promise<void>;
}

const STATIC_FILES: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The static folder: beside this module (source), else the package's recording/view/static (from dist/). */
function staticDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  if (existsSync(join(here, 'static', 'index.html'))) return join(here, 'static');
  let dir = here;
  for (;;) {
    const cand = join(dir, 'recording', 'view', 'static');
    if (existsSync(join(cand, 'index.html'))) return cand;
    const up = dirname(dir);
    if (up === dir) return join(here, 'static');
    dir = up;
  }
}

/** The list rows of loaded records. */
export function episodeRows(records: readonly LoadedRecord[]): EpisodeRow[] {
  return records.map((r, key) => {
    const rec = r.record;
    return {
      key,
      episode_id: rec.episode_id,
      file: basename(r.file),
      index: r.index,
      seed: rec.seed,
      intent: rec.summary.intent,
      outcome: rec.summary.outcome,
      reward: rec.reward.reward,
      turns: rec.summary.turns,
      locale: rec.summary.locale,
      variant_id: rec.variant_id,
      variant_label: rec.summary.variant_label,
      variant_families: rec.summary.variant_families,
      hooks_violated: rec.summary.hooks_violated,
      components: rec.reward.components,
    };
  });
}

/** Build the viewer app over a file or directory (not listening). */
export function buildViewer(path: string): { app: FastifyInstance; episodes: number; warnings: string[] } {
  const loaded = readRecords(path);
  const records = loaded.ok ? loaded.result.records : [];
  const warnings = loaded.ok ? loaded.result.warnings : [loaded.message];
  const rows = episodeRows(records);
  const dir = staticDir();
  const app = Fastify({ logger: false });
  for (const [route, file] of Object.entries(STATIC_FILES)) {
    app.get(route, async (_req, reply) => reply.type(TYPES[file]).send(readFileSync(join(dir, file))));
  }
  app.get('/api/episodes', async () => ({ path, episodes: rows, warnings }));
  app.get<{ Params: { key: string } }>('/api/episodes/:key', async (req, reply) => {
    const key = Number(req.params.key);
    const r = Number.isInteger(key) ? records[key] : undefined;
    if (!r) return reply.code(404).send({ error: { code: 'UNKNOWN_EPISODE', message: `no episode ${req.params.key}` } });
    return inspectRecord(r.record);
  });
  return { app, episodes: rows.length, warnings };
}

/** Build and listen on 127.0.0.1:`port` (0 picks a free port). */
export async function startViewer(opts: { path: string; port: number }): Promise<RunningViewer> {
  const { app, episodes, warnings } = buildViewer(opts.path);
  const url = await app.listen({ host: '127.0.0.1', port: opts.port });
  return { app, url, episodes, warnings, close: () => app.close() };
}
