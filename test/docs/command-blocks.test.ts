/**
 * Every command block of the README and of the docs a reader is sent to from it is run as written (issue
 * 41: stale text must fail CI). The docs: README.md, the pages its "Where to start, by role" section
 * links, docs/GRPO.md, the adapter pages docs/training/*.md and examples/*\/README.md (`DOCS` below).
 *
 * Which fences are commands:
 * - a fence tagged `sh`, `bash`, `shell` or `console`;
 * - a `text` or untagged fence whose first line starts with `$ ` (a transcript): each `$ ` line is run,
 *   stderr with stdout, the lines up to the next `$ ` are its output and `(exit N)` its exit code.
 * A `text` or untagged fence that starts with a command (`harness-gym`, `npx`, `node`, `python`, `npm`,
 * `pip`, `docker`, `kubectl`, ...) fails: tag it `sh`, so that it is run. Code (`python`, `ts`, `js`),
 * data (`json`, `yaml`, `toml`) and output fences are not commands.
 *
 * Every command block is run, or marked right above it (HTML comments and blank lines between are
 * allowed) with `<!-- docs-test: skip (REASON) -->`, REASON saying why CI cannot run it (docker, kubectl,
 * a GPU trainer, root, a registry). The skips are counted in `SKIPS`, so adding one is a visible change.
 *
 * How a block runs: as one bash script (`set -eo pipefail`), in a directory made for its doc (the blocks
 * of a doc run in order and share it, as a reader's shell would) holding links to the repository's
 * top-level entries, a copy of `examples/` and `clients/` (commands that write there write the copy, and
 * a file of `examples/` a block rewrites must come out byte-identical), `my-harness` (a copy of the
 * embedded harness/, as docs/HARNESS.md starts one) and `server.yaml` (a config file of the reader's).
 * HOME is a fresh directory. On PATH, `harness-gym` and `npx harness-gym` are this checkout's
 * dist/cli/main.js (through test/docs/doc-shell.mjs), `npx tsx` the repository's tsx, `python3` and
 * `python` /usr/bin/python3 with clients/python on PYTHONPATH (a venv a block activates comes first),
 * `less` cat.
 * - Ports: the docs' ports (8080, 8000, 8001, 8081-8083, 8090) are replaced with free ones. A `serve`,
 *   `policy` or `view` in the foreground is a server in another shell: it is put in the background. After
 *   each line that leaves a job in the background, the script waits until the job listens.
 * - A port the block uses and starts nothing on gets a server started by the test on port 0: `serve
 *   --allow-oracle-hints` for a WebSocket URL, `policy` for `--base-url ... --model NAME` (NAME the
 *   policy, or the memorizer standing in for a model NAME that is not a policy).
 * - Exit codes: every line must exit 0, or the code its comment names (`exit 1 when anything did`: 0 or 1).
 * - Output: a `text` fence right after the block is its output, line for line (blank lines aside; `…`
 *   stands for any text, e.g. a hash). A comment stating a figure of a line's output (`# mean 0.0184`
 *   starting it, or shown output `# {"episodes": 64, "mean_reward": 1.0, ...}` on the line or on a
 *   following `# ...` line) must be what the line prints, to the digits shown.
 * - Commands that only read and print run once per test run and are shared by the docs (doc-shell.mjs).
 * Every server a block or the test starts is stopped (the block's process group, by its leader's PID).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../cli/helpers.js';

/** The docs whose command blocks run: the README, the pages its role section links, and their neighbours. */
function docs(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Where to start, by role\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 4));
  const linked = [...section.matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1] as string);
  const dir = (d: string, f: (n: string) => string | undefined): string[] =>
    readdirSync(join(ROOT, d))
      .map(f)
      .filter((p): p is string => p !== undefined && existsSync(join(ROOT, p)))
      .sort();
  return [
    ...new Set([
      'README.md',
      ...linked,
      'docs/GRPO.md',
      ...dir('docs/training', (n) => (n.endsWith('.md') ? `docs/training/${n}` : undefined)),
      ...dir('examples', (n) => `examples/${n}/README.md`),
    ]),
  ];
}
const DOCS = docs();

/** The blocks marked `docs-test: skip`, per doc: a new skip changes this table. */
const SKIPS: Record<string, number> = {
  'README.md': 2,
  'CONTRIBUTING.md': 1,
  'docs/DEPLOY.md': 6,
  'docs/CURRICULUM.md': 1,
  'docs/HARNESS.md': 1,
  'docs/TRAINING.md': 1,
  'clients/python/README.md': 3,
  'docs/training/openrlhf.md': 1,
  'docs/training/verifiers.md': 1,
  'docs/training/verl.md': 2,
  'examples/learning-proof/README.md': 1,
};

const COMMAND_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
const COMMAND_START = /^(\$ |harness-gym |npx |npm |node |python3? |pip |docker |kubectl |haproxy |apt-get |curl )/;
const DOC_PORTS = ['8080', '8000', '8001', '8081', '8082', '8083', '8090'];

/** A fenced command block of a doc. */
interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  body: string;
  /** `docs-test: skip (REASON)`'s REASON. */
  skip?: string;
  /** The `text` fence right after it: the output shown. */
  output?: string;
}

/** Every fence of a doc, with its language and the text between the fence and the previous fence. */
function fences(text: string): { line: number; lang: string; body: string; before: string[]; after: string[] }[] {
  const lines = text.split('\n');
  const out: { line: number; lang: string; body: string; before: string[]; after: string[]; end: number }[] = [];
  let open: { line: number; lang: string; indent: number } | undefined;
  let body: string[] = [];
  let lastEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)```(\S*)\s*$/.exec(lines[i] as string);
    if (!m) {
      if (open) body.push((lines[i] as string).slice(Math.min(open.indent, /^\s*/.exec(lines[i] as string)?.[0].length ?? 0)));
      continue;
    }
    if (!open) {
      open = { line: i + 1, lang: m[2] as string, indent: (m[1] as string).length };
      body = [];
    } else if (m[2] === '') {
      out.push({
        line: open.line,
        lang: open.lang,
        body: body.join('\n'),
        before: lines.slice(lastEnd, open.line - 1),
        after: [],
        end: i + 1,
      });
      lastEnd = i + 1;
      open = undefined;
    }
  }
  for (let k = 0; k < out.length; k++) {
    const next = out[k + 1];
    out[k]!.after = lines.slice(out[k]!.end, next ? next.line - 1 : lines.length);
  }
  return out;
}

/** The command blocks of a doc; throws on a fence that holds commands but is not tagged as such. */
function commandBlocks(doc: string): Block[] {
  const fs = fences(readFileSync(join(ROOT, doc), 'utf8'));
  const blocks: Block[] = [];
  fs.forEach((f, k) => {
    const first = f.body.split('\n').find((l) => l.trim() !== '') ?? '';
    const transcript = (f.lang === 'text' || f.lang === '') && first.startsWith('$ ');
    if (!COMMAND_LANGS.has(f.lang) && !transcript) {
      if ((f.lang === 'text' || f.lang === '') && COMMAND_START.test(first))
        throw new Error(`${doc}:${f.line}: a fence of commands tagged "${f.lang}": tag it sh so that it is run`);
      return;
    }
    // The marker: the nearest lines above, over blank lines and other HTML comments.
    let skip: string | undefined;
    for (let i = f.before.length - 1; i >= 0; i--) {
      const l = (f.before[i] as string).trim();
      if (l === '') continue;
      if (!l.startsWith('<!--')) break;
      const m = /^<!-- docs-test: skip \((.+)\) -->$/.exec(l);
      if (m) skip = m[1];
      else if (l.includes('docs-test')) throw new Error(`${doc}:${f.line}: malformed marker ${l}`);
    }
    const next = fs[k + 1];
    const output =
      !transcript && next && next.lang === 'text' && f.after.every((l) => l.trim() === '') && !next.body.startsWith('$ ')
        ? next.body
        : undefined;
    blocks.push({
      doc,
      line: f.line,
      lang: transcript ? 'transcript' : f.lang,
      body: f.body,
      ...(skip ? { skip } : {}),
      ...(output ? { output } : {}),
    });
  });
  return blocks;
}

/** A logical command line of a block: its text, its doc comment, the output lines a comment shows. */
interface Cmd {
  text: string;
  comment: string;
  shown: string[];
}

/** The logical lines of a block (continuations joined; comment lines starting `# ...` or `# {` attach to the line before). */
function commands(body: string): Cmd[] {
  const cmds: Cmd[] = [];
  let pending = '';
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (pending === '' && line.startsWith('#')) {
      if (/^#\s*(\.\.\.|\{)/.test(line) && cmds.length > 0) cmds[cmds.length - 1]!.shown.push(line.replace(/^#\s*/, ''));
      continue;
    }
    if (line === '' && pending === '') continue;
    const m = /^(.*?)(?:\s+#\s?(.*))?$/.exec(line) as RegExpExecArray;
    const code = (m[1] as string).trim();
    const comment = m[2] ?? '';
    if (code.endsWith('\\')) {
      pending += code.slice(0, -1).trim() + ' ';
      if (comment) pending += `\u0000${comment}\u0000`;
      continue;
    }
    const full = pending + code;
    pending = '';
    const comments = [...full.matchAll(/\u0000([^\u0000]*)\u0000/g)].map((c) => c[1]);
    cmds.push({ text: full.replace(/\u0000[^\u0000]*\u0000/g, '').trim(), comment: [...comments, comment].join(' '), shown: [] });
  }
  return cmds;
}

/** A transcript's commands: each `$ ` line, its output merged with stderr, `(exit N)` its exit code. */
function transcriptCommands(body: string): Cmd[] {
  const cmds: Cmd[] = [];
  for (const l of body.split('\n')) {
    if (l.startsWith('$ ')) cmds.push({ text: `${l.slice(2).trim()} 2>&1`, comment: '', shown: [] });
    const exit = /^\(exit (\d+)\)$/.exec(l.trim());
    if (exit && cmds.length > 0) cmds[cmds.length - 1]!.comment = `exit ${exit[1]}`;
  }
  return cmds;
}

/** A transcript's output lines. */
const transcriptOutput = (body: string): string =>
  body
    .split('\n')
    .filter((l) => !l.startsWith('$ ') && !/^\(exit \d+\)$/.test(l.trim()))
    .join('\n');

const isServerLine = (t: string): boolean => /(^|&&\s*|;\s*)((npx )?harness-gym|node dist\/cli\/main\.js) (serve|policy|view)\b/.test(t);

/** Free TCP ports on 127.0.0.1 (the OS's choice for port 0, closed again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Output of the commands that only read (test/docs/doc-shell.mjs), shared by the docs for this run. */
const CACHE = mkdtempSync(join(tmpdir(), 'hg-docs-cache-'));

const POLICIES = new Set(['oracle', 'memorizer', 'random', 'skill_spam', 'faq_and_price']);
const started: ChildProcess[] = [];
/** The process groups of blocks still running (a test that timed out leaves its block's servers). */
const running = new Set<number>();
afterAll(async () => {
  for (const group of running) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      /* the group is gone */
    }
  }
  await Promise.all(started.map(stopServer));
  rmSync(CACHE, { recursive: true, force: true });
});

/** A server the test starts for a block that uses it without starting it; resolves to its port. */
function startServer(args: string[]): Promise<number> {
  const child = spawn(process.execPath, [CLI, ...args, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${out}`)), 60_000);
    const onData = (b: Buffer): void => {
      out += b.toString('utf8');
      const m = /(?:listening on|at) http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${out}`)));
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** The directory a doc's blocks run in (see the header). */
function workDir(): { cwd: string; home: string; state: string; bin: string } {
  const base = mkdtempSync(join(tmpdir(), 'hg-docs-'));
  const cwd = join(base, 'work');
  mkdirSync(cwd);
  for (const name of readdirSync(ROOT)) {
    if (['.git', 'examples', 'clients', 'runs'].includes(name)) continue;
    symlinkSync(join(ROOT, name), join(cwd, name));
  }
  cpSync(join(ROOT, 'examples'), join(cwd, 'examples'), { recursive: true });
  cpSync(join(ROOT, 'clients'), join(cwd, 'clients'), { recursive: true, filter: (p) => !/__pycache__|\.egg-info|\/build$/.test(p) });
  cpSync(join(ROOT, 'harness'), join(cwd, 'my-harness'), { recursive: true });
  writeFileSync(join(cwd, 'server.yaml'), 'log_level: warn\n');
  const home = join(base, 'home');
  const state = join(base, 'state');
  const bin = join(base, 'bin');
  for (const d of [home, state, bin]) mkdirSync(d);
  const shell = join(ROOT, 'test', 'docs', 'doc-shell.mjs');
  const node = process.execPath;
  const wrappers: Record<string, string> = {
    'harness-gym': `exec "${node}" "${shell}" hg "$@"`,
    npx: [
      'case "$1" in',
      `  harness-gym) shift; exec "${node}" "${shell}" hg "$@" ;;`,
      `  tsx) shift; exec "${join(ROOT, 'node_modules', '.bin', 'tsx')}" "$@" ;;`,
      '  *) echo "docs-test: npx $1 is not run by the docs test" >&2; exit 127 ;;',
      'esac',
    ].join('\n'),
    python3: 'exec /usr/bin/python3 "$@"',
    python: 'exec /usr/bin/python3 "$@"',
    // `| less`: the reader is the test (and a CI image may have no pager).
    less: 'exec cat',
  };
  for (const [name, text] of Object.entries(wrappers)) writeFileSync(join(bin, name), `#!/bin/sh\n${text}\n`, { mode: 0o755 });
  return { cwd, home, state, bin };
}

/** A number as the doc shows it equals the printed one rounded to the doc's digits. */
function sameFigure(shown: string, printed: unknown): boolean {
  if (typeof printed !== 'number') return String(printed) === shown.replace(/^"|"$/g, '');
  const digits = (shown.split('.')[1] ?? '').length;
  return Number(printed.toFixed(digits)) === Number(shown);
}

/**
 * The figures a comment states about a line's output: `mean X` starting the comment, and the `"key": value`
 * pairs of output it shows (a comment, or a following `# ...` line, that starts with `{` or `...`).
 */
function statedFigures(cmd: Cmd): [string, string][] {
  const text = [/^(\{|\.\.\.)/.test(cmd.comment) ? cmd.comment : '', ...cmd.shown].join(' ');
  const figures: [string, string][] = [];
  for (const m of text.matchAll(/"(\w+)":\s*("[^"]*"|-?\d+(?:\.\d+)?|true|false)/g)) figures.push([m[1] as string, m[2] as string]);
  const mean = /^mean (-?\d+(?:\.\d+)?)\b/.exec(cmd.comment);
  if (mean) figures.push(['mean', mean[1] as string]);
  return figures;
}

/** The value of `key` in the last JSON object a command printed (top level, else under `reward`). */
function printedFigure(out: string, key: string): unknown {
  const line = out
    .split('\n')
    .reverse()
    .find((l) => {
      try {
        return typeof JSON.parse(l) === 'object';
      } catch {
        return false;
      }
    });
  if (!line) {
    // A summary for people: `reward mean 1.0000  p10 ...`.
    const m = key === 'mean' ? /\bmean\s+(-?\d+(?:\.\d+)?)/.exec(out) : null;
    return m ? Number(m[1]) : undefined;
  }
  const o = JSON.parse(line) as Record<string, unknown>;
  if (key in o) return o[key];
  const reward = o['reward'];
  if (reward && typeof reward === 'object' && key in reward) return (reward as Record<string, unknown>)[key];
  return undefined;
}

/** The shown output is the printed one, line for line (blank lines aside; `…` in a shown line: any text). */
function expectShown(shown: string, printed: string, where: string): void {
  const want = shown
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trimEnd());
  const got = printed
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trimEnd());
  const matches = (w: string, g: string | undefined): boolean =>
    g !== undefined &&
    new RegExp(
      `^${w
        .split('…')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(g);
  const same = want.length === got.length && want.every((w, i) => matches(w, got[i]));
  // On a difference, the printed lines with the shown ones where they match (a readable diff).
  expect({ where, output: same ? want : got.map((g, i) => (matches(want[i] ?? '', g) ? (want[i] as string) : g)) }).toEqual({
    where,
    output: want,
  });
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run one block as a bash script (see the header). */
async function runBlock(
  block: Block,
  dirs: ReturnType<typeof workDir>,
): Promise<{ result: RunResult; outputs: Map<number, string>; cmds: Cmd[] }> {
  const cmds: Cmd[] = block.lang === 'transcript' ? transcriptCommands(block.body) : commands(block.body);
  // Servers the block uses but does not start.
  const all = cmds.map((c) => c.text).join('\n');
  const ports = new Map<string, number>();
  const startsServe = /\b(harness-gym|main\.js) serve\b/.test(all);
  for (const p of DOC_PORTS) {
    if (!new RegExp(`:${p}\\b`).test(all)) continue;
    const wsUrl = new RegExp(`ws://127\\.0\\.0\\.1:${p}/`).test(all);
    const model = new RegExp(`--base-url http://127\\.0\\.0\\.1:${p}/v1 --model (\\S+)`).exec(all)?.[1];
    if (wsUrl && !startsServe) ports.set(p, await startServer(['serve', '--allow-oracle-hints', '--workers', '0', '--log-level', 'warn']));
    else if (model && !new RegExp(`policy .*--port ${p}\\b`).test(all))
      ports.set(p, await startServer(['policy', '--policy', POLICIES.has(model) ? model : 'memorizer', '--model', model]));
  }
  for (const p of DOC_PORTS) if (!ports.has(p)) ports.set(p, await freePort());
  const portRe = new RegExp(`\\b(${DOC_PORTS.join('|')})\\b`, 'g');
  const script = ['set -eo pipefail', `trap 'echo "docs-test: exit $? from: $BASH_COMMAND" >&2' ERR`];
  const up = `"${process.execPath}" "${join(ROOT, 'test', 'docs', 'doc-shell.mjs')}" up $(jobs -p)`;
  cmds.forEach((c, k) => {
    // `node dist/cli/main.js` is the built CLI under its installed name.
    let text = c.text.replace(portRe, (p) => String(ports.get(p))).replace(/(^|&&\s*|;\s*)node dist\/cli\/main\.js /g, '$1harness-gym ');
    if (isServerLine(text) && !text.endsWith('&')) text += ' &';
    const exit = /\bexit (\d+)\b/.exec(c.comment)?.[1];
    if (statedFigures(c).length > 0) text += ` | tee "${join(dirs.state, `out-${k}`)}"`;
    if (exit && exit !== '0')
      text = `{ ${text} ; } || { c=$?; [ $c -eq ${exit} ] || { echo "docs-test: exit $c from: ${text.replace(/["$`\\]/g, '\\$&')}" >&2; exit $c; }; }`;
    script.push(text);
    if (text.endsWith('&') || /^done\b/.test(text)) script.push(up);
  });
  script.push(up);
  const env: Record<string, string> = {
    PATH: `${dirs.bin}:${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    HOME: dirs.home,
    LANG: 'C.UTF-8',
    PYTHONPATH: join(dirs.cwd, 'clients', 'python'),
    HG_STATE: dirs.state,
    HG_CLI: CLI,
    HG_CACHE: CACHE,
    HG_PORTS: JSON.stringify(Object.fromEntries(ports)),
    // The Python examples' default server (`$HARNESS_GYM_URL`, else port 8080): the one standing in for 8080.
    HARNESS_GYM_URL: `ws://127.0.0.1:${ports.get('8080')}/v1/env`,
    TMPDIR: tmpdir(),
  };
  const result = await new Promise<RunResult>((resolve) => {
    const child = spawn('bash', ['-c', script.join('\n')], { cwd: dirs.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const group = child.pid as number;
    running.add(group);
    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-group, sig);
      } catch {
        /* the group is gone */
      }
    };
    const timer = setTimeout(() => killGroup('SIGKILL'), 400_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // The block's background servers: SIGTERM (graceful), SIGKILL what is left after 10 s.
      killGroup('SIGTERM');
      const hard = setTimeout(() => killGroup('SIGKILL'), 10_000);
      child.on('close', () => {
        clearTimeout(hard);
        running.delete(group);
        resolve({ code: code ?? (signal ? 128 : null), stdout, stderr });
      });
    });
  });
  const outputs = new Map<number, string>();
  cmds.forEach((_, k) => {
    const f = join(dirs.state, `out-${k}`);
    if (existsSync(f)) outputs.set(k, readFileSync(f, 'utf8'));
  });
  // A fresh state per block (server files, outputs).
  rmSync(dirs.state, { recursive: true, force: true });
  mkdirSync(dirs.state);
  return { result, outputs, cmds };
}

describe('the command blocks of the README and the docs it sends readers to', () => {
  const byDoc = new Map(DOCS.map((d) => [d, commandBlocks(d)]));

  it('covers the README and every role page', () => {
    for (const d of [
      'README.md',
      'docs/TRAINING.md',
      'docs/RECORDS.md',
      'docs/REWARDS.md',
      'docs/HARNESS.md',
      'docs/DEPLOY.md',
      'docs/GRPO.md',
      'docs/CURRICULUM.md',
      'clients/python/README.md',
      'examples/harness-v2/README.md',
    ])
      expect(DOCS).toContain(d);
  });

  it('every command block is run or skipped with a reason, and the skips are the counted ones', () => {
    const skips = Object.fromEntries(
      DOCS.map((d) => [d, (byDoc.get(d) ?? []).filter((b) => b.skip !== undefined).length]).filter(([, n]) => n !== 0),
    );
    expect(skips).toEqual(SKIPS);
  });

  describe.concurrent.each(DOCS)('%s', (doc) => {
    it('runs as written', async () => {
      const blocks = (byDoc.get(doc) ?? []).filter((b) => b.skip === undefined);
      if (blocks.length === 0) return;
      const dirs = workDir();
      try {
        for (const block of blocks) {
          const where = `${doc}:${block.line}`;
          const t0 = Date.now();
          const { result, outputs, cmds } = await runBlock(block, dirs);
          if (process.env.HG_DOCS_TIMES) appendFileSync(process.env.HG_DOCS_TIMES, `${where} ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
          expect({ where, code: result.code, stderr: result.code === 0 ? '' : result.stderr.slice(-4000) }).toEqual({
            where,
            code: 0,
            stderr: '',
          });
          if (block.output !== undefined) expectShown(block.output, result.stdout, where);
          if (block.lang === 'transcript') expectShown(transcriptOutput(block.body), result.stdout, where);
          cmds.forEach((c, k) => {
            for (const [key, value] of statedFigures(c)) {
              const printed = printedFigure(outputs.get(k) ?? '', key);
              expect({ where, line: c.text, key, value, printed, same: sameFigure(value, printed) }).toEqual({
                where,
                line: c.text,
                key,
                value,
                printed,
                same: true,
              });
            }
          });
        }
        // What the blocks wrote into examples/ must be what is committed (a generator the docs run is current).
        const changed: string[] = [];
        const walk = (rel: string): void => {
          for (const name of readdirSync(join(dirs.cwd, rel), { withFileTypes: true })) {
            const p = join(rel, name.name);
            if (name.isDirectory()) walk(p);
            else if (existsSync(join(ROOT, p)) && !readFileSync(join(ROOT, p)).equals(readFileSync(join(dirs.cwd, p)))) changed.push(p);
          }
        };
        walk('examples');
        expect(changed).toEqual([]);
      } finally {
        rmSync(dirname(dirs.cwd), { recursive: true, force: true });
      }
    }, 900_000);
  });
});
