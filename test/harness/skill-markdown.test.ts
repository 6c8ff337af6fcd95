import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Skill } from '../../protocol/harness.js';
import { INTENTS, LOCALES } from '../../protocol/domain.js';
import { HarnessDataError, loadBaseHarness, parseSkillMarkdown, renderSkillMarkdown } from '../../harness/index.js';

const GOOD = `---
name: demo-skill
description: A demo.
metadata:
  kind: reply
  intents: [product_qa]
  owner: ops
---

# Demo

- Call get_product first.
`;

function errorOf(text: string, file = 'skills/zh-CN/demo-skill.md'): { file: string; key: string; message: string } {
  try {
    parseSkillMarkdown(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessDataError);
    const e = err as HarnessDataError;
    return { file: e.file, key: e.key, message: e.message };
  }
  throw new Error('expected a HarnessDataError');
}

describe('parseSkillMarkdown', () => {
  it('parses front matter and body, keeping metadata as written', () => {
    expect(parseSkillMarkdown(GOOD, 'demo.md')).toEqual({
      name: 'demo-skill',
      description: 'A demo.',
      kind: 'reply',
      intents: ['product_qa'],
      body: '# Demo\n\n- Call get_product first.',
      metadata: { kind: 'reply', intents: ['product_qa'], owner: 'ops' },
    });
  });

  it('accepts CRLF line endings', () => {
    expect(parseSkillMarkdown(GOOD.replace(/\n/g, '\r\n'), 'demo.md')).toEqual(parseSkillMarkdown(GOOD, 'demo.md'));
  });

  it('names the file and the key on bad data', () => {
    expect(errorOf('# no front matter\n')).toEqual({
      file: 'skills/zh-CN/demo-skill.md',
      key: 'front matter',
      message: 'skills/zh-CN/demo-skill.md: front matter: expected YAML front matter between --- fences at the top',
    });
    expect(errorOf(GOOD.replace('name: demo-skill', 'name: Demo_Skill'))).toMatchObject({ key: 'name' });
    expect(errorOf(GOOD.replace('kind: reply', 'kind: answer'))).toMatchObject({ key: 'metadata.kind' });
    expect(errorOf(GOOD.replace('[product_qa]', '[Shopping]'))).toMatchObject({ key: 'metadata.intents.0' });
    expect(errorOf(GOOD.replace('description: A demo.\n', ''))).toMatchObject({ key: 'description' });
    expect(errorOf(GOOD.replace('description: A demo.', 'description: A demo.\ncolour: red'))).toMatchObject({ key: '(root)' });
    expect(errorOf(GOOD.replace('description: A demo.', 'description: [unclosed'))).toMatchObject({ key: 'front matter' });
    expect(errorOf(GOOD.replace(/\n# Demo[\s\S]*$/, '\n'))).toMatchObject({ key: 'body' });
    expect(errorOf(GOOD.replace('kind: reply', 'kind: answer')).message).toMatch(/^skills\/zh-CN\/demo-skill\.md: metadata\.kind: /);
  });
});

describe('renderSkillMarkdown', () => {
  it('round-trips every base skill byte-identically to its parsed form', () => {
    for (const locale of LOCALES) {
      for (const s of loadBaseHarness(locale).skills) {
        expect(parseSkillMarkdown(renderSkillMarkdown(s), `${s.name}.md`)).toEqual(s);
      }
    }
  });

  it('writes kind and intents from the skill fields into metadata', () => {
    const s = parseSkillMarkdown(GOOD, 'demo.md');
    const changed: Skill = { ...s, kind: 'strategy', intents: ['chitchat', 'risky'] };
    expect(parseSkillMarkdown(renderSkillMarkdown(changed), 'demo.md')).toEqual({
      ...changed,
      metadata: { kind: 'strategy', intents: ['chitchat', 'risky'], owner: 'ops' },
    });
  });

  it('round-trips arbitrary valid skills', () => {
    const name = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/);
    const text = fc.string({ minLength: 1, maxLength: 60 }).filter((t) => t.trim() !== '' && !t.includes('\r'));
    // A body as parse returns it: no leading blank lines, no trailing whitespace.
    const body = fc
      .array(text, { minLength: 1, maxLength: 6 })
      .map((lines) =>
        lines
          .join('\n')
          .replace(/^\s*\n/, '')
          .trimEnd(),
      )
      .filter((b) => b.trim() !== '' && !/^\s*\n/.test(b) && !b.split('\n').some((l) => l.trimEnd() === '---'));
    const skill = fc.record({
      name,
      description: text.filter((t) => t === t.replace(/\uFEFF/g, '')),
      kind: fc.constantFrom<'reply' | 'strategy'>('reply', 'strategy'),
      intents: fc.uniqueArray(fc.constantFrom(...INTENTS), { minLength: 1, maxLength: 3 }),
      body,
    });
    fc.assert(
      fc.property(skill, (s) => {
        const full: Skill = { ...s, intents: [...s.intents], metadata: { kind: s.kind, intents: [...s.intents] } };
        expect(parseSkillMarkdown(renderSkillMarkdown(full), 'x.md')).toEqual(full);
      }),
      { numRuns: 200 },
    );
  });
});
