/**
 * `--task-split` and `--mix` through the real `harness-gym` entry (issue 37): held-out tasks and held-out
 * harnesses are two axes a run chooses and names. `eval --task-split eval` plays only `gen-eval-…` tasks,
 * `all` plays both (each seed its split), records and summaries name both splits, a remote eval names its
 * split and mix in every reset (so the server's defaults never decide it) and prints the in-process line,
 * `serve` applies its own defaults and refuses bad ones at start-up, and every bad value is one line with a
 * non-zero exit.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecords } from '../../recording/index.js';
import type { EpisodeRecordV1 } from '../../recording/index.js';
import { evaluate } from '../../eval/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { INTENTS } from '../../protocol/domain.js';
import { parseMixText, taskSplitFor } from '../../env/index.js';
import { EXIT } from '../../cli/errors.js';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { writeMiniHarness } from '../harness/mini-harness.js';
import { CLI, ROOT, cli, expectFailure, tempDir } from './helpers.js';

const PRODUCTION_LOG = join(ROOT, 'examples', 'tasks', 'production-log.jsonl');

function records(dir: string): EpisodeRecordV1[] {
  const read = readRecords(dir);
  if (!read.ok) throw new Error(read.message);
  return read.result.records.map((r) => r.record);
}

/** `serve ...args` until it prints its line; its http URL. */
async function serveUntilListening(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '0', '--log-level', 'silent', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const url = /listening on (http:\/\/[^ ]+)/.exec(line)?.[1] as string;
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    },
  };
}

describe('eval --task-split', () => {
  it('eval plays only held-out tasks; records and the summary name both splits', async () => {
    const dir = tempDir('hg-split-eval-');
    const r = await cli(['eval', '--task-split', 'eval', '--variant', 'train', '--episodes', '12', '--record', dir, '--json']);
    expect(r.status).toBe(0);
    // The whole line is the in-process one, and says what it played.
    const local = evaluate({ policy: oraclePolicy, episodes: 12, seed: 1, variant: 'train', taskSplit: 'eval' });
    expect(r.stdout).toBe(JSON.stringify(local) + '\n');
    const s = JSON.parse(r.stdout);
    expect([s.task_split, s.variant_split, s.task_splits, s.reward.mean]).toEqual(['eval', 'train', { eval: 12 }, 1]);
    const recs = records(dir);
    expect(recs.map((x) => x.seed)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (const x of recs) {
      expect(x.task.id).toMatch(new RegExp(`^gen-eval-zh-CN-${x.seed}-`));
      expect([x.task_split, x.variant_split, x.summary.task_split, x.summary.variant_split]).toEqual(['eval', 'train', 'eval', 'train']);
    }
  }, 60_000);

  it('all plays both splits, each seed the one taskSplitFor draws; the default is train', async () => {
    const dir = tempDir('hg-split-all-');
    const [all, plain, table] = await Promise.all([
      cli(['eval', '--task-split', 'all', '--variant', 'eval', '--episodes', '30', '--record', dir, '--json']),
      cli(['eval', '--episodes', '10', '--json']),
      cli(['eval', '--task-split', 'all', '--variant', 'eval', '--episodes', '30']),
    ]);
    expect([all.status, plain.status, table.status]).toEqual([0, 0, 0]);
    const recs = records(dir);
    const want = recs.map((x) => taskSplitFor(x.seed, 'all'));
    expect(recs.map((x) => x.task_split)).toEqual(want);
    expect(recs.map((x) => x.task.id.split('-')[1])).toEqual(want);
    expect(new Set(want)).toEqual(new Set(['train', 'eval']));
    expect(recs.every((x) => x.variant_split === 'eval')).toBe(true);
    const s = JSON.parse(all.stdout);
    const evals = want.filter((x) => x === 'eval').length;
    expect([s.task_split, s.variant_split, s.task_splits]).toEqual(['all', 'eval', { eval: evals, train: 30 - evals }]);
    // The default: train tasks on the base harness (the variant preset changes only the harness axis).
    expect(JSON.parse(plain.stdout)).toMatchObject({ variant: 'identity', task_split: 'train', variant_split: 'none', task_splits: { train: 10 } });
    expect(table.stdout.split('\n').slice(0, 2)).toEqual([
      'policy oracle on variant eval: 30 episodes, 0 errors',
      `task split all (eval ${evals}, train ${30 - evals}), variant split eval`,
    ]);
  }, 60_000);

  it("a task file's held-out lines: --task-split eval plays them; train says what to give instead", async () => {
    const [held, train] = await Promise.all([
      cli(['eval', '--tasks', PRODUCTION_LOG, '--task-split', 'eval', '--episodes', '7', '--json']),
      cli(['eval', '--tasks', PRODUCTION_LOG, '--episodes', '7', '--json']),
    ]);
    expect(held.status).toBe(0);
    expect(JSON.parse(held.stdout)).toMatchObject({ episodes: 7, task_split: 'eval', task_splits: { eval: 7 }, reward: { mean: 1 } });
    expect(expectFailure(train, EXIT.usage, 'eval')).toBe(
      `harness-gym eval: --task-split train: jsonl:${PRODUCTION_LOG} has no train task in locale zh-CN (it has eval tasks); give --task-split eval`,
    );
  }, 60_000);
});

describe('eval --mix', () => {
  it('a mix of chitchat alone plays only chitchat; a mix file is read as JSON or YAML', async () => {
    const file = join(tempDir('hg-mix-file-'), 'mix.yaml');
    writeFileSync(file, 'chitchat: 1\nrisky: 1\n');
    const [only, fromFile] = await Promise.all([
      cli(['eval', '--mix', 'chitchat=1', '--episodes', '40', '--json']),
      cli(['eval', '--mix', file, '--episodes', '40', '--task-split', 'eval', '--json']),
    ]);
    expect([only.status, fromFile.status]).toEqual([0, 0]);
    expect(JSON.parse(only.stdout)).toMatchObject({ mix: { chitchat: 1 }, intents: { chitchat: 40 }, reward: { mean: 1 } });
    const f = JSON.parse(fromFile.stdout);
    expect(f.mix).toEqual({ chitchat: 0.5, risky: 0.5 });
    expect(Object.keys(f.intents).sort()).toEqual(['chitchat', 'risky']);
    const mix = parseMixText('chitchat=1,risky=1');
    const local = evaluate({ policy: oraclePolicy, episodes: 40, seed: 1, variant: 'identity', taskSplit: 'eval', mix: mix.ok ? mix.mix : undefined });
    expect(fromFile.stdout).toBe(JSON.stringify(local) + '\n');
  }, 60_000);
});

describe('eval --url: the run names its split and mix in every reset', () => {
  let plain: TestServer;
  let leaning: TestServer;
  beforeAll(async () => {
    // A server whose own defaults differ from the eval's: they must not decide the eval's tasks.
    plain = await startTestServer({ defaults: { task_split: 'eval' } });
    leaning = await startTestServer({ defaults: { task_mix: { chitchat: 1 } } });
  });
  afterAll(async () => {
    await plain.close();
    await leaning.close();
  });

  it('prints the in-process line: default train, --task-split all, --mix', async () => {
    const cases = [
      ['--episodes', '8'],
      ['--episodes', '16', '--task-split', 'all', '--variant', 'eval'],
      ['--episodes', '16', '--mix', 'product_qa=1,after_sales=1', '--task-split', 'eval'],
    ];
    for (const args of cases) {
      const [remote, local] = await Promise.all([cli(['eval', '--url', plain.url, ...args, '--json']), cli(['eval', ...args, '--json'])]);
      expect(remote.status).toBe(0);
      expect(remote.stdout).toBe(local.stdout);
    }
  }, 60_000);

  it("against a server drawing with its own mix, an eval without --mix says to give one; with one it plays", async () => {
    const [without, production] = await Promise.all([
      cli(['eval', '--url', leaning.url, '--episodes', '4', '--json']),
      cli(['eval', '--url', leaning.url, '--episodes', '12', '--mix', 'production', '--json']),
    ]);
    expect(expectFailure(without, EXIT.run, 'eval')).toContain(
      'the server draws intents with its own default mix (chitchat=1): give the eval a mix with --mix (--mix production for the production mix), and it draws each episode\'s intent itself',
    );
    expect(production.status).toBe(0);
    const local = await cli(['eval', '--episodes', '12', '--json']);
    expect(production.stdout).toBe(local.stdout);
  }, 60_000);
});

describe('variants and inspect name both splits', () => {
  it('variants sweep, show and sizes take --task-split; inspect prints the record splits', async () => {
    const dir = tempDir('hg-split-inspect-');
    const [sweep, show, sizes, played] = await Promise.all([
      cli(['variants', 'sweep', '--episodes', '4', '--families', 'prompt', '--intensities', '0.5', '--policies', 'oracle', '--split', 'eval', '--task-split', 'eval', '--json']),
      cli(['variants', 'show', '--seed', '7', '--task-split', 'eval', '--json']),
      cli(['variants', 'sizes', '--episodes', '2', '--locale', 'en', '--variant', 'train', '--task-split', 'all', '--json']),
      cli(['eval', '--episodes', '1', '--seed', '3', '--variant', 'eval', '--task-split', 'eval', '--record', dir]),
    ]);
    expect([sweep.status, show.status, sizes.status, played.status]).toEqual([0, 0, 0, 0]);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ split: 'eval', task_split: 'eval', rows: [{ families: ['prompt'], intensity: 0.5, mean: { oracle: 1 } }] });
    const v = JSON.parse(show.stdout);
    expect([v.task_id.split('-').slice(0, 5).join('-'), v.task_split, v.variant_split]).toEqual(['gen-eval-zh-CN-7', 'eval', 'train']);
    const z = JSON.parse(sizes.stdout);
    expect([z.task_split, z.rows[0].locale, z.rows[0].variant, z.rows[0].part]).toEqual(['all', 'en', 'train', 'system']);
    const inspect = await cli(['inspect', dir]);
    expect(inspect.status).toBe(0);
    expect(inspect.stdout.split('\n').find((l) => l.startsWith('=== episode'))).toMatch(/^=== episode eval-3 {2}seed 3 {2}task gen-eval-zh-CN-3-\w+ {2}intent \w+ {2}locale zh-CN {2}task split eval {2}variant split eval$/);
  }, 60_000);
});

describe('bad task flags: one line, non-zero exit', () => {
  it('usage errors (exit 2) and unreadable files (exit 4)', async () => {
    const missing = join(tempDir('hg-mix-missing-'), 'none.yaml');
    const badFile = join(tempDir('hg-mix-bad-'), 'bad.json');
    writeFileSync(badFile, '{"chitchat": -1}');
    const runs = await Promise.all([
      cli(['eval', '--task-split', 'evl']),
      cli(['eval', '--mix', 'chitchta=1']),
      cli(['eval', '--mix', 'chitchat=0']),
      cli(['eval', '--mix', 'chitchat=1', '--intent', 'risky']),
      cli(['eval', '--mix', missing]),
      cli(['eval', '--mix', badFile]),
      cli(['audit', '--task-split', 'test']),
      cli(['variants', 'sweep', '--mix', 'risky=1,chitchat']),
      cli(['rollout', '--url', 'ws://127.0.0.1:9/v1/env', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--task-split', 'x']),
      cli(['task', '--mix', 'chitchat']),
    ]);
    expect(expectFailure(runs[0], EXIT.usage, 'eval')).toBe('harness-gym eval: --task-split must be one of train, eval, all, got "evl" (did you mean eval?)');
    expect(expectFailure(runs[1], EXIT.usage, 'eval')).toBe(
      `harness-gym eval: --mix chitchta=1: unknown intent "chitchta" (did you mean chitchat?); intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)`,
    );
    expect(expectFailure(runs[2], EXIT.usage, 'eval')).toBe(
      'harness-gym eval: --mix chitchat=0: every weight is 0 (or none is given): give at least one intent a positive weight, e.g. product_qa=0.5,chitchat=0.5',
    );
    expect(expectFailure(runs[3], EXIT.usage, 'eval')).toBe('harness-gym eval: --intent forces the intent and --mix draws it: give one of them');
    expect(expectFailure(runs[4], EXIT.files, 'eval')).toBe(
      `harness-gym eval: --mix ${missing}: cannot read it (ENOENT); give the weights as intent=weight pairs, e.g. product_qa=0.5,chitchat=0.5, or a JSON or YAML file of them`,
    );
    expect(expectFailure(runs[5], EXIT.files, 'eval')).toBe(`harness-gym eval: --mix ${badFile}: the weight of chitchat must be a finite number >= 0, got -1`);
    expect(expectFailure(runs[6], EXIT.usage, 'audit')).toBe('harness-gym audit: --task-split must be one of train, eval, all, got "test"');
    expect(expectFailure(runs[7], EXIT.usage, 'variants sweep')).toBe(
      'harness-gym variants sweep: --mix risky=1,chitchat: "chitchat" is not intent=weight; write the mix as product_qa=0.5,chitchat=0.5',
    );
    expect(expectFailure(runs[8], EXIT.usage, 'rollout')).toBe('harness-gym rollout: --task-split must be one of train, eval, all, got "x"');
    expect(expectFailure(runs[9], EXIT.files, 'task')).toMatch(/^harness-gym task: --mix chitchat: cannot read it \(ENOENT\); give the weights as intent=weight pairs/);
  }, 60_000);
});

describe('serve: defaults.task_split and defaults.task_mix', () => {
  it('flags set them: welcome and /v1/info name both splits, and resets without a selector get them', async () => {
    const srv = await serveUntilListening(['--task-split', 'eval', '--mix', 'chitchat=3,product_qa=1']);
    try {
      const info = (await (await fetch(`${srv.url}/v1/info`)).json()) as { defaults: Record<string, unknown> };
      expect(info.defaults).toEqual({
        variant: 'identity',
        parser: 'auto',
        max_turns: 12,
        observation: 'delta',
        locale: 'zh-CN',
        rewards: 'default',
        task_split: 'eval',
        variant_split: 'none',
        task_mix: { product_qa: 0.25, chitchat: 0.75 },
      });
      // The eval names its own split and mix; the server's apply to resets that name none (the Python
      // client's and trainers' own), checked in test/server/task-defaults.test.ts.
      const r = await cli(['eval', '--url', `${srv.url.replace(/^http/, 'ws')}/v1/env`, '--episodes', '6', '--task-split', 'eval', '--mix', 'chitchat=3,product_qa=1', '--json']);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ task_split: 'eval', task_splits: { eval: 6 }, mix: { product_qa: 0.25, chitchat: 0.75 } });
    } finally {
      await srv.stop();
    }
  }, 60_000);

  it('bad values stop the start with one line naming the key or flag', async () => {
    const dir = tempDir('hg-serve-task-defaults-');
    const badSplit = join(dir, 'split.yaml');
    writeFileSync(badSplit, 'defaults:\n  task_split: evl\n');
    const badMix = join(dir, 'mix.json');
    writeFileSync(badMix, JSON.stringify({ defaults: { task_mix: { chitchta: 1 } } }));
    const unserved = join(dir, 'unserved.yaml');
    writeFileSync(unserved, 'defaults:\n  task_mix: {handoff: 1}\n');
    const trainOnLog = join(dir, 'train.yaml');
    writeFileSync(trainOnLog, `defaults:\n  task_split: train\ntasks: [${JSON.stringify(PRODUCTION_LOG)}]\n`);
    const mini = writeMiniHarness(join(dir, 'mini'));
    const runs = await Promise.all([
      cli(['serve', '--port', '0', '--task-split', 'evl']),
      cli(['serve', '--port', '0', '--config', badSplit]),
      cli(['serve', '--port', '0', '--config', badMix]),
      cli(['serve', '--port', '0', '--harness', mini, '--mix', 'handoff=1']),
      cli(['serve', '--port', '0', '--harness', mini, '--config', unserved]),
      cli(['serve', '--port', '0', '--config', trainOnLog]),
    ]);
    expect(expectFailure(runs[0], EXIT.usage, 'serve')).toBe('harness-gym serve: --task-split must be one of train, eval, all, got "evl" (did you mean eval?)');
    expect(expectFailure(runs[1], EXIT.files, 'serve')).toBe(`harness-gym serve: --config ${badSplit}: defaults.task_split: Invalid option: expected one of "train"|"eval"|"all"`);
    expect(expectFailure(runs[2], EXIT.files, 'serve')).toBe(
      `harness-gym serve: --config ${badMix}: defaults.task_mix: unknown intent "chitchta" (did you mean chitchat?); intents are ${INTENTS.join(', ')}, or a harness's own (snake_case)`,
    );
    expect(expectFailure(runs[3], EXIT.usage, 'serve')).toBe(
      'harness-gym serve: invalid task defaults: --mix: gives weight only to handoff, and harness "mini-shop" serves none of them in locale zh-CN, split train (it serves product_qa, chitchat); --mix: gives weight only to handoff, and harness "mini-shop" serves none of them in locale en, split train (it serves product_qa, chitchat)',
    );
    expect(expectFailure(runs[4], EXIT.files, 'serve')).toMatch(new RegExp(`^harness-gym serve: --config ${unserved.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: defaults\\.task_mix: gives weight only to handoff`));
    expect(expectFailure(runs[5], EXIT.files, 'serve')).toBe(
      `harness-gym serve: --config ${trainOnLog}: defaults.task_split: train, but jsonl:${PRODUCTION_LOG} has no train task in locale zh-CN (it has eval tasks); give task split eval; defaults.task_split: train, but jsonl:${PRODUCTION_LOG} has no train task in locale en (it has eval tasks); give task split eval`,
    );
  }, 60_000);
});
