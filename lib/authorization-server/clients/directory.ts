import { authenticateClient, secretDigest } from './authenticate.js';
import { metadataDocuments } from './cimd.js';
import { copyClient } from './copy.js';
import { redirectMatches } from './redirect-uris.js';
import { registeredClients } from './registry.js';
import { registrationEndpoint } from './registration.js';
import type { ClientConfig, ClientDirectory, ClientDirectoryDeps, OAuthClient } from './types.js';

/**
 * Who the clients are, in one place for the authorization server's endpoints: those of the options, those
 * described by a Client ID Metadata Document (an https URL as client_id), and those registered dynamically (kept in
 * the state store, so a second process finds them). What is handed out is the caller's own copy, never a secret.
 */
export function clientDirectory(config: ClientConfig, deps: ClientDirectoryDeps): ClientDirectory {
  const registry = registeredClients(deps.state, deps.clock, config.registrationLimits.maxClients);
  const documents =
    config.metadataDocuments &&
    metadataDocuments(
      {
        timeoutMs: config.metadataDocuments.timeoutMs,
        allowPrivate: config.allowPrivate,
        allowHttpRedirects: config.allowHttpRedirects,
      },
      deps,
    );
  const optionDigests = new Map(
    [...config.clients].flatMap(([id, { secret }]) => (secret === undefined ? [] : [[id, secretDigest(secret)]])),
  );
  if (config.registration && deps.state.volatile)
    deps.logger.warn(
      'authorization server: registered clients are kept in a memory state store and are lost when the process ' +
        'ends; set stateStore to a shared one (lmdb://, redis://, postgres://, mongodb://)',
    );

  async function find(clientId: string) {
    // Ids arrive from requests: anything but a usable string is no client.
    if (typeof clientId !== 'string' || clientId === '' || clientId.length > 2048) return undefined;
    const configured = config.clients.get(clientId);
    if (configured) return copyClient(configured.client);
    if (documents && clientId.startsWith('https://')) return documents.find(clientId);
    if (clientId.length > 512 || clientId.includes('\u0000')) return undefined; // not a key the store takes
    return (await registry.get(clientId))?.client;
  }

  async function digestOf(client: OAuthClient): Promise<Buffer | undefined> {
    if (client.source === 'options') return optionDigests.get(client.id);
    if (client.source !== 'registered') return undefined;
    const hash = (await registry.get(client.id))?.secretHash;
    return hash === undefined ? undefined : Buffer.from(hash, 'hex');
  }

  return {
    find,
    authenticate: (req) => authenticateClient(req, { find, secretDigest: digestOf }),
    register: registrationEndpoint(config, deps, registry),
    async list() {
      const configured = [...config.clients.values()].map(({ client }) => copyClient(client));
      return [...configured, ...(await registry.list()).map((s) => s.client)];
    },
    async revoke(clientId) {
      if (config.clients.has(clientId))
        throw new TypeError(
          `authKoa: client ${JSON.stringify(clientId)} is one of authorizationServer.clients: remove it there`,
        );
      if (typeof clientId !== 'string' || clientId === '' || clientId.length > 512) return false;
      return registry.remove(clientId);
    },
    redirectAllowed: (client, redirectURI) =>
      typeof redirectURI === 'string' && redirectMatches(client.redirectURIs, redirectURI),
  };
}
