/**
 * The memorizer fitted to any harness that validates (issue 40): it reads the room through the fitted
 * harness's own prompt texts and plays in its own names, so it scores about 1 on that harness's identity
 * and falls on the HSA presets; an edit of one prompt template line costs it next to nothing.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEpisode, defaultEnvConfig } from '../../env/index.js';
import { evaluate } from '../../eval/index.js';
import type { HarnessSet } from '../../harness/index.js';
import { embeddedHarness } from '../../harness/index.js';
import { memorizerFor } from '../../policies/index.js';
import { roomReaderFor } from '../../policies/memorizer-room.js';
import type { Locale } from '../../protocol/domain.js';
import { TEAM_SKILLS, TEAM_TOOLS, writeRandomLayoutHarness, writeTeamHarness } from './team-harness.js';
import { loadDir as load } from '../harness/load-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of a harness directory with one line of its prompt.yaml replaced. */
function editedCopy(dir: string, from: string, to: string): HarnessSet {
  const copy = mkdtempSync(join(tmpdir(), 'hg-edit-'));
  dirs.push(copy);
  cpSync(dir, copy, { recursive: true, filter: (src) => !/\.(ts|js|map)$/.test(src) });
  const file = join(copy, 'prompt.yaml');
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text || next.split('\n').filter((l, i) => l !== text.split('\n')[i]).length !== 1) throw new Error(`not a one-line edit: ${from}`);
  writeFileSync(file, next);
  return load(copy);
}

const teamDir = writeTeamHarness();
dirs.push(teamDir);
const team = load(teamDir);
const v2Dir = resolve(import.meta.dirname, '../../examples/harness-v2');
const HARNESSES: [string, HarnessSet][] = [
  ['embedded', embeddedHarness()],
  ['examples/harness-v2', load(v2Dir)],
  ['team', team],
];
const LOCALES: Locale[] = ['zh-CN', 'en'];
const EPISODES = 40;

const score = (fitted: HarnessSet, played: HarnessSet, variant: string, locale: Locale, episodes = EPISODES) =>
  evaluate({ policy: memorizerFor(fitted), episodes, seed: 1, variant, locale, config: { harness: played } }).reward.mean;

describe('the team harness fixture', () => {
  it('renames every skill and tool and rewrites every prompt template line, in both locales', () => {
    const embedded = embeddedHarness();
    for (const locale of LOCALES) {
      const h = team.get(locale);
      const base = embedded.get(locale);
      expect(h.skills.map((s) => s.name).sort()).toEqual(base.skills.map((s) => TEAM_SKILLS[s.name]).sort());
      expect(h.tools.map((t) => t.function.name).sort()).toEqual(base.tools.map((t) => TEAM_TOOLS[t.function.name]).sort());
      const lines = (p: typeof h.prompt) => new Set(p.blocks.flatMap((b) => [b.title, ...b.template.split('\n'), ...b.items]).filter((l) => l.trim()));
      const baseLines = lines(base.prompt);
      expect([...lines(h.prompt)].filter((l) => baseLines.has(l) && !/^\{\{\w+\}\}$/.test(l))).toEqual([]);
      expect([h.prompt.header_style, h.prompt.separator, h.prompt.item_style]).not.toEqual([base.prompt.header_style, base.prompt.separator, base.prompt.item_style]);
    }
  });
});

describe('the memorizer fitted to a harness', () => {
  it("reads the team harness's prompt as the embedded one's: same room facts for the same seed", () => {
    for (const locale of LOCALES) {
      for (const seed of [3, 8]) {
        const facts = (h: HarnessSet) => {
          const created = createEpisode(defaultEnvConfig({ harness: h }), { episode_id: 'x', seed, variant: 'identity', options: { locale } });
          if (!created.ok) throw new Error(created.error.message);
          const system = created.episode.reset().observation.messages[0].content ?? '';
          return { room: roomReaderFor(h).read(system), world: created.episode.world };
        };
        const base = facts(embeddedHarness());
        const mine = facts(team);
        expect(mine.room).toEqual(base.room);
        expect(mine.room.locale).toBe(locale);
        expect(mine.room.current?.item_id).toBe(base.world.products.find((p) => p.link_no === base.world.room.current_link)?.item_id);
        expect(mine.room.lineup.length).toBe(base.world.products.length);
        expect(mine.room.persona).toBe(base.world.room.persona.name);
        expect(mine.room.viewer_id).not.toBe('');
        // The embedded habit is blind to the team's layout: no product on screen.
        expect(roomReaderFor(embeddedHarness()).read(system(team, seed, locale)).current).toBeNull();
      }
    }
  });

  for (const [name, h] of HARNESSES) {
    it(`${name}: at least 0.9 on identity, and a gap of at least 0.4 on train and eval, in both locales`, () => {
      for (const locale of LOCALES) {
        const identity = score(h, h, 'identity', locale);
        expect(identity, `${name} ${locale} identity`).toBeGreaterThanOrEqual(0.9);
        for (const preset of ['train', 'eval']) expect(identity - score(h, h, preset, locale), `${name} ${locale} ${preset}`).toBeGreaterThanOrEqual(0.4);
      }
    });
  }

  it("HSA's prompt family alone (headers restyled, blocks reworded and reordered) still costs it at least 0.3", () => {
    for (const h of [embeddedHarness(), team]) {
      for (const locale of LOCALES) {
        for (const split of ['train', 'eval'] as const) {
          const variant = { families: ['prompt' as const], intensity: 1, split };
          const prompt = evaluate({ policy: memorizerFor(h), episodes: EPISODES, seed: 1, variant, locale, config: { harness: h } }).reward.mean;
          expect(score(h, h, 'identity', locale) - prompt, `${h.identity.name} ${locale} ${split}`).toBeGreaterThanOrEqual(0.3);
        }
      }
    }
  });

  it("is fitted to its harness's surface: fitted to the team harness, it is lost in the embedded one (and back)", () => {
    for (const locale of LOCALES) {
      expect(score(team, embeddedHarness(), 'identity', locale)).toBeLessThan(0.5);
      expect(score(embeddedHarness(), team, 'identity', locale)).toBeLessThan(0.5);
    }
  });
});

describe('the memorizer fitted to a harness of any prompt layout', () => {
  // Header style, separator, item style, block order, titles, and each fact on its own line or inline
  // after a label (the room and the viewer on one line or two), drawn from a seed.
  const layouts = [1, 2, 3, 4, 5, 6].map((seed) => {
    const dir = writeRandomLayoutHarness(seed);
    dirs.push(dir);
    return [seed, load(dir)] as const;
  });

  it('reads every layout as the embedded reader reads the embedded prompt', () => {
    for (const [, h] of layouts) {
      for (const locale of LOCALES) {
        for (const seed of [2, 5]) {
          expect(roomReaderFor(h).read(system(h, seed, locale))).toEqual(roomReaderFor(embeddedHarness()).read(system(embeddedHarness(), seed, locale)));
        }
      }
    }
  });

  it('scores at least 0.9 on identity and falls by at least 0.4 on train and eval', () => {
    for (const [seed, h] of layouts.slice(0, 3)) {
      for (const locale of LOCALES) {
        const identity = score(h, h, 'identity', locale, 20);
        expect(identity, `layout ${seed} ${locale}`).toBeGreaterThanOrEqual(0.9);
        for (const preset of ['train', 'eval']) expect(identity - score(h, h, preset, locale, 20), `layout ${seed} ${locale} ${preset}`).toBeGreaterThanOrEqual(0.4);
      }
    }
  });
});

describe('harness cost of one prompt template line', () => {
  const edits: [string, string, HarnessSet, string, string][] = [
    ['embedded zh-CN', 'zh-CN', embeddedHarness(), '        当前讲解的商品：', '        正在讲解的这一款：'],
    ['embedded en', 'en', embeddedHarness(), '        Now presenting:', '        On screen right now:'],
    ['team zh-CN', 'zh-CN', team, '▶ 正在讲解 >> {{current_product}}', '▶ 现在讲的是：{{current_product}}'],
    ['team en', 'en', team, '>> On screen: {{current_product}}', '>> Presenting now - {{current_product}}'],
  ];
  for (const [name, locale, h, from, to] of edits) {
    it(`${name}: at most 0.1`, () => {
      const dir = h === team ? teamDir : resolve(import.meta.dirname, '../../harness');
      const edited = editedCopy(dir, from, to);
      const cost = score(h, h, 'identity', locale as Locale) - score(h, edited, 'identity', locale as Locale);
      expect(cost).toBeLessThanOrEqual(0.1);
    });
  }
});

function system(h: HarnessSet, seed: number, locale: Locale): string {
  const created = createEpisode(defaultEnvConfig({ harness: h }), { episode_id: 'x', seed, variant: 'identity', options: { locale } });
  if (!created.ok) throw new Error(created.error.message);
  return created.episode.reset().observation.messages[0].content ?? '';
}
