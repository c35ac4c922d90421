import type { ClaimsFunction } from '../providers/oauth2-server/claims.js';
import type { User } from '../user.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { unknownOption } from '../util/options.js';
import { isVolatileStateOption, requireDurable } from '../util/store-policy.js';
import { CLIENT_OPTION_KEYS, readClientOptions } from './clients/options.js';
import type { AuthorizationServerClientOptions, ClientConfig } from './clients/types.js';

/** One API the server issues access tokens for (RFC 8707): its scopes and a name the consent page shows. */
export interface ResourceOptions {
  /** The scopes a token for this resource may carry (`['notes:read', 'notes:write']`). */
  scopes: string[];
  /** What the consent page calls it (default: the URI). */
  name?: string;
}

/**
 * The `authorizationServer` option: the app as an OAuth 2.1 authorization server for its APIs and for other apps
 * and AI agents (docs/authorization-server.md). Its issuer is the `url` option; it needs `signing` (access tokens
 * and id_tokens are signed with the service's keys) and a durable `stateStore` (codes, refresh tokens and consents
 * live there, so processes share them and a restart loses none).
 */
export interface AuthorizationServerOptions extends AuthorizationServerClientOptions {
  /** The APIs it issues access tokens for, by resource URI (`https://api.example/mcp`). */
  resources?: Record<string, ResourceOptions>;
  /**
   * Where a browser without a full login is sent to log in, with `from=<the authorization request>` (default:
   * the built-in page listing the configured providers, `<authRoutePath>/oauth2/login`).
   */
  loginPage?: string;
  /** How long an authorization code lives. Default `1m`. */
  codeTTL?: Duration;
  /** How long an access token lives. Default `10m`. */
  accessTokenTTL?: Duration;
  /** How long a refresh token lives unused (each use issues a new one). Default `30d`. */
  refreshTokenTTL?: Duration;
  /**
   * The standard claims (OpenID Connect Core §5.1) of a user who authorizes an OpenID client, from their session's
   * user: only those the request's scopes and `claims` parameter ask for are kept with the grant, for its id_tokens
   * and userinfo. Default: `name`, `preferred_username` (the id), `picture` and `email` of the session's user; give
   * it to add `email_verified: true` where the app knows the address is the user's, or any other standard claim.
   */
  claims?: ClaimsFunction<User>;
}

/** The option, checked: durations in ms, resources as a map. */
export interface AuthorizationServerConfig {
  readonly resources: ReadonlyMap<string, { scopes: readonly string[]; name: string }>;
  /** The clients' options, checked (clients/options.ts). */
  readonly clientConfig: ClientConfig;
  readonly loginPage: string | undefined;
  readonly codeTTLMs: number;
  readonly accessTokenTTLMs: number;
  readonly refreshTokenTTLMs: number;
  readonly claims: ClaimsFunction<User> | undefined;
}

/** What the reader needs from the options read before it. */
export interface AuthorizationServerOptionsContext {
  stateStore: unknown;
  allowVolatileStores: boolean;
  /** Whether `signing` is set. */
  signing: boolean;
}

const KEYS = [
  'resources',
  'loginPage',
  'codeTTL',
  'accessTokenTTL',
  'refreshTokenTTL',
  'claims',
  ...CLIENT_OPTION_KEYS,
];
const AT = 'authKoa: authorizationServer';
/** RFC 6749 §A.4: a scope token is printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function readAuthorizationServerOptions(
  input: unknown,
  ctx: AuthorizationServerOptionsContext,
): AuthorizationServerConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(`${AT} must be an object`);
  const o = input as AuthorizationServerOptions & Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KEYS.includes(key)) throw new TypeError(`${AT}: ${unknownOption(key, KEYS)}`);
  if (!ctx.signing)
    throw new TypeError(`${AT} needs the signing option: access tokens are signed with the service's signing key`);
  requireDurable(
    { volatile: isVolatileStateOption(ctx.stateStore) },
    `${AT}: stateStore (where the authorization codes, refresh tokens and consents are kept)`,
    'every grant',
    ctx.allowVolatileStores,
  );
  if (o.loginPage !== undefined && (typeof o.loginPage !== 'string' || !/^(\/|https?:\/\/)/.test(o.loginPage)))
    throw new TypeError(`${AT}.loginPage must be a path (/login) or an http(s) URL`);
  if (o.claims !== undefined && typeof o.claims !== 'function')
    throw new TypeError(`${AT}.claims must be a function (user, { scopes, client }) returning standard claims`);
  return {
    resources: readResources(o.resources),
    clientConfig: readClientOptions(o),
    loginPage: o.loginPage,
    codeTTLMs: duration(o.codeTTL, '1m', 'codeTTL'),
    accessTokenTTLMs: duration(o.accessTokenTTL, '10m', 'accessTokenTTL'),
    refreshTokenTTLMs: duration(o.refreshTokenTTL, '30d', 'refreshTokenTTL'),
    claims: o.claims,
  };
}

function duration(value: Duration | undefined, fallback: Duration, name: string): number {
  const ms = parseDuration(value ?? fallback, `${AT}.${name}`);
  if (!(ms > 0)) throw new TypeError(`${AT}.${name} must be a positive duration`);
  return ms;
}

function readResources(input: unknown): AuthorizationServerConfig['resources'] {
  const map = new Map<string, { scopes: readonly string[]; name: string }>();
  if (input === undefined) return map;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(`${AT}.resources must be an object of { scopes } by resource URI`);
  for (const [uri, r] of Object.entries(input as Record<string, unknown>)) {
    const at = `${AT}.resources['${uri}']`;
    checkResourceURI(uri, at);
    if (typeof r !== 'object' || r === null) throw new TypeError(`${at} must be { scopes: [...] }`);
    const { scopes, name, ...rest } = r as Partial<ResourceOptions>;
    const extra = Object.keys(rest)[0];
    if (extra) throw new TypeError(`${at}: ${unknownOption(extra, ['scopes', 'name'])}`);
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s)))
      throw new TypeError(`${at}.scopes must be an array of scope names (no spaces)`);
    if (name !== undefined && (typeof name !== 'string' || !name.trim()))
      throw new TypeError(`${at}.name must be a non-empty string`);
    map.set(uri, { scopes: [...scopes], name: name ?? uri });
  }
  return map;
}

/** RFC 8707 §2: an absolute URI without a fragment. */
function checkResourceURI(uri: string, at: string): void {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new TypeError(`${at}: a resource must be an absolute URI`);
  }
  if (parsed.hash || uri.includes('#')) throw new TypeError(`${at}: a resource URI has no fragment`);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new TypeError(`${at}: a resource URI is http(s)`);
}
