/**
 * The contract of a provider kind: the login context every provider gets (ProviderDeps), the capabilities
 * only some kinds need and ask for by name (ProviderCapabilities), and how a kind is made from its options
 * (ProviderModule). The Provider it makes is declared in provider.ts; the pure helpers a kind may use (body
 * and cookie readers, the session flag, random ids) are plain functions in ../kit.ts. A kind written outside
 * the package has exactly these, through the main entry's exports.
 */
import type { Tracing } from '../../telemetry/types.js';
import type { EventSink } from '../../events/bus.js';
import type { Context } from 'koa';
import type { Provider, ProviderOptions } from './provider.js';
import type { AvatarProxy } from '../../avatar/types.js';
import type { Logger } from '../../logger.js';
import type { ServiceKey } from '../../util/service-key.js';
import type { ConnectionShare } from '../../util/connections.js';
import type { StorePolicy } from '../../util/store-policy.js';
import type { CompletedLogin } from '../../session/login.js';
import type { JwtSigner } from '../../session/signer.js';
import type { TokenService } from '../../session/token-service.js';
import type { Limiter } from '../../state/limiter.js';
import type { StateStore } from '../../state/types.js';
import type { CredentialThrottle } from '../../state/throttle.js';
import type { User } from '../../user.js';
import type { Claims } from '../../session/claims.js';

/**
 * The login context every provider gets: how a login ends in a session, where the service is, and the
 * instance's clock, logger, telemetry, events and state; never the secrets or the other options. What only
 * some kinds use is not here but in ProviderCapabilities, handed to a kind that names it in `needs`.
 */
export interface ProviderDeps {
  /**
   * Issues the session for an identified user: avatar, hooks, the second step when one is due, cookies, then
   * a redirect or the User JSON. Every login ends here.
   */
  completeLogin(ctx: Context, login: CompletedLogin): Promise<void>;
  /** Ends a logout: both session cookies cleared (and the session revoked), 200 with an empty body. */
  endSession(ctx: Context): void;
  /**
   * `<provider>_<sha1(raw)>`, the user id a provider builds from its raw id (the original's HashID with
   * `keepHashedIds`).
   */
  userId(this: void, provider: string, raw: string): string;
  /**
   * The service's tokens, for a kind's own short-lived ones (an OAuth2 handshake, a mailed link): `create`/`mint`
   * and `parse` sign and verify them with the service's secret, `presented(ctx)` reads the request's session.
   * Not the cookies: a session is issued by completeLogin and ended by endSession, never by a kind directly.
   */
  readonly tokenService: KindTokens;
  /** Public base URL, no trailing slash. */
  readonly url: string;
  /** The absolute URL of `<authRoutePath>/<provider>/<action>`, e.g. for a webhook or a redirect URI. */
  routeURL(provider: string, action: string): string;
  /** `<url>` + the request's full path with its last segment replaced by `callback` (any mount prefix works). */
  callbackURL(ctx: Context): string;
  /** The absolute URL to redirect to after login when `from` passes the redirect policy, else undefined. */
  safeRedirect(from: string | undefined): string | undefined;
  /** The session cookie's name (a provider's own cookies derive theirs from it) and whether cookies are Secure. */
  readonly cookies: { readonly name: string; readonly secure: boolean };
  /** The service's clock, ms since the epoch (the `clock` option; Date.now by default). */
  readonly clock: () => number;
  /** The instance's logger (the `logger` option): what a kind reports outside a request's answer. */
  readonly logger: Logger;
  /**
   * The instance's OpenTelemetry, recording nothing unless it is installed and on: a kind's outbound
   * calls go through `request(url, { tracing: { tracing, what } })` (lib/http/client.ts) to be client spans.
   */
  readonly tracing: Tracing;
  /** The instance's events: a kind tells what only it sees (`passkey_added`, a refused local sign-in). */
  readonly events: EventSink;
  /**
   * The service-wide state store (the `stateStore` option): for state that must hold across processes.
   * A backend failure rejects with AuthError 503 `state_store_unavailable` (its cause is logged when it is answered).
   */
  readonly stateStore: StateStore;
  /** Rate limits counted in the service-wide state store. Prefix keys with the provider's name. */
  readonly limiter: Limiter;
}

/** The part of the service's tokens a kind uses (ProviderDeps.tokenService). */
export type KindTokens = Pick<TokenService, 'create' | 'mint' | 'parse' | 'isExpired' | 'now' | 'presented'>;

/**
 * What only some kinds need, each handed to a kind that names it in `ProviderModule.needs` (and to no
 * other), so that one kind's need does not widen every kind's context.
 */
export interface ProviderCapabilities {
  /**
   * Checks a user's credentials through `throttle(scope)`, as `direct` does: reserved before `check`
   * runs, 429 with Retry-After while locked out, 403 `bad_credentials` when `check` is not true, 500
   * `checker_failed` when it throws; resolves when the credentials are good. For password kinds.
   */
  checkCredentials(
    this: void,
    ctx: Context,
    scope: string,
    user: string,
    check: () => boolean | Promise<boolean>,
  ): Promise<void>;
  /**
   * Failed-login throttling for credentials checked under `scope` (the provider's name), per the
   * `loginThrottle` option, counted in the service-wide state store; undefined when it is turned off. For a
   * kind whose own checker counts the attempts (the local OAuth2 server's sign-in page).
   */
  throttle(this: void, scope: string): CredentialThrottle | undefined;
  /**
   * Signs tokens with the service's current signing key (the `signing` option), for parties that verify
   * them by its public keys (the local server's id_tokens); undefined without signing keys. Never the key.
   */
  readonly signer: JwtSigner | undefined;
  /**
   * The user of the request's full login, its token by the rules of the `auth` middleware (refresh,
   * validator, revocation), for provider routes that manage a user's credentials (adding a passkey):
   * a thrown AuthError 401 without a token, 403 `full_login_required` for basic auth or a token the app
   * minted, since a credential that did not pass every factor must not add or remove one.
   */
  sessionUser(this: void, ctx: Context): Promise<User>;
  /**
   * The request's full login by the same rule as sessionUser, with its token's claims (`sid`, `auth_time`,
   * `amr`): for routes that need a recent login (`requireFresh`) or to keep the request's own session.
   */
  loginSession(this: void, ctx: Context): Promise<{ user: User; claims: Claims }>;
  /**
   * Call after the request's user added or removed a credential (a passkey): their other sessions end,
   * unless the app set `endOtherSessionsOnFactorChange: false`; this one goes on.
   */
  factorChanged(this: void, ctx: Context): Promise<void>;
  /** The avatar proxy, for a kind that holds a picture's bytes rather than its URL (`putContent`, Telegram). */
  readonly avatarProxy: AvatarProxy;
  /** The instance's connections: a provider's own store on the same database URI shares its pool. */
  readonly connections: ConnectionShare;
  /**
   * The instance's store policy (`storeCheckTimeout`, `startWithStoresDown`, `allowVolatileStores`): a
   * provider's own store is checked at start-up by it, and durable data refuses a memory store unless allowed.
   * Its `place` names the entry (`providers[1] (passkey): `).
   */
  readonly stores: StorePolicy;
  /**
   * What a configured feature offers the kinds built on it (Feature.provides), by its typed key: the `password` kind
   * asks for the accounts' service, the `oidc` kind for the session list. Undefined when no configured feature does.
   */
  featureService<T>(this: void, key: ServiceKey<T>): T | undefined;
}

/** The name of a capability a kind may ask for. */
export type ProviderCapability = keyof ProviderCapabilities;

/** What `create` gets: the login context and the capabilities `N` the kind named in `needs`. */
export type ProviderDepsWith<N extends ProviderCapability> = ProviderDeps & Pick<ProviderCapabilities, N>;

export type { JwtSigner } from '../../session/signer.js';

/**
 * How a kind of provider is made. Register third-party kinds with registerProvider(). `N` names the
 * capabilities it needs; TypeScript infers it from `needs`.
 */
export interface ProviderModule<O extends ProviderOptions = ProviderOptions, N extends ProviderCapability = never> {
  readonly kind: string;
  /**
   * Every option an entry of this kind may have (`kind` and `name` included). When given, any other
   * key fails start-up naming it and the closest known one; without it, entries are not checked.
   */
  readonly options?: readonly string[];
  /**
   * The capabilities its providers use (ProviderCapabilities), by name: `create` gets exactly these beside
   * the login context. An unknown name fails start-up naming the known ones.
   */
  readonly needs?: readonly N[];
  /**
   * Validates `opts` (throw a TypeError naming the option) and builds the provider; may be async (start a server, load
   * a package).
   */
  create(opts: O, deps: ProviderDepsWith<N>): Provider | Promise<Provider>;
}

/**
 * What the service hands the kinds (providerDeps() in deps.ts): the login context every provider gets, and
 * the capabilities a kind gets only when it names them in `needs` (ProviderRegistry picks them).
 */
export interface KindDeps {
  readonly context: ProviderDeps;
  readonly capabilities: ProviderCapabilities;
}

/** Any kind, whatever it needs: what the kind table holds. */
export type AnyProviderModule = ProviderModule<ProviderOptions, ProviderCapability>;

export type { Provider, ProviderEntry, ProviderOptions, SecondFactor } from './provider.js';
