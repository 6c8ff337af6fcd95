/**
 * Hostile files on every file surface (issue 39, rows "big or broken task files", "big files elsewhere",
 * "special files", "encodings and names"), through the command line as a user meets them: each is
 * refused in one line naming the file and what is wrong (exit 4), or, for records, skipped with a
 * warning while the good files are read. Before the bounded reader (protocol/files.ts) these hung (a
 * FIFO), grew memory until killed (/dev/zero), overflowed the stack (100,000 bad task lines, a tool
 * nested 100,000 deep: exit 70), served a file from outside the harness, or accepted invalid UTF-8 and
 * names that differ only in case.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessDataDir, loadHarnessDir } from '../../harness/index.js';
import { RECORD_FORMAT, RECORD_VERSION, decodeRecordBytes, packValue } from '../../recording/index.js';
import { cli, expectFailure, tempDir } from './helpers.js';

/** A copy of the embedded harness's data files, then edited. */
function harnessCopy(edit: (dir: string) => void): string {
  const dir = join(tempDir('hg-hostile-'), 'h');
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  rmSync(join(dir, 'tasks'), { recursive: true, force: true });
  edit(dir);
  return dir;
}

function harnessErrors(dir: string): string[] {
  const r = loadHarnessDir(dir);
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.errors;
}

describe('harness directories', () => {
  it('refuse a skill linked to a file outside the directory', () => {
    const outside = tempDir('hg-outside-');
    const dir = harnessCopy((d) => {
      const skill = join(d, 'skills', 'zh-CN', 'chitchat.md');
      writeFileSync(join(outside, 'chitchat.md'), readFileSync(skill));
      rmSync(skill);
      symlinkSync(join(outside, 'chitchat.md'), skill);
    });
    expect(harnessErrors(dir)).toEqual([expect.stringMatching(/^skills\/zh-CN\/chitchat\.md: \(file\): a link to .*chitchat\.md, outside .*: only files inside the directory are read$/)]);
  });

  it('refuse a FIFO, a link to a FIFO and a link to /dev/zero without hanging or growing', async () => {
    const fifoHome = tempDir('hg-fifo-');
    execFileSync('mkfifo', [join(fifoHome, 'pipe')]);
    const dir = harnessCopy((d) => {
      execFileSync('mkfifo', [join(d, 'notes.txt')]);
      symlinkSync(join(fifoHome, 'pipe'), join(d, 'skills', 'zh-CN', 'piped.md'));
      symlinkSync('/dev/zero', join(d, 'tools', 'zero.json'));
    });
    const r = await cli(['harness', 'validate', dir], { timeoutMs: 30_000 });
    expect(r.signal).toBeNull();
    expectFailure(r, 4, 'harness validate');
    expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual([
      'notes.txt: (file): a FIFO (named pipe), not a regular file',
      expect.stringMatching(/^skills\/zh-CN\/piped\.md: \(file\): a link to .*pipe, outside .*: only files inside the directory are read$/),
      expect.stringMatching(/^tools\/zero\.json: \(file\): a link to \/dev\/zero, outside .*: only files inside the directory are read$/),
    ]);
  });

  it('refuse a harness.yaml over its size limit before parsing it', () => {
    const dir = harnessCopy((d) => appendFileSync(join(d, 'harness.yaml'), `# ${'x'.repeat(2 * 1024 * 1024)}\n`));
    expect(harnessErrors(dir)).toEqual(['harness.yaml: (file): too large (2 MiB; harness.yaml may have at most 1 MiB)']);
  });

  it('refuse a tool schema nested 100,000 deep as too deep, not a stack overflow', async () => {
    const dir = harnessCopy((d) => {
      const file = join(d, 'tools', 'check_stock.json');
      const tool = JSON.parse(readFileSync(file, 'utf8')) as { function: { parameters: { properties: Record<string, unknown> } } };
      tool.function.parameters.properties.deep = { type: 'object', default: 'DEEP' };
      writeFileSync(file, JSON.stringify(tool).replace('"DEEP"', '['.repeat(100_000) + ']'.repeat(100_000)));
    });
    const r = await cli(['harness', 'validate', dir]);
    expectFailure(r, 4, 'harness validate');
    expect(r.stdout).toBe('tools/check_stock.json: (file): nested too deep (more than 64 levels of objects and arrays)\n');
  });

  it('refuse invalid UTF-8 in a skill, naming the file and the byte', () => {
    const dir = harnessCopy((d) => {
      const file = join(d, 'skills', 'en', 'chitchat.md');
      const text = readFileSync(file);
      const at = text.indexOf('description: ') + 'description: '.length;
      writeFileSync(file, Buffer.concat([text.subarray(0, at), Buffer.from([0xc3, 0x28]), text.subarray(at)]));
    });
    const at = readFileSync(join(harnessDataDir(), 'skills', 'en', 'chitchat.md')).indexOf('description: ') + 'description: '.length;
    expect(harnessErrors(dir)).toEqual([`skills/en/chitchat.md: (file): not valid UTF-8 (byte ${at}): save it as UTF-8`]);
  });

  it('refuse two tool files whose names differ only in case', () => {
    const dir = harnessCopy((d) => {
      const tool = JSON.parse(readFileSync(join(d, 'tools', 'get_product.json'), 'utf8')) as { function: { name: string } };
      tool.function.name = 'Get_product';
      writeFileSync(join(d, 'tools', 'Get_product.json'), JSON.stringify(tool));
    });
    const errors = harnessErrors(dir);
    expect(errors.slice(0, 2)).toEqual([
      'tools/Get_product.json: (file): differs from get_product.json only in case: rename one (they are one file on macOS and Windows)',
      'tools/get_product.json: (file): differs from Get_product.json only in case: rename one (they are one file on macOS and Windows)',
    ]);
  });
});

describe('task files', () => {
  it('with 100,000 bad lines: the first errors with their lines, then a count (exit 4, no stack overflow)', async () => {
    const file = join(tempDir('hg-tasks-'), 'bad.jsonl');
    writeFileSync(file, 'x\n'.repeat(100_000));
    const r = await cli(['eval', '--tasks', file, '--episodes', '1']);
    const line = expectFailure(r, 4, 'eval');
    const bad = (n: number): string => `${file}:${n}: invalid JSON (Unexpected token 'x', "x" is not valid JSON)`;
    // Checking stops after 1,000 problems; the 1,001st line says so.
    expect(line).toBe(`harness-gym eval: --tasks: ${bad(1)}; ${bad(2)}; ${bad(3)}; ${bad(4)}; and 997 more`);
  });

  it('with a million lines: read a line at a time and stopped early, in bounded time and memory', async () => {
    const file = join(tempDir('hg-tasks-'), 'million.jsonl');
    writeFileSync(file, '{}\n'.repeat(1_000_000));
    const r = await cli(['eval', '--tasks', file, '--episodes', '1'], { timeoutMs: 30_000 });
    const line = expectFailure(r, 4, 'eval');
    expect(line).toMatch(new RegExp(`^harness-gym eval: --tasks: ${file}:1: id: `));
  });

  it('a FIFO, a device and invalid UTF-8 are refused in one line', async () => {
    const d = tempDir('hg-tasks-');
    execFileSync('mkfifo', [join(d, 'pipe.jsonl')]);
    writeFileSync(join(d, 'latin1.jsonl'), Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d, 0x0a]));
    expectFailure(await cli(['eval', '--tasks', join(d, 'pipe.jsonl'), '--episodes', '1'], { timeoutMs: 30_000 }), 4, 'eval');
    const fifo = await cli(['eval', '--tasks', join(d, 'pipe.jsonl'), '--episodes', '1'], { timeoutMs: 30_000 });
    expect(fifo.stderr).toBe(`harness-gym eval: --tasks: ${join(d, 'pipe.jsonl')}: a FIFO (named pipe), not a regular file: give a file\n`);
    const dev = await cli(['eval', '--tasks', '/dev/zero', '--episodes', '1'], { timeoutMs: 30_000 });
    expect(dev.stderr).toBe('harness-gym eval: --tasks: /dev/zero: a character device, not a regular file: give a file\n');
    const latin = await cli(['eval', '--tasks', join(d, 'latin1.jsonl'), '--episodes', '1']);
    expect(latin.stderr).toBe(`harness-gym eval: --tasks: ${join(d, 'latin1.jsonl')}:1: not valid UTF-8 (byte 7 of the line): save it as UTF-8\n`);
  });
});

describe('reward profiles and configs', () => {
  let records: string;
  beforeAll(async () => {
    records = tempDir('hg-hostile-rec-');
    const r = await cli(['eval', '--policy', 'oracle', '--episodes', '3', '--record', records, '--json']);
    expect(r.status).toBe(0);
  });

  it('a profile over its size limit is refused before it is parsed', async () => {
    const file = join(tempDir('hg-profile-'), 'big.json');
    writeFileSync(file, JSON.stringify({ name: 'big', modules: [], pad: 'x'.repeat(2 * 1024 * 1024) }));
    const r = await cli(['rescore', records, '--rewards', file]);
    expect(expectFailure(r, 4, 'rescore')).toContain(`${file}: too large (2 MiB; a reward profile may have at most 1 MiB)`);
  });

  it('a profile name in invalid UTF-8 is refused, not shown as U+FFFD', async () => {
    const file = join(tempDir('hg-profile-'), 'latin.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from('name: caf'), Buffer.from([0xe9]), Buffer.from('\nmodules:\n  - {name: accuracy, weight: 1}\n')]));
    const r = await cli(['rescore', records, '--rewards', file]);
    expect(expectFailure(r, 4, 'rescore')).toContain(`${file}: not valid UTF-8 (byte 9): save it as UTF-8`);
  });

  it('a config nested too deep, over its limit, or a FIFO is refused in one line', async () => {
    const d = tempDir('hg-config-');
    writeFileSync(join(d, 'deep.json'), `{"defaults": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    writeFileSync(join(d, 'big.yaml'), `# ${'x'.repeat(2 * 1024 * 1024)}\nport: 0\n`);
    execFileSync('mkfifo', [join(d, 'pipe.yaml')]);
    const deep = await cli(['serve', '--config', join(d, 'deep.json'), '--port', '0']);
    expect(expectFailure(deep, 4, 'serve')).toContain(`${join(d, 'deep.json')}: nested too deep (more than 64 levels of objects and arrays)`);
    const big = await cli(['serve', '--config', join(d, 'big.yaml'), '--port', '0']);
    expect(expectFailure(big, 4, 'serve')).toContain(`${join(d, 'big.yaml')}: too large (2 MiB; a config file may have at most 1 MiB)`);
    const fifo = await cli(['serve', '--config', join(d, 'pipe.yaml'), '--port', '0'], { timeoutMs: 30_000 });
    expect(expectFailure(fifo, 4, 'serve')).toContain(`${join(d, 'pipe.yaml')}: a FIFO (named pipe), not a regular file`);
  });
});

describe('record directories', () => {
  it('skip a FIFO and a link to /dev/zero named *.hgrec with a warning, and read the rest', async () => {
    const dir = tempDir('hg-hostile-rec-');
    const made = await cli(['eval', '--policy', 'oracle', '--episodes', '4', '--record', dir, '--json']);
    expect(made.status).toBe(0);
    const good = readdirSync(dir).filter((n) => n.endsWith('.hgrec'));
    expect(good).toHaveLength(1);
    execFileSync('mkfifo', [join(dir, 'a-pipe.hgrec')]);
    symlinkSync('/dev/zero', join(dir, 'b-zero.hgrec'));
    const r = await cli(['inspect', dir, '--json'], { timeoutMs: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
      `warning: ${join(dir, 'a-pipe.hgrec')}: a FIFO (named pipe), not a regular file (skipped)`,
      expect.stringMatching(new RegExp(`^warning: ${join(dir, 'b-zero.hgrec')}: a link to /dev/zero, outside .*: only files inside the directory are read \\(skipped\\)$`)),
    ]);
  });

  it('read a value nested 100,000 deep as a corrupt tail that says so, keeping the records before it', () => {
    const header = packValue({ type: 'header', format: RECORD_FORMAT, version: RECORD_VERSION, server_version: '0.0.0', created_by: 'eval' });
    const bytes = Buffer.concat([header, Buffer.alloc(100_000, 0x91), Buffer.from([0x01])]);
    const r = decodeRecordBytes(bytes, 'deep.hgrec');
    expect(r.headers).toHaveLength(1);
    expect(r.warnings).toEqual([`deep.hgrec: truncated or corrupt tail at byte ${header.length} (100001 bytes skipped; 0 complete records kept): a value nested too deep to read`]);
  });
});
