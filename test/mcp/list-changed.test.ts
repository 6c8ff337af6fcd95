/**
 * `tools.mcp.list_changed`: after discovery, on the next step the MCP server announces a changed list (a
 * marketing tool gains an optional parameter); that step's observation carries the full updated list,
 * the marker never reaches the policy, and the oracle still scores 1.
 */
import { describe, expect, it } from 'vitest';
import { HarnessGymEnv } from '../../env/index.js';
import { MARKETING_TOOLS } from '../../env/mcp.js';
import { OPERATORS } from '../../harness-variants/index.js';
import { MCP_LIST_CHANGED_MARK } from '../../protocol/harness.js';
import { oraclePolicy } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import type { ToolSchema } from '../../protocol/domain.js';

const OP = OPERATORS.filter((o) => o.name === 'tools.mcp.list_changed');
const SPEC = { families: ['tools'], intensity: 1, split: 'train' };

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  },
});

function paramsOf(tools: ToolSchema[] | undefined, name: string): string[] {
  const t = (tools ?? []).find((x) => x.function.name === name);
  return Object.keys((t?.function.parameters.properties ?? {}) as object);
}

describe('tools.mcp.list_changed', () => {
  it('is registered in the tools family, after the other tool operators', () => {
    const names = OPERATORS.map((o) => o.name);
    const i = names.indexOf('tools.mcp.list_changed');
    expect(OP.map((o) => o.family)).toEqual(['tools']);
    expect(names.slice(0, i).some((n) => n.startsWith('prompt.') || n.startsWith('hooks.'))).toBe(false);
    expect(names.slice(i + 1).every((n) => !n.startsWith('tools.') && !n.startsWith('skills.'))).toBe(true);
  });

  it('the list changes on the step after discovery, and the observation carries the full list', () => {
    for (const seed of [3, 4, 5, 6]) {
      const env = new HarnessGymEnv({ operators: OP });
      const r = env.reset({ seed, options: { task: { intent: 'marketing' }, variant: SPEC } });
      const ep = env.episode;
      if (!ep) throw new Error('no episode');
      const changed = ep.params.harness.tools.find((t) => JSON.stringify(t).includes(MCP_LIST_CHANGED_MARK));
      expect(changed, `seed ${seed}`).toBeDefined();
      const name = (changed as ToolSchema).function.name;
      expect(MARKETING_TOOLS.map((t) => ep.params.map.toolToSurface(t))).toContain(name);
      expect(paramsOf(r.observation.tools, name)).toEqual([]);

      const found = env.step(call('d', 'discover_tools', { server: 'marketing' }));
      const before = paramsOf(found.observation.tools, name);
      const next = env.step(call('p', 'get_promotions', {}));
      const after = paramsOf(next.observation.tools, name);
      expect(after.length).toBe(before.length + 1);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(JSON.stringify(found.observation.tools)).not.toContain(MCP_LIST_CHANGED_MARK);
      expect(JSON.stringify(next.observation.tools)).not.toContain(MCP_LIST_CHANGED_MARK);
      expect(names(next.observation.tools)).toEqual(names(ep.params.harness.tools));
      // Announced once: later steps send no tool list.
      expect(env.step(call('q', 'get_promotions', {})).observation.tools).toBeUndefined();
      // The announced parameter is accepted and ignored (surface-only).
      const withExtra = env.step(call('x', name, { [after[after.length - 1]]: 'x' }));
      const errs = (withExtra.info.tool_errors ?? []) as { code: string }[];
      expect(errs.some((e) => e.code === 'UNKNOWN_TOOL')).toBe(false);
    }
  });

  it('the oracle still scores exactly 1 on marketing and multi-intent tasks', () => {
    for (const intent of ['marketing', 'multi_intent']) {
      const s = evaluate({ policy: oraclePolicy, episodes: 60, seed: 1, variant: SPEC as never, intent, config: { operators: OP } });
      expect(s.reward.mean).toBe(1);
    }
  });
});

function names(tools: ToolSchema[] | undefined): string[] {
  return (tools ?? []).map((t) => t.function.name);
}
