/**
 * The two vitest projects (vitest.config.ts, vitest.projects.ts): together they hold every test file
 * exactly once (so `npm test` still runs each), no unit file shows a socket, server, process, thread or
 * browser in its text or its test/ helpers, and the unit project runs under the guard that makes those throw.
 */
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';
import { IO_PATTERNS, showsIo, testFiles, UNIT_ALWAYS } from '../vitest.projects.js';

interface Project {
  test: { name: string; include: string[]; setupFiles?: string[] };
}

const projects = (config.test?.projects ?? []) as Project[];
const byName = new Map(projects.map((p) => [p.test.name, p.test]));

describe('the vitest projects', () => {
  it('are unit and integration, and hold every test file exactly once', () => {
    expect([...byName.keys()].sort()).toEqual(['integration', 'unit']);
    const listed = projects.flatMap((p) => p.test.include);
    expect([...listed].sort()).toEqual(testFiles());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('put in unit no file whose text or test/ helpers start I/O, and run it under the guard', () => {
    const unit = byName.get('unit');
    expect(unit?.setupFiles).toEqual(['test/unit-guard.ts']);
    expect(unit?.include.filter((f) => !UNIT_ALWAYS.includes(f) && showsIo(f))).toEqual([]);
    expect(unit?.include).toEqual(expect.arrayContaining(['test/unit-guard.test.ts', 'test/architecture.test.ts']));
  });

  it('sort a file by its test/ helpers too', () => {
    // test/cli/helpers.ts spawns the CLI; a file using it is integration even if its own text says nothing.
    expect(showsIo('test/cli/helpers.ts')).toBe(true);
    expect(IO_PATTERNS.some((re) => re.test("await cli(['eval'])"))).toBe(true);
    const integration = byName.get('integration')?.include ?? [];
    expect(integration).toEqual(expect.arrayContaining(['test/golden/golden.test.ts', 'test/clients/python.test.ts']));
  });
});
