import type { Context, Middleware } from 'koa';
import type { AuthError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Claims } from '../session/claims.js';
import type { FeatureCredential } from '../session/feature-credentials.js';
import type { StateStore } from '../state/types.js';
import type { User } from '../user.js';
import type { Provision } from '../util/service-key.js';

export type { RequestAuth } from '../user.js';
export type { CredentialUser, FeatureCredential } from '../session/feature-credentials.js';

/**
 * What a feature is: a part of the service that the options turn on, with its own routes under a prefix
 * it reserves, an optional say in every login, its part of the OpenAPI document, its error codes and
 * events, its start and close, and an admin API. The built-in ones (the session list, the key set, the
 * second factor) are made the same way an application's or a plug-in package's are: docs/features.md.
 */

/** A login whose user is known, before its session is issued: what a gate decides on. */
export interface LoginAttempt {
  /** The provider that identified the user. */
  readonly provider: string;
  readonly user: Readonly<User>;
  /** How the user proved who they are so far (RFC 8176 `amr` values). */
  readonly amr: readonly string[];
  /** Where the browser goes once logged in, when the login asked. */
  readonly from?: string;
  /** The login ends a browser navigation (an OAuth2 callback, a confirmation link), not a JSON call. */
  readonly navigation?: boolean;
  /** The provider said the user's address is verified (an OpenID `email_verified: true`); absent is no. */
  readonly emailVerified?: boolean;
}

/**
 * A feature's say in every login, after the first factor and the postAuthHook, before the session is
 * issued. Resolve false to let the login go on; answer the request yourself and resolve true to stop it
 * there (a second step elsewhere); or throw an AuthError (`ctx.error(code, …)` of the feature context)
 * to refuse it. Gates run in the order of the features, the built-in second factor last.
 */
export type LoginGate = (ctx: Context, login: LoginAttempt) => Promise<boolean>;

/**
 * A feature's say in who a login is, before any gate: resolve another user for the session to be issued to (the
 * user an identity is linked to), or undefined to leave the user the provider identified. The features ask in
 * their order, each seeing the user the one before settled on; the provider stays the login's (`auth_provider`),
 * and the gates, the second factor's included, judge the user resolved here. Answer the request yourself and
 * resolve true when the login ends there with no session (an identity linked to the account already logged in);
 * throw an AuthError to refuse the login.
 */
export type LoginIdentity = (ctx: Context, login: LoginAttempt) => Promise<User | undefined | true>;

/**
 * A feature's word as a login starts (`<authRoutePath>/<provider>/login`, after the preAuthHook, before the
 * provider runs): read the request's own parameters (`?link=1`), set a cookie the callback will read, or throw
 * an AuthError to refuse the login.
 */
export type LoginStart = (ctx: Context, provider: string) => Promise<void>;

/** The request's full login: its user and claims. */
export interface FullLogin {
  user: User;
  claims: Claims;
}

/** What a feature gets to work with: the instance's shared parts, never its secrets. */
export interface FeatureContext {
  /** The public base URL (`url`), no trailing slash. */
  readonly url: string;
  /** `authRoutePath`: the feature's routes are served under `<authRoutePath><prefix>`. */
  readonly authRoutePath: string;
  readonly logger: Logger;
  /** The instance's clock, ms since the epoch. */
  readonly clock: () => number;
  /** The service-wide state store (`stateStore`); its failures reject with a 503 AuthError. */
  readonly stateStore: StateStore;
  /**
   * The request's full login (cookie with its XSRF header, X-JWT or `?token=` carrying a session that
   * went through every step): 401 without one, 403 `full_login_required` for basic auth or a token the
   * application minted. What a route that changes a user's account must ask for.
   */
  session(ctx: Context): Promise<FullLogin>;
  /** An AuthError with one of the feature's own codes (`errors`), at the status it declared. */
  error(code: string, message: string, options?: { cause?: unknown }): AuthError;
  /** Tells the feature's own event (one of `events`) to the instance's listeners, after the answer is sent. */
  emit(type: string, fields: Record<string, unknown>, ctx?: Context): void;
  /** Answers JSON with `status`, as every authkoa route answers. */
  json(ctx: Context, status: number, body: unknown): void;
}

/** A feature's part of the OpenAPI document (Feature.openapi). */
export interface FeatureOpenAPI {
  /** Path items by path under `authRoutePath` (`/terms`), each an object of operations by method. */
  paths: Record<string, Record<string, Record<string, unknown>>>;
  /** Component schemas its operations `$ref` as `#/components/schemas/<name>`. */
  schemas?: Record<string, unknown>;
  /** Security schemes its operations name in their `security` (a cookie of its own). */
  securitySchemes?: Record<string, unknown>;
  /**
   * Which of its `securitySchemes` carry its credential (Feature.credential): the routes that read the user as
   * `auth` does (`GET /auth/user`, `/auth/status`) list them as one more way in.
   */
  credentialSchemes?: string[];
  /**
   * Answers it gives at every provider's login and callback, by status (account linking's 409 page when the
   * identity is in use): added to those operations beside their own.
   */
  loginAnswers?: Record<string, Record<string, unknown>>;
  /** What the tags its operations use stand for (`{ terms: 'Accepting the terms of service' }`), by tag name. */
  tags?: Record<string, string>;
}

/** Why a user's credentials were revoked (Feature.credentialsRevoked). */
export type CredentialsRevokedReason = 'password_reset';

/** A feature once created: what the service serves and calls. Every member is optional. */
export interface Feature {
  /**
   * Requests to `<authRoutePath><prefix>` and below, once the service has started. Answer them, or call
   * `next()` for a 404 `not_found`. A POST or DELETE from another site is refused before it gets here.
   */
  routes?: Middleware;
  /**
   * Requests for its site documents (FeatureModule.siteWellKnown): `GET /.well-known/<name>` at the site root, or
   * with a path after the name (RFC 8414 §3.1: an issuer with a path). Answer them, or call `next()` to pass the
   * request on to the application.
   */
  siteRoutes?: Middleware;
  /** What a login's start means to it (LoginStart): most features leave it. */
  loginStarts?: LoginStart;
  /** Who a login is, before the gates (LoginIdentity): most features leave it. */
  identify?: LoginIdentity;
  /** Its say in every login (LoginGate). */
  gate?: LoginGate;
  /**
   * Its part of `auth.openapi()`, asked for only when the document is (load its text then). Operations
   * without `security` are listed as public; the common error answers are added to each.
   */
  openapi?(): FeatureOpenAPI | Promise<FeatureOpenAPI>;
  /** What the application (and `authctl`) calls: `auth.features.get(name)`. */
  admin?: object;
  /**
   * What it offers the provider kinds built on it (the accounts feature's store to the `password` kind), each under
   * its typed key (`provide(key, service)`), which a kind asks for (ProviderCapabilities.featureService(key)). Most
   * features offer nothing.
   */
  provides?: readonly Provision[];
  /** A credential it accepts on the application's routes besides the session (FeatureCredential). */
  credential?: FeatureCredential;
  /*
   * A session's life, told after the fact, in the order of the features. A hook cannot refuse anything: a
   * throw or a rejection is logged as a warning (its AuthError code, or `feature_hook_failed`) and the
   * login, refresh or logout goes on. A login waits for its hooks, so keep them to a store write or two.
   */
  /** A login issued a session (after every gate): its claims carry `user`, `sid`, `auth_time` and `amr`. */
  sessionStarted?(ctx: Context, claims: Claims): Promise<void>;
  /** An expired cookie token was re-issued for the same session: the new claims. */
  sessionRefreshed?(ctx: Context, claims: Claims): Promise<void>;
  /** A logout ended the session of these claims (its token is already refused). */
  sessionEnded?(ctx: Context, claims: Claims): Promise<void>;
  /**
   * Every session of `userId` issued up to now was revoked, but the session `keptSid` when one was kept:
   * `auth.revokeSessions()`, or a factor change with `endOtherSessionsOnFactorChange`.
   */
  sessionsRevoked?(userId: string, keptSid: string | undefined): Promise<void>;
  /**
   * The account of `userId` was deleted (`DELETE account`, `auth.accounts.delete`): forget what the feature
   * keeps for that user (the second factor's secret and recovery codes). Logged, not thrown, when it fails.
   */
  userDeleted?(userId: string): Promise<void>;
  /**
   * Every credential the feature issued for `userId` that acts without a session (a personal access token) must
   * stop working, for `reason`: `'password_reset'`, the account was recovered through a reset link (with
   * `accounts.resetRevokes` naming `'tokens'`). Sessions are sessionsRevoked's. Logged, not thrown, when it fails.
   */
  credentialsRevoked?(userId: string, reason: CredentialsRevokedReason): Promise<void>;
  /**
   * Called once the providers are built, with their names: check the feature's options that name providers
   * (throw a TypeError naming the option; start-up fails with it).
   */
  providersReady?(names: readonly string[]): void;
  /** Runs during start-up (`auth.ready` waits for it; a rejection fails start-up, naming the feature). */
  start?(): Promise<void>;
  /** Runs at `auth.close()`. */
  close?(): Promise<void>;
}

/**
 * A feature as an application configures it: `authKoa({ features: [acceptTerms({ version: '2' })] })`,
 * where `acceptTerms()` returns one of these. Its options are checked in authKoa()'s one validation
 * pass: a key not in `optionNames` is refused naming the closest one.
 */
export interface FeatureModule<O extends object = object> {
  /** Its name: unique among the features, in messages and `auth.features.get(name)`. */
  readonly name: string;
  /** The route prefix it reserves under `authRoutePath` (`/terms`): no provider, feature or core route may share it. */
  readonly prefix?: string;
  /**
   * Documents it serves under `<authRoutePath>/.well-known/` by name (`['ssf-configuration']`), beside the key
   * set that owns that folder: each name is one feature's, and its requests go to the feature's `routes`.
   */
  readonly wellKnown?: readonly string[];
  /**
   * Documents it serves at the site root, `/.well-known/<name>` (RFC 8615), by name (`['oauth-authorization-server']`):
   * each name is one feature's, and its requests go to the feature's `siteRoutes`. Standards that clients discover
   * from a bare host name need them (OAuth 2.0 Authorization Server Metadata); everything else stays under
   * `authRoutePath`.
   */
  readonly siteWellKnown?: readonly string[];
  /**
   * Paths under its prefix, the prefix included (`['/oauth2/token']` of `/oauth2`), that take requests from any
   * site: endpoints other sites' code calls with credentials of its own (an OAuth token endpoint), which never act on
   * the browser's cookies. Every other POST or DELETE from another site is refused before the feature's routes.
   */
  readonly anySite?: readonly string[];
  /** The options as given, checked against `optionNames`. */
  readonly options?: O;
  /** Every option key the feature takes. */
  readonly optionNames?: readonly string[];
  /** Its error codes, each with its one HTTP status (4xx or 5xx). */
  readonly errors?: Readonly<Record<string, number>>;
  /** The event types it emits, which `auth.on()` then accepts. */
  readonly events?: readonly string[];
  /** Makes the feature (during start-up); throw a TypeError naming a bad option. */
  create(options: O, context: FeatureContext): Feature | Promise<Feature>;
}
