import { memoryRefreshCache } from './session/refresh-cache.js';
import { parseDuration, type Duration } from './util/duration.js';
import { toLogger, type LoggerInput } from './logger.js';
import type { AuthKoaOptions, RefreshCache, ResolvedOptions, AvatarTuning } from './options.js';
import type { AvatarStore } from './stores/index.js';
import type { ProviderEntry } from './providers/core/provider.js';
import { parseStateUri } from './state/index.js';
import { checkOptionNames, optionNames } from './util/options.js';
import { isStateStore, type StateStore } from './state/types.js';
import { throttlePolicy } from './state/throttle.js';

/** Every option of authKoa(); the compiler keeps the list equal to AuthKoaOptions. */
const OPTION_NAMES = optionNames<AuthKoaOptions>({
  secret: true,
  previousSecrets: true,
  secretReader: true,
  audSecrets: true,
  url: true,
  issuer: true,
  tokenDuration: true,
  cookieDuration: true,
  maxSessionAge: true,
  avatarStore: true,
  avatarRoutePath: true,
  avatarResizeLimit: true,
  avatarAllowPrivate: true,
  avatarProxyOptions: true,
  authRoutePath: true,
  audiences: true,
  claimsUpdater: true,
  validator: true,
  userUpdater: true,
  adminPasswd: true,
  basicAuthChecker: true,
  logger: true,
  providers: true,
  allowedRedirects: true,
  jwtCookieName: true,
  xsrfCookieName: true,
  xsrfHeaderName: true,
  jwtHeaderName: true,
  jwtQueryName: true,
  secureCookies: true,
  sameSite: true,
  cookieDomain: true,
  disableXSRF: true,
  xsrfIgnoreMethods: true,
  disableIAT: true,
  sendJWTHeader: true,
  refreshCache: true,
  errorHandler: true,
  preAuthHook: true,
  postAuthHook: true,
  stateStore: true,
  loginThrottle: true,
  keepHashedIds: true,
  strictRevocation: true,
  clock: true,
});

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

/** HS256 keys shorter than the hash output (32 bytes) can be guessed offline from any one token. */
export const MIN_SECRET_BYTES = 32;

/** The length in bytes of a secret too short to sign with, or undefined when it is long enough. */
export function shortSecretBytes(secret: string): number | undefined {
  const bytes = Buffer.byteLength(secret);
  return bytes < MIN_SECRET_BYTES ? bytes : undefined;
}

function checkSecretLength(secret: string): void {
  const bytes = shortSecretBytes(secret);
  if (bytes === undefined) return;
  fail(
    'secret',
    `is ${bytes} bytes; it must be at least ${MIN_SECRET_BYTES} bytes of random text (\`npx authctl secret\` prints one). ` +
      'To keep accepting the tokens signed with the old secret during the change, move it to previousSecrets',
  );
}

/**
 * Validates `authKoa()` options once, at start-up, and fills in the defaults of the original library
 * (token 15 min, cookie 31 days, `/avatar`, cookie and header names). Every problem throws a TypeError
 * naming the option.
 */
export function resolveOptions(input: AuthKoaOptions): ResolvedOptions {
  if (input === null || typeof input !== 'object') throw new TypeError('authKoa() requires an options object');
  const o = input as unknown as Record<string, unknown>;
  // A misspelled option would otherwise leave its default in place without a word (a check turned off).
  checkOptionNames(o, OPTION_NAMES, 'authKoa: ');

  const secret = o.secret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length === 0)) fail('secret', 'must be a non-empty string');
  const reader = optionalFunction<(aud: string) => string | Promise<string>>(o, 'secretReader', 'get');
  if (secret === undefined && !reader) fail('secret', 'is required (or give secretReader)');
  if (typeof secret === 'string' && !reader) checkSecretLength(secret);
  const staticSecret = reader ? undefined : (secret as string);
  const previousSecrets = stringList(o, 'previousSecrets') ?? [];
  if (previousSecrets.some((s) => s === '')) fail('previousSecrets', 'must not contain empty strings');
  if (previousSecrets.length > 0 && reader) fail('previousSecrets', 'works with secret, not secretReader (a reader decides per call)');

  if (typeof o.url !== 'string' || o.url === '') fail('url', 'is required: the public base URL of the application, e.g. http://127.0.0.1:8080');
  // `localhost:8080` parses as a URL of scheme "localhost:": say what is missing instead.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(o.url as string) && !(o.url as string).startsWith('/')) fail('url', `needs its scheme: ${JSON.stringify(`http://${o.url as string}`)} or https://… (got ${JSON.stringify(o.url)})`);
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
  const stateStore = o.stateStore === undefined || o.stateStore === 'memory' ? 'memory://' : o.stateStore;
  if (typeof stateStore === 'string') parseStateUri(stateStore, 'stateStore');
  else if (!isStateStore(stateStore)) fail('stateStore', "must be 'memory', a state store URI or a StateStore object");

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
    stateStore: stateStore as string | StateStore,
    loginThrottle: throttlePolicy(o.loginThrottle),
    keepHashedIds: bool(o, 'keepHashedIds', false),
    strictRevocation: bool(o, 'strictRevocation', false),
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
