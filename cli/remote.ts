/**
 * What a failure of the client means to a person running a command against a server (`eval --url`,
 * `rollout`): the client's typed error (client/client.ts `HarnessGymError`) as one line that names the
 * URL and what to do, with the exit code of its kind: 3 when the server could not be reached or the
 * connection was lost, 5 when it answered and refused. With several URLs (replicas behind a
 * `ShardedClient`) the line names the replica the error came from (`details.replica`).
 */
import { HarnessGymError } from '../client/index.js';
import { networkError, runError } from './errors.js';
import type { CliError } from './errors.js';

/** The CliError for a client failure against `url` (or one of `url`), or null when `e` is not one. */
export function serverFailure(e: unknown, urls: string | readonly string[]): CliError | null {
  if (!(e instanceof HarnessGymError)) return null;
  const replica = (e.details as { replica?: unknown } | undefined)?.replica;
  const url = typeof replica === 'string' ? replica : typeof urls === 'string' ? urls : urls.join(' ');
  const msg = e.message.replace(/^[A-Z_]+: /, '');
  switch (e.code) {
    case 'CONNECTION_FAILED': {
      if (/ECONNREFUSED/.test(msg)) {
        return networkError(`cannot connect to ${url}: nothing is listening there (${msg}); start one with harness-gym serve, or check --url`);
      }
      if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(msg)) {
        return networkError(`cannot connect to ${url}: host ${new URL(url).hostname} not found; check --url`);
      }
      if (/EPROTO|wrong version number|ssl3_get_record/i.test(msg) && url.startsWith('wss:')) {
        // A TLS hello answered in plain text: the server speaks ws://, not wss://.
        return networkError(`cannot connect to ${url}: the server does not speak TLS; harness-gym serve listens on ${url.replace(/^wss:/, 'ws:')}`);
      }
      const http = /Unexpected server response: (\d+)/.exec(msg);
      if (http) {
        const u = new URL(url);
        return networkError(`cannot connect to ${url}: HTTP ${http[1]} instead of a WebSocket; harness-gym serves it at ${u.protocol}//${u.host}/v1/env`);
      }
      return networkError(`cannot connect to ${url}: ${msg}; check --url and that the server runs`);
    }
    case 'CONNECTION_CLOSED':
      return networkError(`lost the connection to ${url}: ${msg}`);
    case 'REPLICA_DOWN':
      return networkError(`lost replica ${url}: ${msg}`);
    case 'NO_REPLICA':
      return networkError(`no replica is up (${url}): ${msg}; start them with harness-gym serve, or check --url`);
    case 'CLIENT_TIMEOUT':
      return networkError(`${url} did not answer: ${msg}`);
    case 'UNAUTHORIZED':
      return runError(`${url} refused the session: ${msg}; give the server's token with --token (or $HARNESS_GYM_TOKEN)`);
    case 'PROTOCOL_VERSION':
      return runError(`${url} speaks another protocol version: ${msg}; use a harness-gym of the server's version`);
    case 'CAPACITY_REACHED':
      return runError(`${url} is full: ${msg}; try again later, or raise the server's max_sessions / max_episodes`);
    case 'SHUTTING_DOWN':
      return runError(`${url} is shutting down: ${msg}`);
    case 'CONFIG_MISMATCH':
      // The code stays in the line: a configuration to fix, not a refusal or a bug.
      return runError(`${url} does not match this run: ${e.message}`);
    default:
      return runError(`${url} refused: ${e.message}`);
  }
}
