/**
 * The viewer as the place a reward designer and a trainer debug, in Chromium over real records: the
 * episode's headline (reward, caps, each component's weighted share), counts on the histograms, run,
 * policy and profile columns, unique episode keys, a list that fits 1280 px, and two runs compared (run A
 * against its `rescore` under another profile, written as `rescore --out` writes it). Every figure the
 * page shows is computed here again from the records, independently of the viewer's code.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { startViewer } from '../../recording/view/server.js';
import type { RunningViewer } from '../../recording/view/server.js';
import { packValue, readRecords, rescore, RECORD_FORMAT, RECORD_VERSION } from '../../recording/index.js';
import type { EpisodeRecordV1, LoadedRecord } from '../../recording/index.js';
import { evaluate } from '../../eval/index.js';
import { POLICIES } from '../../policies/index.js';
import type { RewardProfile } from '../../rewards/index.js';
import { evalRecorder, tempDir } from './helpers.js';

let a: LoadedRecord[];
let b: LoadedRecord[];
let dirA: string;
let dirB: string;
let viewer: RunningViewer;
let single: RunningViewer;
let browser: BrowserContext;
const shots = mkdtempSync(join(tmpdir(), 'hg-viewer-shots-'));

/** The profile B is rescored with: equal weights, no gates (what a designer tries after seeing caps). */
const FLAT: RewardProfile = {
  name: 'flat',
  modules: ['accuracy', 'effectiveness', 'hook_compliance', 'tool_rationality', 'skill_selection'].map((name) => ({ name, weight: 1 })),
  gates: [],
};

/** Record a run as `eval --record` names it (`eval-<policy>-s<seed>-n<episodes>`). */
async function evalRun(dir: string, policy: string, variant: string, episodes: number, seed: number): Promise<void> {
  const recorder = evalRecorder(dir, `eval-${policy}-s${seed}-n${episodes}`);
  evaluate({ policy: POLICIES.get(policy)!, episodes, seed, variant, recorder });
  await recorder.close();
}

function read(dir: string): LoadedRecord[] {
  const r = readRecords(dir);
  if (!r.ok) throw new Error(r.message);
  return r.result.records;
}

beforeAll(async () => {
  dirA = tempDir('hg-view-a-');
  await evalRun(dirA, 'oracle', 'identity', 12, 1);
  await evalRun(dirA, 'random', 'train', 30, 1);
  a = read(dirA);
  // B: A rescored, written as `rescore --out` writes it.
  dirB = tempDir('hg-view-b-');
  mkdirSync(dirB, { recursive: true });
  const header = { type: 'header', format: RECORD_FORMAT, version: RECORD_VERSION, server_version: '0', created_by: 'rescore' };
  const { records } = rescore(a, FLAT);
  writeFileSync(join(dirB, 'rescored.hgrec'), Buffer.concat([packValue(header), ...records.map((r) => packValue(r))]));
  b = read(dirB);
  viewer = await startViewer({ path: dirA, port: 0, compare: dirB });
  single = await startViewer({ path: dirA, port: 0 });
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'hg-chromium-')), {
    executablePath: '/usr/bin/chromium',
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await single?.close();
});

async function openPage(hash = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(viewer.url + '/' + hash);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, errors };
}

function linkOf(r: LoadedRecord): string {
  return `#/episode/${encodeURIComponent(basename(r.file))}/${r.index}`;
}

/** Save a screenshot, check it is a PNG of the viewport's size with real content, and print its path. */
async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  const file = join(shots, name);
  await page.screenshot({ path: file, fullPage });
  const png = readFileSync(file);
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  expect(png.readUInt32BE(16)).toBe(1280);
  expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(800);
  // A page of text, tables and charts compresses to tens of kilobytes; a blank one to a few hundred bytes.
  expect(png.length).toBeGreaterThan(30_000);
  console.log(`screenshot: ${file} (${png.length} bytes)`);
}

/** Each component's weighted share: value × weight / Σ weights of the record's own profile. */
function shares(rec: EpisodeRecordV1): Record<string, number> {
  const sum = rec.profile.modules.reduce((s, m) => s + m.weight, 0);
  return Object.fromEntries(rec.profile.modules.map((m) => [m.name, (rec.reward.components[m.name] * m.weight) / sum]));
}

function signed(d: number): string {
  return `${d < 0 ? '-' : '+'}${Math.abs(d).toFixed(4)}`;
}

describe('viewer: the headline, counts, columns and keys', () => {
  it("heads an episode with its reward, its caps and each component's weighted share, above the prompt", async () => {
    const capped = a.find((r) => (r.record.reward.caps ?? []).length > 0)!;
    const clean = a.find((r) => r.record.reward.caps === undefined && r.record.reward.reward === 1)!;
    expect(capped).toBeDefined();
    expect(clean).toBeDefined();
    const { page, errors } = await openPage(linkOf(capped));
    await page.waitForFunction((l) => document.body.dataset.shown === l, linkOf(capped));
    const rec = capped.record;
    expect(await page.locator('#headline-reward').textContent()).toBe(`Reward ${rec.reward.reward.toFixed(4)}`);
    expect(await page.locator('#headline-caps li').allTextContents()).toEqual(rec.reward.caps);
    const s = shares(rec);
    const mean = Object.values(s).reduce((x, y) => x + y, 0);
    expect(await page.locator('#headline-cap-note').textContent()).toBe(` capped from ${mean.toFixed(4)}`);
    expect(await page.locator('#headline-profile').textContent()).toBe(' · profile default');
    const rows = await page.$$eval('#shares tbody tr', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-component'), ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)]),
    );
    const weightSum = rec.profile.modules.reduce((x, m) => x + m.weight, 0);
    expect(rows).toEqual(
      Object.keys(rec.reward.components).map((n) => [
        n,
        rec.reward.components[n].toFixed(4),
        `${rec.profile.modules.find((m) => m.name === n)!.weight} / ${weightSum}`,
        s[n].toFixed(4),
      ]),
    );
    // The headline is the first thing under the title: above the viewer message, prompt, tools and key.
    const head = (await page.locator('#headline').boundingBox())!;
    const msg = (await page.locator('#viewer-message').boundingBox())!;
    const key = (await page.locator('#answer-key').boundingBox())!;
    expect(head.y + head.height).toBeLessThanOrEqual(msg.y);
    expect(head.y + head.height).toBeLessThanOrEqual(key.y);
    expect(head.y + head.height).toBeLessThanOrEqual(800);
    await shot(page, 'viewer-episode-headline.png');

    // An uncapped episode says so, and lists no cap.
    await page.evaluate((h) => (location.hash = h), linkOf(clean));
    await page.waitForFunction((l) => document.body.dataset.shown === l, linkOf(clean));
    expect(await page.locator('#headline-reward').textContent()).toBe('Reward 1.0000');
    expect(await page.locator('#headline-cap-note').textContent()).toBe(' not capped');
    expect(await page.locator('#headline-caps').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the count above every non-empty histogram bar', async () => {
    const { page, errors } = await openPage();
    const values: Record<string, number[]> = { reward: a.map((r) => r.record.reward.reward) };
    for (const r of a) for (const [n, v] of Object.entries(r.record.reward.components)) (values[n] ??= []).push(v);
    for (const [name, xs] of Object.entries(values)) {
      const bins = new Array(10).fill(0);
      for (const v of xs) bins[Math.min(9, Math.floor(v * 10))]++;
      const chart = page.locator(`#charts .chart[data-component="${name}"]`);
      expect(await chart.locator('rect.bar').evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-count'))))).toEqual(bins);
      expect(await chart.locator('text.count').allTextContents()).toEqual(bins.filter((n) => n > 0).map(String));
      // Each count sits above its own bar.
      const bars = await chart.locator('rect.bar').evaluateAll((rs) =>
        rs.map((r) => {
          const b = (r as SVGGraphicsElement).getBBox();
          return { x: b.x, y: b.y, width: b.width, height: b.height };
        }),
      );
      const counts = await chart.locator('text.count').evaluateAll((ts) =>
        ts.map((t) => {
          const b = (t as SVGGraphicsElement).getBBox();
          return { bin: Number(t.getAttribute('data-bin')), box: { x: b.x, y: b.y, width: b.width, height: b.height } };
        }),
      );
      for (const c of counts) {
        const bar = bars[c.bin];
        expect(c.box.y + c.box.height).toBeLessThanOrEqual(bar.y + 1);
        expect(Math.abs(c.box.x + c.box.width / 2 - (bar.x + bar.width / 2))).toBeLessThan(2);
      }
      expect(await chart.locator('.title').textContent()).toMatch(new RegExp(`^${name} \\(n ${xs.length}, mean `));
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('lists run, policy and profile, a unique key per episode with its file beside the id, and fits 1280 px', async () => {
    const { page, errors } = await openPage();
    expect(await page.$$eval('#episodes thead th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'episode', 'run', 'policy', 'profile', 'intent', 'variant', 'outcome', 'reward', 'turns', 'hooks',
    ]);
    const rows = await page.$$eval('#episodes tbody tr', (trs) =>
      trs.map((tr) => ({
        uid: tr.getAttribute('data-uid'),
        episode: tr.querySelector('td[data-column="episode"]')!.textContent,
        href: tr.querySelector('td[data-column="episode"] a')!.getAttribute('href'),
        run: tr.querySelector('td[data-column="run"]')!.textContent,
        policy: tr.querySelector('td[data-column="policy"]')!.textContent,
        profile: tr.querySelector('td[data-column="profile"]')!.textContent,
      })),
    );
    expect(rows).toEqual(
      a.map((r) => {
        const file = basename(r.file);
        const run = file.replace(/-\d{4}\.hgrec$/, '');
        return {
          uid: `${file}/${r.index}`,
          episode: `${r.record.episode_id} ${file} #${r.index}`,
          href: linkOf(r),
          run,
          policy: run.startsWith('eval-oracle-') ? 'oracle' : 'random',
          profile: 'default',
        };
      }),
    );
    // The ids repeat across the two runs; the keys do not.
    expect(new Set(a.map((r) => r.record.episode_id)).size).toBeLessThan(a.length);
    expect(new Set(rows.map((r) => r.uid)).size).toBe(a.length);
    expect(new Set(rows.map((r) => r.href)).size).toBe(a.length);
    // No horizontal scrolling at 1280 px: not in the list, not on the page; every header is in view.
    const overflow = await page.evaluate(() => {
      const pane = document.getElementById('list-pane')!;
      return { pane: pane.scrollWidth - pane.clientWidth, page: document.documentElement.scrollWidth - window.innerWidth };
    });
    expect(overflow).toEqual({ pane: 0, page: 0 });
    const pane = (await page.locator('#list-pane').boundingBox())!;
    for (const th of await page.locator('#episodes thead th').all()) {
      const box = (await th.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(pane.x + pane.width + 1);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('viewer: two runs compared', () => {
  it('shows the deltas per component, intent and family, the episodes that moved most and their reason diffs', async () => {
    // Computed here from the records: B is A rescored, so the n-th episodes pair.
    expect(b.length).toBe(a.length);
    const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
    const { page, errors } = await openPage('#/compare');
    await page.waitForSelector('body[data-compared="true"]');
    expect(await page.locator('main').isHidden()).toBe(true);
    expect(await page.locator('#cmp-paired').textContent()).toBe(`${a.length} episodes paired by seed, variant and task; only in A: 0, only in B: 0`);
    const ra = mean(a.map((r) => r.record.reward.reward));
    const rb = mean(b.map((r) => r.record.reward.reward));
    expect(await page.locator('#cmp-reward').textContent()).toBe(`Reward mean A ${ra.toFixed(4)} → B ${rb.toFixed(4)} (Δ ${signed(rb - ra)})`);
    expect(rb).toBeGreaterThan(ra);

    const table = (id: string): Promise<string[][]> =>
      page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent ?? '')));
    const row = (name: string, xs: [number, number][]): string[] => {
      const ma = mean(xs.map((x) => x[0]));
      const mb = mean(xs.map((x) => x[1]));
      return [name, String(xs.length), ma.toFixed(4), mb.toFixed(4), signed(mb - ma)];
    };
    const names = Object.keys(a[0].record.reward.components);
    expect(await table('cmp-components')).toEqual(
      names.map((n) => row(n, a.map((r, i) => [r.record.reward.components[n], b[i].record.reward.components[n]]))),
    );
    const intents = [...new Set(a.map((r) => r.record.summary.intent))].sort();
    expect(intents.length).toBeGreaterThan(2);
    expect(await table('cmp-intents')).toEqual(
      intents.map((n) =>
        row(
          n,
          a.flatMap((r, i) => (r.record.summary.intent === n ? [[r.record.reward.reward, b[i].record.reward.reward] as [number, number]] : [])),
        ),
      ),
    );
    const fam = (r: LoadedRecord): string[] => (r.record.summary.variant_families.length ? r.record.summary.variant_families : ['identity']);
    const families = [...new Set(a.flatMap(fam))].sort();
    expect(families).toContain('identity');
    expect(families.length).toBeGreaterThan(1);
    expect(await table('cmp-families')).toEqual(
      families.map((n) =>
        row(
          n,
          a.flatMap((r, i) => (fam(r).includes(n) ? [[r.record.reward.reward, b[i].record.reward.reward] as [number, number]] : [])),
        ),
      ),
    );
    // The chart: a pair of bars per intent and per family, each labelled with its mean.
    expect(await page.locator('#cmp-chart-intent rect.pair-bar').count()).toBe(intents.length * 2);
    expect(await page.locator('#cmp-chart-family rect.pair-bar').count()).toBe(families.length * 2);
    const firstB = mean(b.filter((_, i) => a[i].record.summary.intent === intents[0]).map((r) => r.record.reward.reward));
    expect(await page.locator(`#cmp-chart-intent text.count[data-group="${intents[0]}"][data-side="b"]`).textContent()).toBe(firstB.toFixed(2));

    // The moved: |Δ| descending, ties in A's order, the first 20.
    const moved = a
      .map((r, i) => ({ i, d: b[i].record.reward.reward - r.record.reward.reward }))
      .sort((x, y) => Math.abs(y.d) - Math.abs(x.d) || x.i - y.i)
      .slice(0, 20);
    const shown = await page.$$eval('#cmp-moved tr.moved', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-uid'), ...[...tr.querySelectorAll('td')].slice(4).map((td) => td.textContent)]),
    );
    expect(shown).toEqual(
      moved.map(({ i, d }) => [
        `${basename(a[i].file)}/${a[i].index}`,
        a[i].record.reward.reward.toFixed(4),
        b[i].record.reward.reward.toFixed(4),
        signed(d),
      ]),
    );
    expect(Math.abs(moved[0].d)).toBeGreaterThan(0.1);
    // The top one's reason diff: every component that moved or changed reasons, and the caps removed.
    const top = moved[0].i;
    const ra0 = a[top].record.reward;
    const rb0 = b[top].record.reward;
    const diff = page.locator('#cmp-moved tr.diff').first();
    const expected = Object.keys(ra0.components).flatMap((n) => {
      const removed = ra0.details[n].reasons.filter((x) => !rb0.details[n].reasons.includes(x));
      const added = rb0.details[n].reasons.filter((x) => !ra0.details[n].reasons.includes(x));
      const d = rb0.components[n] - ra0.components[n];
      if (d === 0 && removed.length === 0 && added.length === 0) return [];
      return [
        `${n} ${ra0.components[n].toFixed(4)} → ${rb0.components[n].toFixed(4)} (${signed(d)})` +
          removed.map((x) => `− ${x}`).join('') +
          added.map((x) => `+ ${x}`).join(''),
      ];
    });
    const capsText = (ra0.caps ?? []).join('; ') !== (rb0.caps ?? []).join('; ') ? [`caps− ${(ra0.caps ?? []).join('; ') || '(none)'}+ ${(rb0.caps ?? []).join('; ') || '(none)'}`] : [];
    expect(capsText.length).toBe(1);
    expect(await diff.locator('.cdiff').allTextContents()).toEqual([...expected, ...capsText]);

    await shot(page, 'viewer-compare.png', true);
    // A moved episode's link opens it in the episode view.
    await page.locator('#cmp-moved tr.moved a').first().click();
    await page.waitForFunction((l) => document.body.dataset.shown === l, linkOf(a[top]));
    expect(await page.locator('#compare-pane').isHidden()).toBe(true);
    expect(await page.locator('#headline-reward').textContent()).toBe(`Reward ${ra0.reward.toFixed(4)}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('bounds /api/compare, answers 404 without --compare, and 421 to a foreign Host', async () => {
    const get = async (url: string): Promise<{ status: number; body: { moved?: unknown[] } }> => {
      const res = await fetch(url);
      return { status: res.status, body: (await res.json()) as { moved?: unknown[] } };
    };
    expect((await get(`${viewer.url}/api/compare`)).body.moved).toHaveLength(20);
    expect((await get(`${viewer.url}/api/compare?limit=3`)).body.moved).toHaveLength(3);
    expect((await get(`${viewer.url}/api/compare?limit=100000`)).body.moved).toHaveLength(a.length);
    expect((await get(`${viewer.url}/api/compare?limit=abc`)).body.moved).toHaveLength(20);
    expect(await get(`${single.url}/api/compare`)).toEqual({
      status: 404,
      body: { error: { code: 'NO_COMPARISON', message: 'start the viewer with --compare DIR2 to compare two runs' } },
    });
    const port = new URL(viewer.url).port;
    const foreign = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ hostname: '127.0.0.1', port, path: '/api/compare', headers: { host: `evil.example:${port}` } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(foreign.status).toBe(421);
    expect(foreign.body).not.toContain('episode_id');
  });
});
