/**
 * The reply step's in-process cost, for comparing two builds (`node dist/bench/reply-step.js [ROUNDS]` in
 * each checkout, alternated, on one machine in one sitting): the reference oracle plays 400 `train`
 * episodes (both locales) up to its final reply, then each final reply step (the reply hooks, the trace
 * and the reward) is timed. Prints one JSON line: the median of the per-round means and every round, in
 * microseconds per step.
 */
import { createEpisode, defaultEnvConfig } from '../env/index.js';
import type { Episode } from '../env/index.js';
import { oraclePolicy } from '../policies/index.js';

const config = defaultEnvConfig();

function atReply(seed: number, locale: 'zh-CN' | 'en'): { episode: Episode; action: unknown } | null {
  const created = createEpisode(config, { episode_id: 'bench', seed, variant: 'train', options: { locale } });
  if (!created.ok) return null;
  const episode = created.episode;
  const { observation, info } = episode.reset();
  const p = episode.params;
  const policy = oraclePolicy.start({ seed, parser: 'openai', observation, info, privileged: { task: p.task, map: p.map, harness: p.harness } });
  let last = info;
  for (let i = 0; i < 8; i++) {
    const action = policy.act({ messages: [] }, last) as { message?: { tool_calls?: unknown } };
    if (!action.message?.tool_calls) return { episode, action };
    const r = episode.step(action);
    if (r.ok) last = r.info;
  }
  return null;
}

const rounds = Math.max(1, Number(process.argv[2] ?? 9));
const means: number[] = [];
for (let r = 0; r < rounds; r++) {
  const cases: { episode: Episode; action: unknown }[] = [];
  for (let s = 0; s < 400; s++) {
    const c = atReply(1000 + s, s % 2 === 0 ? 'zh-CN' : 'en');
    if (c !== null) cases.push(c);
  }
  const t0 = process.hrtime.bigint();
  for (const c of cases) c.episode.step(c.action);
  means.push(Number(process.hrtime.bigint() - t0) / 1000 / cases.length);
}
const sorted = [...means].sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ reply_step_us_median: +sorted[Math.floor(sorted.length / 2)].toFixed(1), rounds: means.map((x) => +x.toFixed(1)) }) + '\n');
