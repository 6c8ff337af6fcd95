/**
 * The fastify application: the WebSocket endpoint `GET /v1/env` and the HTTP routes beside it
 * (`/healthz`, `/readyz`, `/v1/info`, `/metrics`). `buildServer` does not listen and installs no signal
 * handler, so tests can build many servers (and drive them with `app.injectWS`); `startServer` listens;
 * the serve command owns the process (signals, exit code).
 */
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { WIRE_PATH } from '../protocol/wire.js';
import type { ServerConfig } from './config.js';
import { Connection } from './connection.js';
import { ServerCore } from './core.js';
import { hostAllowed, originAllowed } from './http-policy.js';
import type { ServerDeps, ServerState } from './core.js';
import { applyV8Flags } from './v8-flags.js';

/** The server application (a fastify instance with the WebSocket plugin). */
export type GymApp = FastifyInstance;

const cores = new WeakMap<object, ServerCore>();

/**
 * Build the server (not listening); its episode workers start at once. Call `await app.ready()` before
 * `app.injectWS` (and `await serverReady(app)` to wait for the workers); `app.close()` shuts
 * down gracefully (requests already received are answered, later ones get `SHUTTING_DOWN`, sockets close
 * with 1001).
 */
export function buildServer(config: ServerConfig, deps: ServerDeps = {}): GymApp {
  const logger: Logger = deps.logger ?? pino({ level: config.log_level });
  // Process-wide V8 flags, before the core starts its episode workers (their isolates read them).
  const v8Flags = applyV8Flags(config);
  if (v8Flags.length > 0) logger.debug({ v8_flags: v8Flags }, 'V8 flags set');
  // No per-request log lines: a trainer scrapes /metrics and /readyz often, and that is not news.
  const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) }) as unknown as GymApp;
  const core = new ServerCore(config, logger, deps);
  cores.set(app, core);
  const limit = config.limits.max_frame_bytes;
  const malformedLogged = new WeakSet<object>();

  app.register(websocket, {
    // Frames up to 4x the limit are read and answered with FRAME_TOO_LARGE; beyond that ws closes with 1009
    // without buffering them.
    options: { maxPayload: limit * 4 },
    // A WebSocket protocol error (bad mask or opcode, invalid UTF-8, a frame past maxPayload): ws has
    // already sent its close frame. Any peer can cause these at will, so they are counted and logged once
    // per connection, at warn and without a stack; the socket is cut (its session waits for a resume).
    errorHandler(error, socket) {
      if (!malformedLogged.has(socket)) {
        malformedLogged.add(socket);
        core.metrics.malformedFrames.inc();
        const code = (error as { code?: unknown }).code;
        logger.warn(
          { code: typeof code === 'string' ? code : undefined, reason: error.message },
          'malformed WebSocket frame; connection cut',
        );
      }
      socket.terminate();
    },
    async preClose() {
      await core.shutdown();
      app.websocketServer.close();
    },
  });

  // Worker shards start with the core (ServerCore.startup), beside fastify and not in one of its hooks:
  // fastify gives a hook 10 s, and a loaded machine can need more. `serverReady(app)` waits for them;
  // /readyz answers 503 until they are up.

  // Host and Origin policies (server/http-policy.ts, docs/DEPLOY.md "Threat model"), before any route
  // and before the WebSocket upgrade: a refused upgrade gets a plain HTTP answer and never a socket.
  const allowedHosts = config.allowed_hosts;
  if (allowedHosts.length > 0) {
    app.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?', 1)[0];
      if (path === '/healthz' || path === '/readyz') return;
      if (hostAllowed(req.headers.host, allowedHosts)) return;
      return reply
        .code(421)
        .send({ error: { code: 'MISDIRECTED_HOST', message: 'this server does not answer this Host (allowed_hosts)' } });
    });
  }

  app.register(async (scope) => {
    scope.get(
      WIRE_PATH,
      {
        websocket: true,
        preValidation: async (req, reply) => {
          const origin = req.headers.origin;
          if (originAllowed(origin, config.allowed_origins, config.token !== null)) return;
          return reply.code(403).send({
            error: {
              code: 'FORBIDDEN_ORIGIN',
              message: 'WebSocket upgrades from browser origins need allowed_origins or a token (docs/DEPLOY.md "Threat model")',
            },
          });
        },
      },
      (socket) => {
        new Connection(core, socket);
      },
    );
    scope.get('/healthz', async () => ({ status: 'ok' }));
    scope.get('/readyz', async (_req, reply) => {
      if (core.shuttingDown) return reply.code(503).send({ status: 'shutting_down' });
      if (!core.started) return reply.code(503).send({ status: core.startError === null ? 'starting' : 'failed' });
      if (core.full) return reply.code(503).send({ status: 'at_capacity' });
      return { status: 'ready' };
    });
    scope.get('/v1/info', async () => core.info);
    scope.get('/metrics', async (_req, reply) => {
      const text = await core.metrics.registry.metrics();
      return reply.type(core.metrics.registry.contentType).send(text);
    });
  });
  return app;
}

/**
 * Resolves once every episode worker has started (at once without workers); rejects if one could not
 * start. No timeout: a slow start is slow, not fatal. Requests sent before are queued, not refused.
 */
export function serverReady(app: GymApp): Promise<void> {
  const core = cores.get(app);
  if (!core) return Promise.reject(new TypeError('not a harness-gym server'));
  return core.startup;
}

/** A snapshot of a server's sessions, episodes and in-flight requests (tests, diagnostics). */
export function serverState(app: GymApp): ServerState {
  const core = cores.get(app);
  if (!core) throw new TypeError('not a harness-gym server');
  return core.state();
}

/**
 * Re-read the reward profile files and module directories named in the config and swap them in
 * atomically (what SIGHUP does): new resets see the new set, episodes in flight keep theirs; a bad file
 * keeps the old set and is reported in the outcome.
 */
export function reloadRewards(app: GymApp): ReturnType<ServerCore['reloadRewards']> {
  const core = cores.get(app);
  if (!core) throw new TypeError('not a harness-gym server');
  return core.reloadRewards();
}

/** Heap snapshots of the main thread and every episode worker, written into `dir` (ServerCore.heapSnapshots). */
export function writeHeapSnapshots(app: GymApp, dir: string): Promise<string[]> {
  const core = cores.get(app);
  if (!core) throw new TypeError('not a harness-gym server');
  return core.heapSnapshots(dir);
}

/**
 * Graceful shutdown, starting at once: new requests get `SHUTTING_DOWN` and /readyz 503 from this call
 * on (a bare `app.close()` does the same, but only once fastify reaches its pre-close hooks, a few event
 * loop turns later). Resolves when every in-flight request was answered and the server is closed.
 */
export function closeServer(app: GymApp): Promise<void> {
  const core = cores.get(app);
  if (core) core.shuttingDown = true;
  return app.close();
}

/** A listening server. */
export interface RunningServer {
  app: GymApp;
  /** The HTTP base URL, e.g. `http://127.0.0.1:8080` (the WebSocket is at `ws://…/v1/env`). */
  url: string;
  /** Graceful shutdown. */
  close(): Promise<void>;
  /** Resolves once every episode worker has started (`serverReady`). */
  ready: Promise<void>;
}

/**
 * Build and listen on `config.host:config.port` (port 0 picks a free port). The workers start beside
 * listening: /healthz answers at once and /readyz 503 (`starting`) until they are up. By default this
 * resolves once they are (no timeout; a worker that cannot start closes the server and rejects); with
 * `{ waitReady: false }` it resolves once listening, and `ready` follows the workers.
 */
export async function startServer(config: ServerConfig, deps: ServerDeps = {}, opts: { waitReady?: boolean } = {}): Promise<RunningServer> {
  const app = buildServer(config, deps);
  const ready = serverReady(app);
  const url = await app.listen({ host: config.host, port: config.port });
  const running = { app, url, close: () => closeServer(app), ready };
  if (opts.waitReady !== false) {
    try {
      await ready;
    } catch (e) {
      await closeServer(app).catch(() => {});
      throw e;
    }
  }
  return running;
}
