/**
 * `ShardedClient`: one trainer, N replicas of the server (they share nothing). It holds one
 * `HarnessGymClient` (one session) per replica URL and places each episode on one replica by a rule every
 * client applies alike (this one and the Python client's `harness_gym.ShardedClient`), with the batch API
 * of `HarnessGymClient` (`reset`, `step`, `closeEpisodes`): a frame is split into one frame per replica,
 * sent at once, and the results are merged back in item order.
 *
 * The placement rule, for a reset item (README "Several servers"):
 *
 *     shard_key     = item.group_id if the item has one, else String(item.seed) (decimal)
 *     replica index = fnv1a32(shard_key) % live_urls.length
 *
 * `fnv1a32` is 32-bit FNV-1a over the key's UTF-8 bytes (offset basis 0x811C9DC5, prime 0x01000193;
 * fnv1a32("a") = 0xE40C292C, fnv1a32("foobar") = 0xBF9CF968). `live_urls` are the URLs the client was
 * given, in the order given, minus the replicas that are down or resuming a dropped connection (give every
 * worker the same list in the same order). So the same seed lands on the same replica from every process
 * and client that sees the same live replicas, and GRPO siblings (one `group_id`, or one seed) land
 * together, where the server can give them one task and variant. Before the rule, in this order:
 *   - a second item for one episode id in one call goes with the first (the server answers
 *     `DUPLICATE_EPISODE`); an episode id that is live (reset, not ended) on a replica goes there (same);
 *   - a group already placed stays on its replica's session even if the live set changed meanwhile (the
 *     client remembers its last `group_memory` groups); if that session is gone, the member fails with
 *     `REPLICA_DOWN` ("the group is lost");
 *   - with no live replica an item fails with `NO_REPLICA`;
 *   - an item with neither a group nor a seed goes round-robin over the live replicas (its seed is drawn
 *     from that replica's session stream). The client names every item that has no `episode_id`
 *     (`<prefix>-<n>`): ids are scoped to a session, so the ids you choose must be unique across the client.
 * Replica i's first session says `hello.seed = (seed + i) mod 2^32` (with `seed`), a later one
 * `fnv1a32("<seed>:<i>:<epoch>")`; without `seed`, every session says a random one (identical replicas
 * would otherwise draw the same seeds for seedless items), as the Python client does.
 *
 * When a replica dies: a dropped connection is first resumed (`reconnect`, default 3 attempts from 200 ms,
 * doubling), during which the replica takes no new episodes (its episodes' requests wait). When the resume
 * fails, or the server ends the session (a drained replica: close 1001, or a `SHUTTING_DOWN` reply), the
 * replica is down: every request in flight to it, and every later request about an episode or group that
 * lived on it, fails alone as an item error
 *
 *     {ok: false, episode_id, error: {code: "REPLICA_DOWN",
 *      message: "replica <url> went down; episode <id> is lost (<cause>)", details: {replica: <url>, cause}}}
 *
 * and the other replicas' items in the same call are answered as usual. `REPLICA_DOWN` and `NO_REPLICA`
 * are client codes (types.ts `ClientErrorCode`), never sent by a server. New episodes are placed over the
 * survivors. The client reconnects to a down replica in the background (`rejoin`, default 5 attempts,
 * 1 s apart and doubling up to 30 s); once one succeeds the replica is live again with a new session (its
 * old episodes stay lost) and counts in the rule again; after the last it is gone for this client.
 * A frame-level error of one replica's frame (`CLIENT_TIMEOUT`, `BATCH_TOO_LARGE`, ...) fails that frame's
 * items with its code, `details.replica` naming the replica. The client never rejects for one replica's
 * trouble; `connect` rejects with `NO_REPLICA` when it reaches none (or with a refusal no retry can fix).
 */
import { HarnessGymClient, HarnessGymError } from './client.js';
import type { ClientOptions, ReconnectPolicy } from './client.js';
import type { ClosedReply, ItemError, ResetItem, ResetResultItem, StepItem, StepResultItem, WelcomeMessage } from './types.js';

/** What `evaluateRemote` and `runRollout` need of a client: `HarnessGymClient` and `ShardedClient` both are one. */
export interface EpisodeClient {
  /** The server's welcome (for a `ShardedClient`, the first live replica's). */
  readonly welcome: WelcomeMessage;
  reset(items: readonly ResetItem[]): Promise<ResetResultItem[]>;
  step(items: readonly StepItem[]): Promise<StepResultItem[]>;
  closeEpisodes(episodeIds: readonly string[]): Promise<ClosedReply>;
  disconnect(): Promise<void>;
}

/** Reconnects (new sessions) to a down replica: `retries` of them, `backoff_ms` apart, doubling up to `max_backoff_ms`. */
export interface RejoinPolicy {
  retries: number;
  backoff_ms: number;
  max_backoff_ms?: number;
}

/** Options of `ShardedClient.connect`: those of every replica's `HarnessGymClient`, plus the sharding ones. */
export interface ShardedClientOptions extends Omit<ClientOptions, 'onClose'> {
  /** Resume of a replica's dropped connection before it counts as down. Default `{retries: 3, backoff_ms: 200}`. */
  reconnect?: ReconnectPolicy;
  /** Reconnects to a down replica. Default `{retries: 5, backoff_ms: 1000, max_backoff_ms: 30000}`; 0 retries: never. */
  rejoin?: RejoinPolicy;
  /** Prefix of the ids the client gives items without one (default `sh<8 hex digits>`). */
  prefix?: string;
  /** Groups whose placement the client remembers (default 65 536, the oldest forgotten first). */
  group_memory?: number;
  /** Called when a replica goes down (with why) and when it is live again (`error` null). */
  onReplica?: (replica: ReplicaStatus, error: HarnessGymError | null) => void;
}

/** A replica as the client sees it. */
export interface ReplicaStatus {
  index: number;
  url: string;
  /** `live` (takes new episodes), `reconnecting` (a drop being resumed), `down` (being retried), `gone` (every retry failed). */
  state: 'live' | 'reconnecting' | 'down' | 'gone';
  /** The current session's id (null when down). */
  session_id: string | null;
  /** Sessions opened on it so far (1 at first; each successful rejoin adds one). */
  sessions: number;
  /** Episodes of the current session this client placed there and has not closed. */
  episodes: number;
  /** Why it last went down (null if it never did). */
  last_error: string | null;
}

const DEFAULT_RECONNECT: ReconnectPolicy = { retries: 3, backoff_ms: 200 };
const DEFAULT_REJOIN: Required<RejoinPolicy> = { retries: 5, backoff_ms: 1000, max_backoff_ms: 30_000 };
const DEFAULT_GROUP_MEMORY = 65_536;
/** Refusals no retry can fix: `connect` rejects with them. */
const FATAL = new Set(['UNAUTHORIZED', 'PROTOCOL_VERSION']);
/** A replica's call failed with one of these: its session is gone (dead, or drained). */
const SESSION_GONE = new Set(['CONNECTION_CLOSED', 'SHUTTING_DOWN']);

/** 32-bit FNV-1a over the UTF-8 bytes of `s` (offset basis 0x811C9DC5, prime 0x01000193). */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The key a reset item is placed by: its `group_id`, else its decimal `seed`, else null (round-robin). */
export function shardKey(item: ResetItem): string | null {
  if (typeof item.group_id === 'string') return item.group_id;
  if (typeof item.seed === 'number') return String(item.seed);
  return null;
}

/** `fnv1a32(key) % replicas`: the index into the live URLs of the replica a key goes to. */
export function shardIndex(key: string, replicas: number): number {
  if (replicas < 1) throw new RangeError('no replica to shard over');
  return fnv1a32(key) % replicas;
}

interface Replica {
  index: number;
  url: string;
  client: HarnessGymClient | null;
  /** Sessions opened; an episode or group remembers the epoch it was placed in. */
  epoch: number;
  gone: boolean;
  retries: number;
  welcome: WelcomeMessage | null;
  lastError: string | null;
  rejoin: NodeJS.Timeout | null;
}

interface Placed {
  replica: Replica;
  epoch: number;
  /** Reset and not ended (a terminated or truncated step ends it). */
  live: boolean;
}

function itemError(episodeId: string | undefined, code: string, message: string, details?: unknown): ItemError {
  const item: ItemError = { ok: false, error: { code, message, ...(details !== undefined ? { details } : {}) } };
  if (episodeId !== undefined) item.episode_id = episodeId;
  return item;
}

const bare = (e: HarnessGymError): string => e.message.replace(/^[A-Z_]+: /, '');

/** Episodes over several replicas, placed by group and seed (see the module comment). */
export class ShardedClient implements EpisodeClient {
  readonly urls: readonly string[];
  readonly #opts: ShardedClientOptions;
  readonly #rejoin: Required<RejoinPolicy>;
  readonly #replicas: Replica[];
  readonly #episodes = new Map<string, Placed>();
  /** Group -> where it was placed, oldest first (a Map keeps insertion order). */
  readonly #groups = new Map<string, { replica: Replica; epoch: number }>();
  readonly #prefix: string;
  #named = 0;
  #roundRobin = 0;
  #closed = false;

  private constructor(urls: readonly string[], opts: ShardedClientOptions) {
    this.urls = urls;
    this.#opts = opts;
    this.#rejoin = { ...DEFAULT_REJOIN, ...(opts.rejoin ?? {}) };
    this.#prefix = opts.prefix ?? `sh${Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')}`;
    this.#replicas = urls.map((url, index) => ({ index, url, client: null, epoch: 0, gone: false, retries: 0, welcome: null, lastError: null, rejoin: null }));
  }

  /**
   * Open one session per replica, all at once. Replicas that cannot be reached start down (and are
   * rejoined in the background). Rejects with `NO_REPLICA` (`details.replicas`: URL -> why) when none can
   * be reached, or with a replica's `UNAUTHORIZED` / `PROTOCOL_VERSION` (`details.replica` names it).
   */
  static async connect(urls: readonly string[], opts: ShardedClientOptions = {}): Promise<ShardedClient> {
    if (urls.length === 0) throw new TypeError('ShardedClient needs at least one replica URL');
    if (new Set(urls).size !== urls.length) throw new TypeError(`ShardedClient: replica URLs must be distinct (${urls.join(', ')})`);
    const sc = new ShardedClient(urls, opts);
    const outcomes = await Promise.all(sc.#replicas.map((r) => sc.#open(r).then(() => null, (e: unknown) => sc.#asError(e, r))));
    const fatal = outcomes.find((e) => e !== null && FATAL.has(e.code));
    if (fatal || outcomes.every((e) => e !== null)) {
      await sc.disconnect();
      if (fatal) throw fatal;
      const replicas = Object.fromEntries(sc.#replicas.map((r) => [r.url, r.lastError]));
      throw new HarnessGymError({
        code: 'NO_REPLICA',
        message: `no replica could be reached: ${sc.#replicas.map((r) => `${r.url} (${r.lastError ?? '?'})`).join('; ')}`,
        details: { replicas, replica: urls.join(' ') },
      });
    }
    for (const r of sc.#replicas) if (r.client === null) sc.#scheduleRejoin(r);
    return sc;
  }

  /** The welcome of the first live replica (else the first one's last welcome). */
  get welcome(): WelcomeMessage {
    const r = this.#live()[0] ?? this.#replicas.find((x) => x.welcome !== null);
    return r?.welcome as WelcomeMessage;
  }

  /** Every replica's latest welcome (null for one never reached), in URL order. */
  get welcomes(): (WelcomeMessage | null)[] {
    return this.#replicas.map((r) => r.welcome);
  }

  /** The URLs new episodes are placed over now, in the order given. */
  get liveUrls(): string[] {
    return this.#live().map((r) => r.url);
  }

  /** Every replica's state, in URL order. */
  get replicas(): ReplicaStatus[] {
    return this.#replicas.map((r) => this.#status(r));
  }

  /** The index (in `urls`) of the replica an episode was started on; undefined for one this client does not know. */
  replicaOf(episodeId: string): number | undefined {
    return this.#episodes.get(episodeId)?.replica.index;
  }

  /** Reset a batch, each item on the replica the rule gives; one result per item, in item order. */
  async reset(items: readonly ResetItem[]): Promise<ResetResultItem[]> {
    this.#checkOpen();
    const results: ResetResultItem[] = new Array(items.length);
    const parts = new Map<Replica, { at: number[]; items: ResetItem[] }>();
    const inCall = new Map<string, Replica>();
    items.forEach((given, at) => {
      const item = given.episode_id === undefined ? { ...given, episode_id: `${this.#prefix}-${this.#named++}` } : given;
      const id = item.episode_id as string;
      const placed = this.#place(item, inCall);
      if ('ok' in placed) {
        results[at] = placed;
        return;
      }
      const replica = placed;
      inCall.set(id, replica);
      const before = this.#episodes.get(id);
      // An ended episode id reset on another replica than before: close it where it was (housekeeping).
      if (before && before.replica !== replica && this.#current(before)) void before.replica.client?.closeEpisodes([id]).catch(() => undefined);
      const part = parts.get(replica) ?? { at: [], items: [] };
      part.at.push(at);
      part.items.push(item);
      parts.set(replica, part);
    });
    await Promise.all([...parts].map(([replica, part]) => this.#send(replica, 'reset', part, results)));
    return results;
  }

  /** Step a batch, each episode on its replica; one result per item, in item order. */
  async step(items: readonly StepItem[]): Promise<StepResultItem[]> {
    this.#checkOpen();
    const results: StepResultItem[] = new Array(items.length);
    const parts = new Map<Replica, { at: number[]; items: StepItem[] }>();
    items.forEach((item, at) => {
      const p = this.#episodes.get(item.episode_id);
      if (p === undefined) {
        results[at] = itemError(item.episode_id, 'UNKNOWN_EPISODE', `no episode ${item.episode_id} in this client's sessions`);
        return;
      }
      if (!this.#current(p)) {
        results[at] = this.#downError(p.replica, item.episode_id);
        return;
      }
      const part = parts.get(p.replica) ?? { at: [], items: [] };
      part.at.push(at);
      part.items.push(item);
      parts.set(p.replica, part);
    });
    await Promise.all([...parts].map(([replica, part]) => this.#send(replica, 'step', part, results)));
    return results;
  }

  /**
   * Close episodes on their replicas. Episodes of a replica that went down (its session, and they, are
   * gone) and ids this client does not know are listed in `unknown`; either way the client forgets them.
   */
  async closeEpisodes(episodeIds: readonly string[]): Promise<ClosedReply> {
    this.#checkOpen();
    const closed: string[] = [];
    const unknown: string[] = [];
    const parts = new Map<Replica, string[]>();
    for (const id of episodeIds) {
      const p = this.#episodes.get(id);
      this.#episodes.delete(id);
      if (p === undefined || !this.#current(p)) unknown.push(id);
      else parts.set(p.replica, [...(parts.get(p.replica) ?? []), id]);
    }
    await Promise.all(
      [...parts].map(async ([replica, ids]) => {
        const client = replica.client as HarnessGymClient;
        try {
          const r = await client.closeEpisodes(ids);
          closed.push(...r.episode_ids);
          unknown.push(...r.unknown);
        } catch (e) {
          if (e instanceof HarnessGymError && SESSION_GONE.has(e.code)) this.#down(replica, client, bare(e));
          unknown.push(...ids);
        }
      }),
    );
    const order = new Map(episodeIds.map((id, i) => [id, i]));
    const byRequest = (a: string, b: string): number => (order.get(a) ?? 0) - (order.get(b) ?? 0);
    return { episode_ids: closed.sort(byRequest), unknown: unknown.sort(byRequest) };
  }

  /** Round trip a `ping` on every live replica. */
  async ping(): Promise<void> {
    this.#checkOpen();
    await Promise.all(this.#live().map((r) => (r.client as HarnessGymClient).ping()));
  }

  /** End every replica's session cleanly (the servers free their episodes) and stop rejoining. */
  async disconnect(): Promise<void> {
    this.#closed = true;
    for (const r of this.#replicas) {
      if (r.rejoin) clearTimeout(r.rejoin);
      r.rejoin = null;
    }
    await Promise.all(this.#replicas.map((r) => r.client?.disconnect()));
  }

  /** Same as `disconnect()`. */
  close(): Promise<void> {
    return this.disconnect();
  }

  // ---------------------------------------------------------------------------------------------------

  #checkOpen(): void {
    if (this.#closed) throw new HarnessGymError({ code: 'CONNECTION_CLOSED', message: 'the sharded client is closed' });
  }

  #state(r: Replica): ReplicaStatus['state'] {
    if (r.gone) return 'gone';
    if (r.client === null || r.client.isClosed) return 'down';
    return r.client.isReconnecting ? 'reconnecting' : 'live';
  }

  #status(r: Replica): ReplicaStatus {
    let episodes = 0;
    for (const p of this.#episodes.values()) if (p.replica === r && p.epoch === r.epoch) episodes++;
    const state = this.#state(r);
    const up = state === 'live' || state === 'reconnecting';
    return { index: r.index, url: r.url, state, session_id: up ? (r.client as HarnessGymClient).sessionId : null, sessions: r.epoch, episodes, last_error: r.lastError };
  }

  #live(): Replica[] {
    return this.#replicas.filter((r) => this.#state(r) === 'live');
  }

  /** The session an episode or group was placed in is still the replica's, and up. */
  #current(p: { replica: Replica; epoch: number }): boolean {
    const s = this.#state(p.replica);
    return (s === 'live' || s === 'reconnecting') && p.epoch === p.replica.epoch;
  }

  #downError(r: Replica, episodeId: string | undefined, why?: string): ItemError {
    const text = why ?? `replica ${r.url} went down; episode ${episodeId ?? '(unnamed)'} is lost`;
    return itemError(episodeId, 'REPLICA_DOWN', `${text} (${r.lastError ?? 'its session ended'})`, { replica: r.url, cause: r.lastError });
  }

  /** Where a reset item goes (see the module comment), or the item error it gets instead. */
  #place(item: ResetItem, inCall: Map<string, Replica>): Replica | ItemError {
    const id = item.episode_id as string;
    const same = inCall.get(id);
    if (same) return same;
    const known = this.#episodes.get(id);
    if (known && known.live && this.#current(known)) return known.replica;
    if (typeof item.group_id === 'string') {
      const group = this.#groups.get(item.group_id);
      if (group) {
        // Refresh its age: the oldest groups are forgotten first.
        this.#groups.delete(item.group_id);
        this.#groups.set(item.group_id, group);
        if (this.#current(group)) return group.replica;
        return this.#downError(group.replica, id, `the replica of group ${item.group_id}, ${group.replica.url}, went down; the group is lost`);
      }
    }
    const live = this.#live();
    if (live.length === 0) return itemError(id, 'NO_REPLICA', 'no replica is live', { replicas: this.urls });
    const key = shardKey(item);
    const replica = live[key === null ? this.#roundRobin++ % live.length : shardIndex(key, live.length)] as Replica;
    if (typeof item.group_id === 'string') {
      this.#groups.set(item.group_id, { replica, epoch: replica.epoch });
      const memory = Math.max(1, this.#opts.group_memory ?? DEFAULT_GROUP_MEMORY);
      while (this.#groups.size > memory) this.#groups.delete(this.#groups.keys().next().value as string);
    }
    return replica;
  }

  /** One replica's part of a reset or step; fills `results` at the part's positions. */
  async #send<I extends { episode_id?: string }>(
    replica: Replica,
    kind: 'reset' | 'step',
    part: { at: number[]; items: I[] },
    results: (ResetResultItem | StepResultItem)[],
  ): Promise<void> {
    const client = replica.client as HarnessGymClient;
    const epoch = replica.epoch;
    let got: (ResetResultItem | StepResultItem)[];
    try {
      got = kind === 'reset' ? await client.reset(part.items as ResetItem[]) : await client.step(part.items as unknown as StepItem[]);
    } catch (e) {
      const err = e instanceof HarnessGymError ? e : new HarnessGymError({ code: 'INTERNAL', message: String(e) });
      if (SESSION_GONE.has(err.code) || client.isClosed) {
        // Dead (the resume failed, or the server closed the session) or draining: every item it held is lost.
        this.#down(replica, client, bare(err));
        part.items.forEach((item, k) => (results[part.at[k] as number] = this.#downError(replica, item.episode_id)));
        return;
      }
      // A frame-level error or a timeout: this replica's items fail with it.
      part.items.forEach(
        (item, k) =>
          (results[part.at[k] as number] = itemError(item.episode_id, err.code, `replica ${replica.url}: ${bare(err)}`, {
            replica: replica.url,
            ...(err.details !== undefined ? { details: err.details } : {}),
          })),
      );
      return;
    }
    got.forEach((res, k) => {
      results[part.at[k] as number] = res;
      if (!res.ok) return;
      if (kind === 'reset') this.#episodes.set(res.episode_id, { replica, epoch, live: true });
      else if ((res as { terminated?: boolean }).terminated || (res as { truncated?: boolean }).truncated) {
        const p = this.#episodes.get(res.episode_id);
        if (p) p.live = false;
      }
    });
  }

  #asError(e: unknown, r: Replica): HarnessGymError {
    const err = e instanceof HarnessGymError ? e : new HarnessGymError({ code: 'CONNECTION_FAILED', message: String(e) });
    r.lastError = `${err.code}: ${bare(err)}`;
    return new HarnessGymError({ code: err.code, message: bare(err), details: { replica: r.url } });
  }

  #helloSeed(r: Replica): number {
    const seed = this.#opts.seed;
    // Without a seed, a random one per session: replicas run the same config, and sessions without
    // hello.seed would draw seedless items from the same stream on every replica (duplicate episodes).
    if (seed === undefined) return globalThis.crypto.getRandomValues(new Uint32Array(1))[0];
    return r.epoch === 0 ? (seed + r.index) >>> 0 : fnv1a32(`${seed}:${r.index}:${r.epoch}`);
  }

  /** Open a new session on a replica. */
  async #open(r: Replica): Promise<void> {
    const { rejoin: _rejoin, onReplica: _onReplica, prefix: _prefix, group_memory: _memory, seed: _seed, ...clientOpts } = this.#opts;
    const seed = this.#helloSeed(r);
    let client: HarnessGymClient | null = null;
    client = await HarnessGymClient.connect(r.url, {
      ...clientOpts,
      seed,
      reconnect: this.#opts.reconnect ?? DEFAULT_RECONNECT,
      client: this.#opts.client ?? 'harness-gym-sharded',
      onClose: (e) => {
        if (client !== null) this.#down(r, client, bare(e));
      },
    });
    if (this.#closed) {
      await client.disconnect();
      return;
    }
    r.client = client;
    r.welcome = client.welcome;
    r.epoch++;
    r.gone = false;
    r.retries = 0;
  }

  /** The replica's session `client` is gone: stop placing on it, tell the caller, and rejoin it later. */
  #down(r: Replica, client: HarnessGymClient, cause: string): void {
    // An older session's failure reported late: the replica has a new one.
    if (r.client !== client) return;
    r.client = null;
    r.lastError = cause;
    if (!client.isClosed) void client.disconnect();
    this.#opts.onReplica?.(this.#status(r), new HarnessGymError({ code: 'REPLICA_DOWN', message: `replica ${r.url} went down (${cause})`, details: { replica: r.url, cause } }));
    this.#scheduleRejoin(r);
  }

  #scheduleRejoin(r: Replica): void {
    if (this.#closed || r.rejoin !== null || r.gone) return;
    if (r.retries >= this.#rejoin.retries) {
      r.gone = true;
      return;
    }
    const delay = Math.min(this.#rejoin.backoff_ms * 2 ** r.retries, this.#rejoin.max_backoff_ms);
    r.retries++;
    r.rejoin = setTimeout(() => {
      r.rejoin = null;
      if (this.#closed) return;
      void this.#open(r).then(
        () => {
          if (r.client !== null) this.#opts.onReplica?.(this.#status(r), null);
        },
        (e: unknown) => {
          r.lastError = e instanceof HarnessGymError ? `${e.code}: ${bare(e)}` : String(e);
          this.#scheduleRejoin(r);
        },
      );
    }, delay);
    // A rejoin never keeps the process alive on its own.
    r.rejoin.unref();
  }
}
