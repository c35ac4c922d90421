import { isIPv4 } from 'node:net';

/**
 * Which redirect URIs a client may have, and whether a request's redirect_uri is one of them. `web` is a browser-based
 * client (OpenID's application_type): https, or http on a loopback host. `native` is an app on the user's machine
 * (RFC 8252): the loopback interface on any port, a private-use scheme, or a claimed https URL. `any` is a client
 * from the options, which may be either. Plain http on another host only with `allowHttpRedirects` (development).
 */
export type RedirectRule = 'any' | 'web' | 'native';

/** Host names that are this machine: `localhost`, 127.0.0.0/8, `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || (isIPv4(hostname) && hostname.startsWith('127.'));
}

/** A private-use scheme is a reverse domain name (RFC 8252 §7.1), so it has a dot: `com.example.app`. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/i;

/** Longest redirect URI taken (they are stored per client and compared on every authorization request). */
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why `uri` is not a redirect URI under `rule`, or undefined when it is one. */
export function redirectURIProblem(uri: unknown, rule: RedirectRule, allowHttp: boolean): string | undefined {
  if (typeof uri !== 'string' || uri.length > MAX_REDIRECT_URI_LENGTH) return 'is not a URI';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'has user credentials';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname ? undefined : 'has no host';
  if (scheme === 'http') {
    if (isLoopbackHost(url.hostname) || allowHttp) return undefined;
    return 'is plain http on a host other than localhost, 127.0.0.1 or [::1]';
  }
  if (!PRIVATE_USE_SCHEME.test(scheme)) return `has the scheme "${scheme}:" (https, loopback http or com.example.app:)`;
  if (rule === 'web') return 'has a private-use scheme, which only a native application may use';
  return undefined;
}

/** A loopback http URI as its parts: the port is what RFC 8252 §7.3 lets differ. */
const LOOPBACK_HTTP = /^http:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?([/?].*)?$/;

/**
 * True when `redirectURI` is one of `registered`, compared as strings; for an http URI on a loopback host the port
 * may differ (RFC 8252 §7.3: a native app listens on whatever port is free), every other character may not.
 */
export function redirectMatches(registered: readonly string[], redirectURI: string): boolean {
  if (registered.includes(redirectURI)) return true;
  const asked = LOOPBACK_HTTP.exec(redirectURI);
  if (!asked) return false;
  return registered.some((uri) => {
    const known = LOOPBACK_HTTP.exec(uri);
    return known !== null && known[1] === asked[1] && (known[2] ?? '') === (asked[2] ?? '');
  });
}
