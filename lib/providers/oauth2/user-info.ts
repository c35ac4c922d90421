import type { Provider, ProviderDeps } from '../core/contract.js';
import { createFlowProvider } from './flow.js';
import type { OAuthToken } from './options.js';
import type { Endpoints, FlowSpec, Identified } from './types.js';

/**
 * A provider whose user comes from one user-info URL read with the access token: the catalog's social
 * rows and custom `kind: 'oauth2'` providers. `toUser` turns that JSON (and the token) into the user.
 */
export function createUserInfoProvider(
  spec: Omit<FlowSpec, 'endpoints' | 'identify'>,
  ep: Required<Endpoints>,
  toUser: (data: Record<string, unknown>, token: OAuthToken) => Identified | Promise<Identified>,
  deps: ProviderDeps,
): Provider {
  return createFlowProvider(
    {
      ...spec,
      endpoints: () => Promise.resolve(ep),
      identify: async (token, _hs, io) => toUser(await io.userInfo(ep.infoURL, token), token),
    },
    deps,
  );
}
