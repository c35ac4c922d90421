import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import { TOKEN_ERRORS } from './errors.js';
import { TOKEN_EVENTS } from './events.js';
import type { PersonalTokensConfig } from './options.js';

/** What the personal tokens ask of the instance (index.ts `needs`). */
export const TOKENS_NEEDS = ['strictRevocation', 'providers'] as const;
export type PersonalTokensCapabilities = Pick<FeatureCapabilities, (typeof TOKENS_NEEDS)[number]>;

/**
 * Personal access tokens (docs/accounts.md#personal-access-tokens) as a feature: its routes under
 * `<authRoutePath>/tokens`, its credential (`Authorization: Bearer <token>` on the application's routes), its
 * admin API (`auth.tokens.list/revoke`), its error codes and events; a deleted account's tokens go with it, and so
 * do a reset one's (credentialsRevoked). Built on the public feature contract alone. Its code loads only when
 * `tokens` is set.
 */
export function personalTokensFeature(config: PersonalTokensConfig, has: PersonalTokensCapabilities): FeatureModule {
  return {
    name: 'tokens',
    prefix: '/tokens',
    errors: TOKEN_ERRORS,
    events: TOKEN_EVENTS,
    async create(_options, context) {
      const [{ personalTokens }, { tokenRoutes }] = await Promise.all([import('./service.js'), import('./routes.js')]);
      const tokens = personalTokens(config, context, {
        strictRevocation: has.strictRevocation,
        providers: has.providers,
      });
      return {
        routes: tokenRoutes(tokens, config, context),
        credential: tokens.credential,
        admin: tokens.admin,
        openapi: async () => (await import('./openapi.js')).tokensOpenAPI(config),
        userDeleted: (userId) => tokens.userDeleted(userId),
        credentialsRevoked: (userId, reason) => tokens.credentialsRevoked(userId, reason),
        close: () => Promise.resolve(tokens.close()),
      };
    },
  };
}
