import type { Context } from 'koa';
import type { EventSink } from '../events/bus.js';
import type { FeatureModule } from '../features/contract.js';
import type { SecondFactor } from '../providers/core/provider.js';
import type { SessionOf } from '../session/fresh.js';
import type { IdentifiedLogin, SessionStarter } from '../session/login.js';
import type { TokenService } from '../session/token-service.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { StateStore } from '../state/types.js';
import type { ConnectionShare } from '../util/connections.js';
import type { StorePolicy } from '../util/store-policy.js';
import { MFA_ERRORS } from './errors.js';
import type { MfaConfig } from './options.js';
import type { MfaServiceConfig } from './service.js';

/**
 * The instance's parts the second factor is made of, as the feature table hands them to the built-in
 * features (core/parts.ts: `core` and `login`): more than a feature's public context, which never carries
 * the token service or the session starter.
 */
export interface MfaParts extends MfaServiceConfig {
  core: {
    connections: ConnectionShare;
    stores: StorePolicy;
    tokenService: TokenService;
    state: { store: StateStore };
    events: { bus: EventSink };
    /** The instance's failed-login throttle of each scope. */
    throttle: (scope: string) => CredentialThrottle | undefined;
    providers: { secondFactors(): Array<{ provider: string; factor: SecondFactor }> };
  };
  login: {
    begin: SessionStarter;
    session: (ctx: Context) => Promise<SessionOf>;
    factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
  };
}

/** The event types the second factor emits (their fields: events.ts), in the order docs/events.md lists them. */
export const MFA_EVENTS = ['mfa_changed', 'mfa_failed'] as const;

/**
 * The second factor (docs/mfa.md) as a feature: its routes under `<authRoutePath>/mfa`, its gate in every
 * login (the last one), its OpenAPI part, its error codes and events, its admin API (`auth.mfa`). Its code
 * (lib/mfa/service.ts and what it imports, `uqr` for QR codes) is loaded by create(), at start-up, only
 * when the `mfa` option is set.
 */
export function mfaFeature(config: MfaConfig, p: MfaParts): FeatureModule {
  return {
    name: 'mfa',
    prefix: '/mfa',
    errors: MFA_ERRORS,
    events: MFA_EVENTS,
    async create() {
      const [{ createMfa }, { mfaThrottle }] = await Promise.all([import('./service.js'), import('./throttle.js')]);
      const { core, login } = p;
      const mfa = createMfa(config, p, {
        ...{ connections: core.connections, stores: core.stores, tokens: core.tokenService },
        ...{ state: core.state.store, events: core.events.bus, secondFactors: () => core.providers.secondFactors() },
        ...{ startSession: login.begin, session: login.session, factorChanged: login.factorChanged },
        throttle: mfaThrottle(core.state.store, core.throttle, p.clock, core.events.bus),
      });
      return {
        routes: mfa.routes,
        // The built-in gate is handed the whole login, as completeLogin builds it.
        gate: (ctx, attempt) => mfa.gate.intercept(ctx, attempt as IdentifiedLogin),
        openapi: async () => (await import('./openapi.js')).mfaOpenAPI(p.jwtCookieName),
        admin: mfa.admin,
        // A deleted account's secret and recovery codes go with it.
        userDeleted: async (userId) => void (await mfa.admin.clear(userId)),
        start: () => mfa.start(),
        close: () => mfa.close(),
      };
    },
  };
}
