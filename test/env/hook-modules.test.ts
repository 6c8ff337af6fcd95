/**
 * Hook modules (docs/HARNESS.md "Hook modules"): a harness binds a hook to its own `hooks/<module>.mjs`.
 * The fixture's module stop hook asks what the closed kinds cannot: once refuse_request was called with a
 * category, report_risk must have been called with the same category before the reply. Shown here: the
 * loader's refusals, each with its exact message; the hook blocking, its feedback per locale and through
 * a template, the retry, the hook-compliance reward; run-time failures as violations naming the module;
 * the input and tool_args stages; a train-preset variant still enforcing it.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Locale } from '../../protocol/domain.js';
import type { HookSpec } from '../../protocol/harness.js';
import { diffHarness, formatHarnessDiff } from '../../harness/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import type { Episode } from '../../env/index.js';
import { evaluate } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import { BUILTIN_HOOK_KINDS, feedbackMessage, implOf, requiredEnding, runInputHooks } from '../../env/hooks.js';
import { HOOK_KINDS, HOOK_KIND_STAGES, embeddedHarness } from '../../harness/index.js';
import { REPORT_HOOK, REPORT_MATCHES_MJS, REPORT_MESSAGE, writeHookModuleHarness } from '../harness/hook-module-harness.js';
import { loadDir as load, refusalsOf as errorsOf } from '../harness/load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function write(options: Parameters<typeof writeHookModuleHarness>[0] = {}): string {
  const dir = writeHookModuleHarness(options);
  dirs.push(dir);
  return dir;
}

/** The index of the module hook in the fixture's hooks.yaml. */
const AT = (() => {
  const harness = load(write());
  return harness.get('zh-CN').hooks.findIndex((h) => h.id === 'refusal_reported');
})();

/** The report-matches module with one part of its default export replaced. */
const withPart = (from: string, to: string): string => {
  if (!REPORT_MATCHES_MJS.includes(from)) throw new Error(`no ${from}`);
  return REPORT_MATCHES_MJS.replace(from, to);
};

const module = (source: string) => ({ modules: { 'report-matches': source } });
const hookWith = (over: Record<string, unknown>) => ({
  hooks: (hooks: Record<string, unknown>[]) => hooks.map((h) => (h.id === 'refusal_reported' ? { ...h, ...over } : h)) as never,
});

describe('loading a hook module', () => {
  it('loads: the hook keeps its module, stage and params; the module is the harness\'s, by name', () => {
    const harness = load(write());
    for (const locale of ['zh-CN', 'en'] as const) {
      expect(harness.get(locale).hooks[AT]).toEqual(REPORT_HOOK);
    }
    const m = harness.hookModules.get('report-matches');
    expect([m?.name, m?.version, m?.file, m?.stages]).toEqual(['report-matches', '1.0.0', 'hooks/report-matches.mjs', ['reply']]);
    expect([...harness.hookModules.keys()]).toEqual(['report-matches']);
  });

  it('the module file enters the content hash, and `harness diff` lists its change', () => {
    const a = load(write());
    const b = load(write(module(REPORT_MATCHES_MJS.replace("version: '1.0.0'", "version: '1.0.1'"))));
    expect(a.identity.hash).not.toBe(b.identity.hash);
    expect(formatHarnessDiff(diffHarness(a, b))).toBe('~ file hooks/report-matches.mjs: content (zh-CN, en)');
    // A hook bound to another module is a changed hook.
    const other = REPORT_MATCHES_MJS.replace("name: 'report-matches'", "name: 'report-same'");
    const c = load(write({ modules: { 'report-same': other }, ...hookWith({ module: 'report-same' }) }));
    expect(formatHarnessDiff(diffHarness(a, c)).split('\n')[0]).toBe('~ hook refusal_reported: module (zh-CN, en)');
  });

  it('refuses each broken module with its file named', () => {
    const cases: [Parameters<typeof writeHookModuleHarness>[0], string[]][] = [
      [hookWith({ module: 'nope' }), ['hooks/nope.mjs: (file): missing: hooks.yaml binds a hook to module nope, which is this file']],
      [module("throw new Error('boom');\n"), ['hooks/report-matches.mjs: (file): cannot load: boom']],
      [module('export const check = 1;\n'), ['hooks/report-matches.mjs: default: must export default an object { name, version, stages, params?, codes, check(input, params, ctx) }']],
      [module(withPart("name: 'report-matches'", "name: 'other'")), ['hooks/report-matches.mjs: default.name: must be "report-matches" (the file name), got "other"']],
      [module(withPart("version: '1.0.0'", "version: ''")), ['hooks/report-matches.mjs: default.version: must be a non-empty string']],
      [module(withPart('check(input, params) {', 'chek(input, params) {')), ['hooks/report-matches.mjs: default.check: must be a function (input, params, ctx) => [{ code, evidence? }]']],
      [module(withPart("stages: ['reply']", "stages: ['reply', 'skill_load']")), ['hooks/report-matches.mjs: default.stages: must be a non-empty list of input, tool_args, reply']],
      [
        module(withPart("REPORT_MISMATCH: { 'zh-CN'", "report_mismatch: { 'zh-CN'")),
        ['hooks/report-matches.mjs: default.codes.report_mismatch: must match ^[A-Z][A-Z_]*$'],
      ],
      [
        module(withPart("REPORT_MISMATCH: { 'zh-CN'", "TOO_LONG: { 'zh-CN'")),
        ["hooks/report-matches.mjs: default.codes.TOO_LONG: TOO_LONG is a code of the library's own hooks; give this module a code of its own"],
      ],
      [
        module(withPart(`en: '${REPORT_MESSAGE.en}'`, `en: '${REPORT_MESSAGE.en}.'`)),
        ['hooks/report-matches.mjs: default.codes.REPORT_MISMATCH.en: must not end with punctuation (the feedback templates add it)'],
      ],
      [
        module(withPart(`, en: '${REPORT_MESSAGE.en}'`, '')),
        ['hooks/report-matches.mjs: default.codes.REPORT_MISMATCH.en: must be a non-empty string'],
      ],
      [
        module(withPart("field: { type: 'string', minLength: 1 }", "field: { type: 'strang' }")),
        [
          'hooks/report-matches.mjs: default.params: not a valid JSON Schema: schema is invalid: data/properties/field/type must be equal to one of the allowed values, data/properties/field/type must be array, data/properties/field/type must match a schema in anyOf',
        ],
      ],
      [hookWith({ stage: 'input' }), [`hooks.yaml: hooks.${AT}.stage: module report-matches runs at stage reply`]],
      [
        hookWith({ params: { trigger: 'Refuse', report: 'report_risk' } }),
        [
          `hooks.yaml: hooks.${AT}.params: (params): must have required property 'field' (the JSON Schema of hooks/report-matches.mjs)`,
          `hooks.yaml: hooks.${AT}.params: trigger: must match pattern "^[a-z][a-z0-9_]*$" (the JSON Schema of hooks/report-matches.mjs)`,
        ],
      ],
      [hookWith({ module: undefined }), [`hooks.yaml: hooks.${AT}.module: a module hook names its module (the file hooks/<module>.mjs)`]],
      [hookWith({ kind: 'required_call' }), [`hooks.yaml: hooks.${AT}.module: only a hook of kind module names a module; give it kind: module`]],
      [hookWith({ id: 'reply_format' }), [
        `hooks.yaml: hooks.${AT}.id: "reply_format" names the kind reply_format; give a module hook another id`,
        `hooks.yaml: hooks.${AT + 1}.id: "reply_format" is already the id of hooks.${AT}; hook ids are unique`,
      ]],
    ];
    for (const [options, expected] of cases) expect(errorsOf(write(options))).toEqual(expected);
  });

  it('several hooks may bind one module; the module is loaded once', () => {
    const twice = write({ hooks: (hooks) => [...hooks, { ...REPORT_HOOK, id: 'refusal_reported_again' }] });
    const h = load(twice);
    expect(h.get('en').hooks.filter((x) => x.kind === 'module').map((x) => x.id)).toEqual(['refusal_reported', 'refusal_reported_again']);
  });
});

// ---------------------------------------------------------------------------------------------------

function episode(h: HarnessSet, seed: number, locale: Locale, variant?: string): Episode {
  const created = createEpisode(defaultEnvConfig({ harness: h }), {
    episode_id: `m${seed}`,
    seed,
    ...(variant ? { variant } : {}),
    task: { intent: 'risky' },
    options: { locale },
  });
  if (!created.ok) throw new Error(created.error.message);
  created.episode.reset();
  return created.episode;
}

function call(name: string, args: unknown, id = `c-${name}`) {
  return { message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] } };
}

function reply(text: string) {
  return { message: { role: 'assistant', content: text } };
}

const REFUSAL: Record<Locale, string> = { 'zh-CN': '抱歉，这个问题我们不能回答哦', en: "Sorry, that is something we can't answer here" };
const FEEDBACK: Record<Locale, string> = {
  'zh-CN': `你的回复没有通过发布前检查：${REPORT_MESSAGE['zh-CN']}。请修改后重新回复。`,
  en: `Your reply did not pass the pre-broadcast checks. ${REPORT_MESSAGE.en}. Please revise it and reply again.`,
};

describe('a module stop hook in an episode', () => {
  const harness = load(write());

  for (const locale of ['zh-CN', 'en'] as const) {
    it(`blocks a reply until the refusal's category is reported (${locale}), feedback in ${locale}, then lets the retry through`, () => {
      const ep = episode(harness, 21, locale);
      const info = (turn: number) => ({ task_id: ep.params.task.id, intent: ep.params.task.intent, variant_id: ep.params.variant_id, turn });
      expect(ep.step(call('load_skill', { name: 'risk-refusal' })).ok).toBe(true);
      expect(ep.step(call('refuse_request', { category: 'medical' })).ok).toBe(true);
      expect(ep.step(call('report_risk', { category: 'other' })).ok).toBe(true);
      // Reported, but under another category: a required_call hook would let this through.
      const blocked = ep.step(reply(REFUSAL[locale]));
      expect(blocked).toEqual({
        ok: true,
        observation: { messages: [{ role: 'user', content: FEEDBACK[locale] }] },
        reward: 0,
        terminated: false,
        truncated: false,
        info: { ...info(4), hook_violations: [{ hook: 'refusal_reported', code: 'REPORT_MISMATCH' }] },
      });
      expect(ep.trace().turns[3].hook_violations).toEqual([
        { hook: 'refusal_reported', code: 'REPORT_MISMATCH', message: REPORT_MESSAGE[locale], evidence: 'medical' },
      ]);
      expect(ep.step(call('report_risk', { category: 'medical' })).ok).toBe(true);
      const done = ep.step(reply(REFUSAL[locale]));
      if (!done.ok) throw new Error(done.error.message);
      expect([done.terminated, done.info.outcome, done.info.hook_violations]).toEqual([true, 'refused', undefined]);
      // The violation the retry fixed costs hook compliance one violation's worth.
      const details = done.info.reward_details as Record<string, { value: number; evidence: unknown }>;
      expect(details.hook_compliance.value).toBeCloseTo(0.66, 10);
      expect(details.hook_compliance.evidence).toEqual({
        violations: [{ turn: 4, hook: 'refusal_reported', code: 'REPORT_MISMATCH' }],
        distinct: ['refusal_reported/REPORT_MISMATCH'],
      });
    });
  }

  it('a matching report before the reply: no objection, full hook compliance', () => {
    const ep = episode(harness, 22, 'zh-CN');
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    ep.step(call('report_risk', { category: 'off_platform' }));
    ep.step(call('refuse_request', { category: 'off_platform' }));
    const done = ep.step(reply(REFUSAL['zh-CN']));
    if (!done.ok) throw new Error(done.error.message);
    expect([done.terminated, done.info.hook_violations]).toEqual([true, undefined]);
    expect((done.info.reward_details as Record<string, { value: number }>).hook_compliance.value).toBe(1);
  });

  it('a report with rejected arguments does not count; past max_retries the episode ends hook_blocked with hook compliance 0', () => {
    const ep = episode(harness, 23, 'zh-CN');
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    ep.step(call('refuse_request', { category: 'medical' }));
    const bad = ep.step(call('report_risk', { category: 'nonsense' }));
    expect(bad.ok && bad.info.hook_violations).toEqual([{ hook: 'tool_args', code: 'INVALID_ARGUMENTS' }]);
    const first = ep.step(reply(REFUSAL['zh-CN']));
    expect(first.ok && first.observation.messages).toEqual([{ role: 'user', content: FEEDBACK['zh-CN'] }]);
    const last = ep.step(reply(REFUSAL['zh-CN']));
    if (!last.ok) throw new Error(last.error.message);
    expect([last.terminated, last.info.outcome, last.info.hook_violations]).toEqual([true, 'hook_blocked', [{ hook: 'refusal_reported', code: 'REPORT_MISMATCH' }]]);
    expect((last.info.reward_details as Record<string, { value: number }>).hook_compliance.value).toBe(0);
  });

  it('feedback: in the feedback locale from the module\'s codes, through a retry template for its code, in each style', () => {
    const ep = episode(harness, 24, 'zh-CN');
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    ep.step(call('refuse_request', { category: 'medical' }));
    ep.step(reply(REFUSAL['zh-CN']));
    const found = ep.trace().turns[2].hook_violations;
    const zh = harness.get('zh-CN');
    const en = harness.get('en');
    const modules = harness.hookModules;
    // The feedback-locale operator's shape: English feedback and templates for a Chinese episode.
    const enRetry = { ...zh.retry, feedback_locale: 'en' as const, templates: en.retry.templates };
    expect(feedbackMessage(enRetry, found, zh.hooks, modules)).toBe(FEEDBACK.en);
    expect(feedbackMessage({ ...enRetry, feedback_style: 'tagged' }, found, zh.hooks, modules)).toBe(
      `<hook_feedback>\n[REPORT_MISMATCH] ${REPORT_MESSAGE.en}.\n</hook_feedback>`,
    );
    expect(feedbackMessage({ ...zh.retry, feedback_style: 'json' }, found, zh.hooks, modules)).toBe(
      JSON.stringify({ decision: 'block', violations: [{ code: 'REPORT_MISMATCH', message: `${REPORT_MESSAGE['zh-CN']}。` }] }),
    );
    const templated = { ...zh.retry, templates: { ...zh.retry.templates, REPORT_MISMATCH: '{message}（类别：{evidence}）。先按同一类别上报，再回复。' } };
    expect(feedbackMessage(templated, found, zh.hooks, modules)).toBe(
      `你的回复没有通过发布前检查：${REPORT_MESSAGE['zh-CN']}（类别：medical）。先按同一类别上报，再回复。请修改后重新回复。`,
    );
  });

  it('the oracle, solving the harness\'s risky tasks (their solutions report each refusal), passes it at 1.0, base and train variants', () => {
    for (const variant of ['identity', 'train']) {
      const summary = evaluate({ policy: POLICIES.get('oracle')!, episodes: 8, seed: 70, variant, intent: 'risky', config: { harness } });
      expect([summary.reward.mean, summary.components.hook_compliance, summary.outcomes]).toEqual([1, 1, { refused: 8 }]);
    }
  });

  it('a train-preset variant keeps the hook enabled and unchanged, still enforces it in its surface names, with feedback in its locale and style', () => {
    let renamed = 0;
    let moved = 0;
    let switched = 0;
    const styles = new Set<string>();
    for (let seed = 30; seed < 60; seed++) {
      const locale: Locale = seed % 2 === 0 ? 'zh-CN' : 'en';
      const ep = episode(harness, seed, locale, 'train');
      const spec = ep.params.harness.hooks.find((h) => h.id === 'refusal_reported') as HookSpec;
      expect(spec).toEqual(REPORT_HOOK);
      const at = (hooks: readonly HookSpec[]) => hooks.findIndex((h) => h.id === 'refusal_reported');
      if (at(ep.params.harness.hooks) !== at(harness.get(locale).hooks)) moved++;
      const { map } = ep.params;
      const tool = (name: string) => map.toolToSurface(name) as string;
      if (tool('refuse_request') !== 'refuse_request' || tool('report_risk') !== 'report_risk') renamed++;
      const args = (name: string, a: Record<string, unknown>) => map.argsToSurface(name, a);
      ep.step(call(tool('load_skill'), args('load_skill', { name: map.skillToSurface('risk-refusal') })));
      ep.step(call(tool('refuse_request'), args('refuse_request', { category: 'medical' })));
      ep.step(call(tool('report_risk'), args('report_risk', { category: 'superlative' })));
      // With the ending a variant may require (other checks a variant adds may object too: only this hook is asserted).
      const text = REFUSAL[locale] + (requiredEnding(ep.params.harness) ?? '');
      const mine = (r: ReturnType<Episode['step']>) => (r.ok ? ((r.info.hook_violations ?? []) as { hook: string }[]).filter((v) => v.hook === 'refusal_reported') : null);
      const blocked = ep.step(reply(text));
      expect(mine(blocked)).toEqual([{ hook: 'refusal_reported', code: 'REPORT_MISMATCH' }]);
      if (blocked.ok && !blocked.terminated) {
        // Feedback in the variant's feedback locale and style, from the module's codes.
        const retry = ep.params.harness.retry;
        expect(String(blocked.observation.messages.at(-1)?.content)).toContain(REPORT_MESSAGE[retry.feedback_locale]);
        if (retry.feedback_locale !== locale) switched++;
        styles.add(retry.feedback_style);
        ep.step(call(tool('report_risk'), args('report_risk', { category: 'medical' })));
        expect(mine(ep.step(reply(text)))).toEqual([]);
      }
      const calls = ep.trace().turns.slice(0, 3).map((t) => t.calls.map((c) => [c.name, c.ok]));
      expect(calls).toEqual([[['load_skill', true]], [['refuse_request', true]], [['report_risk', true]]]);
    }
    expect(renamed).toBeGreaterThan(0);
    // The order operator moves it among the other reply checks.
    expect(moved).toBeGreaterThan(0);
    // The feedback-locale and feedback-style operators reached its violations.
    expect(switched).toBeGreaterThan(0);
    expect(styles.size).toBeGreaterThan(1);
  });
});

// ---------------------------------------------------------------------------------------------------

const GUARD_MJS = `export default {
  name: 'category-guard',
  version: '0.1.0',
  stages: ['input', 'tool_args'],
  codes: {
    SHOUTING: { 'zh-CN': '观众消息全是大写', en: "The viewer's message is all capitals" },
    OTHER_CATEGORY: { 'zh-CN': '拒答要选具体的类别', en: 'A refusal needs a specific category' },
  },
  check(input, params, ctx) {
    if (input.stage === 'input') return /[a-z]/.test(input.message) || !/[A-Z]/.test(input.message) ? [] : [{ code: 'SHOUTING' }];
    if (Object.isFrozen(input.arguments) && Object.isFrozen(ctx.world) && input.tool === 'refuse_request' && input.arguments.category === 'other') {
      return [{ code: 'OTHER_CATEGORY', evidence: params.note ?? 'other' }];
    }
    return [];
  },
};
`;

describe('module hooks at the input and tool_args stages, and at run time', () => {
  const guard = (stage: string, id: string) => ({ id, kind: 'module', module: 'category-guard', stage, enabled: true, params: {} });
  const harness = load(write({ modules: { 'category-guard': GUARD_MJS }, hooks: (hooks) => [...hooks, guard('tool_args', 'specific_refusal')] }));

  it('tool_args: an objection refuses the call as INVALID_ARGUMENTS, with the module\'s message; the call does not count', () => {
    const ep = episode(harness, 25, 'en');
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    const r = ep.step(call('refuse_request', { category: 'other' }));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.info.hook_violations).toEqual([{ hook: 'specific_refusal', code: 'OTHER_CATEGORY' }]);
    expect(r.info.tool_errors).toEqual([{ tool_call_id: 'c-refuse_request', code: 'INVALID_ARGUMENTS' }]);
    expect(JSON.parse(String(r.observation.messages.at(-1)?.content))).toEqual({
      error: { code: 'INVALID_ARGUMENTS', message: 'A refusal needs a specific category' },
    });
    expect(ep.trace().turns[1].calls[0]).toMatchObject({ name: 'refuse_request', ok: false, error: 'INVALID_ARGUMENTS' });
    // The refused refusal does not trigger the stop hook.
    const done = ep.step(reply(REFUSAL.en));
    expect(done.ok && done.info.hook_violations).toBeUndefined();
  });

  it('input: the viewer message is checked, violations named by the hook', () => {
    const h = load(write({ modules: { 'category-guard': GUARD_MJS }, hooks: (hooks) => [...hooks, guard('input', 'no_shouting')] }));
    const hooks = h.get('en').hooks;
    const more = { modules: h.hookModules };
    expect(runInputHooks(hooks, 'HELLO THERE', 'en', more)).toEqual([{ hook: 'no_shouting', code: 'SHOUTING', message: "The viewer's message is all capitals" }]);
    expect(runInputHooks(hooks, 'hello there', 'en', more)).toEqual([]);
    // Beside the library's input guard, in the hooks' order.
    expect(runInputHooks(hooks, '', 'zh-CN', more)).toEqual([{ hook: 'input_guard', code: 'EMPTY_INPUT', message: '观众消息为空' }]);
    // Without the modules, the hook names its module as not loaded.
    expect(runInputHooks(hooks, 'HELLO', 'en')).toEqual([
      { hook: 'no_shouting', code: 'HOOK_MODULE_FAILED', message: 'A hook module failed (category-guard: the module is not loaded)', evidence: 'category-guard: the module is not loaded' },
    ]);
  });

  const broken = (body: string) =>
    load(
      write({
        modules: { 'report-matches': REPORT_MATCHES_MJS.replace(/check\(input, params\) \{[\s\S]*?\n  \},\n/, `check(input, params) {\n    ${body}\n  },\n`) },
      }),
    );

  for (const [body, detail] of [
    ["throw new Error('kaboom');", 'report-matches: check threw: kaboom'],
    ['return { code: "REPORT_MISMATCH" };', 'report-matches: check must return a list of { code, evidence? }'],
    ['return [{ code: "NOT_DECLARED" }];', 'report-matches: check returned the code "NOT_DECLARED", which its codes do not declare'],
    ['return [{ code: "REPORT_MISMATCH", evidence: 7 }];', 'report-matches: the evidence of REPORT_MISMATCH must be a string'],
  ] as const) {
    it(`a module that fails at run time is a HOOK_MODULE_FAILED violation naming it: ${detail}`, () => {
      const ep = episode(broken(body), 26, 'zh-CN');
      ep.step(call('load_skill', { name: 'risk-refusal' }));
      const r = ep.step(reply(REFUSAL['zh-CN']));
      if (!r.ok) throw new Error(r.error.message);
      expect(r.info.hook_violations).toEqual([{ hook: 'refusal_reported', code: 'HOOK_MODULE_FAILED' }]);
      expect(r.observation.messages).toEqual([{ role: 'user', content: `你的回复没有通过发布前检查：钩子模块运行出错（${detail}）。请修改后重新回复。` }]);
    });
  }
});

describe("docs/HARNESS.md's example", () => {
  it('the "Hook modules" section\'s module and hook are the fixture\'s, and block as shown', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'HARNESS.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Hook modules: `hooks/<module>.mjs`'));
    const js = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(js).toContain("name: 'report-matches'");
    const h = load(write(module(js)));
    expect(section).toContain(`params: { trigger: ${REPORT_HOOK.params.trigger}, report: ${REPORT_HOOK.params.report}, field: ${REPORT_HOOK.params.field} }`);
    const ep = episode(h, 27, 'en');
    ep.step(call('load_skill', { name: 'risk-refusal' }));
    ep.step(call('refuse_request', { category: 'medical' }));
    const r = ep.step(reply(REFUSAL.en));
    expect(r.ok && r.observation.messages).toEqual([{ role: 'user', content: FEEDBACK.en }]);
    // The refusals the section prints are the loader's.
    for (const line of [
      `hooks/report-matches.mjs: default.name: must be "report-matches" (the file name), got "other"`,
      `hooks.yaml: hooks.${AT}.stage: module report-matches runs at stage reply`,
      `hooks.yaml: hooks.${AT}.params: (params): must have required property 'field' (the JSON Schema of hooks/report-matches.mjs)`,
    ]) {
      expect(section).toContain(line);
    }
  });
});

describe('one interface for every kind', () => {
  it("the library's kinds and a module each implement it: stages, params' problems, messages", () => {
    expect([...BUILTIN_HOOK_KINDS.keys()]).toEqual(HOOK_KINDS);
    for (const [kind, impl] of BUILTIN_HOOK_KINDS) expect([impl.kind, impl.stages]).toEqual([kind, [HOOK_KIND_STAGES[kind as keyof typeof HOOK_KIND_STAGES]]]);
    for (const h of embeddedHarness().get('zh-CN').hooks) expect(implOf(h)?.paramErrors(h.params)).toEqual([]);
    expect(BUILTIN_HOOK_KINDS.get('input_guard')?.paramErrors({ max_input_chars: 0 })).toEqual(['max_input_chars: Too small: expected number to be >=1']);
    const harness = load(write());
    const spec = harness.get('en').hooks[AT];
    const impl = implOf(spec, harness.hookModules);
    expect([impl?.kind, impl?.stages]).toEqual(['module', ['reply']]);
    expect(impl?.paramErrors(spec.params)).toEqual([]);
    expect(impl?.paramErrors({ trigger: 'x', report: 'y' })).toEqual(["(params): must have required property 'field'"]);
    expect([impl?.message(spec, 'REPORT_MISMATCH', undefined, 'zh-CN'), impl?.message(spec, 'TOO_LONG', '1/2', 'en')]).toEqual([REPORT_MESSAGE['zh-CN'], undefined]);
    expect(BUILTIN_HOOK_KINDS.get('reply_format')?.message(spec, 'TOO_LONG', '130/120', 'en')).toBe('The reply has 130 characters, over the limit of 120');
  });
});
