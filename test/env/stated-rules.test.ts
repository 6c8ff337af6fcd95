/**
 * Rules the prompt states bind whether or not a hook enforces them (issue 15): an episode checks its
 * final reply against the output rules its prompt states (length, plain text, banned words, an ending)
 * and puts the breaches no hook caught in `trace.rule_violations`; rewards score them. A prompt without
 * an output-rules block states none.
 */
import { describe, expect, it } from 'vitest';
import type { Harness, HookSpec } from '../../protocol/harness.js';
import { Episode, createEpisode, defaultEnvConfig } from '../../env/index.js';
import { requiredEnding, statedRuleHooks } from '../../env/hooks.js';

const config = defaultEnvConfig();

/** An identity episode (seed 3, zh-CN) with its harness edited; the replies below state no number (no evidence needed). */
function episodeWith(edit: (h: Harness) => Harness): Episode {
  const created = createEpisode(config, { episode_id: 't', seed: 3, options: {} });
  if (!created.ok) throw new Error(created.error.message);
  const p = created.episode.params;
  return new Episode({ ...p, harness: edit(p.harness) });
}

const withHook = (h: Harness, id: string, change: (spec: HookSpec) => HookSpec): Harness => ({
  ...h,
  hooks: h.hooks.map((spec) => (spec.id === id ? change(spec) : spec)),
});

const loadSkill = { message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } }] } };
const reply = (text: string) => ({ message: { role: 'assistant', content: text } });

/** Load the skill, reply once; the episode's trace. */
function play(ep: Episode, text: string) {
  ep.reset();
  expect(ep.step(loadSkill).ok).toBe(true);
  const r = ep.step(reply(text));
  if (!r.ok) throw new Error(r.error.message);
  return { result: r, trace: ep.trace() };
}

describe('rules the prompt states', () => {
  it('a Markdown reply that no hook checks (reply_format off) is accepted, and the trace records the breach', () => {
    const ep = episodeWith((h) => withHook(h, 'reply_format', (s) => ({ ...s, enabled: false })));
    const { result, trace } = play(ep, '**宝宝**稍等一下哦');
    expect(result.terminated).toBe(true);
    expect(result.info.hook_violations).toBeUndefined();
    expect(trace.rule_violations).toEqual([{ hook: 'reply_format', code: 'MARKDOWN', message: expect.any(String), evidence: '**宝宝**' }]);
  });

  it('a check a variant dropped from reply_format still binds, as the prompt states it', () => {
    const ep = episodeWith((h) =>
      withHook(h, 'reply_format', (s) => ({ ...s, params: { ...s.params, checks: (s.params.checks as string[]).filter((c) => c !== 'EMOJI') } })),
    );
    const { trace } = play(ep, '宝宝稍等一下哦😀');
    expect(trace.rule_violations?.map((v) => v.code)).toEqual(['EMOJI']);
  });

  it('a clean reply breaks no stated rule', () => {
    const { trace } = play(episodeWith((h) => h), '宝宝稍等一下哦');
    expect(trace.rule_violations).toEqual([]);
    expect(trace.required_ending).toBeUndefined();
  });

  it('a prompt without an output-rules block states none', () => {
    const ep = episodeWith((h) =>
      withHook({ ...h, prompt: { ...h.prompt, blocks: h.prompt.blocks.filter((b) => b.id !== 'output_rules') } }, 'reply_format', (s) => ({ ...s, enabled: false })),
    );
    const { trace } = play(ep, '**宝宝**稍等一下哦');
    expect(trace.rule_violations).toEqual([]);
    expect(statedRuleHooks(ep.params.harness)).toEqual([]);
  });

  it('an enabled output constraint is a stated rule, and its ending is part of the trace', () => {
    const ep = episodeWith((h) =>
      withHook(h, 'output_constraints', (s) => ({ ...s, enabled: true, params: { forbidden_words: ['冲鸭'], required_ending: '感谢观看' } })),
    );
    expect(requiredEnding(ep.params.harness)).toBe('感谢观看');
    // The hook itself enforces it here: the reply is sent back, then a good one is accepted.
    ep.reset();
    ep.step(loadSkill);
    const first = ep.step(reply('宝宝稍等一下，冲鸭'));
    expect(first.ok && first.info.hook_violations).toEqual([
      { hook: 'output_constraints', code: 'FORBIDDEN_WORD' },
      { hook: 'output_constraints', code: 'MISSING_ENDING' },
    ]);
    const done = ep.step(reply('宝宝稍等一下，感谢观看'));
    expect(done.ok && done.terminated).toBe(true);
    const trace = ep.trace();
    expect(trace.rule_violations).toEqual([]);
    expect(trace.required_ending).toBe('感谢观看');
  });
});
