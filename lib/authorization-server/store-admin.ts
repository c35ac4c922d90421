import type { StateStore } from '../state/types.js';
import { serverAdmin, type AdminClients, type AuthorizationServerAdmin } from './admin.js';
import { isRegisteredClientId, registeredClients } from './clients/registry.js';
import { grantStore } from './grant-store.js';

/**
 * The authorization server's admin API over the apps' state store, from a process that does not serve them
 * (`authctl oauth`): the same grants and registered clients the apps keep there, changed as they change them. What
 * it cannot know without the apps' options: their `authorizationServer.clients` (not in the store, so not listed,
 * and not refused by `clients.revoke`) and their listeners, so no `grant_revoked` is told: the refresh tokens of a
 * revoked grant are refused at once, its access tokens live until they expire (`accessTokenTTL`).
 */
export function storeAdmin(state: StateStore, clock: () => number = Date.now): AuthorizationServerAdmin {
  // Only a revocation's mark of a family with no entry left lasts refreshTTLMs (families.ts); a family that is there
  // keeps its mark as long as it would have lived. The defaults of the option serve; this process issues nothing.
  const grants = grantStore(state, { codeTTLMs: 60_000, refreshTTLMs: 30 * 86_400_000, clock });
  // The cap bounds registrations, which happen in the apps; this process only reads and removes.
  const registry = registeredClients(state, clock, Number.MAX_SAFE_INTEGER);
  // Any other id (a metadata document's URL, an id of the options) is no key of the registry: not looked up.
  const clients: AdminClients = {
    find: async (id) => (isRegisteredClientId(id) ? (await registry.get(id))?.client : undefined),
    list: async () => (await registry.list()).map((s) => s.client),
    revoke: async (id) => isRegisteredClientId(id) && (await registry.remove(id)),
  };
  return serverAdmin(grants, clients);
}
