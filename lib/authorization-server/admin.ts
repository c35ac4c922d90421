import type { ClientDirectory, OAuthClient } from './clients/index.js';
import type { GrantStore } from './grant-types.js';

/** One of a user's connected apps, as `GET <authRoutePath>/oauth2/grants` answers it. */
export interface ConnectedApp {
  clientId: string;
  /** The client's name; its id when it has none or is no longer known. */
  clientName: string;
  /** What its live grants allow together. */
  scopes: string[];
  resources: string[];
  /** When its oldest live grant was made, ISO 8601. */
  firstUsed: string;
  /** When one of its grants was last used (issued or refreshed), ISO 8601. */
  lastUsed: string;
}

/**
 * The authorization server's admin API (the `authorizationServer` option): `auth.authorizationServer`, also
 * `auth.features.get('authorization-server')`, for the application's own admin pages; `authctl oauth` runs the same
 * on the apps' state store. Every grant family it revokes is told as `grant_revoked` (`reason: 'revoked'`), which
 * reaches resource servers as the end of the session `sid`.
 */
export interface AuthorizationServerAdmin {
  readonly clients: {
    /**
     * The clients of `authorizationServer.clients`, then the registered ones (dynamic registration); never a secret.
     * Clients known by their metadata document are fetched when used and are not listed.
     */
    list(): Promise<OAuthClient[]>;
    /**
     * Removes a registered client and revokes every grant of it, whoever's; false when no client of that id is
     * registered and no grant of it is left. A client of `authorizationServer.clients` is a TypeError: remove it
     * there. A client known by its metadata document is not registered: false, its grants stay (each user's own).
     */
    revoke(clientId: string): Promise<boolean>;
  };
  readonly grants: {
    /** The user's connected apps, most recently used first. */
    list(userId: string): Promise<ConnectedApp[]>;
    /** Revokes every grant of the client for the user and forgets the consent; false when it held none. */
    revoke(userId: string, clientId: string): Promise<boolean>;
  };
}

/** What the admin API needs of the clients: the server's directory, or the registered clients alone (authctl). */
export type AdminClients = Pick<ClientDirectory, 'find' | 'list' | 'revoke'>;

/** The user's connected apps, each named by its client (its id when the client has no name or is gone). */
export async function listConnectedApps(
  grants: GrantStore,
  clients: Pick<ClientDirectory, 'find'>,
  userId: string,
): Promise<ConnectedApp[]> {
  return Promise.all(
    (await grants.listGrants(userId)).map(async (g) => {
      const client = await clients.find(g.clientId).catch(() => undefined);
      const name = client && !('error' in client) ? (client.name ?? client.id) : g.clientId;
      return {
        clientId: g.clientId,
        clientName: name,
        scopes: g.scopes,
        resources: g.resources,
        firstUsed: new Date(g.firstUsed).toISOString(),
        lastUsed: new Date(g.lastUsed).toISOString(),
      };
    }),
  );
}

/** An argument of the admin API checked: a TypeError naming the method and the argument otherwise. */
function text(value: unknown, method: string, name: string): string {
  if (typeof value !== 'string' || value === '')
    throw new TypeError(`authorizationServer.${method}() requires ${name} as a non-empty string`);
  return value;
}

export function serverAdmin(grants: GrantStore, clients: AdminClients): AuthorizationServerAdmin {
  return {
    clients: {
      list: () => clients.list(),
      async revoke(clientId) {
        const id = text(clientId, 'clients.revoke', 'clientId');
        // Removed first, so the client can no longer get tokens while its grants are being revoked.
        const removed = await clients.revoke(id);
        // Told as `grant_revoked` by the store's listener (server.ts), each family once.
        const revoked = await grants.revokeClient(id);
        return removed || revoked.length > 0;
      },
    },
    grants: {
      list: async (userId) => listConnectedApps(grants, clients, text(userId, 'grants.list', 'userId')),
      async revoke(userId, clientId) {
        const user = text(userId, 'grants.revoke', 'userId');
        const client = text(clientId, 'grants.revoke', 'clientId');
        return (await grants.revokeGrant(user, client)).length > 0;
      },
    },
  };
}
