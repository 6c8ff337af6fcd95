/**
 * Reward files: profile files (JSON/YAML; `gates` optional) validated with every error of a file in one
 * result, each naming the file and key; module
 * directories (default / `module` / `modules` exports) with errors naming the file; a real loaded module
 * that throws or goes out of range is a failed component of an episode that still ends normally; the
 * catalog's reload swaps atomically and keeps the old set on a bad file.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_PROFILE,
  RewardCatalog,
  defaultRegistry,
  loadModuleDir,
  loadProfileFile,
  loadRewardSet,
  registryWithJudge,
} from '../../rewards/index.js';
import { HarnessGymEnv } from '../../env/index.js';

const root = mkdtempSync(join(tmpdir(), 'hg-rewards-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A fresh directory under the test root. */
function dir(): string {
  const d = join(root, `d${++n}`);
  mkdirSync(d);
  return d;
}
function write(d: string, name: string, text: string): string {
  const p = join(d, name);
  writeFileSync(p, text);
  return p;
}

const moduleSource = (name: string, value: string, version = '1.0.0') =>
  `export default { name: '${name}', version: '${version}', segment: 'reply', score: () => (${value}) };\n`;

describe('loadProfileFile', () => {
  it('loads a JSON and a YAML profile', () => {
    const d = dir();
    const json = write(
      d,
      'p.json',
      JSON.stringify({ name: 'acc_only', modules: [{ name: 'accuracy', weight: 2, params: { state_factor: 0.5 } }], gates: [] }),
    );
    expect(loadProfileFile(json, defaultRegistry())).toEqual({
      ok: true,
      profile: { name: 'acc_only', modules: [{ name: 'accuracy', weight: 2, params: { state_factor: 0.5 } }], gates: [] },
    });
    const yaml = write(
      d,
      'p.yaml',
      'name: judged\nmodules:\n  - name: accuracy\n    weight: 1\n  - name: llm_judge\n    weight: 0.5\n    params: {model: m, timeout_ms: 2000}\ngates:\n  - {module: accuracy, below: 0.5, cap: 0.2}\n',
    );
    expect(loadProfileFile(yaml, registryWithJudge())).toEqual({
      ok: true,
      profile: {
        name: 'judged',
        modules: [
          { name: 'accuracy', weight: 1 },
          { name: 'llm_judge', weight: 0.5, params: { model: 'm', timeout_ms: 2000 } },
        ],
        gates: [{ module: 'accuracy', below: 0.5, cap: 0.2 }],
      },
    });
  });

  it('a profile without `gates` is valid and has no gates', () => {
    const d = dir();
    const yaml = write(
      d,
      'plain.yaml',
      'name: plain\nmodules:\n  - {name: accuracy, weight: 1}\n  - {name: tool_rationality, weight: 1}\n',
    );
    const json = write(
      d,
      'plain.json',
      JSON.stringify({
        name: 'plain',
        modules: [
          { name: 'accuracy', weight: 1 },
          { name: 'tool_rationality', weight: 1 },
        ],
      }),
    );
    const expected = {
      ok: true,
      profile: {
        name: 'plain',
        modules: [
          { name: 'accuracy', weight: 1 },
          { name: 'tool_rationality', weight: 1 },
        ],
        gates: [],
      },
    };
    expect(loadProfileFile(yaml, defaultRegistry())).toEqual(expected);
    expect(loadProfileFile(json, defaultRegistry())).toEqual(expected);
  });

  it('reports three different errors of a file at once, each with the file and the key', () => {
    const d = dir();
    // A misspelt key (the shape), a misspelt module name (the registry), a gate on an absent module (the
    // profile): before, each was reported only once the previous one was fixed.
    const p = write(
      d,
      'three.yaml',
      [
        'name: three',
        'modules:',
        '  - {name: accuracy, weight: 1, parmas: {state_factor: 0.5}}',
        '  - {name: acuracy, weight: 1}',
        'gates:',
        '  - {module: effectiveness, below: 0.5, cap: 0.2}',
        '',
      ].join('\n'),
    );
    expect(loadProfileFile(p, defaultRegistry())).toEqual({
      ok: false,
      errors: [
        `${p}: modules[0]: Unrecognized key: "parmas"`,
        `${p}: modules[1].name: unknown reward module "acuracy" (known: accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection)`,
        `${p}: gates[0].module: "effectiveness" is not a module of this profile`,
      ],
    });
  });

  it('reports the schema errors of every entry next to the registry errors', () => {
    const d = dir();
    const p = write(
      d,
      'many.yaml',
      [
        'name: three',
        'modules:',
        '  - {name: accuracy, wieght: 1}',
        '  - {name: acuracy, weight: 1}',
        '  - {name: hook_compliance, weight: -1}',
        'gates:',
        '  - {module: effectiveness, below: 0.5, cap: 2}',
        '',
      ].join('\n'),
    );
    const known = 'accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection';
    expect(loadProfileFile(p, defaultRegistry())).toEqual({
      ok: false,
      errors: [
        `${p}: modules[0].weight: required key is missing`,
        `${p}: modules[0]: Unrecognized key: "wieght"`,
        `${p}: modules[2].weight: Too small: expected number to be >=0`,
        `${p}: gates[0].cap: Too big: expected number to be <=1`,
        `${p}: modules[1].name: unknown reward module "acuracy" (known: ${known})`,
        `${p}: gates[0].module: "effectiveness" is not a module of this profile`,
      ],
    });
  });

  it("reports a module's own param errors with the shape errors, not after them", () => {
    const d = dir();
    const p = write(
      d,
      'j.yaml',
      'name: j\nmodules:\n  - {name: llm_judge, weight: 1, params: {timeout_ms: soon, modle: m}}\n  - {name: accuracy, weight: 1, extra: 1}\n',
    );
    expect(loadProfileFile(p, registryWithJudge())).toEqual({
      ok: false,
      errors: [
        `${p}: modules[1]: Unrecognized key: "extra"`,
        `${p}: modules[0].params: timeout_ms: Invalid input: expected number, received string`,
        `${p}: modules[0].params: modle: unknown parameter`,
      ],
    });
  });

  it('reports duplicates and all-zero weights with the other errors', () => {
    const d = dir();
    const p = write(
      d,
      'dup.json',
      JSON.stringify({
        name: 'dup',
        modules: [
          { name: 'accuracy', weight: 0 },
          { name: 'accuracy', weight: 0 },
        ],
        gates: [{ module: 'accuracy', below: 0.5 }],
        notes: 'x',
      }),
    );
    expect(loadProfileFile(p, defaultRegistry())).toEqual({
      ok: false,
      errors: [
        `${p}: gates[0].cap: required key is missing`,
        `${p}: (root): Unrecognized key: "notes"`,
        `${p}: modules[1].name: duplicate module "accuracy" (first at modules[0])`,
        `${p}: modules: the weights sum to 0; at least one must be positive`,
      ],
    });
  });

  it('reports every YAML syntax error of a file, one line each', () => {
    const d = dir();
    const p = write(d, 'syntax.yaml', 'name: a\nname: b\nmodules:\n  - {name: accuracy, weight: 1\ngates: [\n');
    expect(loadProfileFile(p, defaultRegistry())).toEqual({
      ok: false,
      errors: [
        `${p}: Map keys must be unique at line 2, column 1`,
        `${p}: Flow map in block collection must be sufficiently indented and end with a } at line 5, column 1`,
        `${p}: Flow sequence in block collection must be sufficiently indented and end with a ] at line 6, column 1`,
      ],
    });
  });

  it('reports unreadable files, bad syntax and unknown extensions', () => {
    const d = dir();
    const missing = join(d, 'missing.json');
    expect(loadProfileFile(missing, defaultRegistry())).toEqual({
      ok: false,
      errors: [expect.stringContaining(`${missing}: cannot read`)],
    });
    const syntax = write(d, 's.json', '{');
    // V8's wording of a JSON syntax error changes between Node versions: take it from this one.
    const jsonMessage = (() => {
      try {
        JSON.parse('{');
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('"{" parsed as JSON');
    })();
    expect(loadProfileFile(syntax, defaultRegistry())).toEqual({ ok: false, errors: [`${syntax}: ${jsonMessage}`] });
    const toml = write(d, 'p.toml', 'name = 1');
    expect(loadProfileFile(toml, defaultRegistry())).toEqual({
      ok: false,
      errors: [`${toml}: unknown profile format ".toml" (use .json, .yaml or .yml)`],
    });
  });
});

describe('loadModuleDir', () => {
  it('registers default, `module` and `modules` exports of *.js and *.mjs files, in file order', async () => {
    const d = dir();
    write(d, 'a.mjs', moduleSource('brevity', '{ value: 0.5, reasons: ["half"] }'));
    write(
      d,
      'b.js',
      `export const modules = [
        { name: 'politeness', version: '0.2.0', segment: 'reply', score: () => ({ value: 1, reasons: [] }) },
        { name: 'tool_budget', version: '0.1.0', segment: 'tool', score: () => ({ value: 1, reasons: [] }) },
      ];\n`,
    );
    write(
      d,
      'c.mjs',
      `const m = { name: 'named_one', version: '1', segment: 'reply', score: () => ({ value: 1, reasons: [] }) };\nexport const module = m;\nexport default m;\n`,
    );
    write(d, 'notes.txt', 'not a module');
    const registry = defaultRegistry();
    const r = await loadModuleDir(d, registry);
    expect(r.ok && r.modules.map((m) => [m.name, m.version])).toEqual([
      ['brevity', '1.0.0'],
      ['politeness', '0.2.0'],
      ['tool_budget', '0.1.0'],
      ['named_one', '1'],
    ]);
    expect(registry.get('brevity')?.score({} as never, {} as never, {})).toEqual({ value: 0.5, reasons: ['half'] });
  });

  it('rejects a bad directory as a whole, naming each bad file; the registry is untouched', async () => {
    const d = dir();
    const good = write(d, 'a.mjs', moduleSource('fine_one', '{ value: 1, reasons: [] }'));
    const noVersion = write(
      d,
      'b.mjs',
      `export default { name: 'x_mod', segment: 'reply', score() { return { value: 1, reasons: [] }; } };\n`,
    );
    const nothing = write(d, 'c.mjs', 'export const helper = 1;\n');
    const syntax = write(d, 'd.mjs', 'export default {;\n');
    const dup = write(d, 'e.mjs', moduleSource('fine_one', '{ value: 1, reasons: [] }'));
    const registry = defaultRegistry();
    const before = registry.list().map((m) => m.name);
    const r = await loadModuleDir(d, registry);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      `${noVersion}: export default: version must be a non-empty string`,
      `${nothing}: exports no reward module (expected a default export, or a named export "module" or "modules")`,
      expect.stringMatching(/^.*d\.mjs: cannot import \(/),
      `${dup}: export default: module "fine_one" is also defined in ${good}`,
    ]);
    expect(r.errors[2].startsWith(`${syntax}: cannot import`)).toBe(true);
    expect(registry.list().map((m) => m.name)).toEqual(before);
    const missing = await loadModuleDir(join(d, 'nope'), registry);
    expect(missing).toEqual({ ok: false, errors: [expect.stringContaining(`${join(d, 'nope')}: cannot read module directory`)] });
  });

  it('a loaded module that throws or leaves [0, 1] is a failed component; the episode still ends and scores', async () => {
    const d = dir();
    write(
      d,
      'thrower.mjs',
      `export default { name: 'thrower', version: '0.0.1', segment: 'reply', score() { throw new Error('boom'); } };\n`,
    );
    write(d, 'too_big.mjs', moduleSource('too_big', '{ value: 1.5, reasons: [] }'));
    const profile = write(
      d,
      'profile.json',
      JSON.stringify({
        name: 'custom',
        modules: [
          { name: 'accuracy', weight: 1 },
          { name: 'thrower', weight: 1 },
          { name: 'too_big', weight: 1 },
        ],
        gates: [],
      }),
    );
    const loaded = await loadRewardSet({ profiles: [profile], module_dirs: [d] });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect([...loaded.set.profiles.keys()]).toEqual(['default', 'custom']);
    const env = new HarnessGymEnv({ registry: loaded.set.registry, profiles: loaded.set.profiles });
    env.reset({ seed: 11, options: { rewards: 'custom' } });
    let last = env.step({ message: { role: 'assistant', content: '欢迎来到直播间' } });
    for (let i = 0; i < 12 && !env.episode!.ended; i++) last = env.step({ message: { role: 'assistant', content: '欢迎来到直播间' } });
    expect(last.terminated || last.truncated).toBe(true);
    const details = last.info.reward_details as Record<string, { value: number; failed?: boolean; reasons: string[] }>;
    expect(details.thrower).toEqual({ value: 0, failed: true, reasons: ['module failed: threw Error: boom'] });
    expect(details.too_big).toEqual({ value: 0, failed: true, reasons: ['module failed: returned 1.5 (outside [0, 1])'] });
    expect(details.accuracy.failed).toBeUndefined();
    expect(last.reward).toBeCloseTo(details.accuracy.value / 3, 6);
  });
});

describe('loadRewardSet and RewardCatalog', () => {
  it('refuses two files defining the same profile name, naming both', async () => {
    const d = dir();
    const text = JSON.stringify({ name: 'twin', modules: [{ name: 'accuracy', weight: 1 }], gates: [] });
    const a = write(d, 'a.json', text);
    const b = write(d, 'b.json', text);
    expect(await loadRewardSet({ profiles: [a, b], module_dirs: [] })).toEqual({
      ok: false,
      errors: [`${b}: name: profile "twin" is also defined in ${a}`],
    });
  });

  it('reports every error of every file in one result: module files, profile keys, names, duplicates', async () => {
    const d = dir();
    const mods = join(d, 'mods');
    mkdirSync(mods);
    write(mods, 'a.mjs', moduleSource('brevity', '{ value: 1, reasons: [] }'));
    const noVersion = write(
      mods,
      'b.mjs',
      `export default { name: 'terse', segment: 'reply', score: () => ({ value: 1, reasons: [] }) };\n`,
    );
    // `brevity` comes from a directory with an error: it is still known to the profiles (no spurious
    // "unknown reward module"); `terse` failed to load, so naming it is reported too.
    const first = write(d, 'a.yaml', 'name: twin\nmodules:\n  - {name: brevity, weight: 1}\n  - {name: terse, weight: 1}\n');
    // The second file has errors of its own and repeats the first file's name: both are reported now.
    const second = write(
      d,
      'b.yaml',
      'name: twin\nmodules:\n  - {name: accuracy, weight: 1, parmas: {}}\ngates:\n  - {module: brevity, below: 0.5, cap: 0.1}\n',
    );
    const known = 'accuracy, effectiveness, hook_compliance, tool_rationality, skill_selection, llm_judge, brevity';
    expect(await loadRewardSet({ profiles: [first, second], module_dirs: [mods] })).toEqual({
      ok: false,
      errors: [
        `${noVersion}: export default: version must be a non-empty string`,
        `${first}: modules[1].name: unknown reward module "terse" (known: ${known})`,
        `${second}: modules[0]: Unrecognized key: "parmas"`,
        `${second}: gates[0].module: "brevity" is not a module of this profile`,
        `${second}: name: profile "twin" is also defined in ${first}`,
      ],
    });
  });

  it('reload validates everything first: a bad file keeps the old set; a good one swaps it (modules re-imported)', async () => {
    const d = dir();
    const mods = join(d, 'mods');
    mkdirSync(mods);
    const modFile = write(mods, 'brevity.mjs', moduleSource('brevity', '{ value: 0.25, reasons: [] }', '1.0.0'));
    const profile = write(d, 'p.yaml', 'name: short\nmodules:\n  - {name: brevity, weight: 1}\ngates: []\n');
    const loaded = await RewardCatalog.load({ profiles: [profile], module_dirs: [mods] });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const catalog = loaded.catalog;
    const first = catalog.current;
    const seen: string[][] = [];
    catalog.onSwap((set) => seen.push([...set.profiles.keys()]));

    write(d, 'p.yaml', 'name: short\nmodules:\n  - {name: brevity, wieght: 1}\ngates: []\n');
    const bad = await catalog.reload();
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.every((e) => e.startsWith(`${profile}: `))).toBe(true);
    expect(catalog.current).toBe(first);
    expect(catalog.generation).toBe(0);

    write(d, 'p.yaml', 'name: shorter\nmodules:\n  - {name: brevity, weight: 1}\ngates: []\n');
    write(mods, 'brevity.mjs', moduleSource('brevity', '{ value: 0.75, reasons: [] }', '2.0.0'));
    // Make sure the edit is visible even on a coarse-mtime filesystem (the size differs anyway).
    utimesSync(modFile, new Date(2030, 0, 1), new Date(2030, 0, 1));
    const good = await catalog.reload();
    expect(good).toEqual({ ok: true, profiles: ['default', 'shorter'], generation: 1, hash: catalog.current.hash });
    // The edited module file is part of the set's hash.
    expect(catalog.current.hash).not.toBe(first.hash);
    expect(seen).toEqual([['default', 'shorter']]);
    expect(catalog.current.registry.get('brevity')?.version).toBe('2.0.0');
    expect(catalog.current.profiles.get('default')).toBe(DEFAULT_PROFILE);
    // The old set is untouched (episodes reset before the swap keep scoring with it).
    expect(first.registry.get('brevity')?.version).toBe('1.0.0');
    expect([...first.profiles.keys()]).toEqual(['default', 'short']);
  });
});
