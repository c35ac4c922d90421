import type { Context } from 'koa';
import type { AvatarProxyOptions } from './avatar.js';
import type { AvatarStore } from './stores/index.js';
import type { Claims } from './token.js';
import type { User } from './user.js';
import type { AuthError } from './errors.js';
import { parseDuration, type Duration } from './duration.js';
import { toLogger, type Logger, type LoggerInput } from './logger.js';
import type { ProviderEntry } from './registry.js';

export type { Duration } from './duration.js';

/** Secret for signing and verifying; receives the token's audience (or 'ignore', see audSecrets). */
export type SecretReader = ((aud: string) => string | Promise<string>) | { get(aud: string): string | Promise<string> };
/** Alters claims at every token creation (login, refresh, handshake); must tolerate a missing user. */
export type ClaimsUpdater = ((claims: Claims) => Claims | Promise<Claims>) | { update(claims: Claims): Claims | Promise<Claims> };
/** Called on every request wrapped by auth/admin/rbac/trace; false rejects the token. */
export type Validator = ((token: string, claims: Claims) => boolean | Promise<boolean>) | { validate(token: string, claims: Claims): boolean | Promise<boolean> };
/** Called on every request wrapped by updateUser. */
export type UserUpdater = ((user: User) => User | Promise<User>) | { update(user: User): User | Promise<User> };
/** Decides basic-auth credentials; the returned user is put on the request. */
export type BasicAuthChecker = (user: string, passwd: string) => BasicAuthResult | Promise<BasicAuthResult>;
export interface BasicAuthResult {
  ok: boolean;
  user?: User;
}
/** Replaces the default `{"error","code"}` body of a middleware failure; it owns the response. */
export type ErrorHandler = (ctx: Context, status: number, error: AuthError) => void | Promise<void>;
/** Runs before every login step; throw an AuthError to refuse the login. */
export type PreAuthHook = (ctx: Context, provider: string) => void | Promise<void>;
/** Runs once a provider has identified the user, before the token is issued; may edit the user or throw to refuse. */
export type PostAuthHook = (ctx: Context, user: User, provider: string) => void | Promise<void>;
/** Remembers refreshed claims by the old token, so requests that still carry it after its refresh are not re-issued again (concurrent ones share one refresh in any case). */
export interface RefreshCache {
  get(oldToken: string): Claims | undefined;
  set(oldToken: string, claims: Claims): void;
}

/** Options of `authKoa()`. Only `url`, a secret and at least one provider are required. */
export interface AuthKoaOptions {
  /** Signing secret (HS256). Use a long random string; `authctl secret` makes one. */
  secret?: string;
  /** Former secrets still accepted when verifying (never for signing), for rotating `secret` without logging anyone out. */
  previousSecrets?: string[];
  /** Secret per audience; wins over `secret`. */
  secretReader?: SecretReader;
  /** With secretReader: verify with the secret of the token's own `aud` instead of reader('ignore'). */
  audSecrets?: boolean;
  /** Public base URL of the application, e.g. `https://example.com`. */
  url: string;
  /** Token issuer (`iss`); tokens from another issuer are refused. Default `authkoa`. */
  issuer?: string;
  /** Lifetime of the JWT; expired cookie tokens are refreshed. Default 15 minutes. */
  tokenDuration?: Duration;
  /** Lifetime of the cookies; a refresh re-issues them. Default 31 days. */
  cookieDuration?: Duration;
  /** Absolute session limit counted from the login; refreshes stop after it. Default off. */
  maxSessionAge?: Duration;
  /** Avatar store URI (`lmdb://…`, `file://…`, `mongodb://…`) or an AvatarStore object; none keeps provider URLs. */
  avatarStore?: string | AvatarStore;
  /** Route prefix of avatar links. Default `/avatar`. */
  avatarRoutePath?: string;
  /** Longest side of stored avatars in pixels; 0 keeps the bytes. Default 0. */
  avatarResizeLimit?: number;
  /** Allow avatar fetches from private and loopback addresses (tests, intranets). Default false. */
  avatarAllowPrivate?: boolean;
  /** Fine-tuning of the avatar fetch: allowAddresses, fetchTimeout, maxBytes, maxPixels, maxRedirects, fetchRetries, workers, identiconSize. */
  avatarProxyOptions?: AvatarTuning;
  /** Route prefix of the auth routes. Default `/auth`. */
  authRoutePath?: string;
  /** Allowed `aud` values; a non-empty list turns checks on at creation and on every read. */
  audiences?: string[];
  claimsUpdater?: ClaimsUpdater;
  validator?: Validator;
  userUpdater?: UserUpdater;
  /** Enables basic auth for user `admin` with this password. */
  adminPasswd?: string;
  /** Enables basic auth decided by this checker; `adminPasswd` is then ignored. */
  basicAuthChecker?: BasicAuthChecker;
  /** Anything with info/warn/error, or a printf-like function. Silent by default. */
  logger?: LoggerInput;
  /** Login providers; at least one. */
  providers: ProviderEntry[];
  /** Hosts (optionally host:port) a login may redirect to besides the host of `url`. */
  allowedRedirects?: string[];
  /** Name of the JWT cookie. Default `JWT`. */
  jwtCookieName?: string;
  /** Name of the XSRF cookie scripts read. Default `XSRF-TOKEN`. */
  xsrfCookieName?: string;
  /** Request header carrying the XSRF value. Default `X-XSRF-TOKEN`. */
  xsrfHeaderName?: string;
  /** Request (and optional response) header carrying a JWT. Default `X-JWT`. */
  jwtHeaderName?: string;
  /** Query parameter carrying a JWT. Default `token`. */
  jwtQueryName?: string;
  /** Secure cookies; default true when `url` is https (and cannot be turned off then). */
  secureCookies?: boolean;
  /** SameSite of the session cookies. Default `lax`. */
  sameSite?: 'lax' | 'strict' | 'none';
  /** Cookie domain; default host-only. */
  cookieDomain?: string;
  /** Turn the XSRF check off (APIs that never use cookies from browsers). */
  disableXSRF?: boolean;
  /** Methods exempt from the XSRF check, e.g. ['GET'] for server-rendered pages. */
  xsrfIgnoreMethods?: string[];
  /** Do not set `iat`. */
  disableIAT?: boolean;
  /** Also send the JWT in the `X-JWT` response header at login and refresh. */
  sendJWTHeader?: boolean;
  /** Cache of refreshed tokens; true (default) for an in-memory one, false for none. */
  refreshCache?: boolean | RefreshCache;
  /** Replaces the JSON body of middleware failures. */
  errorHandler?: ErrorHandler;
  preAuthHook?: PreAuthHook;
  postAuthHook?: PostAuthHook;
  /** Clock in ms since the epoch; tests inject one. Default Date.now. */
  clock?: () => number;
}

/** The avatar proxy's limits an application may change; see docs/avatars.md. */
export type AvatarTuning = Partial<Omit<AvatarProxyOptions, 'url' | 'routePath' | 'resizeLimit' | 'allowPrivate' | 'logger' | 'store'>>;

/** Options after validation, with every default filled in. */
export interface ResolvedOptions {
  secretReader: (aud: string) => string | Promise<string>;
  staticSecret: string | undefined;
  previousSecrets: string[];
  audSecrets: boolean;
  url: string;
  origin: string;
  issuer: string;
  tokenDurationMs: number;
  cookieDurationMs: number;
  maxSessionAgeMs: number | undefined;
  avatarStore: string | AvatarStore | undefined;
  avatarRoutePath: string;
  avatarResizeLimit: number;
  avatarAllowPrivate: boolean;
  avatarProxyOptions: AvatarTuning;
  authRoutePath: string;
  audiences: string[] | undefined;
  claimsUpdater: ((claims: Claims) => Claims | Promise<Claims>) | undefined;
  validator: ((token: string, claims: Claims) => boolean | Promise<boolean>) | undefined;
  userUpdater: ((user: User) => User | Promise<User>) | undefined;
  adminPasswd: string | undefined;
  basicAuthChecker: BasicAuthChecker | undefined;
  logger: Logger;
  providers: ProviderEntry[];
  allowedRedirects: string[];
  jwtCookieName: string;
  xsrfCookieName: string;
  xsrfHeaderName: string;
  jwtHeaderName: string;
  jwtQueryName: string;
  secureCookies: boolean;
  sameSite: 'Lax' | 'Strict' | 'None';
  cookieDomain: string | undefined;
  disableXSRF: boolean;
  xsrfIgnoreMethods: Set<string>;
  disableIAT: boolean;
  sendJWTHeader: boolean;
  refreshCache: RefreshCache | undefined;
  errorHandler: ErrorHandler | undefined;
  preAuthHook: PreAuthHook | undefined;
  postAuthHook: PostAuthHook | undefined;
  clock: () => number;
}

const fail = (option: string, must: string): never => {
  throw new TypeError(`authKoa: ${option} ${must}`);
};

function optionalString(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') fail(key, 'must be a non-empty string');
  return v as string;
}

function optionalFunction<F>(o: Record<string, unknown>, key: string, method?: string): F | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'function') return v as F;
  if (method && typeof v === 'object' && typeof (v as Record<string, unknown>)[method] === 'function') {
    const obj = v as Record<string, (...a: unknown[]) => unknown>;
    return ((...args: unknown[]) => obj[method]!(...args)) as F;
  }
  return fail(key, method ? `must be a function or an object with a ${method}() method` : 'must be a function');
}

function duration(o: Record<string, unknown>, key: string, dflt: number | undefined): number | undefined {
  const v = o[key] ?? dflt;
  if (v === undefined) return undefined;
  try {
    return parseDuration(v as Duration, key);
  } catch (err) {
    return fail(key, (err as Error).message.slice(key.length + 1));
  }
}

function routePath(o: Record<string, unknown>, key: string, dflt: string): string {
  const v = o[key] ?? dflt;
  if (typeof v !== 'string' || !/^\/[A-Za-z0-9._~\-/]*$/.test(v) || v.includes('//')) {
    fail(key, `must be a path starting with '/' (got ${JSON.stringify(v)})`);
  }
  const p = (v as string).replace(/\/+$/, '');
  return p === '' ? fail(key, 'must not be the root path') : p;
}

function plainObject(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = o[key];
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(key, 'must be an object');
  return v as Record<string, unknown>;
}

function bool(o: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = o[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') fail(key, 'must be a boolean');
  return v as boolean;
}

function stringList(o: Record<string, unknown>, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(key, 'must be an array of strings');
  return v as string[];
}

/** In-memory RefreshCache: bounded, entries dropped once the refreshed token itself expires. */
export function memoryRefreshCache(clock: () => number, max = 10_000): RefreshCache {
  const entries = new Map<string, Claims>();
  return {
    get(oldToken) {
      const c = entries.get(oldToken);
      if (c && (c.exp ?? 0) * 1000 > clock()) return c;
      if (c) entries.delete(oldToken);
      return undefined;
    },
    set(oldToken, claims) {
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(oldToken, claims);
    },
  };
}

/**
 * Validates `authKoa()` options once, at start-up, and fills in the defaults of the original library
 * (token 15 min, cookie 31 days, `/avatar`, cookie and header names). Every problem throws a TypeError
 * naming the option.
 */
export function resolveOptions(input: AuthKoaOptions): ResolvedOptions {
  if (input === null || typeof input !== 'object') throw new TypeError('authKoa() requires an options object');
  const o = input as unknown as Record<string, unknown>;

  const secret = o.secret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length === 0)) fail('secret', 'must be a non-empty string');
  const reader = optionalFunction<(aud: string) => string | Promise<string>>(o, 'secretReader', 'get');
  if (secret === undefined && !reader) fail('secret', 'is required (or give secretReader)');
  const staticSecret = reader ? undefined : (secret as string);
  const previousSecrets = stringList(o, 'previousSecrets') ?? [];
  if (previousSecrets.some((s) => s === '')) fail('previousSecrets', 'must not contain empty strings');
  if (previousSecrets.length > 0 && reader) fail('previousSecrets', 'works with secret, not secretReader (a reader decides per call)');

  if (typeof o.url !== 'string' || o.url === '') fail('url', 'is required: the public base URL of the application, e.g. http://127.0.0.1:8080');
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(o.url as string);
  } catch {
    return fail('url', `must be an absolute http(s) URL (got ${JSON.stringify(o.url)})`);
  }
  if ((parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') || parsedUrl.search || parsedUrl.hash || parsedUrl.username) {
    fail('url', `must be an absolute http(s) URL without query, fragment or credentials (got ${JSON.stringify(o.url)})`);
  }
  const https = parsedUrl.protocol === 'https:';

  if (!Array.isArray(o.providers) || o.providers.length === 0) fail('providers', 'must list at least one provider');

  const audiences = stringList(o, 'audiences');
  const resizeLimit = o.avatarResizeLimit ?? 0;
  if (typeof resizeLimit !== 'number' || !Number.isInteger(resizeLimit) || resizeLimit < 0) {
    fail('avatarResizeLimit', 'must be a whole number of pixels, 0 or more');
  }
  const sameSite = o.sameSite ?? 'lax';
  if (sameSite !== 'lax' && sameSite !== 'strict' && sameSite !== 'none') fail('sameSite', "must be 'lax', 'strict' or 'none'");
  const secureOpt = o.secureCookies;
  if (secureOpt !== undefined && typeof secureOpt !== 'boolean') fail('secureCookies', 'must be a boolean');
  if (sameSite === 'none' && !(https || secureOpt)) fail('sameSite', "'none' needs secure cookies (an https url or secureCookies: true)");

  const avatarStore = o.avatarStore;
  if (avatarStore !== undefined && typeof avatarStore !== 'string' && (typeof avatarStore !== 'object' || avatarStore === null)) {
    fail('avatarStore', 'must be a store URI or an AvatarStore object');
  }
  const clock = optionalFunction<() => number>(o, 'clock') ?? Date.now;

  let refreshCache: RefreshCache | undefined;
  if (o.refreshCache === undefined || o.refreshCache === true) refreshCache = memoryRefreshCache(clock);
  else if (o.refreshCache === false) refreshCache = undefined;
  else if (typeof o.refreshCache === 'object' && o.refreshCache && typeof (o.refreshCache as RefreshCache).get === 'function' && typeof (o.refreshCache as RefreshCache).set === 'function') {
    refreshCache = o.refreshCache as RefreshCache;
  } else fail('refreshCache', 'must be a boolean or an object with get() and set()');

  const authRoutePath = routePath(o, 'authRoutePath', '/auth');
  const avatarRoutePath = routePath(o, 'avatarRoutePath', '/avatar');
  if (authRoutePath === avatarRoutePath) fail('avatarRoutePath', 'must differ from authRoutePath');

  return {
    secretReader: reader ?? (() => staticSecret as string),
    staticSecret,
    previousSecrets,
    audSecrets: bool(o, 'audSecrets', false),
    url: parsedUrl.href.replace(/\/+$/, ''),
    origin: parsedUrl.origin,
    issuer: optionalString(o, 'issuer') ?? 'authkoa',
    tokenDurationMs: duration(o, 'tokenDuration', 15 * 60_000)!,
    cookieDurationMs: duration(o, 'cookieDuration', 31 * 86_400_000)!,
    maxSessionAgeMs: duration(o, 'maxSessionAge', undefined),
    avatarStore: avatarStore as string | AvatarStore | undefined,
    avatarRoutePath,
    avatarResizeLimit: resizeLimit as number,
    avatarAllowPrivate: bool(o, 'avatarAllowPrivate', false),
    avatarProxyOptions: plainObject(o, 'avatarProxyOptions') as AvatarTuning,
    authRoutePath,
    audiences: audiences && audiences.length > 0 ? audiences.map((a) => a.toLowerCase()) : undefined,
    claimsUpdater: optionalFunction(o, 'claimsUpdater', 'update'),
    validator: optionalFunction(o, 'validator', 'validate'),
    userUpdater: optionalFunction(o, 'userUpdater', 'update'),
    adminPasswd: optionalString(o, 'adminPasswd'),
    basicAuthChecker: optionalFunction(o, 'basicAuthChecker'),
    logger: toLogger(o.logger as LoggerInput),
    providers: o.providers as ProviderEntry[],
    allowedRedirects: (stringList(o, 'allowedRedirects') ?? []).map((h) => h.toLowerCase()),
    jwtCookieName: cookieName(o, 'jwtCookieName', 'JWT'),
    xsrfCookieName: cookieName(o, 'xsrfCookieName', 'XSRF-TOKEN'),
    xsrfHeaderName: headerName(o, 'xsrfHeaderName', 'X-XSRF-TOKEN'),
    jwtHeaderName: headerName(o, 'jwtHeaderName', 'X-JWT'),
    jwtQueryName: optionalString(o, 'jwtQueryName') ?? 'token',
    // An https site must never send its session over plain http, so `url` decides unless asked for more.
    secureCookies: https || secureOpt === true,
    sameSite: sameSite === 'lax' ? 'Lax' : sameSite === 'strict' ? 'Strict' : 'None',
    cookieDomain: optionalString(o, 'cookieDomain'),
    disableXSRF: bool(o, 'disableXSRF', false),
    xsrfIgnoreMethods: new Set((stringList(o, 'xsrfIgnoreMethods') ?? []).map((m) => m.toUpperCase())),
    disableIAT: bool(o, 'disableIAT', false),
    sendJWTHeader: bool(o, 'sendJWTHeader', false),
    refreshCache,
    errorHandler: optionalFunction(o, 'errorHandler'),
    preAuthHook: optionalFunction(o, 'preAuthHook'),
    postAuthHook: optionalFunction(o, 'postAuthHook'),
    clock,
  };
}

const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/; // RFC 7230 token: valid cookie and header names

function cookieName(o: Record<string, unknown>, key: string, dflt: string): string {
  const v = optionalString(o, key) ?? dflt;
  return TOKEN_CHARS.test(v) ? v : fail(key, 'must be a valid cookie name');
}

function headerName(o: Record<string, unknown>, key: string, dflt: string): string {
  const v = optionalString(o, key) ?? dflt;
  return TOKEN_CHARS.test(v) ? v.toLowerCase() : fail(key, 'must be a valid header name');
}
