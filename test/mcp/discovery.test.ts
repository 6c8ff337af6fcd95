/**
 * Discovery in an episode: the marketing tools are not offered until `discover_tools` is called (calling
 * one before is UNKNOWN_TOOL); discovery offers them in the variant's surface names, and that step's
 * observation carries the full tool list (PROTOCOL.md: tools on a step only when the set changed).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HarnessGymEnv } from '../../env/index.js';
import { MARKETING_TOOLS } from '../../env/mcp.js';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  },
});

function names(tools: { function: { name: string } }[] | undefined): string[] {
  return (tools ?? []).map((t) => t.function.name);
}

describe('discover_tools', () => {
  it('identity: marketing tools are hidden until discovery, then offered; calling one before is UNKNOWN_TOOL', () => {
    const env = new HarnessGymEnv();
    const r = env.reset({ seed: 11, options: { task: { intent: 'marketing' } } });
    const all = names(env.episode?.params.harness.tools);
    expect(names(r.observation.tools)).toEqual(all.filter((n) => !MARKETING_TOOLS.includes(n)));
    expect(names(r.observation.tools)).toContain('discover_tools');
    const item = (env.episode?.params.task.answer_key.solution.find((c) => c.name === 'get_promotions')?.arguments ?? {}) as Record<
      string,
      unknown
    >;

    const before = env.step(call('c1', 'get_promotions', item));
    expect(before.info.tool_errors).toEqual([{ tool_call_id: 'c1', code: 'UNKNOWN_TOOL' }]);
    expect(before.observation.tools).toBeUndefined();

    const found = env.step(call('c2', 'discover_tools', { server: 'marketing' }));
    expect(found.info.tool_errors).toBeUndefined();
    expect(names(found.observation.tools)).toEqual(all);
    expect(JSON.parse(found.observation.messages[0].content ?? '')).toEqual({
      server: 'marketing',
      tools: ['get_promotions', 'get_coupon', 'issue_coupon'],
    });

    const after = env.step(call('c3', 'get_promotions', item));
    expect(after.info.tool_errors).toBeUndefined();
    expect(after.observation.tools).toBeUndefined();
    // Discovering again changes nothing, so no tool list is sent.
    expect(env.step(call('c4', 'discover_tools', { server: 'marketing' })).observation.tools).toBeUndefined();
  });

  it('an unknown server is INVALID_ARGUMENTS (the schema enumerates the servers)', () => {
    const env = new HarnessGymEnv();
    env.reset({ seed: 11, options: { task: { intent: 'marketing' } } });
    const out = env.step(call('c1', 'discover_tools', { server: 'payments' }));
    expect(out.info.tool_errors).toEqual([{ tool_call_id: 'c1', code: 'INVALID_ARGUMENTS' }]);
    expect(out.observation.tools).toBeUndefined();
  });

  it('marketing answer keys discover first (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom('marketing', 'multi_intent'), (seed, intent) => {
        const env = new HarnessGymEnv();
        env.reset({ seed, options: { task: { intent } } });
        const key = env.episode?.params.task.answer_key;
        if (!key) return false;
        const uses = key.solution.some((c) => MARKETING_TOOLS.includes(c.name));
        const discovers = key.solution.filter((c) => c.name === 'discover_tools');
        if (!uses) return discovers.length === 0;
        return (
          discovers.length === 1 && key.solution[0].name === 'discover_tools' && key.required_calls[0].any_of[0].name === 'discover_tools'
        );
      }),
      { numRuns: 60 },
    );
  });

  it('augmented variants: discovery offers the marketing tools in surface names, and the variant solution still works', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        const env = new HarnessGymEnv();
        const r = env.reset({ seed, options: { task: { intent: 'marketing' }, variant: 'train' } });
        const ep = env.episode;
        if (!ep) return false;
        const map = ep.params.map;
        const hidden = MARKETING_TOOLS.map((t) => map.toolToSurface(t)).filter((s): s is string => s !== undefined);
        if (names(r.observation.tools).some((n) => hidden.includes(n))) return false;
        const discover = map.toolToSurface('discover_tools');
        if (discover === undefined) return true; // masked away: nothing to discover with (checker covers solvability)
        const args = map.argsToSurface('discover_tools', { server: 'marketing' });
        const out = env.step(call('d', discover, args));
        return (
          out.info.tool_errors === undefined &&
          hidden.every((h) => names(out.observation.tools).includes(h)) &&
          names(out.observation.tools).length === ep.params.harness.tools.length
        );
      }),
      { numRuns: 40 },
    );
  });
});
