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

/** A result that is either a value or a typed error. */
export type Result<T> = ({ ok: true } & T) | ({ ok: false } & { error: ErrorInfo });

/** Build an error value. */
export function err(code: ErrorCode, message: string, details?: unknown): { ok: false; error: ErrorInfo } {
  return details === undefined ? { ok: false, error: { code, message } } : { ok: false, error: { code, message, details } };
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
