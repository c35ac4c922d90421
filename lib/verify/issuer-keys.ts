import { AuthError } from '../errors.js';
import { request } from '../http/client.js';
import type { VerifyKey } from '../session/jws.js';
import { RemoteKeySet, type KeySetConfig } from './key-set.js';

/**
 * The keys of one OAuth authorization server, found through its metadata (RFC 8414 §3, or OpenID Connect Discovery
 * for a server that only has that): the document names the key set (`jwks_uri`), which a RemoteKeySet then fetches and
 * caches as verifier() does. The document is fetched on first use and again once `maxAgeMs` has passed; a fetch that
 * fails keeps the one held. While none could ever be fetched, each token is refused with 503 `keys_unavailable`, and
 * the document is asked for again at most every `cooldownMs`: a server that is down costs no request per token.
 */

/** How the document and its key set are fetched and kept: the issuer's URL, and the key set's settings. */
export type IssuerKeysConfig = Omit<KeySetConfig, 'url'> & { issuer: string };

/** The largest metadata document accepted: a few kilobytes in practice. */
const MAX_BYTES = 256 * 1024;

export class IssuerKeys {
  /** The key set the held document names, and its URL. */
  #keySet: { url: string; set: RemoteKeySet } | undefined;
  #fetchedAt = -Infinity;
  #pending: Promise<void> | undefined;
  #lastError: Error | undefined;

  constructor(private readonly c: IssuerKeysConfig) {}

  /** The key `kid` names in the server's key set; rejects with 503 `keys_unavailable` while no document is held. */
  async key(kid: string): Promise<VerifyKey | undefined> {
    const age = this.c.clock() - this.#fetchedAt;
    if (age >= this.c.maxAgeMs || (!this.#keySet && age >= this.c.cooldownMs)) await this.refresh();
    const held = this.#keySet;
    if (!held) {
      const cause = this.#lastError;
      throw new AuthError(
        'keys_unavailable',
        `the authorization server's metadata could not be fetched: ${cause?.message ?? 'not yet'}`,
        { cause },
      );
    }
    return held.set.key(kid);
  }

  /** Fetches the document once for every caller waiting; a failure is kept for the answer, the held document stays. */
  private refresh(): Promise<void> {
    this.#pending ??= this.fetchJwksUri()
      .then((url) => {
        // The same key set keeps its cache; one the server moved to starts afresh.
        if (this.#keySet?.url !== url) this.#keySet = { url, set: new RemoteKeySet({ ...this.keySetConfig(), url }) };
        this.#lastError = undefined;
      })
      .catch((err: Error) => {
        this.#lastError = err;
      })
      .finally(() => {
        this.#fetchedAt = this.c.clock();
        this.#pending = undefined;
      });
    return this.#pending;
  }

  private keySetConfig(): Omit<KeySetConfig, 'url'> {
    const { maxAgeMs, cooldownMs, timeoutMs, clock } = this.c;
    return { maxAgeMs, cooldownMs, timeoutMs, clock };
  }

  /** The document's `jwks_uri`: RFC 8414's document, or OpenID Connect's where the server answers no 200 for it. */
  private async fetchJwksUri(): Promise<string> {
    const [rfc8414, openid] = metadataUrls(this.c.issuer);
    const doc = (await this.fetchDocument(rfc8414)) ?? (await this.fetchDocument(openid));
    if (!doc) throw new Error(`${this.c.issuer} has no metadata at ${rfc8414} nor ${openid}`);
    // RFC 8414 §3.3: a document for another issuer is not this one's, whoever serves it.
    if (doc.issuer !== this.c.issuer) throw new Error(`the metadata at ${this.c.issuer} names another issuer`);
    const jwks = typeof doc.jwks_uri === 'string' && URL.canParse(doc.jwks_uri) ? new URL(doc.jwks_uri) : undefined;
    if (jwks?.protocol !== 'https:' && jwks?.protocol !== 'http:')
      throw new Error(`the metadata of ${this.c.issuer} has no http(s) jwks_uri`);
    return jwks.href;
  }

  /** A metadata document, or undefined when the server answers something other than 200 there. */
  private async fetchDocument(url: string): Promise<Record<string, unknown> | undefined> {
    const res = await request(url, {
      timeoutMs: this.c.timeoutMs,
      maxBytes: MAX_BYTES,
      headers: { accept: 'application/json' },
    });
    if (res.status !== 200) return undefined;
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new Error(`the metadata at ${url} is not JSON`);
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`the metadata at ${url} is no object`);
    return doc as Record<string, unknown>;
  }
}

/**
 * Where an issuer's metadata is: RFC 8414 §3.1's well-known URI, inserted between the host and the issuer's path (a
 * terminating `/` of the origin removed), then OpenID Connect Discovery's, appended to the issuer.
 */
export function metadataUrls(issuer: string): [string, string] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname;
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
  ];
}
