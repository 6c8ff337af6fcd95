/**
 * Hook kinds (issue 14, "the harness is an input"): a harness's hooks.yaml holds any subset of the
 * library's checks, in any order, under its own ids (`kind` names the check; absent, the id does); the
 * loader reports every mistake at once with file and key; the stop hook `required_call` objects to a
 * final reply after a trigger tool until the required tool was called, with the hook's own id, code and
 * message in each locale; the HSA operators find hooks by kind, survive absent ones and leave
 * required_call hooks alone.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import type { HookViolation, Locale } from '../../protocol/domain.js';
import type { Harness, HookSpec } from '../../protocol/harness.js';
import { hookKind } from '../../protocol/harness.js';
import { HOOK_IDS, HOOK_KINDS, embeddedHarness, harnessDataDir } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { OPERATORS } from '../../harness-variants/index.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import type { Episode } from '../../env/index.js';
import { describeViolation, feedbackMessage, isHookEnabled, requiredEnding, runInputHooks, runReplyHooks, statedRuleHooks } from '../../env/hooks.js';
import type { ReplyHookContext } from '../../env/hooks.js';
import { loadDir as load, refusalsOf as errorsOf } from '../harness/load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type HookEntry = { id: string; kind?: string; stage: string; enabled: boolean; params: Record<string, unknown> };

/** A copy of the embedded harness's data files whose hooks.yaml `hooks` list is rewritten by `edit`. */
function harnessWithHooks(edit: (hooks: HookEntry[]) => HookEntry[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hg-hook-kinds-'));
  dirs.push(dir);
  cpSync(harnessDataDir(), dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  const file = join(dir, 'hooks.yaml');
  const doc = YAML.parse(readFileSync(file, 'utf8')) as { hooks: HookEntry[] };
  doc.hooks = edit(doc.hooks);
  writeFileSync(file, YAML.stringify(doc));
  return dir;
}

const byId = (hooks: readonly HookEntry[], id: string): HookEntry => {
  const h = hooks.find((x) => x.id === id);
  if (!h) throw new Error(`no hook ${id}`);
  return h;
};

const MESSAGE = { 'zh-CN': '拒答前需要先转人工登记', en: 'A refusal must be handed to a human first' };

/** A stop hook over two tools of the embedded harness (the report_risk is not one of them). */
const refusalHook = (over: Partial<HookEntry> = {}, params: Record<string, unknown> = {}): HookEntry => ({
  id: 'refusal_handed_off',
  kind: 'required_call',
  stage: 'reply',
  enabled: true,
  params: { when_called: ['refuse_request'], require: 'handoff_to_human', code: 'REFUSAL_NOT_HANDED_OFF', message: MESSAGE, ...params },
  ...over,
});

function ctx(locale: Locale, reply: string, called: readonly string[] = []): ReplyHookContext {
  return {
    reply,
    locale,
    limits: embeddedHarness().get(locale).limits,
    evidence_numbers: new Set<number>(),
    reply_skill_loaded: true,
    special_cosmetic_in_scope: false,
    called_tools: new Set(called),
  };
}

describe('loading hooks of any kinds, order and ids', () => {
  it('a subset in another order loads as written, with no kind key on hooks that have none', () => {
    const h = load(harnessWithHooks((hooks) => [byId(hooks, 'factual_risk'), byId(hooks, 'input_guard'), byId(hooks, 'reply_format')]));
    for (const locale of ['zh-CN', 'en'] as const) {
      const hooks = h.get(locale).hooks;
      expect(hooks.map((x) => x.id)).toEqual(['factual_risk', 'input_guard', 'reply_format']);
      expect(hooks.every((x) => !Object.hasOwn(x, 'kind'))).toBe(true);
      expect(hooks.map((x) => x.params)).toEqual(['factual_risk', 'input_guard', 'reply_format'].map((id) => embeddedHarness().get(locale).hooks.find((b) => b.id === id)?.params));
    }
    // The embedded harness keeps its seven hooks, in order, without kinds.
    expect(embeddedHarness().get('zh-CN').hooks.map((x) => x.id)).toEqual(HOOK_IDS);
    expect(embeddedHarness().get('zh-CN').hooks.some((x) => Object.hasOwn(x, 'kind'))).toBe(false);
    expect(HOOK_KINDS).toEqual([...HOOK_IDS, 'required_call']);
  });

  it('a harness with no hooks at all loads, and its replies pass unchecked', () => {
    const h = load(harnessWithHooks(() => [])).get('zh-CN');
    expect(h.hooks).toEqual([]);
    expect(runReplyHooks(h.hooks, ctx('zh-CN', '**最好的**😀'))).toEqual([]);
    expect(runInputHooks(h.hooks, '')).toEqual([]);
  });

  it('a renamed hook runs its kind and reports its own id (reply, input and tool_args stages)', () => {
    const h = load(
      harnessWithHooks((hooks) =>
        hooks.map((x) => {
          const renamed: Record<string, string> = { prohibited_phrases: 'ad_law', input_guard: 'danmaku_guard', tool_args: 'args_schema', reply_format: 'tts_form' };
          return renamed[x.id] ? { ...x, id: renamed[x.id], kind: x.id } : x;
        }),
      ),
    );
    const zh = h.get('zh-CN');
    expect(zh.hooks.find((x) => x.id === 'ad_law')).toMatchObject({ id: 'ad_law', kind: 'prohibited_phrases', stage: 'reply' });
    expect(Object.keys(zh.hooks.find((x) => x.id === 'ad_law') as object)).toEqual(['id', 'kind', 'stage', 'enabled', 'params']);
    expect(runReplyHooks(zh.hooks, ctx('zh-CN', '这是全网最好的面霜')).map((v) => [v.hook, v.code])).toEqual([['ad_law', 'ABSOLUTE_TERM']]);
    expect(runInputHooks(zh.hooks, '')).toEqual([{ hook: 'danmaku_guard', code: 'EMPTY_INPUT', message: '观众消息为空' }]);
    expect(isHookEnabled(zh.hooks, 'prohibited_phrases')).toBe(true);
    expect(isHookEnabled(zh.hooks, 'ad_law')).toBe(false);
    // The stated form rules are found by kind too.
    expect(statedRuleHooks(zh).map((x) => x.id)).toEqual(['tts_form']);

    // The tool router finds tool_args by kind and names it by its id.
    const ep = episode(h, 5);
    const r = ep.step(call('refuse_request', { category: 'not-a-category' }));
    expect(r.ok && r.info.hook_violations).toEqual([{ hook: 'args_schema', code: 'INVALID_ARGUMENTS' }]);
  });
});

describe('hooks.yaml errors, every one at once', () => {
  it('unknown kind, id without a kind, duplicate id, second hook of a kind, wrong stage, id naming another kind', () => {
    const errors = errorsOf(
      harnessWithHooks((hooks) => [
        ...hooks,
        { id: 'stop_hook', kind: 'stop', stage: 'reply', enabled: true, params: {} },
        { id: 'my_check', stage: 'reply', enabled: true, params: {} },
        { ...byId(hooks, 'factual_risk') },
        { ...byId(hooks, 'factual_risk'), id: 'numbers', kind: 'factual_risk' },
        refusalHook({ stage: 'input' }),
        refusalHook({ id: 'reply_format' }),
      ]),
    );
    expect(errors).toEqual([
      `hooks.yaml: hooks.7.kind: unknown hook kind "stop" (kinds: ${HOOK_KINDS.join(', ')}, module)`,
      `hooks.yaml: hooks.8.id: "my_check" is not a hook kind; give the hook a kind (kinds: ${HOOK_KINDS.join(', ')}, module)`,
      'hooks.yaml: hooks.9.id: "factual_risk" is already the id of hooks.5; hook ids are unique',
      'hooks.yaml: hooks.9.kind: hooks.5 is already a factual_risk hook; a harness has at most one (variants edit it by kind)',
      'hooks.yaml: hooks.10.kind: hooks.5 is already a factual_risk hook; a harness has at most one (variants edit it by kind)',
      'hooks.yaml: hooks.11.stage: required_call runs at stage reply',
      'hooks.yaml: hooks.12.id: "reply_format" is already the id of hooks.3; hook ids are unique',
      'hooks.yaml: hooks.12.id: "reply_format" names the kind reply_format; give a required_call hook another id',
    ]);
  });

  it('a bad id is a schema error', () => {
    const errors = errorsOf(harnessWithHooks((hooks) => [...hooks, refusalHook({ id: 'Refusal-Check' })]));
    expect(errors).toEqual(['hooks.yaml: hooks.7.id: must match ^[a-z][a-z0-9_]*$']);
  });

  it('bad params of required_call: shape, code, message, tools of the harness, library codes', () => {
    const errors = errorsOf(
      harnessWithHooks((hooks) => [
        ...hooks,
        refusalHook({ id: 'a' }, { when_called: [], require: undefined, extra: 1 }),
        refusalHook({ id: 'b' }, { code: 'lower_case', message: { 'zh-CN': '需要先转人工。', en: '' } }),
        refusalHook({ id: 'c' }, { when_called: ['refuse_request', 'report_risk'], require: 'escalate' }),
        refusalHook({ id: 'd' }, { code: 'SKILL_NOT_LOADED' }),
        refusalHook({ id: 'e' }, { when_called: ['handoff_to_human'] }),
      ]),
    );
    const tools = embeddedHarness().get('zh-CN').tools.map((t) => t.function.name).sort().join(', ');
    const at = (i: number) => errors.filter((e) => e.startsWith(`hooks.yaml: hooks.${i}.`)).sort();
    expect(at(7)).toEqual([
      'hooks.yaml: hooks.7.params.require: Invalid input: expected string, received undefined',
      'hooks.yaml: hooks.7.params.when_called: Too small: expected array to have >=1 items',
      'hooks.yaml: hooks.7.params: Unrecognized key: "extra"',
    ]);
    expect(at(8)).toEqual([
      'hooks.yaml: hooks.8.params.code: must match ^[A-Z][A-Z_]*$',
      expect.stringMatching(/^hooks\.yaml: hooks\.8\.params\.message\.en: Too small/),
      'hooks.yaml: hooks.8.params.message.zh-CN: must not end with punctuation (the feedback templates add it)',
    ]);
    expect(errors.filter((e) => e.startsWith('hooks.yaml: hooks.9.'))).toEqual([
      `hooks.yaml: hooks.9.params.when_called.1: "report_risk" is not a tool of this harness (tools: ${tools})`,
      `hooks.yaml: hooks.9.params.require: "escalate" is not a tool of this harness (tools: ${tools})`,
    ]);
    expect(errors.filter((e) => e.startsWith('hooks.yaml: hooks.10.'))).toEqual([
      "hooks.yaml: hooks.10.params.code: SKILL_NOT_LOADED is a code of the library's own hooks; give this hook a code of its own",
    ]);
    expect(errors.filter((e) => e.startsWith('hooks.yaml: hooks.11.'))).toEqual([
      'hooks.yaml: hooks.11.params.require: require must not be one of when_called (the hook could never fire)',
    ]);
    expect(errors.every((e) => /^hooks\.yaml: hooks\.(7|8|9|10|11)\./.test(e))).toBe(true);
  });

  it('two required_call hooks are allowed', () => {
    const h = load(harnessWithHooks((hooks) => [...hooks, refusalHook(), refusalHook({ id: 'handoff_needs_faq' }, { when_called: ['handoff_to_human'], require: 'search_faq', code: 'FAQ_NOT_SEARCHED' })]));
    expect(h.get('en').hooks.filter((x) => hookKind(x) === 'required_call').map((x) => x.id)).toEqual(['refusal_handed_off', 'handoff_needs_faq']);
  });
});

describe('required_call', () => {
  const harness = load(harnessWithHooks((hooks) => [...hooks, refusalHook()]));
  const stop = harness.get('zh-CN').hooks.find((x) => x.id === 'refusal_handed_off') as HookSpec;

  it('objects to a reply after the trigger without the required call, with its id, code and message per locale', () => {
    for (const locale of ['zh-CN', 'en'] as const) {
      const hooks = harness.get(locale).hooks;
      expect(runReplyHooks([stop], ctx(locale, 'ok', ['load_skill', 'refuse_request']))).toEqual([
        { hook: 'refusal_handed_off', code: 'REFUSAL_NOT_HANDED_OFF', message: MESSAGE[locale] },
      ]);
      // Among the other hooks, in the hooks' order.
      expect(runReplyHooks(hooks, ctx(locale, 'ok', ['refuse_request'])).map((v) => v.hook)).toEqual(['refusal_handed_off']);
      // The required call before the reply (before or after the trigger): no objection.
      expect(runReplyHooks(hooks, ctx(locale, 'ok', ['handoff_to_human', 'refuse_request']))).toEqual([]);
      expect(runReplyHooks(hooks, ctx(locale, 'ok', ['refuse_request', 'handoff_to_human']))).toEqual([]);
      // Episodes that never call the trigger: none.
      expect(runReplyHooks(hooks, ctx(locale, 'ok', []))).toEqual([]);
      expect(runReplyHooks(hooks, ctx(locale, 'ok', ['get_product', 'search_faq', 'handoff_to_human']))).toEqual([]);
      // Disabled: none.
      expect(runReplyHooks([{ ...stop, enabled: false }], ctx(locale, 'ok', ['refuse_request']))).toEqual([]);
    }
  });

  it("feedback re-renders the hook's message in the feedback locale, from the harness's hooks", () => {
    const found: HookViolation[] = runReplyHooks([stop], ctx('zh-CN', 'ok', ['refuse_request']));
    const zh = harness.get('zh-CN');
    const en = harness.get('en');
    expect(feedbackMessage(zh.retry, found, zh.hooks)).toBe(`你的回复没有通过发布前检查：${MESSAGE['zh-CN']}。请修改后重新回复。`);
    // The feedback-locale operator's shape: English feedback and templates for a Chinese episode.
    const enFeedback = { ...zh.retry, feedback_locale: 'en' as const, templates: en.retry.templates };
    expect(feedbackMessage(enFeedback, found, zh.hooks)).toBe(`Your reply did not pass the pre-broadcast checks. ${MESSAGE.en}. Please revise it and reply again.`);
    expect(feedbackMessage({ ...enFeedback, feedback_style: 'tagged' }, found, zh.hooks)).toBe(
      `<hook_feedback>\n[REFUSAL_NOT_HANDED_OFF] ${MESSAGE.en}.\n</hook_feedback>`,
    );
    // A template for the hook's code is used like any other.
    const templated = { ...enFeedback, templates: { ...en.retry.templates, REFUSAL_NOT_HANDED_OFF: '{message}. Hand it over, then reply.' } };
    expect(feedbackMessage(templated, found, zh.hooks)).toContain(`${MESSAGE.en}. Hand it over, then reply.`);
    // Without the hooks, the message the violation carries; describeViolation finds it by code.
    expect(feedbackMessage(enFeedback, found)).toContain(`${MESSAGE['zh-CN']}.`);
    expect(describeViolation('REFUSAL_NOT_HANDED_OFF', undefined, 'en', zh.hooks)).toBe(MESSAGE.en);
    expect(describeViolation('REFUSAL_NOT_HANDED_OFF', undefined, 'en')).toBe('REFUSAL_NOT_HANDED_OFF');
  });

  it('in an episode: tools are counted in canonical names, calls with rejected arguments are not', () => {
    const opaque = OPERATORS.filter((op) => op.name === 'tools.rename.opaque');
    const config = defaultEnvConfig({ harness, operators: opaque });
    const created = createEpisode(config, {
      episode_id: 'k',
      seed: 11,
      variant: { families: ['tools'], intensity: 1, split: 'train' },
      options: { locale: 'zh-CN' },
    });
    if (!created.ok) throw new Error(created.error.message);
    const ep = created.episode;
    ep.reset();
    const surface = (name: string) => ep.params.map.toolToSurface(name) as string;
    expect(surface('refuse_request')).not.toBe('refuse_request');
    // Only tools are renamed here: skills keep their names. A refusal whose arguments are rejected does not count.
    expect(ep.step(call(surface('load_skill'), { name: 'risk-refusal' })).ok).toBe(true);
    const bad = ep.step(call(surface('refuse_request'), { category: 'nonsense' }));
    expect(bad.ok && bad.info.hook_violations).toEqual([{ hook: 'tool_args', code: 'INVALID_ARGUMENTS' }]);
    expect(ep.step(call(surface('refuse_request'), { category: 'medical' })).ok).toBe(true);
    const blocked = ep.step(reply('抱歉，这个问题我们不能回答哦'));
    if (!blocked.ok) throw new Error(blocked.error.message);
    expect(blocked.info.hook_violations).toEqual([{ hook: 'refusal_handed_off', code: 'REFUSAL_NOT_HANDED_OFF' }]);
    expect(blocked.terminated).toBe(false);
    expect(String(blocked.observation.messages.at(-1)?.content)).toContain(MESSAGE['zh-CN']);
    expect(ep.trace().turns.at(-1)?.hook_violations).toEqual([
      { hook: 'refusal_handed_off', code: 'REFUSAL_NOT_HANDED_OFF', message: MESSAGE['zh-CN'] },
    ]);
  });

  it('in an episode: the required call before the reply lets it through', () => {
    const ep = episode(harness, 12);
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    ep.step(call('refuse_request', { category: 'medical' }));
    ep.step(call('handoff_to_human', { reason: '观众咨询医疗功效' }));
    const r = ep.step(reply('抱歉，这个问题我们不能回答哦'));
    expect(r.ok && r.info.hook_violations).toBeUndefined();
    expect(r.ok && r.terminated).toBe(true);
  });
});

describe('HSA operators on harnesses with other hooks', () => {
  const variant = (split: 'train' | 'eval') => ({ families: ['hooks', 'prompt'], intensity: 1, split });

  function variantHarness(h: HarnessSet, seed: number, split: 'train' | 'eval', locale: Locale): Harness {
    const created = createEpisode(defaultEnvConfig({ harness: h }), { episode_id: `v${seed}`, seed, variant: variant(split), options: { locale } });
    if (!created.ok) throw new Error(created.error.message);
    created.episode.reset();
    return created.episode.params.harness;
  }

  it('do not crash when the hooks they edit are absent', () => {
    const single = load(harnessWithHooks((hooks) => [byId(hooks, 'prohibited_phrases')]));
    const none = load(harnessWithHooks(() => []));
    for (const h of [single, none]) {
      for (let seed = 1; seed <= 24; seed++) {
        const split = seed % 2 === 0 ? 'train' : 'eval';
        const locale: Locale = seed % 3 === 0 ? 'en' : 'zh-CN';
        const v = variantHarness(h, seed, split, locale);
        expect(v.hooks.map((x) => x.id)).toEqual(h.get(locale).hooks.map((x) => x.id));
        expect(requiredEnding(v)).toBeUndefined();
      }
    }
  });

  it('find renamed hooks by kind, and leave required_call hooks enabled, unchanged and in place', () => {
    const h = load(
      harnessWithHooks((hooks) => [
        refusalHook(),
        ...hooks.map((x) => (x.id === 'output_constraints' ? { ...x, id: 'ifeval', kind: 'output_constraints' } : x)),
        refusalHook({ id: 'handoff_needs_faq', enabled: true }, { when_called: ['handoff_to_human'], require: 'search_faq', code: 'FAQ_NOT_SEARCHED' }),
      ]),
    );
    let constrained = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const locale: Locale = seed % 2 === 0 ? 'en' : 'zh-CN';
      const base = h.get(locale).hooks;
      const v = variantHarness(h, seed, seed % 4 === 0 ? 'eval' : 'train', locale);
      expect(v.hooks[0]).toEqual(base[0]);
      expect(v.hooks.at(-1)).toEqual(base.at(-1));
      expect(v.hooks.filter((x) => hookKind(x) === 'required_call').every((x) => x.enabled)).toBe(true);
      expect(v.hooks.map((x) => x.id).sort()).toEqual(base.map((x) => x.id).sort());
      const ifeval = v.hooks.find((x) => x.id === 'ifeval') as HookSpec;
      if (ifeval.enabled) {
        constrained++;
        expect(requiredEnding(v)).toBe(typeof ifeval.params.required_ending === 'string' ? ifeval.params.required_ending : undefined);
      }
    }
    // The constraint operators reached the renamed output_constraints hook.
    expect(constrained).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------

function episode(h: HarnessSet, seed: number): Episode {
  const created = createEpisode(defaultEnvConfig({ harness: h }), { episode_id: `e${seed}`, seed, options: { locale: 'zh-CN' } });
  if (!created.ok) throw new Error(created.error.message);
  created.episode.reset();
  return created.episode;
}

function call(name: string, args: unknown, id = `c-${name}`) {
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    },
  };
}

function reply(text: string) {
  return { message: { role: 'assistant', content: text } };
}
