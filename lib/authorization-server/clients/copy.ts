import type { OAuthClient } from './types.js';

/** A client of its own for the caller: what the store holds may be frozen, or shared. */
export function copyClient(c: OAuthClient): OAuthClient {
  return {
    ...c,
    redirectURIs: [...c.redirectURIs],
    grantTypes: [...c.grantTypes],
    ...(c.scopes && { scopes: [...c.scopes] }),
    ...(c.resources && { resources: [...c.resources] }),
  };
}
