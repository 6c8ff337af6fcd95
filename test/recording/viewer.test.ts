import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import { startViewer } from '../../recording/view/server.js';
import type { RunningViewer } from '../../recording/view/server.js';
import type { LoadedRecord } from '../../recording/index.js';
import { recordInProcess, tempDir } from './helpers.js';

let records: LoadedRecord[];
let viewer: RunningViewer;
let browser: BrowserContext;
let oracleRecords: LoadedRecord[];

beforeAll(async () => {
  const dir = tempDir('hg-rec-view-');
  oracleRecords = await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 6, seed: 1 });
  records = await recordInProcess(dir, { policy: 'random', variant: 'train', episodes: 10, seed: 40 });
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

describe('record viewer', () => {
  it('serves the API on 127.0.0.1', async () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = (await (await fetch(`${viewer.url}/api/episodes`)).json()) as { episodes: { episode_id: string }[] };
    expect(list.episodes.length).toBe(records.length);
    expect((await fetch(`${viewer.url}/api/episodes/999`)).status).toBe(404);
  });

  it('lists the episodes with charts, filters them, and opens one as a transcript with its reward breakdown', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(viewer.url);
    await page.waitForSelector('body[data-ready="true"]');
    const rows = page.locator('#episodes tbody tr');
    expect(await rows.count()).toBe(16);
    // One chart for the total and one per component, drawn as inline SVG.
    expect(await page.locator('#charts .chart svg').count()).toBe(6);
    expect(await page.locator('#charts .chart[data-component="accuracy"] rect.bar').count()).toBe(10);

    // Filter: the identity family leaves the 6 oracle episodes.
    await page.selectOption('#f-family', 'identity');
    expect(await rows.count()).toBe(6);
    expect(await page.locator('#count').textContent()).toBe('6 of 16 episodes');
    await page.selectOption('#f-family', '');
    // Filter by reward range: only perfect rewards.
    await page.fill('#f-min', '1');
    const expected = (await (await fetch(`${viewer.url}/api/episodes`)).json()) as { episodes: { reward: number }[] };
    const nPerfect = expected.episodes.filter((e) => e.reward >= 1).length;
    expect(nPerfect).toBeGreaterThan(0);
    expect(nPerfect).toBeLessThan(16);
    expect(await rows.count()).toBe(nPerfect);
    await page.fill('#f-min', '0');
    expect(await rows.count()).toBe(16);

    // Open an episode.
    await rows.nth(0).click();
    await page.waitForSelector('#final-reply');
    const title = await page.locator('#episode-title').textContent();
    expect(title).toContain('eval-1');
    expect(await page.locator('#viewer-message').textContent()).toContain(oracleRecords[0].record.task.messages.join('\n'));
    expect(await page.locator('#final-reply').textContent()).toBe(oracleRecords[0].record.trace.final_reply);
    expect(await page.locator('#detail-pane .turn').count()).toBeGreaterThan(0);
    expect(await page.locator('#detail-pane .component').count()).toBe(5);
    expect(await page.locator('#reward-total').textContent()).toMatch(/^Reward 1\.0000/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
