import type { Context, Middleware, Next } from 'koa';
import { AuthError, toAuthError, type ErrorCode } from './errors.js';
import { reportError, writeError } from './http/respond.js';
import type { ResolvedOptions } from './options.js';
import { basicAuthenticator } from './session/basic-auth.js';
import type { ProviderRegistry } from './providers/core/resolve.js';
import { copyClaims, userOf as userOfClaims, type Claims, type RequestToken } from './session/claims.js';
import type { TokenService } from './session/token-service.js';
import type { CredentialThrottle } from './state/throttle.js';
import { issuedAtS, type Revocations } from './session/revocation.js';
import { isAdmin, type User } from './user.js';
import { isPromise } from './util/is-promise.js';

/** The route middleware hanging off `authKoa()` as `auth.middleware`. */
export interface AuthMiddleware {
  /** Requires a user (JWT or basic auth); runs the Validator; refreshes expired cookie tokens. */
  auth: Middleware;
  /** Requires a user whose `attrs.admin` is true: 401 without a user, 403 otherwise. */
  admin: Middleware;
  /** Never fails: puts the user on the request when there is one. */
  trace: Middleware;
  /** Requires a user whose role is one of `roles` (case-insensitive): 401 without a user, 403 otherwise. */
  rbac(...roles: string[]): Middleware;
  /** Replaces the request's user with `userUpdater(user)`; place after auth/trace. */
  updateUser: Middleware;
}

/** The user authkoa put on this request, or undefined. */
export function getUserInfo(ctx: Context): User | undefined {
  const u = (ctx.state as { user?: unknown } | undefined)?.user;
  return u && typeof u === 'object' && typeof (u as User).id === 'string' ? (u as User) : undefined;
}

/** The user of this request; throws AuthError 401 when there is none. */
export function mustGetUserInfo(ctx: Context): User {
  const u = getUserInfo(ctx);
  if (!u) throw new AuthError(401, 'no_user', "user can't be parsed");
  return u;
}

/** The route middleware of one service, and the user check behind it for the service's own routes. */
export interface ServiceMiddleware {
  middleware: AuthMiddleware;
  /** The request's user by the rules of `auth` (refresh, validator, revocation, basic auth), or a thrown AuthError. */
  authenticate(ctx: Context): Promise<User>;
}

/**
 * Builds the route middleware of one service. `waitForStart()` is undefined once the service has started;
 * before, it is a promise requests wait for, rejected with a 503 AuthError when start-up failed.
 */
export function createMiddleware(
  o: ResolvedOptions,
  tokens: TokenService,
  providers: ProviderRegistry,
  waitForStart: () => Promise<void> | undefined = () => undefined,
  basicThrottle?: CredentialThrottle,
  sessions?: Revocations,
): ServiceMiddleware {
  const basicAuth = o.basicAuthChecker || o.adminPasswd !== undefined ? basicAuthenticator(o, basicThrottle) : undefined;

  function fromCookie(ctx: Context): boolean {
    return !ctx.query[o.jwtQueryName] && !ctx.get(o.jwtHeaderName);
  }

  // Refreshes under way, by the expired token's text: concurrent requests carrying one expired token
  // share one re-issue, however long the ClaimsUpdater takes (the refresh cache only helps afterwards).
  const refreshing = new Map<string, Promise<Claims>>();

  /** The refreshed claims for an expired cookie token: cached, in flight, or re-issued on this request. */
  function refresh(ctx: Context, rt: RequestToken): Promise<Claims> {
    const cached = o.refreshCache?.get(rt.token);
    if (cached) return Promise.resolve(cached);
    let pending = refreshing.get(rt.token);
    if (!pending) {
      pending = reissue(ctx, rt).finally(() => refreshing.delete(rt.token));
      refreshing.set(rt.token, pending);
    }
    return pending;
  }

  /** Mints the refreshed token and sets its cookies on this request's response (the other waiters set none). */
  async function reissue(ctx: Context, rt: RequestToken): Promise<Claims> {
    const claims = copyClaims(rt.claims);
    // The server-side idle timeout: a cookie lives cookieDuration past its token's issue, so a token
    // older than that can only be a copy replayed from elsewhere, whatever Max-Age the client kept.
    if (issuedAtS(claims, o.tokenDurationMs) * 1000 + o.cookieDurationMs < tokens.now() * 1000) {
      throw new AuthError(401, 'session_expired', 'session was idle for longer than cookieDuration');
    }
    await sessions?.check(claims);
    if (o.maxSessionAgeMs !== undefined) {
      const start = claims.auth_time ?? claims.iat ?? 0;
      if ((tokens.now() - start) * 1000 > o.maxSessionAgeMs) throw new AuthError(401, 'session_expired', 'session is older than maxSessionAge');
    }
    // Same claims, same jti (so the XSRF value scripts hold stays valid), fresh exp and cookies.
    const refreshed = await tokens.set(ctx, { ...claims, exp: undefined, user: claims.user });
    o.refreshCache?.set(rt.token, refreshed);
    return refreshed;
  }

  // The checks the options add to every request: both make it asynchronous (see checkedUser).
  const validator = o.validator;
  const strictRevocations = o.strictRevocation ? sessions : undefined;

  /**
   * The shared core of every middleware: the request's user (basic auth, else the token), or a thrown
   * AuthError. Synchronous when it can be (no basic auth header, a token already verified, no validator,
   * no refresh): this runs on every protected request, and an await on a value that is already there still
   * costs a microtask turn. Before start-up has finished it waits for it (a token names its provider); 503
   * when start-up failed.
   */
  function authenticate(ctx: Context): User | Promise<User> {
    const waiting = waitForStart();
    return waiting ? waiting.then(() => authenticateNow(ctx)) : authenticateNow(ctx);
  }

  function authenticateNow(ctx: Context): User | Promise<User> {
    if (basicAuth) {
      const header = ctx.req.headers.authorization;
      if (header && /^basic /i.test(header)) {
        const user = basicAuth(ctx, header);
        return isPromise(user) ? user.then((u) => u ?? tokenUser(ctx)) : (user ?? tokenUser(ctx));
      }
    }
    return tokenUser(ctx);
  }

  function tokenUser(ctx: Context): User | Promise<User> {
    let rt: ReturnType<TokenService['peek']>;
    try {
      rt = tokens.peek(ctx);
    } catch (err) {
      throw dropUnusableCookie(ctx, err);
    }
    if (!isPromise(rt)) return userOf(ctx, rt);
    return rt.then(
      (found) => userOf(ctx, found),
      (err) => {
        throw dropUnusableCookie(ctx, err);
      },
    );
  }

  /** A cookie that can never verify is dropped; a missing XSRF header is not a reason to log anyone out. */
  function dropUnusableCookie(ctx: Context, err: unknown): AuthError {
    const e = toAuthError(err);
    if (e.code !== 'xsrf_mismatch' && e.status === 401 && fromCookie(ctx)) tokens.reset(ctx);
    return e;
  }

  /**
   * The user of a verified token, or a thrown AuthError. `rt.claims` may be the token service's shared
   * copy (`peek`): only read here, what goes on is copied.
   */
  function userOf(ctx: Context, rt: RequestToken | undefined): User | Promise<User> {
    if (!rt) throw new AuthError(401, 'no_token', 'token is not presented');
    const { claims } = rt;
    if (claims.handshake) throw new AuthError(401, 'token_invalid', 'invalid kind of token');
    if (!claims.user) throw new AuthError(401, 'no_user', 'no user info presented in the claim');
    if (strictRevocations || validator) return checkedUser(ctx, rt);
    return allowedUser(ctx, rt);
  }

  /**
   * strictRevocation's check on every request (a refusal clears the cookies, an outage does not), then the
   * validator on its own copy of the claims: the user it may have edited there is the one that goes on.
   */
  async function checkedUser(ctx: Context, rt: RequestToken): Promise<User> {
    if (strictRevocations) {
      try {
        await strictRevocations.check(rt.claims);
      } catch (err) {
        const e = toAuthError(err);
        throw e.status >= 500 ? e : rejectAndClear(ctx, rt, e.code, e.message);
      }
    }
    if (!validator) return allowedUser(ctx, rt);
    const own = { ...rt, claims: copyClaims(rt.claims) };
    const user = own.claims.user!;
    if (!(await validator(own.token, own.claims))) throw rejectAndClear(ctx, own, 'user_blocked', `user ${user.id} blocked`);
    return allowedUser(ctx, own, own.claims.user ?? user);
  }

  /** The request's user, refreshed when its cookie expired; `own` is a user already copied for this request. */
  function allowedUser(ctx: Context, rt: RequestToken, own?: User): User | Promise<User> {
    const { claims } = rt;
    if (!providerAllowed(claims)) throw rejectAndClear(ctx, rt, 'provider_not_allowed', 'provider is not allowed');
    if (rt.source === 'cookie' && tokens.isExpired(claims)) return refreshedUser(ctx, rt);
    return own ?? userOfClaims(claims)!;
  }

  async function refreshedUser(ctx: Context, rt: RequestToken): Promise<User> {
    let refreshed: Claims;
    try {
      refreshed = await refresh(ctx, rt);
    } catch (err) {
      const e = toAuthError(err);
      // The state store being away says nothing about the session: answer 503 and keep the cookies.
      if (e.status >= 500) throw e;
      const code = e.code === 'session_expired' || e.code === 'session_revoked' ? e.code : 'refresh_failed';
      throw rejectAndClear(ctx, rt, code, `can't refresh token: ${e.message}`);
    }
    return { ...refreshed.user!, aud: refreshed.aud ?? '' };
  }

  /** A 401 for a token that verified but may not be used; its cookies go, so the browser stops sending it. */
  function rejectAndClear(ctx: Context, rt: RequestToken, code: ErrorCode, message: string): AuthError {
    if (rt.source === 'cookie') tokens.reset(ctx);
    return new AuthError(401, code, message);
  }

  /**
   * The token's provider must be configured, by its exact name. Every login writes that name in
   * `auth_provider`, and then nothing else counts: the user id is no evidence, since a passkey login keeps
   * the account's `local_…` id and a removed `a_b` provider's ids start with a configured `a`. Only a
   * token without the claim (minted by the application, or by an old version of the original) falls back
   * on its id, `<name>_…`: names may contain `_` themselves, so the id is cut at each `_` in turn.
   */
  function providerAllowed(claims: Claims): boolean {
    const named = claims.auth_provider;
    if (named !== undefined && named !== null) return typeof named.name === 'string' && providers.has(named.name);
    const id = claims.user?.id ?? '';
    for (let us = id.lastIndexOf('_'); us > 0; us = id.lastIndexOf('_', us - 1)) {
      if (providers.has(id.slice(0, us))) return true;
    }
    return false;
  }

  async function fail(ctx: Context, err: unknown): Promise<void> {
    const e = reportError(ctx, err, o.logger);
    if (o.errorHandler) return o.errorHandler(ctx, e.status, e);
    writeError(ctx, e);
  }

  function guard(check?: (user: User) => AuthError | undefined): Middleware {
    function admit(ctx: Context, next: Next, user: User): Promise<void> {
      const denied = check?.(user);
      if (denied) return fail(ctx, denied);
      ctx.state.user = user;
      return next();
    }
    return (ctx: Context, next: Next) => {
      let found: User | Promise<User>;
      try {
        found = authenticate(ctx);
      } catch (err) {
        return fail(ctx, err);
      }
      // Errors of `next` are the app's: they pass through, only authentication failures become 401/403.
      return isPromise(found) ? found.then((user) => admit(ctx, next, user), (err) => fail(ctx, err)) : admit(ctx, next, found);
    };
  }

  const middleware: AuthMiddleware = {
    auth: guard(),
    admin: guard((u) => (isAdmin(u) ? undefined : new AuthError(403, 'not_admin', `user ${u.name} is not admin`))),
    rbac(...roles: string[]) {
      if (roles.some((r) => typeof r !== 'string')) throw new TypeError('rbac() requires role names as strings');
      const allowed = new Set(roles.map((r) => r.toLowerCase()));
      return guard((u) => {
        if (u.role && allowed.has(u.role.toLowerCase())) return undefined;
        // A user without a role is told so: "role  not in allowed roles" read like a blank in the message.
        return new AuthError(403, 'role_denied', u.role ? `user ${u.name} role ${u.role} not in allowed roles` : `user ${u.name} has no role`);
      });
    },
    async trace(ctx: Context, next: Next) {
      try {
        const found = authenticate(ctx);
        ctx.state.user = isPromise(found) ? await found : found;
      } catch (err) {
        // Trace never refuses: the request goes on anonymously. A failure of the server's own (a dead
        // store, a throwing validator) is still reported, as every unexpected error is.
        reportError(ctx, err, o.logger);
      }
      return next();
    },
    async updateUser(ctx: Context, next: Next) {
      const user = getUserInfo(ctx);
      if (user && o.userUpdater) ctx.state.user = await o.userUpdater(user);
      return next();
    },
  };
  return { middleware, authenticate: async (ctx) => authenticate(ctx) };
}
