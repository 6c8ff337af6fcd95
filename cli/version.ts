/** The package's version, read once from package.json (works from source and from dist/). */
import { readFileSync } from 'node:fs';
import { packageRoot } from './root.js';

let cached: string | undefined;

/** `version` of package.json. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(`${packageRoot()}/package.json`, 'utf8')) as { version: string }).version;
  return cached;
}
