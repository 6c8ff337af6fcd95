/**
 * The benchmark suite (`npm run bench`, `npm run bench -- --json`). Micro-benchmarks of the hot
 * functions: reset (world + task generation + prompt), a tool-call step, a reply step with scoring, each
 * action parser, and reward scoring. Figures are medians of tinybench's samples; a noisy machine moves
 * them, so compare runs made in the same session only.
 */
import { Bench } from 'tinybench';
import { createEpisode, defaultEnvConfig, PARSERS } from '../env/index.js';
import type { Episode } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';
import type { PolicyInstance } from '../policies/index.js';
import { scoreEpisode } from '../rewards/index.js';
import { FAMILIES, PRESETS, PRESET_NAMES } from '../harness-variants/index.js';

const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
const config = defaultEnvConfig();
const profile = config.profiles.get('default');
if (!profile) throw new Error('no default profile');

let seed = 1;
function fresh(): { episode: Episode; policy: PolicyInstance; info: Record<string, unknown>; obs: { messages: never[] } } {
  const s = seed++;
  const created = createEpisode(config, { episode_id: 'bench', seed: s, variant: 'identity' });
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
  return { episode: created.episode, policy, info, obs: { messages: [] } };
}

const bench = new Bench({ time: quick ? 200 : 1000, warmupTime: quick ? 50 : 200 });

// Reset per variant preset, and per family alone at the train preset's intensity.
const resetVariants: [string, unknown][] = [
  ...PRESET_NAMES.map((p): [string, unknown] => [p, p]),
  ...FAMILIES.map((f): [string, unknown] => [`family ${f}`, { families: [f], intensity: PRESETS.train?.intensity ?? 0.6, split: 'train' }]),
];
for (const [label, variant] of resetVariants) {
  bench.add(`reset ${label}`, () => {
    const created = createEpisode(config, { episode_id: 'bench', seed: seed++, variant });
    if (!created.ok) throw new Error(created.error.message);
    created.episode.reset();
  });
}

// A tool-call step: the oracle's first turn (skills + required calls) on a fresh episode.
let toolCase: ReturnType<typeof fresh> & { action: unknown };
bench.add(
  'step tool turn',
  () => {
    toolCase.episode.step(toolCase.action);
  },
  {
    beforeEach() {
      const f = fresh();
      toolCase = { ...f, action: f.policy.act({ messages: [] }, f.info) };
    },
  },
);

// A reply step: the oracle's final reply, which runs the reply hooks and scores the episode.
let replyCase: ReturnType<typeof fresh> & { action: unknown };
bench.add(
  'step reply turn (+ reward)',
  () => {
    replyCase.episode.step(replyCase.action);
  },
  {
    beforeEach() {
      const f = fresh();
      const first = f.episode.step(f.policy.act({ messages: [] }, f.info));
      const info = first.ok ? first.info : f.info;
      replyCase = { ...f, action: f.policy.act({ messages: [] }, info) };
    },
  },
);

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
for (const [name, action] of Object.entries(samples)) {
  const parser = PARSERS.get(name);
  if (!parser) continue;
  bench.add(`parse ${name}`, () => {
    parser.parse(action, 1);
  });
}

// Reward scoring alone, on a finished oracle episode.
const done = fresh();
for (let i = 0; i < 8 && !done.episode.ended; i++) {
  const r = done.episode.step(done.policy.act({ messages: [] }, done.info));
  if (r.ok) done.info = r.info;
}
const trace = done.episode.trace();
bench.add('score episode (default profile)', () => {
  scoreEpisode(trace, done.episode.params.task, profile, config.registry);
});

await bench.run();

const rows = bench.tasks.map((t) => {
  const r = t.result;
  const lat = r && 'latency' in r ? r.latency : undefined;
  return {
    name: t.name,
    p50_us: lat ? lat.p50 * 1000 : NaN,
    p99_us: lat ? lat.p99 * 1000 : NaN,
    samples: lat ? (lat.samples?.length ?? 0) : 0,
  };
});

if (json) {
  const out: Record<string, unknown> = { node: process.version };
  for (const r of rows) {
    const key = r.name
      .replace(/[^a-z0-9]+/gi, '_')
      .replace(/_+$/, '')
      .toLowerCase();
    out[`${key}_p50_us`] = Number(r.p50_us.toFixed(2));
    out[`${key}_p99_us`] = Number(r.p99_us.toFixed(2));
  }
  // The headline reset figure is the `train` preset's (issue 6's target), the augmented reset.
  const reset = rows.find((r) => r.name === 'reset train');
  if (reset) {
    out.reset_p50_us = Number(reset.p50_us.toFixed(2));
    out.reset_p99_us = Number(reset.p99_us.toFixed(2));
  }
  process.stdout.write(JSON.stringify(out) + '\n');
} else {
  const w = Math.max(...rows.map((r) => r.name.length));
  process.stdout.write(`${'benchmark'.padEnd(w)}  ${'p50 µs'.padStart(10)}  ${'p99 µs'.padStart(10)}\n`);
  for (const r of rows)
    process.stdout.write(`${r.name.padEnd(w)}  ${r.p50_us.toFixed(2).padStart(10)}  ${r.p99_us.toFixed(2).padStart(10)}\n`);
}
