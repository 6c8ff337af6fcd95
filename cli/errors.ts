/**
 * How the `harness-gym` command fails: one line on stderr, `harness-gym <command>: <what went wrong and
 * what to do>`, and an exit code per kind of failure (README "The command line", "Exit codes"). Commands
 * throw a `CliError` for the failures they foresee; anything else is classified here (a connection the
 * client could not open, a port in use, a file that cannot be read) or, failing that, reported as an
 * internal error. Nothing prints a stack unless `HARNESS_GYM_DEBUG` is set.
 */
import { editDistance } from '../protocol/text.js';
import { CommanderError } from 'commander';

/** The exit codes, one per kind of failure. */
export const EXIT = {
  /** Done (also when the reader of stdout went away: `inspect DIR | head`). */
  ok: 0,
  /** The command ran and its answer is no: `check` found a failure, `replay` diverged, no episode matched `--episode`. */
  verdict: 1,
  /** Usage: unknown command or option, a bad or missing value, flags that cannot go together, an invalid variant. */
  usage: 2,
  /** Network: nothing answers at the URL, the host is unknown, the connection was lost, a port cannot be listened on. */
  network: 3,
  /** Files: an input path that is missing, unreadable or holds no records; an invalid config, profile or module file; an output that cannot be written. */
  files: 4,
  /** The run failed: the server refused the session or a request, the server and this build disagree, every rollout episode failed. */
  run: 5,
  /** A resource limit was reached: the disk is full, too many open files, memory exhausted (a worker's or the process's), a string or array past V8's largest. Not a bug. */
  resource: 6,
  /** An internal error: a bug of harness-gym (EX_SOFTWARE). */
  internal: 70,
} as const;

/** A failure a command foresaw: its exit code and the one line to print (without the command prefix). */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(exitCode: number, message: string) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A usage error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(EXIT.usage, message);
}

/** A file error (exit 4). */
export function fileError(message: string): CliError {
  return new CliError(EXIT.files, message);
}

/** A network error (exit 3). */
export function networkError(message: string): CliError {
  return new CliError(EXIT.network, message);
}

/** A failed run (exit 5). */
export function runError(message: string): CliError {
  return new CliError(EXIT.run, message);
}

/**
 * Several messages (a config file's bad keys) as one line: the first few, and how many more (`unlisted`:
 * problems counted by the loader but not listed, e.g. past a task file's first hundred).
 */
export function joinErrors(errors: readonly string[], max = 4, unlisted = 0): string {
  const shown = errors.slice(0, max).join('; ');
  const more = Math.max(0, errors.length - max) + unlisted;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

/** A message on one line (multi-line messages of libraries are folded). */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

type SystemError = Error & { code?: unknown; syscall?: unknown; address?: unknown; port?: unknown; hostname?: unknown; path?: unknown };

/** Why a listen failed, and what to do about it (serve, view). */
export function listenFailure(e: unknown, host: string, port: number, portFlag = '--port'): CliError | null {
  const code = (e as SystemError)?.code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return networkError(`cannot listen on ${where}: the port is in use (another server?); give another ${portFlag}, or ${portFlag} 0 for a free one`);
    case 'EACCES':
      return networkError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); give another ${portFlag}`);
    case 'EADDRNOTAVAIL':
      return networkError(`cannot listen on ${where}: ${host} is not an address of this machine; give --host 127.0.0.1, 0.0.0.0 or one of its addresses`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return networkError(`cannot listen on ${where}: host ${host} not found; give --host 127.0.0.1, 0.0.0.0 or one of this machine's addresses`);
    default:
      return null;
  }
}

/** The message of a system error without Node's decorations, e.g. `ENOENT: no such file or directory`. */
function systemMessage(e: SystemError): string {
  return oneLine(e.message);
}

const FILE_SYSCALLS = new Set(['open', 'stat', 'lstat', 'mkdir', 'scandir', 'read', 'write', 'access', 'rename', 'unlink', 'opendir', 'copyfile']);

const GIVE_NODE_MEMORY = 'give node more memory with NODE_OPTIONS=--max-old-space-size=MB';
const SPLIT = 'use smaller inputs (split the file or the run)';

/** What ran out and what to do about it, by the error's code (system errors, Node's worker). */
const RESOURCE_CODES: Readonly<Record<string, { what: string; todo: string }>> = {
  ENOSPC: { what: 'no space left on the device', todo: 'free disk space, or write to another disk' },
  EMFILE: { what: 'too many open files in this process', todo: 'raise the limit with ulimit -n (e.g. ulimit -n 65536), or open fewer at once' },
  ENFILE: {
    what: 'too many open files on this machine',
    todo: "close other programs' files or raise the system's limit (fs.file-max), or open fewer at once",
  },
  ENOMEM: { what: 'the machine is out of memory', todo: 'free memory, or use smaller inputs' },
  ERR_WORKER_OUT_OF_MEMORY: {
    what: 'a worker thread ran out of memory',
    todo: `${GIVE_NODE_MEMORY} (serve: --worker-heap-mb MB), or use smaller inputs`,
  },
};

/** V8's RangeErrors that mean a size limit, not a wrong value, by message. */
const RESOURCE_RANGE_ERRORS: Readonly<Record<string, { what: string; todo: string }>> = {
  'Array buffer allocation failed': { what: 'out of memory', todo: `${GIVE_NODE_MEMORY}, or use smaller inputs` },
  'Invalid string length': { what: "a string longer than V8's largest", todo: SPLIT },
  'Invalid array length': { what: "an array longer than V8's largest", todo: SPLIT },
};

/** The line of a resource limit reached (exit 6), or null when `e` is not one. */
function resourceFailure(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const code = (e as SystemError).code;
  const known = typeof code === 'string' ? RESOURCE_CODES[code] : undefined;
  const range = e instanceof RangeError ? RESOURCE_RANGE_ERRORS[e.message] : undefined;
  const hit = known ?? range;
  return hit ? `resource limit reached: ${hit.what} (${oneLine(e.message)}); ${hit.todo}` : null;
}

/**
 * The exit code and line of any error a command let through. Foreseen failures are `CliError`s; a
 * resource limit (a full disk, too many open files, memory, V8's largest string or array) is exit 6
 * whatever the syscall; other system errors of files and sockets are classified by their syscall;
 * anything else is an internal error.
 */
export function describeFailure(e: unknown): { exitCode: number; message: string } {
  if (e instanceof CliError) return { exitCode: e.exitCode, message: oneLine(e.message) };
  const resource = resourceFailure(e);
  if (resource !== null) return { exitCode: EXIT.resource, message: resource };
  const err = e as SystemError;
  if (err instanceof Error && typeof err.code === 'string') {
    if (typeof err.syscall === 'string' && FILE_SYSCALLS.has(err.syscall)) {
      return { exitCode: EXIT.files, message: systemMessage(err) };
    }
    if (err.syscall === 'listen' || err.syscall === 'getaddrinfo' || err.syscall === 'connect') {
      return { exitCode: EXIT.network, message: systemMessage(err) };
    }
  }
  const text = err instanceof Error ? err.message : String(e);
  return {
    exitCode: EXIT.internal,
    message: `internal error: ${oneLine(text)} (a bug of harness-gym; HARNESS_GYM_DEBUG=1 prints the stack)`,
  };
}

/**
 * A commander parse error as one line: what was wrong, and where the flags are listed. Commander's own
 * texts (`error: unknown option '--x'`) are reworded into the command's style.
 */
export function describeCommanderError(e: CommanderError, command: string): { exitCode: number; message: string } {
  const help = `see harness-gym${command ? ` ${command}` : ''} --help`;
  const raw = e.message.replace(/^error: /, '');
  const suggestion = /\(Did you mean (.+?)\?\)/.exec(raw)?.[1];
  const did = suggestion ? ` (did you mean ${suggestion}?)` : '';
  const flag = (s: string): string => s.split(/[ ,<[]/)[0];
  let message: string;
  switch (e.code) {
    case 'commander.unknownOption': {
      const m = /unknown option '([^']+)'/.exec(raw);
      message = `unknown option ${m?.[1] ?? raw}${did}; ${help}`;
      break;
    }
    case 'commander.unknownCommand': {
      const m = /unknown command '([^']+)'/.exec(raw);
      message = `unknown command "${m?.[1] ?? raw}"${did}; ${help}`;
      break;
    }
    case 'commander.missingMandatoryOptionValue': {
      const m = /required option '([^']+)' not specified/.exec(raw);
      message = `${m ? flag(m[1]) : raw} is required; ${help}`;
      break;
    }
    case 'commander.optionMissingArgument': {
      const m = /option '([^']+)' argument missing/.exec(raw);
      message = `${m ? flag(m[1]) : raw} needs a value; ${help}`;
      break;
    }
    case 'commander.missingArgument': {
      const m = /missing required argument '([^']+)'/.exec(raw);
      message = `missing the <${m?.[1] ?? 'argument'}> argument; ${help}`;
      break;
    }
    default:
      message = `${oneLine(raw).replace(/\.$/, '')}; ${help}`;
  }
  return { exitCode: EXIT.usage, message };
}

/** Closest candidate to a mistyped word (Levenshtein distance at most 2, 1 for short words), for "did you mean". */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = word.length <= 3 ? 2 : 3;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

