import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { safeEqual } from '../util/safe-equal.js';

/** The options a token's transport reads: where a request carries its token, and the two cookies it is written to. */
export interface TransportConfig {
  jwtCookieName: string;
  xsrfCookieName: string;
  /** Lower case, as node keys `req.headers`. */
  xsrfHeaderName: string;
  /** Lower case, as node keys `req.headers`. */
  jwtHeaderName: string;
  jwtQueryName: string;
  secureCookies: boolean;
  sameSite: 'Lax' | 'Strict' | 'None';
  cookieDomain: string | undefined;
  disableXSRF: boolean;
  /** Upper case. */
  xsrfIgnoreMethods: Set<string>;
  sendJWTHeader: boolean;
}

/**
 * What the JWT cookie holds once its session was ended from another device: no token (it never verifies),
 * only the reason the next requests are refused with, `session_revoked` rather than `no_token`.
 */
export const ENDED_MARK = 'session_revoked';

/**
 * How a token travels with a request, for one service: where it is read from (the `token` query, the
 * `X-JWT` header, the JWT cookie; the token service takes the first present), the XSRF check a cookie
 * token needs, and the two cookies written at login and refresh (the JWT HttpOnly, the XSRF value
 * readable by scripts).
 */
export class Transport {
  readonly #o: TransportConfig;
  // Header names as node stores them in `req.headers`: read there directly, not through Koa's `ctx.get`.
  readonly #jwtHeader: string;
  readonly #xsrfHeader: string;
  // The methods whose cookie requests skip the XSRF check; undefined when there are none (the default), so
  // that the usual request does not look its method up at all.
  readonly #xsrfExempt: ReadonlySet<string> | undefined;
  // Requests of this instance that are top-level navigations from this site (trustNavigation), by their `req`.
  readonly #navigations = new WeakSet<object>();

  constructor(o: TransportConfig) {
    this.#o = o;
    this.#jwtHeader = o.jwtHeaderName.toLowerCase();
    this.#xsrfHeader = o.xsrfHeaderName.toLowerCase();
    this.#xsrfExempt = o.xsrfIgnoreMethods.size > 0 ? o.xsrfIgnoreMethods : undefined;
  }

  // The three places a token may travel, read separately so the token service can try them in order
  // without a result object per request. Each gives '' when the request has nothing there.
  /** The `token` query parameter. */
  fromQuery(ctx: Context): string {
    return queryParam(ctx, this.#o.jwtQueryName);
  }

  /** The `X-JWT` request header. */
  fromHeader(ctx: Context): string {
    return headerValue(ctx.req.headers[this.#jwtHeader]);
  }

  /** The JWT cookie. */
  fromCookie(ctx: Context): string {
    return readCookie(headerValue(ctx.req.headers.cookie), this.#o.jwtCookieName);
  }

  /**
   * A cookie token's XSRF check: the request's XSRF header must equal the token's `jti`. Throws 401 `xsrf_mismatch`.
   */
  checkXsrf(ctx: Context, jti: string | undefined): void {
    if (this.#o.disableXSRF || this.#xsrfExempt?.has(ctx.req.method ?? '')) return;
    const header = headerValue(ctx.req.headers[this.#xsrfHeader]);
    if (!header && this.#navigations.has(ctx.req)) return;
    if (!header || !safeEqual(header, jti ?? '')) throw new AuthError('xsrf_mismatch', 'xsrf mismatch');
  }

  /**
   * This request is a top-level GET navigation the browser says came from this site (Sec-Fetch-Site): it cannot
   * carry the XSRF header, and the browser's own word stands in for it. Only for routes that start a flow
   * (`/auth/<provider>/login?link=1`), never for one that changes anything by itself.
   */
  trustNavigation(ctx: Context): void {
    this.#navigations.add(ctx.req);
  }

  /**
   * Writes the JWT and XSRF cookies (and the JWT response header with sendJWTHeader); `maxAgeS` undefined
   * makes session cookies. The answer carries a token, so no cache may keep it.
   */
  write(ctx: Context, token: string, jti: string, maxAgeS: number | undefined): void {
    const o = this.#o;
    ctx.set('Cache-Control', 'no-store');
    // Both cookies in one Set-Cookie write, their attributes built once: node checks every value of the
    // header each time it is set, and the JWT cookie is most of a login's header bytes.
    const attributes = this.#attributes(maxAgeS);
    setCookies(ctx, [
      [o.jwtCookieName, `${o.jwtCookieName}=${token}${attributes}; HttpOnly`],
      [o.xsrfCookieName, `${o.xsrfCookieName}=${jti}${attributes}`],
    ]);
    if (o.sendJWTHeader) ctx.set(o.jwtHeaderName, token);
  }

  /**
   * Replaces the JWT cookie with ENDED_MARK (and clears the XSRF one) once the session was found ended from
   * elsewhere: the browser's next requests carry no token, and the mark lets them be told why. A login or a
   * logout replaces it; it lasts what the cookie it replaces could have (`maxAgeS`).
   */
  markEnded(ctx: Context, maxAgeS: number): void {
    const o = this.#o;
    this.clear(ctx);
    setCookie(ctx, o.jwtCookieName, `${o.jwtCookieName}=${ENDED_MARK}${this.#attributes(maxAgeS)}; HttpOnly`);
  }

  /** True when the request's JWT cookie is the mark markEnded() left, and no query or header token comes first. */
  endedMarkPresented(ctx: Context): boolean {
    return !this.fromQuery(ctx) && !this.fromHeader(ctx) && this.fromCookie(ctx) === ENDED_MARK;
  }

  /** Clears both cookies (logout, rejected tokens). */
  clear(ctx: Context): void {
    const o = this.#o;
    ctx.set('Cache-Control', 'no-store');
    const clear = `${this.#attributes(undefined)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`;
    // HttpOnly on the clearing cookie too: a cookie engine may refuse to let a cookie without it replace
    // the HttpOnly one (curl's does), which would keep the session after a logout.
    setCookie(ctx, o.jwtCookieName, `${o.jwtCookieName}=${clear}; HttpOnly`);
    setCookie(ctx, o.xsrfCookieName, `${o.xsrfCookieName}=${clear}`);
  }

  #attributes(maxAge: number | undefined): string {
    const o = this.#o;
    let a = '; Path=/';
    if (o.cookieDomain) a += `; Domain=${o.cookieDomain}`;
    if (maxAge !== undefined) a += `; Max-Age=${maxAge}`;
    if (o.secureCookies) a += '; Secure';
    return a + `; SameSite=${o.sameSite}`;
  }
}

/** One request header as a string: node joins repeated headers, only Set-Cookie comes as a list. */
function headerValue(v: string | string[] | undefined): string {
  return typeof v === 'string' ? v : '';
}

function queryParam(ctx: Context, name: string): string {
  // Most requests carry no query at all: a look at the raw URL spares parsing it.
  if (ctx.req.url === undefined || !ctx.req.url.includes('?') || !ctx.querystring) return '';
  const v = ctx.query[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
}

/** Finds one cookie in a Cookie header without decoding the rest. */
export function readCookie(header: string, name: string): string {
  if (!header) return '';
  // Scans for `name=` at the start of a pair instead of splitting every cookie of the header: this runs
  // on every cookie-authenticated request.
  let at = 0;
  while (at < header.length) {
    while (header.charCodeAt(at) === 32 /* space */) at++;
    const end = header.indexOf(';', at);
    const stop = end < 0 ? header.length : end;
    if (header.startsWith(name, at) && header.charCodeAt(at + name.length) === 61 /* = */) {
      return header.slice(at + name.length + 1, stop).trim();
    }
    at = stop + 1;
  }
  return '';
}

/** Appends a Set-Cookie, replacing an earlier one of the same name written during this request. */
function setCookie(ctx: Context, name: string, value: string): void {
  setCookies(ctx, [[name, value]]);
}

/**
 * Appends Set-Cookies (`[name, cookie]` pairs) in order, each replacing an earlier one of its name; one header write.
 */
function setCookies(ctx: Context, cookies: Array<[name: string, value: string]>): void {
  const prev = ctx.response.get('Set-Cookie') as unknown as string[] | string;
  let list = Array.isArray(prev) ? prev : prev ? [prev] : [];
  for (const [name, value] of cookies) {
    list = list.filter((c) => !c.startsWith(`${name}=`));
    list.push(value);
  }
  ctx.set('Set-Cookie', list);
}
