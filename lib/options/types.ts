/**
 * The options of `authKoa()` as an application writes them; resolve.ts checks them into the ResolvedOptions the service
 * holds.
 */
import type { AuditOption } from '../events/options.js';
import type { AvatarProxyOptions } from '../avatar/types.js';
import type { BasicAuthChecker } from '../session/basic-auth.js';
import type { Claims } from '../session/claims.js';
import type { ErrorHandler } from '../middleware.js';
import type { PostAuthHook } from '../session/login.js';
import type { PreAuthHook } from '../routes.js';
import type { RefreshCache } from '../session/refresh-cache.js';
import type { AvatarStore } from '../avatar/stores/types.js';
import type { User } from '../user.js';
import type { Duration } from '../util/duration.js';
import type { LoggerInput } from '../logger.js';
import type { ProviderEntry } from '../providers/core/provider.js';
import type { StateStore } from '../state/types.js';
import type { LoginThrottleOptions } from '../state/throttle.js';
import type { FeatureModule } from '../features/contract.js';
import type { MfaOptions } from '../mfa/options.js';
import type { AccountsOptions } from '../accounts/options.js';
import type { PersonalTokensOptions } from '../personal-tokens/options.js';
import type { WebhookEndpointOptions } from '../webhooks/options.js';
import type { SsfOptions } from '../ssf/options.js';
import type { AuthorizationServerOptions } from '../authorization-server/options.js';
import type { SigningOptions } from '../session/signing.js';

export type { Duration } from '../util/duration.js';
// Declared by the modules that call them, and part of the options all the same.
export type { BasicAuthChecker, BasicAuthResult } from '../session/basic-auth.js';
export type { ErrorHandler } from '../middleware.js';
export type { PostAuthHook } from '../session/login.js';
export type { PreAuthHook } from '../routes.js';
export type { RefreshCache } from '../session/refresh-cache.js';

/** Secret for signing and verifying; receives the token's audience (or 'ignore', see audSecrets). */
export type SecretReader = ((aud: string) => string | Promise<string>) | { get(aud: string): string | Promise<string> };
/** Alters claims at every token creation (login, refresh, handshake); must tolerate a missing user. */
export type ClaimsUpdater =
  ((claims: Claims) => Claims | Promise<Claims>) | { update(claims: Claims): Claims | Promise<Claims> };
/** Called on every request wrapped by auth/admin/rbac/trace; false rejects the token. */
export type Validator =
  | ((token: string, claims: Claims) => boolean | Promise<boolean>)
  | { validate(token: string, claims: Claims): boolean | Promise<boolean> };
/** Called on every request wrapped by updateUser. */
export type UserUpdater = ((user: User) => User | Promise<User>) | { update(user: User): User | Promise<User> };

/** Options of `authKoa()`. Only `url`, a secret and at least one provider are required. */
export interface AuthKoaOptions extends BuiltInFeatureOptions {
  /** Signing secret (HS256), at least 32 bytes (start-up TypeError otherwise); `authctl secret` makes one. */
  secret?: string;
  /**
   * Former secrets still accepted when verifying (never for signing), for rotating `secret` without logging anyone out.
   */
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
  /**
   * Avatar store URI (`lmdb://…`, `file://…`, `mongodb://…`) or an AvatarStore object; none keeps provider URLs.
   */
  avatarStore?: string | AvatarStore;
  /** Route prefix of avatar links. Default `/avatar`. */
  avatarRoutePath?: string;
  /** Longest side of stored avatars in pixels; 0 keeps the bytes. Default 0. */
  avatarResizeLimit?: number;
  /** Allow avatar fetches from private and loopback addresses (tests, intranets). Default false. */
  avatarAllowPrivate?: boolean;
  /**
   * Fine-tuning of the avatar fetch: allowAddresses, fetchTimeout, maxBytes, maxPixels, maxRedirects, fetchRetries,
   * workers, identiconSize.
   */
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
  /**
   * Anything with info/warn/error (console, pino: records then carry fields), or a printf-like function. Silent by
   * default.
   */
  logger?: LoggerInput;
  /**
   * Every auth event (docs/events.md) appended as a JSON line to this file, or written to this stream. Off by default.
   */
  audit?: AuditOption;
  /**
   * Each audit line's HMAC-SHA256 key (at least 32 characters), beside the SHA-256 chain every line carries:
   * `authctl audit verify --key` then names a line edited even when the chain after it was recomputed. Keep it apart
   * from the log. Off by default.
   */
  auditKey?: string;
  /** An event listener still running after this long is reported through Koa's `app.emit('error')`. Default `5s`. */
  eventListenerTimeout?: Duration;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api` (docs/events.md): unset, when that
   * optional package is installed; `true` requires it (a start-up error names it when missing); `false` never loads it.
   */
  telemetry?: boolean;
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
  /**
   * Where short-lived login state lives (spent confirmation tokens, Telegram login requests) and the
   * rate-limit counters: `memory` (the default; this process only), `lmdb://<path>` (the processes of
   * one host), `redis://…` or `rediss://…`, `mongodb://…`, a scheme added with registerStateStore(),
   * or a StateStore object. Every provider and limit uses it unless the provider is given its own.
   * See docs/scaling.md.
   */
  stateStore?: string | StateStore;
  /**
   * How long start-up waits for each configured store (`stateStore`, `mfa.store`, `avatarStore`, a
   * provider's own store) to answer: one that cannot be reached in this time rejects `auth.ready`,
   * naming the option, the URI (password redacted) and the cause. Default `3s`.
   */
  storeCheckTimeout?: Duration;
  /**
   * Start even when a store cannot be reached (`auth.ready` resolves): the failure is logged and goes to
   * Koa's `app.emit('error')` with the first request, later failures with the request that meets them,
   * and the store is tried again on each use. Default false: a store that is down stops start-up.
   */
  startWithStoresDown?: boolean;
  /**
   * Let a memory store hold durable data (`mfa.store`, passkeys, which live in `stateStore` unless the
   * provider has `credentials`): everything in it is gone at the next restart. For tests and demos.
   * Default false: a memory store there is a start-up TypeError naming the option.
   */
  allowVolatileStores?: boolean;
  /**
   * Throttling of failed credential logins (direct providers, basic auth, the local OAuth2 server),
   * counted per user name and per client IP in `stateStore`: 5 failures for a name or 50 from an IP lock it out for 1
   * minute, doubling with
   * each further lock-out up to 15 minutes; `false` turns it off. See docs/security.md.
   */
  loginThrottle?: false | LoginThrottleOptions;
  /**
   * Compatibility with the original's user ids: a raw id that already looks like a SHA-1 is used as it
   * is instead of hashed. Off by default, since it lets a user who chooses their raw id (a direct login
   * name, an address) take another user's id; see docs/migrating.md.
   */
  keepHashedIds?: boolean;
  /**
   * Check revoked sessions (`auth.revokeSessions()`, logout) on every request instead of only when a
   * cookie token is refreshed: an ended session stops at once, at the cost of one state store read per
   * protected request. Default false: it stops within `tokenDuration`.
   */
  strictRevocation?: boolean;
  /**
   * Sessions kept per user (one per login, per device; see docs/sessions.md): a login past it ends the
   * user's oldest session. Default 50.
   */
  maxSessionsPerUser?: number;
  /**
   * When a user adds or removes a passkey or a second factor, their other sessions end (the one that
   * made the change goes on): a credential change is when a stolen session must stop. Default true.
   */
  endOtherSessionsOnFactorChange?: boolean;
  /**
   * Sign session tokens with a private key (EdDSA, ES256 or RS256) so other services verify them with the
   * public key alone, published at `<authRoutePath>/.well-known/jwks.json`. `secret` stays required: it
   * signs what never leaves the service (OAuth2 handshakes, confirmation links). See docs/verify.md.
   */
  signing?: SigningOptions;
  /**
   * Features beside the built-in ones, each made by its package's function (`acceptTerms({ version })`):
   * their own routes under a prefix they reserve, a say in every login, their OpenAPI part, error codes
   * and events. Their gates run in this order, before the second factor's. See docs/features.md.
   */
  features?: FeatureModule[];
  /** Clock in ms since the epoch; tests inject one. Default Date.now. */
  clock?: () => number;
}

/** The avatar proxy's limits an application may change; see docs/avatars.md. */
type ServiceSet = 'url' | 'routePath' | 'resizeLimit' | 'allowPrivate' | 'logger' | 'store' | 'policy';
export type AvatarTuning = Partial<Omit<AvatarProxyOptions, ServiceSet>>;

/**
 * The options that turn a built-in feature on, each read by its folder's reader (core/features.ts lists them; the
 * compiler keeps the two equal). Part of AuthKoaOptions.
 */
export interface BuiltInFeatureOptions {
  /**
   * Accounts kept by authkoa, in the application's database: `{ store: 'postgres://…' }` or an AccountStore.
   * A `kind: 'password'` provider serves sign-up, login, reset and the rest over them. Off by default.
   * See docs/accounts.md.
   */
  accounts?: AccountsOptions;
  /**
   * Personal access tokens for the accounts' users (needs `accounts`): `true` or `{ prefix, revocationDelay, … }`.
   * Made at `POST /auth/tokens`, sent as `Authorization: Bearer <token>` to the routes behind `auth`, `admin`,
   * `rbac` and `scope`, never to one that manages the account. Off by default. See docs/accounts.md.
   */
  tokens?: boolean | PersonalTokensOptions;
  /**
   * A second factor after every login (TOTP with recovery codes, or a passkey), and step-up for the
   * routes that change it; `{ store }` at least. Off by default. See docs/mfa.md.
   */
  mfa?: MfaOptions;
  /**
   * Every matching event POSTed to each endpoint, signed per Standard Webhooks, at least once: kept in the
   * `stateStore`'s outbox until delivered, retried on a schedule that ends within 3 days, then a dead letter
   * (docs/events.md#webhooks). The state store must be durable. Off by default.
   */
  webhooks?: WebhookEndpointOptions[];
  /**
   * The Shared Signals transmitter (docs/ssf.md): each session's end and credential change sent to other services as
   * CAEP Security Event Tokens signed with the `signing` key, pushed (RFC 8935) or polled (RFC 8936), kept in the
   * durable `stateStore` until delivered or acknowledged. Needs `signing`. Off by default.
   */
  ssf?: SsfOptions;
  /**
   * The app as an OAuth 2.1 authorization server for its APIs and for other apps and AI agents
   * (docs/authorization-server.md): `{ resources, clients }` at least. Its issuer is `url`; users sign in with the
   * app's own logins; codes, refresh tokens and consents live in the durable `stateStore`. Needs `signing`. Off by
   * default.
   */
  authorizationServer?: AuthorizationServerOptions;
}
