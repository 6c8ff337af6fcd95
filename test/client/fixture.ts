/** A real harness-gym server on a free localhost port, for the client's end-to-end tests. */
import { defaultServerConfig, startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';

/** A started server and its WebSocket URL. */
export interface TestServer {
  server: RunningServer;
  /** `ws://127.0.0.1:PORT/v1/env` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Start a server (silent logs, port 0) with config overrides. */
export async function startTestServer(overrides: Record<string, unknown> = {}): Promise<TestServer> {
  const server = await startServer(defaultServerConfig({ host: '127.0.0.1', port: 0, log_level: 'silent', ...overrides }));
  const http = new URL(server.url);
  return { server, url: `ws://127.0.0.1:${http.port}/v1/env`, port: Number(http.port), close: () => server.close() };
}
