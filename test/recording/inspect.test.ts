import { describe, it, expect, beforeAll } from 'vitest';
import { formatEpisodeView, inspectRecord, readRecords, rebuildEpisode } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import type { ToolListView } from '../../recording/inspect.js';
import type { ToolSchema } from '../../protocol/domain.js';
import { POLICIES, writeCalls, writeReply } from '../../policies/index.js';
import type { Policy, SurfaceCall } from '../../policies/index.js';
import { evaluate } from '../../eval/index.js';
import { evalRecorder, recordInProcess, tempDir } from './helpers.js';

let records: LoadedRecord[];

beforeAll(async () => {
  records = await recordInProcess(tempDir('hg-rec-inspect-'), { policy: 'oracle', variant: 'train', episodes: 12, seed: 1 });
}, 60_000);

describe('inspect', () => {
  it('shows the viewer message, the variant, every turn with surface and canonical names, the reply and the reward reasons', () => {
    const withCalls = records.find((r) => r.record.trace.turns.some((t) => t.calls.some((c) => c.surface_name !== c.name)))!;
    const v = inspectRecord(withCalls.record);
    expect(v.rebuild_error).toBeNull();
    expect(v.viewer_message).toBe(withCalls.record.task.messages.join('\n'));
    expect(v.variant.id).toBe(withCalls.record.variant_id);
    expect(v.variant.label).toBe('train');
    expect(v.variant.applied.length).toBeGreaterThan(0);
    expect(v.tools.some((t) => t.canonical === 'get_product')).toBe(true);
    expect(v.turns.length).toBe(withCalls.record.trace.turns.length);
    const renamed = v.turns.flatMap((t) => t.calls).find((c) => c.surface_name !== c.canonical_name)!;
    expect(renamed.result).not.toBeNull();
    expect(renamed.surface_arguments).not.toBeNull();
    expect(v.final_reply).toBe(withCalls.record.trace.final_reply);
    expect(v.reward.components.map((c) => c.name)).toEqual(Object.keys(withCalls.record.reward.components));
    expect(v.reward.components.every((c) => c.reasons.length > 0)).toBe(true);

    const text = formatEpisodeView(v);
    expect(text).toContain(v.viewer_message);
    expect(text).toContain(`variant ${v.variant.id}`);
    expect(text).toContain(`${renamed.surface_name} -> ${renamed.canonical_name}`);
    expect(text).toContain(`--- final reply (${v.outcome}): ${v.final_reply}`);
    for (const c of v.reward.components) for (const r of c.reasons) expect(text).toContain(`  - ${r}`);
  });

  it('shows hook feedback when a hook objected', async () => {
    const more = await recordInProcess(tempDir('hg-rec-inspect-'), { policy: 'random', variant: 'identity', episodes: 30, seed: 50 });
    const hooked = more.find((r) => r.record.summary.hooks_violated.length > 0)!;
    expect(hooked).toBeDefined();
    const v = inspectRecord(hooked.record);
    const turn = v.turns.find((t) => t.hook_violations.length > 0)!;
    expect(turn.hook_violations[0].hook).toBe(hooked.record.trace.turns[turn.index - 1].hook_violations[0].hook);
    expect(formatEpisodeView(v)).toContain(`hook ${turn.hook_violations[0].hook} ${turn.hook_violations[0].code}`);
  }, 60_000);
});

describe('`harness-gym eval --record` then `inspect`', () => {
  it('records in-process episodes and prints one by id', async () => {
    const { spawnSync } = await import('node:child_process');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '..', '..');
    const dir = tempDir('hg-rec-cli-');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    const ev = run(['eval', '--episodes', '6', '--seed', '20', '--variant', 'eval', '--record', dir, '--record-sample', '0.5', '--json']);
    expect(ev.status).toBe(0);
    const { shouldRecord, readRecords } = await import('../../recording/index.js');
    const seeds = [20, 21, 22, 23, 24, 25].filter((s) => shouldRecord(s, 0.5));
    expect(ev.stderr).toContain(`recorded ${seeds.length} episodes`);
    const read = readRecords(dir);
    expect(read.ok && read.result.records.map((r) => r.record.episode_id)).toEqual(seeds.map((s) => `eval-${s}`));
    const ins = run(['inspect', dir, '--episode', `eval-${seeds[0]}`]);
    expect(ins.status).toBe(0);
    expect(ins.stdout).toContain(`=== episode eval-${seeds[0]}  seed ${seeds[0]}`);
    expect(ins.stdout).toContain('--- reward ');
    expect(run(['inspect', dir, '--episode', 'nope']).status).toBe(1);
  }, 120_000);
});

// ---- people's text: unmapped arguments, decoys, segments; what the model saw --------------------------

/** What a call of the probing policy below must look like in the view. */
interface PlannedCall {
  id: string;
  decoy: boolean;
  canonical_arguments: Record<string, unknown>;
  unmapped_arguments: { name: string; value: unknown; reason: string }[];
}

const PROBES: [string, string][] = [
  ['get_product', 'link_no'],
  ['search_products', 'query'],
  ['search_faq', 'question'],
  ['check_stock', 'item_id'],
  ['get_order_status', 'order_id'],
];
const WRAPPED = 'the object that holds every argument of this tool in this variant';

/**
 * Calls that the variant's map cannot place on canonical parameters, one of each kind it marks: an
 * argument beside a tool's wrapper object, a wrapper that is no object, the base harness's name of a
 * renamed parameter; and a decoy. Then a reply. The plan says what the view must show for each call.
 */
function probingPolicy(plans: Map<number, PlannedCall[]>): Policy {
  return {
    name: 'probe',
    privileged: true,
    start(ep) {
      const { map, harness } = ep.privileged!;
      const calls: SurfaceCall[] = [];
      const plan: PlannedCall[] = [];
      const add = (call: SurfaceCall, expected: Omit<PlannedCall, 'id'>): void => {
        calls.push(call);
        plan.push({ id: call.id, ...expected });
      };
      for (const [tool, param] of PROBES) {
        const name = map.toolToSurface(tool);
        if (name === undefined) continue;
        const surface = map.argsToSurface(tool, { [param]: 1 });
        const [outer] = Object.keys(surface);
        const wrapper = outer !== param && typeof surface[outer] === 'object' ? outer : null;
        const inner = wrapper === null ? outer : Object.keys(surface[wrapper] as object)[0];
        if (wrapper !== null) {
          add(
            { id: `outside-${tool}`, name, arguments: { ...surface, stray: 5 } },
            {
              decoy: false,
              canonical_arguments: { [param]: 1 },
              unmapped_arguments: [{ name: 'stray', value: 5, reason: `given beside "${wrapper}", ${WRAPPED}` }],
            },
          );
          add(
            { id: `value-${tool}`, name, arguments: { [wrapper]: 7 } },
            { decoy: false, canonical_arguments: {}, unmapped_arguments: [{ name: wrapper, value: 7, reason: `must be ${WRAPPED}` }] },
          );
        }
        if (inner !== param)
          add(
            { id: `base-${tool}`, name, arguments: wrapper === null ? { [param]: 1 } : { [wrapper]: { [param]: 1 } } },
            {
              decoy: false,
              canonical_arguments: {},
              unmapped_arguments: [
                { name: param, value: 1, reason: `the base harness's name of a parameter this variant calls "${inner}"` },
              ],
            },
          );
      }
      const decoy = harness.tools.find((t) => map.toolToCanonical(t.function.name) === undefined);
      if (decoy)
        add({ id: 'decoy', name: decoy.function.name, arguments: {} }, { decoy: true, canonical_arguments: {}, unmapped_arguments: [] });
      plans.set(ep.seed, plan);
      let acted = false;
      return {
        act() {
          if (acted || calls.length === 0) return writeReply(ep.parser, 'ok');
          acted = true;
          return writeCalls(ep.parser, calls);
        },
      };
    },
  };
}

describe('inspect prints what things mean', () => {
  it('says why an argument maps to no canonical parameter instead of printing NUL-joined keys, and names decoys', async () => {
    const dir = tempDir('hg-rec-inspect-');
    const plans = new Map<number, PlannedCall[]>();
    const recorder = evalRecorder(dir, 'probe');
    evaluate({ policy: probingPolicy(plans), episodes: 10, seed: 1, variant: 'train', recorder });
    await recorder.close();
    const read = readRecords(dir);
    expect(read.ok).toBe(true);
    const recs = read.ok ? read.result.records : [];
    expect(recs.length).toBe(10);
    const kinds = new Set<string>();
    for (const r of recs) {
      // The trace keeps the map's internal keys; the view and the text must not.
      const v = inspectRecord(r.record);
      const plan = plans.get(r.record.seed)!;
      for (const p of plan) kinds.add(p.id.replace(/-.*/, ''));
      const calls = v.turns[0].calls.map((c) => ({
        id: c.id,
        decoy: c.decoy,
        canonical_arguments: c.canonical_arguments,
        unmapped_arguments: c.unmapped_arguments,
      }));
      expect(calls).toEqual(plan);
      const text = formatEpisodeView(v);
      expect(text).not.toContain('\u0000');
      expect(JSON.stringify(v)).not.toContain('\\u0000');
      for (const c of v.turns[0].calls) {
        for (const u of c.unmapped_arguments)
          expect(text).toContain(`\n  not mapped: ${u.name} = ${JSON.stringify(u.value)} (${u.reason})\n`);
        if (c.decoy) expect(text).toContain(`\ncall ${c.surface_name} (decoy)(${c.surface_arguments})\n`);
      }
    }
    expect([...kinds].sort()).toEqual(['base', 'decoy', 'outside', 'value']);
    // The trace does hold the markers, so the test above can fail.
    expect(JSON.stringify(recs.map((r) => r.record.trace.turns))).toContain('\\u0000');
  }, 60_000);

  it('writes the reward segments as words', () => {
    const line = (r: LoadedRecord): string | undefined =>
      formatEpisodeView(inspectRecord(r.record))
        .split('\n')
        .find((l) => l.startsWith('--- reward '));
    const noTools = records.find((r) => r.record.reward.segments.tool === null && r.record.reward.reward === 1)!;
    expect(noTools).toBeDefined();
    expect(line(noTools)).toBe('--- reward 1.0000 (profile default; tool segment: not scored, reply segment: 1.0000)');
    const both = records.find((r) => r.record.reward.segments.tool === 1 && r.record.reward.segments.reply === 1)!;
    expect(both).toBeDefined();
    expect(line(both)).toBe('--- reward 1.0000 (profile default; tool segment: 1.0000, reply segment: 1.0000)');
    expect(formatEpisodeView(inspectRecord(noTools.record))).toContain('\naccuracy: 1.0000 (weight 0.3)\n');
  });

  it('shows what the model saw, as a replay of the episode regenerates it: the system prompt and every tool list', async () => {
    // The oracle discovers the marketing tools for a marketing question: that step offers a second list.
    const dir = tempDir('hg-rec-inspect-');
    const recorder = evalRecorder(dir, 'marketing');
    evaluate({ policy: POLICIES.get('oracle')!, episodes: 4, seed: 1, variant: 'train', intent: 'marketing', recorder });
    await recorder.close();
    const read = readRecords(dir);
    const marketing = read.ok ? read.result.records : [];
    const discovering = marketing.filter((r) => r.record.trace.turns.some((t) => t.calls.some((c) => c.name === 'discover_tools')));
    expect(discovering.length).toBeGreaterThan(0);
    for (const r of [records[0], ...discovering]) {
      const v = inspectRecord(r.record);
      const built = rebuildEpisode(r.record);
      if (!built.ok) throw new Error(built.message);
      const ep = built.episode;
      const lists: ToolListView[] = [];
      const asView = (tools: ToolSchema[] | undefined, after_turn: number): void => {
        if (tools === undefined) return;
        lists.push({
          after_turn,
          tools: tools.map((t) => ({
            surface: t.function.name,
            canonical: ep.params.map.toolToCanonical(t.function.name) ?? null,
            description: t.function.description ?? null,
            parameters: t.function.parameters,
          })),
        });
      };
      const reset = ep.reset();
      asView(reset.observation.tools, 0);
      let turn = 0;
      for (const s of r.record.steps) {
        const out = ep.step(s.action);
        if (out.ok) asView(out.observation.tools, ++turn);
      }
      expect(v.system_prompt).toBe(reset.observation.messages[0].content);
      expect(v.tool_lists).toEqual(lists);
      expect(v.answer_key).toEqual(r.record.source_task.answer_key);
    }
    const withDiscovery = inspectRecord(discovering[0].record);
    const discoveryTurn = discovering[0].record.trace.turns.find((t) => t.calls.some((c) => c.name === 'discover_tools'))!.index;
    expect(withDiscovery.tool_lists[1].after_turn).toBe(discoveryTurn);
    expect(withDiscovery.tool_lists[1].tools.map((t) => t.canonical)).toEqual(expect.arrayContaining(['get_promotions']));
    expect(withDiscovery.tool_lists[0].tools.map((t) => t.canonical)).not.toContain('get_promotions');
  });

  it('shows the answer key and the variant map', () => {
    const r = records.find((x) => x.record.source_task.answer_key.required_calls.length > 0)!;
    const v = inspectRecord(r.record);
    const k = r.record.source_task.answer_key;
    const text = formatEpisodeView(v);
    expect(text).toContain(`\n--- answer key: expect ${k.expect}, call to action ${k.cta ? 'expected' : 'not expected'}\n`);
    for (const req of k.required_calls)
      expect(text).toContain(`\nrequired call: ${req.any_of.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`).join(' or ')}\n`);
    expect(text).toContain(`\nreference reply: ${k.reference_reply}\n`);
    // The map agrees with the names the harness shows.
    const tables = v.variant.tables!;
    for (const t of v.tools) if (t.canonical !== null && t.canonical !== t.surface) expect(tables.tools[t.canonical]).toBe(t.surface);
    // The decoys shown are the table's (in the tools' order, which a variant may shuffle).
    expect(v.tools.filter((t) => t.canonical === null).map((t) => t.surface).sort()).toEqual(
      tables.decoys.filter((d) => v.tools.some((t) => t.surface === d)).sort(),
    );
  });
});
