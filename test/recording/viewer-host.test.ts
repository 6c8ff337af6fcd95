/**
 * The viewer answers only its own host names (issue 39 "DNS rebinding"; docs/DEPLOY.md "Threat model"):
 * a request whose Host is another name (a rebinding page on evil.example, resolved to 127.0.0.1) gets 421
 * and no record, over a real socket.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewer } from '../../recording/view/server.js';
import type { RunningViewer } from '../../recording/view/server.js';
import { recordInProcess, tempDir } from './helpers.js';

let viewer: RunningViewer;
let port: string;

beforeAll(async () => {
  const dir = tempDir('hg-rec-view-host-');
  await recordInProcess(dir, { policy: 'oracle', variant: 'identity', episodes: 3, seed: 1 });
  viewer = await startViewer({ path: dir, port: 0 });
  port = new URL(viewer.url).port;
}, 60_000);

afterAll(async () => {
  await viewer?.close();
});

function get(path: string, host: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = host === undefined ? {} : { host };
    const req = request({ hostname: '127.0.0.1', port, path, headers, setHost: host === undefined ? false : true }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('viewer Host check', () => {
  it('refuses /api/episodes, an episode and the page for Host: evil.example with 421 and no record', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, '127.0.0.1:1']) {
      for (const path of ['/api/episodes', '/api/episodes/0', '/']) {
        const r = await get(path, host);
        expect(r.status, `${host} ${path}`).toBe(421);
        expect(r.body).toMatch(/^421 Misdirected Request/);
        expect(r.body).not.toContain('episode_id');
      }
    }
  });

  it('refuses a request without a Host header (node answers HTTP/1.1 without one with 400 before the app)', async () => {
    const r = await get('/api/episodes', undefined);
    expect([400, 421]).toContain(r.status);
    expect(r.body).not.toContain('episode_id');
  });

  it('answers its own names: 127.0.0.1, localhost and [::1] at its port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const r = await get('/api/episodes', host);
      expect(r.status, host).toBe(200);
      expect(JSON.parse(r.body).episodes).toHaveLength(3);
    }
  });
});
