/**
 * The contract of a provider kind: what a provider may use (ProviderDeps) and how a kind is made from
 * its options (ProviderModule). The Provider it makes is declared in provider.ts. A kind written
 * outside the package has exactly this, through the main entry's exports.
 */
import type { Tracing } from '../../telemetry/types.js';
import type { EventSink } from '../../events/bus.js';
import type { Context } from 'koa';
import type { Provider, ProviderOptions } from './provider.js';
import type { AvatarProxy } from '../../avatar/types.js';
import type { Logger } from '../../logger.js';
import type { ConnectionShare } from '../../util/connections.js';
import type { StorePolicy } from '../../util/store-policy.js';
import type { CompletedLogin } from '../../session/login.js';
import type { JwtSigner } from '../../session/signer.js';
import type { TokenService } from '../../session/token-service.js';
import type { Limiter } from '../../state/limiter.js';
import type { StateStore } from '../../state/types.js';
import type { CredentialThrottle } from '../../state/throttle.js';
import type { User } from '../../user.js';

/**
 * Everything a provider may use: the token service, the avatar saver, the logger, the URL, the clock
 * and the body reader; never the secrets or the other options. Providers reach tokens and avatars only
 * through this.
 */
export interface ProviderDeps {
  readonly tokenService: TokenService;
  readonly avatarProxy: AvatarProxy;
  readonly logger: Logger;
  /** Public base URL, no trailing slash. */
  readonly url: string;
  /** The service's clock, ms since the epoch (the `clock` option; Date.now by default). */
  readonly clock: () => number;
  /**
   * The service-wide state store (the `stateStore` option): for state that must hold across processes.
   * A backend failure rejects with AuthError 503 `state_store_unavailable` (its cause is logged when it is answered).
   */
  readonly stateStore: StateStore;
  /**
   * The instance's OpenTelemetry, recording nothing unless it is installed and on: a kind's outbound
   * calls go through `request(url, { tracing: { tracing, what } })` (lib/http/client.ts) to be client spans.
   */
  readonly tracing: Tracing;
  /** The instance's events: a kind tells what only it sees (`passkey_added`, `passkey_removed`). */
  readonly events: EventSink;
  /** The instance's connections: a provider's own store on the same database URI shares its pool. */
  readonly connections: ConnectionShare;
  /**
   * The instance's store policy (`storeCheckTimeout`, `startWithStoresDown`, `allowVolatileStores`): a
   * provider's own store is checked at start-up by it, and durable data refuses a memory store unless allowed.
   */
  readonly stores: StorePolicy;
  /** Rate limits counted in the service-wide state store. Prefix keys with the provider's name. */
  readonly limiter: Limiter;
  /**
   * Failed-login throttling for credentials checked under `scope` (the provider's name), per the
   * `loginThrottle` option, counted in the service-wide state store; undefined when it is turned off.
   */
  throttle(scope: string): CredentialThrottle | undefined;
  /**
   * Checks a user's credentials through `throttle(scope)`, as `direct` does: reserved before `check`
   * runs, 429 with Retry-After while locked out, 403 `bad_credentials` when `check` is not true, 500
   * `checker_failed` when it throws; resolves when the credentials are good.
   */
  checkCredentials(ctx: Context, scope: string, user: string, check: () => boolean | Promise<boolean>): Promise<void>;
  /**
   * The user of the request's full login, its token by the rules of the `auth` middleware (refresh,
   * validator, revocation), for provider routes that manage a user's credentials (adding a passkey):
   * a thrown AuthError 401 without a token, 403 `full_login_required` for basic auth or a token the app
   * minted, since a credential that did not pass every factor must not add or remove one.
   */
  sessionUser(ctx: Context): Promise<User>;
  /**
   * `<provider>_<sha1(raw)>`, the user id a provider builds from its raw id (the original's HashID with
   * `keepHashedIds`).
   */
  userId(this: void, provider: string, raw: string): string;
  /** The session cookie's name (a provider's own cookies derive theirs from it) and whether cookies are Secure. */
  readonly cookies: { readonly name: string; readonly secure: boolean };
  /** The absolute URL of `<authRoutePath>/<provider>/<action>`, e.g. for a webhook or a redirect URI. */
  routeURL(provider: string, action: string): string;
  /** Issues the session for an identified user: avatar, hooks, cookies, then a redirect or the User JSON. */
  completeLogin(ctx: Context, login: CompletedLogin): Promise<void>;
  /** `<url>` + the request's full path with its last segment replaced by `callback` (any mount prefix works). */
  callbackURL(ctx: Context): string;
  /** The absolute URL to redirect to after login when `from` passes the redirect policy, else undefined. */
  safeRedirect(from: string | undefined): string | undefined;
  /** The `session`/`sess` flag of a login request: any value but "0" asks for session-only cookies. */
  sessionOnly(ctx: Context): boolean;
  /** Parses a JSON or form body (or the query for GET) capped at `limit` bytes; 413/400 AuthErrors. */
  readParams(ctx: Context, limit?: number): Promise<Record<string, string>>;
  /**
   * The `session` (or the original's `sess`) flag of parsed login parameters: true/false when given, else undefined.
   */
  sessionFlag(params: Record<string, unknown>): boolean | undefined;
  /** The value of the request cookie `name`, '' when it is absent (a kind's own cookie, e.g. a handshake). */
  readCookie(ctx: Context, name: string): string;
  /** A fresh random id (160 bits, hex): for states, nonces, one-time codes and token ids. */
  randomId(): string;
  /** Ends a logout: both session cookies cleared (and the session revoked), 200 with an empty body. */
  endSession(ctx: Context): void;
  /**
   * Call after the request's user added or removed a credential (a passkey): their other sessions end,
   * unless the app set `endOtherSessionsOnFactorChange: false`; this one goes on.
   */
  factorChanged(ctx: Context): Promise<void>;
  /**
   * Signs tokens with the service's current signing key (the `signing` option), for parties that verify
   * them by its public keys (the local server's id_tokens); undefined without signing keys.
   */
  readonly signer: JwtSigner | undefined;
}

export type { JwtSigner } from '../../session/signer.js';

/** How a kind of provider is made. Register third-party kinds with registerProvider(). */
export interface ProviderModule<O extends ProviderOptions = ProviderOptions> {
  readonly kind: string;
  /**
   * Every option an entry of this kind may have (`kind` and `name` included). When given, any other
   * key fails start-up naming it and the closest known one; without it, entries are not checked.
   */
  readonly options?: readonly string[];
  /**
   * Validates `opts` (throw a TypeError naming the option) and builds the provider; may be async (start a server, load
   * a package).
   */
  create(opts: O, deps: ProviderDeps): Provider | Promise<Provider>;
}

export type { Provider, ProviderEntry, ProviderOptions, SecondFactor } from './provider.js';
