/**
 * Shared by the public-key token tests (issue #35): real keys from node:crypto, an app that signs its
 * sessions with one (a direct provider, a manual clock), and a login that hands back the token.
 */
import { generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type Router from '@koa/router';
import type { ExecutionContext } from 'ava';
import type { AuthKoa, AuthKoaOptions } from '../../lib/index.js';
import type { SigningAlg, SigningOptions } from '../../lib/session/signing.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';

/** The service secret of every app here: apps that share it differ only in their signing keys. */
export const SECRET = 'verify-test-secret-0123456789abcdef';

/** Every algorithm the `signing` option takes. */
export const ALGS: readonly SigningAlg[] = ['EdDSA', 'ES256', 'RS256'];

/** The direct provider the apps log in through: any user, password `password`. */
export const directProvider = {
  kind: 'direct' as const,
  name: 'direct',
  checker: (_user: string, passwd: string) => passwd === 'password',
};

/** A new key pair for `alg`, in the forms the option and the tests use. */
export interface TestKey {
  alg: SigningAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** PKCS#8 PEM of the private key. */
  privatePem: string;
  /** SPKI PEM of the public key. */
  publicPem: string;
  /** The public key as a JWK (no kid). */
  publicJwk: JsonWebKey;
  /** The private key as a JWK. */
  privateJwk: JsonWebKey;
}

/** A fresh key for `alg`: Ed25519, P-256 or RSA 2048. */
export function pemKey(alg: SigningAlg): TestKey {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    alg,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    privatePem: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    publicPem: pair.publicKey.export({ format: 'pem', type: 'spki' }) as string,
    publicJwk: pair.publicKey.export({ format: 'jwk' }),
    privateJwk: pair.privateKey.export({ format: 'jwk' }),
  };
}

/** The `signing` option for `key` (its private PEM) with `previous` keys. */
export function signingWith(key: TestKey, previousKeys?: SigningOptions['previousKeys']): SigningOptions {
  return { alg: key.alg, key: key.privatePem, ...(previousKeys ? { previousKeys } : {}) };
}

/** A started app and the clock it runs on. */
export interface SignedApp extends TestApp {
  clock: ReturnType<typeof manualClock>;
}

/**
 * An app with SECRET, the direct provider, a manual clock (or `extra.clock`) and `signing` (none when
 * undefined), closed at teardown. `extra` overrides or adds options; `routes` adds routes (see startApp).
 */
export async function startSignedApp(
  t: ExecutionContext,
  signing: SigningOptions | undefined,
  extra: Partial<AuthKoaOptions> = {},
  routes?: (router: Router, auth: AuthKoa) => void,
): Promise<SignedApp> {
  const clock = (extra.clock as ReturnType<typeof manualClock> | undefined) ?? manualClock();
  const app = await startApp(
    { secret: SECRET, providers: [directProvider], ...(signing ? { signing } : {}), ...extra, clock },
    routes,
  );
  t.teardown(() => app.close());
  return { ...app, clock };
}

/** A direct login as `user`; the browser that holds its cookies (JWT, XSRF-TOKEN). */
export async function loginClient(app: TestApp, user = 'alice'): Promise<Client> {
  const c = new Client(app.url);
  const res = await c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: 'password' } });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return c;
}

/** A direct login as `user`; the session token it set. */
export async function loginToken(app: TestApp, user = 'alice'): Promise<string> {
  return (await loginClient(app, user)).jar.get('JWT')!;
}

/** A token's header, decoded without verifying. */
export function jwtHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}
