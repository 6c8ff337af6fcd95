/**
 * `harness-gym check` and `harness-gym variants list|show|report`: the proofs and views of Harness-State
 * Augmentation.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import stringWidth from 'string-width';
import { LOCALES, INTENTS } from '../../protocol/domain.js';
import type { Intent, Locale } from '../../protocol/domain.js';
import { loadBaseHarness } from '../../harness/index.js';
import { FAMILIES, OPERATORS, PRESETS, PRESET_NAMES, buildVariant } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { worldFor } from '../../mock-services/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { renderSystemPrompt } from '../../env/index.js';
import { memorizerPolicy, oraclePolicy } from '../../policies/index.js';
import { evaluate, runCheck } from '../../eval/index.js';
import { intArg } from '../args.js';

/** Cut a line into pieces of at most `width` display columns (CJK characters count two). */
function wrapColumns(line: string, width: number): string[] {
  const out: string[] = [];
  let cur = '';
  let w = 0;
  for (const ch of line) {
    const cw = stringWidth(ch);
    if (w + cw > width) {
      out.push(cur);
      cur = '';
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  out.push(cur);
  return out;
}

function padColumns(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - stringWidth(s)));
}

/** Two texts side by side, each wrapped to `width` columns, separated by a bar. */
export function sideBySide(left: string, right: string, width: number, titles: [string, string]): string {
  const l = left.split('\n').flatMap((x) => wrapColumns(x, width));
  const r = right.split('\n').flatMap((x) => wrapColumns(x, width));
  const rows = [`${padColumns(titles[0], width)} │ ${titles[1]}`, `${'─'.repeat(width)}─┼─${'─'.repeat(width)}`];
  for (let i = 0; i < Math.max(l.length, r.length); i++) rows.push(`${padColumns(l[i] ?? '', width)} │ ${r[i] ?? ''}`);
  return rows.join('\n');
}

interface ReportRow {
  spec: VariantSpec | null;
  memorizer: number;
  drop: number;
  oracle: number;
}

/** Register `check` and `variants` on the program. */
export function registerVariantCommands(program: Command): void {
  program
    .command('check')
    .description('prove the augmentation: determinism, task preservation, round trips and information preservation over many seeds')
    .option('--seeds <n>', 'number of seeds (each checked under every family alone and the presets)', intArg('--seeds', 1, 100_000), 100)
    .option('--from <n>', 'first seed', intArg('--from', 0, 0xffffffff), 0)
    .option('--json', 'print one JSON line')
    .action((opts: { seeds: number; from: number; json?: boolean }) => {
      const report = runCheck({ seeds: opts.seeds, from: opts.from });
      const { examples, ...summary } = report;
      const failed =
        summary.determinism.failures + summary.round_trip.failures + summary.information.failures > 0 ||
        summary.task_preservation.max_delta > 0;
      if (opts.json) {
        process.stdout.write(JSON.stringify(failed ? { ...summary, examples } : summary) + '\n');
      } else {
        const lines = [
          `determinism        ${summary.determinism.checked} checked, ${summary.determinism.failures} failures`,
          `task preservation  ${summary.task_preservation.checked} checked, max delta ${summary.task_preservation.max_delta}`,
          `round trip         ${summary.round_trip.checked} checked, ${summary.round_trip.failures} failures`,
          `information        ${summary.information.checked} checked, ${summary.information.failures} failures`,
          ...examples.map((e) => `  ! ${e}`),
        ];
        process.stdout.write(lines.join('\n') + '\n');
      }
      if (failed) process.exitCode = 1;
    });

  const variants = program.command('variants').description('list, show and measure the harness variants');

  variants
    .command('list')
    .description('every HSA operator with its family')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const ops = OPERATORS.map((o) => ({ name: o.name, family: o.family, description: o.description }));
      if (opts.json) {
        process.stdout.write(JSON.stringify({ presets: PRESETS, families: FAMILIES, operators: ops }) + '\n');
        return;
      }
      const w = Math.max(...ops.map((o) => o.name.length));
      const lines = [`${ops.length} operators in ${FAMILIES.length} families; presets: ${PRESET_NAMES.join(', ')}`];
      for (const f of FAMILIES) {
        lines.push(`${f}:`);
        for (const o of ops.filter((x) => x.family === f)) lines.push(`  ${o.name.padEnd(w)}  ${o.description}`);
      }
      process.stdout.write(lines.join('\n') + '\n');
    });

  variants
    .command('show')
    .description('the base and the augmented system prompt and tool list, side by side')
    .option('--seed <n>', 'episode seed', intArg('--seed', 0, 0xffffffff), 7)
    .addOption(new Option('--preset <name>', 'variant preset').choices(PRESET_NAMES.filter((p) => p !== 'identity')).default('train'))
    .addOption(new Option('--locale <locale>', 'language').choices([...LOCALES]).default('zh-CN'))
    .addOption(new Option('--intent <intent>', 'force an intent').choices([...INTENTS]))
    .option('--width <n>', 'column width', intArg('--width', 30, 200), 70)
    .option('--json', 'print both harnesses as JSON instead')
    .action((opts: { seed: number; preset: string; locale: Locale; intent?: string; width: number; json?: boolean }) => {
      const spec = PRESETS[opts.preset];
      if (!spec) return;
      const base = loadBaseHarness(opts.locale);
      const task = generateTask(opts.seed, opts.locale, opts.intent ? { intent: opts.intent as Intent } : {});
      const v = buildVariant(base, spec, opts.seed, task);
      const world = worldFor(task.world_seed, task.locale);
      const before = renderSystemPrompt(base, world, task);
      const after = renderSystemPrompt(v.harness, world, v.task);
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({
            variant_id: v.variant_id,
            applied: v.applied,
            tables: v.tables,
            base: { system: before, tools: base.tools },
            variant: { system: after, tools: v.harness.tools, messages: v.task.messages },
          }) + '\n',
        );
        return;
      }
      const toolLines = (tools: typeof base.tools) =>
        tools
          .map(
            (t) =>
              `${t.function.name}(${Object.keys((t.function.parameters.properties ?? {}) as object).join(', ')})${t.function.description ? '' : '  [no description]'}`,
          )
          .join('\n');
      const out = [
        `variant ${v.variant_id} (preset ${opts.preset}, seed ${opts.seed}); operators applied: ${v.applied.join(', ') || 'none'}`,
        '',
        sideBySide(before, after, opts.width, ['base system prompt', 'augmented system prompt']),
        '',
        sideBySide(toolLines(base.tools), toolLines(v.harness.tools), opts.width, ['base tools', 'augmented tools']),
        '',
        sideBySide(task.messages.join('\n'), v.task.messages.join('\n'), opts.width, ["viewer's message", 'as the variant presents it']),
      ];
      process.stdout.write(out.join('\n') + '\n');
    });

  variants
    .command('report')
    .description("for each family alone: the memorizer's drop from its identity score (which shortcut each family breaks)")
    .option('--episodes <n>', 'episodes per row', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'first seed', intArg('--seed', 0, 0xffffffff), 1)
    .addOption(new Option('--locale <locale>', 'language').choices([...LOCALES]).default('zh-CN'))
    .option('--json', 'print one JSON line')
    .action((opts: { episodes: number; seed: number; locale: Locale; json?: boolean }) => {
      const run = (policy: typeof oraclePolicy, variant: string | VariantSpec) =>
        evaluate({ policy, episodes: opts.episodes, seed: opts.seed, variant, locale: opts.locale }).reward.mean;
      const identity = run(memorizerPolicy, 'identity');
      const rows: Record<string, ReportRow> = {};
      const round = (x: number) => Math.round(x * 1e4) / 1e4;
      const add = (name: string, spec: VariantSpec) => {
        const m = run(memorizerPolicy, spec);
        rows[name] = { spec, memorizer: m, drop: round(identity - m), oracle: run(oraclePolicy, spec) };
      };
      for (const f of FAMILIES) add(f, { families: [f], intensity: PRESETS.train?.intensity ?? 0.6, split: 'train' });
      for (const p of ['train', 'eval']) {
        const spec = PRESETS[p];
        if (spec) add(p, spec);
      }
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({ episodes: opts.episodes, seed: opts.seed, locale: opts.locale, memorizer_identity: identity, families: rows }) +
            '\n',
        );
        return;
      }
      const lines = [
        `memorizer on identity: ${identity.toFixed(4)} (${opts.episodes} episodes from seed ${opts.seed}, ${opts.locale})`,
        'variant   memorizer   drop     oracle',
      ];
      for (const [name, r] of Object.entries(rows))
        lines.push(`${name.padEnd(9)} ${r.memorizer.toFixed(4).padStart(9)}   ${r.drop.toFixed(4).padStart(6)}   ${r.oracle.toFixed(4)}`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
