/**
 * The client behind the deprecated page helpers of `authkoa/browser` (mfa.ts, passkey.ts, sessions.ts):
 * their options (`base`, `xsrfCookie`, `xsrfHeader`) turned into createAuthClient's, so each helper is one
 * call of `authkoa/client` and nothing of its own. A relative `base` is under the page's origin; an
 * absolute one (`https://login.example/auth`) names the app's origin too.
 */
import { createAuthClient, type AuthClient } from './client.js';

/** The options every page helper takes. */
export interface HelperOptions {
  /** The routes' prefix (a path, or an absolute URL). */
  base?: string;
  /** The cookie holding the XSRF token. Default `XSRF-TOKEN`. */
  xsrfCookie?: string;
  /** The request header the XSRF token is sent in. Default `X-XSRF-TOKEN`. */
  xsrfHeader?: string;
  /** Aborts the requests (and a passkey prompt). */
  signal?: AbortSignal;
}

/**
 * The app's origin (for an absolute base) and the path of `opts.base` (default `fallback`) without its
 * trailing slashes. A base that is not a path or an http(s) URL is a TypeError naming the option, before
 * any request.
 */
export function helperBase(opts: HelperOptions, fallback: string): { origin?: string; path: string } {
  const base = opts.base ?? fallback;
  const absolute = typeof base === 'string' && /^https?:\/\//i.test(base) ? new URL(base) : undefined;
  if (typeof base !== 'string' || (!absolute && !base.startsWith('/'))) {
    throw new TypeError(`options.base must be a string, a path such as "${fallback}" or an absolute http(s) URL`);
  }
  return { origin: absolute?.origin, path: (absolute ? absolute.pathname : base).replace(/\/+$/, '') };
}

/** A client whose auth routes are under `authPath` ('' for the origin's root), as the helper's options say. */
export function clientFor(origin: string | undefined, authPath: string, opts: HelperOptions): AuthClient {
  const options = { authPath: authPath || '/', xsrfCookieName: opts.xsrfCookie, xsrfHeaderName: opts.xsrfHeader };
  return createAuthClient(origin === undefined ? options : { ...options, baseURL: origin });
}

/** The client of a helper whose `base` is the auth prefix (default `/auth`): the second factor's and the sessions'. */
export function helperClient(opts: HelperOptions): AuthClient {
  const { origin, path } = helperBase(opts, '/auth');
  return clientFor(origin, path, opts);
}
