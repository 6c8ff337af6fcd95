import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { startViewer } from '../../recording/view/server.js';
import type { EpisodeRow, RunningViewer } from '../../recording/view/server.js';
import { inspectRecord, unpackValue } from '../../recording/index.js';
import type { LoadedRecord } from '../../recording/index.js';
import type { ToolSchema } from '../../protocol/domain.js';
import { recordInProcess, tempDir } from './helpers.js';

// 300 episodes in three files whose episode ids overlap (eval-1 ... eval-20 are in all three, as
// `vec-16` is in every server session), so that only the session column tells them apart.
let records: LoadedRecord[];
let viewer: RunningViewer;
let viewerPath: string;
let browser: BrowserContext;
let oracleRecords: LoadedRecord[];

beforeAll(async () => {
  const dir = tempDir('hg-rec-view-');
  oracleRecords = await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 20, seed: 1 });
  await recordInProcess(dir, { policy: 'random', variant: 'identity', episodes: 140, seed: 1 });
  records = await recordInProcess(dir, { policy: 'random', variant: 'train', episodes: 140, seed: 1 });
  viewerPath = dir;
  viewer = await startViewer({ path: dir, port: 0 });
  // playwright takes the fresh profile directory as launchPersistentContext's first argument.
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'hg-chromium-')), {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

/** The rows as the server lists them, in record order (the list's key is the position). */
function expectedRows(): Pick<EpisodeRow, 'key' | 'episode_id' | 'session' | 'file' | 'index'>[] {
  return records.map((r, key) => ({
    key,
    episode_id: r.record.episode_id,
    session: basename(r.file).replace(/-\d{4}\.hgrec$/, ''),
    file: basename(r.file),
    index: r.index,
  }));
}

function linkOf(key: number): string {
  return `#/episode/${encodeURIComponent(basename(records[key].file))}/${records[key].index}`;
}

/** A fresh page on the viewer (at `hash`), with its page errors collected. */
async function openPage(hash = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(viewer.url + '/' + hash);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, errors };
}

/** Wait until the detail pane shows the episode of `key`. */
async function waitShown(page: Page, key: number): Promise<void> {
  await page.waitForFunction((link) => document.body.dataset.shown === link, linkOf(key), { timeout: 10_000 });
}

/** The keys of the rows shown, top to bottom. */
function shownKeys(page: Page): Promise<number[]> {
  return page.$$eval('#episodes tbody tr', (trs) => trs.map((tr) => Number((tr as HTMLElement).dataset.key)));
}

function titleOf(key: number): string {
  const rec = records[key].record;
  return `${rec.episode_id} · ${rec.summary.intent} · ${rec.summary.outcome}`;
}

describe('record viewer', () => {
  it('serves the API on 127.0.0.1, each row with its session, file and index', async () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(records.length).toBe(300);
    const list = (await (await fetch(`${viewer.url}/api/episodes`)).json()) as { episodes: EpisodeRow[] };
    expect(list.episodes.map((e) => ({ key: e.key, episode_id: e.episode_id, session: e.session, file: e.file, index: e.index }))).toEqual(
      expectedRows(),
    );
    // The ids overlap across the three sessions.
    expect(list.episodes.filter((e) => e.episode_id === 'eval-16').map((e) => e.session)).toEqual([
      'oracle-identity-1',
      'random-identity-1',
      'random-train-1',
    ]);
    expect((await fetch(`${viewer.url}/api/episodes/999`)).status).toBe(404);
  });

  it('lists the episodes with charts, filters them, and opens one as a transcript with its reward breakdown', async () => {
    const { page, errors } = await openPage();
    const rows = page.locator('#episodes tbody tr');
    expect(await rows.count()).toBe(300);
    // One chart for the total and one per component, drawn as inline SVG.
    expect(await page.locator('#charts .chart svg').count()).toBe(6);
    expect(await page.locator('#charts .chart[data-component="accuracy"] rect.bar').count()).toBe(10);
    expect(await page.$$eval('#episodes thead th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'episode',
      'run',
      'policy',
      'profile',
      'intent',
      'variant',
      'outcome',
      'reward',
      'turns',
      'hooks',
    ]);

    // Filter: the identity family leaves the oracle's and the identity random policy's episodes.
    const identity = records.filter((r) => r.record.summary.variant_families.length === 0).length;
    expect(identity).toBe(160);
    await page.selectOption('#f-family', 'identity');
    expect(await rows.count()).toBe(identity);
    expect(await page.locator('#count').textContent()).toBe(`${identity} of 300 episodes`);
    await page.selectOption('#f-family', '');
    // Filter by reward range: only perfect rewards.
    await page.fill('#f-min', '1');
    const nPerfect = records.filter((r) => r.record.reward.reward >= 1).length;
    expect(nPerfect).toBeGreaterThan(0);
    expect(nPerfect).toBeLessThan(300);
    expect(await rows.count()).toBe(nPerfect);
    await page.fill('#f-min', '0');
    expect(await rows.count()).toBe(300);

    // Open an episode.
    await rows.nth(0).click();
    await waitShown(page, 0);
    expect(await page.locator('#episode-title').textContent()).toBe(titleOf(0));
    expect(await page.locator('#episode-source').textContent()).toBe(`oracle-identity-1 · ${basename(records[0].file)}, record 0`);
    expect(await page.locator('#viewer-message').textContent()).toBe(
      `${oracleRecords[0].record.task.viewer_id}: ${oracleRecords[0].record.task.messages.join('\n')}`,
    );
    expect(await page.locator('#final-reply').textContent()).toBe(oracleRecords[0].record.trace.final_reply);
    expect(await page.locator('#detail-pane .turn').count()).toBe(oracleRecords[0].record.trace.turns.length);
    expect(await page.locator('#detail-pane .component').count()).toBe(5);
    expect(await page.locator('#reward-total').textContent()).toMatch(/^Reward 1\.0000 /);
    // The page's address is the episode's link.
    expect(new URL(page.url()).hash).toBe(linkOf(0));
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the episode of a row at the bottom of a 300-episode list inside the viewport', async () => {
    const { page, errors } = await openPage();
    const last = page.locator('#episodes tbody tr').last();
    await last.click();
    await waitShown(page, 299);
    // The click really was far down the page.
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(3000);
    const viewport = page.viewportSize()!;
    const pane = (await page.locator('#detail-pane').boundingBox())!;
    const title = (await page.locator('#episode-title').boundingBox())!;
    // Within a pixel: layout is in fractions of a pixel, scrolling in whole ones (before the fix the
    // pane was about 13,000 px above).
    expect(pane.y).toBeGreaterThanOrEqual(-1);
    expect(pane.y + pane.height).toBeLessThanOrEqual(viewport.height + 1);
    expect(pane.height).toBeGreaterThan(viewport.height / 2);
    expect(title.y).toBeGreaterThanOrEqual(0);
    expect(title.y + title.height).toBeLessThanOrEqual(viewport.height);
    expect(await page.locator('#episode-title').textContent()).toBe(titleOf(299));
    expect(await page.locator('#episodes tbody tr.selected').getAttribute('data-key')).toBe('299');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens the episode a deep link names when the page is loaded with it, and says so when it names none', async () => {
    const key = 250;
    const { page, errors } = await openPage(linkOf(key));
    await waitShown(page, key);
    expect(await page.locator('#episode-title').textContent()).toBe(titleOf(key));
    const row = expectedRows()[key];
    expect(await page.locator('#episode-source').textContent()).toBe(`${row.session} · ${row.file}, record ${row.index}`);
    expect(await page.locator('#episodes tbody tr.selected').getAttribute('data-key')).toBe(String(key));
    // The selected row is scrolled into view too.
    const viewport = page.viewportSize()!;
    const tr = (await page.locator('#episodes tbody tr.selected').boundingBox())!;
    expect(tr.y).toBeGreaterThanOrEqual(0);
    expect(tr.y + tr.height).toBeLessThanOrEqual(viewport.height);
    // Following another link in the same page opens that one.
    await page.evaluate((h) => (location.hash = h), linkOf(3));
    await waitShown(page, 3);
    expect(await page.locator('#episode-title').textContent()).toBe(titleOf(3));
    await page.close();

    const missing = await openPage(`#/episode/${encodeURIComponent(row.file)}/9999`);
    expect(await missing.page.locator('#not-found').textContent()).toBe(`${row.file} has no record 9999.`);
    await missing.page.evaluate(() => (location.hash = '#/episode/nope.hgrec/0'));
    await missing.page.waitForFunction(() => document.getElementById('not-found')?.textContent?.startsWith('No record file'));
    expect(await missing.page.locator('#not-found').textContent()).toBe(`No record file nope.hgrec in ${viewerPath}.`);
    await missing.page.close();
    expect([...errors, ...missing.errors]).toEqual([]);
  }, 60_000);

  it('sorts by a column on a header click, and reverses on a second click', async () => {
    const { page, errors } = await openPage();
    const byKey = (a: number, b: number): number => a - b;
    const rewardAsc = records
      .map((r, key) => ({ key, reward: r.record.reward.reward }))
      .sort((a, b) => a.reward - b.reward || byKey(a.key, b.key))
      .map((x) => x.key);
    await page.click('#episodes thead th[data-column="reward"]');
    expect(await shownKeys(page)).toEqual(rewardAsc);
    expect(await page.getAttribute('#episodes thead th[data-column="reward"]', 'aria-sort')).toBe('ascending');
    await page.click('#episodes thead th[data-column="reward"]');
    expect(await shownKeys(page)).toEqual(rewardAsc.slice().reverse());
    expect(await page.getAttribute('#episodes thead th[data-column="reward"]', 'aria-sort')).toBe('descending');
    // Episode ids sort as people count: eval-2 before eval-16.
    const collator = new Intl.Collator('en', { numeric: true });
    const idAsc = records
      .map((r, key) => ({ key, id: r.record.episode_id }))
      .sort((a, b) => collator.compare(a.id, b.id) || byKey(a.key, b.key))
      .map((x) => x.key);
    await page.click('#episodes thead th[data-column="episode"]');
    expect(await shownKeys(page)).toEqual(idAsc);
    expect(await page.getAttribute('#episodes thead th[data-column="reward"]', 'aria-sort')).toBeNull();
    expect(records[idAsc[3]].record.episode_id).toBe('eval-2');
    // Sorting keeps the filter.
    await page.selectOption('#f-family', 'identity');
    expect(await shownKeys(page)).toEqual(idAsc.filter((k) => records[k].record.summary.variant_families.length === 0));
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows what the model saw: the system prompt, the tool schemas in both names, the answer key and every reward reason', async () => {
    // A train-variant episode whose tools are renamed.
    const key = records.findIndex(
      (r) =>
        r.record.variant_id !== 'identity' &&
        r.record.summary.locale === 'zh-CN' &&
        inspectRecord(r.record).tools.some((t) => t.canonical !== null && t.canonical !== t.surface),
    );
    expect(key).toBeGreaterThanOrEqual(160);
    const rec = records[key].record;
    const reset = unpackValue(rec.reset.out) as { observation: { messages: { role: string; content: string }[]; tools: ToolSchema[] } };
    const { page, errors } = await openPage(linkOf(key));
    await waitShown(page, key);

    // Collapsed until asked for; then the whole prompt as recorded.
    expect(await page.locator('#system-prompt').isVisible()).toBe(false);
    await page.click('#system > summary');
    expect(await page.locator('#system-prompt').isVisible()).toBe(true);
    expect(reset.observation.messages[0].role).toBe('system');
    expect(await page.locator('#system-prompt').textContent()).toBe(reset.observation.messages[0].content);

    await page.click('#tools > summary');
    const atReset = page.locator('#tools .tool-list[data-after-turn="0"] details.tool');
    expect(await atReset.evaluateAll((ds) => ds.map((d) => d.getAttribute('data-surface')))).toEqual(
      reset.observation.tools.map((t) => t.function.name),
    );
    // Surface = canonical, as the variant's map has them.
    const view = (await (await fetch(`${viewer.url}/api/episodes/${key}`)).json()) as {
      tools: { surface: string; canonical: string | null }[];
    };
    const canonical = new Map(view.tools.map((t) => [t.surface, t.canonical]));
    expect(canonical.size).toBeGreaterThan(0);
    expect(await atReset.locator('summary .tool-name').allTextContents()).toEqual(
      reset.observation.tools.map((t) => {
        const c = canonical.get(t.function.name);
        return c === null ? `${t.function.name} (decoy)` : c === t.function.name ? c : `${t.function.name} = ${c}`;
      }),
    );
    expect((await atReset.allTextContents()).some((t) => / = /.test(t))).toBe(true);
    // A schema, opened, is the recorded one.
    await atReset.first().locator('summary').click();
    expect(JSON.parse((await atReset.first().locator('pre.schema').textContent())!)).toEqual(
      reset.observation.tools[0].function.parameters,
    );

    // The answer key (open by default) and every reason of every component.
    expect(await page.locator('#answer-key').getAttribute('open')).not.toBeNull();
    expect(await page.locator('#reference-reply').textContent()).toBe(rec.source_task.answer_key.reference_reply);
    for (const [name, detail] of Object.entries(rec.reward.details))
      expect(await page.locator(`#reward .component[data-component="${name}"] ul.reasons li`).allTextContents()).toEqual(detail.reasons);
    expect(await page.locator('#reward-total').textContent()).toContain('tool segment: ');

    // Sections opened stay open for the next episode.
    await page.click(`#episodes tbody tr[data-key="${key + 1}"]`);
    await waitShown(page, key + 1);
    expect(await page.locator('#system-prompt').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('takes the first click on a row after a reward filter was edited', async () => {
    const { page, errors } = await openPage();
    // Typing into the bound leaves the focus there: the click's mousedown blurs it, which fires `change`.
    await page.locator('#f-max').fill('0.9');
    const kept = records.map((r, key) => ({ key, reward: r.record.reward.reward })).filter((x) => x.reward <= 0.9);
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(300);
    expect(await shownKeys(page)).toEqual(kept.map((x) => x.key));
    const target = kept[5].key;
    await page.locator(`#episodes tbody tr[data-key="${target}"] td[data-column="intent"]`).click();
    await waitShown(page, target);
    expect(await page.locator('#episode-title').textContent()).toBe(titleOf(target));

    // The same for the lower bound, typed key by key.
    await page.locator('#f-min').fill('');
    await page.locator('#f-min').pressSequentially('0.01');
    const kept2 = kept.filter((x) => x.reward >= 0.01);
    // The bound must filter something out and keep something (the reward is near 0 or near 1 for most episodes).
    expect(kept2.length).toBeGreaterThan(0);
    expect(kept2.length).toBeLessThan(kept.length);
    expect(await shownKeys(page)).toEqual(kept2.map((x) => x.key));
    const target2 = kept2[kept2.length - 1].key;
    await page.locator(`#episodes tbody tr[data-key="${target2}"] td[data-column="turns"]`).click();
    await waitShown(page, target2);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('renders Chinese text and takes a screenshot', async () => {
    const key = records.findIndex((r) => r.record.summary.locale === 'zh-CN');
    expect(key).toBeGreaterThanOrEqual(0);
    const { page, errors } = await openPage(linkOf(key));
    await waitShown(page, key);
    expect(await page.locator('#detail-pane').getAttribute('lang')).toBe('zh-CN');
    // Draw two Chinese characters and a character no font has in the viewer message's own font: with
    // no CJK font all three are the same missing-glyph box.
    const glyphs = await page.locator('#viewer-message').evaluate((node) => {
      const font = getComputedStyle(node).font;
      const draw = (ch: string): string => {
        const c = document.createElement('canvas');
        c.width = 40;
        c.height = 40;
        const g = c.getContext('2d')!;
        g.font = font.replace(/^(.*?)\d+(\.\d+)?px/, '$132px');
        g.fillText(ch, 2, 34);
        return c.toDataURL();
      };
      const blank = document.createElement('canvas');
      blank.width = 40;
      blank.height = 40;
      return { a: draw('链'), b: draw('接'), missing: draw('\uE000'), blank: blank.toDataURL() };
    });
    expect(glyphs.a).not.toBe(glyphs.blank);
    expect(glyphs.a).not.toBe(glyphs.b);
    expect(glyphs.a).not.toBe(glyphs.missing);
    expect(glyphs.b).not.toBe(glyphs.missing);

    const file = join(mkdtempSync(join(tmpdir(), 'hg-shot-')), 'viewer.png');
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    const viewport = page.viewportSize()!;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual(viewport);
    // A page of text, tables and charts compresses to tens of kilobytes; a blank one to a few hundred bytes.
    expect(png.length).toBeGreaterThan(30_000);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
