/**
 * `harness-gym view`: a local, read-only web page over a directory of records. Plain HTML, one vanilla
 * JS file and one stylesheet served by fastify (no CDN, no build step); the page asks two JSON routes:
 * `/api/episodes` (the list with what the filters and charts need) and `/api/episodes/:key` (one episode,
 * the view `harness-gym inspect` prints, with where it came from). Binds 127.0.0.1 only: records hold
 * whole tasks. An episode's link names its file and its index there (`#/episode/<file>/<index>`), not
 * the list position, so a link still opens the same episode after more files were written.
 *
 * `--compare DIR2` adds `/api/compare` (compare.ts): the same seeds and variants of two runs side by side.
 * Every JSON answer is bounded by the records read (themselves bounded by the reader) or by a fixed limit.
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
import type { EpisodeRecordV1 } from '../format.js';
import { compareRuns, DEFAULT_MOVED, MAX_MOVED } from './compare.js';

/** One row of the list. */
export interface EpisodeRow {
  key: number;
  /** The episode's unique key, `<file>/<index>` (ids repeat across runs: `eval-1` is in every eval run). */
  uid: string;
  episode_id: string;
  /** The record file's name (no directory). */
  file: string;
  /** The writer the file came from: its name without the rotation number (`session-<id>`, `eval-...`). */
  session: string;
  /** What wrote the record: `serve`, `eval`, `rescore`, ... */
  created_by: string;
  /**
   * The policy, where the run names it: records do not carry the policy, but `eval --record` names its
   * files `eval-<policy>-s<seed>-n<episodes>` (`eval-url-...` remotely); otherwise the file's stem.
   */
  policy: string;
  /** The reward profile the episode was scored with. */
  profile: string;
  /** The gates that capped the reward (empty when none did). */
  caps: string[];
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

/** One component's part of the reward: its value times its weight over the sum of the profile's weights. */
export interface RewardShare {
  name: string;
  value: number;
  /** The profile's weight of the component (null when the profile does not weigh it). */
  weight: number | null;
  /** `value × weight / Σ weights`: the shares sum to the weighted mean before any cap. */
  share: number | null;
}

/** The headline of an episode: its reward, the caps that lowered it, and each component's weighted share. */
export interface RewardHeadline {
  reward: number;
  profile: string;
  caps: string[];
  /** Σ of the profile's positive weights. */
  weight_sum: number;
  /** Σ of the shares: the weighted mean before the gates. */
  weighted_mean: number;
  shares: RewardShare[];
}

/** One episode as the detail route serves it: the inspect view, its headline and where the record is. */
export interface EpisodeDetail extends EpisodeView {
  headline: RewardHeadline;
  source: { key: number; file: string; session: string; index: number; uid: string; created_by: string; policy: string };
}

/** An episode's headline from its record (the profile stored in the record, not today's). */
export function rewardHeadline(rec: EpisodeRecordV1): RewardHeadline {
  const weights = new Map<string, number>();
  for (const m of rec.profile.modules) if (Number.isFinite(m.weight) && m.weight > 0) weights.set(m.name, m.weight);
  let weightSum = 0;
  for (const w of weights.values()) weightSum += w;
  const shares = Object.entries(rec.reward.components).map(([name, value]): RewardShare => {
    const weight = rec.profile.modules.find((m) => m.name === name)?.weight ?? null;
    const w = weights.get(name);
    return { name, value, weight, share: w !== undefined && weightSum > 0 ? (value * w) / weightSum : null };
  });
  return {
    reward: rec.reward.reward,
    profile: rec.reward_profile,
    caps: rec.reward.caps ?? [],
    weight_sum: weightSum,
    weighted_mean: shares.reduce((a, s) => a + (s.share ?? 0), 0),
    shares,
  };
}

/** A record file's writer: `session-<id>-0002.hgrec` -> `session-<id>` (files rotate as `<stem>-NNNN`). */
export function sessionOf(file: string): string {
  const name = basename(file);
  const stem = name.endsWith(RECORD_EXT) ? name.slice(0, -RECORD_EXT.length) : name;
  return stem.replace(/-\d{4,}$/, '');
}

/** The policy a run's stem names (`eval-oracle-s1-n20` -> `oracle`), else the stem itself. */
export function policyOf(stem: string): string {
  const m = /^eval(?:-url)?-(.+)-s\d+-n\d+$/.exec(stem);
  return m ? m[1] : stem;
}

/** The list rows of loaded records. */
export function episodeRows(records: readonly LoadedRecord[]): EpisodeRow[] {
  return records.map((r, key) => {
    const rec = r.record;
    const session = sessionOf(r.file);
    return {
      key,
      uid: `${basename(r.file)}/${r.index}`,
      episode_id: rec.episode_id,
      file: basename(r.file),
      session,
      created_by: rec.created_by,
      policy: policyOf(session),
      profile: rec.reward_profile,
      caps: rec.reward.caps ?? [],
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
export function buildViewer(
  path: string,
  opts: { compare?: string } = {},
): { app: FastifyInstance; episodes: number; warnings: string[]; hosts: Set<string> } {
  const { records, warnings } = loadRecords(path);
  const other = opts.compare === undefined ? undefined : loadRecords(opts.compare);
  if (other) warnings.push(...other.warnings.map((w) => `${opts.compare}: ${w}`));
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
  app.get('/api/episodes', async () => ({ path, compare: opts.compare ?? null, episodes: rows, warnings }));
  // The comparison is computed once per limit asked (at most MAX_MOVED + 1 distinct answers are kept).
  const compared = new Map<number, unknown>();
  app.get<{ Querystring: { limit?: string } }>('/api/compare', async (req, reply) => {
    if (other === undefined || opts.compare === undefined) {
      return reply.code(404).send({ error: { code: 'NO_COMPARISON', message: 'start the viewer with --compare DIR2 to compare two runs' } });
    }
    const asked = req.query.limit === undefined ? DEFAULT_MOVED : Number(req.query.limit);
    const limit = Number.isInteger(asked) ? Math.max(0, Math.min(MAX_MOVED, asked)) : DEFAULT_MOVED;
    let report = compared.get(limit);
    if (report === undefined) {
      report = compareRuns({ path, records }, { path: opts.compare, records: other.records }, limit);
      compared.set(limit, report);
    }
    return report;
  });
  app.get<{ Params: { key: string } }>('/api/episodes/:key', async (req, reply) => {
    const key = Number(req.params.key);
    const r = Number.isInteger(key) ? records[key] : undefined;
    if (!r) return reply.code(404).send({ error: { code: 'UNKNOWN_EPISODE', message: `no episode ${req.params.key}` } });
    const row = rows[key];
    const detail: EpisodeDetail = {
      ...inspectRecord(r.record),
      headline: rewardHeadline(r.record),
      source: { key, file: row.file, session: row.session, index: row.index, uid: row.uid, created_by: row.created_by, policy: row.policy },
    };
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
export async function startViewer(opts: { path: string; port: number; compare?: string }): Promise<RunningViewer> {
  const { app, episodes, warnings, hosts } = buildViewer(opts.path, opts.compare === undefined ? {} : { compare: opts.compare });
  const url = await app.listen({ host: '127.0.0.1', port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  for (const h of viewerHosts(port)) hosts.add(h);
  return { app, url, episodes, warnings, close: () => app.close() };
}
