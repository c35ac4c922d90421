import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hitIn } from '../../state/limiter.js';
import { checkMetadata, type ClientMetadata } from './metadata.js';
import { newRegisteredClientId, type RegisteredClients, type StoredClient } from './registry.js';
import type { ClientConfig, ClientDirectoryDeps, OAuthClient } from './types.js';

/**
 * Dynamic Client Registration (RFC 7591), the endpoint's logic: off unless `registration` is set; open, or for
 * callers bearing the initial access token; counted per client address through the state store (so N processes
 * allow the limit once); the metadata checked; a confidential client's secret handed out once and kept only as
 * its hash. The endpoint's HTTP is the caller's: this answers a status, a JSON body and the headers to add.
 */

/** Where registration attempts are counted, per client address. */
export const REGISTER_LIMIT_NS = 'as-register';

export interface RegistrationAnswer {
  status: number;
  body: object;
  /** Headers to answer with: `Retry-After` (429), `WWW-Authenticate` (401). */
  headers?: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const oauthError = (status: number, error: string, description: string, headers?: Record<string, string>) => ({
  status,
  body: { error, error_description: description },
  ...(headers && { headers }),
});

export function registrationEndpoint(
  config: ClientConfig,
  deps: ClientDirectoryDeps,
  registry: RegisteredClients,
): (body: unknown, caller: { address: string; bearer?: string }) => Promise<RegistrationAnswer> {
  const mode = config.registration;
  const limits = config.registrationLimits;
  const tokenHash = mode && !mode.open ? sha256(mode.initialAccessToken) : undefined;

  return async (body, caller) => {
    if (!mode) return oauthError(403, 'access_denied', 'dynamic client registration is not enabled');
    // Every attempt counts, a refused token too: the limit is also what stops guessing the token.
    const address = typeof caller.address === 'string' && caller.address ? caller.address.slice(0, 200) : 'unknown';
    const key = [{ key: address, limit: limits.perAddress }];
    const wait = await hitIn(deps.state, REGISTER_LIMIT_NS, key, limits.windowMs, deps.clock);
    if (wait !== undefined) {
      const retryAfter = String(Math.max(1, Math.ceil(wait / 1000)));
      return oauthError(429, 'too_many_requests', 'too many registrations from this address', {
        'retry-after': retryAfter,
      });
    }
    // Hashes of equal length compared: the token's length is not told either.
    if (tokenHash && (caller.bearer === undefined || !timingSafeEqual(sha256(caller.bearer), tokenHash)))
      return oauthError(401, 'invalid_token', 'registration needs the initial access token', {
        'www-authenticate': 'Bearer error="invalid_token"',
      });
    const metadata = checkMetadata(body, {
      authMethods: ['none', 'client_secret_basic', 'client_secret_post'],
      defaultAuthMethod: 'client_secret_basic', // RFC 7591 §2
      allowHttpRedirects: config.allowHttpRedirects,
    });
    if ('error' in metadata) return oauthError(400, metadata.error, metadata.description);
    return store(metadata, address);
  };

  async function store(metadata: ClientMetadata, address: string): Promise<RegistrationAnswer> {
    const confidential = metadata.authMethod !== 'none';
    const secret = confidential ? randomBytes(32).toString('base64url') : undefined;
    const issuedAt = deps.clock();
    const client: OAuthClient = {
      id: newRegisteredClientId(),
      ...(metadata.name !== undefined && { name: metadata.name }),
      redirectURIs: metadata.redirectURIs,
      grantTypes: metadata.grantTypes,
      ...(metadata.scopes !== undefined && { scopes: metadata.scopes }),
      trusted: false,
      confidential,
      source: 'registered',
    };
    const stored: StoredClient = {
      client,
      ...(secret !== undefined && { secretHash: sha256(secret).toString('hex') }),
      authMethod: metadata.authMethod,
      applicationType: metadata.applicationType,
      responseTypes: metadata.responseTypes,
      issuedAt,
      expiresAt: issuedAt + limits.lifetimeMs,
    };
    if (!(await registry.add(stored))) {
      deps.logger.warn('authorization server: the registered clients are at registrationLimits.maxClients', {
        code: 'temporarily_unavailable',
      });
      return oauthError(503, 'temporarily_unavailable', 'no more clients can be registered now');
    }
    deps.logger.info('authorization server: a client registered', { clientId: client.id, address });
    deps.events?.emit('client_registered', {
      clientId: client.id,
      ...(client.name !== undefined && { name: client.name }),
      redirectURIs: [...client.redirectURIs],
      grantTypes: [...client.grantTypes],
      tokenEndpointAuthMethod: metadata.authMethod,
      applicationType: metadata.applicationType,
      address,
    });
    return { status: 201, body: registrationBody(stored, secret) };
  }
}

/** The answer's body (RFC 7591 §3.2.1): the metadata as registered, with the secret this once. */
export function registrationBody(stored: StoredClient, secret?: string): object {
  const { client } = stored;
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(stored.issuedAt / 1000),
    ...(secret !== undefined && {
      client_secret: secret,
      client_secret_expires_at: Math.floor(stored.expiresAt / 1000),
    }),
    ...(client.name !== undefined && { client_name: client.name }),
    redirect_uris: [...client.redirectURIs],
    grant_types: [...client.grantTypes],
    response_types: [...stored.responseTypes],
    token_endpoint_auth_method: stored.authMethod,
    application_type: stored.applicationType,
    ...(client.scopes !== undefined && { scope: client.scopes.join(' ') }),
  };
}
