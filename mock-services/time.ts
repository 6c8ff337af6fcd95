/**
 * Simulated time helpers. The world lives in China Standard Time (UTC+08:00, no daylight saving), so an
 * instant is formatted with a fixed `+08:00` offset and never depends on the host's time zone or clock.
 */

/** Milliseconds in a minute. */
export const MINUTE = 60_000;
/** Milliseconds in an hour. */
export const HOUR = 60 * MINUTE;
/** Milliseconds in a day. */
export const DAY = 24 * HOUR;

// China Standard Time: a fixed offset, so formatting is pure arithmetic on the epoch.
const OFFSET_MS = 8 * HOUR;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** Format with the host's Date arithmetic (read as UTC fields, so it never depends on the host's zone). */
function formatIso(ms: number): string {
  // Shift by the offset and read UTC fields: the result is the wall-clock time in UTC+8.
  const d = new Date(ms + OFFSET_MS);
  return (
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}+08:00`
  );
}

// Every world formats dozens of instants, all whole minutes within a few months of 2026. Such an instant
// is a date part (`2026-12-03T`, per local day of 2025-2027) and a time part (`20:00:00+08:00`, per minute
// of the day), each formatted once: it then costs two lookups and one concatenation, whose result shares
// the two parts. Any other instant is formatted in full.
const FIRST_DAY = Date.UTC(2025, 0, 1) / DAY; // local day number: days since the epoch, in UTC+8
const DAYS = Date.UTC(2028, 0, 1) / DAY - FIRST_DAY;
// Sized up front: filling a sparse array out of order would turn it into a slow dictionary.
const DATE_PARTS: (string | undefined)[] = new Array(DAYS).fill(undefined);
const TIME_PARTS: (string | undefined)[] = new Array(DAY / MINUTE).fill(undefined);

/** Format an epoch instant as ISO-8601 local time with the `+08:00` offset, e.g. `2026-12-03T20:00:00+08:00`. */
export function toIso(ms: number): string {
  const local = ms + OFFSET_MS;
  const day = Math.floor(local / DAY);
  const minute = (local - day * DAY) / MINUTE;
  if (!Number.isInteger(minute) || day < FIRST_DAY || day >= FIRST_DAY + DAYS) return formatIso(ms);
  const date = (DATE_PARTS[day - FIRST_DAY] ??= formatIso(day * DAY - OFFSET_MS).slice(0, 11));
  const time = (TIME_PARTS[minute] ??= `${pad2(Math.floor(minute / 60))}:${pad2(minute % 60)}:00+08:00`);
  return date + time;
}

/** Parse an ISO-8601 instant with an explicit offset into epoch milliseconds (NaN when malformed). */
export function parseIso(iso: string): number {
  return Date.parse(iso);
}

/** Epoch milliseconds of a local (UTC+8) wall-clock time. `month` is 1-12. */
export function localMs(year: number, month: number, day: number, hour = 0, minute = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute) - OFFSET_MS;
}

/** Epoch milliseconds of local midnight (UTC+8) of the day containing `ms`. */
export function localMidnight(ms: number): number {
  return Math.floor((ms + OFFSET_MS) / DAY) * DAY - OFFSET_MS;
}
