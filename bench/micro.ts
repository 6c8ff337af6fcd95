/**
 * Micro-benchmarks (tinybench) of the server's hot functions, in-process: decoding and validating a step
 * frame, a reset reply decoded whole and skimmed (the load client's side), each action parser, a tool
 * step, a reply step with its reward, a reset per variant preset (and per HSA family alone), and each
 * reward module alone. Figures are tinybench's p50 and p99 latency in
 * microseconds; a noisy machine moves the p99 most, so compare runs made on a quiet machine only.
 */
import { Bench } from 'tinybench';
import { createEpisode, defaultEnvConfig, PARSERS, sharedVariantOf } from '../env/index.js';
import type { Episode } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import type { PolicyInstance } from '../policies/index.js';
import { scoreEpisode } from '../rewards/index.js';
import { FAMILIES, PRESETS, PRESET_NAMES, parseVariant, prepareVariantPool } from '../harness-variants/index.js';
import { StepEnvelopeSchema, StepItemSchema } from '../protocol/wire.js';
import { Codec, MsgpackCodec } from '../protocol/codec.js';
import { skimMsgpack } from './skim.js';

/** What the live phases' client skips in a reply (bench/load.ts). */
const SKIP_OBSERVATION: ReadonlySet<string> = new Set(['observation']);

/** One micro-benchmark's figures. */
export interface MicroRow {
  name: string;
  p50_us: number;
  p99_us: number;
  samples: number;
}

/** How long tinybench runs each task, and its warm-up (ms); the step tasks run a fixed count instead. */
export interface MicroOptions {
  timeMs: number;
  warmupMs: number;
  /** Iterations of each step task (each needs a fresh episode, reset outside the timing, so time-boxing them would mostly time resets). */
  stepIterations: number;
  log?: (line: string) => void;
}

/** The JSON key of a benchmark name: `reset train` -> `reset_train`. */
export function microKey(name: string): string {
  return name
    .replace(/[^a-z0-9]+/gi, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** Run every micro-benchmark. */
export async function runMicro(opts: MicroOptions): Promise<MicroRow[]> {
  const config = defaultEnvConfig();
  const profile = config.profiles.get('default');
  if (!profile) throw new Error('no default profile');

  let seed = 1;
  /** A fresh `train` episode after its reset, with the oracle that plays it. */
  const fresh = (): { episode: Episode; policy: PolicyInstance; info: Record<string, unknown> } => {
    const s = seed++;
    const created = createEpisode(config, { episode_id: 'bench', seed: s, variant: 'train' });
    if (!created.ok) throw new Error(created.error.message);
    const { observation, info } = created.episode.reset();
    const p = created.episode.params;
    const policy = oraclePolicy.start({
      seed: s,
      parser: 'openai',
      observation,
      info,
      privileged: { task: p.task, map: p.map, harness: p.harness },
    });
    return { episode: created.episode, policy, info };
  };

  const bench = new Bench({ time: opts.timeMs, warmupTime: opts.warmupMs });
  // Step tasks: a fixed number of iterations (tinybench runs while time OR iterations remain, so time 0).
  const steps = new Bench({
    time: 0,
    iterations: opts.stepIterations,
    warmupTime: 0,
    warmupIterations: Math.ceil(opts.stepIterations / 10),
  });

  // Transport: decode + validate a step frame as the server's edge does (codec, envelope, each item).
  const first = fresh();
  const oracleAction = first.policy.act({ messages: [] }, first.info);
  const packr = new MsgpackCodec();
  const codec = new Codec();
  for (const n of [1, 64]) {
    const frame = packr.pack({
      type: 'step',
      id: 7,
      items: Array.from({ length: n }, (_, i) => ({ episode_id: `ep-${i}`, action: oracleAction })),
    });
    bench.add(`decode+validate step frame (${n} item${n > 1 ? 's' : ''})`, () => {
      const d = codec.decode(frame, true);
      if (!d.ok) throw new Error(d.message);
      const env = StepEnvelopeSchema.parse(d.value);
      for (const item of env.items) StepItemSchema.parse(item);
    });
  }

  // The load client's side of a reset (bench/skim.ts): a train reset reply decoded whole, and skimmed
  // past its observation (the system prompt and the tool list) as the live phases' client does.
  const resetCreated = createEpisode(config, { episode_id: 'bench-reply', seed: 4242, variant: 'train' });
  if (!resetCreated.ok) throw new Error(resetCreated.error.message);
  const resetReply = Buffer.from(
    packr.pack({ type: 'reset_result', id: 3, items: [{ ok: true, episode_id: 'bench-reply', ...resetCreated.episode.reset() }] }),
  );
  bench.add('decode reset reply (full)', () => packr.unpack(resetReply));
  bench.add('decode reset reply (skim)', () => skimMsgpack(resetReply, SKIP_OBSERVATION));

  // Parsers: a tool call in each parser's format (auto reads the structured message).
  const samples: Record<string, unknown> = {
    openai: {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_product', arguments: '{"link_no":3}' } }],
      },
    },
    hermes: { text: '<think>先查链接</think>\n<tool_call>\n{"name": "get_product", "arguments": {"link_no": 3}}\n</tool_call>' },
    qwen3_xml: {
      text: '<think>先查链接</think>\n<tool_call>\n<function=get_product>\n<parameter=link_no>\n3\n</parameter>\n</function>\n</tool_call>',
    },
  };
  samples.auto = samples.openai;
  for (const [name, parser] of PARSERS) {
    const action = samples[name];
    if (action === undefined) continue;
    bench.add(`parse ${name}`, () => {
      parser.parse(action, 1);
    });
  }

  // A tool step: the oracle's first turn (skills + required calls) on a fresh train episode.
  let toolCase: { episode: Episode; action: unknown };
  steps.add(
    'step tool turn',
    () => {
      toolCase.episode.step(toolCase.action);
    },
    {
      beforeEach() {
        const f = fresh();
        toolCase = { episode: f.episode, action: f.policy.act({ messages: [] }, f.info) };
      },
    },
  );

  // A reply step: the oracle's final reply, which runs the reply hooks and scores the episode.
  let replyCase: { episode: Episode; action: unknown };
  steps.add(
    'step reply turn (+ reward)',
    () => {
      replyCase.episode.step(replyCase.action);
    },
    {
      beforeEach() {
        const f = fresh();
        let info = f.info;
        // Tool turns (and retries) until the oracle's next action is its reply.
        for (let i = 0; i < 8; i++) {
          const action = f.policy.act({ messages: [] }, info) as { message?: { tool_calls?: unknown } };
          if (!action.message?.tool_calls) {
            replyCase = { episode: f.episode, action };
            return;
          }
          const r = f.episode.step(action);
          if (r.ok) info = r.info;
        }
        throw new Error('the oracle never replied');
      },
    },
  );

  // Resets: each preset, then each HSA family alone at the train preset's intensity.
  const resetVariants: [string, unknown][] = [
    ...PRESET_NAMES.map((p): [string, unknown] => [p, p]),
    ...FAMILIES.map((fam): [string, unknown] => [
      `family ${fam}`,
      { families: [fam], intensity: PRESETS.train?.intensity ?? 0.6, split: 'train' },
    ]),
  ];
  /**
   * A serving process compiles its presets' variant pools a few seconds after its start (env
   * `prepareVariantsInBackground`); a reset then draws a compiled slot. Each reset task compiles its
   * spec's pool in the default locale before it is timed, so that it times draws, not compiles.
   */
  const preparePool = (variant: unknown) => {
    const parsed = parseVariant(variant);
    if (!parsed.ok) throw new Error(parsed.message);
    if (parsed.spec !== null)
      prepareVariantPool(config.harness.get(config.defaults.locale), parsed.spec, config.variantPool, config.operators);
  };
  for (const [label, variant] of resetVariants) {
    bench.add(
      `reset ${label}`,
      () => {
        const created = createEpisode(config, { episode_id: 'bench', seed: seed++, variant });
        if (!created.ok) throw new Error(created.error.message);
        created.episode.reset();
      },
      { beforeAll: () => preparePool(variant) },
    );
  }
  // A GRPO group member after the first ("task+variant"): the group's task and built variant are reused.
  let founder: Episode | null = null;
  let groupMembers = 0;
  bench.add(
    'reset train group member',
    () => {
      const f = founder as Episode;
      const created = createEpisode(config, {
        episode_id: 'bench',
        seed: f.params.seed,
        variant: 'train',
        task_override: f.params.source_task,
        variant_override: sharedVariantOf(f),
      });
      if (!created.ok) throw new Error(created.error.message);
      created.episode.reset();
    },
    {
      beforeAll: () => preparePool('train'),
      beforeEach() {
        // A new group every 8 members, as a trainer's G = 8.
        if (founder !== null && groupMembers++ % 7 !== 6) return;
        const created = createEpisode(config, { episode_id: 'bench', seed: seed++, variant: 'train' });
        if (!created.ok) throw new Error(created.error.message);
        created.episode.reset();
        founder = created.episode;
      },
    },
  );

  // Rewards: the whole profile, then each registered module alone, on a finished oracle episode.
  const done = fresh();
  let info = done.info;
  for (let i = 0; i < 8 && !done.episode.ended; i++) {
    const r = done.episode.step(done.policy.act({ messages: [] }, info));
    if (r.ok) info = r.info;
  }
  const trace = done.episode.trace();
  const task = done.episode.params.task;
  bench.add('score episode (default profile)', () => {
    scoreEpisode(trace, task, profile, config.registry);
  });
  for (const m of config.registry.list()) {
    const params = profile.modules.find((e) => e.name === m.name)?.params ?? {};
    bench.add(`reward ${m.name}`, () => {
      m.score(trace, task, params);
    });
  }

  for (const b of [bench, steps]) {
    b.addEventListener('cycle', (e) => {
      const name = (e as unknown as { task?: { name: string } }).task?.name;
      if (name) opts.log?.(`  micro: ${name}`);
    });
    await b.run();
  }

  return [...bench.tasks, ...steps.tasks].map((t) => {
    const r = t.result as { latency?: { p50: number; p99: number; samples?: number[]; samplesCount?: number } } | undefined;
    const lat = r?.latency;
    return {
      name: t.name,
      p50_us: lat ? lat.p50 * 1000 : NaN,
      p99_us: lat ? lat.p99 * 1000 : NaN,
      samples: lat ? (lat.samplesCount ?? lat.samples?.length ?? 0) : 0,
    };
  });
}
