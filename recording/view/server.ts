/**
 * `harness-gym view`: a local, read-only web page over a directory of records. Plain HTML, one vanilla
 * JS file and one stylesheet served by fastify (no CDN, no build step); the page asks two JSON routes:
 * `/api/episodes` (the list with what the filters and charts need) and `/api/episodes/:key` (one episode,
 * the view `harness-gym inspect` prints, with where it came from). Binds 127.0.0.1 only: records hold
 * whole tasks. An episode's link names its file and its index there (`#/episode/<file>/<index>`), not
 * the list position, so a link still opens the same episode after more files were written.
 *
 * Only requests naming the viewer itself are answered (`Host` 127.0.0.1:PORT, localhost:PORT or
 * [::1]:PORT); others get 421: a page on another site whose name is made to resolve to 127.0.0.1 (DNS
 * rebinding) would otherwise read every recorded task and transcript (docs/DEPLOY.md "Threat model").
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { RECORD_EXT } from '../format.js';
import { readRecords } from '../reader.js';
import type { LoadedRecord, ReadResult } from '../reader.js';
import { inspectRecord } from '../inspect.js';
import type { EpisodeView } from '../inspect.js';

/** One row of the list. */
export interface EpisodeRow {
  key: number;
  episode_id: string;
  /** The record file's name (no directory). */
  file: string;
  /** The writer the file came from: its name without the rotation number (`session-<id>`, `eval-...`). */
  session: string;
  /** Index of the record within its file. */
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

/** One episode as the detail route serves it: the inspect view and where the record is. */
export interface EpisodeDetail extends EpisodeView {
  source: { key: number; file: string; session: string; index: number };
}

/** A record file's writer: `session-<id>-0002.hgrec` -> `session-<id>` (files rotate as `<stem>-NNNN`). */
export function sessionOf(file: string): string {
  const name = basename(file);
  const stem = name.endsWith(RECORD_EXT) ? name.slice(0, -RECORD_EXT.length) : name;
  return stem.replace(/-\d{4,}$/, '');
}

/** The list rows of loaded records. */
export function episodeRows(records: readonly LoadedRecord[]): EpisodeRow[] {
  return records.map((r, key) => {
    const rec = r.record;
    return {
      key,
      episode_id: rec.episode_id,
      file: basename(r.file),
      session: sessionOf(r.file),
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

const WHAT_TO_GIVE =
  'give a directory of record files (*.hgrec, as `harness-gym serve --record DIR` or `harness-gym eval --record DIR` write them) or one such file';

/**
 * The records of a path, or an Error saying what is wrong with it and what to give instead: a missing
 * path, a directory without record files and a file that is not one would otherwise serve an empty page.
 */
function loadRecords(path: string): ReadResult {
  if (!existsSync(path)) throw new Error(`${path} does not exist: ${WHAT_TO_GIVE}`);
  const loaded = readRecords(path);
  if (!loaded.ok) throw new Error(`${loaded.message}: ${WHAT_TO_GIVE}`);
  const r = loaded.result;
  if (r.files.length === 0) throw new Error(`${path} holds no record file: ${WHAT_TO_GIVE}`);
  // A file without a header or a record is not one (a torn record file keeps its header).
  if (r.headers.length === 0 && r.records.length === 0) throw new Error(`${path} is not a record file: ${WHAT_TO_GIVE}`);
  // Bad episodes are skipped with a warning each (reader.ts); none left is nothing to show.
  if (r.records.length === 0 && r.skipped > 0) {
    throw new Error(`${path} holds no valid episode record (${r.skipped} skipped: ${r.warnings.join('; ')}): ${WHAT_TO_GIVE}`);
  }
  return r;
}

/**
 * Build the viewer app over a file or directory (not listening). Throws an Error naming the path when
 * it does not exist or holds no record file.
 */
export function buildViewer(path: string): { app: FastifyInstance; episodes: number; warnings: string[]; hosts: Set<string> } {
  const { records, warnings } = loadRecords(path);
  const rows = episodeRows(records);
  const dir = staticDir();
  const app = Fastify({ logger: false });
  // The Host values answered (lower case); empty until the caller knows its port (`viewerHosts`).
  const hosts = new Set<string>();
  app.addHook('onRequest', async (req, reply) => {
    const host = req.headers.host?.toLowerCase();
    if (host !== undefined && hosts.has(host)) return;
    return reply
      .code(421)
      .type('text/plain; charset=utf-8')
      .send('421 Misdirected Request: the viewer answers only 127.0.0.1, localhost and [::1] at its own port\n');
  });
  for (const [route, file] of Object.entries(STATIC_FILES)) {
    app.get(route, async (_req, reply) => reply.type(TYPES[file]).send(readFileSync(join(dir, file))));
  }
  app.get('/api/episodes', async () => ({ path, episodes: rows, warnings }));
  app.get<{ Params: { key: string } }>('/api/episodes/:key', async (req, reply) => {
    const key = Number(req.params.key);
    const r = Number.isInteger(key) ? records[key] : undefined;
    if (!r) return reply.code(404).send({ error: { code: 'UNKNOWN_EPISODE', message: `no episode ${req.params.key}` } });
    const row = rows[key];
    const detail: EpisodeDetail = { ...inspectRecord(r.record), source: { key, file: row.file, session: row.session, index: row.index } };
    return detail;
  });
  return { app, episodes: rows.length, warnings, hosts };
}

/** The Host header values a viewer on loopback port `port` answers (a browser leaves out port 80). */
export function viewerHosts(port: number): string[] {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return [...names.map((n) => `${n}:${port}`), ...(port === 80 ? names : [])];
}

/**
 * Build and listen on 127.0.0.1:`port` (0 picks a free port). Rejects with an Error naming the path
 * when it does not exist or holds no record file.
 */
export async function startViewer(opts: { path: string; port: number }): Promise<RunningViewer> {
  const { app, episodes, warnings, hosts } = buildViewer(opts.path);
  const url = await app.listen({ host: '127.0.0.1', port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  for (const h of viewerHosts(port)) hosts.add(h);
  return { app, url, episodes, warnings, close: () => app.close() };
}
