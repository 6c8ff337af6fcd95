/**
 * Server configuration: defaults, JSON and YAML files, flags over the file, and errors that name the key.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { defaultServerConfig, loadServerConfig, parseServerConfig } from '../../server/index.js';
import { flagsToOverrides, nodeSetsPretenuring } from '../../cli/commands/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'hg-config-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  seed: 0,
  token: null,
  allow_oracle_hints: false,
  allowed_hosts: [],
  allowed_origins: [],
  harness: null,
  tasks: [],
  limits: {
    max_batch: 256,
    max_episodes: 4096,
    max_frame_bytes: 4194304,
    max_turns: 12,
    max_errors: 6,
    idle_timeout_s: 600,
    resume_grace_s: 60,
    ping_interval_s: 20,
    replay_window: 64,
  },
  record: { dir: null, sample: 1, max_file_bytes: 67108864 },
  rewards: { profiles: [], module_dirs: [] },
  max_sessions: 256,
  log_level: 'info',
  workers: 0,
  worker_heap_mb: 'v8',
  v8_pretenuring: 'inherit',
  scheduling: 'steps_first',
  variant_pool: 256,
  backpressure: { send_high_water_bytes: 16777216, stall_timeout_s: 30, max_queued_requests: 64 },
};

describe('server config', () => {
  it('has the documented defaults, frozen', () => {
    const c = defaultServerConfig();
    expect(c).toEqual(DEFAULTS);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.limits)).toBe(true);
  });

  it('loads JSON and YAML files; flags override the file', () => {
    const json = file('a.json', JSON.stringify({ port: 9000, limits: { max_batch: 8 } }));
    expect(loadServerConfig({ file: json })).toEqual({
      ok: true,
      config: { ...DEFAULTS, port: 9000, limits: { ...DEFAULTS.limits, max_batch: 8 } },
    });
    const yaml = file('b.yaml', 'port: 9001\nlimits:\n  idle_timeout_s: 0\n');
    const r = loadServerConfig({ file: yaml, overrides: { port: 9002, limits: { max_batch: 4, replay_window: undefined } } });
    expect(r).toEqual({ ok: true, config: { ...DEFAULTS, port: 9002, limits: { ...DEFAULTS.limits, idle_timeout_s: 0, max_batch: 4 } } });
  });

  it('names the key path of every bad or unknown key', () => {
    const r = parseServerConfig({ port: 'x', limits: { max_bach: 1, max_frame_bytes: 1.5 }, extra: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(4);
    expect(r.errors.some((e) => e.startsWith('port: '))).toBe(true);
    expect(r.errors).toContain('limits.max_bach: unknown key');
    expect(r.errors.some((e) => e.startsWith('limits.max_frame_bytes: '))).toBe(true);
    expect(r.errors).toContain('extra: unknown key');
  });

  it('reports unreadable files, bad syntax and unknown extensions', () => {
    expect(loadServerConfig({ file: join(dir, 'missing.json') }).ok).toBe(false);
    const bad = loadServerConfig({ file: file('bad.json', '{') });
    expect(bad.ok).toBe(false);
    const ext = loadServerConfig({ file: file('c.toml', 'port = 1') });
    expect(ext).toEqual({ ok: false, errors: [expect.stringContaining('unknown config format')] });
    const list = loadServerConfig({ file: file('d.yaml', '- 1\n- 2\n') });
    expect(list.ok).toBe(false);
  });

  it('maps serve flags onto the config (and HARNESS_GYM_TOKEN when --token is absent)', () => {
    const o = flagsToOverrides(
      { port: '0', maxBatch: '3', allowOracleHints: true, logLevel: 'silent' },
      { HARNESS_GYM_TOKEN: 'env-token' },
    );
    const r = loadServerConfig({ overrides: o });
    expect(r).toEqual({
      ok: true,
      config: {
        ...DEFAULTS,
        port: 0,
        token: 'env-token',
        allow_oracle_hints: true,
        log_level: 'silent',
        limits: { ...DEFAULTS.limits, max_batch: 3 },
      },
    });
    const bad = loadServerConfig({ overrides: flagsToOverrides({ port: 'abc', token: 'flag' }, { HARNESS_GYM_TOKEN: 'env' }) });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.some((e) => e.startsWith('port: '))).toBe(true);
    const tok = loadServerConfig({ overrides: flagsToOverrides({ token: 'flag' }, { HARNESS_GYM_TOKEN: 'env' }) });
    expect(tok.ok && tok.config.token).toBe('flag');
  });

  it('takes --worker-heap-mb as MiB with workers, and refuses it with workers 0 naming the key', () => {
    const load = (workers: string, workerHeapMb: string) => loadServerConfig({ overrides: flagsToOverrides({ workers, workerHeapMb }) });
    expect(load('2', '640')).toMatchObject({ ok: true, config: { workers: 2, worker_heap_mb: 640 } });
    expect(load('auto', '64')).toMatchObject({ ok: true, config: { workers: 'auto', worker_heap_mb: 64 } });
    expect(load('0', '640')).toEqual({
      ok: false,
      errors: [
        'worker_heap_mb: needs workers (1..64 or "auto"); with workers 0 the episodes are on the main thread, whose heap limit is node --max-old-space-size',
      ],
    });
    // "auto" and "v8" (the default) are settings with any number of workers: with workers 0 they change nothing.
    expect(load('2', 'auto')).toMatchObject({ ok: true, config: { workers: 2, worker_heap_mb: 'auto' } });
    expect(load('0', 'auto')).toMatchObject({ ok: true, config: { workers: 0, worker_heap_mb: 'auto' } });
    expect(load('2', 'v8')).toMatchObject({ ok: true, config: { workers: 2, worker_heap_mb: 'v8' } });
    expect(load('0', 'v8')).toMatchObject({ ok: true, config: { workers: 0, worker_heap_mb: 'v8' } });
    expect(loadServerConfig({ overrides: flagsToOverrides({ workers: '0' }) })).toMatchObject({
      ok: true,
      config: { worker_heap_mb: 'v8' },
    });
    expect(parseServerConfig({ workers: 0, worker_heap_mb: null })).toMatchObject({ ok: true, config: { worker_heap_mb: null } });
    expect(load('2', '32')).toEqual({ ok: false, errors: [expect.stringMatching(/^worker_heap_mb: /)] });
    expect(load('2', 'lots')).toEqual({ ok: false, errors: [expect.stringMatching(/^worker_heap_mb: /)] });
  });

  it('takes --scheduling as steps_first or arrival, from a file or a flag, and refuses anything else naming the key', () => {
    const flag = (scheduling: string) => loadServerConfig({ overrides: flagsToOverrides({ scheduling }) });
    expect(flag('arrival')).toMatchObject({ ok: true, config: { scheduling: 'arrival' } });
    expect(flag('steps_first')).toMatchObject({ ok: true, config: { scheduling: 'steps_first' } });
    expect(flag('fifo')).toEqual({ ok: false, errors: [expect.stringMatching(/^scheduling: /)] });
    const yaml = file('s.yaml', 'scheduling: arrival\n');
    expect(loadServerConfig({ file: yaml })).toMatchObject({ ok: true, config: { scheduling: 'arrival' } });
    expect(loadServerConfig({ file: yaml, overrides: flagsToOverrides({ scheduling: 'steps_first' }) })).toMatchObject({
      ok: true,
      config: { scheduling: 'steps_first' },
    });
  });

  it("takes --v8-pretenuring as off, on or inherit, serve's base under the file, and refuses anything else naming the key", () => {
    const flag = (v8Pretenuring: string) => loadServerConfig({ overrides: flagsToOverrides({ v8Pretenuring }) });
    expect(flag('off')).toMatchObject({ ok: true, config: { v8_pretenuring: 'off' } });
    expect(flag('on')).toMatchObject({ ok: true, config: { v8_pretenuring: 'on' } });
    expect(flag('inherit')).toMatchObject({ ok: true, config: { v8_pretenuring: 'inherit' } });
    expect(flag('maybe')).toEqual({ ok: false, errors: [expect.stringMatching(/^v8_pretenuring: /)] });
    const json = file('p.json', JSON.stringify({ v8_pretenuring: 'on' }));
    expect(loadServerConfig({ base: { v8_pretenuring: 'off' }, file: json })).toMatchObject({ ok: true, config: { v8_pretenuring: 'on' } });
    expect(loadServerConfig({ base: { v8_pretenuring: 'off' } })).toMatchObject({ ok: true, config: { v8_pretenuring: 'off' } });
    // Node's own command line decides when it names the flag (serve's base is then "inherit").
    expect(nodeSetsPretenuring(['--allocation-site-pretenuring'])).toBe(true);
    expect(nodeSetsPretenuring(['--expose-gc', '--no-allocation_site_pretenuring'])).toBe(true);
    expect(nodeSetsPretenuring(['--max-old-space-size=512', '--cpu-prof'])).toBe(false);
  });

  it('takes --workers as a count or "auto", and serve\'s base default under the file', () => {
    const flags = (workers: string) => loadServerConfig({ overrides: flagsToOverrides({ workers }) });
    expect(flags('3')).toMatchObject({ ok: true, config: { workers: 3 } });
    expect(flags('auto')).toMatchObject({ ok: true, config: { workers: 'auto' } });
    const bad = flags('many');
    expect(bad).toEqual({ ok: false, errors: [expect.stringMatching(/^workers: /)] });
    // serve's base ("auto") sits under the file: a file's workers wins, and a flag wins over both.
    const json = file('w.json', JSON.stringify({ workers: 0 }));
    expect(loadServerConfig({ base: { workers: 'auto' }, file: json })).toMatchObject({ ok: true, config: { workers: 0 } });
    expect(loadServerConfig({ base: { workers: 'auto' } })).toMatchObject({ ok: true, config: { workers: 'auto' } });
    const flagged = loadServerConfig({
      base: { workers: 'auto' },
      file: json,
      overrides: flagsToOverrides({ workers: '2', sendBufferBytes: '1048576' }),
    });
    expect(flagged).toMatchObject({
      ok: true,
      config: { workers: 2, backpressure: { send_high_water_bytes: 1048576, stall_timeout_s: 30, max_queued_requests: 64 } },
    });
  });
});

describe('prototype keys (issue 39): never a configuration key, in a file, a base or an override', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hg-proto-'));

  it('a JSON file with "__proto__" is refused, naming the file and the key, and sets nothing', () => {
    const file = join(dir, 'proto.json');
    writeFileSync(file, '{"__proto__": {"limits": {"max_batch": 3}, "max_sessions": 2}}');
    expect(loadServerConfig({ file })).toEqual({
      ok: false,
      errors: [`${file}: __proto__: unknown key (a prototype key is never a configuration key)`],
    });
    // Nothing leaked into the defaults through a prototype.
    const d = defaultServerConfig();
    expect(d.max_sessions).toBe(256);
    expect(d.limits.max_batch).not.toBe(3);
  });

  it('a YAML file with a nested "constructor" key is refused with its path', () => {
    const file = join(dir, 'proto.yaml');
    writeFileSync(file, 'limits:\n  constructor:\n    max_batch: 3\n');
    expect(loadServerConfig({ file })).toEqual({
      ok: false,
      errors: [`${file}: limits.constructor: unknown key (a prototype key is never a configuration key)`],
    });
  });

  it('an override or a parsed object carrying "__proto__" as an own key is refused too', () => {
    const evil = JSON.parse('{"__proto__": {"max_sessions": 2}}') as Record<string, unknown>;
    expect(parseServerConfig(evil)).toEqual({ ok: false, errors: ['__proto__: unknown key (a prototype key is never a configuration key)'] });
    expect(loadServerConfig({ overrides: evil })).toEqual({ ok: false, errors: ['__proto__: unknown key (a prototype key is never a configuration key)'] });
  });

  it('harness-gym serve --config with a prototype key: exit 4 and one line', () => {
    const file = join(dir, 'serve-proto.json');
    writeFileSync(file, '{"__proto__": {"max_sessions": 2}}');
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '../../dist/cli/main.js'), 'serve', '--config', file, '--port', '0'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(4);
    expect(r.stderr).toBe(`harness-gym serve: --config ${file}: __proto__: unknown key (a prototype key is never a configuration key)\n`);
  });
});
