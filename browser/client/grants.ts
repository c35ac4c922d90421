/**
 * The client's calls for the user's connected apps (the server's `authorizationServer` option,
 * docs/authorization-server.md): the apps and agents holding a grant of theirs, listed and disconnected by a
 * logged-in session. Each speaks the JSON of `/auth/oauth2/grants`.
 */
import { expect } from './login.js';
import type { ConnectedApp } from './schema.js';
import type { Transport } from './transport.js';

/** What every grant call may take: a signal that aborts its request. */
export interface GrantCallOptions {
  signal?: AbortSignal;
}

export function grantCalls(t: Transport, authPath: string) {
  const path = `${authPath}/oauth2/grants`;
  return {
    /** The apps holding a grant of the user's, newest use first: scopes, resources, first and last use. */
    async list(o: GrantCallOptions = {}): Promise<ConnectedApp[]> {
      return expect(await t.request('GET', path, { signal: o.signal }), t.url(path), Array.isArray, 'a list');
    },
    /** Disconnects an app: every token of that client for the user is revoked (`not_found` when it holds none). */
    async revoke(clientId: string, o: GrantCallOptions = {}): Promise<void> {
      if (typeof clientId !== 'string' || clientId === '')
        throw new TypeError('grants.revoke(clientId): clientId must be a client id string (as grants.list() gives)');
      await t.request('DELETE', `${path}/${encodeURIComponent(clientId)}`, { signal: o.signal });
    },
  };
}
