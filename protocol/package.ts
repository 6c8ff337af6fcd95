/**
 * The package this code belongs to: its root directory (the nearest one above this module holding
 * package.json; the same from the sources and from dist/) and its name and version, read once. The one
 * lookup every folder uses (the harness data, `welcome.server`, records' `server_version`, the CLI's
 * `--version`, the bench).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
let identity: { name: string; version: string } | undefined;

/** The package root directory. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}

/** `{name, version}` of package.json. */
export function packageIdentity(): { name: string; version: string } {
  if (identity !== undefined) return identity;
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name?: string; version?: string };
  return (identity = { name: pkg.name ?? 'harness-gym', version: pkg.version ?? '0.0.0' });
}
