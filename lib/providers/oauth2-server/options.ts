import type { Context } from 'koa';
import { randomBytes } from 'node:crypto';
import { parseDuration, type Duration } from '../../util/duration.js';
import { noopLogger, toLogger, type Logger, type LoggerInput } from '../../logger.js';
import { defaultLoginPage, type LoginPageHandler } from './page.js';
import { memoryStateStore } from '../../state/memory.js';
import { credentialThrottle, throttlePolicy, type CredentialThrottle } from '../../state/throttle.js';
import type { GrantBook } from './grants.js';
import { signerOf, type JwtSigner } from '../../session/signer.js';
import { readSigning, type KeyInput, type SigningOptions } from '../../session/signing.js';
import type { ClaimsFunction } from './claims.js';
import type { ServerChecker, ServerUser } from './server-user.js';
import { parseClients, type OAuth2ServerClient } from './clients.js';
import { checkRsaKey, type IdTokenKeys } from './id-token.js';
import type { BackChannelLogout } from './backchannel.js';

export type { OAuth2ServerClient } from './clients.js';

// Options of the local OAuth2 server and their validation, done synchronously so a provider entry
// fails start-up (auth.ready) rather than the first login.

export type { ServerChecker, ServerUser } from './server-user.js';

/** Options of startOAuth2Server() (and of a `kind: 'server'` provider entry). */
export interface OAuth2ServerOptions {
  /** Public base URL with port, e.g. `http://127.0.0.1:9096`; port 0 picks a free one. */
  url: string;
  /** Interface to listen on (default: the url's host; localhost or empty → 127.0.0.1). */
  host?: string;
  /** Checks passwords. */
  checker: ServerChecker;
  clients?: OAuth2ServerClient[];
  /** Serve the built-in login page (default true); false needs a loginPageHandler. */
  withLoginPage?: boolean;
  /** Renders the login page instead of the built-in one. */
  loginPageHandler?: LoginPageHandler;
  /** Require PKCE (S256) from every client (default true); a client's own `requirePKCE` wins. */
  requirePKCE?: boolean;
  /** Lifetime of authorization codes (default 60 s). */
  codeTTL?: Duration;
  /** Lifetime of access tokens (default 1 h). */
  tokenTTL?: Duration;
  /** How long a sign-in is remembered by the server (default 1 h). */
  sessionTTL?: Duration;
  /** Lifetime of a refresh token, renewed with each rotation (default 14 d); clients opt in with `refreshTokens`. */
  refreshTokenTTL?: Duration;
  /**
   * The standard claims of a user (OpenID): only those of the scopes asked for (`profile`, `email`, `address`,
   * `phone`) or named by a `claims` request parameter reach the id_token and userinfo. Default: the checker's
   * profile (name, picture, email) and `preferred_username` (the id).
   */
  claims?: ClaimsFunction;
  /**
   * An RSA private key (PEM, JWK or `file:<path>`) for RS256 id_tokens when `signing` is EdDSA or ES256.
   * Default: one made at each start.
   */
  rsaKey?: KeyInput;
  /** Keys signing the session cookie (default: random per start). */
  sessionKeys?: string[];
  logger?: LoggerInput;
  /**
   * Throttles failed sign-ins per user name and per IP (the `loginThrottle` defaults: 5 and 50, lock-outs
   * from 1 to 15 minutes); `false` turns it off. Default: counted in this process; a `kind: 'server'`
   * provider counts in the service's `stateStore`. Build a shared one with
   * `credentialThrottle(store, throttlePolicy({}), 'server', clock)` from `authkoa/state`.
   */
  throttle?: CredentialThrottle | false;
  /**
   * Told of each sign-in the login page refused: the request, the user name as typed (never the
   * password), why (`bad_credentials`, `too_many_attempts`, `state_store_unavailable`) and the status
   * answered (the page is shown again with 200 for a wrong password). A `kind: 'server'` entry uses it
   * for the service's `login_failed` event.
   */
  onSignInRefused?: (ctx: Context, refusal: { userName: string; reason: string; status: number }) => void;
  /** Time source in ms (tests). */
  clock?: () => number;
  /**
   * Makes the server an OpenID provider: id_tokens signed with these keys (authKoa's `signing` option
   * form: `{ alg, key, previousKeys? }`) or by this signer. A `kind: 'server'` entry gets the service's.
   */
  signing?: SigningOptions | JwtSigner;
}

export interface OAuth2Server {
  /** Base URL with the real port, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The endpoints a client is configured with. */
  endpoints(): { authURL: string; tokenURL: string; infoURL: string };
  close(): Promise<void>;
}

export interface ResolvedServerOptions {
  onSignInRefused: OAuth2ServerOptions['onSignInRefused'];
  url: URL;
  host: string;
  port: number;
  checker: ServerChecker;
  clients: Map<string, OAuth2ServerClient>;
  page: LoginPageHandler;
  requirePKCE: boolean;
  codeTTL: number;
  tokenTTL: number;
  sessionTTL: number;
  refreshTokenTTL: number;
  claims: ClaimsFunction | undefined;
  rsaKey: KeyInput | undefined;
  sessionKeys: string[];
  logger: Logger;
  throttle: CredentialThrottle | undefined;
  clock: () => number;
  /** Signs id_tokens; undefined: a plain OAuth2 server (no discovery, userinfo or id_token). */
  signer: JwtSigner | undefined;
}

/** A running local server as its route handlers see it: options, grants, and the public address once it listens. */
export interface LocalServer {
  o: ResolvedServerOptions;
  grants: GrantBook<ServerUser>;
  /** Public base URL without a trailing slash. */
  base: string;
  /** Its path: routes are answered below it. */
  basePath: string;
  /** The keys id_tokens are signed with, once ready: an OpenID provider only. */
  ids: IdTokenKeys | undefined;
  /** Who is told when a sign-in session ends (Back-Channel Logout): an OpenID provider only. */
  backchannel: BackChannelLogout | undefined;
  /** The user's standard claims (the `claims` option, or the checker's profile). */
  claims: ClaimsFunction;
}

function duration(value: unknown, option: string, fallback: number): number {
  return value === undefined ? fallback : parseDuration(value as Duration, option);
}

/** Validates options synchronously, so a provider entry fails at authKoa() with the option's name. */
export function resolveServerOptions(o: OAuth2ServerOptions): ResolvedServerOptions {
  if (!o || typeof o !== 'object') throw new TypeError('options must be an object');
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new TypeError(`url must be an absolute http(s) URL with a port (got ${JSON.stringify(o.url)})`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new TypeError(
      `url must be an absolute http(s) URL without query, fragment or credentials (got ${JSON.stringify(o.url)})`,
    );
  }
  // An explicit port keeps the server off 80/443 by accident; URL drops a default port, so check the text.
  if (!/^https?:\/\/(\[[^\]]*\]|[^/:]*):\d+(\/|$)/i.test(o.url))
    throw new TypeError(`url must include a port (got ${JSON.stringify(o.url)})`);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const host = o.host ?? (hostname === '' || hostname === 'localhost' ? '127.0.0.1' : hostname);
  if (typeof host !== 'string' || !host) throw new TypeError('host must be a non-empty string');
  if (typeof o.checker !== 'function') throw new TypeError('checker(user, passwd) is required');
  const clients = parseClients(o.clients ?? []);
  if (o.withLoginPage !== undefined && typeof o.withLoginPage !== 'boolean')
    throw new TypeError('withLoginPage must be a boolean');
  if (o.loginPageHandler !== undefined && typeof o.loginPageHandler !== 'function')
    throw new TypeError('loginPageHandler must be a function (ctx, page)');
  const page = o.loginPageHandler ?? (o.withLoginPage === false ? undefined : defaultLoginPage);
  if (!page)
    throw new TypeError('withLoginPage is false and no loginPageHandler is given: users would have no way to sign in');
  if (o.claims !== undefined && typeof o.claims !== 'function')
    throw new TypeError('claims must be a function (user, { scopes, client }) returning standard claims');
  if (o.requirePKCE !== undefined && typeof o.requirePKCE !== 'boolean')
    throw new TypeError('requirePKCE must be a boolean');
  const keys = o.sessionKeys ?? [randomBytes(32).toString('base64url')];
  if (!Array.isArray(keys) || !keys.length || !keys.every((k) => typeof k === 'string' && k.length >= 16))
    throw new TypeError('sessionKeys must be strings of 16 characters or more');
  if (o.clock !== undefined && typeof o.clock !== 'function')
    throw new TypeError('clock must be a function returning ms');
  if (o.throttle !== undefined && o.throttle !== false && typeof o.throttle?.attempt !== 'function')
    throw new TypeError('throttle must be false or have attempt(user, ip)');
  const clock = o.clock ?? Date.now;
  const signer = readSigner(o.signing);
  checkClientAlgs(clients, signer);
  return {
    url,
    host,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    checker: o.checker,
    clients,
    page,
    requirePKCE: o.requirePKCE ?? true,
    codeTTL: duration(o.codeTTL, 'codeTTL', 60_000),
    tokenTTL: duration(o.tokenTTL, 'tokenTTL', 3_600_000),
    sessionTTL: duration(o.sessionTTL, 'sessionTTL', 3_600_000),
    refreshTokenTTL: duration(o.refreshTokenTTL, 'refreshTokenTTL', 14 * 86_400_000),
    claims: o.claims,
    rsaKey: checkRsaKey(o.rsaKey),
    sessionKeys: keys,
    logger: toLogger(o.logger ?? noopLogger),
    onSignInRefused: typeof o.onSignInRefused === 'function' ? o.onSignInRefused : undefined,
    throttle:
      o.throttle === false
        ? undefined
        : (o.throttle ?? credentialThrottle(memoryStateStore({ clock }), throttlePolicy(undefined)!, 'server', clock)),
    clock,
    signer,
  };
}

/**
 * A client's OpenID fields need signing keys (without them nothing is an OpenID provider), and its
 * `idTokenSignedResponseAlg` must be RS256 or the signing key's own.
 */
function checkClientAlgs(clients: Map<string, OAuth2ServerClient>, signer: JwtSigner | undefined): void {
  [...clients.values()].forEach((c, i) => {
    for (const field of ['postLogoutRedirectURIs', 'backchannelLogoutURI'] as const)
      if (c[field] !== undefined && !signer)
        throw new TypeError(`clients[${i}].${field}: without signing keys the server is no OpenID provider`);
    const alg = c.idTokenSignedResponseAlg;
    if (alg !== undefined && !signer)
      throw new TypeError(
        `clients[${i}].idTokenSignedResponseAlg: without signing keys the server issues no id_tokens to sign`,
      );
    if (alg !== undefined && alg !== 'RS256' && alg !== signer?.alg)
      throw new TypeError(
        `clients[${i}].idTokenSignedResponseAlg: ${alg} needs ${alg} signing keys (available: RS256` +
          `${signer && signer.alg !== 'RS256' ? `, ${signer.alg}` : ''})`,
      );
  });
}

/**
 * The id_token signer: one given as such (a `kind: 'server'` entry passes the service's), or one over keys in the
 * `signing` form.
 */
function readSigner(value: unknown): JwtSigner | undefined {
  if (value === undefined) return undefined;
  const given = value as Partial<JwtSigner>;
  if (typeof given !== 'object' || given === null || typeof given.sign !== 'function')
    return signerOf(readSigning(value)!);
  if (typeof given.alg !== 'string' || !given.alg || typeof given.keySet !== 'function')
    throw new TypeError('signing: a signer needs alg, sign(claims) and keySet()');
  return given as JwtSigner;
}
