/**
 * Argument parsers shared by the commands. Each throws a usage error (exit 2) that names the flag, the
 * value given and what is accepted, e.g. `--port must be an integer in [0, 65535], got "abc"`; commander
 * lets it through unchanged and cli/main.ts prints it as the command's one line.
 */
import { Option } from 'commander';
import { closest, usageError } from './errors.js';
import { CUSTOM_INTENT_RE, INTENTS } from '../protocol/domain.js';

/** `1000000` as `1000000`, `4294967295` as is: bounds are printed as written in the help. */
function bound(n: number): string {
  return Number.isFinite(n) ? String(n) : n > 0 ? '∞' : '-∞';
}

/** An integer in [min, max]. */
export function intArg(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = value.trim() === '' ? NaN : Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw usageError(`${flag} must be an integer in [${bound(min)}, ${bound(max)}], got "${value}"`);
    return n;
  };
}

/** A number in [min, max]. */
export function numberArg(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = value.trim() === '' ? NaN : Number(value);
    if (!(n >= min && n <= max)) throw usageError(`${flag} must be a number in [${bound(min)}, ${bound(max)}], got "${value}"`);
    return n;
  };
}

/** A probability in [0, 1]. */
export function rateArg(flag: string) {
  return numberArg(flag, 0, 1);
}

/** One of `choices`, with a "did you mean" for a near miss. */
export function choiceArg(flag: string, choices: readonly string[]) {
  return (value: string): string => {
    if (choices.includes(value)) return value;
    const near = closest(value, choices);
    throw usageError(`${flag} must be one of ${choices.join(', ')}, got "${value}"${near ? ` (did you mean ${near}?)` : ''}`);
  };
}

/** An option whose value is one of `choices`: listed in the help, checked with `choiceArg`. */
export function choiceOption(flags: string, description: string, choices: readonly string[]): Option {
  const opt = new Option(flags, description).choices(choices);
  return opt.argParser(choiceArg(opt.long ?? flags, choices));
}

/**
 * An intent: a built-in one, or a harness's own (a snake_case name that is no misspelt built-in one; the
 * harness played checks it, docs/HARNESS.md "Intents of your own"). A typo of a built-in intent is refused
 * as before, with the nearest name.
 */
export function intentArg(flag: string) {
  const check = choiceArg(flag, INTENTS);
  return (value: string): string => {
    if ((INTENTS as readonly string[]).includes(value)) return value;
    if (closest(value, INTENTS) === undefined && CUSTOM_INTENT_RE.test(value)) return value;
    return check(value);
  };
}

/** An `--intent` option: `intentArg`, the built-in intents listed in the help. */
export function intentOption(flags: string, description: string): Option {
  const opt = new Option(flags, `${description} (${INTENTS.join(', ')}, or one of the harness's own)`);
  return opt.argParser(intentArg(opt.long ?? flags));
}

/** A comma-separated list of intents, each as `intentArg` takes it (at least one, no repeats). */
export function intentListArg(flag: string) {
  const builtin = listArg(flag, INTENTS);
  const own = (item: string): boolean => !(INTENTS as readonly string[]).includes(item) && closest(item, INTENTS) === undefined && CUSTOM_INTENT_RE.test(item);
  return (value: string): string[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    // The built-in ones (and the typos) through the list check, with its messages.
    const rest = items.filter((i) => !own(i));
    if (items.length === 0 || rest.length > 0) builtin(items.length === 0 ? value : rest.join(','));
    return [...new Set(items)];
  };
}

/** A comma-separated list of `choices` (at least one, no repeats). */
export function listArg(flag: string, choices: readonly string[]) {
  return (value: string): string[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (items.length === 0) throw usageError(`${flag} must be a comma-separated list of ${choices.join(', ')}, got "${value}"`);
    for (const item of items) {
      if (!choices.includes(item)) {
        const near = closest(item, choices);
        throw usageError(`${flag}: "${item}" is not one of ${choices.join(', ')}${near ? ` (did you mean ${near}?)` : ''}`);
      }
    }
    return [...new Set(items)];
  };
}

/** A comma-separated list of numbers in [min, max], e.g. `0,0.2,0.4`. */
export function numberListArg(flag: string, min: number, max: number) {
  const one = numberArg(flag, min, max);
  return (value: string): number[] => {
    const items = value.split(',').map((s) => s.trim());
    if (items.some((s) => s === '')) throw usageError(`${flag} must be a comma-separated list of numbers in [${min}, ${max}], got "${value}"`);
    return items.map(one);
  };
}

/** A URL with one of `protocols` (e.g. `ws:`, `wss:`), with what to give instead. */
export function urlArg(flag: string, protocols: readonly string[], example: string) {
  return (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usageError(`${flag} must be a ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URL such as ${example}, got "${value}"`);
    }
    if (!protocols.includes(url.protocol)) {
      const web = protocols.includes('ws:') && (url.protocol === 'http:' || url.protocol === 'https:');
      const ws = `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}${url.pathname === '/' ? '/v1/env' : url.pathname}`;
      const hint = web ? ` (did you mean ${ws}?)` : '';
      throw usageError(
        `${flag} must be a ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URL such as ${example}, got "${value}"${hint}`,
      );
    }
    return value;
  };
}

/** A repeatable URL flag (`urlArg` for each value): the list in the order given, each URL at most once. */
export function urlListArg(flag: string, protocols: readonly string[], example: string) {
  const one = urlArg(flag, protocols, example);
  return (value: string, previous: string[] | undefined): string[] => {
    const url = one(value);
    if (previous?.includes(url)) throw usageError(`${flag} ${url} is given twice; give each server once`);
    return [...(previous ?? []), url];
  };
}

/** Commander collector for repeatable flags. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
