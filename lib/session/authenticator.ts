import type { Tracing } from '../telemetry/types.js';
import type { EventSink } from '../events/bus.js';
import type { Context } from 'koa';
import { AuthError, isErrorCode, toAuthError, type ErrorCode } from '../errors.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { CredentialUser, FeatureCredentials, PresentedCredential } from './feature-credentials.js';
import { BASIC_AUTH, type User } from '../user.js';
import { isPromise } from '../util/is-promise.js';
import { basicAuthenticator, type BasicAuthConfig, type BasicAuthenticator } from './basic-auth.js';
import { copyClaims, userOf as userOfClaims, type Claims, type RequestToken } from './claims.js';
import { Refresher, type RefreshConfig } from './refresher.js';
import type { SessionOf } from './fresh.js';
import { fullLoginRequired, isFullLogin } from './full-login.js';
import type { Revocations } from './revocation.js';
import type { SessionHooks } from './hooks.js';
import type { TokenService } from './token-service.js';
import { providerAllowed } from './provider-allowed.js';
import type { RevocationWatch } from './revocation-watch.js';

/** The options the authentication of a request reads, its refresh and basic auth included. */
export interface AuthenticationConfig extends RefreshConfig, BasicAuthConfig {
  /** Read to tell a cookie token from one the request named (see dropUnusableCookie). */
  jwtQueryName: string;
  jwtHeaderName: string;
  validator: ((token: string, claims: Claims) => boolean | Promise<boolean>) | undefined;
  strictRevocation: boolean;
}

/** What the authenticator works with besides its options. */
export interface AuthenticatorParts {
  tokens: TokenService;
  /** The configured providers, by name: a token of another provider is refused. */
  providers: { has(name: string): boolean };
  sessions: Revocations;
  /** The revocation channel, when the state store has one and revocation is not strict: checked on every request. */
  watch?: RevocationWatch;
  /** Told of every refresh (the features' session hooks). */
  hooks?: SessionHooks;
  /** The credentials features accept besides the session (personal access tokens), filled at start-up. */
  credentials?: FeatureCredentials;
  /**
   * Undefined once the service has started; before, a promise to wait for, rejected with a 503 when start-up failed.
   */
  waitForStart: () => Promise<void> | undefined;
  /** Counts failed basic-auth attempts; undefined when throttling is off. */
  basicThrottle: CredentialThrottle | undefined;
  /** Told of every refresh (`refresh`). */
  events?: EventSink;
  /** Spans for refreshes, when the instance has OpenTelemetry. */
  tracing?: Tracing;
}

/**
 * Who a request is, by the rules every route middleware shares: basic auth when it is configured and the
 * request sends it, else the token, checked against revocation (with strictRevocation), the validator and
 * the providers still configured, and refreshed when it is an expired cookie token.
 */
export class Authenticator {
  private readonly tokens: TokenService;
  private readonly providers: AuthenticatorParts['providers'];
  private readonly waitForStart: AuthenticatorParts['waitForStart'];
  private readonly basicAuth: BasicAuthenticator | undefined;
  private readonly credentials: FeatureCredentials | undefined;
  private readonly refresher: Refresher;
  // The checks the options add to every request: both make it asynchronous (see checkedUser).
  private readonly validator: AuthenticationConfig['validator'];
  private readonly strictRevocations: Revocations | undefined;
  /** The channel's check: synchronous with no I/O while it is live, the store's while it is not. */
  private readonly revocationCheck: ((claims: Claims) => void | Promise<void>) | undefined;

  constructor(
    private readonly o: AuthenticationConfig,
    parts: AuthenticatorParts,
  ) {
    this.tokens = parts.tokens;
    this.providers = parts.providers;
    this.waitForStart = parts.waitForStart;
    this.basicAuth =
      o.basicAuthChecker || o.adminPasswd !== undefined ? basicAuthenticator(o, parts.basicThrottle) : undefined;
    this.credentials = parts.credentials;
    this.refresher = new Refresher(o, parts.tokens, parts.sessions, parts.hooks, parts.events, parts.tracing);
    this.validator = o.validator;
    this.strictRevocations = o.strictRevocation ? parts.sessions : undefined;
    const watch = o.strictRevocation ? undefined : parts.watch;
    this.revocationCheck = watch && ((claims) => watch.check(claims));
  }

  /**
   * The request's user (basic auth, else the token), or a thrown AuthError. Synchronous when it can be (no
   * basic auth header, a token already verified, no validator, no refresh): this runs on every protected
   * request, and an await on a value that is already there still costs a microtask turn. Before start-up
   * has finished it waits for it (a token names its provider); 503 when start-up failed.
   */
  authenticate(ctx: Context): User | Promise<User> {
    const waiting = this.waitForStart();
    return waiting ? waiting.then(() => this.authenticateNow(ctx)) : this.authenticateNow(ctx);
  }

  /**
   * The request's session when it is a full login (full-login.ts), for `fresh()` and every route that
   * manages the user's factors, sessions, passkeys or credentials; off the hot path. Only the token
   * counts: a Basic header is not consulted, so a request with both acts for the token's session (and
   * one whose token is missing or refused is refused, whatever its password). Throws 403
   * `full_login_required` for basic auth alone or a token that is not a full login; else what `auth`
   * throws for the token (401 `no_token`, `token_invalid`, …).
   */
  async loginSession(ctx: Context, what = 'this route'): Promise<SessionOf> {
    await this.waitForStart();
    // A request presenting a feature's credential (a personal token) is refused, whatever else it carries.
    const presented = this.presented(ctx);
    if (presented) throw presented.credential.refused(what);
    let user: User;
    try {
      user = await this.tokenUser(ctx);
    } catch (err) {
      const header = ctx.req.headers.authorization;
      if (toAuthError(err).code === 'no_token' && header && /^basic /i.test(header)) throw fullLoginRequired(what);
      throw err;
    }
    // The token tokenUser accepted (a refreshed cookie's new one included): its claims decide.
    const rt = await this.tokens.peek(ctx);
    const claims = rt && rt.claims.user?.id === user.id ? copyClaims(rt.claims) : undefined;
    if (!claims || !isFullLogin(claims)) throw fullLoginRequired(what);
    return { user, claims };
  }

  /**
   * loginSession() for a top-level GET navigation, which cannot carry the XSRF header: the browser's
   * `Sec-Fetch-Site` (`same-origin`, or `none` for an address typed or bookmarked) stands in for it. A request
   * from another site, or from a browser that sends no such header, still needs the header. `anySite`: the cookie
   * alone, whatever the method and site, for routes that defend themselves (the authorization server's
   * `cookieSession`).
   */
  navigationSession(ctx: Context, what?: string, anySite = false): Promise<SessionOf> {
    const site = ctx.req.headers['sec-fetch-site'];
    if (anySite || (ctx.method === 'GET' && (site === 'same-origin' || site === 'none')))
      this.tokens.trustNavigation(ctx);
    return this.loginSession(ctx, what);
  }

  /** The feature credential (a personal token) the request's Authorization header carries, if any. */
  presented(ctx: Context): PresentedCredential | undefined {
    return this.credentials?.any ? this.credentials.find(ctx.req.headers.authorization) : undefined;
  }

  private authenticateNow(ctx: Context): User | Promise<User> {
    const presented = this.presented(ctx);
    if (presented) return this.credentialUser(ctx, presented);
    if (this.basicAuth) {
      const header = ctx.req.headers.authorization;
      if (header && /^basic /i.test(header)) {
        const basic = (u: User | undefined): User | Promise<User> => {
          if (!u) return this.tokenUser(ctx);
          ctx.state.auth = BASIC_AUTH;
          return u;
        };
        const user = this.basicAuth(ctx, header);
        return isPromise(user) ? user.then(basic) : basic(user);
      }
    }
    return this.tokenUser(ctx);
  }

  /**
   * The user of a feature's credential; `ctx.state.auth` says which (its id and scopes). The validator, when there
   * is one, judges it too, as `(credential, { user, jti: <its id> })`: a user the app blocks is blocked by every
   * way in.
   */
  private credentialUser(ctx: Context, { credential, value }: PresentedCredential): User | Promise<User> {
    const admit = ({ user, auth }: CredentialUser) => {
      ctx.state.auth = auth;
      return user;
    };
    const found = credential.authenticate(value, ctx);
    if (this.validator) return Promise.resolve(found).then((who) => this.validated(value, who).then(admit));
    return isPromise(found) ? found.then(admit) : admit(found);
  }

  private async validated(value: string, who: CredentialUser): Promise<CredentialUser> {
    // The credential's user is this request's own copy: what the validator edits there goes on, as for a token.
    const claims: Claims = { user: who.user, ...(who.auth.id && { jti: who.auth.id }) };
    if (!(await this.validator!(value, claims))) throw new AuthError('user_blocked', `user ${who.user.id} blocked`);
    return { auth: who.auth, user: claims.user ?? who.user };
  }

  private tokenUser(ctx: Context): User | Promise<User> {
    let rt: ReturnType<TokenService['peek']>;
    try {
      rt = this.tokens.peek(ctx);
    } catch (err) {
      throw this.dropUnusableCookie(ctx, err);
    }
    if (!isPromise(rt)) return this.userOf(ctx, rt);
    return rt.then(
      (found) => this.userOf(ctx, found),
      (err) => {
        throw this.dropUnusableCookie(ctx, err);
      },
    );
  }

  /**
   * A cookie that can never verify is dropped; a missing XSRF header is not a reason to log anyone out. The
   * mark of a session ended from elsewhere (see rejectAndClear) is kept, and says so.
   */
  private dropUnusableCookie(ctx: Context, err: unknown): AuthError {
    if (this.tokens.endedMarkPresented(ctx)) return new AuthError('session_revoked', 'session was ended');
    const e = toAuthError(err);
    const fromCookie = !ctx.query[this.o.jwtQueryName] && !ctx.get(this.o.jwtHeaderName);
    if (e.code !== 'xsrf_mismatch' && e.status === 401 && fromCookie) this.tokens.reset(ctx);
    return e;
  }

  /**
   * The user of a verified token, or a thrown AuthError. `rt.claims` may be the token service's shared
   * copy (`peek`): only read here, what goes on is copied.
   */
  private userOf(ctx: Context, rt: RequestToken | undefined): User | Promise<User> {
    if (!rt) throw new AuthError('no_token', 'token is not presented');
    const { claims } = rt;
    if (claims.handshake) throw new AuthError('token_invalid', 'invalid kind of token');
    if (!claims.user) throw new AuthError('no_user', 'no user info presented in the claim');
    if (this.strictRevocations || this.validator) return this.checkedUser(ctx, rt);
    if (!this.revocationCheck) return this.allowedUser(ctx, rt);
    let pending: void | Promise<void>;
    try {
      pending = this.revocationCheck(rt.claims);
    } catch (err) {
      throw this.revoked(ctx, rt, err);
    }
    if (!pending) return this.allowedUser(ctx, rt);
    const refused = (err: unknown) => Promise.reject(this.revoked(ctx, rt, err));
    return pending.then(() => this.allowedUser(ctx, rt), refused);
  }

  /** A revocation check's failure: a refusal clears the cookies (or marks them ended); an outage keeps them. */
  private revoked(ctx: Context, rt: RequestToken, err: unknown): AuthError {
    const e = toAuthError(err);
    return e.status >= 500 || !isErrorCode(e.code) ? e : this.rejectAndClear(ctx, rt, e.code, e.message);
  }

  /**
   * The revocation check (strictRevocation's store read, or the channel's), then the
   * validator on its own copy of the claims: the user it may have edited there is the one that goes on.
   */
  private async checkedUser(ctx: Context, rt: RequestToken): Promise<User> {
    const check = this.strictRevocations ? (c: Claims) => this.strictRevocations!.check(c) : this.revocationCheck;
    if (check) {
      try {
        await check(rt.claims);
      } catch (err) {
        throw this.revoked(ctx, rt, err);
      }
    }
    if (!this.validator) return this.allowedUser(ctx, rt);
    const own = { ...rt, claims: copyClaims(rt.claims) };
    const user = own.claims.user!;
    if (!(await this.validator(own.token, own.claims)))
      throw this.rejectAndClear(ctx, own, 'user_blocked', `user ${user.id} blocked`);
    return this.allowedUser(ctx, own, own.claims.user ?? user);
  }

  /** The request's user, refreshed when its cookie expired; `own` is a user already copied for this request. */
  private allowedUser(ctx: Context, rt: RequestToken, own?: User): User | Promise<User> {
    const { claims } = rt;
    if (!providerAllowed(claims, this.providers))
      throw this.rejectAndClear(ctx, rt, 'provider_not_allowed', 'provider is not allowed');
    if (rt.source === 'cookie' && this.tokens.isExpired(claims)) return this.refreshedUser(ctx, rt);
    return own ?? userOfClaims(claims)!;
  }

  private async refreshedUser(ctx: Context, rt: RequestToken): Promise<User> {
    let refreshed: Claims;
    try {
      refreshed = await this.refresher.refresh(ctx, rt);
    } catch (err) {
      const e = toAuthError(err);
      // The state store being away says nothing about the session: answer 503 and keep the cookies.
      if (e.status >= 500) throw e;
      const code = e.code === 'session_expired' || e.code === 'session_revoked' ? e.code : 'refresh_failed';
      throw this.rejectAndClear(ctx, rt, code, `can't refresh token: ${e.message}`);
    }
    return { ...refreshed.user!, aud: refreshed.aud ?? '' };
  }

  /**
   * A 401 for a token that verified but may not be used; its cookies go, so the browser stops sending it. A
   * session ended from elsewhere leaves a mark instead, so its next requests are told `session_revoked` too,
   * not `no_token`.
   */
  private rejectAndClear(ctx: Context, rt: RequestToken, code: ErrorCode, message: string): AuthError {
    if (rt.source === 'cookie') {
      if (code === 'session_revoked') this.tokens.markEnded(ctx);
      else this.tokens.reset(ctx);
    }
    return new AuthError(code, message);
  }
}
