/**
 * Per-locale output rules (issue 40, "Locales"): `extra_context` and `output_constraints.forbidden_words`
 * may be given per locale, so a Chinese banned word is not enforced in English episodes; and a banned
 * word or ending the prompt of a locale does not state is refused by the loader with the reason (before,
 * it loaded and failed every `check` case, undocumented).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessDataDir, loadHarnessDir } from '../../harness/index.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';

function copy(edit: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-locale-rules-'));
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  edit(dir);
  return dir;
}

function replaceIn(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file}: no ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** Enable the output_constraints hook with these params (YAML flow text). */
function constraints(dir: string, params: string): void {
  replaceIn(
    join(dir, 'hooks.yaml'),
    '  - id: output_constraints\n    stage: reply\n    enabled: false\n    # Variants fill: forbidden_words (string[]), required_ending (string), language (zh-CN | en).\n    params: {}',
    `  - id: output_constraints\n    stage: reply\n    enabled: true\n    params: ${params}`,
  );
}

const ZH_RULE = '        - 每条回复不超过{{reply_max_chars}}个字，一两句话说清楚。';
const EN_RULE = '        - Each reply has at most {{reply_max_chars}} characters, one or two sentences.';

/** The hook violations of one reply as the episode's first turn (a reply without loading a skill). */
function violationsOf(dir: string, locale: 'zh-CN' | 'en', reply: string): string[] {
  const loaded = loadHarnessDir(dir);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const created = createEpisode(defaultEnvConfig({ harness: loaded.harness }), { episode_id: 'a', seed: 3, variant: 'identity', options: { locale } });
  if (!created.ok) throw new Error(created.error.message);
  created.episode.reset();
  const r = created.episode.step({ text: reply });
  if (!r.ok) throw new Error(r.error.message);
  return ((r.info as { hook_violations?: { code: string }[] }).hook_violations ?? []).map((v) => v.code);
}

describe('per-locale output rules', () => {
  it('forbidden words per locale: each locale enforces its own list, stated in its own prompt', () => {
    const dir = copy((d) => {
      constraints(d, '{ forbidden_words: { zh-CN: [亲], en: [dear] } }');
      replaceIn(join(d, 'prompt.yaml'), ZH_RULE, `${ZH_RULE}\n        - 不要说“亲”。`);
      replaceIn(join(d, 'prompt.yaml'), EN_RULE, `${EN_RULE}\n        - Never say "dear".`);
    });
    const loaded = loadHarnessDir(dir);
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const words = (l: 'zh-CN' | 'en') => loaded.harness.get(l).hooks.find((h) => h.id === 'output_constraints')?.params.forbidden_words;
    expect([words('zh-CN'), words('en')]).toEqual([['亲'], ['dear']]);
    expect(violationsOf(dir, 'en', 'Hello 亲, it is in stock.')).not.toContain('FORBIDDEN_WORD');
    expect(violationsOf(dir, 'en', 'Hello dear, it is in stock.')).toContain('FORBIDDEN_WORD');
    expect(violationsOf(dir, 'zh-CN', '亲，有货的。')).toContain('FORBIDDEN_WORD');
  });

  it('a banned word or ending a locale prompt does not state is refused, naming the key, the locale and what to do', () => {
    const dir = copy((d) => {
      constraints(d, '{ forbidden_words: [亲, dear], required_ending: 欢迎下单 }');
      replaceIn(join(d, 'prompt.yaml'), ZH_RULE, `${ZH_RULE}\n        - 不要说“亲”，每条回复以“欢迎下单”结尾。`);
      replaceIn(join(d, 'prompt.yaml'), EN_RULE, `${EN_RULE}\n        - Never say "dear".`);
    });
    const r = loadHarnessDir(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      'hooks.yaml: hooks.6.params.forbidden_words.1: "dear" is enforced in zh-CN episodes but prompt.yaml does not state it in zh-CN: name it in an output rule of that locale (a model cannot keep a rule it is not told), or give forbidden_words per locale ({zh-CN: [...], en: [...]})',
      'hooks.yaml: hooks.6.params.forbidden_words.0: "亲" is enforced in en episodes but prompt.yaml does not state it in en: name it in an output rule of that locale (a model cannot keep a rule it is not told), or give forbidden_words per locale ({zh-CN: [...], en: [...]})',
      'hooks.yaml: hooks.6.params.required_ending: "欢迎下单" is enforced in en episodes but prompt.yaml does not state it in en: state it in an output rule of that locale',
    ]);
  });

  it('extra_context per locale: each locale prompt ends with its own paragraphs', () => {
    const dir = copy((d) => replaceIn(join(d, 'prompt.yaml'), 'extra_context: []', 'extra_context: { zh-CN: [今晚八点有福利。], en: [Giveaway at 8 pm.] }'));
    const loaded = loadHarnessDir(dir);
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    for (const [locale, own, other] of [
      ['zh-CN', '今晚八点有福利。', 'Giveaway at 8 pm.'],
      ['en', 'Giveaway at 8 pm.', '今晚八点有福利。'],
    ] as const) {
      const created = createEpisode(defaultEnvConfig({ harness: loaded.harness }), { episode_id: 'a', seed: 3, variant: 'identity', options: { locale } });
      if (!created.ok) throw new Error(created.error.message);
      const system = created.episode.reset().observation.messages[0].content as string;
      expect(system).toContain(own);
      expect(system).not.toContain(other);
    }
  });
});
