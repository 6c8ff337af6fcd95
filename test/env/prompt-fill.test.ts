import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { loadBaseHarness } from '../../harness/index.js';
import { worldFor } from '../../mock-services/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { promptFacts, renderSystemPrompt, roomFacts } from '../../env/prompt.js';
import type { Harness } from '../../protocol/harness.js';

const base = loadBaseHarness('en');
const task = generateTask(5, 'en');
const world = worldFor(task.world_seed, 'en');

/** A harness whose prompt is one block with this template and these items. */
function oneBlock(template: string, items: string[]): Harness {
  const block = { id: 'persona' as const, title: 'T', template, items };
  return { ...base, prompt: { ...base.prompt, blocks: [block], header_style: 'plain', item_style: 'dash', extra_context: [] } };
}

describe('prompt placeholders', () => {
  it('fill as /\\{\\{(\\w+)\\}\\}/g with the facts does, unknown keys kept as written', () => {
    const facts = promptFacts(base, world, task) as unknown as Record<string, string>;
    const byRegex = (t: string): string => t.replace(/\{\{(\w+)\}\}/g, (whole, k: string) => (Object.hasOwn(facts, k) ? facts[k] : whole));
    const piece = fc.constantFrom(
      '{',
      '}',
      '{{',
      '}}',
      'persona_name',
      'room',
      'nope',
      'constructor',
      '_',
      ' ',
      'x',
      '{{room}}',
      '{{{max_turns}}}',
      '{{}}',
    );
    const text = fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => `a${p.join('')}z`);
    fc.assert(
      fc.property(text, text, (template, item) => {
        expect(renderSystemPrompt(oneBlock(template, [item]), world, task)).toBe(`T:\n${byRegex(template)}\n- ${byRegex(item)}`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('renders the same prompt whether the room facts are passed in or computed', () => {
    const room = roomFacts(world, 'en');
    expect(renderSystemPrompt(base, world, task, false, room)).toBe(renderSystemPrompt(base, world, task));
    expect(promptFacts(base, world, task, true, room)).toEqual(promptFacts(base, world, task, true));
  });
});
