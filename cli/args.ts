/** Argument parsers shared by the commands (commander `argParser`s with clear errors). */
import { InvalidArgumentError } from 'commander';

/** An integer in [min, max]. */
export function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return n;
  };
}

/** A probability in [0, 1]. */
export function rateArg(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number in [0, 1]');
  return n;
}
