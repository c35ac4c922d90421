import type { EventSink } from '../events/bus.js';
import type { ConnectionShare } from '../util/connections.js';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../logger.js';
import { safeRedirect } from '../http/redirect.js';
import { randomId } from '../session/claims.js';
import type { SecondFactor } from '../providers/core/provider.js';
import type { LoginConfig, SecondStepGate, SessionStarter } from '../session/login.js';
import type { TokenService } from '../session/token-service.js';
import { sharedState } from '../state/shared.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { StateStore } from '../state/types.js';
import type { SessionOf } from '../session/fresh.js';
import { mfaAdmin, type MfaAdmin } from './admin.js';
import { Factors } from './factors.js';
import { mfaGate } from './gate.js';
import { isFactorStore, type MfaConfig } from './options.js';
import { partialCookieName, PartialLogins } from './partial.js';
import { mountMfaRoutes } from './routes.js';
import { sealKeys } from './seal.js';
import { stateFactorStore, type FactorStore } from './store.js';
import type { StorePolicy } from '../util/store-policy.js';

/** The second factor of one service (the `mfa` option), as its feature (feature.ts) serves it. */
export interface Mfa {
  /** Stands between every first factor and the session. */
  readonly gate: SecondStepGate;
  /** Answers the `<authRoutePath>/mfa…` requests the auth router hands it (404 for a path it does not know). */
  readonly routes: Middleware;
  /** A user's factors and their removal (a lost phone), for the application's own pages: `auth.mfa`. */
  readonly admin: MfaAdmin;
  /** Opens the factor store (a start-up error names `mfa.store`). */
  start(): Promise<void>;
  /** Closes the factor store when it was opened from a URI. */
  close(): Promise<void>;
}

/** The service options the second factor reads besides `mfa` (a slice of the resolved options). */
export interface MfaServiceConfig extends LoginConfig {
  origin: string;
  authRoutePath: string;
  issuer: string;
  jwtCookieName: string;
  secureCookies: boolean;
  clock: () => number;
  logger: Logger;
}

/** What the second factor takes from the running service. */
export interface MfaRuntime {
  /** The instance's connections: `mfa.store` on the state store's database URI shares its pool. */
  connections: ConnectionShare;
  /** The instance's store policy: how long start-up waits for `mfa.store`, and whether it may be down. */
  stores: StorePolicy;
  /** The instance's events: `mfa_changed`, `mfa_failed`. */
  events: EventSink;
  tokens: TokenService;
  /** Starts the session of a login whose second step passed, as any login's. */
  startSession: SessionStarter;
  /** The service's state store: spent TOTP steps and partial logins. */
  state: StateStore;
  /** The request's full-login session, with its claims (Authenticator.loginSession). */
  session: (ctx: Context) => Promise<SessionOf>;
  /** The throttle failed codes count in (the passwords' policy, scope `mfa`). */
  throttle: CredentialThrottle | undefined;
  /** The second factors the configured providers offer, by provider name. */
  secondFactors: () => Array<{ provider: string; factor: SecondFactor }>;
  /** After the user's factors changed: their sessions but `keep` (a sid) end, per endOtherSessionsOnFactorChange. */
  factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
}

/** Builds the second factor from its checked options; nothing is opened until start(). */
export function createMfa(config: MfaConfig, o: MfaServiceConfig, run: MfaRuntime): Mfa {
  const own = isFactorStore(config.store)
    ? undefined
    : sharedState(config.store, {
        clock: o.clock,
        option: 'mfa.store',
        connections: run.connections,
        policy: run.stores,
      });
  const store: FactorStore = own ? stateFactorStore(own.store) : (config.store as FactorStore);
  const factors = new Factors({
    store,
    seal: sealKeys(config.secret, config.previousSecrets),
    state: run.state,
    window: config.window,
    clock: o.clock,
  });
  const partials = new PartialLogins(
    {
      secret: config.secret,
      previousSecrets: config.previousSecrets,
      partialMs: config.partialMs,
      issuer: o.issuer,
      cookieName: partialCookieName(o.jwtCookieName),
      cookiePath: `${o.authRoutePath}/mfa`,
      secure: o.secureCookies,
      clock: o.clock,
      randomId,
    },
    run.state,
  );
  const safe = (from: string | undefined) => safeRedirect(from, o.url, o.allowedRedirects);
  const gate = mfaGate({ config, factors, partials, secondFactors: run.secondFactors, safeRedirect: safe, url: o.url });
  const router = new Router({ prefix: o.authRoutePath });
  mountMfaRoutes(router, {
    ...run,
    config,
    factors,
    partials,
    login: o,
    clock: o.clock,
    origin: o.origin,
    authRoutePath: o.authRoutePath,
    safeRedirect: safe,
  });
  return {
    gate,
    routes: router.routes() as unknown as Middleware,
    admin: mfaAdmin(store),
    start: async () => own?.start(),
    close: async () => own?.close(),
  };
}
