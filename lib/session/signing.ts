import { createHash, createPrivateKey, createPublicKey, type KeyObject, type webcrypto } from 'node:crypto';

/** A JSON Web Key (RFC 7517), as WebCrypto types it: the one JWK type every @types/node version has. */
export type JsonWebKey = webcrypto.JsonWebKey;
import { readFileSync } from 'node:fs';

/**
 * Public-key signing of session tokens (the `signing` option): the keys, their ids (RFC 7638 thumbprints)
 * and the public key set other services verify with (`/auth/.well-known/jwks.json`). HS256 with
 * `secret` stays for the tokens that never leave the service: OAuth2 handshakes and confirmation links.
 */

/** The algorithms a signing key may have: each pinned to one key type. */
export type SigningAlg = 'EdDSA' | 'ES256' | 'RS256';

/** A key as the option takes it: PEM text, a JWK (object or JSON text), or `file:<path>` of either. */
export type KeyInput = string | JsonWebKey;

/** The `signing` option. */
export interface SigningOptions {
  /** The algorithm of `key`: EdDSA (Ed25519), ES256 (P-256) or RS256 (RSA, 2048 bits or more). */
  alg: SigningAlg;
  /** The private key that signs new tokens. */
  key: KeyInput;
  /**
   * Keys that signed earlier tokens, still accepted (their public half, or the private key) until dropped; each key's
   * alg is read from it.
   */
  previousKeys?: KeyInput[];
}

/** One key: its algorithm, id, and the public JWK the key set publishes. */
export interface SigningKey {
  readonly alg: SigningAlg;
  /** The RFC 7638 SHA-256 thumbprint of the public key, base64url. */
  readonly kid: string;
  readonly publicKey: KeyObject;
  /** Only the current key signs. */
  readonly privateKey?: KeyObject;
  readonly jwk: PublicJwk;
}

/** A published public key. */
export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

/** The signing keys, checked. */
export interface SigningConfig {
  /** Signs every session token. */
  readonly current: SigningKey;
  /** Every key a token may name by `kid`: the current one and the previous ones. */
  readonly byKid: ReadonlyMap<string, SigningKey>;
}

const ALGS: readonly SigningAlg[] = ['EdDSA', 'ES256', 'RS256'];

/** Checks the `signing` option (a TypeError naming `signing.<key>`); undefined when it is not set. */
export function readSigning(input: unknown): SigningConfig | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError('authKoa: signing must be an object: { alg, key, previousKeys? }');
  const o = input as SigningOptions;
  for (const k of Object.keys(o))
    if (!['alg', 'key', 'previousKeys'].includes(k))
      throw new TypeError(`authKoa: unknown option "signing.${k}" (known: alg, key, previousKeys)`);
  if (!ALGS.includes(o.alg))
    throw new TypeError(`authKoa: signing.alg must be one of ${ALGS.join(', ')} (got ${JSON.stringify(o.alg)})`);
  const private_ = loadKey(o.key, 'signing.key', true);
  const current = signingKey(private_, o.alg, 'signing.key');
  const byKid = new Map<string, SigningKey>([[current.kid, current]]);
  const previous = o.previousKeys ?? [];
  if (!Array.isArray(previous)) throw new TypeError('authKoa: signing.previousKeys must be an array of keys');
  previous.forEach((k, i) => {
    const at = `signing.previousKeys[${i}]`;
    const key = signingKey(loadKey(k, at, false), undefined, at);
    if (!byKid.has(key.kid)) byKid.set(key.kid, { ...key, privateKey: undefined });
  });
  return { current, byKid };
}

/** The public key set: `{ keys: [current, ...previous] }`. */
export function publicKeySet(signing: SigningConfig): { keys: PublicJwk[] } {
  return { keys: [...signing.byKid.values()].map((k) => k.jwk) };
}

/** The RFC 7638 thumbprint of a public JWK: SHA-256 over its required members in lexical order. */
export function thumbprint(jwk: JsonWebKey): string {
  const members: Record<string, string[]> = {
    OKP: ['crv', 'kty', 'x'],
    EC: ['crv', 'kty', 'x', 'y'],
    RSA: ['e', 'kty', 'n'],
  };
  const names = members[jwk.kty ?? ''];
  if (!names) throw new TypeError(`no thumbprint for key type ${String(jwk.kty)}`);
  const member = (n: string): string => `${JSON.stringify(n)}:${JSON.stringify((jwk as Record<string, unknown>)[n])}`;
  const canonical = `{${names.map(member).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The algorithm a key's type means: Ed25519 → EdDSA, P-256 → ES256, RSA → RS256; undefined for any other. */
export function algOf(key: KeyObject): SigningAlg | undefined {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (type === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) return 'RS256';
  return undefined;
}

/** A key of the option read into a KeyObject: a private one (for `key`) or either half (for previous keys). */
function loadKey(input: unknown, at: string, mustBePrivate: boolean): KeyObject {
  let text: unknown = input;
  if (typeof input === 'string' && input.startsWith('file:')) {
    try {
      text = readFileSync(input.slice(5), 'utf8');
    } catch (err) {
      throw new TypeError(`authKoa: ${at}: cannot read ${input.slice(5)}: ${(err as Error).message}`);
    }
  }
  const jwk =
    typeof text === 'object' && text !== null
      ? (text as JsonWebKey)
      : typeof text === 'string' && text.trim().startsWith('{')
        ? parseJwk(text, at)
        : undefined;
  try {
    if (jwk)
      return jwk.d !== undefined
        ? createPrivateKey({ key: jwk as never, format: 'jwk' })
        : publicOnly(createPublicKey({ key: jwk as never, format: 'jwk' }), at, mustBePrivate);
    if (typeof text !== 'string' || !text.includes('-----BEGIN')) throw new TypeError('not a PEM key or a JWK');
    return /PRIVATE KEY-----/.test(text)
      ? createPrivateKey(text)
      : publicOnly(createPublicKey(text), at, mustBePrivate);
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('authKoa:')) throw err;
    throw new TypeError(`authKoa: ${at} must be a PEM key, a JWK or file:<path> of one (${(err as Error).message})`);
  }
}

function publicOnly(key: KeyObject, at: string, mustBePrivate: boolean): KeyObject {
  if (mustBePrivate) throw new TypeError(`authKoa: ${at} must be a private key (it signs); previousKeys may be public`);
  return key;
}

function parseJwk(text: string, at: string): JsonWebKey {
  try {
    return JSON.parse(text) as JsonWebKey;
  } catch {
    throw new TypeError(`authKoa: ${at} looks like JSON but does not parse as a JWK`);
  }
}

/** A key's public half, id and JWK; its type must be that of `alg` when one is named. */
function signingKey(key: KeyObject, alg: SigningAlg | undefined, at: string): SigningKey {
  const found = algOf(key);
  if (!found) throw new TypeError(`authKoa: ${at} must be an Ed25519, P-256 or RSA (2048 bits or more) key`);
  if (alg && found !== alg)
    throw new TypeError(`authKoa: ${at} is a key for ${found}, not ${alg}: signing.alg and the key must agree`);
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const exported = publicKey.export({ format: 'jwk' });
  const kid = thumbprint(exported);
  return {
    alg: found,
    kid,
    publicKey,
    privateKey: key.type === 'private' ? key : undefined,
    jwk: { ...exported, kid, alg: found, use: 'sig' },
  };
}
