/**
 * Calibration (eval/calibrate.ts, `harness-gym calibrate`): a graded corpus of recorded episodes is
 * rescored with a profile and compared with its reviewers' grades. The corpus here is made in-process:
 * reference-oracle episodes recorded as `eval --record` records them (each scores 1.0), and flawed copies
 * of three of them whose final reply adds an invented stock figure (each scores 0.02 against its recorded
 * key: accuracy × 0.2 is below the 0.35 gate). The grades are written by hand, so every figure of the
 * report is known in advance.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, calibrate, evaluate, formatCalibration, readGrades, rewardReasons, spearman } from '../../eval/index.js';
import type { CalibratedEpisode, Grade } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import { RecordWriter, readRecords } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import { DEFAULT_PROFILE, defaultRegistry } from '../../rewards/index.js';
import type { RewardResult } from '../../protocol/domain.js';
import { evalRecorder } from '../recording/helpers.js';
import { cli, expectFailure, tempDir } from '../cli/helpers.js';

/** The oracle records (seeds 300-302 in zh-CN, 400-402 in en, identity variant), on disk in `oracleDir`. */
let oracleDir: string;
let records: LoadedRecord[];
/** The flawed copies, on disk in `flawedDir` (a RecordWriter wrote them). */
let flawedDir: string;
let flawed: LoadedRecord[];

const byId = (id: string): LoadedRecord => {
  const r = records.find((x) => x.record.episode_id === id);
  if (r === undefined) throw new Error(`no record ${id}`);
  return r;
};

/** A copy of an oracle record whose final reply says `extra` too, listed as `flawed-<seed>`. */
function flawedCopy(src: LoadedRecord, extra: string): LoadedRecord {
  const copy = structuredClone(src);
  copy.record.episode_id = src.record.episode_id.replace('eval-', 'flawed-');
  copy.record.trace.final_reply = `${src.record.trace.final_reply}${extra}`;
  return copy;
}

beforeAll(async () => {
  oracleDir = tempDir('hg-calibrate-oracle-');
  for (const [locale, seed] of [
    ['zh-CN', 300],
    ['en', 400],
  ] as const) {
    const recorder = evalRecorder(oracleDir, `oracle-${locale}`);
    evaluate({ policy: POLICIES.get('oracle')!, episodes: 3, seed, variant: 'identity', locale, recorder });
    await recorder.close();
  }
  const read = readRecords(oracleDir);
  if (!read.ok) throw new Error(read.message);
  records = read.result.records;
  flawed = [
    flawedCopy(byId('eval-300'), '，只剩999件'),
    flawedCopy(byId('eval-400'), ' Only 999 left!'),
    flawedCopy(byId('eval-401'), ' Only 999 left!'),
  ];
  flawedDir = tempDir('hg-calibrate-flawed-');
  const writer = new RecordWriter({ dir: flawedDir, stem: 'flawed', server_version: 'test', created_by: 'test' });
  for (const f of flawed) writer.append(f.record);
  await writer.close();
}, 60_000);

afterAll(() => {
  for (const dir of [oracleDir, flawedDir]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The hand-written grades of the in-process corpus (eval-402 has none; "ghost" has no record). */
const GRADES: Grade[] = [
  { episode: 'eval-300', grade: 1, verdict: 'air' },
  { episode: 'eval-301', grade: 0.9, verdict: 'air' },
  { episode: 'eval-302', grade: 0.2, verdict: 'block', why: 'greets the viewer by a nickname they never used' },
  { episode: 'eval-400', grade: 0.6, verdict: 'fix' },
  { episode: 'eval-401', grade: 0.85, verdict: 'air' },
  { episode: 'flawed-300', grade: 0, verdict: 'block', flawed: true, flaw: 'invented stock' },
  { episode: 'flawed-400', grade: 0.1, verdict: 'block', flawed: true },
  { episode: 'flawed-401', grade: 0.9, verdict: 'air', flawed: true },
  { episode: 'ghost', grade: 1, verdict: 'air' },
];

const ORACLE_QA_REASONS = [
  'accuracy 1: required facts: 1/1 stated; final state matches the expected state',
  'effectiveness 1: answers what was asked: 1/1 of the facts the message asks for',
  'hook_compliance 1: no hook violations',
  'tool_rationality 1: required calls: 1/1 satisfied',
  'skill_selection 1: required reply skills: 1/1 loaded',
];
const ORACLE_CHAT_REASONS = [
  'accuracy 1: required facts: 1/1 stated; final state matches the expected state',
  'effectiveness 1: answers what was asked: 1/1 of the facts the message asks for',
  'hook_compliance 1: no hook violations',
  'tool_rationality 1: no tool calls needed and none made',
  'skill_selection 1: required reply skills: 1/1 loaded',
];
const FLAWED_401_REASONS = [
  'accuracy 0.2: required facts: 1/1 stated; invented numbers (not in evidence): 999; final state matches the expected state',
  "effectiveness 0.7: answers what was asked: 1/1 of the facts the message asks for; numbers outside the question's scope: 999",
  'hook_compliance 1: no hook violations',
  'tool_rationality 1: required calls: 1/1 satisfied',
  'skill_selection 1: required reply skills: 1/1 loaded',
  'capped at 0.02: accuracy 0.2 < 0.35 (weighted mean 0.685)',
  'capped at 0.4: accuracy 0.2 < 0.6 (weighted mean 0.685)',
  'capped at 0.5: accuracy 0.2 < 0.8 (weighted mean 0.685)',
];

function episode(
  over: Partial<CalibratedEpisode> & Pick<CalibratedEpisode, 'episode' | 'intent' | 'locale' | 'grade' | 'verdict' | 'reward'>,
): CalibratedEpisode {
  return { variant: 'identity', flawed: false, agrees: false, false_negative: false, false_positive: false, reasons: [], ...over };
}

describe('the in-process corpus', () => {
  it('is six oracle episodes paid 1.0 and three flawed copies (what the figures below rest on)', () => {
    expect(
      records.map((r) => [r.record.episode_id, r.record.task.intent, r.record.task.locale, r.record.variant, r.record.reward.reward]),
    ).toEqual([
      ['eval-400', 'product_qa', 'en', 'identity', 1],
      ['eval-401', 'product_qa', 'en', 'identity', 1],
      ['eval-402', 'clarification', 'en', 'identity', 1],
      ['eval-300', 'product_qa', 'zh-CN', 'identity', 1],
      ['eval-301', 'chitchat', 'zh-CN', 'identity', 1],
      ['eval-302', 'chitchat', 'zh-CN', 'identity', 1],
    ]);
    const read = readRecords(flawedDir);
    expect(read.ok && read.result.records.map((r) => [r.record.episode_id, r.record.trace.final_reply])).toEqual(
      flawed.map((f) => [f.record.episode_id, f.record.trace.final_reply]),
    );
  });
});

describe('readGrades', () => {
  it('reads one grade per line, skipping blank lines and a CRLF ending', () => {
    const dir = tempDir('hg-grades-');
    const file = join(dir, 'grades.jsonl');
    writeFileSync(
      file,
      '{"episode":"e","grade":0.3,"verdict":"fix","why":"too long","flawed":true,"flaw":"pads"}\r\n\n   \n{"episode":"f","grade":1,"verdict":"air"}',
    );
    expect(readGrades(file)).toEqual({
      ok: true,
      grades: [
        { episode: 'e', grade: 0.3, verdict: 'fix', why: 'too long', flawed: true, flaw: 'pads' },
        { episode: 'f', grade: 1, verdict: 'air' },
      ],
    });
  });

  it('reports every bad line as FILE:LINE: key: message, duplicates included, and keeps no grade', () => {
    const dir = tempDir('hg-grades-');
    const file = join(dir, 'grades.jsonl');
    writeFileSync(
      file,
      [
        '{"episode":"a","grade":1,"verdict":"air"}',
        '',
        'not json',
        '{"episode":"b","grade":1.5,"verdict":"air"}',
        '{"episode":"c","grade":0.5,"verdict":"maybe","extra":1}',
        '{"episode":"a","grade":0.2,"verdict":"block"}',
        '{"episode":"d","verdict":"fix"}',
        '[1,2]',
        '{"episode":"","grade":0,"verdict":"air","flawed":"yes"}',
      ].join('\n') + '\n',
    );
    expect(readGrades(file)).toEqual({
      ok: false,
      errors: [
        expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not JSON \\(.+\\)$`)),
        `${file}:4: grade: Too big: expected number to be <=1`,
        `${file}:5: verdict: Invalid option: expected one of "air"|"fix"|"block"`,
        `${file}:5: (line): Unrecognized key: "extra"`,
        `${file}:6: episode: "a" is graded twice`,
        `${file}:7: grade: required key is missing`,
        `${file}:8: (line): Invalid input: expected object, received array`,
        `${file}:9: episode: Too small: expected string to have >=1 characters`,
        `${file}:9: flawed: Invalid input: expected boolean, received string`,
      ],
    });
  });

  it('reports a missing file, a directory and a file without grades', () => {
    const dir = tempDir('hg-grades-');
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '\n\n');
    expect([readGrades(join(dir, 'none.jsonl')), readGrades(dir), readGrades(empty)]).toEqual([
      { ok: false, errors: [`${join(dir, 'none.jsonl')}: cannot read (ENOENT)`] },
      { ok: false, errors: [`${dir}: a directory, not a regular file: give a file`] },
      { ok: false, errors: [`${empty}: no grades (one JSON object per line)`] },
    ]);
  });
});

describe('spearman', () => {
  it('is 1 for any increasing relation, -1 for a decreasing one', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 16])).toBe(1); // ranks, not values
    expect(spearman([1, 2, 3, 4], [9, 5, 2, -1])).toBe(-1);
  });

  it('averages tied ranks', () => {
    // Ranks [1, 2.5, 2.5, 4] against [1, 2, 3, 4]: 4.5 / sqrt(4.5 × 5) = sqrt(0.9).
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(Math.sqrt(0.9), 12);
    // Ranks [1..5] against [1, 2, 3.5, 5, 3.5]: 8 / sqrt(10 × 9.5).
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(8 / Math.sqrt(95), 12);
    // The textbook example (IQ against hours of TV a week, n = 10, no ties, Σd² = 194): 1 - 6 × 194 / (10 × 99) = -29/165.
    expect(spearman([106, 100, 86, 101, 99, 103, 97, 113, 112, 110], [7, 27, 2, 50, 28, 29, 20, 12, 6, 17])).toBeCloseTo(-29 / 165, 12);
  });

  it('is 0 when either side is constant or there are fewer than two pairs', () => {
    expect([spearman([1, 1, 1], [1, 2, 3]), spearman([1, 2, 3], [5, 5, 5]), spearman([1], [1]), spearman([], [])]).toEqual([0, 0, 0, 0]);
  });
});

describe('rewardReasons', () => {
  it("lists each component's value and reasons, then the caps", () => {
    const result: RewardResult = {
      reward: 0.05,
      components: { accuracy: 0.2, hook_compliance: 1 },
      details: {
        accuracy: { value: 0.2, reasons: ['required facts: 1/1 stated', 'invented numbers (not in evidence): 3'] },
        hook_compliance: { value: 1, reasons: [] },
      },
      segments: { tool: null, reply: 0.6 },
      caps: ['capped at 0.05: accuracy 0.2 < 0.35 (weighted mean 0.6)'],
    };
    expect(rewardReasons(result)).toEqual([
      'accuracy 0.2: required facts: 1/1 stated; invented numbers (not in evidence): 3',
      'hook_compliance 1: ',
      'capped at 0.05: accuracy 0.2 < 0.35 (weighted mean 0.6)',
    ]);
    const { caps: _caps, ...uncapped } = result;
    expect(rewardReasons(uncapped)).toHaveLength(2);
  });
});

describe('calibrate', () => {
  it('compares each graded record with its grade: agreement, false negatives and positives, flawed mean, slices, failures', () => {
    const corpus = [...records, ...flawed];
    const report = calibrate(corpus, GRADES, DEFAULT_PROFILE, defaultRegistry());
    expect(report).toEqual({
      profile: 'default',
      episodes: 8,
      graded_without_record: ['ghost'],
      records_without_grade: 1, // eval-402
      // Agree (|reward - grade| <= 0.2): eval-300, eval-301, eval-401, flawed-300, flawed-400.
      agreement: 0.625,
      // Of the four graded >= 0.8, flawed-401 (reward 0.02) is paid below 0.5.
      false_negatives: 1,
      false_negative_rate: 0.25,
      // Of the three graded <= 0.3, eval-302 (reward 1) is paid 0.7 or more.
      false_positives: 1,
      false_positive_rate: 0.333333,
      // Rewards [1 ×5, 0.02 ×3] (ranks 6, 2) against grades ranked [8, 6.5, 3, 4, 5, 1, 2, 6.5]: 16 / sqrt(30 × 41.5).
      spearman: 0.453456,
      stale: [],
      reward_mean: 0.6325, // (5 + 3 × 0.02) / 8
      grade_mean: 0.56875, // 4.55 / 8
      flawed: { episodes: 3, reward_mean: 0.02 },
      slices: {
        locale: {
          en: { episodes: 4, reward_mean: 0.51, grade_mean: 0.6125, agreement: 0.5 },
          'zh-CN': { episodes: 4, reward_mean: 0.755, grade_mean: 0.525, agreement: 0.75 },
        },
        intent: {
          chitchat: { episodes: 2, reward_mean: 1, grade_mean: 0.55, agreement: 0.5 },
          product_qa: { episodes: 6, reward_mean: 0.51, grade_mean: 0.575, agreement: 0.666667 },
        },
        variant: { identity: { episodes: 8, reward_mean: 0.6325, grade_mean: 0.56875, agreement: 0.625 } },
      },
      // Largest |reward - grade| first: 0.88, 0.8, 0.4.
      disagreements: [
        episode({
          episode: 'flawed-401',
          intent: 'product_qa',
          locale: 'en',
          grade: 0.9,
          verdict: 'air',
          reward: 0.02,
          flawed: true,
          false_negative: true,
          reasons: FLAWED_401_REASONS,
        }),
        episode({
          episode: 'eval-302',
          intent: 'chitchat',
          locale: 'zh-CN',
          grade: 0.2,
          verdict: 'block',
          reward: 1,
          false_positive: true,
          why: 'greets the viewer by a nickname they never used',
          reasons: ORACLE_CHAT_REASONS,
        }),
        episode({
          episode: 'eval-400',
          intent: 'product_qa',
          locale: 'en',
          grade: 0.6,
          verdict: 'fix',
          reward: 1,
          reasons: ORACLE_QA_REASONS,
        }),
      ],
      // Every graded episode with a record, in the grades file's order (ghost has none).
      scored: [
        { episode: 'eval-300', reward: 1, grade: 1 },
        { episode: 'eval-301', reward: 1, grade: 0.9 },
        { episode: 'eval-302', reward: 1, grade: 0.2 },
        { episode: 'eval-400', reward: 1, grade: 0.6 },
        { episode: 'eval-401', reward: 1, grade: 0.85 },
        { episode: 'flawed-300', reward: 0.02, grade: 0 },
        { episode: 'flawed-400', reward: 0.02, grade: 0.1 },
        { episode: 'flawed-401', reward: 0.02, grade: 0.9 },
      ],
      thresholds: DEFAULT_THRESHOLDS,
      failures: ['agreement 62.5% < 90.0%', 'false negatives 25.0% > 5.0%', 'false positives 33.3% > 5.0%'],
    });
  });

  it('applies the thresholds it is given: the flawed mean, boundaries that hold at equality, the tolerance', () => {
    const corpus = [...records, ...flawed];
    const run = (t: Partial<typeof DEFAULT_THRESHOLDS>) =>
      calibrate(corpus, GRADES, DEFAULT_PROFILE, defaultRegistry(), { thresholds: { ...DEFAULT_THRESHOLDS, ...t } });
    expect(run({ max_flawed_mean: 0.01 }).failures).toEqual([
      'agreement 62.5% < 90.0%',
      'false negatives 25.0% > 5.0%',
      'false positives 33.3% > 5.0%',
      "flawed replies' mean 0.02 > 0.01",
    ]);
    // Each figure exactly at its threshold passes.
    expect(run({ min_agreement: 0.625, max_false_negatives: 0.25, max_false_positives: 0.333333, max_flawed_mean: 0.02 }).failures).toEqual(
      [],
    );
    // eval-400 (reward 1, grade 0.6) is 0.4 off: within a tolerance of 0.4, and no longer a disagreement.
    const wide = run({ tolerance: 0.4 });
    expect({ agreement: wide.agreement, disagreements: wide.disagreements.map((d) => d.episode) }).toEqual({
      agreement: 0.75,
      disagreements: ['flawed-401', 'eval-302'],
    });
  });

  it('fails an empty match: no graded episode has a record', () => {
    const report = calibrate(records, [{ episode: 'ghost', grade: 1, verdict: 'air' }], DEFAULT_PROFILE, defaultRegistry());
    expect({
      episodes: report.episodes,
      graded_without_record: report.graded_without_record,
      records_without_grade: report.records_without_grade,
      spearman: report.spearman,
      flawed: report.flawed,
      scored: report.scored,
      failures: report.failures,
    }).toEqual({
      episodes: 0,
      graded_without_record: ['ghost'],
      records_without_grade: 6,
      spearman: 0,
      flawed: { episodes: 0, reward_mean: null },
      scored: [],
      failures: ['no graded episode has a record', 'agreement 0.0% < 90.0%'],
    });
  });

  it('with rekey plays the recorded actions again: an edited trace does not count, and an episode the actions no longer end is stale (left out, named)', () => {
    const cut = structuredClone(byId('eval-300'));
    cut.record.episode_id = 'cut-300';
    cut.record.steps = cut.record.steps.slice(0, -1);
    const grades: Grade[] = [
      { episode: 'eval-300', grade: 1, verdict: 'air' },
      { episode: 'flawed-300', grade: 0, verdict: 'block', flawed: true },
      { episode: 'cut-300', grade: 1, verdict: 'air' },
    ];
    const report = calibrate([...records, ...flawed, cut], grades, DEFAULT_PROFILE, defaultRegistry(), { rekey: true });
    expect({
      rewards: report.disagreements.map((d) => [d.episode, d.reward, d.reasons.length]),
      scored: report.scored,
      stale: report.stale,
      flawed: report.flawed,
      failures: report.failures,
    }).toEqual({
      // flawed-300's actions are the oracle's: played again, they earn 1.0 whatever its stored trace says.
      rewards: [['flawed-300', 1, 5]],
      scored: [
        { episode: 'eval-300', reward: 1, grade: 1 },
        { episode: 'flawed-300', reward: 1, grade: 0 },
      ],
      stale: [{ episode: 'cut-300', why: 'the recorded actions no longer end the episode' }],
      flawed: { episodes: 1, reward_mean: 1 },
      failures: ['agreement 50.0% < 90.0%', 'false positives 100.0% > 5.0%', "flawed replies' mean 1 > 0.3"],
    });
    // A record whose question the generator no longer asks is stale too, and so is one whose reply the
    // hooks now judge by other rules (a required ending it did not know).
    const asked = structuredClone(byId('eval-300'));
    asked.record.episode_id = 'asked-300';
    asked.record.source_task = { ...asked.record.source_task, messages: ['a question the generator never asked'] };
    const ruled = structuredClone(byId('eval-300'));
    ruled.record.episode_id = 'ruled-300';
    ruled.record.trace = { ...ruled.record.trace, required_ending: 'Thanks for watching!' };
    const again = calibrate(
      [asked, ruled],
      [
        { episode: 'asked-300', grade: 1, verdict: 'air' },
        { episode: 'ruled-300', grade: 1, verdict: 'air' },
      ],
      DEFAULT_PROFILE,
      defaultRegistry(),
      { rekey: true },
    );
    expect(again.episodes).toBe(0);
    expect(again.stale.map((x) => [x.episode, x.why.slice(0, 50)])).toEqual([
      ['asked-300', 'the generator now asks another question for this s'],
      ['ruled-300', 'the rules the reply was judged by changed (recorde'],
    ]);
  });

  it('formats the report as the command prints it', () => {
    const report = calibrate([...records, ...flawed], GRADES, DEFAULT_PROFILE, defaultRegistry());
    const indent = (lines: string[]) => lines.map((l) => `      ${l}`);
    expect(formatCalibration(report).split('\n')).toEqual([
      'calibrate: profile default, 8 graded episodes',
      '  agreement (|reward - grade| <= 0.2): 62.5%   false negatives: 1 (25.0% of grade >= 0.8)   false positives: 1 (33.3% of grade <= 0.3)',
      '  Spearman rank correlation: 0.453456   reward mean 0.6325   grade mean 0.56875',
      '  flawed replies: 3, reward mean 0.02',
      '  by locale:',
      '    en               n=  4  reward 0.510  grade 0.613  agreement 50.0%',
      '    zh-CN            n=  4  reward 0.755  grade 0.525  agreement 75.0%',
      '  by intent:',
      '    chitchat         n=  2  reward 1.000  grade 0.550  agreement 50.0%',
      '    product_qa       n=  6  reward 0.510  grade 0.575  agreement 66.7%',
      '  by variant:',
      '    identity         n=  8  reward 0.632  grade 0.569  agreement 62.5%',
      '  graded but not in the records: ghost',
      '  disagreements (3, largest first; --all shows every one):',
      '  - flawed-401: reward 0.02 vs grade 0.9 (air, flawed)',
      ...indent(FLAWED_401_REASONS),
      '  - eval-302: reward 1 vs grade 0.2 (block) — reviewer: greets the viewer by a nickname they never used',
      ...indent(ORACLE_CHAT_REASONS),
      '  - eval-400: reward 1 vs grade 0.6 (fix)',
      ...indent(ORACLE_QA_REASONS),
      'calibrate: FAIL (agreement 62.5% < 90.0%; false negatives 25.0% > 5.0%; false positives 33.3% > 5.0%)',
    ]);
  });
});

/** Write grades as JSON Lines into a fresh directory; returns the file. */
function gradesFile(grades: readonly Grade[], name = 'grades.jsonl', dir = tempDir('hg-calibrate-grades-')): string {
  const file = join(dir, name);
  writeFileSync(file, grades.map((g) => JSON.stringify(g)).join('\n') + '\n');
  return file;
}

describe('harness-gym calibrate DIR --grades FILE', () => {
  const oracleGrades: Grade[] = [
    { episode: 'eval-300', grade: 1, verdict: 'air' },
    { episode: 'eval-301', grade: 0.9, verdict: 'air' },
    { episode: 'eval-400', grade: 0.85, verdict: 'air' },
    { episode: 'eval-402', grade: 1, verdict: 'air' },
  ];

  it('exits 0 when the reward agrees with the grades', async () => {
    const r = await cli(['calibrate', oracleDir, '--grades', gradesFile(oracleGrades)]);
    expect({ status: r.status, stderr: r.stderr, first: r.stdout.split('\n')[0], last: r.stdout.trimEnd().split('\n').at(-1) }).toEqual({
      status: 0,
      stderr: '',
      first: 'calibrate: profile default, 4 graded episodes',
      last: 'calibrate: pass',
    });
  });

  it('exits 1 when the calibration fails, one line on stderr and the report on stdout', async () => {
    const grades: Grade[] = [...oracleGrades, { episode: 'eval-302', grade: 0.1, verdict: 'block' }];
    const r = await cli(['calibrate', oracleDir, '--grades', gradesFile(grades), '--json']);
    expect(expectFailure(r, 1, 'calibrate')).toBe(
      'harness-gym calibrate: the calibration of profile "default" failed: agreement 80.0% < 90.0%; false positives 100.0% > 5.0% (details on stdout)',
    );
    const report = JSON.parse(r.stdout) as { episodes: number; false_positives: number; failures: string[] };
    expect([report.episodes, report.false_positives, report.failures]).toEqual([
      5,
      1,
      ['agreement 80.0% < 90.0%', 'false positives 100.0% > 5.0%'],
    ]);
  });

  it('scores the recorded traces with --recorded-keys (flawed copies pass as graded) and the replayed actions without it (they fail)', async () => {
    const grades = gradesFile(flawed.map((f): Grade => ({ episode: f.record.episode_id, grade: 0, verdict: 'block', flawed: true })));
    const recorded = await cli(['calibrate', flawedDir, '--grades', grades, '--recorded-keys', '--json']);
    expect({ status: recorded.status, stderr: recorded.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(recorded.stdout)).toMatchObject({
      episodes: 3,
      reward_mean: 0.02,
      flawed: { episodes: 3, reward_mean: 0.02 },
      scored: flawed.map((f) => ({ episode: f.record.episode_id, reward: 0.02, grade: 0 })),
      failures: [],
    });
    const replayed = await cli(['calibrate', flawedDir, '--grades', grades]);
    expect(expectFailure(replayed, 1, 'calibrate')).toBe(
      'harness-gym calibrate: the calibration of profile "default" failed: agreement 0.0% < 90.0%; false positives 100.0% > 5.0%; ' +
        "flawed replies' mean 1 > 0.3 (details on stdout)",
    );
  });

  it('exits 4 for a bad grades file, naming FILE:LINE and the key', async () => {
    const dir = tempDir('hg-calibrate-grades-');
    const file = join(dir, 'grades.jsonl');
    writeFileSync(
      file,
      '{"episode":"eval-300","grade":1,"verdict":"air"}\n{"episode":"eval-301","grade":2,"verdict":"air"}\n{"episode":"eval-300","grade":1,"verdict":"air"}\n',
    );
    const r = await cli(['calibrate', oracleDir, '--grades', file]);
    expect(expectFailure(r, 4, 'calibrate')).toBe(
      `harness-gym calibrate: --grades ${file}: ${file}:2: grade: Too big: expected number to be <=1; ${file}:3: episode: "eval-300" is graded twice`,
    );
    expect(r.stdout).toBe('');
  });

  it('reads DIR/grades.jsonl by default, and exits 4 when there is none', async () => {
    const missing = await cli(['calibrate', oracleDir]);
    expect(expectFailure(missing, 4, 'calibrate')).toBe(
      `harness-gym calibrate: no grades file at ${join(oracleDir, 'grades.jsonl')}; give one with --grades FILE`,
    );
    gradesFile(oracleGrades, 'grades.jsonl', oracleDir);
    const r = await cli(['calibrate', oracleDir, '--json']);
    expect({ status: r.status, stderr: r.stderr, episodes: (JSON.parse(r.stdout) as { episodes: number }).episodes }).toEqual({
      status: 0,
      stderr: '',
      episodes: 4,
    });
  });
});

describe("the repository's graded corpus (calibration/corpus)", () => {
  it('the default profile agrees with its reviewers: agreement >= 90%, false negatives and positives <= 5%, flawed replies <= 0.3', () => {
    const dir = fileURLToPath(new URL('../../calibration/corpus', import.meta.url));
    const grades = readGrades(join(dir, 'grades.jsonl'));
    if (!grades.ok) throw new Error(grades.errors.join('\n'));
    const read = readRecords(dir);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.warnings).toEqual([]);
    const report = calibrate(read.result.records, grades.grades, DEFAULT_PROFILE, defaultRegistry(), { rekey: true });
    // The corpus's own shape: both locales, every intent at least 8 times, at least 40 flawed replies scored.
    expect(report.graded_without_record).toEqual([]);
    expect(report.episodes).toBeGreaterThanOrEqual(260);
    expect(Object.keys(report.slices.locale)).toEqual(['en', 'zh-CN']);
    expect(Object.values(report.slices.intent).every((s) => s.episodes >= 8)).toBe(true);
    expect(Object.keys(report.slices.intent)).toHaveLength(10);
    expect(report.flawed.episodes).toBeGreaterThanOrEqual(40);
    // Episodes the generator or the harness changed under are left out, named; most still count.
    expect(report.stale.length).toBeLessThanOrEqual(120);
    expect(report.episodes + report.stale.length).toBe(grades.grades.length);
    expect(report.failures).toEqual([]);
  });
});
