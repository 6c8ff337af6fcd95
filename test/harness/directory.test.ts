/**
 * Harness directories (issue 14): the embedded harness is one, loaded by the same code; an edited copy is
 * served as given (welcome and records name it, its text reaches the prompt, over a real socket and in
 * worker threads); a broken one is refused with every error at once, each naming its file and key;
 * `diff` says what changed; replay refuses a record made with another harness.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffHarness, embeddedHarness, formatHarnessDiff, harnessDataDir, harnessHash, loadHarnessDir } from '../../harness/index.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { Recorder, readRecords, replayRecords } from '../../recording/index.js';
import { evaluate, runCheck } from '../../eval/index.js';
import { oraclePolicy } from '../../policies/index.js';
import { buildServer, closeServer } from '../../server/index.js';
import type { GymApp } from '../../server/index.js';
import { connect, testConfig } from '../server/helpers.js';
const ROOT = new URL('../..', import.meta.url).pathname;

const dirs: string[] = [];
const apps: GymApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => closeServer(a)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the embedded harness's data files (not its TypeScript) in a fresh directory, then edited. */
function copyHarness(edit: (dir: string) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-harness-'));
  dirs.push(dir);
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  edit(dir);
  return dir;
}

const replaceIn = (file: string, from: string | RegExp, to: string): void => {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: nothing to replace for ${String(from)}`);
  writeFileSync(file, next);
};

/** A week's edit: a new version, a reworded persona block, a longer reply limit. */
function editedHarness(): string {
  return copyHarness((dir) => {
    replaceIn(join(dir, 'harness.yaml'), 'version: 1.0.0', 'version: 1.1.0');
    replaceIn(join(dir, 'prompt.yaml'), '你实时回复观众的弹幕', '你实时回复观众的弹幕（第二周版本）');
    replaceIn(join(dir, 'hooks.yaml'), 'reply_max_chars: 120', 'reply_max_chars: 140');
  });
}

describe('the embedded harness', () => {
  it('is a harness directory: manifest, hash of its files, both locales', () => {
    const h = embeddedHarness();
    expect(h.identity).toEqual({ name: 'live-commerce', version: '1.0.0', hash: harnessHash(harnessDataDir()) });
    expect(h.identity.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(h.locales).toEqual(['zh-CN', 'en']);
    expect([h.get('zh-CN').skills.length, h.get('en').tools.length]).toEqual([12, 15]);
    // A copy of its data files is the same harness, byte for byte.
    const copy = loadHarnessDir(copyHarness());
    expect(copy.ok && copy.harness.identity).toEqual(h.identity);
    expect(copy.ok && copy.harness.get('en')).toEqual(h.get('en'));
  });
});

describe('an edited harness', () => {
  it('loads with its own identity, and episodes are played in it', () => {
    const loaded = loadHarnessDir(editedHarness());
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const h = loaded.harness;
    expect([h.identity.name, h.identity.version]).toEqual(['live-commerce', '1.1.0']);
    expect(h.identity.hash).not.toBe(embeddedHarness().identity.hash);
    const created = createEpisode(defaultEnvConfig({ harness: h }), { episode_id: 'a', seed: 3, variant: 'identity', options: { locale: 'zh-CN' } });
    if (!created.ok) throw new Error(created.error.message);
    const { observation } = created.episode.reset();
    expect(observation.messages[0].content).toContain('你实时回复观众的弹幕（第二周版本）');
    expect(created.episode.params.harness.limits.reply_max_chars).toBe(140);
  });

  it('passes the HSA checker: determinism, task preservation (delta 0), round trips and information', () => {
    const loaded = loadHarnessDir(editedHarness());
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const report = runCheck({ seeds: 40, harness: loaded.harness });
    expect({ ...report, examples: report.examples }).toEqual({
      determinism: { checked: 440, failures: 0 },
      task_preservation: { checked: 440, max_delta: 0 },
      round_trip: { checked: 440, failures: 0 },
      information: { checked: 440, failures: 0 },
      examples: [],
    });
  }, 60_000);

  it('says what changed from the embedded one', () => {
    const loaded = loadHarnessDir(editedHarness());
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    expect(diffHarness(embeddedHarness(), loaded.harness)).toEqual([
      { op: '~', part: 'manifest', name: 'version', locales: [], fields: ['1.0.0 -> 1.1.0'] },
      { op: '~', part: 'prompt block', name: 'persona', locales: ['zh-CN'], fields: ['template'] },
      { op: '~', part: 'limits', name: 'limits', locales: ['zh-CN', 'en'], fields: ['reply_max_chars 120 -> 140'] },
    ]);
    expect(diffHarness(embeddedHarness(), embeddedHarness())).toEqual([]);
  });

  it('says every edit that changes the hash: paraphrases, services, task files task by task, other files', () => {
    // Issue 40: `harness diff` printed nothing and exited 0 for edits of paraphrases.yaml, services/*.mjs
    // and task files, though the hash changed.
    const v2 = join(ROOT, 'examples', 'harness-v2');
    const dir = join(mkdtempSync(join(tmpdir(), 'hg-diff-')), 'h');
    cpSync(v2, dir, { recursive: true });
    writeFileSync(join(dir, 'paraphrases.yaml'), readFileSync(join(dir, 'paraphrases.yaml'), 'utf8') + '# reviewed\n');
    writeFileSync(join(dir, 'services', 'risk-report.mjs'), readFileSync(join(dir, 'services', 'risk-report.mjs'), 'utf8') + '// reviewed\n');
    writeFileSync(join(dir, 'NOTES.md'), 'week 2\n');
    rmSync(join(dir, 'README.md'));
    const lines = readFileSync(join(dir, 'tasks', 'risky.jsonl'), 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]) as { id: string; messages: string[] };
    const edited = JSON.stringify({ ...first, messages: ['这个能治失眠吗？'] });
    const added = JSON.stringify({ ...first, id: `${first.id}-again` });
    writeFileSync(join(dir, 'tasks', 'risky.jsonl'), [edited, ...lines.slice(2), added].join('\n') + '\n');
    const before = loadHarnessDir(v2);
    const after = loadHarnessDir(dir);
    if (!before.ok || !after.ok) throw new Error('both load');
    expect(before.harness.identity.hash).not.toBe(after.harness.identity.hash);
    expect(diffHarness(before.harness, after.harness)).toEqual([
      { op: '+', part: 'file', name: 'NOTES.md', locales: ['zh-CN', 'en'] },
      { op: '-', part: 'file', name: 'README.md', locales: ['zh-CN', 'en'] },
      { op: '~', part: 'file', name: 'paraphrases.yaml', locales: ['zh-CN', 'en'], fields: ['content'] },
      { op: '~', part: 'file', name: 'services/risk-report.mjs', locales: ['zh-CN', 'en'], fields: ['content'] },
      { op: '~', part: 'task file', name: 'tasks/risky.jsonl', locales: ['zh-CN', 'en'], fields: ['1 task added', '1 task removed', '1 task changed'] },
    ]);
  });

  it('says every edit of every file that enters the hash, and the manifest name, version and description with their values', () => {
    // A new user's report: changing only `version:` in harness.yaml changed the hash, yet `harness diff`
    // printed nothing and exited 0. Property: for each file of the hash, an edit of it alone is said.
    const v2 = join(ROOT, 'examples', 'harness-v2');
    const before = loadHarnessDir(v2);
    if (!before.ok) throw new Error('v2 loads');
    const root = mkdtempSync(join(tmpdir(), 'hg-diff-all-'));
    dirs.push(root);
    const files = (readdirSync(v2, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((d) => d.isFile() && !/\.(ts|js|map)$/.test(d.name))
      .map((d) => join(d.parentPath, d.name).slice(v2.length + 1))
      .sort();
    expect(files.length).toBeGreaterThan(30);
    const editedCopy = (i: number, edit: (dir: string) => void) => {
      const dir = join(root, String(i));
      cpSync(v2, dir, { recursive: true });
      edit(dir);
      const after = loadHarnessDir(dir);
      if (!after.ok) throw new Error(after.errors.join('\n'));
      expect(after.harness.identity.hash).not.toBe(before.harness.identity.hash);
      return diffHarness(before.harness, after.harness);
    };
    files.forEach((rel, i) => {
      const changes = editedCopy(i, (dir) => writeFileSync(join(dir, rel), readFileSync(join(dir, rel), 'utf8') + '\n'));
      expect(changes.length, rel).toBeGreaterThan(0);
    });
    const manifest = (from: RegExp, to: string) => (dir: string) => replaceIn(join(dir, 'harness.yaml'), from, to);
    expect(editedCopy(1000, manifest(/^version: .*$/m, 'version: 0.1.9'))).toEqual([
      { op: '~', part: 'manifest', name: 'version', locales: [], fields: [`${before.harness.identity.version} -> 0.1.9`] },
    ]);
    expect(editedCopy(1001, manifest(/^name: .*$/m, 'name: shop-two'))).toEqual([
      { op: '~', part: 'manifest', name: 'name', locales: [], fields: [`${before.harness.identity.name} -> shop-two`] },
    ]);
    const long = `A much longer description of this harness that goes on well past what fits on one diff line.`;
    const desc = editedCopy(1002, manifest(/^description: >-\n(  .*\n)+/m, `description: ${long}\n`));
    expect(desc).toHaveLength(1);
    expect(desc[0]).toMatchObject({ op: '~', part: 'manifest', name: 'description' });
    expect(desc[0].fields).toEqual(['Evolution of the embedded live-commerce harness (1.0.0). Evo… -> A much longer description of this harness that goes on well …']);
    expect(formatHarnessDiff(editedCopy(1003, manifest(/^version: .*$/m, 'version: 0.1.9')))).toBe(`~ manifest version: ${before.harness.identity.version} -> 0.1.9`);
  }, 60_000);

  it('is served over a real socket, in-process and in worker threads: welcome names it and resets use it', async () => {
    const dir = editedHarness();
    for (const workers of [0, 1]) {
      const app = buildServer(testConfig({ harness: dir, workers }));
      apps.push(app);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const c = await connect(url);
      const w = await c.hello({ seed: 1 });
      expect(w.harness).toEqual({ name: 'live-commerce', version: '1.1.0', hash: harnessHash(dir) });
      const info = (await (await fetch(`${url}/v1/info`)).json()) as { harness: unknown };
      expect(info.harness).toEqual(w.harness);
      const r = await c.request({ type: 'reset', id: 2, items: [{ episode_id: 'e', seed: 5, options: { locale: 'zh-CN' } }] });
      expect(r.items[0].ok).toBe(true);
      expect(r.items[0].observation.messages[0].content).toContain('（第二周版本）');
      c.ws.close();
    }
  }, 30_000);

  it('a server given a directory that is not a harness does not start', () => {
    expect(() => buildServer(testConfig({ harness: join(tmpdir(), 'hg-no-such-harness') }))).toThrow(/not a directory/);
  });
});

describe('records and replay', () => {
  it('records name the harness; replay with another harness refuses them, naming both', async () => {
    const loaded = loadHarnessDir(editedHarness());
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const out = mkdtempSync(join(tmpdir(), 'hg-harness-rec-'));
    dirs.push(out);
    const config = defaultEnvConfig({ harness: loaded.harness });
    const recorder = new Recorder({ dir: out, sample: 1, stem: 'h', created_by: 'eval', env: { limits: config.limits, defaults: config.defaults } });
    evaluate({ policy: oraclePolicy, episodes: 3, seed: 1, variant: 'train', recorder, config: { harness: loaded.harness } });
    await recorder.close();
    const read = readRecords(out);
    if (!read.ok) throw new Error(read.message);
    expect(read.result.records.map((r) => r.record.harness)).toEqual(Array(3).fill({ ...loaded.harness.identity }));
    // With the harness it was made with: identical. With the embedded one: refused, not replayed wrongly.
    expect(replayRecords(read.result.records, { base: { harness: loaded.harness } }).identical).toBe(3);
    const refused = replayRecords(read.result.records);
    expect(refused.identical).toBe(0);
    expect(refused.results[0].divergence?.message).toBe(
      `cannot rebuild the episode: the record was made with harness "live-commerce" 1.1.0 (${loaded.harness.identity.hash}), ` +
        `this replay has "live-commerce" 1.0.0 (${embeddedHarness().identity.hash}); give that harness's directory with --harness DIR`,
    );
  });
});

describe('a broken harness', () => {
  it('is refused with every error at once, each naming its file and key', () => {
    const dir = copyHarness((d) => {
      replaceIn(join(d, 'harness.yaml'), 'name: live-commerce', 'name: Live Commerce');
      replaceIn(join(d, 'prompt.yaml'), '{{persona_name}}', '{{persona_nmae}}');
      cpSync(join(d, 'tools', 'get_coupon.json'), join(d, 'tools', 'get_weather.json'));
      replaceIn(join(d, 'tools', 'check_stock.json'), '"name": "check_stock"', '"name": "check_inventory"');
      rmSync(join(d, 'skills', 'en', 'chitchat.md'));
      writeFileSync(join(d, 'skills', 'en', 'Chit_Chat.md'), readFileSync(join(harnessDataDir(), 'skills', 'en', 'chitchat.md')));
      replaceIn(join(d, 'hooks.yaml'), 'max_input_chars: 500', 'max_input_chars: 0');
      replaceIn(join(d, 'hooks.yaml'), 'reply_max_chars: 120', 'reply_max_chars: 100');
      replaceIn(join(d, 'skills', 'zh-CN', 'live-tone.md'), /^name: live-tone$/m, 'name: chitchat');
      replaceIn(join(d, 'tools', 'i18n', 'en.json'), '"get_product":', '"get_produkt":');
    });
    const r = loadHarnessDir(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const placeholders = 'persona_name, persona_style, current_product, lineup, faq, room, viewer, skills, tools, reply_max_chars, max_turns';
    expect(r.errors).toEqual([
      'harness.yaml: name: must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit',
      'skills/zh-CN/live-tone.md: name: "chitchat" does not match the file name',
      'tools/check_stock.json: function.name: "check_inventory" does not match the file name',
      'tools/get_weather.json: function.name: "get_coupon" does not match the file name',
      `prompt.yaml: blocks.0.zh-CN.template: unknown placeholder {{persona_nmae}} (placeholders: ${placeholders})`,
      'hooks.yaml: hooks.0.params.max_input_chars: Too small: expected number to be >=1',
      'hooks.yaml: limits.reply_max_chars: 100 is shorter than the longest reply the tasks need (120 characters); use at least 120',
      'skills/en/Chit_Chat.md: (file): "Chit_Chat" is not a valid skill name (^[a-z0-9]+(-[a-z0-9]+)*$, at most 64 characters)',
      'tools/i18n/en.json: get_product: missing description',
      'tools/i18n/en.json: get_produkt: names no tool or parameter',
      'skills/en/chitchat.md: (file): missing: every skill has a file in each locale (skills/zh-CN/chitchat.md exists)',
      'tools/get_weather.json: (file): not bound: add "get_weather: <service>.<operation>" or "get_weather: custom.<module>" under tools: in harness.yaml',
    ]);
  });

  it('keeps the parameters the simulated services read: names, types, enums and required', () => {
    const dir = copyHarness((d) => {
      const file = join(d, 'tools', 'check_stock.json');
      const tool = JSON.parse(readFileSync(file, 'utf8'));
      const props = tool.function.parameters.properties;
      props.itemId = props.item_id;
      delete props.item_id;
      props.sku_id.type = 'integer';
      tool.function.parameters.required = ['itemId'];
      writeFileSync(file, JSON.stringify(tool, null, 2));
    });
    const r = loadHarnessDir(dir);
    expect(r.ok === false && r.errors).toEqual([
      'tools/i18n/en.json: check_stock.itemId: missing description',
      'tools/i18n/en.json: check_stock.item_id: names no tool or parameter',
      'tools/check_stock.json: function.parameters.properties.sku_id: the inventory service (inventory.check_stock) reads {"type":"string"}, the file says {"type":"integer"}',
      'tools/check_stock.json: function.parameters.properties.itemId: the inventory service (inventory.check_stock) reads no parameter "itemId" (it takes item_id, sku_id)',
      'tools/check_stock.json: function.parameters.properties: missing "item_id", which the inventory service (inventory.check_stock) reads',
      'tools/check_stock.json: function.parameters.required: the inventory service (inventory.check_stock) requires ["item_id"], the file says ["itemId"]',
    ]);
  });

  it('a missing directory, manifest or file is an error, not a crash', () => {
    expect(loadHarnessDir(join(tmpdir(), 'hg-no-such-harness'))).toEqual({
      ok: false,
      errors: [`${join(tmpdir(), 'hg-no-such-harness')}: not a directory (a harness is a directory with harness.yaml, skills/, tools/, prompt.yaml and hooks.yaml)`],
    });
    const dir = copyHarness((d) => {
      rmSync(join(d, 'harness.yaml'));
      rmSync(join(d, 'hooks.yaml'));
      writeFileSync(join(d, 'prompt.yaml'), 'blocks: [\n');
    });
    const r = loadHarnessDir(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.replace(/: (cannot read|invalid YAML): .*/, ': $1'))).toEqual([
      'harness.yaml: (file): cannot read',
      'prompt.yaml: (file): invalid YAML',
      'hooks.yaml: (file): cannot read',
    ]);
    expect(readdirSync(dir)).not.toContain('harness.yaml');
  });
});
