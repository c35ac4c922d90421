import type { Context } from 'koa';
import { createAvatarProxy, type AvatarProxyImpl } from '../avatar/proxy.js';
import { createEvents, type InstanceEvents } from '../events/instance.js';
import { loginEvent } from '../events/session-events.js';
import { toAuthError } from '../errors.js';
import { FeatureCredentials } from '../session/feature-credentials.js';
import { FeatureHooks } from '../features/hooks.js';
import { FeatureSet } from '../features/set.js';
import { PendingAppErrors } from '../http/pending-errors.js';
import type { ResolvedOptions } from '../options/resolved.js';
import { ProviderRegistry } from '../providers/core/resolve.js';
import type { Authenticator } from '../session/authenticator.js';
import type { SessionOf } from '../session/fresh.js';
import { startSession, type SessionStarter } from '../session/login.js';
import { revocations, type Revocations } from '../session/revocation.js';
import { RevocationWatch } from '../session/revocation-watch.js';
import { TokenService } from '../session/token-service.js';
import { sharedState, type SharedState } from '../state/shared.js';
import type { CredentialThrottle } from '../state/throttle.js';
import { throttlesPerScope } from '../state/throttles.js';
import { InstanceTelemetry } from '../telemetry/instance.js';
import { ConnectionShare } from '../util/connections.js';
import { storePolicy, type StorePolicy } from '../util/store-policy.js';

/**
 * The parts every instance is made of, before any provider or feature: what authKoa() (service.ts) wires
 * the providers, the features and the routes to. Each is made from the resolved options alone.
 */
export interface CoreParts {
  /** OpenTelemetry when installed and on (found at start-up); until then, and without it, nothing is recorded. */
  telemetry: InstanceTelemetry;
  tokenService: TokenService;
  /** Stores of this instance on one database URI share a pool (PostgreSQL); closed with the last of them. */
  connections: ConnectionShare;
  /** A store failure the app starts with waits here for its Koa app. */
  pending: PendingAppErrors;
  /** How the stores are checked at start-up. */
  stores: StorePolicy;
  avatarProxy: AvatarProxyImpl;
  state: SharedState;
  events: InstanceEvents;
  throttle: (scope: string) => CredentialThrottle | undefined;
  /** Ended tokens and sessions. */
  revocations: Revocations;
  /**
   * The revocation channel (revocation-watch.ts) when the state store has a broadcast and revocation is not
   * strict; started with the service.
   */
  watch: RevocationWatch | undefined;
  /** What the login, the refresh and the logout tell the features: filled as FeatureSet.start() creates them. */
  hooks: FeatureHooks;
  /**
   * The credentials features accept besides the session (personal tokens): filled as FeatureSet.start() creates
   * them.
   */
  credentials: FeatureCredentials;
  providers: ProviderRegistry;
}

export function coreParts(o: ResolvedOptions): CoreParts {
  const telemetry = new InstanceTelemetry();
  const connections = new ConnectionShare();
  const pending = new PendingAppErrors();
  const stores = storePolicy(o, pending);
  const avatarProxy = createAvatarProxy({
    ...o.avatarProxyOptions,
    ...{ connections, tracing: telemetry, store: o.avatarStore, url: o.url, routePath: o.avatarRoutePath },
    ...{ resizeLimit: o.avatarResizeLimit, allowPrivate: o.avatarAllowPrivate, logger: o.logger, policy: stores },
  });
  const state = sharedState(o.stateStore, {
    clock: o.clock,
    option: 'stateStore',
    connections,
    tracing: telemetry,
    policy: stores,
  });
  const events = createEvents(o, FeatureSet.eventTypes(o.features));
  const throttle = throttlesPerScope(state, o.loginThrottle, o.clock, events.bus);
  const keepMs = Math.max(o.cookieDurationMs, o.tokenDurationMs);
  const ended = revocations(state.store, o.clock, keepMs, o.tokenDurationMs);
  const channel = o.strictRevocation ? undefined : state.store.broadcast;
  const watch = channel && new RevocationWatch(channel, ended, o.clock, o.tokenDurationMs, o.logger);
  const hooks = new FeatureHooks(o.logger);
  const credentials = new FeatureCredentials();
  const tokenService = new TokenService(o, telemetry);
  const providers = new ProviderRegistry();
  return {
    telemetry,
    tokenService,
    connections,
    pending,
    stores,
    avatarProxy,
    state,
    events,
    throttle,
    revocations: ended,
    watch,
    hooks,
    credentials,
    providers,
  };
}

/** How a login becomes a session, and how a route finds the request's full login: what providers and features call. */
export interface SessionParts {
  /** Starts the session of an identified login and tells the `login` event. */
  begin: SessionStarter;
  /** The request's full login (never basic auth: full-login.ts); rejects until the authenticator is set. */
  session: (ctx: Context) => Promise<SessionOf>;
  /** The same for a top-level GET navigation from this site, without the XSRF header (navigationSession). */
  navigationSession: (ctx: Context) => Promise<SessionOf>;
  /** The same from the session cookie alone, whatever the request's site (cookieSession). */
  cookieSession: (ctx: Context) => Promise<SessionOf>;
  /** After a credential change of `userId`: their other sessions end (endOtherSessionsOnFactorChange). */
  factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
  /**
   * Ends every session of `userId` issued up to now but `keep` (a sid), in every process sharing the
   * store (`auth.revokeSessions`); the features hear it, then the `session_revoked` listeners.
   */
  endSessions: (userId: string, keep: string | undefined) => Promise<void>;
  /** Hands over the authenticator, made once the providers' deps exist. */
  authenticate(users: Authenticator): void;
}

export function sessionParts(o: ResolvedOptions, core: CoreParts): SessionParts {
  const { tokenService, hooks, providers, events } = core;
  let users: Authenticator | undefined;
  const endSessions = async (userId: string, keep: string | undefined) => {
    await core.revocations.revokeUser(userId, keep);
    await hooks.revoked(userId, keep);
    events.bus.emit('session_revoked', keep === undefined ? { userId } : { userId, keptSid: keep });
  };
  return {
    async begin(ctx, login) {
      const claims = await startSession(ctx, login, tokenService, hooks);
      const provider = providers.get(login.provider);
      loginEvent(events.bus, ctx, provider?.kind ?? 'custom', claims);
      // The provider hears of the session its login started (the oidc kind's back-channel logout records it).
      await provider?.sessionStarted?.(ctx, claims, o.maxSessionAgeMs).catch((err: unknown) => {
        const { code } = toAuthError(err);
        const fields = { provider: login.provider, code, userId: claims.user?.id };
        o.logger.warn(`${login.provider}: sessionStarted failed: ${(err as Error)?.message ?? err}`, fields);
      });
      return claims;
    },
    session: (ctx) => (users ? users.loginSession(ctx) : Promise.reject(new Error('not ready'))),
    navigationSession: (ctx) => (users ? users.navigationSession(ctx) : Promise.reject(new Error('not ready'))),
    cookieSession: (ctx) =>
      users ? users.navigationSession(ctx, undefined, true) : Promise.reject(new Error('not ready')),
    factorChanged: (userId, keep) => (o.endOtherSessionsOnFactorChange ? endSessions(userId, keep) : Promise.resolve()),
    endSessions,
    authenticate: (made) => void (users = made),
  };
}
