/**
 * A harness with a hook module (docs/HARNESS.md "Hook modules"): examples/harness-v2 (a refusal tool and
 * a custom report_risk tool) with its required_call stop hook replaced by a module stop hook that the
 * closed kinds cannot state: once refuse_request was called with a category, report_risk must have been
 * called with the same category before the reply. Tests write it into a temporary directory.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

/** The example harness this one starts from. */
export const HARNESS_V2 = join(import.meta.dirname, '..', '..', 'examples', 'harness-v2');

/** The module's feedback message per locale. */
export const REPORT_MESSAGE = {
  'zh-CN': '拒答的类别还没有按同一类别上报风险',
  en: 'The refusal has not been reported as a risk under the same category',
} as const;

/** hooks/report-matches.mjs: the stop hook's module. */
export const REPORT_MATCHES_MJS = `// A stop hook: every refusal (params.trigger) is reported (params.report) with the same params.field.
export default {
  name: 'report-matches',
  version: '1.0.0',
  stages: ['reply'],
  params: {
    type: 'object',
    properties: {
      trigger: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      report: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      field: { type: 'string', minLength: 1 },
    },
    required: ['trigger', 'report', 'field'],
    additionalProperties: false,
  },
  codes: {
    REPORT_MISMATCH: { 'zh-CN': '${REPORT_MESSAGE['zh-CN']}', en: '${REPORT_MESSAGE.en}' },
  },
  check(input, params) {
    const made = (tool) => input.calls.filter((c) => c.accepted && c.tool === tool).map((c) => c.arguments?.[params.field]);
    const reported = new Set(made(params.report));
    const missing = made(params.trigger).filter((v) => !reported.has(v));
    return missing.length === 0 ? [] : [{ code: 'REPORT_MISMATCH', evidence: String(missing[0]) }];
  },
};
`;

/** The module hook's hooks.yaml entry. */
export const REPORT_HOOK = {
  id: 'refusal_reported',
  kind: 'module',
  module: 'report-matches',
  stage: 'reply',
  enabled: true,
  params: { trigger: 'refuse_request', report: 'report_risk', field: 'category' },
};

type HookEntry = Record<string, unknown> & { id: string };

/**
 * Write the harness into `dir` (a new temporary directory if none) and return its path. `hooks` edits the
 * hooks list (the module hook in place of the example's required_call); `modules` adds or replaces files
 * under hooks/ (name -> source; the report-matches module is written unless replaced).
 */
export function writeHookModuleHarness(
  options: { dir?: string; hooks?: (hooks: HookEntry[]) => HookEntry[]; modules?: Record<string, string> } = {},
): string {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'hg-hook-module-'));
  cpSync(HARNESS_V2, dir, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  const file = join(dir, 'hooks.yaml');
  const doc = YAML.parse(readFileSync(file, 'utf8')) as { hooks: HookEntry[] };
  const hooks = doc.hooks.map((h) => (h.id === 'refusal_reported' ? { ...REPORT_HOOK } : h));
  doc.hooks = options.hooks ? options.hooks(hooks) : hooks;
  writeFileSync(file, YAML.stringify(doc));
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  const modules = { 'report-matches': REPORT_MATCHES_MJS, ...options.modules };
  for (const [name, source] of Object.entries(modules)) writeFileSync(join(dir, 'hooks', `${name}.mjs`), source);
  return dir;
}
