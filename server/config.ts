/**
 * Server configuration: one zod schema with the defaults embedded, parsed once at start-up and frozen
 * (CONTRIBUTING.md "Validate once, at the edge"). Sources, lowest first: the defaults, an
 * optional JSON or YAML file (by extension), then command-line overrides. Unknown keys are errors that
 * name the key path, so a typo such as `limits.max_bach` is reported rather than silently ignored.
 * This module never reads `process.env`; the serve command does.
 */
import {
  DEFAULT_DEFAULTS,
  JsonlTaskSource,
  parseVariantChoice,
  TASK_SPLITS,
  listErrors,
  loadHarnessTasks,
  parseMix,
} from '../env/index.js';
import type { EnvDefaults, VariantChoice } from '../env/index.js';
import { embeddedHarness, loadHarnessDir } from '../harness/index.js';
import type { HarnessSet } from '../harness/index.js';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FILE_LIMITS, FileProblem, depthProblem, parseMessage, readText } from '../protocol/files.js';
import { z } from 'zod';
import { MAX_VARIANT_POOL, PRESETS, VARIANT_POOL } from '../harness-variants/index.js';
import { HOST_ENTRY, canonicalOrigin } from './http-policy.js';
import { deepFreeze, isRecord } from '../protocol/objects.js';

/** Per-session and per-episode limits (PROTOCOL.md `welcome.limits`); all integers. */
export const ServerLimitsSchema = z.strictObject({
  /** Items per reset/step/close frame. */
  max_batch: z.int().min(1).max(100_000).default(256),
  /** Unclosed episodes per session (ended ones count too). */
  max_episodes: z.int().min(1).max(10_000_000).default(4096),
  /** Bytes of a frame's payload as received (4 MiB). */
  max_frame_bytes: z
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** Assistant turns per episode, the hard cap. */
  max_turns: z.int().min(1).max(1000).default(12),
  /** Tool errors after which an episode is truncated (`error_cap`). */
  max_errors: z.int().min(1).max(1000).default(6),
  /** Seconds without requests before a session is freed; 0 disables idle reaping. */
  idle_timeout_s: z
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(600),
  /** Seconds a dropped session is kept for `hello {resume}`. */
  resume_grace_s: z
    .int()
    .min(0)
    .max(24 * 3600)
    .default(60),
  /** Seconds between WebSocket pings; two missed pings drop the peer. */
  ping_interval_s: z.int().min(1).max(3600).default(20),
  /** Replies kept per session for re-sent requests after a resume. */
  replay_window: z.int().min(0).max(100_000).default(64),
});

/** Episode recording (docs/RECORDS.md): off unless `dir` is set. */
export const RecordConfigSchema = z.strictObject({
  /** Directory of the record files; null records nothing. */
  dir: z.string().min(1).nullable().default(null),
  /** Fraction of finished episodes recorded, decided from each episode's seed. */
  sample: z.number().min(0).max(1).default(1),
  /** Bytes after which a session's record file is rotated (64 MiB). */
  max_file_bytes: z
    .int()
    .min(1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
});

/**
 * The variant of reset items that name none (`defaults.variant`): a preset name or a VariantSpec object,
 * parsed with the same `parseVariantChoice` reset items are resolved with, so that a typo fails at start-up,
 * naming the key, instead of failing every reset. The config keeps the parsed `VariantChoice` (plain
 * data, so it crosses to worker threads as it is): resets parse it no more. `welcome.defaults.variant`
 * is a string on the wire (protocol v1): a preset goes there as its name, a spec as its compact JSON.
 */
export const DefaultVariantSchema = z.union([z.string(), z.record(z.string(), z.unknown())]).transform((v, ctx): VariantChoice => {
  const parsed = parseVariantChoice(v);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  return parsed.choice;
});

/**
 * The task split of reset items whose task selector names none (`defaults.task_split`): `train` (the
 * default), the held-out `eval`, or `all` (each episode's split drawn from its seed). Independent of the
 * variant's split: `defaults.variant` holds the harness out, this holds the tasks out.
 */
export const DefaultTaskSplitSchema = z.enum(TASK_SPLITS as ['train', 'eval', 'all']);

/**
 * The intent mix of reset items that name no intent (`defaults.task_mix`): a map of intent to weight,
 * checked with env/tasks/mix.ts `parseMix` (known intents, finite weights >= 0, not all 0) and normalised
 * when the environment is built. Absent: the production mix.
 */
export const DefaultTaskMixSchema = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const parsed = parseMix(v);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
});

/** The whole server configuration. */
export const ServerConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.int().min(0).max(65535).default(8080),
  /** Seeds the session streams of sessions whose `hello` has no seed. */
  seed: z.int().min(0).max(0xffffffff).default(0),
  /** Shared secret every `hello` must carry; null accepts any client. */
  token: z.string().min(1).nullable().default(null),
  /**
   * The Host header values the server answers (server/http-policy.ts; docs/DEPLOY.md "Threat model"): each a
   * host name or address, with a port to match only that port. Others get 421 on every route but /healthz
   * and /readyz (probes address a pod by its IP). Empty (the default): any host, as behind a load balancer.
   */
  allowed_hosts: z
    .array(z.string().max(261).regex(HOST_ENTRY, { message: 'not a host name (a name or address, optionally ":port"; no scheme or path)' }))
    .default([]),
  /**
   * Browser origins whose WebSocket upgrades are accepted when no token is set: `scheme://host[:port]`. An
   * upgrade carrying another `Origin` gets 403 before the upgrade; one carrying none (every non-browser
   * client) is not affected; with a token set, any origin may upgrade and `hello` must carry the token.
   */
  allowed_origins: z
    .array(
      z.string().superRefine((v, ctx) => {
        const o = canonicalOrigin(v);
        if (o === null) ctx.addIssue({ code: 'custom', message: `not an http(s) origin (scheme://host[:port]): "${v}"` });
        else if (o !== v)
          ctx.addIssue({ code: 'custom', message: `write the origin as "${o}" (scheme://host[:port], lower case, no path)` });
      }),
    )
    .default([]),
  /** Honour `options.oracle_hints` (testing only, never training). */
  allow_oracle_hints: z.boolean().default(false),
  /**
   * The harness directory episodes are played in (docs/HARNESS.md), relative to the working directory;
   * null serves the embedded one. Loaded and validated at start-up: every error stops the server.
   */
  harness: z.string().min(1).nullable().default(null),
  /**
   * Task files (JSONL, one task per line; docs/HARNESS.md "Task files"), relative to the working directory.
   * Empty: tasks come from the generator. Given: resets pick among the files' tasks (by id, or the seed-th
   * of those matching the locale, intent and split), each checked against the harness at start-up.
   */
  tasks: z.array(z.string().min(1)).default([]),
  limits: ServerLimitsSchema.prefault({}),
  record: RecordConfigSchema.prefault({}),
  /** Concurrent sessions (attached or waiting for a resume). */
  max_sessions: z.int().min(1).max(1_000_000).default(256),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Worker threads that own the episodes (server/shards.ts): 0 applies every request on the main thread;
   * N > 0 shards sessions over N workers and keeps the main thread for the transport; "auto" is one per
   * core (at least 1, at most 8).
   */
  workers: z.union([z.literal('auto'), z.int().min(0).max(64)]).default(0),
  /**
   * The old-generation heap limit of each episode worker (MiB); "v8" (the default; or null): V8's own,
   * sized from the machine's memory (several GiB), which a container's memory limit does not lower;
   * "auto": 2000 MiB where V8's own would be larger, else V8's (server/worker-heap.ts: below 2 GiB V8
   * lets a busy heap grow to about twice its live objects before a full collection, from 2 GiB on to four
   * times; less memory for more frequent collections). V8 collects harder as a heap nears its limit,
   * and new episodes are refused (`CAPACITY_REACHED`, `details.reason: "memory"`) once a worker's live
   * heap is above 70% of it (server/heap-budget.ts). A number needs workers; with workers 0, "auto" and
   * "v8" change nothing.
   */
  worker_heap_mb: z
    .union([z.literal('auto'), z.literal('v8'), z.int().min(64).max(1_048_576)])
    .nullable()
    .default('v8'),
  /**
   * V8's allocation-site pretenuring, a process-wide V8 flag (server/v8-flags.ts): "off" sets
   * `--no-allocation-site-pretenuring` before the episode threads start, "on" sets it back, "inherit"
   * leaves the process's setting alone. `harness-gym serve` owns its process and defaults to "off"; a
   * program embedding `startServer` keeps its own setting unless it asks. Off, a worker's old generation
   * grows by what its episodes keep and no more: with it on, V8 moves the allocation sites of episode state
   * to the old generation, and the short-lived objects made at the same sites go there too, so it grows by
   * about twice what the episodes keep (figures: bench/RESULTS.md "Design measurements cited by the code").
   */
  v8_pretenuring: z.enum(['inherit', 'on', 'off']).default('inherit'),
  /**
   * Which of the requests an episode worker holds it starts first (server/start-queue.ts): "steps_first"
   * starts steps before resets, closes and the rest, so that under load the episodes being played are
   * answered first and new episodes wait; "arrival" starts them in the order they came. Either order is
   * one the protocol allows: requests a worker holds at once never touch the same episode. Needs workers
   * (with workers 0 requests are applied as they arrive).
   */
  scheduling: z.enum(['steps_first', 'arrival']).default('steps_first'),
  /**
   * Compiled variants kept per variant spec (docs/HARNESS.md "How its variants are drawn"): a reset draws
   * one by its variant seed and fits it to its task. 0 compiles a variant per reset (the most diverse, about
   * five times dearer). Part of what a seed means: records carry it, and replay uses the record's.
   */
  variant_pool: z.int().min(0).max(MAX_VARIANT_POOL).default(VARIANT_POOL),
  /** Backpressure (server/connection.ts): what one connection may make the server hold for it. */
  backpressure: z
    .strictObject({
      /** Unsent reply bytes of one connection above which the server stops reading its requests. */
      send_high_water_bytes: z
        .int()
        .min(64 * 1024)
        .max(4 * 1024 * 1024 * 1024)
        .default(16 * 1024 * 1024),
      /** Seconds a connection may stay above the high-water mark before it is cut (it then may resume). */
      stall_timeout_s: z.number().min(0.1).max(3600).default(30),
      /** Requests received and not yet answered per connection above which reading pauses. */
      max_queued_requests: z.int().min(1).max(100_000).default(64),
    })
    .prefault({}),
  /**
   * Reward files (docs/REWARDS.md): profile files (JSON/YAML) and directories of custom module files
   * (`*.js`/`*.mjs`), read at start-up and again on SIGHUP. Paths are relative to the working directory.
   */
  rewards: z
    .strictObject({
      profiles: z.array(z.string().min(1)).default([]),
      module_dirs: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  /**
   * Defaults of reset items that leave a field out; absent keys keep the environment's (variant
   * `identity`, task split `train`, the production mix).
   */
  defaults: z
    .strictObject({
      variant: DefaultVariantSchema.optional(),
      task_split: DefaultTaskSplitSchema.optional(),
      task_mix: DefaultTaskMixSchema.optional(),
    })
    .optional(),
});

/** A parsed, frozen server configuration. */
export type ServerConfig = Readonly<Omit<z.infer<typeof ServerConfigSchema>, 'limits' | 'record' | 'backpressure'>> & {
  readonly backpressure: Readonly<z.infer<typeof ServerConfigSchema>['backpressure']>;
  readonly limits: Readonly<z.infer<typeof ServerLimitsSchema>>;
  readonly record: Readonly<z.infer<typeof RecordConfigSchema>>;
};

/** Server limits. */
export type ServerLimits = ServerConfig['limits'];

/** Config input: what a file or the flags may set (every key optional, limits partial). */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

/** The result of loading a configuration: the frozen config, or one message per bad key. */
export type ConfigResult = { ok: true; config: ServerConfig } | { ok: false; errors: string[] };

/** Keys whose value is one map, replaced whole by a later source rather than merged key by key. */
const WHOLE_VALUES = new Set(['defaults.variant', 'defaults.task_mix']);

/** Merge `over` into `base` (objects merge key by key, but for `WHOLE_VALUES`; anything else replaces). */
function merge(base: Record<string, unknown>, over: Record<string, unknown>, path = ''): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const at = path === '' ? k : `${path}.${k}`;
    const value = isRecord(v) && isRecord(out[k]) && !WHOLE_VALUES.has(at) ? merge(out[k] as Record<string, unknown>, v, at) : v;
    // Defined, never assigned: `out["__proto__"] = v` would set the prototype instead of a key (and the
    // parse below then reports the key instead of quietly reading through it).
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The paths of every prototype key (`__proto__`, `constructor`, `prototype`) in a parsed value: never a
 * configuration key, and dangerous to merge (`{"__proto__": {"max_sessions": 2}}` would otherwise set
 * defaults through the prototype). Reported as unknown keys, like any other.
 */
export function prototypeKeyPaths(value: unknown, path: readonly string[] = []): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => prototypeKeyPaths(v, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const k of Object.keys(value)) {
    if (PROTOTYPE_KEYS.has(k)) out.push([...path, k].join('.'));
    else out.push(...prototypeKeyPaths((value as Record<string, unknown>)[k], [...path, k]));
  }
  return out;
}

function prototypeKeyErrors(value: unknown): string[] {
  return prototypeKeyPaths(value).map((p) => `${p}: unknown key (a prototype key is never a configuration key)`);
}

/** One message per issue, naming the key path: `limits.max_batch: ...`, `limits.max_bach: unknown key`. */
function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const out: string[] = [];
  for (const i of issues) {
    const base = i.path.map(String);
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) out.push(`${[...base, k].join('.')}: unknown key`);
    } else {
      out.push(`${base.length > 0 ? base.join('.') : '(root)'}: ${i.message}`);
    }
  }
  return out;
}

/** Deep-freeze a plain config object. */
function freeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) freeze(v);
  return Object.freeze(o);
}

/** Parse a configuration object (defaults filled in) and freeze it. */
export function parseServerConfig(input: unknown = {}): ConfigResult {
  const proto = prototypeKeyErrors(input);
  if (proto.length > 0) return { ok: false, errors: proto };
  const r = ServerConfigSchema.safeParse(input);
  if (!r.success) return { ok: false, errors: formatIssues(r.error.issues) };
  if (typeof r.data.worker_heap_mb === 'number' && r.data.workers === 0) {
    return {
      ok: false,
      errors: [
        'worker_heap_mb: needs workers (1..64 or "auto"); with workers 0 the episodes are on the main thread, whose heap limit is node --max-old-space-size',
      ],
    };
  }
  return { ok: true, config: freeze(r.data) };
}

/** Read a JSON (`.json`) or YAML (`.yaml`/`.yml`) config file into a plain object, or the reason it failed. */
export function readConfigFile(path: string): { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] } {
  const ext = extname(path).toLowerCase();
  if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml')
    return { ok: false, errors: [`${path}: unknown config format "${ext}" (use .json, .yaml or .yml)`] };
  let text: string;
  try {
    text = readText(path, { maxBytes: FILE_LIMITS.settings_bytes, what: 'a config file' });
  } catch (e) {
    return { ok: false, errors: [e instanceof FileProblem ? e.message : `${path}: cannot read (${(e as Error).message})`] };
  }
  let value: unknown;
  try {
    value = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [`${path}: ${parseMessage(e)}`] };
  }
  const deep = depthProblem(value);
  if (deep !== null) return { ok: false, errors: [`${path}: ${deep}`] };
  if (value === null || value === undefined) value = {};
  if (!isRecord(value)) return { ok: false, errors: [`${path}: the config must be a map of keys`] };
  const proto = prototypeKeyErrors(value);
  if (proto.length > 0) return { ok: false, errors: proto.map((e) => `${path}: ${e}`) };
  return { ok: true, value };
}

/**
 * Load the configuration: defaults, then `base` (a caller's own defaults, e.g. serve's `workers: "auto"`),
 * then the optional file, then `overrides` (the command-line flags, in the file's shape; `undefined` values
 * are ignored). Errors name the file and each bad key.
 */
export function loadServerConfig(
  opts: { file?: string; overrides?: Record<string, unknown>; base?: Record<string, unknown> } = {},
): ConfigResult {
  let input: Record<string, unknown> = opts.base ?? {};
  const given = [...prototypeKeyErrors(opts.base ?? {}), ...prototypeKeyErrors(opts.overrides ?? {})];
  if (given.length > 0) return { ok: false, errors: given };
  if (opts.file !== undefined) {
    const file = readConfigFile(opts.file);
    if (!file.ok) return file;
    input = merge(input, file.value);
  }
  if (opts.overrides) input = merge(input, opts.overrides);
  return parseServerConfig(input);
}

/** The configuration with every default (what `harness-gym serve` runs with no flags). */
export function defaultServerConfig(overrides: Record<string, unknown> = {}): ServerConfig {
  const r = parseServerConfig(overrides);
  if (!r.ok) throw new TypeError(`invalid server config: ${r.errors.join('; ')}`);
  return r.config;
}

/**
 * The harness a config serves: the embedded one, or the `harness` directory loaded and validated (every
 * error at once). Throws a TypeError listing them when the directory is not a valid harness; `serve`
 * checks it first and fails with one line, so this is a guard for programmatic servers.
 */
export function harnessOf(config: Pick<ServerConfig, 'harness'>): HarnessSet {
  if (config.harness === null) return embeddedHarness();
  const loaded = loadHarnessDir(config.harness);
  if (!loaded.ok) throw new TypeError(`harness ${config.harness} is invalid: ${loaded.errors.join('; ')}`);
  const tasks = loadHarnessTasks(loaded.harness);
  if (!tasks.ok) throw new TypeError(`harness ${config.harness} is invalid: ${listErrors(tasks.errors, tasks.more)}`);
  return loaded.harness;
}

/**
 * The environment settings a config sets: its defaults (`defaults.variant`, `defaults.task_split` and
 * `defaults.task_mix` over the embedded ones; none when it sets none) and its variant pool.
 */
export function defaultsOf(config: Pick<ServerConfig, 'defaults' | 'variant_pool'>): {
  defaults?: EnvDefaults;
  variantPool: number;
  defaultVariant?: VariantChoice;
} {
  const d = config.defaults;
  const variantPool = config.variant_pool;
  if (d === undefined || (d.variant === undefined && d.task_split === undefined && d.task_mix === undefined)) return { variantPool };
  const defaults: EnvDefaults = { ...DEFAULT_DEFAULTS };
  let defaultVariant: VariantChoice | undefined;
  if (d.variant !== undefined) {
    defaults.variant = d.variant.given;
    defaultVariant = onThisThread(d.variant);
  }
  if (d.task_split !== undefined) defaults.task_split = d.task_split;
  if (d.task_mix !== undefined) {
    const mix = parseMix(d.task_mix);
    // The schema checked it: a failure here is a config built around parseServerConfig.
    if (!mix.ok) throw new TypeError(`defaults.task_mix: ${mix.message}`);
    defaults.task_mix = mix.mix;
  }
  return defaultVariant === undefined ? { defaults, variantPool } : { defaults, variantPool, defaultVariant };
}

/**
 * A config's parsed default variant as this thread keeps it. A worker receives the config as a structured
 * clone: plain data, no longer frozen, and a preset's spec a copy of it. Nothing is parsed again: a
 * preset's spec is looked up by the name it was parsed to, a spec object frozen as the main thread's is.
 */
function onThisThread(choice: VariantChoice): VariantChoice {
  if (choice.preset !== undefined) return { given: choice.given, spec: PRESETS[choice.preset] ?? null, preset: choice.preset };
  return Object.isFrozen(choice) ? choice : deepFreeze({ given: choice.given, spec: choice.spec });
}

/** The task source a config sets (`tasks` files), checked against its harness; nothing when it sets none. */
export function taskSourceOf(config: Pick<ServerConfig, 'tasks'>, harness: HarnessSet): { taskSource?: JsonlTaskSource } {
  if (config.tasks.length === 0) return {};
  const loaded = JsonlTaskSource.fromFiles(config.tasks, harness.get(harness.locales[0]));
  if (!loaded.ok) throw new TypeError(`task files are invalid: ${listErrors(loaded.errors, loaded.more)}`);
  return { taskSource: loaded.source };
}
