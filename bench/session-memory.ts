/**
 * Memory per episode, the worst a client may send within the limits against a normal episode (hostile
 * input; PROTOCOL.md "Limits"): `node dist/bench/session-memory.js [--episodes N] [--rounds R]`
 * (after `npm run build`). Not a timed test: it measures heap bytes, after full collections, that a
 * session's episodes keep.
 *
 * What is measured: the episodes of one session as a server's shard holds them (env/ `SessionEnv`, the
 * object server/hosts.ts keeps per session, no recording), fed the wire items a client sends. Each
 * scenario resets N episodes and steps each (its turn cap - 1) times, so every episode is still live (its
 * last step would end it, and an ended episode keeps only its map entry, env/session.ts `ENDED`): that is
 * the most an episode holds. The heap used after a full GC, before the resets and after the steps, over
 * N, is the figure; each round runs every scenario once, alternated, and the report gives each
 * scenario's median over the rounds and the ratio of the medians to the baseline's, measured in the same
 * run.
 *
 * - `normal` (the baseline): a short episode id and, each turn, one tool call (`load_skill`) with no text.
 * - `max_chars`: an id of `max_id_chars` characters and, each turn, an action of exactly
 *   `max_action_chars` characters (content and reasoning in CJK characters, two bytes each in V8's heap,
 *   the costlier kind) with one tool call.
 * - `worst`: the same id and action size, the characters spread over `max_action_calls` tool calls and the
 *   text: 64 services run per turn, and their results are kept too.
 *
 * Not counted: per session, not per episode, a server's replay window keeps up to `limits.replay_window`
 * requests' frames with their replies (server/replay-window.ts), at most `replay_window` x
 * `max_frame_bytes`, whatever the number of episodes.
 * Prints a table on stdout, or one JSON line with `--json`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SessionEnv, createEpisode, defaultEnvConfig, emptyStats } from '../env/index.js';
import type { EpisodeWrapping } from '../env/index.js';
import { WIRE_STRING_LIMITS } from '../protocol/wire.js';

interface Args {
  episodes: number;
  rounds: number;
  json: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { episodes: 64, rounds: 5, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): number => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer, got ${argv[i]}`);
      return n;
    };
    if (a === '--episodes') args.episodes = value();
    else if (a === '--rounds') args.rounds = value();
    else if (a === '--json') args.json = true;
    else throw new Error(`unknown argument ${a}; usage: session-memory [--episodes N] [--rounds R] [--json]`);
  }
  return args;
}

/** A full collection, twice (weak references and finalizers released by the first go in the second). */
const gc = ((): (() => void) => {
  setFlagsFromString('--expose-gc');
  const fn = runInNewContext('gc') as () => void;
  return () => {
    fn();
    fn();
  };
})();

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

const MAX_CHARS = WIRE_STRING_LIMITS.max_action_chars;
const MAX_CALLS = WIRE_STRING_LIMITS.max_action_calls;
const MAX_ID = WIRE_STRING_LIMITS.max_id_chars;

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function loadSkill(id: string): ToolCall {
  return { id, type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } };
}

/** An action of exactly `MAX_CHARS` characters with `calls` tool calls; the rest is CJK content and reasoning. */
function fullAction(turn: number, calls: number): unknown {
  const toolCalls = Array.from({ length: calls }, (_, i) => loadSkill(`call_${turn}_${i}`));
  let used = 0;
  for (const c of toolCalls) used += c.id.length + c.function.name.length + c.function.arguments.length;
  const rest = MAX_CHARS - used;
  const content = '货'.repeat(Math.floor(rest / 2));
  const reasoning = '想'.repeat(rest - content.length);
  return { message: { role: 'assistant', content, reasoning_content: reasoning, tool_calls: toolCalls } };
}

interface Scenario {
  name: string;
  id(i: number): string;
  action(turn: number): unknown;
  /** Characters of each action (checked against the bound). */
  chars: number;
  calls: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'normal',
    id: (i) => `ep-${i}`,
    action: (turn) => ({ message: { role: 'assistant', content: null, tool_calls: [loadSkill(`call_${turn}_0`)] } }),
    chars: `call_1_0`.length + 'load_skill'.length + '{"name":"product-qa"}'.length,
    calls: 1,
  },
  {
    name: 'max_chars',
    id: (i) => `${String(i).padStart(6, '0')}`.padEnd(MAX_ID, 'x'),
    action: (turn) => fullAction(turn, 1),
    chars: MAX_CHARS,
    calls: 1,
  },
  {
    name: 'worst',
    id: (i) => `${String(i).padStart(6, '0')}`.padEnd(MAX_ID, 'x'),
    action: (turn) => fullAction(turn, MAX_CALLS),
    chars: MAX_CHARS,
    calls: MAX_CALLS,
  },
];

/**
 * An episode's turn cap: the least of `limits.max_turns` and the harness's own turn limit (8 in the
 * embedded harness's hooks.yaml), as every episode of these scenarios gets it (identity variant).
 */
function turnCap(env: ReturnType<typeof defaultEnvConfig>): number {
  const created = createEpisode(env, { episode_id: 'cap', seed: 1000 });
  if (!created.ok) throw new Error(created.error.message);
  return created.episode.params.max_turns;
}

const noWrapping: EpisodeWrapping = { wrap: (episode) => episode, close: () => null };

/** One scenario once: the heap the session's N live episodes keep (bytes per episode), and what was played. */
async function measure(s: Scenario, episodes: number): Promise<{ bytesPerEpisode: number; steps: number; toolErrors: number }> {
  const env = defaultEnvConfig();
  const turns = turnCap(env) - 1;
  // Each frame is encoded as a client sends it and decoded as the server does: every episode gets strings of
  // its own, never one string shared by all (which would count one action for the whole session).
  const actions = Array.from({ length: turns }, (_, t) => JSON.stringify(s.action(t + 1)));
  const ids = Array.from({ length: episodes }, (_, i) => s.id(i));
  const before = heapUsed();
  const session = new SessionEnv({
    env: () => env,
    streamSeed: 1,
    maxEpisodes: episodes,
    allowHints: false,
    wrapping: noWrapping,
    stats: emptyStats,
    log: { error: (obj, msg) => process.stderr.write(`${msg} ${JSON.stringify(obj)}\n`) },
    yieldEvery: 1_000_000,
  });
  const reset = await session.reset(JSON.parse(JSON.stringify(ids.map((episode_id, i) => ({ episode_id, seed: 1000 + i })))) as unknown[]);
  if (!reset.every((r) => r.ok)) throw new Error(`${s.name}: a reset failed: ${JSON.stringify(reset.find((r) => !r.ok))}`);
  let steps = 0;
  let toolErrors = 0;
  for (let t = 0; t < turns; t++) {
    const frame = `[${ids.map((episode_id) => `{"episode_id":${JSON.stringify(episode_id)},"action":${actions[t]}}`).join(',')}]`;
    const out = await session.step(JSON.parse(frame) as unknown[]);
    for (const r of out) {
      if (!r.ok) throw new Error(`${s.name}: turn ${t + 1}: ${JSON.stringify(r.error)}`);
      if (r.terminated || r.truncated) throw new Error(`${s.name}: an episode ended at turn ${t + 1} (${String(r.info.outcome)})`);
      toolErrors += (r.info.tool_errors as unknown[] | undefined)?.length ?? 0;
      steps++;
    }
  }
  const after = heapUsed();
  if (session.episodeCount !== episodes) throw new Error(`${s.name}: ${session.episodeCount} episodes live, not ${episodes}`);
  const bytesPerEpisode = (after - before) / episodes;
  // Kept reachable up to the reading above.
  session.free();
  return { bytesPerEpisode, steps, toolErrors };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const KIB = 1024;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const env = defaultEnvConfig();
  const per: Record<string, number[]> = Object.fromEntries(SCENARIOS.map((s) => [s.name, []]));
  const played: Record<string, { steps: number; toolErrors: number }> = {};
  // Warm-up, every scenario once at full size: the module caches (compiled schemas, harness texts, V8's
  // code) are filled before any reading counts.
  for (const s of SCENARIOS) await measure(s, args.episodes);
  for (let r = 0; r < args.rounds; r++) {
    for (const s of SCENARIOS) {
      const m = await measure(s, args.episodes);
      per[s.name]?.push(m.bytesPerEpisode);
      played[s.name] = { steps: m.steps, toolErrors: m.toolErrors };
      process.stderr.write(`round ${r + 1}/${args.rounds} ${s.name}: ${(m.bytesPerEpisode / KIB).toFixed(1)} KiB per episode\n`);
    }
  }
  const base = median(per['normal'] ?? []);
  const scenarios = SCENARIOS.map((s) => {
    const med = median(per[s.name] ?? []);
    return {
      name: s.name,
      id_chars: s.id(0).length,
      action_chars: s.chars,
      calls_per_action: s.calls,
      steps_per_episode: turnCap(env) - 1,
      tool_errors: played[s.name]?.toolErrors ?? 0,
      kib_per_episode_median: +(med / KIB).toFixed(1),
      kib_per_episode_rounds: (per[s.name] ?? []).map((b) => +(b / KIB).toFixed(1)),
      ratio_to_normal: +(med / base).toFixed(1),
    };
  });
  const summary = {
    episodes: args.episodes,
    rounds: args.rounds,
    limits_max_turns: env.limits.max_turns,
    episode_turn_cap: turnCap(env),
    limits: { max_id_chars: MAX_ID, max_action_chars: MAX_CHARS, max_action_calls: MAX_CALLS },
    node: process.version,
    scenarios,
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const lines = [
    `heap kept per live episode after ${turnCap(env) - 1} steps (turn cap ${turnCap(env)}) (${args.episodes} episodes in one session, median of ${args.rounds} rounds, ${process.version})`,
    '',
    '| scenario | id chars | action chars | calls per action | tool errors (last round) | KiB per episode (median) | rounds | x normal |',
    '|---|---|---|---|---|---|---|---|',
    ...scenarios.map(
      (s) =>
        `| ${s.name} | ${s.id_chars} | ${s.action_chars} | ${s.calls_per_action} | ${s.tool_errors} | ${s.kib_per_episode_median} | ${s.kib_per_episode_rounds.join(', ')} | ${s.ratio_to_normal} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.stdout.write('', () => process.exit(0)),
  (e: unknown) => {
    process.stderr.write(`session-memory failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
