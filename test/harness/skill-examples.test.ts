import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../protocol/domain.js';
import { loadBaseHarness } from '../../harness/index.js';
import { runReplyHooks } from '../../env/hooks.js';

// The skills' example replies are what a policy imitates: each must pass every base reply hook, with no
// evidence at all (examples use placeholders such as ××元 / X yuan, never real-looking numbers).
describe('skill example replies', () => {
  for (const locale of LOCALES) {
    it(`pass the base reply hooks (${locale})`, () => {
      const h = loadBaseHarness(locale);
      const prefix = locale === 'en' ? 'Example reply: ' : '示例回复：';
      const examples = h.skills.flatMap((s) =>
        s.body
          .split('\n')
          .filter((l) => l.startsWith(prefix))
          .map((l) => ({ skill: s.name, reply: l.slice(prefix.length) })),
      );
      expect(examples.map((e) => e.skill)).toEqual(h.skills.filter((s) => s.name !== 'compliance-guard').map((s) => s.name));
      for (const { skill, reply } of examples) {
        const ctx = {
          reply,
          locale,
          limits: h.limits,
          evidence_numbers: new Set<number>(),
          reply_skill_loaded: true,
          special_cosmetic_in_scope: false,
          called_tools: new Set<string>(),
        };
        expect(runReplyHooks(h.hooks, ctx), skill).toEqual([]);
      }
    });
  }
});
