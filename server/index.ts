/** Public surface of `server/`: build or start the WebSocket environment server, and its configuration. */
export { buildServer, startServer, serverReady, serverState, closeServer, reloadRewards, writeHeapSnapshots } from './app.js';
export type { GymApp, RunningServer } from './app.js';
export type { ServerDeps, ServerState } from './core.js';
export {
  ServerConfigSchema,
  ServerLimitsSchema,
  parseServerConfig,
  loadServerConfig,
  readConfigFile,
  defaultServerConfig,
  defaultsOf,
} from './config.js';
export type { ServerConfig, ServerLimits, ServerConfigInput, ConfigResult } from './config.js';
