import type { FeatureModule } from '../features/contract.js';
import type { IdentifiedLogin } from '../session/login.js';
import type { Mfa } from './service.js';

/** What `auth.features.get('mfa')` and `auth.mfa` offer: a user's factors, and their removal after a lost phone. */
export type MfaAdmin = Pick<Mfa, 'status' | 'reset'>;

/**
 * The second factor (docs/mfa.md) as a feature: its routes under `<authRoutePath>/mfa`, its gate in every
 * login (the last one), its OpenAPI part. `mfa` is the loader of load.ts: the code itself is imported only
 * because the option is set.
 */
export function mfaFeature(mfa: Mfa, jwtCookieName: string): FeatureModule {
  return {
    name: 'mfa',
    prefix: '/mfa',
    create: () => ({
      routes: mfa.routes,
      // The built-in gate is handed the whole login, as completeLogin builds it.
      gate: (ctx, login) => mfa.gate.intercept(ctx, login as IdentifiedLogin),
      openapi: async () => {
        const [{ mfaPaths }, { partialCookieName }] = await Promise.all([
          import('./openapi.js'),
          import('./partial.js'),
        ]);
        const cookie = {
          type: 'apiKey',
          in: 'cookie',
          name: partialCookieName(jwtCookieName),
          description: 'a login whose second step is due',
        };
        return { paths: mfaPaths(''), securitySchemes: { mfaPending: cookie } };
      },
      admin: {
        status: (userId: string) => mfa.status(userId),
        reset: (userId: string) => mfa.reset(userId),
      } satisfies MfaAdmin,
      start: () => mfa.start(),
      close: () => mfa.close(),
    }),
  };
}
