import { createHash } from 'node:crypto';
import { addressPolicy } from '../../http/address-policy.js';
import { FetchError, safeGet } from '../../http/safe-request.js';
import { freshnessMs } from './cache-headers.js';
import { copyClient } from './copy.js';
import { checkMetadata } from './metadata.js';
import type { ClientDirectoryDeps, ClientError, OAuthClient } from './types.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose id is an https URL
 * is described by the JSON document at that URL. It is fetched under the webhook sender's rules (safe-request.ts:
 * no private address unless `allowPrivate`, no redirect followed, a time limit, a 5 KiB cap), and kept in the state
 * store as long as its caching headers allow, at most a day, so every process sharing the store uses one fetch.
 * Such a client is public: there is no way to share a secret with it.
 */

/** The document's cap (the draft's suggested limit). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** Longest client_id URL taken: it is a query parameter of every authorization request. */
const MAX_URL_LENGTH = 1024;
/** Where the checked documents are cached: the client as the directory hands it out, under a hash of its URL. */
export const CIMD_NS = 'as-cimd';

export interface MetadataDocumentConfig {
  timeoutMs: number;
  allowPrivate: boolean;
  allowHttpRedirects: boolean;
}

/** The clients whose ids are https URLs. */
export interface MetadataDocuments {
  find(clientId: string): Promise<OAuthClient | ClientError>;
}

const invalidClient = (description: string): ClientError => ({ error: 'invalid_client', description });
const invalidMetadata = (description: string): ClientError => ({ error: 'invalid_client_metadata', description });

export function metadataDocuments(config: MetadataDocumentConfig, deps: ClientDirectoryDeps): MetadataDocuments {
  const allowed = addressPolicy(config.allowPrivate);
  // Finds of one URL while its fetch is under way share it: a burst of requests costs one fetch.
  const pending = new Map<string, Promise<OAuthClient | ClientError>>();

  async function fetchClient(url: string, key: string): Promise<OAuthClient | ClientError> {
    const host = new URL(url).hostname;
    const result = await fetchDocument(url, config, allowed, deps);
    if ('error' in result) {
      deps.logger.info('authorization server: a client metadata document was refused', {
        code: result.error,
        host,
        reason: result.description,
      });
      return result;
    }
    const { client, freshFor } = result;
    if (freshFor > 0) await cache(key, client, deps.clock() + freshFor);
    return client;
  }

  async function cache(key: string, client: OAuthClient, expiresAt: number): Promise<void> {
    try {
      if (await deps.state.create(CIMD_NS, key, client, expiresAt)) return;
      const held = await deps.state.get(CIMD_NS, key); // a stale entry, or another process's fresh one
      if (held) await deps.state.replace(CIMD_NS, key, held.rev, client, expiresAt);
    } catch (err) {
      // The client is good; only the next find will fetch again.
      deps.logger.warn('authorization server: a client metadata document could not be cached', {
        reason: (err as Error).message,
      });
    }
  }

  return {
    async find(clientId) {
      const problem = urlProblem(clientId);
      if (problem) return invalidClient(`the client_id URL ${problem}`);
      const key = createHash('sha256').update(clientId).digest('base64url');
      const held = await deps.state.get<OAuthClient>(CIMD_NS, key);
      if (held && held.expiresAt > deps.clock() && held.value.id === clientId) return copyClient(held.value);
      let fetching = pending.get(clientId);
      if (!fetching) {
        fetching = fetchClient(clientId, key).finally(() => pending.delete(clientId));
        pending.set(clientId, fetching);
      }
      const found = await fetching;
      return 'error' in found ? found : copyClient(found);
    },
  };
}

/**
 * Why `id` cannot name a metadata document (the draft's rules: https, a path, no fragment, no user name or password,
 * no dot segments), or undefined. It must also be the URL's own spelling, so one document has one client_id.
 */
function urlProblem(id: string): string | undefined {
  if (id.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(id);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'is not https';
  if (url.username || url.password || id.includes('#')) return 'has a user name, a password or a fragment';
  if (url.pathname === '/' || /\/\.{1,2}(\/|$)/.test(id.replace(/[?].*$/, ''))) return 'has no path, or a dot segment';
  if (url.href !== id) return `is not in its normal form (${url.href})`;
  return undefined;
}

/** A fetched document, checked, with how long it may be kept; or why it cannot be used. */
async function fetchDocument(
  url: string,
  config: MetadataDocumentConfig,
  allowed: (address: string) => boolean,
  { ca, clock }: ClientDirectoryDeps,
): Promise<{ client: OAuthClient; freshFor: number } | ClientError> {
  let answer;
  try {
    const limits = { timeoutMs: config.timeoutMs, maxBytes: MAX_DOCUMENT_BYTES, allowed };
    answer = await safeGet(url, { accept: 'application/json' }, limits, ca ? { ca } : undefined);
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    return invalidClient(`the client metadata document could not be fetched: ${err.reason}`);
  }
  if (answer.status !== 200) {
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
    return invalidClient(`the client metadata document's URL answered ${answer.status}${redirect}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return invalidMetadata('the client metadata document is not JSON');
  }
  const checked = checkDocument(url, doc, config.allowHttpRedirects);
  if ('error' in checked) return checked;
  return { client: checked, freshFor: freshnessMs(answer.headers, clock()) };
}

/** The document as a client: it must name itself, have no secret and use no other authentication than none. */
function checkDocument(url: string, doc: unknown, allowHttpRedirects: boolean): OAuthClient | ClientError {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return invalidMetadata('the client metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return invalidMetadata("the client metadata document's client_id is not its URL");
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined)
    return invalidMetadata('a client metadata document cannot hold a client_secret');
  // An absent method is none here (not RFC 7591's client_secret_basic): a document cannot share a secret.
  const checked = checkMetadata(d, { authMethods: ['none'], defaultAuthMethod: 'none', allowHttpRedirects });
  if ('error' in checked) return invalidMetadata(checked.description);
  return {
    id: url,
    ...(checked.name !== undefined && { name: checked.name }),
    host: new URL(url).hostname,
    redirectURIs: checked.redirectURIs,
    grantTypes: checked.grantTypes,
    ...(checked.scopes !== undefined && { scopes: checked.scopes }),
    trusted: false,
    confidential: false,
    source: 'metadata-document',
  };
}
