/**
 * The learning proof's report and merge (examples/learning-proof/learn.py `report`, `merge`): the figures in
 * its README come from the committed results.json alone. `report` rewrites table.md and paired.txt byte
 * for byte; `merge` joins runs of one recipe made on other training seeds. Checked by splitting the
 * committed results into two sources by seed and merging them back: the table is the committed one, and
 * merging runs of other settings, or a seed whose rewards disagree, is refused in one line with exit 2.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const PYTHON = '/usr/bin/python3';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(ROOT, 'examples/learning-proof/results');
const dir = mkdtempSync(join(tmpdir(), 'hg-learning-report-'));
/** The training seeds of the committed results. */
const SEEDS = Object.keys((JSON.parse(readFileSync(join(RESULTS, 'results.json'), 'utf8')) as { runs: { fixed: object } }).runs.fixed).sort(
  (a, b) => Number(a) - Number(b),
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function learn(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, ['examples/learning-proof/learn.py', ...args], { cwd: ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

type Results = { config: Record<string, unknown>; runs: Record<'fixed' | 'hsa', Record<string, unknown>>; [k: string]: unknown };

/** The committed results with only `seeds` kept, written to `dir/name/results.json`. */
function part(name: string, seeds: string[], edit: (r: Results) => void = () => {}): string {
  const r = JSON.parse(readFileSync(join(RESULTS, 'results.json'), 'utf8')) as Results;
  for (const run of ['fixed', 'hsa'] as const) r.runs[run] = Object.fromEntries(Object.entries(r.runs[run]).filter(([s]) => seeds.includes(s)));
  edit(r);
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'results.json'), JSON.stringify(r));
  return out;
}

describe('learning proof, report and merge', () => {
  it('report rewrites the committed table.md and paired.txt byte for byte', async () => {
    const out = part('all', SEEDS);
    const run = await learn(['report', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    for (const f of ['table.md', 'paired.txt']) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(RESULTS, f), 'utf8'));
  });

  it('merge of the first seeds and the rest gives the committed table; a seed in both sources is taken once', async () => {
    expect(SEEDS.length).toBeGreaterThanOrEqual(3);
    const a = part('a', SEEDS.slice(0, 2));
    const b = part('b', SEEDS.slice(1));
    const out = join(dir, 'merged');
    const run = await learn(['merge', '--out', out, a, b]);
    expect(run.code, run.stderr).toBe(0);
    for (const f of ['table.md', 'paired.txt']) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(RESULTS, f), 'utf8'));
  });

  it('merge refuses other settings and disagreeing seeds, in one line, exit 2', async () => {
    const a = part('c', ['1']);
    const lr = part('d', ['2'], (r) => {
      r.config.lr = 1.0;
    });
    const refused = await learn(['merge', '--out', join(dir, 'x'), a, lr]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`merge: ${lr} was run with other settings than ${a}\n`);
    const other = part('e', ['1'], (r) => {
      const run = r.runs.hsa['1'] as { eval: Record<string, { rewards: number[] }> };
      run.eval.eval.rewards[0] += 0.5;
    });
    const differs = await learn(['merge', '--out', join(dir, 'y'), a, other]);
    expect(differs.code).toBe(2);
    expect(differs.stderr).toBe('merge: seed 1 of the hsa run differs between sources\n');
    const bad = join(dir, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'results.json'), JSON.stringify({ config: {} }));
    const malformed = await learn(['merge', '--out', join(dir, 'w'), bad, a]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe("merge: a results.json is not one learn.py full wrote (missing or malformed 'mix')\n");
    const one = await learn(['merge', '--out', join(dir, 'z'), a]);
    expect(one.code).toBe(2);
    expect(one.stderr).toBe('merge: give two or more result directories after the mode\n');
  });
});
