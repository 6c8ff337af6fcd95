/**
 * The one registry of wire error codes (PROTOCOL.md "Errors"). Clients switch on `code`; messages are for
 * people and may change. Modelled on fastify's `lib/errors.js`: stable string codes in one file.
 */

/** Frame-level and item-level error codes, exactly as PROTOCOL.md names them. */
export const ERROR_CODES = [
  'BAD_FRAME',
  'INVALID_MESSAGE',
  'UNKNOWN_TYPE',
  'HELLO_REQUIRED',
  'PROTOCOL_VERSION',
  'UNAUTHORIZED',
  'FRAME_TOO_LARGE',
  'BATCH_TOO_LARGE',
  'UNKNOWN_SESSION',
  'CAPACITY_REACHED',
  'SHUTTING_DOWN',
  'INTERNAL',
  'UNKNOWN_EPISODE',
  'DUPLICATE_EPISODE',
  'RESET_NEEDED',
  'INVALID_ACTION',
  'INVALID_VARIANT',
  'UNKNOWN_TASK',
  'TIMEOUT',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error as data: what workers, episodes and services return instead of throwing. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * The error object of a reply: `details` only when there are some (both encodings then carry the same
 * map). Every error the server sends is built here.
 */
export function wireError(info: ErrorInfo): ErrorInfo {
  return info.details === undefined ? { code: info.code, message: info.message } : { code: info.code, message: info.message, details: info.details };
}

/** A failed batch item (PROTOCOL.md `ItemError`): `episode_id` whenever the item named one or the server made one. */
export function itemError(episode_id: string | undefined, info: ErrorInfo): { ok: false; episode_id?: string; error: ErrorInfo } {
  const error = wireError(info);
  return episode_id === undefined ? { ok: false, error } : { ok: false, episode_id, error };
}

/** A frame-level `error` reply; `id` is the request's when it could be read, else null. */
export function errorFrame<Id>(id: Id | null, info: ErrorInfo): { type: 'error'; id: Id | null; error: ErrorInfo } {
  return { type: 'error', id, error: wireError(info) };
}

/** The typed exception of the in-process Gym API (`HarnessGymEnv`), carrying a wire code. */
export class EnvError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(info: ErrorInfo) {
    super(`${info.code}: ${info.message}`);
    this.name = 'EnvError';
    this.code = info.code;
    this.details = info.details;
  }
}
