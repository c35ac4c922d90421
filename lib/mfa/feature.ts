import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import type { IdentifiedLogin } from '../session/login.js';
import { MFA_ERRORS } from './errors.js';
import type { MfaConfig } from './options.js';

/** What the second factor asks of the instance (index.ts `needs`). */
export const MFA_NEEDS = [
  ...['issuer', 'cookies', 'loginConfig', 'stores', 'tokens', 'throttle', 'providers'],
  ...['startSession', 'factorChanged', 'coreEvents'],
] as const satisfies ReadonlyArray<keyof FeatureCapabilities>;
export type MfaCapabilities = Pick<FeatureCapabilities, (typeof MFA_NEEDS)[number]>;

/** The event types the second factor emits (their fields: events.ts), in the order docs/events.md lists them. */
export const MFA_EVENTS = ['mfa_changed', 'mfa_failed'] as const;

/**
 * The second factor (docs/mfa.md) as a feature: its routes under `<authRoutePath>/mfa`, its gate in every
 * login (the last one), its OpenAPI part, its error codes and events, its admin API (`auth.mfa`). Its code
 * (lib/mfa/service.ts and what it imports, `uqr` for QR codes) is loaded by create(), at start-up, only
 * when the `mfa` option is set.
 */
export function mfaFeature(config: MfaConfig, has: MfaCapabilities): FeatureModule {
  return {
    name: 'mfa',
    prefix: '/mfa',
    errors: MFA_ERRORS,
    events: MFA_EVENTS,
    async create(_options, context) {
      const [{ createMfa }, { mfaThrottle }] = await Promise.all([import('./service.js'), import('./throttle.js')]);
      const { clock, logger, stateStore: state } = context;
      const service = {
        ...has.loginConfig,
        ...{ origin: new URL(context.url).origin, authRoutePath: context.authRoutePath, issuer: has.issuer },
        ...{ jwtCookieName: has.cookies.name, secureCookies: has.cookies.secure, clock, logger },
      };
      // The instance's sink: the second factor's own events, and the lockout its throttle tells.
      const events = has.coreEvents;
      const mfa = createMfa(config, service, {
        ...{ connections: has.stores.connections, stores: has.stores.policy, tokens: has.tokens },
        ...{ state, events, secondFactors: () => has.providers.secondFactors() },
        ...{ startSession: has.startSession, session: (ctx) => context.session(ctx), factorChanged: has.factorChanged },
        throttle: mfaThrottle(state, has.throttle, clock, events),
      });
      return {
        routes: mfa.routes,
        // The built-in gate is handed the whole login, as completeLogin builds it.
        gate: (ctx, attempt) => mfa.gate.intercept(ctx, attempt as IdentifiedLogin),
        openapi: async () => (await import('./openapi.js')).mfaOpenAPI(has.cookies.name),
        admin: mfa.admin,
        // A deleted account's secret and recovery codes go with it.
        userDeleted: async (userId) => void (await mfa.admin.clear(userId)),
        start: () => mfa.start(),
        close: () => mfa.close(),
      };
    },
  };
}
