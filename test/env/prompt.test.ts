import { describe, expect, it } from 'vitest';
import { loadBaseHarness } from '../../harness/index.js';
import { generateWorld } from '../../mock-services/index.js';
import { generateTask } from '../../env/tasks/index.js';
import { renderSystemPrompt, renderToolsDoc, linkName } from '../../env/prompt.js';
import type { Harness, PromptSpec } from '../../protocol/harness.js';

const base = loadBaseHarness('zh-CN');
const task = generateTask(21, 'zh-CN');
const world = generateWorld(task.world_seed, 'zh-CN');

function withPrompt(over: Partial<PromptSpec>): Harness {
  return { ...base, prompt: { ...base.prompt, ...over } };
}

describe('system prompt pipeline', () => {
  it('renders every block in the spec order with the room facts filled in', () => {
    const text = renderSystemPrompt(base, world, task);
    const titles = base.prompt.blocks.map((b) => `## ${b.title}`);
    const positions = titles.filter((t) => text.includes(t)).map((t) => text.indexOf(t));
    expect(positions.length).toBeGreaterThanOrEqual(base.prompt.blocks.length - 1); // tools_doc is empty in the base style
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const current = world.products.find((p) => p.link_no === world.room.current_link);
    expect(text).toContain(`${linkName(current!.link_no, 'zh-CN')} ${current!.title}`);
    for (const p of world.products) expect(text).toContain(p.item_id);
    expect(text).toContain(task.viewer_id);
    expect(text).toContain(String(base.limits.reply_max_chars));
    expect(text).not.toMatch(/\{\{\w+\}\}/);
  });

  it('follows the header, item and block-order styles of the spec', () => {
    const xml = renderSystemPrompt(withPrompt({ header_style: 'xml' }), world, task);
    const first = base.prompt.blocks[0].title;
    expect(xml).toContain(`<${first}>`);
    expect(xml).toContain(`</${first}>`);
    expect(renderSystemPrompt(withPrompt({ header_style: 'brackets' }), world, task)).toContain(`【${first}】`);
    const numbered = renderSystemPrompt(withPrompt({ item_style: 'numbered' }), world, task);
    expect(numbered).toMatch(/^1\. /m);
    const reversed = renderSystemPrompt(withPrompt({ blocks: [...base.prompt.blocks].reverse() }), world, task);
    expect(reversed.indexOf(`## ${base.prompt.blocks.at(-1)!.title}`)).toBe(0);
    const extra = renderSystemPrompt(withPrompt({ extra_context: ['今天天气不错。'] }), world, task);
    expect(extra.endsWith('今天天气不错。')).toBe(true);
  });

  it('documents tools as JSON, XML or signatures', () => {
    const tools = base.tools.filter((t) => t.function.name === 'get_product');
    expect(renderToolsDoc(tools, 'none')).toBe('');
    expect(JSON.parse(renderToolsDoc(tools, 'json')).name).toBe('get_product');
    expect(renderToolsDoc(tools, 'xml')).toMatch(
      /^<tool name="get_product"><description>.+<\/description><param name="link_no" type="integer"\/><param name="item_id" type="string"\/><\/tool>$/,
    );
    expect(renderToolsDoc(tools, 'signatures')).toMatch(/^get_product\(link_no\?: integer, item_id\?: string\)  # .+$/);
  });
});
