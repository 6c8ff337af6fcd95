/**
 * The example reward files (examples/rewards/) and the docs that show them: every example loads; every
 * profile or module the docs quote is its file, byte for byte; every file a command, config or snippet of
 * the docs names exists and loads with the module directories the same command names; the error report
 * the docs print is the loader's.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadProfileFile, loadRewardSet } from '../../rewards/index.js';
import type { RewardSources } from '../../rewards/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = 'examples/rewards';
const EXAMPLE_MODULES = 'examples/rewards/modules';
/** The docs that show or name reward profiles. */
const DOCS = ['docs/REWARDS.md', 'README.md'];

const tmp = mkdtempSync(join(tmpdir(), 'hg-reward-examples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const abs = (sources: RewardSources): RewardSources => ({
  profiles: sources.profiles.map((p) => join(ROOT, p)),
  module_dirs: sources.module_dirs.map((d) => join(ROOT, d)),
});

/** A fenced code block of a Markdown text: its info string, its text (with the final newline), its line. */
interface Block {
  lang: string;
  text: string;
  line: number;
}

function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]);
    blocks.push({ lang: open[1], text: body.map((l) => `${l}\n`).join(''), line: start + 1 });
  }
  return blocks;
}

/** The example file a block says it is (its first line, `# examples/...` or `// examples/...`). */
function quotedFile(block: Block): string | undefined {
  return /^(?:#|\/\/) (examples\/\S+)\n/.exec(block.text)?.[1];
}

/**
 * What is wrong with a doc's references to the example files: a quoted file that is missing or differs
 * from its block, a profile quoted without naming its file, a named example path that does not exist.
 */
function docProblems(doc: string, markdown: string, root: string): string[] {
  const problems: string[] = [];
  for (const block of codeBlocks(markdown)) {
    const file = quotedFile(block);
    if (file !== undefined) {
      if (!existsSync(join(root, file))) problems.push(`${doc}:${block.line}: quotes ${file}, which does not exist`);
      else if (readFileSync(join(root, file), 'utf8') !== block.text) problems.push(`${doc}:${block.line}: differs from ${file}`);
      continue;
    }
    if (block.lang !== 'yaml' && block.lang !== 'json') continue;
    let value: unknown;
    try {
      value = parseYaml(block.text);
    } catch {
      continue;
    }
    if (typeof value === 'object' && value !== null && 'modules' in value) {
      problems.push(`${doc}:${block.line}: quotes a profile without its file (first line "# ${EXAMPLES}/NAME.yaml")`);
    }
  }
  // Repository-relative (`examples/rewards/x`) or relative to docs/ (`../examples/rewards/x`), not the
  // tail of another folder's path (`clients/python/examples/...`).
  for (const m of markdown.matchAll(/(?<![\w./-])(?:\.\.\/)?(examples\/rewards(?:\/[\w.-]*\w)*\/?)/g)) {
    if (!existsSync(join(root, m[1]))) problems.push(`${doc}: names ${m[1]}, which does not exist`);
  }
  return [...new Set(problems)];
}

/** A placeholder in a usage line (`PROFILE`, `DIR`), not a path. */
const placeholder = (token: string) => /^[A-Z_]+$/.test(token);

/**
 * The reward files each command, config block and `loadRewardSet` snippet of a doc loads together:
 * `harness-gym ... --rewards F --rewards-profile F --reward-modules D` lines, `rewards: {profiles,
 * module_dirs}` YAML blocks and `loadRewardSet({ profiles: [...], module_dirs: [...] })` calls.
 */
function docLoads(markdown: string): RewardSources[] {
  const loads: RewardSources[] = [];
  for (const block of codeBlocks(markdown)) {
    if (block.lang === 'sh') {
      for (const line of block.text.replace(/\\\n/g, ' ').split('\n')) {
        const tokens = line.replace(/#.*$/, '').trim().split(/\s+/);
        if (!tokens.includes('harness-gym')) continue;
        const profiles: string[] = [];
        const module_dirs: string[] = [];
        tokens.forEach((t, i) => {
          const next = tokens[i + 1];
          if (next === undefined || placeholder(next)) return;
          if (t === '--rewards' || t === '--rewards-profile') profiles.push(next);
          if (t === '--reward-modules') module_dirs.push(next);
        });
        if (profiles.length > 0) loads.push({ profiles, module_dirs });
      }
    } else if (block.lang === 'yaml') {
      const value = parseYaml(block.text) as { rewards?: { profiles?: string[]; module_dirs?: string[] } } | null;
      if (value?.rewards?.profiles !== undefined) {
        loads.push({ profiles: value.rewards.profiles, module_dirs: value.rewards.module_dirs ?? [] });
      }
    } else if (block.lang === 'ts') {
      for (const m of block.text.matchAll(/loadRewardSet\(\{ profiles: \[([^\]]*)\], module_dirs: \[([^\]]*)\] \}\)/g)) {
        const strings = (list: string) => [...list.matchAll(/'([^']*)'/g)].map((s) => s[1]);
        loads.push({ profiles: strings(m[1]), module_dirs: strings(m[2]) });
      }
    }
  }
  return loads;
}

describe('examples/rewards', () => {
  const files = readdirSync(join(ROOT, EXAMPLES))
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => `${EXAMPLES}/${f}`);

  it('every profile file loads, together and one by one, to the profile it spells out', async () => {
    expect(files).toEqual([`${EXAMPLES}/concise.yaml`, `${EXAMPLES}/judged.yaml`, `${EXAMPLES}/tool-use.yaml`]);
    const r = await loadRewardSet(abs({ profiles: files, module_dirs: [EXAMPLE_MODULES] }));
    if (!r.ok) expect.fail(r.errors.join('\n'));
    const loaded = Object.fromEntries([...r.set.profiles].filter(([name]) => name !== 'default'));
    expect(loaded).toEqual({
      concise: {
        name: 'concise',
        modules: [
          { name: 'accuracy', weight: 0.4, params: { state_factor: 0.5 } },
          { name: 'hook_compliance', weight: 0.2 },
          { name: 'brevity', weight: 0.4, params: { target_chars: 40 } },
        ],
        gates: [{ module: 'accuracy', below: 0.5, cap: 0.2 }],
      },
      judged: {
        name: 'judged',
        modules: [
          { name: 'accuracy', weight: 0.5 },
          {
            name: 'llm_judge',
            weight: 0.5,
            params: { endpoint: 'http://10.0.0.5:8000/v1', model: 'qwen3-32b', timeout_ms: 5000, retries: 1 },
          },
        ],
        gates: [{ module: 'accuracy', below: 0.5, cap: 0.2 }],
      },
      tool_use: {
        name: 'tool_use',
        modules: [
          { name: 'tool_rationality', weight: 1 },
          { name: 'skill_selection', weight: 1 },
        ],
        gates: [],
      },
    });
    for (const file of files) {
      const name = /^# examples\/rewards\/\S+\nname: (\w+)/.exec(read(file))?.[1];
      expect(loadProfileFile(join(ROOT, file), r.set.registry)).toEqual({ ok: true, profile: loaded[name ?? file] });
    }
  });

  it('the example module directory loads on its own', async () => {
    const r = await loadRewardSet(abs({ profiles: [], module_dirs: [EXAMPLE_MODULES] }));
    expect(r.ok && r.set.registry.list().map((m) => [m.name, m.version, m.segment])).toEqual([
      // Rewards 3.0 changed accuracy, effectiveness (3.1: the prompt-layout paste) and hook_compliance; tool_rationality 1.1.0 counts
      // issue_coupon relevant for an optional coupon; skill_selection, the judge and the example are unchanged.
      ['accuracy', '3.0.0', 'reply'],
      ['effectiveness', '3.1.0', 'reply'],
      ['hook_compliance', '3.0.0', 'reply'],
      ['tool_rationality', '1.1.0', 'tool'],
      ['skill_selection', '2.0.0', 'tool'],
      ['llm_judge', '1.0.0', 'reply'],
      ['brevity', '1.0.0', 'reply'],
    ]);
  });

  it("a typo in an example's built-in params names the key and the known ones; the custom module checks its own", async () => {
    const broken = read(`${EXAMPLES}/concise.yaml`)
      .replace('state_factor: 0.5', 'state_facter: 0.5')
      .replace('target_chars: 40', 'target_chars: -1');
    const file = join(tmp, 'params.yaml');
    writeFileSync(file, broken);
    const r = await loadRewardSet({ profiles: [file], module_dirs: [join(ROOT, EXAMPLE_MODULES)] });
    expect(r.ok ? [] : r.errors.map((e) => e.replace(`${tmp}/`, ''))).toEqual([
      'params.yaml: modules[0].params: state_facter: unknown parameter (did you mean state_factor?); known: invented_number_factor, forbidden_fact_factor, unsupported_claim_factor, state_factor',
      'params.yaml: modules[2].params: target_chars: must be a positive integer',
    ]);
  });
});

describe('docs and the example files', () => {
  it('every quoted profile and module is its file; every named example exists', () => {
    for (const doc of DOCS) expect(docProblems(doc, read(doc), ROOT)).toEqual([]);
  });

  it('the check sees a drifted block, a missing file, an unlabelled profile and a dangling name', () => {
    const concise = read(`${EXAMPLES}/concise.yaml`);
    const markdown = [
      'See examples/rewards/gone.json.',
      '```yaml',
      concise.replace('weight: 0.2', 'weight: 0.3').trimEnd(),
      '```',
      '```yaml',
      `# ${EXAMPLES}/missing.yaml`,
      'name: m',
      '```',
      '```yaml',
      'name: bare',
      'modules: [{ name: accuracy, weight: 1 }]',
      '```',
      '```yaml',
      concise.trimEnd(),
      '```',
      '',
    ].join('\n');
    expect(docProblems('x.md', markdown, ROOT)).toEqual([
      `x.md:2: differs from ${EXAMPLES}/concise.yaml`,
      `x.md:17: quotes ${EXAMPLES}/missing.yaml, which does not exist`,
      `x.md:21: quotes a profile without its file (first line "# ${EXAMPLES}/NAME.yaml")`,
      'x.md: names examples/rewards/gone.json, which does not exist',
      `x.md: names ${EXAMPLES}/missing.yaml, which does not exist`,
    ]);
  });

  it('every command, config and snippet of the docs loads the files it names', async () => {
    const loads = DOCS.flatMap((doc) => docLoads(read(doc)));
    const concise = `${EXAMPLES}/concise.yaml`;
    const judged = `${EXAMPLES}/judged.yaml`;
    const toolUse = `${EXAMPLES}/tool-use.yaml`;
    // Pinned, so a change of the docs (or of the parsing above) that drops a command is seen.
    expect(loads).toEqual([
      { profiles: [concise], module_dirs: [EXAMPLE_MODULES] }, // harness-gym audit of an example profile
      { profiles: [concise], module_dirs: [EXAMPLE_MODULES] }, // harness-gym calibrate of an example profile
      { profiles: [toolUse], module_dirs: [] },
      { profiles: [toolUse], module_dirs: [] },
      { profiles: [toolUse], module_dirs: [] },
      { profiles: [concise], module_dirs: [EXAMPLE_MODULES] },
      { profiles: [concise], module_dirs: [EXAMPLE_MODULES] },
      { profiles: [concise, judged], module_dirs: [EXAMPLE_MODULES] },
      { profiles: [concise, judged], module_dirs: [EXAMPLE_MODULES] },
      { profiles: [concise], module_dirs: [EXAMPLE_MODULES] }, // README "Where to start": eval --rewards
      { profiles: [toolUse], module_dirs: [] }, // README "Where to start": rescore --rewards
    ]);
    for (const sources of loads) {
      const r = await loadRewardSet(abs(sources));
      expect(r.ok ? [] : r.errors).toEqual([]);
    }
    // The first rescore line without its module directory is what the docs must not print.
    const r = await loadRewardSet(abs({ profiles: [concise], module_dirs: [] }));
    expect(r.ok).toBe(false);
  });

  it('the error report the docs print is what the loader reports for the broken copy they describe', async () => {
    const broken = read(`${EXAMPLES}/concise.yaml`)
      .replace('    weight: 0.4\n    params: { state_factor', '    wieght: 0.4\n    params: { state_factor')
      .replace('name: brevity', 'name: brevty')
      .replace('{ module: accuracy,', '{ module: effectiveness,');
    const file = join(tmp, 'concise.yaml');
    writeFileSync(file, broken);
    const r = await loadRewardSet({ profiles: [file], module_dirs: [join(ROOT, EXAMPLE_MODULES)] });
    const printed = codeBlocks(read('docs/REWARDS.md')).filter((b) => b.lang === 'text' && b.text.startsWith('concise.yaml: '));
    expect(printed).toHaveLength(1);
    expect(r.ok ? [] : r.errors.map((e) => e.replace(`${tmp}/`, ''))).toEqual(printed[0].text.trimEnd().split('\n'));
  });
});
