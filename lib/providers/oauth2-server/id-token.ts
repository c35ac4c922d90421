import { createHash, createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { JwtSigner } from '../../session/signer.js';
import { signerOf } from '../../session/signer.js';
import { readSigning, type KeyInput, type PublicJwk, type SigningAlg } from '../../session/signing.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../../session/jws.js';
import { jsonObjectOf } from '../../session/jwt.js';

/**
 * The keys an OpenID provider signs id_tokens with. RS256 is always among them — OpenID Connect
 * Discovery requires it, and relying parties left at their defaults (openid-client,
 * express-openid-connect) expect it — so a service keyed with EdDSA or ES256 gets an RSA key beside
 * its own: the `rsaKey` option, or one made at start (then id_tokens verify until the process
 * restarts, like everything else the local server keeps in memory).
 */

export class IdTokenKeys {
  private readonly byAlg = new Map<string, JwtSigner>();
  private readonly verifyKeys = new Map<string, VerifyKey>();

  constructor(signers: JwtSigner[]) {
    for (const s of signers) this.byAlg.set(s.alg, s);
    for (const jwk of this.keySet().keys)
      this.verifyKeys.set(jwk.kid, {
        alg: jwk.alg,
        kid: jwk.kid,
        publicKey: createPublicKey({ key: jwk as never, format: 'jwk' }),
      });
  }

  /** The algorithms id_tokens may be signed with, RS256 first. */
  get algs(): string[] {
    return [...this.byAlg.keys()].sort((a, b) => Number(b === 'RS256') - Number(a === 'RS256'));
  }

  has(alg: string): boolean {
    return this.byAlg.has(alg);
  }

  /** The public keys of every signer: the server's `jwks_uri`. */
  keySet(): { keys: PublicJwk[] } {
    const seen = new Set<string>();
    const keys: PublicJwk[] = [];
    for (const s of this.byAlg.values())
      for (const k of s.keySet().keys) if (!seen.has(k.kid) && seen.add(k.kid)) keys.push(k);
    return { keys };
  }

  /** Signs with the key of `alg` (RS256 when the client registered nothing); `typ` for another type than `JWT`. */
  sign(alg: string | undefined, claims: Record<string, unknown>, typ?: string): Promise<string> {
    return this.byAlg.get(alg ?? 'RS256')!.sign(claims, typ === undefined ? undefined : { typ });
  }

  /**
   * The claims of an id_token this provider issued to `issuer`, its signature checked and its expiry
   * not (an `id_token_hint` is typically expired, OpenID Connect Core §3.1.2.1); undefined otherwise.
   */
  hinted(token: string, issuer: string): Record<string, unknown> | undefined {
    try {
      const parts = splitJws(token);
      const key = keyForHeader(parts.headerB64, (kid) => this.verifyKeys.get(kid));
      if (!verifyJwsSignature(parts, key)) return undefined;
      const claims = jsonObjectOf(parts.payloadB64, 'malformed id_token');
      return claims.iss === issuer && typeof claims.sub === 'string' ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}

/** What an id_token states (OpenID Connect Core §2), whichever server issues it. */
export interface IdTokenFacts {
  issuer: string;
  /** The user (`sub`). */
  subject: string;
  /** The client (`aud`). */
  audience: string;
  /** Now and the lifetime, in seconds. */
  nowS: number;
  lifetimeS: number;
  /** When the user logged in, seconds. */
  authTime: number;
  /** The user's login session (`sid`), when known. */
  sid?: string;
  /** The authorization request's nonce: a code's id_token carries it, a refresh's does not. */
  nonce?: string;
  /** The access token issued beside it, for `at_hash`. */
  accessToken: string;
  /** The user's claims the grant lets out (pickClaims). */
  userClaims: Record<string, unknown>;
}

/** Signs an id_token with the key of `alg`: the user's claims first, the token's own over them. */
export function signIdToken(keys: IdTokenKeys, alg: string, f: IdTokenFacts): Promise<string> {
  return keys.sign(alg, {
    ...f.userClaims,
    iss: f.issuer,
    sub: f.subject,
    aud: f.audience,
    exp: f.nowS + f.lifetimeS,
    iat: f.nowS,
    auth_time: f.authTime,
    ...(f.sid !== undefined ? { sid: f.sid } : {}),
    ...(f.nonce !== undefined ? { nonce: f.nonce } : {}),
    at_hash: atHash(f.accessToken, alg),
  });
}

/** `at_hash` (Core §3.1.3.6): the left half of the access token's hash, by the id_token's algorithm. */
export function atHash(accessToken: string, alg: string): string {
  // Ed25519 signs over SHA-512, and so its at_hash is SHA-512's left half.
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256')
    .update(accessToken, 'ascii')
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** The id_token keys of a server with `signer`: it, and an RSA signer when it is not one (from `rsaKey` or made). */
export async function idTokenKeys(signer: JwtSigner, rsaKey: KeyInput | undefined): Promise<IdTokenKeys> {
  if (signer.alg === 'RS256') return new IdTokenKeys([signer]);
  return new IdTokenKeys([signer, signerOf(readSigning({ alg: 'RS256', key: rsaKey ?? (await freshRsaKey()) })!)]);
}

async function freshRsaKey(): Promise<string> {
  const pair = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  return pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/** Reads `rsaKey` now, so a bad key fails start-up naming the option. */
export function checkRsaKey(rsaKey: unknown): KeyInput | undefined {
  if (rsaKey === undefined) return undefined;
  try {
    readSigning({ alg: 'RS256' satisfies SigningAlg, key: rsaKey as KeyInput });
  } catch (err) {
    throw new TypeError(`rsaKey: ${(err as Error).message.replace(/^authKoa: signing\.key:? ?/, '')}`);
  }
  return rsaKey as KeyInput;
}
