/**
 * llm_judge against a fake OpenAI-compatible endpoint started by the test (node:http on 127.0.0.1:0):
 * a verdict, a timeout then a successful retry, persistent failure -> fallback, malformed output ->
 * fallback, no retries on a 400, the verdict cache; then the async scoring path end to end
 * (scoreEpisodeAsync, HarnessGymEnv.stepAsync) and its byte-identity with the sync path without a judge.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_PROFILE,
  accuracyModule,
  clearJudgeCache,
  createLlmJudgeModule,
  defaultRegistry,
  parseVerdict,
  registryWithJudge,
  scoreEpisode,
  scoreEpisodeAsync,
} from '../../rewards/index.js';
import type { AsyncScoreContext, RewardModule, RewardProfile } from '../../rewards/index.js';
import { HarnessGymEnv } from '../../env/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { zhProductQa } from './fixtures.js';

type Behaviour = 'ok' | 'hang' | '500' | '400' | 'malformed';

/** The fake endpoint: answers each request with the next scripted behaviour (the last one repeats). */
let server: Server;
let base = '';
let script: Behaviour[] = [];
let requests: { url: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
let verdict = { score: 0.8, reason: 'accurate and short' };

function handle(req: IncomingMessage, res: ServerResponse): void {
  let data = '';
  req.on('data', (c: Buffer) => (data += c.toString('utf8')));
  req.on('end', () => {
    requests.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(data) as Record<string, unknown> });
    const b: Behaviour = script.length > 1 ? (script.shift() as Behaviour) : (script[0] ?? 'ok');
    if (b === 'hang') return; // never answers: the client's timeout must fire
    if (b === '500' || b === '400') {
      res.writeHead(Number(b), { 'content-type': 'application/json' }).end('{"error":"nope"}');
      return;
    }
    const content = b === 'ok' ? `\`\`\`json\n${JSON.stringify(verdict)}\n\`\`\`` : 'I think it is pretty good!';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  clearJudgeCache();
  script = ['ok'];
  requests = [];
  verdict = { score: 0.8, reason: 'accurate and short' };
});

const ctx: AsyncScoreContext = { module: (n) => defaultRegistry().get(n) };

function judge(over: Record<string, unknown> = {}): RewardModule {
  return createLlmJudgeModule({
    endpoint: base,
    model: 'fake-judge',
    timeout_ms: 2000,
    retries: 2,
    backoff_ms: 1,
    api_key: 'k-test',
    ...over,
  });
}

describe('llm_judge', () => {
  it('scores a reply with the judge verdict, sending the rubric, the reply and the bearer token', async () => {
    const { task, oracle } = zhProductQa();
    const d = await judge().scoreAsync!(oracle, task, { rubric: 'Grade politeness.' }, ctx);
    expect(d).toEqual({
      value: 0.8,
      reasons: ['judge fake-judge: score 0.8', 'judge reason: accurate and short'],
      evidence: { model: 'fake-judge' },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0].url).toBe('/v1/chat/completions');
    expect(requests[0].auth).toBe('Bearer k-test');
    expect(requests[0].body.model).toBe('fake-judge');
    const messages = requests[0].body.messages as { role: string; content: string }[];
    expect(messages[0].content.startsWith('Grade politeness.')).toBe(true);
    expect(messages[1].content).toContain(`Reply to grade: ${oracle.final_reply}`);
  });

  it('retries after a timeout and takes the second answer', async () => {
    script = ['hang', 'ok'];
    const { task, oracle } = zhProductQa();
    // A short timeout for the hanging attempt; generous enough that a loaded machine still answers the retry.
    const d = await judge({ timeout_ms: 400 }).scoreAsync!(oracle, task, {}, ctx);
    expect(d.value).toBe(0.8);
    expect(d.failed).toBeUndefined();
    expect(requests).toHaveLength(2);
  });

  it('falls back to the fallback module after persistent failure, and says so', async () => {
    script = ['500'];
    const { task, oracle } = zhProductQa();
    const bad = { ...oracle, final_reply: '现在只要99元' }; // an invented number: accuracy < 1
    const d = await judge().scoreAsync!(bad, task, {}, ctx);
    const acc = accuracyModule.score(bad, task, {});
    expect(acc.value).toBeLessThan(1);
    expect(d.value).toBe(acc.value);
    expect(d.reasons[0]).toBe(`llm_judge failed after 3 attempts (HTTP 500); fallback accuracy = ${acc.value}`);
    expect(d.reasons.slice(1)).toEqual(acc.reasons.map((r) => `accuracy: ${r}`));
    expect(d.evidence).toEqual({ fallback: 'accuracy', error: 'llm_judge failed after 3 attempts (HTTP 500)' });
    expect(requests).toHaveLength(3);
  });

  it('treats malformed judge output as a failed attempt (retried, then the fallback)', async () => {
    script = ['malformed'];
    const { task, oracle } = zhProductQa();
    const d = await judge({ retries: 1, fallback: 'effectiveness' }).scoreAsync!(oracle, task, {}, ctx);
    expect(requests).toHaveLength(2);
    expect(d.reasons[0]).toMatch(/^llm_judge failed after 2 attempts \(malformed judge output/);
    expect(d.value).toBe(defaultRegistry().get('effectiveness')!.score(oracle, task, {}).value);
    expect(d.evidence).toMatchObject({ fallback: 'effectiveness' });
  });

  it('does not spend retries on a 400, and a missing fallback marks the component failed', async () => {
    script = ['400'];
    const { task, oracle } = zhProductQa();
    const d = await judge({ fallback: 'no_such_module' }).scoreAsync!(oracle, task, {}, ctx);
    expect(requests).toHaveLength(1);
    expect(d).toEqual({
      value: 0,
      failed: true,
      reasons: ['llm_judge failed after 1 attempt (HTTP 400); fallback module "no_such_module" is not registered'],
    });
  });

  it('caches verdicts by (model, rubric, reply, task id), sharing concurrent requests', async () => {
    const { task, oracle } = zhProductQa();
    const m = judge();
    const [a, b] = await Promise.all([m.scoreAsync!(oracle, task, {}, ctx), m.scoreAsync!(oracle, task, {}, ctx)]);
    expect(a).toEqual(b);
    expect(requests).toHaveLength(1);
    await m.scoreAsync!(oracle, task, {}, ctx);
    expect(requests).toHaveLength(1);
    await m.scoreAsync!(oracle, task, { rubric: 'Another rubric.' }, ctx);
    await m.scoreAsync!({ ...oracle, final_reply: '欢迎来到直播间' }, task, {}, ctx);
    await m.scoreAsync!(oracle, task, { model: 'other-judge' }, ctx);
    expect(requests).toHaveLength(4);
  });

  it('parses verdicts strictly', () => {
    expect(parseVerdict('{"score": 1, "reason": "ok"}')).toEqual({ score: 1, reason: 'ok' });
    expect(parseVerdict('Verdict: {"score": "0.5"} done')).toEqual({ score: 0.5, reason: '' });
    for (const bad of ['{"score": 1.5}', '{"score": -0.1}', '{"reason": "x"}', 'score: 1', '{bad json}', null, 3]) {
      expect(parseVerdict(bad)).toBeNull();
    }
  });

  it('on the synchronous path answers with the fallback, labelled', () => {
    const { task, oracle } = zhProductQa();
    const d = judge().score(oracle, task, {});
    expect(d.value).toBe(accuracyModule.score(oracle, task, {}).value);
    expect(d.reasons[0]).toBe('llm_judge not run (synchronous scoring path); fallback accuracy = 1');
    expect(requests).toHaveLength(0);
  });

  it('checks its params when a profile names them', () => {
    expect(judge().checkParams!({ timeout_ms: 10, rubric: 'r' })).toEqual([]);
    const errors = judge().checkParams!({ timeout_ms: 'soon', retry: 2 });
    expect(errors).toHaveLength(2);
    expect(errors.some((e) => e.startsWith('timeout_ms: '))).toBe(true);
    expect(errors).toContain('retry: unknown parameter');
  });
});

describe('the async scoring path', () => {
  const judged: RewardProfile = {
    name: 'judged',
    modules: [
      { name: 'accuracy', weight: 1 },
      { name: 'llm_judge', weight: 1 },
    ],
    gates: [],
  };

  it('scoreEpisodeAsync combines the judge like any module; a rejecting async module is a failed component', async () => {
    const { task, oracle } = zhProductQa();
    const registry = registryWithJudge({ endpoint: base, model: 'fake-judge', timeout_ms: 2000, backoff_ms: 1 });
    const r = await scoreEpisodeAsync(oracle, task, judged, registry);
    expect(r.components).toEqual({ accuracy: 1, llm_judge: 0.8 });
    expect(r.reward).toBe(0.9);

    registry.register({
      name: 'flaky',
      version: '0.1.0',
      segment: 'reply',
      score: () => ({ value: 1, reasons: [] }),
      scoreAsync: () => Promise.reject(new Error('remote down')),
    });
    registry.register({
      name: 'too_big',
      version: '0.1.0',
      segment: 'reply',
      score: () => ({ value: 1, reasons: [] }),
      scoreAsync: async () => ({ value: 2, reasons: [] }),
    });
    const p2: RewardProfile = { ...judged, modules: [...judged.modules, { name: 'flaky', weight: 1 }, { name: 'too_big', weight: 1 }] };
    const r2 = await scoreEpisodeAsync(oracle, task, p2, registry);
    expect(r2.details.flaky).toEqual({ value: 0, failed: true, reasons: ['module failed: threw Error: remote down'] });
    expect(r2.details.too_big).toEqual({ value: 0, failed: true, reasons: ['module failed: returned 2 (outside [0, 1])'] });
    expect(r2.reward).toBe(0.45);
  });

  it('without async modules it equals scoreEpisode', async () => {
    const { task, oracle } = zhProductQa();
    const registry = registryWithJudge();
    expect(await scoreEpisodeAsync(oracle, task, DEFAULT_PROFILE, registry)).toEqual(scoreEpisode(oracle, task, DEFAULT_PROFILE, registry));
  });

  /** Play the oracle through an env; returns every step output serialised. */
  async function play(env: HarnessGymEnv, seed: number, mode: 'sync' | 'async', rewards?: string): Promise<string[]> {
    const first = env.reset({ seed, options: rewards === undefined ? {} : { rewards } });
    const p = env.episode!.params;
    const inst = oraclePolicy.start({
      seed,
      parser: 'openai',
      observation: first.observation,
      info: first.info,
      privileged: { task: p.task, map: p.map, harness: p.harness },
    });
    const out = [JSON.stringify(first)];
    let { observation, info } = first;
    for (let i = 0; i < 40 && !env.episode!.ended; i++) {
      const action = inst.act(observation, info);
      const r = mode === 'sync' ? env.step(action) : await env.stepAsync(action);
      out.push(JSON.stringify(r));
      ({ observation, info } = r);
    }
    return out;
  }

  it('HarnessGymEnv.stepAsync equals step byte for byte for the default profile', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const a = await play(new HarnessGymEnv(), seed, 'sync');
      const b = await play(new HarnessGymEnv(), seed, 'async');
      expect(b).toEqual(a);
    }
  });

  it('HarnessGymEnv.stepAsync awaits the judge; step uses its fallback', async () => {
    const registry = registryWithJudge({ endpoint: base, model: 'fake-judge', timeout_ms: 2000, backoff_ms: 1 });
    const profiles = new Map([
      [DEFAULT_PROFILE.name, DEFAULT_PROFILE],
      [judged.name, judged],
    ]);
    verdict = { score: 0.25, reason: 'meh' };
    const asyncRun = await play(new HarnessGymEnv({ registry, profiles }), 7, 'async', 'judged');
    const last = JSON.parse(asyncRun.at(-1)!) as { reward: number; info: { reward_components: Record<string, number> } };
    expect(last.info.reward_components.llm_judge).toBe(0.25);
    expect(requests).toHaveLength(1);

    const syncRun = await play(new HarnessGymEnv({ registry, profiles }), 7, 'sync', 'judged');
    const lastSync = JSON.parse(syncRun.at(-1)!) as {
      info: { reward_components: Record<string, number>; reward_details: Record<string, { reasons: string[] }> };
    };
    expect(lastSync.info.reward_components.llm_judge).toBe(lastSync.info.reward_components.accuracy);
    expect(lastSync.info.reward_details.llm_judge.reasons[0]).toMatch(/^llm_judge not run \(synchronous scoring path\)/);
    expect(requests).toHaveLength(1);
  });
});
