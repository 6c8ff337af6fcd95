/**
 * The one bounded file-reading path (protocol/files.ts, issue 39 "big files", "special files",
 * "encodings and names"): special files are refused without blocking, links out of a listed directory
 * are refused, sizes are checked before and while reading, text is UTF-8, lines are streamed, and
 * parsed values are measured for depth without recursion.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_LIMITS, FileProblem, depthProblem, listFiles, parseMessage, readBytes, readLines, readText, walkFiles } from '../../protocol/files.js';
import { tempDir } from '../cli/helpers.js';

const opts = { maxBytes: 1024, what: 'a test file' };

function problemOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FileProblem);
    return (e as FileProblem).message;
  }
  throw new Error('expected a FileProblem');
}

describe('readText / readBytes', () => {
  it('reads a regular file, dropping a byte-order mark', () => {
    const d = tempDir('hg-files-');
    writeFileSync(join(d, 'a.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('你好\n')]));
    expect(readText(join(d, 'a.txt'), opts)).toBe('你好\n');
    expect(readBytes(join(d, 'a.txt'), opts).length).toBe(10);
  });

  it('refuses a FIFO, a link to one and a device without blocking', () => {
    const d = tempDir('hg-files-');
    execFileSync('mkfifo', [join(d, 'pipe')]);
    symlinkSync(join(d, 'pipe'), join(d, 'to-pipe'));
    symlinkSync('/dev/zero', join(d, 'zero'));
    expect(problemOf(() => readText(join(d, 'pipe'), opts))).toBe(`${join(d, 'pipe')}: a FIFO (named pipe), not a regular file: give a file`);
    expect(problemOf(() => readText(join(d, 'to-pipe'), opts))).toBe(`${join(d, 'to-pipe')}: a FIFO (named pipe), not a regular file: give a file`);
    expect(problemOf(() => readBytes(join(d, 'zero'), opts))).toBe(`${join(d, 'zero')}: a character device, not a regular file: give a file`);
    expect(problemOf(() => readText(d, opts))).toBe(`${d}: a directory, not a regular file: give a file`);
  });

  it('refuses a file over its limit before reading it, and names the limit', () => {
    const d = tempDir('hg-files-');
    writeFileSync(join(d, 'big'), Buffer.alloc(2048, 0x61));
    expect(problemOf(() => readText(join(d, 'big'), opts))).toBe(`${join(d, 'big')}: too large (2 KiB; a test file may have at most 1 KiB)`);
  });

  it('refuses invalid UTF-8, naming the first bad byte', () => {
    const d = tempDir('hg-files-');
    writeFileSync(join(d, 'bad'), Buffer.concat([Buffer.from('name: ok'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]));
    expect(problemOf(() => readText(join(d, 'bad'), opts))).toBe(`${join(d, 'bad')}: not valid UTF-8 (byte 8): save it as UTF-8`);
    // A truncated multi-byte sequence at the end.
    writeFileSync(join(d, 'cut'), Buffer.from([0x61, 0xe4, 0xbd]));
    expect(problemOf(() => readText(join(d, 'cut'), opts))).toBe(`${join(d, 'cut')}: not valid UTF-8 (byte 1): save it as UTF-8`);
  });

  it('refuses a link out of the directory it was found in, and a dangling link', () => {
    const d = tempDir('hg-files-');
    const outside = tempDir('hg-files-out-');
    writeFileSync(join(outside, 'secret.md'), 'secret');
    mkdirSync(join(d, 'skills'));
    symlinkSync(join(outside, 'secret.md'), join(d, 'skills', 'x.md'));
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling'));
    expect(problemOf(() => readText(join(d, 'skills', 'x.md'), { ...opts, within: d }))).toMatch(/: a link to .*secret\.md, outside .*: only files inside the directory are read$/);
    // Without a directory to stay in (a path given on the command line), a link is followed.
    expect(readText(join(d, 'skills', 'x.md'), opts)).toBe('secret');
    expect(problemOf(() => readText(join(d, 'dangling'), opts))).toBe(`${join(d, 'dangling')}: a link to nothing (its target does not exist)`);
  });
});

describe('readLines', () => {
  it('streams numbered lines, CRLF or LF, across chunk boundaries, and flags long and non-UTF-8 lines', () => {
    const d = tempDir('hg-files-');
    const long = 'x'.repeat(300 * 1024);
    const body = Buffer.concat([
      Buffer.from(`a\r\n\n${long}\n`),
      Buffer.from('b'.repeat(200)),
      Buffer.from('\n'),
      Buffer.from([0x62, 0xc3]),
      Buffer.from('\nlast'),
    ]);
    writeFileSync(join(d, 'f.jsonl'), body);
    const lines = [...readLines(join(d, 'f.jsonl'), { maxBytes: 1024 * 1024, maxLineBytes: 1024, what: 'a task file' })];
    expect(lines).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: '' },
      { line: 3, problem: 'line too long (over 1 KiB; a line may have at most 1 KiB)' },
      { line: 4, text: 'b'.repeat(200) },
      { line: 5, problem: 'not valid UTF-8 (byte 1 of the line): save it as UTF-8' },
      { line: 6, text: 'last' },
    ]);
  });

  it('stops at the file limit with a FileProblem', () => {
    const d = tempDir('hg-files-');
    writeFileSync(join(d, 'f'), 'ab\n'.repeat(1000));
    expect(problemOf(() => [...readLines(join(d, 'f'), { maxBytes: 1024, maxLineBytes: 100, what: 'a task file' })])).toBe(
      `${join(d, 'f')}: too large (2.9 KiB; a task file may have at most 1 KiB)`,
    );
  });
});

describe('depthProblem', () => {
  it('measures 100,000 levels without a stack overflow', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(depthProblem(deep)).toBe(`nested too deep (more than ${FILE_LIMITS.max_depth} levels of objects and arrays)`);
    let ok: unknown = 1;
    for (let i = 0; i < FILE_LIMITS.max_depth; i++) ok = i % 2 === 0 ? [ok] : { k: ok };
    expect(depthProblem(ok)).toBeNull();
    expect(depthProblem([ok])).not.toBeNull();
  });

  it('reads a parser stack overflow as depth', () => {
    expect(parseMessage(new RangeError('Maximum call stack size exceeded at line 1'))).toMatch(/^nested too deep/);
    expect(parseMessage(new Error('Unexpected token\n  at x'))).toBe('Unexpected token');
  });
});

describe('listFiles / walkFiles', () => {
  it('refuses names that differ only in case, special files and links out', () => {
    const d = tempDir('hg-files-');
    const outside = tempDir('hg-files-out-');
    writeFileSync(join(outside, 'o.json'), '{}');
    writeFileSync(join(d, 'get_product.json'), '{}');
    writeFileSync(join(d, 'Get_product.json'), '{}');
    writeFileSync(join(d, 'ok.json'), '{}');
    execFileSync('mkfifo', [join(d, 'pipe.json')]);
    symlinkSync(join(outside, 'o.json'), join(d, 'out.json'));
    symlinkSync(join(d, 'ok.json'), join(d, 'same.json'));
    const entries = listFiles(d, (n) => n.endsWith('.json'));
    expect(entries.map((e) => [e.name, e.problem ?? null])).toEqual([
      ['Get_product.json', 'differs from get_product.json only in case: rename one (they are one file on macOS and Windows)'],
      ['get_product.json', 'differs from Get_product.json only in case: rename one (they are one file on macOS and Windows)'],
      ['ok.json', null],
      ['out.json', expect.stringMatching(/^a link to .*o\.json, outside /)],
      ['pipe.json', 'a FIFO (named pipe), not a regular file'],
      ['same.json', null],
    ]);
  });

  it('walks folders, refusing special files and links to folders', () => {
    const d = tempDir('hg-files-');
    mkdirSync(join(d, 'a', 'b'), { recursive: true });
    writeFileSync(join(d, 'a', 'b', 'f.txt'), 'x');
    writeFileSync(join(d, '.hidden'), 'x');
    symlinkSync(join(d, 'a'), join(d, 'loop'));
    symlinkSync('/dev/zero', join(d, 'zero'));
    expect(walkFiles(d)).toEqual({
      files: ['a/b/f.txt'],
      problems: ['loop: a link to a folder: give the folder itself', 'zero: a link to /dev/zero, outside ' + d + ': only files inside the directory are read'],
    });
  });
});
