import type { Context, Middleware, Next } from 'koa';
import { AuthError } from './errors.js';
import { reportError, writeError } from './http/respond.js';
import type { Logger } from './logger.js';
import type { Authenticator } from './session/authenticator.js';
import { isAdmin, SESSION_AUTH, type User } from './user.js';
import { isPromise } from './util/is-promise.js';
import { parseDuration, type Duration } from './util/duration.js';
import { requireFresh } from './session/fresh.js';

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
  /**
   * Step-up: requires a user, as `auth` does, whose login (`auth_time`) is at most `maxAge` old
   * ('5m' or ms); an older one is answered 401 `reauth_required`. Any login, and a second-factor
   * verify, makes it fresh again. Only a full login's token can be fresh: basic auth (one factor on
   * every request) and a token the app minted are answered 403 `full_login_required`, a personal access token
   * 401 `reauth_required` (it is no login: log in).
   */
  fresh(maxAge: Duration): Middleware;
  /**
   * Requires a user, as `auth` does; a personal access token must also hold every scope named, else 403
   * `insufficient_scope`. A session and basic auth pass: they may do whatever their user may.
   */
  scope(...scopes: string[]): Middleware;
}

/** Replaces the default `{"error","code"}` body of a middleware failure; it owns the response. */
export type ErrorHandler = (ctx: Context, status: number, error: AuthError) => void | Promise<void>;

/** The options the route middleware reads itself (who the user is, the Authenticator decides). */
export interface MiddlewareConfig {
  logger: Logger;
  clock: () => number;
  errorHandler: ErrorHandler | undefined;
  userUpdater: ((user: User) => User | Promise<User>) | undefined;
}

/** The user authkoa put on this request, or undefined. */
export function getUserInfo(ctx: Context): User | undefined {
  const u = (ctx.state as { user?: unknown } | undefined)?.user;
  return u && typeof u === 'object' && typeof (u as User).id === 'string' ? (u as User) : undefined;
}

/** The user of this request; throws AuthError 401 when there is none. */
export function mustGetUserInfo(ctx: Context): User {
  const u = getUserInfo(ctx);
  if (!u) throw new AuthError('no_user', "user can't be parsed");
  return u;
}

/** What a guard asks of the user (and how they authenticated) once there is one: undefined lets the request through. */
type UserCheck = (user: User, ctx: Context) => AuthError | undefined;

/** The route middleware of one service, each finding the request's user through `users`. */
export function createMiddleware(o: MiddlewareConfig, users: Authenticator): AuthMiddleware {
  return {
    auth: guard(o, users),
    admin: guard(o, users, adminOnly),
    rbac: (...roles: string[]) => guard(o, users, roleIn(roles)),
    trace: tracer(o, users),
    updateUser: userUpdater(o),
    fresh: (maxAge: Duration) => freshGuard(o, users, parseDuration(maxAge, 'fresh(maxAge)')),
    scope: (...scopes: string[]) => guard(o, users, scopesIn(scopes)),
  };
}

/**
 * `fresh(maxAge)`: the user of a full login's token, refused with `reauth_required` when their login is older
 * than `maxAgeMs`, and with `full_login_required` for basic auth or a token that is not a full login.
 */
function freshGuard(o: MiddlewareConfig, users: Authenticator, maxAgeMs: number): Middleware {
  return async function fresh(ctx: Context, next: Next) {
    let user: User;
    try {
      // A personal token is never a login, let alone a fresh one: the caller has to log in.
      if (users.presented(ctx)) throw new AuthError('reauth_required', 'fresh() needs a recent login, not a token');
      const session = await users.loginSession(ctx, 'fresh()');
      requireFresh(session, maxAgeMs, o.clock());
      user = session.user;
    } catch (err) {
      return refuse(o, ctx, err);
    }
    ctx.state.user = user;
    ctx.state.auth = SESSION_AUTH;
    await next();
  };
}

/**
 * A middleware that lets the request on with its user when there is one and `check` allows it, else answers 401/403.
 */
function guard(o: MiddlewareConfig, users: Authenticator, check?: UserCheck): Middleware {
  return (ctx: Context, next: Next) => {
    let found: User | Promise<User>;
    try {
      found = users.authenticate(ctx);
    } catch (err) {
      return refuse(o, ctx, err);
    }
    // Errors of `next` are the app's: they pass through, only authentication failures become 401/403.
    return isPromise(found)
      ? found.then(
          (user) => admit(o, check, ctx, next, user),
          (err) => refuse(o, ctx, err),
        )
      : admit(o, check, ctx, next, found);
  };
}

function admit(o: MiddlewareConfig, check: UserCheck | undefined, ctx: Context, next: Next, user: User): Promise<void> {
  // Basic auth and a feature's credential said how; a token (cookie, X-JWT, `?token=`) is a session.
  ctx.state.auth ??= SESSION_AUTH;
  const denied = check?.(user, ctx);
  if (denied) return refuse(o, ctx, denied);
  ctx.state.user = user;
  return next();
}

/** A middleware failure: reported, then answered by the errorHandler or with the JSON error body. */
async function refuse(o: MiddlewareConfig, ctx: Context, err: unknown): Promise<void> {
  const e = reportError(ctx, err, o.logger);
  if (o.errorHandler) return o.errorHandler(ctx, e.status, e);
  writeError(ctx, e);
}

function adminOnly(u: User): AuthError | undefined {
  return isAdmin(u) ? undefined : new AuthError('not_admin', `user ${u.name} is not admin`);
}

/** `scope(...scopes)`: a credential with scopes (a personal token) must hold each; a session or basic auth passes. */
function scopesIn(scopes: string[]): UserCheck {
  if (scopes.some((s) => typeof s !== 'string' || s === ''))
    throw new TypeError('scope() requires scope names as non-empty strings');
  return (_user, ctx) => {
    const held = ctx.state.auth?.scopes;
    if (!held || scopes.every((s) => held.includes(s))) return undefined;
    const missing = scopes.filter((s) => !held.includes(s));
    return new AuthError('insufficient_scope', `this token lacks the scope ${missing.join(', ')}`);
  };
}

function roleIn(roles: string[]): UserCheck {
  if (roles.some((r) => typeof r !== 'string')) throw new TypeError('rbac() requires role names as strings');
  const allowed = new Set(roles.map((r) => r.toLowerCase()));
  return (u) => {
    if (u.role && allowed.has(u.role.toLowerCase())) return undefined;
    // A user without a role is told so: "role  not in allowed roles" read like a blank in the message.
    return new AuthError(
      'role_denied',
      u.role ? `user ${u.name} role ${u.role} not in allowed roles` : `user ${u.name} has no role`,
    );
  };
}

function tracer(o: MiddlewareConfig, users: Authenticator): Middleware {
  return async function trace(ctx: Context, next: Next) {
    try {
      const found = users.authenticate(ctx);
      ctx.state.user = isPromise(found) ? await found : found;
      ctx.state.auth ??= SESSION_AUTH;
    } catch (err) {
      // Trace never refuses: the request goes on anonymously. A failure of the server's own (a dead
      // store, a throwing validator) is still reported, as every unexpected error is.
      reportError(ctx, err, o.logger);
    }
    await next();
  };
}

function userUpdater(o: MiddlewareConfig): Middleware {
  return async function updateUser(ctx: Context, next: Next) {
    const user = getUserInfo(ctx);
    if (user && o.userUpdater) ctx.state.user = await o.userUpdater(user);
    await next();
  };
}
