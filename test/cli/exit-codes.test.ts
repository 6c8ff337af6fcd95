/**
 * "The first hour": every command fails with one line on stderr that says what went wrong and what to
 * do, and the exit code of its kind (cli/errors.ts EXIT, README "Exit codes"): 0 done (a closed stdout
 * too), 1 the answer is no, 2 usage, 3 network, 4 files, 5 the run failed, 70 internal. Real sockets:
 * servers and taken ports are made in this process on port 0.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../client/fixture.js';
import type { TestServer } from '../client/fixture.js';
import { EXIT, describeFailure } from '../../cli/errors.js';
import { CLI, ROOT, cli, expectFailure, tempDir } from './helpers.js';

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A port something else listens on. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

/** Run a command, read its first chunk of stdout, then close the pipe as `head` does. */
async function closedReader(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await new Promise<void>((r) => child.stdout.once('data', () => r()));
  child.stdout.destroy();
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, s) => r([c, s])));
  return { code, signal, stderr };
}

const MISSING_HINT =
  'give a directory of record files (*.hgrec, as `harness-gym serve --record DIR` or `harness-gym eval --record DIR` write them) or one such file';

let records: string;
let tokenServer: TestServer;
beforeAll(async () => {
  records = tempDir('hg-cli-rec-');
  tokenServer = await startTestServer({ token: 'the-token' });
  const r = await cli(['eval', '--episodes', '60', '--variant', 'train', '--record', records, '--json']);
  expect(r.status).toBe(0);
}, 120_000);
afterAll(async () => {
  await tokenServer.close();
});

describe('0: done', () => {
  it('--help and --version exit 0', async () => {
    const [help, version] = await Promise.all([cli(['eval', '--help']), cli(['--version'])]);
    expect([help.status, version.status]).toEqual([0, 0]);
    expect(help.stdout).toContain('--url <ws-url>');
    // It used to say only "in-process", though it takes --url.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('in-process, or through a running server with --url');
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a reader that closes stdout (inspect DIR | head) ends the command quietly with 0; so does any command', async () => {
    const runs = await Promise.all([closedReader(['inspect', records]), closedReader(['variants', 'list']), closedReader(['task', '--json'])]);
    for (const r of runs) expect(r).toEqual({ code: 0, signal: null, stderr: '' });
  }, 60_000);
});

describe('1: the command ran and the answer is no', () => {
  it('replay and inspect of an episode id that is not there', async () => {
    const [replay, inspect] = await Promise.all([cli(['replay', records, '--episode', 'nope']), cli(['inspect', records, '--episode', 'nope'])]);
    expect(expectFailure(replay, EXIT.verdict, 'replay')).toContain(`no episode "nope" in ${records}`);
    expect(expectFailure(inspect, EXIT.verdict, 'inspect')).toContain(`no episode "nope" in ${records}`);
  }, 60_000);
});

describe('2: usage', () => {
  it('a bad flag value names the flag, the value and what is accepted, without the help', async () => {
    const runs = await Promise.all([
      cli(['serve', '--port', 'abc']),
      cli(['serve', '--workers', '0.5']),
      cli(['serve', '--v8-pretenuring', 'offf']),
      cli(['serve', '--scheduling', 'steps-first']),
      cli(['eval', '--episodes', '0']),
      cli(['eval', '--policy', 'oracel']),
      cli(['eval', '--faults', '2']),
      cli(['variants', 'report', '--episodes', 'x']),
      cli(['task', '--locale', 'fr']),
    ]);
    const lines = [
      expectFailure(runs[0], EXIT.usage, 'serve'),
      expectFailure(runs[1], EXIT.usage, 'serve'),
      expectFailure(runs[2], EXIT.usage, 'serve'),
      expectFailure(runs[3], EXIT.usage, 'serve'),
      expectFailure(runs[4], EXIT.usage, 'eval'),
      expectFailure(runs[5], EXIT.usage, 'eval'),
      expectFailure(runs[6], EXIT.usage, 'eval'),
      expectFailure(runs[7], EXIT.usage, 'variants report'),
      expectFailure(runs[8], EXIT.usage, 'task'),
    ];
    expect(lines).toEqual([
      'harness-gym serve: --port must be an integer in [0, 65535], got "abc"',
      'harness-gym serve: --workers must be an integer in [0, 64] or "auto", got "0.5"',
      'harness-gym serve: --v8-pretenuring must be one of inherit, on, off, got "offf" (did you mean off?)',
      'harness-gym serve: --scheduling must be one of steps_first, arrival, got "steps-first" (did you mean steps_first?)',
      'harness-gym eval: --episodes must be an integer in [1, 1000000], got "0"',
      'harness-gym eval: --policy must be one of oracle, memorizer, random, got "oracel" (did you mean oracle?)',
      'harness-gym eval: --faults must be a number in [0, 1], got "2"',
      'harness-gym variants report: --episodes must be an integer in [1, 100000], got "x"',
      'harness-gym task: --locale must be one of zh-CN, en, got "fr"',
    ]);
  }, 60_000);

  it('commander errors are one line that points at --help', async () => {
    const runs = await Promise.all([
      cli(['eval', '--workers', '2']),
      cli(['evl']),
      cli(['rollout', '--url', 'ws://127.0.0.1:1/v1/env']),
      cli(['replay']),
      cli(['serve', '--port']),
      cli(['replay', 'a', 'b']),
      cli(['help', 'nope']),
    ]);
    expect(expectFailure(runs[6], EXIT.usage, '')).toBe('harness-gym: unknown command "nope"; see harness-gym --help');
    expect(expectFailure(runs[0], EXIT.usage, 'eval')).toBe('harness-gym eval: unknown option --workers; see harness-gym eval --help');
    expect(expectFailure(runs[1], EXIT.usage, '')).toBe('harness-gym: unknown command "evl" (did you mean eval?); see harness-gym --help');
    expect(expectFailure(runs[2], EXIT.usage, 'rollout')).toBe('harness-gym rollout: --base-url is required; see harness-gym rollout --help');
    expect(expectFailure(runs[3], EXIT.usage, 'replay')).toBe('harness-gym replay: missing the <path> argument; see harness-gym replay --help');
    expect(expectFailure(runs[4], EXIT.usage, 'serve')).toBe('harness-gym serve: --port needs a value; see harness-gym serve --help');
    expect(expectFailure(runs[5], EXIT.usage, 'replay')).toMatch(/too many arguments.*see harness-gym replay --help$/);
  }, 60_000);

  it('URLs, variants and combinations are checked before anything runs', async () => {
    const runs = await Promise.all([
      cli(['eval', '--url', 'http://127.0.0.1:8080']),
      cli(['eval', '--variant', 'trian']),
      cli(['eval', '--variant', '{"families":["tool"],"intensity":0.3}']),
      cli(['eval', '--record-sample', '0.5']),
      cli(['eval', '--token', 't']),
      // Checked before connecting: nothing listens at this --url, and the answer is still the usage error.
      cli(['rollout', '--url', 'ws://127.0.0.1:1/v1/env', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--variant', 'trian']),
      cli(['eval', '--variant', '[1]']),
    ]);
    expect(expectFailure(runs[0], EXIT.usage, 'eval')).toContain('(did you mean ws://127.0.0.1:8080/v1/env?)');
    expect(expectFailure(runs[1], EXIT.usage, 'eval')).toContain('got "trian" (did you mean train?)');
    expect(expectFailure(runs[2], EXIT.usage, 'eval')).toContain('invalid variant spec: families.0');
    expect(expectFailure(runs[3], EXIT.usage, 'eval')).toBe('harness-gym eval: --record-sample needs --record DIR');
    expect(expectFailure(runs[4], EXIT.usage, 'eval')).toContain('--token needs --url');
    expect(expectFailure(runs[5], EXIT.usage, 'rollout')).toContain('got "trian" (did you mean train?)');
    expect(expectFailure(runs[6], EXIT.usage, 'eval')).toContain('a VariantSpec must be a JSON object');
  }, 60_000);
});

describe('3: network', () => {
  it('eval --url with nothing listening: one line, not the client stack', async () => {
    const port = await closedPort();
    const r = await cli(['eval', '--url', `ws://127.0.0.1:${port}/v1/env`, '--episodes', '2']);
    expect(expectFailure(r, EXIT.network, 'eval')).toContain(`cannot connect to ws://127.0.0.1:${port}/v1/env: nothing is listening there`);
    expect(r.stderr).not.toContain('HarnessGymError');
  });

  it('eval --url of the server but not its WebSocket path', async () => {
    const r = await cli(['eval', '--url', `ws://127.0.0.1:${tokenServer.port}/`, '--episodes', '2']);
    expect(expectFailure(r, EXIT.network, 'eval')).toContain(`HTTP 404 instead of a WebSocket; harness-gym serves it at ws://127.0.0.1:${tokenServer.port}/v1/env`);
  });

  it('eval --url wss:// of a server that speaks ws://', async () => {
    const wss = tokenServer.url.replace(/^ws:/, 'wss:');
    const r = await cli(['eval', '--url', wss, '--episodes', '2']);
    expect(expectFailure(r, EXIT.network, 'eval')).toBe(`harness-gym eval: cannot connect to ${wss}: the server does not speak TLS; harness-gym serve listens on ${tokenServer.url}`);
  });

  it('serve and view on a port in use; serve on a host that does not resolve', async () => {
    const { port, server } = await takenPort();
    try {
      const [serve, view, host] = await Promise.all([
        cli(['serve', '--port', String(port), '--workers', '0']),
        cli(['view', records, '--port', String(port)]),
        cli(['serve', '--host', 'no-such-host.invalid', '--port', '0', '--workers', '0']),
      ]);
      expect(expectFailure(serve, EXIT.network, 'serve')).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(expectFailure(view, EXIT.network, 'view')).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(expectFailure(host, EXIT.network, 'serve')).toContain('host no-such-host.invalid not found');
      expect(serve.stderr + view.stderr).not.toContain('EADDRINUSE:');
      // 192.0.2.1 (TEST-NET-1, RFC 5737) is an address of no machine.
      const other = await cli(['serve', '--host', '192.0.2.1', '--port', '0', '--workers', '0']);
      expect(expectFailure(other, EXIT.network, 'serve')).toContain('192.0.2.1 is not an address of this machine');
    } finally {
      server.close();
    }
  }, 60_000);
});

describe('4: files', () => {
  it('a missing record input is the same line with the same code in every record command', async () => {
    const missing = join(tempDir('hg-cli-missing-'), 'no-such-dir');
    const runs = await Promise.all([
      cli(['replay', missing]),
      cli(['inspect', missing]),
      cli(['rescore', missing, '--rewards', 'examples/rewards/concise.yaml']),
      cli(['view', missing, '--port', '0']),
    ]);
    const commands = ['replay', 'inspect', 'rescore', 'view'];
    runs.forEach((r, i) => {
      expect(expectFailure(r, EXIT.files, commands[i])).toBe(`harness-gym ${commands[i]}: ${missing} does not exist: ${MISSING_HINT}`);
    });
  }, 60_000);

  it('a directory without records, and a file that is not one', async () => {
    const empty = tempDir('hg-cli-empty-');
    const notRecord = join(empty, 'notes.hgrec');
    const [replayEmpty] = await Promise.all([cli(['replay', empty])]);
    expect(expectFailure(replayEmpty, EXIT.files, 'replay')).toBe(`harness-gym replay: ${empty} holds no record file: ${MISSING_HINT}`);
    writeFileSync(notRecord, 'plain text\n');
    const [inspect, view] = await Promise.all([cli(['inspect', notRecord]), cli(['view', notRecord, '--port', '0'])]);
    expect(expectFailure(inspect, EXIT.files, 'inspect')).toBe(`harness-gym inspect: ${notRecord} is not a record file: ${MISSING_HINT}`);
    expect(expectFailure(view, EXIT.files, 'view')).toBe(`harness-gym view: ${notRecord} is not a record file: ${MISSING_HINT}`);
  }, 60_000);

  it('config files: unreadable, malformed, an unknown key, an invalid default variant, a harness that is not one', async () => {
    const dir = tempDir('hg-cli-config-');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'limits:\n  max_bach: 3\n');
    const variant = join(dir, 'variant.json');
    writeFileSync(variant, JSON.stringify({ defaults: { variant: 'trian' } }));
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{');
    const harness = join(dir, 'harness.json');
    writeFileSync(harness, JSON.stringify({ harness: join(dir, 'no-harness') }));
    const runs = await Promise.all([
      cli(['serve', '--config', join(dir, 'none.yaml')]),
      cli(['serve', '--config', bad]),
      cli(['serve', '--config', variant]),
      cli(['serve', '--config', broken]),
      cli(['serve', '--config', harness, '--port', '0', '--workers', '0']),
      cli(['serve', '--harness', join(dir, 'no-harness'), '--port', '0', '--workers', '0']),
    ]);
    expect(expectFailure(runs[0], EXIT.files, 'serve')).toMatch(/--config .*none\.yaml: cannot read \(ENOENT/);
    expect(expectFailure(runs[1], EXIT.files, 'serve')).toBe(`harness-gym serve: --config ${bad}: limits.max_bach: unknown key`);
    expect(expectFailure(runs[2], EXIT.files, 'serve')).toContain('defaults.variant: unknown variant preset "trian"');
    expect(expectFailure(runs[3], EXIT.files, 'serve')).toContain(`--config ${broken}: `);
    // A harness directory that is not one: a file error naming it, not the server's internal guard (exit 70).
    expect(expectFailure(runs[4], EXIT.files, 'serve')).toBe(
      `harness-gym serve: harness ${join(dir, 'no-harness')} is not a valid harness directory: ${join(dir, 'no-harness')}: not a directory (a harness is a directory with harness.yaml, skills/, tools/, prompt.yaml and hooks.yaml)`,
    );
    expect(expectFailure(runs[5], EXIT.files, 'serve')).toMatch(new RegExp(`^harness-gym serve: --harness ${join(dir, 'no-harness')} is not a valid harness directory: `));
  }, 60_000);

  it('outputs that cannot be written fail before the work starts', async () => {
    const dir = tempDir('hg-cli-out-');
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    mkdirSync(join(dir, 'sub'));
    const runs = await Promise.all([
      cli(['eval', '--episodes', '2', '--record', file]),
      cli(['serve', '--port', '0', '--workers', '0', '--record', join(file, 'x')]),
      cli(['rollout', '--url', 'ws://127.0.0.1:1/v1/env', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--out', join(dir, 'sub')]),
    ]);
    expect(expectFailure(runs[0], EXIT.files, 'eval')).toBe(`harness-gym eval: --record ${file}: cannot write there (ENOTDIR); give a writable directory`);
    expect(expectFailure(runs[1], EXIT.files, 'serve')).toContain(`--record ${join(file, 'x')}: cannot write there`);
    // The rollout's --out is checked before it connects (nothing listens at its --url).
    expect(expectFailure(runs[2], EXIT.files, 'rollout')).toContain(`--out ${join(dir, 'sub')}: cannot write there (EISDIR)`);
  }, 60_000);

  it('an invalid reward profile', async () => {
    const dir = tempDir('hg-cli-profile-');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'x', modules: [{ name: 'nope', weight: 1 }] }));
    const r = await cli(['rescore', records, '--rewards', bad]);
    expect(expectFailure(r, EXIT.files, 'rescore')).toBe(`harness-gym rescore: --rewards ${bad}: modules[0].name: unknown reward module "nope" (known: accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection)`);
    const missing = join(dir, 'none.yaml');
    const none = await cli(['rescore', records, '--rewards', missing]);
    expect(expectFailure(none, EXIT.files, 'rescore')).toMatch(new RegExp(`^harness-gym rescore: --rewards ${missing}: cannot read \\(ENOENT`));
  }, 60_000);
});

describe('5: the run failed', () => {
  it('a server that refuses the token', async () => {
    const [none, wrong, env] = await Promise.all([
      cli(['eval', '--url', tokenServer.url, '--episodes', '2'], { env: { HARNESS_GYM_TOKEN: undefined } }),
      cli(['eval', '--url', tokenServer.url, '--episodes', '2', '--token', 'wrong']),
      cli(['eval', '--url', tokenServer.url, '--episodes', '2', '--json'], { env: { HARNESS_GYM_TOKEN: 'the-token' } }),
    ]);
    expect(expectFailure(none, EXIT.run, 'eval')).toContain(`${tokenServer.url} refused the session`);
    expect(expectFailure(wrong, EXIT.run, 'eval')).toContain("give the server's token with --token");
    expect(env.status).toBe(0);
    expect(JSON.parse(env.stdout)).toMatchObject({ policy: 'oracle', episodes: 2 });
  }, 60_000);
});

describe('5: every rollout episode failed', () => {
  it('rollout with an endpoint nothing listens at: exit 5, the reasons with counts on one line (test/rollout/cli-rollout-failures.test.ts has more)', async () => {
    const port = await closedPort();
    const r = await cli(['rollout', '--url', tokenServer.url, '--token', 'the-token', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '--episodes', '2', '--retries', '0']);
    expect(expectFailure(r, EXIT.run, 'rollout')).toMatch(/^harness-gym rollout: every episode failed \(2 of 2\): 2x endpoint: request failed: connect ECONNREFUSED/);
    expect(r.stdout).toContain('2 episodes, 0 completed, 2 failed');
  }, 60_000);
});

describe('70: internal', () => {
  it('an error no command foresaw is a bug, reported as one line that says how to get the stack', () => {
    const { exitCode, message } = describeFailure(new TypeError("Cannot read properties of undefined (reading 'x')\n    at f (a.js:1:1)"));
    expect(exitCode).toBe(EXIT.internal);
    expect(message).toBe(
      "internal error: Cannot read properties of undefined (reading 'x') at f (a.js:1:1) (a bug of harness-gym; HARNESS_GYM_DEBUG=1 prints the stack)",
    );
    // System errors of files and sockets are not bugs.
    expect(describeFailure(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', syscall: 'open' })).exitCode).toBe(EXIT.files);
    expect(describeFailure(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' })).exitCode).toBe(EXIT.network);
  });
});
