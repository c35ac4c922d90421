import type { KeyObject } from 'node:crypto';
import { signJws } from './jws.js';
import { publicKeySet, type PublicJwk, type SigningConfig, type SigningKey } from './signing.js';

/**
 * A signing key as a provider may use it: a sign function and the public keys, never the private key.
 * It can sign no more than `tokenService.create` already lets a provider sign.
 */
export interface JwtSigner {
  /** The current key's algorithm: what `id_token_signing_alg_values_supported` names. */
  readonly alg: string;
  /**
   * Signs `claims` as given (nothing is added) into a compact JWS; header `{ alg, kid, typ }`, `typ` `JWT` unless
   * `options.typ` names another (`secevent+jwt`, `logout+jwt`).
   */
  sign(claims: Record<string, unknown>, options?: { typ?: string }): Promise<string>;
  /** The public key set, current key first: what `<authRoutePath>/.well-known/jwks.json` serves. */
  keySet(): { keys: PublicJwk[] };
}

/** The signer of checked signing keys: the service's (ProviderDeps.signer), or a standalone local server's. */
export function signerOf(signing: SigningConfig): JwtSigner {
  const current = signing.current as SigningKey & { privateKey: KeyObject };
  return {
    alg: current.alg,
    sign: (claims, options) => Promise.resolve().then(() => signJws(claims, current, options?.typ)),
    keySet: () => publicKeySet(signing),
  };
}
