/**
 * The package's name and version for `welcome.server`, read once from package.json. A copy of the small
 * lookup in cli/version.ts, because nothing below cli/ may import it (server/ must stay importable alone).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { name: string; version: string } | undefined;

/** `{name, version}` of the nearest package.json above this module (works from source and from dist/). */
export function serverIdentity(): { name: string; version: string } {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return (cached = { name: 'harness-gym', version: '0.0.0' });
    dir = up;
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
  cached = { name: pkg.name ?? 'harness-gym', version: pkg.version ?? '0.0.0' };
  return cached;
}
