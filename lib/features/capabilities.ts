import type { Context } from 'koa';
import type { AuthEventBus, EventSink } from '../events/bus.js';
import type { SecondFactor, Provider } from '../providers/core/provider.js';
import type { Claims } from '../session/claims.js';
import type { SessionOf } from '../session/fresh.js';
import type { LoginConfig, SessionStarter } from '../session/login.js';
import type { PublicJwk } from '../session/signing.js';
import type { JwtSigner } from '../session/signer.js';
import type { TokenService } from '../session/token-service.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { Tracing } from '../telemetry/types.js';
import type { ConnectionShare } from '../util/connections.js';
import type { StorePolicy } from '../util/store-policy.js';
import type { CredentialsRevokedReason } from './contract.js';

/**
 * What a built-in feature may ask of the instance beyond its FeatureContext, each by name in its `needs`
 * (built-in.ts), as a provider kind asks for its capabilities: core/feature-capabilities.ts builds the members
 * named and no other. None is a secret or holds one where `util.inspect` or `JSON.stringify` could reach it:
 * the signer keeps its key in a closure, the token service in private fields.
 */
export interface FeatureCapabilities {
  /** How long sessions and tokens live: what the session list keeps and for how long. */
  readonly sessionTimes: SessionTimes;
  /** Ends every session of a user issued up to now but `keep` (a sid): `auth.revokeSessions`, features told. */
  readonly endSessions: (userId: string, keep: string | undefined) => Promise<void>;
  /** After a credential change of a user: their other sessions end, per `endOtherSessionsOnFactorChange`. */
  readonly factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
  /** Tells one of authkoa's own events (`session_revoked`), not the feature's. */
  readonly coreEvents: EventSink;
  /** Every event of the instance as it is emitted, whoever emits it (webhooks, Shared Signals). */
  readonly eventTap: Pick<AuthEventBus, 'tap' | 'untap'>;
  /** The instance's OpenTelemetry, when installed and on. */
  readonly tracing: Tracing;
  /** The public keys of the `signing` option, the current one first; undefined without it. */
  readonly publicKeys: { keys: PublicJwk[] } | undefined;
  /** Signs JWTs with the `signing` key; undefined without `signing`. */
  readonly signer: JwtSigner | undefined;
  /** The `issuer` option. */
  readonly issuer: string;
  /** The session token service: the cookies of a session set or cleared, the token clock. */
  readonly tokens: TokenService;
  /** Starts the session of a login, as any login's (the second factor's second step). */
  readonly startSession: SessionStarter;
  /** The request's full login for a top-level GET navigation from this site, without the XSRF header. */
  readonly navigationSession: (ctx: Context) => Promise<SessionOf>;
  /**
   * The request's full login from the session cookie alone, from any site, without the XSRF header: only for routes
   * that defend themselves (the authorization server's authorization request and consent form).
   */
  readonly cookieSession: (ctx: Context) => Promise<SessionOf>;
  /** The claims of the token the request presents, checked by signature only, or undefined. */
  readonly presentedToken: (ctx: Context) => Promise<Claims | undefined>;
  /** The instance's failed-login throttle of a scope (the passwords' policy); undefined when off. */
  readonly throttle: (scope: string) => CredentialThrottle | undefined;
  /** The configured providers, read-only, once built; the second factors they offer. */
  readonly providers: ProviderView;
  /** The other features' hooks a feature may set off: a deleted account forgotten, a recovered one's credentials. */
  readonly featureHooks: FeatureHookCalls;
  /** A store of the feature's own: the instance's shared connections and how stores are checked at start-up. */
  readonly stores: { connections: ConnectionShare; policy: StorePolicy };
  /** The session cookie's name and whether cookies are Secure. */
  readonly cookies: { name: string; secure: boolean };
  /** `from` when it may be redirected to (`url`, `allowedRedirects`), else undefined. */
  readonly safeRedirect: (from: string | undefined) => string | undefined;
  /** The `strictRevocation` option: a revocation refuses tokens at once in every process. */
  readonly strictRevocation: boolean;
  /** How a login completes (the base URL, the redirects allowed, the postAuthHook): the second factor's step. */
  readonly loginConfig: LoginConfig;
}

/** The name of a capability a built-in feature may ask for. */
export type CapabilityName = keyof FeatureCapabilities;

/** The session times the options set (SessionListConfig's). */
export interface SessionTimes {
  cookieDurationMs: number;
  tokenDurationMs: number;
  maxSessionAgeMs: number | undefined;
  maxSessionsPerUser: number;
}

/** The configured providers as a feature sees them. */
export interface ProviderView {
  list(): Provider[];
  get(name: string): Provider | undefined;
  has(name: string): boolean;
  secondFactors(): Array<{ provider: string; factor: SecondFactor }>;
}

/** The hooks of every feature that a feature may set off (FeatureHooks). */
export interface FeatureHookCalls {
  userDeleted(userId: string): Promise<void>;
  credentialsRevoked(userId: string, reason: CredentialsRevokedReason): Promise<void>;
}
