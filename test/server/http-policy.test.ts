/**
 * Host and Origin policies (issue 39 "DNS rebinding", "cross-origin WebSocket"; docs/DEPLOY.md "Threat
 * model"), over real sockets on 127.0.0.1: a WebSocket upgrade carrying a browser `Origin` is refused with
 * 403 before the upgrade unless the origin is in `allowed_origins` or a token is set; an upgrade without
 * `Origin` (every non-browser client) is unaffected; `allowed_hosts`, when set, refuses other Host headers
 * with 421 (but on /healthz and /readyz).
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseServerConfig, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, testConfig } from './helpers.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(overrides: Record<string, unknown> = {}): Promise<string> {
  running = await startServer(testConfig({ port: 0, ...overrides }));
  return running.url;
}

/** The HTTP status of a WebSocket upgrade: 101 when it opened (then closed), else the refusal's status. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/env', { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (e) => reject(e));
  });
}

/** GET `path` with an explicit Host header over a real socket. */
function get(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('allowed_origins: browser WebSocket upgrades', () => {
  it('refuses an upgrade from an unlisted origin with 403 by default (no token)', async () => {
    const url = await serve();
    const r = await upgradeStatus(url, { Origin: 'http://evil.example' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.code).toBe('FORBIDDEN_ORIGIN');
    // "null" (a sandboxed page, a file: URL) is an origin too, and never listed.
    expect((await upgradeStatus(url, { Origin: 'null' })).status).toBe(403);
  });

  it('accepts an upgrade without Origin (every non-browser client) and plays a hello', async () => {
    const url = await serve();
    const c = await connect(url);
    expect((await c.hello()).type).toBe('welcome');
    c.ws.close();
  });

  it('accepts a listed origin (case and default port aside) and still refuses others', async () => {
    const url = await serve({ allowed_origins: ['https://trainer.example', 'http://localhost:5173'] });
    expect((await upgradeStatus(url, { Origin: 'https://Trainer.example:443' })).status).toBe(101);
    expect((await upgradeStatus(url, { Origin: 'http://localhost:5173' })).status).toBe(101);
    expect((await upgradeStatus(url, { Origin: 'http://trainer.example' })).status).toBe(403);
    expect((await upgradeStatus(url, { Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('with a token set, any origin may upgrade and the token authenticates the hello', async () => {
    const url = await serve({ token: 'sekrit' });
    const c = await connect(url, { headers: { Origin: 'http://evil.example' } });
    expect((await c.hello({ token: 'sekrit' })).type).toBe('welcome');
    c.ws.close();
    const d = await connect(url, { headers: { Origin: 'http://evil.example' } });
    const r = await d.hello();
    expect(r.type).toBe('error');
    expect(r.error.code).toBe('UNAUTHORIZED');
    d.ws.close();
  });
});

describe('allowed_hosts: Host header check', () => {
  it('answers any Host by default', async () => {
    const url = await serve();
    expect((await get(url, '/v1/info', 'evil.example')).status).toBe(200);
  });

  it('when set, refuses other hosts on /v1/info, /metrics and the upgrade with 421, answers its own names', async () => {
    const url = await serve({ allowed_hosts: ['gym.internal', '127.0.0.1'] });
    const port = new URL(url).port;
    const evil = await get(url, '/v1/info', 'evil.example');
    expect(evil.status).toBe(421);
    expect(JSON.parse(evil.body).error.code).toBe('MISDIRECTED_HOST');
    expect((await get(url, '/metrics', `evil.example:${port}`)).status).toBe(421);
    expect((await get(url, '/v1/info', `gym.internal:${port}`)).status).toBe(200);
    expect((await get(url, '/v1/info', 'GYM.internal')).status).toBe(200);
    expect((await get(url, '/v1/info', `127.0.0.1:${port}`)).status).toBe(200);
    // Probes address a pod by its IP: /healthz and /readyz answer any Host.
    expect((await get(url, '/healthz', '10.1.2.3:8080')).status).toBe(200);
    expect((await upgradeStatus(url, { Host: 'evil.example' })).status).toBe(421);
    const c = await connect(url);
    expect((await c.hello()).type).toBe('welcome');
    c.ws.close();
  });

  it('a port in an entry must match', async () => {
    const url = await serve({ allowed_hosts: ['gym.internal:9999'] });
    expect((await get(url, '/v1/info', 'gym.internal:9999')).status).toBe(200);
    expect((await get(url, '/v1/info', 'gym.internal:8080')).status).toBe(421);
  });
});

describe('config validation', () => {
  it('bad values give one line naming the key', () => {
    const errs = (v: Record<string, unknown>) => {
      const r = parseServerConfig(v);
      return r.ok ? [] : r.errors;
    };
    expect(errs({ allowed_hosts: ['http://gym.internal/'] })).toEqual([
      'allowed_hosts.0: not a host name (a name or address, optionally ":port"; no scheme or path)',
    ]);
    expect(errs({ allowed_hosts: 'gym.internal' })[0]).toMatch(/^allowed_hosts: /);
    expect(errs({ allowed_origins: ['evil.example'] })).toEqual([
      'allowed_origins.0: not an http(s) origin (scheme://host[:port]): "evil.example"',
    ]);
    expect(errs({ allowed_origins: ['https://a.example/'] })).toEqual([
      'allowed_origins.0: write the origin as "https://a.example" (scheme://host[:port], lower case, no path)',
    ]);
    expect(parseServerConfig({ allowed_hosts: ['[::1]:8080', 'gym-1.internal'], allowed_origins: ['http://localhost:5173'] }).ok).toBe(
      true,
    );
  });
});
