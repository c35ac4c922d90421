import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../errors.js';
import type { VerifyKey } from '../session/jws.js';
import { checkAccessToken, type AccessTokenRules, type ProtectedResourceAuth } from './access-token.js';
import { receiverView, startSignals, type ReceiverHandle, type Signals } from './events.js';
import { IssuerKeys } from './issuer-keys.js';
import { keySource } from './key-set.js';
import {
  checkResourceOptions,
  SCOPE_TOKEN,
  type ProtectedResourceOptions,
  type ResourceConfig,
} from './resource-options.js';

export type { ProtectedResourceAuth } from './access-token.js';
export type { ProtectedResourceEventsOptions, ProtectedResourceOptions } from './resource-options.js';

/**
 * `protectedResource()`: an API of the app's authorization server (an OAuth 2.1 resource server, docs/verify.md#
 * protecting-an-api-with-access-tokens). It publishes its RFC 9728 metadata, takes only access tokens issued for it
 * (access-token.ts) and answers every refusal with the `WWW-Authenticate` challenge that tells a client (an MCP agent)
 * where to get one, or which scope to step up to.
 */

/** The middleware, with `.scope()` for a route and `verify` for other frameworks. */
export interface ProtectedResource extends Middleware, ReceiverHandle {
  /**
   * A middleware for a route, after this one, requiring every scope named: 403 `insufficient_scope` otherwise, with
   * the scopes in the challenge. On a route without this middleware before it, it checks the token itself.
   */
  scope(...scopes: string[]): Middleware;
  /** The auth of a valid access token for this resource; rejects with an AuthError. */
  verify(token: string): Promise<ProtectedResourceAuth>;
  /** The RFC 9728 metadata document this middleware serves, and its absolute URL (the challenges name it). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly metadataUrl: string;
}

/**
 * Builds the middleware (one per resource: it holds the cached metadata and keys of its authorization servers); a bad
 * or unknown option throws a TypeError naming it.
 */
export function protectedResource(opts: ProtectedResourceOptions): ProtectedResource {
  const c = checkResourceOptions(opts);
  const keysOf = issuerKeySources(c);
  const signals =
    c.events && startSignals(c.events, { issuers: c.eventIssuers, clock: c.clock, keys: anyKey(keysOf) }, c.logger);
  const rules: AccessTokenRules = {
    keysOf,
    audiences: c.audiences,
    clock: c.clock,
    revoked: signals?.receiver.revoked,
  };
  const metadata = Object.freeze(metadataOf(c));
  const document = JSON.stringify(metadata);
  const challenge = challenges(c);
  /** The auths this middleware made: `.scope()` trusts only those on ctx.state. */
  const issued = new WeakSet<ProtectedResourceAuth>();

  /** The request's auth, or undefined once the refusal is answered. */
  async function authenticate(ctx: Context): Promise<ProtectedResourceAuth | undefined> {
    // Only the header (RFC 6750 §2.1): a token in a URL or a cookie is not taken.
    const token = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
    try {
      const auth = await checkAccessToken(token, rules);
      issued.add(auth);
      return auth;
    } catch (err) {
      // Anything else is a fault of this service, not of the request: Koa answers it with a 500.
      if (!(err instanceof AuthError)) throw err;
      const header = err.status !== 401 ? undefined : err.code === 'no_token' ? challenge.none : challenge.invalid;
      refuse(ctx, err, header);
      return undefined;
    }
  }

  const middleware = async function protect(ctx: Context, next: Next) {
    if (ctx.path === c.metadataPath) return serveMetadata(ctx, document);
    if (signals?.push !== undefined && ctx.path === signals.push && ctx.method === 'POST')
      return signals.receiver.push(ctx);
    const auth = await authenticate(ctx);
    if (!auth) return;
    ctx.state.auth = auth;
    await next();
  } as ProtectedResource;

  middleware.scope = (...needed: string[]): Middleware => {
    const wanted = checkScopes(needed, c.scopes);
    const header = challenge.scope(wanted);
    return async function requireScope(ctx: Context, next: Next) {
      let auth = ctx.state.auth as ProtectedResourceAuth | undefined;
      if (!auth || !issued.has(auth)) {
        auth = await authenticate(ctx);
        if (!auth) return;
        ctx.state.auth = auth;
      }
      const granted = auth.scopes;
      if (!needed.every((s) => granted.includes(s)))
        return refuse(ctx, new AuthError('insufficient_scope', `the token lacks the scope ${wanted}`), header);
      await next();
    };
  };
  middleware.verify = (token) => checkAccessToken(token, rules);
  Object.defineProperty(middleware, 'metadata', { value: metadata });
  Object.defineProperty(middleware, 'metadataUrl', { value: c.metadataUrl });
  addEvents(middleware, signals);
  return middleware;
}

/** Each issuer's key source: the `jwks` option for all, or each server's own, found through its metadata. */
function issuerKeySources(c: ResourceConfig): Map<string, (kid: string) => Promise<VerifyKey | undefined>> {
  const settings = { maxAgeMs: c.maxAgeMs, cooldownMs: c.cooldownMs, timeoutMs: c.timeoutMs, clock: c.clock };
  const held = c.jwks === undefined ? undefined : keySource(c.jwks, settings);
  return new Map(
    c.issuers.map((issuer) => {
      if (held) return [issuer, held];
      const keys = new IssuerKeys({ ...settings, issuer });
      return [issuer, (kid: string) => keys.key(kid)];
    }),
  );
}

/**
 * The key a SET names, from the first server whose set has it: the SETs come from the app whose events these are, one
 * of the servers (a kid is its key's thumbprint, so no server can pass its key off as another's).
 */
function anyKey(keysOf: Map<string, (kid: string) => Promise<VerifyKey | undefined>>) {
  const sources = [...new Set(keysOf.values())];
  return async (kid: string): Promise<VerifyKey | undefined> => {
    for (const keys of sources) {
      const key = await keys(kid).catch(() => undefined);
      if (key) return key;
    }
    return undefined;
  };
}

/** RFC 9728 §2: what a client learns of this resource. */
function metadataOf(c: ResourceConfig): Record<string, unknown> {
  return {
    resource: c.resource,
    authorization_servers: c.issuers,
    ...(c.scopes && { scopes_supported: c.scopes }),
    bearer_methods_supported: ['header'],
    ...(c.resourceName !== undefined && { resource_name: c.resourceName }),
  };
}

/**
 * The `WWW-Authenticate` challenges (RFC 6750 §3, RFC 9728 §5.1): no error for a request without a token, and each
 * naming the metadata's URL (a URL's href, and scope tokens, hold no `"` or `\`, so they are quoted as they are).
 */
function challenges(c: ResourceConfig) {
  const metadata = `resource_metadata="${c.metadataUrl}"`;
  return {
    none: `Bearer ${metadata}`,
    invalid: `Bearer error="invalid_token", ${metadata}`,
    scope: (scope: string) => `Bearer error="insufficient_scope", scope="${scope}", ${metadata}`,
  };
}

/** `.scope()`'s arguments: scope names, those of the `scopes` option when it is given; their list for the header. */
function checkScopes(needed: unknown[], supported: string[] | undefined): string {
  if (needed.length === 0 || !needed.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s)))
    throw new TypeError('protectedResource.scope() requires scope names (printable ASCII, no space, " or \\)');
  const unknown = supported && (needed as string[]).filter((s) => !supported.includes(s));
  if (unknown && unknown.length > 0)
    throw new TypeError(`protectedResource.scope(): ${unknown.join(', ')} not in the scopes option`);
  return needed.join(' ');
}

/** GET (and HEAD) of the metadata document, open to every origin; a preflight is answered, other methods are 405. */
function serveMetadata(ctx: Context, document: string): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    ctx.status = 204;
    return;
  }
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    return refuse(ctx, new AuthError('method_not_allowed', 'the metadata is read with GET'), undefined);
  }
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = document;
}

/** The JSON error every authkoa middleware answers, with its challenge. */
function refuse(ctx: Context, err: AuthError, challenge: string | undefined): void {
  ctx.status = err.status;
  if (challenge) ctx.set('WWW-Authenticate', challenge);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({ error: err.message, code: err.code });
}

/** on, off, events and close, as a verifier has them. */
function addEvents(middleware: ProtectedResource, signals: Signals | undefined): void {
  const none = () => {
    throw new TypeError('protectedResource.on(): this protected resource has no events option');
  };
  middleware.on = signals ? (type, listener) => signals.on(type, listener) : none;
  middleware.off = signals ? (type, listener) => signals.off(type, listener) : () => {};
  middleware.close = async () => signals?.close();
  Object.defineProperty(middleware, 'events', { value: signals && receiverView(signals) });
}
