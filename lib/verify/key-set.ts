import { createPublicKey, type webcrypto } from 'node:crypto';
import { AuthError } from '../errors.js';
import { request } from '../http/client.js';
import { algOf, thumbprint } from '../session/signing.js';
import type { VerifyKey } from '../session/jws.js';

/** How a remote key set is fetched and kept. */
export interface KeySetConfig {
  url: string;
  /** Keys are used this long before they are fetched again (a failed fetch keeps them). */
  maxAgeMs: number;
  /** At most one fetch per this long for a token naming an unknown key. */
  cooldownMs: number;
  timeoutMs: number;
  clock: () => number;
}

/** The largest key set accepted: a few keys take a few kilobytes. */
const MAX_BYTES = 256 * 1024;

/**
 * A remote JWKS (the app's `/auth/.well-known/jwks.json`), cached: fetched on first use, again once
 * `maxAgeMs` has passed, and for a token naming an unknown key at most every `cooldownMs`. A fetch that
 * fails keeps the keys already held; no key is ever made up, so a token no held key verifies is refused.
 */
export class RemoteKeySet {
  #keys = new Map<string, VerifyKey>();
  #fetchedAt = -Infinity;
  #pending: Promise<void> | undefined;
  /** Why the last fetch failed: while no key is held, each token is refused with 503 `keys_unavailable`. */
  #lastError: Error | undefined;

  constructor(private readonly o: KeySetConfig) {}

  /** The key `kid` names, fetching the set when it is stale or does not have it (within the cooldown). */
  async key(kid: string): Promise<VerifyKey | undefined> {
    const age = this.o.clock() - this.#fetchedAt;
    if (age >= this.o.maxAgeMs || (!this.#keys.has(kid) && age >= this.o.cooldownMs)) await this.refresh();
    const key = this.#keys.get(kid);
    const cause = this.#lastError;
    if (!key && this.#keys.size === 0 && cause) {
      throw new AuthError('keys_unavailable', `the key set could not be fetched: ${cause.message}`, { cause });
    }
    return key;
  }

  /** Fetches the set once for every caller waiting; a failure is kept for the answer and the held keys stay. */
  private refresh(): Promise<void> {
    this.#pending ??= this.fetchKeys()
      .then((keys) => {
        this.#keys = keys;
        this.#lastError = undefined;
      })
      .catch((err: Error) => {
        this.#lastError = err;
      })
      .finally(() => {
        this.#fetchedAt = this.o.clock();
        this.#pending = undefined;
      });
    return this.#pending;
  }

  private async fetchKeys(): Promise<Map<string, VerifyKey>> {
    const res = await request(this.o.url, {
      timeoutMs: this.o.timeoutMs,
      maxBytes: MAX_BYTES,
      headers: { accept: 'application/json' },
    });
    if (res.status !== 200) throw new Error(`key set ${this.o.url} answered ${res.status}`);
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new Error(`key set ${this.o.url} is not JSON`);
    }
    return keysOf(doc);
  }
}

/**
 * The usable keys of a JWK set by kid: signature keys of the three algorithms whose `kid` is their own
 * RFC 7638 thumbprint (so a set cannot pass one key off under another's id); others are skipped.
 */
export function keysOf(doc: unknown): Map<string, VerifyKey> {
  const list = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(list)) throw new Error('not a JWK set: no "keys" array');
  const keys = new Map<string, VerifyKey>();
  for (const jwk of list as Array<Record<string, unknown> | null>) {
    if (!jwk || typeof jwk !== 'object' || (jwk.use !== undefined && jwk.use !== 'sig') || jwk.d !== undefined)
      continue;
    try {
      const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
      const alg = algOf(publicKey);
      const kid = thumbprint(publicKey.export({ format: 'jwk' }));
      if (alg && (jwk.alg === undefined || jwk.alg === alg) && jwk.kid === kid) keys.set(kid, { alg, kid, publicKey });
    } catch {
      // A key of another kind or a malformed one is not ours to use.
    }
  }
  return keys;
}

/** A `jwks` option: the key set's URL, or a JWK set held locally. */
export type JwksOption = string | URL | { keys: webcrypto.JsonWebKey[] };

/** A `jwks` option checked: the URL's href, or the usable keys of a set given as an object (at least one). */
export function jwksOf(jwks: unknown, caller: string): string | Map<string, VerifyKey> {
  if (typeof jwks === 'string' || jwks instanceof URL) {
    const url = URL.canParse(String(jwks)) ? new URL(String(jwks)) : undefined;
    if (url?.protocol !== 'https:' && url?.protocol !== 'http:')
      throw new TypeError(`${caller}: jwks must be an http(s) URL or a JWK set (got ${JSON.stringify(String(jwks))})`);
    return url.href;
  }
  if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys))
    throw new TypeError(`${caller}: jwks must be the URL of the key set or a JWK set { keys }`);
  const held = keysOf(jwks);
  if (held.size === 0)
    throw new TypeError(
      `${caller}: jwks holds no usable key (public Ed25519, P-256 or RSA keys of 2048 bits or more, each with its ` +
        'RFC 7638 thumbprint as kid)',
    );
  return held;
}

/** Where keys come from: a held set, or a remote set with its cache (one per caller, never shared). */
export function keySource(
  jwks: string | Map<string, VerifyKey>,
  c: Omit<KeySetConfig, 'url'>,
): (kid: string) => Promise<VerifyKey | undefined> {
  if (jwks instanceof Map) return (kid) => Promise.resolve(jwks.get(kid));
  const { maxAgeMs, cooldownMs, timeoutMs, clock } = c;
  const remote = new RemoteKeySet({ url: jwks, maxAgeMs, cooldownMs, timeoutMs, clock });
  return (kid) => remote.key(kid);
}
