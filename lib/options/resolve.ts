import { readEventOptions } from '../events/options.js';
import { toLogger, type LoggerInput } from '../logger.js';
import type { ProviderEntry } from '../providers/core/provider.js';
import { memoryRefreshCache, type RefreshCache } from '../session/refresh-cache.js';
import type { TransportConfig } from '../session/transport.js';
import { parseStateUri } from '../state/open.js';
import { throttlePolicy } from '../state/throttle.js';
import { isStateStore, type StateStore } from '../state/types.js';
import type { AvatarStore } from '../avatar/stores/index.js';
import { parseStoreUri } from '../avatar/stores/open.js';
import { checkOptionNames } from '../util/options.js';
import { OPTION_NAMES } from './names.js';
import {
  bool,
  positiveInteger,
  cookieName,
  duration,
  fail,
  headerName,
  optionalFunction,
  optionalString,
  plainObject,
  routePath,
  stringList,
  type RawOptions,
} from './read.js';
import type { AvatarConfig, ResolvedOptions, StateConfig } from './resolved.js';
import { readSecrets } from './secret.js';
import { readFeatures } from '../features/plan.js';
import type { BuiltInOptionsContext } from '../features/built-in.js';
import { readSigning } from '../session/signing.js';
import type { AuthKoaOptions } from './types.js';

/** The built-in features' options as the feature table reads them (core/features.ts), handed in by the service. */
export interface BuiltInOptionsReader {
  /** The options that turn a built-in on. */
  options: readonly string[];
  /** Checks them (a TypeError naming one); each undefined when not set. */
  read(o: Record<string, unknown>, context: Omit<BuiltInOptionsContext, 'isSet'>): Readonly<Record<string, unknown>>;
}

/**
 * Validates `authKoa()` options once, at start-up, and fills in the defaults of the original library
 * (token 15 min, cookie 31 days, `/avatar`, cookie and header names). Every problem throws a TypeError
 * naming the option. Each group of options has its reader below; the slices the modules declare are
 * views of the one object they build together.
 */
export function resolveOptions(input: AuthKoaOptions, builtIns: BuiltInOptionsReader): ResolvedOptions {
  if (input === null || typeof input !== 'object') throw new TypeError('authKoa() requires an options object');
  const o = input as unknown as RawOptions;
  // A misspelled option would otherwise leave its default in place without a word (a check turned off).
  checkOptionNames(o, [...OPTION_NAMES, ...builtIns.options], 'authKoa: ');
  const secrets = readSecrets(o);
  const url = readUrl(o);
  if (!Array.isArray(o.providers) || o.providers.length === 0) fail('providers', 'must list at least one provider');
  const clock = optionalFunction<() => number>(o, 'clock') ?? Date.now;
  const authRoutePath = routePath(o, 'authRoutePath', '/auth');
  return {
    ...secrets,
    ...readToken(o, clock),
    ...readCookies(o, url.protocol === 'https:'),
    ...readAvatar(o, authRoutePath),
    ...readState(o),
    ...readHooks(o),
    ...readEventOptions(o),
    url: url.href.replace(/\/+$/, ''),
    origin: url.origin,
    authRoutePath,
    allowedRedirects: (stringList(o, 'allowedRedirects') ?? []).map((h) => h.toLowerCase()),
    logger: toLogger(o.logger as LoggerInput),
    providers: o.providers as ProviderEntry[],
    keepHashedIds: bool(o, 'keepHashedIds', false),
    signing: readSigning(o.signing),
    featureOptions: builtIns.read(o, {
      url: url.href,
      authRoutePath,
      staticSecret: secrets.staticSecret,
      previousSecrets: secrets.previousSecrets,
      allowVolatileStores: bool(o, 'allowVolatileStores', false),
      stateStore: o.stateStore,
    }),
    features: readFeatures(o.features),
    clock,
  };
}

/** `url`, the public base URL: absolute http(s), without query, fragment or credentials. */
function readUrl(o: RawOptions): URL {
  if (typeof o.url !== 'string' || o.url === '')
    fail('url', 'is required: the public base URL of the application, e.g. http://127.0.0.1:8080');
  // `localhost:8080` parses as a URL of scheme "localhost:": say what is missing instead.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(o.url as string) && !(o.url as string).startsWith('/'))
    fail(
      'url',
      `needs its scheme: ${JSON.stringify(`http://${o.url as string}`)} or https://… (got ${JSON.stringify(o.url)})`,
    );
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(o.url as string);
  } catch {
    return fail('url', `must be an absolute http(s) URL (got ${JSON.stringify(o.url)})`);
  }
  if (
    (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') ||
    parsedUrl.search ||
    parsedUrl.hash ||
    parsedUrl.username
  ) {
    fail(
      'url',
      `must be an absolute http(s) URL without query, fragment or credentials (got ${JSON.stringify(o.url)})`,
    );
  }
  return parsedUrl;
}

/** The token and the session it carries: issuer, lifetimes, audiences, refresh and revocation. */
function readToken(o: RawOptions, clock: () => number) {
  const audiences = stringList(o, 'audiences');
  let refreshCache: RefreshCache | undefined;
  if (o.refreshCache === undefined || o.refreshCache === true) refreshCache = memoryRefreshCache(clock);
  else if (o.refreshCache === false) refreshCache = undefined;
  else if (
    typeof o.refreshCache === 'object' &&
    o.refreshCache &&
    typeof (o.refreshCache as RefreshCache).get === 'function' &&
    typeof (o.refreshCache as RefreshCache).set === 'function'
  ) {
    refreshCache = o.refreshCache as RefreshCache;
  } else fail('refreshCache', 'must be a boolean or an object with get() and set()');
  return {
    issuer: optionalString(o, 'issuer') ?? 'authkoa',
    tokenDurationMs: duration(o, 'tokenDuration', 15 * 60_000)!,
    cookieDurationMs: duration(o, 'cookieDuration', 31 * 86_400_000)!,
    maxSessionAgeMs: duration(o, 'maxSessionAge', undefined),
    audiences: audiences && audiences.length > 0 ? audiences.map((a) => a.toLowerCase()) : undefined,
    disableIAT: bool(o, 'disableIAT', false),
    refreshCache,
    strictRevocation: bool(o, 'strictRevocation', false),
    maxSessionsPerUser: positiveInteger(o, 'maxSessionsPerUser', 50),
    endOtherSessionsOnFactorChange: bool(o, 'endOtherSessionsOnFactorChange', true),
  };
}

/** Where a token travels with a request, and the cookies it is written to. */
function readCookies(o: RawOptions, https: boolean): TransportConfig {
  const sameSite = o.sameSite ?? 'lax';
  if (sameSite !== 'lax' && sameSite !== 'strict' && sameSite !== 'none')
    fail('sameSite', "must be 'lax', 'strict' or 'none'");
  const secureOpt = o.secureCookies;
  if (secureOpt !== undefined && typeof secureOpt !== 'boolean') fail('secureCookies', 'must be a boolean');
  if (sameSite === 'none' && !(https || secureOpt))
    fail('sameSite', "'none' needs secure cookies (an https url or secureCookies: true)");
  return {
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
    sendJWTHeader: bool(o, 'sendJWTHeader', false),
  };
}

function readAvatar(o: RawOptions, authRoutePath: string): AvatarConfig {
  const resizeLimit = o.avatarResizeLimit ?? 0;
  if (typeof resizeLimit !== 'number' || !Number.isInteger(resizeLimit) || resizeLimit < 0) {
    fail('avatarResizeLimit', 'must be a whole number of pixels, 0 or more');
  }
  const avatarStore = o.avatarStore;
  if (
    avatarStore !== undefined &&
    typeof avatarStore !== 'string' &&
    (typeof avatarStore !== 'object' || avatarStore === null)
  ) {
    fail('avatarStore', 'must be a store URI or an AvatarStore object');
  }
  const avatarRoutePath = routePath(o, 'avatarRoutePath', '/avatar');
  if (authRoutePath === avatarRoutePath) fail('avatarRoutePath', 'must differ from authRoutePath');
  return {
    avatarStore:
      typeof avatarStore === 'string'
        ? parseStoreUri(avatarStore, 'avatarStore')
        : (avatarStore as AvatarStore | undefined),
    avatarRoutePath,
    avatarResizeLimit: resizeLimit as number,
    avatarAllowPrivate: bool(o, 'avatarAllowPrivate', false),
    avatarProxyOptions: plainObject(o, 'avatarProxyOptions'),
  };
}

function readState(o: RawOptions): StateConfig {
  const stateStore = o.stateStore === undefined || o.stateStore === 'memory' ? 'memory://' : o.stateStore;
  const target = typeof stateStore === 'string' ? parseStateUri(stateStore, 'stateStore') : undefined;
  if (!target && !isStateStore(stateStore))
    fail('stateStore', "must be 'memory', a state store URI or a StateStore object");
  return {
    stateStore: target ?? (stateStore as StateStore),
    loginThrottle: throttlePolicy(o.loginThrottle),
    storeCheckTimeoutMs: duration(o, 'storeCheckTimeout', 3000)!,
    startWithStoresDown: bool(o, 'startWithStoresDown', false),
    allowVolatileStores: bool(o, 'allowVolatileStores', false),
  };
}

/** The application's code the service calls, and the credentials of basic auth. */
function readHooks(o: RawOptions) {
  return {
    claimsUpdater: optionalFunction<ResolvedOptions['claimsUpdater']>(o, 'claimsUpdater', 'update'),
    validator: optionalFunction<ResolvedOptions['validator']>(o, 'validator', 'validate'),
    userUpdater: optionalFunction<ResolvedOptions['userUpdater']>(o, 'userUpdater', 'update'),
    errorHandler: optionalFunction<ResolvedOptions['errorHandler']>(o, 'errorHandler'),
    preAuthHook: optionalFunction<ResolvedOptions['preAuthHook']>(o, 'preAuthHook'),
    postAuthHook: optionalFunction<ResolvedOptions['postAuthHook']>(o, 'postAuthHook'),
    adminPasswd: optionalString(o, 'adminPasswd'),
    basicAuthChecker: optionalFunction<ResolvedOptions['basicAuthChecker']>(o, 'basicAuthChecker'),
  };
}
