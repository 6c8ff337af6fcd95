import { describe, it, expect } from 'vitest';
import { applyV8Flags, pretenuringFlag } from '../../server/v8-flags.js';

describe('V8 flags of a server config', () => {
  it('sets the pretenuring flag a setting names, once, and nothing for "inherit"', () => {
    const calls: string[] = [];
    const set = (f: string): void => {
      calls.push(f);
    };
    expect(applyV8Flags({ v8_pretenuring: 'inherit' }, set)).toEqual([]);
    expect(calls).toEqual([]);
    expect(applyV8Flags({ v8_pretenuring: 'off' }, set)).toEqual(['--no-allocation-site-pretenuring']);
    expect(applyV8Flags({ v8_pretenuring: 'on' }, set)).toEqual(['--allocation-site-pretenuring']);
    expect(calls).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring']);
    expect([pretenuringFlag('inherit'), pretenuringFlag('off'), pretenuringFlag('on')]).toEqual([
      null,
      '--no-allocation-site-pretenuring',
      '--allocation-site-pretenuring',
    ]);
  });

  it('names flags V8 knows: node accepts them on its command line', async () => {
    // A misspelt flag would be ignored by setFlagsFromString without a word; node's command line refuses it.
    const { execFileSync } = await import('node:child_process');
    for (const flag of ['--no-allocation-site-pretenuring', '--allocation-site-pretenuring']) {
      expect(execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' })).toBe('ok');
    }
    expect(() => execFileSync(process.execPath, ['--no-allocation-site-pretenuringx', '-e', '0'], { stdio: 'pipe' })).toThrow();
  });
});
