/**
 * Host-header and Origin policies (docs/DEPLOY.md "Threat model"). `allowed_hosts` defends against DNS
 * rebinding: a page on `evil.example` whose name is made to resolve to the server's address reaches it
 * with `Host: evil.example`, which a server listing its own names refuses. `allowed_origins` defends
 * against cross-site WebSocket hijacking: a browser lets any page open a WebSocket anywhere and says which
 * page did in `Origin`; non-browser clients (the Python client, trainers, `harness-gym eval`) send none.
 */

/** The host part of a Host header, port removed (`[::1]:8090` -> `[::1]`, `gym.example:80` -> `gym.example`). */
export function hostWithoutPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/**
 * Whether a Host header names one of `allowed` (compared case-insensitively): an entry with a port must
 * match the header exactly, an entry without one matches the header's host whatever its port. A request
 * without a Host header matches nothing.
 */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (header === undefined || header === '') return false;
  const h = header.toLowerCase();
  const bare = hostWithoutPort(h);
  return allowed.some((a) => {
    const e = a.toLowerCase();
    return e === h || e === bare;
  });
}

/** A well-formed `allowed_hosts` entry: a host name, an IPv4 address or a bracketed IPv6 one, and an optional port. */
export const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The canonical form of an `allowed_origins` entry (`scheme://host[:port]`, lower case, default port left
 * out), or null when it is not an http(s) origin.
 */
export function canonicalOrigin(entry: string): string | null {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.origin;
}

/**
 * Whether a WebSocket upgrade with this `Origin` header may proceed: without one (not a browser) always;
 * with a token configured always (the token, checked on `hello`, authenticates, and a page has no token);
 * else only an origin listed in `allowed_origins` (exactly, after canonical form; `null` never).
 */
export function originAllowed(header: string | undefined, allowed: readonly string[], tokenSet: boolean): boolean {
  if (header === undefined) return true;
  if (tokenSet) return true;
  const o = canonicalOrigin(header);
  if (o === null) return false;
  return allowed.some((a) => canonicalOrigin(a) === o);
}
