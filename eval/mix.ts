/**
 * The traffic mix as served (`harness-gym mix`, docs/CURRICULUM.md "The traffic mix"): for each locale and
 * task split, the intents (and the sub-kinds of generated tasks) of the tasks that resets without an
 * intent get over a range of seeds, beside the weights they are drawn with and the source report's
 * Table 1. Tasks are picked as a reset picks them (`resolveTask`: the config's task source, its harness,
 * the mix), so the table is what a server with that config serves.
 */
import type { Locale, Split } from '../protocol/domain.js';
import { INTENTS, isBuiltinIntent } from '../protocol/domain.js';
import { REPORT_TABLE_1, SUB_KINDS, defaultEnvConfig, generateForWithKind, harnessMix, mixShares, parseGeneratedTaskId, resolveTask } from '../env/index.js';
import type { EnvConfig, IntentMix } from '../env/index.js';

/** What to measure. */
export interface MixOptions {
  /** The environment (harness, task source); default: the embedded one. */
  config?: Partial<EnvConfig>;
  /** Tasks per locale and split: seeds `seed`..`seed + seeds - 1`. */
  seeds: number;
  seed: number;
  locales: readonly Locale[];
  splits: readonly Split[];
  /** The mix resets draw intents with (default: the production mix). */
  mix?: IntentMix;
}

/** A count and its share of the column (or, for a sub-kind, of its intent's tasks in the column). */
export interface MixCell {
  n: number;
  share: number;
}

/** One locale and split. */
export interface MixColumn {
  locale: Locale;
  split: Split;
  /** Tasks picked (seeds that gave one). */
  tasks: number;
  /** Seeds whose reset would fail, and the first reason. */
  failed: number;
  failure?: string;
  /** Per intent, in INTENTS order (every intent, 0 when none). */
  intents: Record<string, MixCell>;
  /**
   * Per intent, per sub-kind (the `SUB_KINDS` entry that built each generated task; `(task file)` for
   * tasks of task files), its share of the intent's tasks.
   */
  sub_kinds: Record<string, Record<string, MixCell>>;
  /** The largest |share - weight| over the intents. */
  max_abs_diff: number;
}

/** The measurement. */
export interface MixReport {
  seeds: number;
  seed: number;
  harness: { name: string; version: string; hash: string };
  /** Where the tasks came from: `generator` or the task files' source name. */
  source: string;
  /** The weights resets draw intents with (non-zero shares). */
  weights: Partial<Record<string, number>>;
  /** The source report's Table 1 (the intents it gives). */
  report: Partial<Record<string, number>>;
  /** Each sub-kind's weight within its intent (the generator tries sub-kinds in this weighted order; the first that fits the room builds the task). */
  sub_kind_weights: Record<string, Record<string, number>>;
  columns: MixColumn[];
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Measure the mix. */
export function measureMix(opts: MixOptions): MixReport {
  const base = defaultEnvConfig(opts.config);
  const config: EnvConfig = opts.mix === undefined ? base : { ...base, defaults: { ...base.defaults, task_mix: opts.mix } };
  const weights = mixShares(opts.mix ?? harnessMix(base.harness));
  // The built-in intents, then the harness's own (their sub-kinds are what their modules name).
  const allIntents: readonly string[] = [...INTENTS, ...base.harness.bindings.customIntents];
  const columns: MixColumn[] = [];
  for (const locale of opts.locales) {
    for (const split of opts.splits) {
      const intents = new Map<string, number>();
      const kinds = new Map<string, Map<string, number>>();
      let tasks = 0;
      let failed = 0;
      let failure: string | undefined;
      for (let i = 0; i < opts.seeds; i++) {
        const seed = (opts.seed + i) >>> 0;
        const picked = resolveTask(config, { episode_id: 'mix', seed, task: { split } }, locale);
        if (!picked.ok) {
          failed++;
          failure ??= `${picked.error.code}: ${picked.error.message}`;
          continue;
        }
        const task = picked.task;
        tasks++;
        intents.set(task.intent, (intents.get(task.intent) ?? 0) + 1);
        // A generated task's sub-kind: the entry of SUB_KINDS its id regenerates it with.
        const ref = parseGeneratedTaskId(task.id);
        const kind = ref ? (generateForWithKind(config.harness, ref.seed, ref.locale, ref.intent, ref.split)?.kind ?? '(unknown)') : '(task file)';
        let byKind = kinds.get(task.intent);
        if (!byKind) kinds.set(task.intent, (byKind = new Map()));
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      }
      const intentCells: Record<string, MixCell> = {};
      let maxDiff = 0;
      for (const intent of allIntents) {
        const n = intents.get(intent) ?? 0;
        const share = tasks === 0 ? 0 : n / tasks;
        intentCells[intent] = { n, share: round4(share) };
        maxDiff = Math.max(maxDiff, Math.abs(share - (weights[intent] ?? 0)));
      }
      const subKinds: Record<string, Record<string, MixCell>> = {};
      for (const intent of allIntents) {
        const byKind = kinds.get(intent);
        if (!byKind) continue;
        const total = intents.get(intent) ?? 0;
        // Every sub-kind of an intent the generator served (those never built show as 0), then the rest.
        const builtin = isBuiltinIntent(intent) ? SUB_KINDS[intent] : [];
        const generated = [...byKind.keys()].some((k) => builtin.some((s) => s.name === k));
        const known = generated ? builtin.map((k) => k.name) : [];
        const order = [...known, ...[...byKind.keys()].filter((k) => !known.includes(k)).sort()];
        subKinds[intent] = {};
        for (const k of order) {
          const n = byKind.get(k) ?? 0;
          subKinds[intent][k] = { n, share: round4(total === 0 ? 0 : n / total) };
        }
      }
      columns.push({ locale, split, tasks, failed, ...(failure !== undefined ? { failure } : {}), intents: intentCells, sub_kinds: subKinds, max_abs_diff: round4(maxDiff) });
    }
  }
  const subKindWeights: Record<string, Record<string, number>> = {};
  for (const intent of INTENTS) {
    const list = SUB_KINDS[intent];
    const total = list.reduce((a, k) => a + k.weight, 0);
    subKindWeights[intent] = Object.fromEntries(list.map((k) => [k.name, round4(k.weight / total)]));
  }
  return {
    seeds: opts.seeds,
    seed: opts.seed,
    harness: { ...config.harness.identity },
    source: config.taskSource.name,
    weights,
    report: { ...REPORT_TABLE_1 },
    sub_kind_weights: subKindWeights,
    columns,
  };
}

const pct = (x: number | undefined): string => (x === undefined ? '-' : `${(x * 100).toFixed(1)}%`);

/** The report as a person reads it: intents by column, then (with `subKinds`) the sub-kinds of each intent. */
export function formatMix(r: MixReport, opts: { subKinds?: boolean } = {}): string {
  const heads = r.columns.map((c) => `${c.locale} ${c.split}`);
  // The built-in intents, then the harness's own (the columns hold every one).
  const intents: readonly string[] = r.columns.length > 0 ? Object.keys(r.columns[0].intents) : INTENTS;
  const w = Math.max(13, ...intents.map((i) => i.length));
  const cw = Math.max(11, ...heads.map((h) => h.length));
  const weights = Object.entries(r.weights)
    .map(([i, x]) => `${i}=${x}`)
    .join(',');
  const out = [
    `traffic mix: ${r.seeds} tasks per locale and split (seeds ${r.seed}..${r.seed + r.seeds - 1}), harness "${r.harness.name}" ${r.harness.version}, tasks from ${r.source}`,
    `weights: ${weights}`,
    `${'intent'.padEnd(w)}  ${'report'.padStart(6)}  ${'weight'.padStart(6)}  ${heads.map((h) => h.padStart(cw)).join('  ')}`,
  ];
  for (const intent of intents) {
    const cells = r.columns.map((c) => pct(c.intents[intent]?.share).padStart(cw));
    out.push(`${intent.padEnd(w)}  ${pct(r.report[intent]).padStart(6)}  ${pct(r.weights[intent] ?? 0).padStart(6)}  ${cells.join('  ')}`);
  }
  out.push(`${'max |Δ weight|'.padEnd(w)}  ${''.padStart(6)}  ${''.padStart(6)}  ${r.columns.map((c) => pct(c.max_abs_diff).padStart(cw)).join('  ')}`);
  for (const c of r.columns) if (c.failed > 0) out.push(`${c.locale} ${c.split}: ${c.failed} of ${r.seeds} seeds give no task (${c.failure})`);
  if (opts.subKinds) {
    out.push('', 'sub-kinds (share of their intent\'s tasks; weight: the order the generator tries them in, the first that fits the room wins)');
    out.push(`${'intent / sub-kind'.padEnd(w + 22)}  ${'weight'.padStart(6)}  ${heads.map((h) => h.padStart(cw)).join('  ')}`);
    for (const intent of intents) {
      const names = new Set<string>();
      for (const c of r.columns) for (const k of Object.keys(c.sub_kinds[intent] ?? {})) names.add(k);
      if (names.size === 0) continue;
      out.push(intent);
      for (const k of names) {
        const cells = r.columns.map((c) => pct(c.sub_kinds[intent]?.[k]?.share ?? 0).padStart(cw));
        out.push(`  ${k.padEnd(w + 20)}  ${pct(r.sub_kind_weights[intent]?.[k]).padStart(6)}  ${cells.join('  ')}`);
      }
    }
  }
  return out.join('\n') + '\n';
}
