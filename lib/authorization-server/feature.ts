import type { FeatureModule } from '../features/contract.js';
import { SERVER_EVENTS } from './events.js';
import { ANY_SITE, FORM_POSTED, SITE_DOCUMENTS } from './places.js';
import type { ServerCapabilities } from './parts.js';
import type { AuthorizationServerConfig } from './options.js';

/**
 * The app as an OAuth 2.1 authorization server (docs/authorization-server.md) as a feature: its endpoints under
 * `<authRoutePath>/oauth2/`, its metadata at the site root. Codes, refresh tokens, consents and registered clients
 * live in the state store, so every process of the app is the same server. Its code loads only when the option is
 * set.
 */
export function authorizationServerFeature(config: AuthorizationServerConfig, has: ServerCapabilities): FeatureModule {
  return {
    name: 'authorization-server',
    prefix: '/oauth2',
    siteWellKnown: SITE_DOCUMENTS,
    anySite: [...ANY_SITE, ...FORM_POSTED],
    events: SERVER_EVENTS,
    async create(_options, context) {
      const { startServer } = await import('./server.js');
      return startServer(config, has, context);
    },
  };
}
