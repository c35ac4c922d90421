import { builtIn } from '../features/built-in.js';
import { SERVER_EVENTS } from './events.js';
import { authorizationServerFeature } from './feature.js';
import { SERVER_NEEDS } from './parts.js';
import { readAuthorizationServerOptions, type AuthorizationServerConfig } from './options.js';

/** The app as an OAuth 2.1 authorization server, with the `authorizationServer` option: the feature table's row. */
export const authorizationServer = builtIn({
  name: 'authorization-server',
  option: 'authorizationServer',
  read: (input, context): AuthorizationServerConfig | undefined =>
    readAuthorizationServerOptions(input, { ...context, signing: context.isSet('signing') }),
  events: SERVER_EVENTS,
  shortcut: ['clients.list', 'clients.revoke', 'grants.list', 'grants.revoke'],
  shortcutMember: 'authorizationServer',
  needs: SERVER_NEEDS,
  module: (config: AuthorizationServerConfig, has) => authorizationServerFeature(config, has),
});
