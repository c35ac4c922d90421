import { generateKeyPairSync } from 'node:crypto';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { pemKey } from '../server/openid-fixtures.js';

/**
 * The providers the conformance modules run against: ours (the local server as an OpenID provider,
 * EdDSA-keyed as `authctl keys generate` makes it, so RS256 comes from the key beside it) and
 * oidc-provider, a certified OpenID provider, configured alike for the differential run. Both register
 * the clients the certification plans use: two confidential clients (the suite's `client` and
 * `client2`) and one for client_secret_post, without PKCE (the plans send none, but one module).
 */

/** Where the suite's clients live; never visited (the browser stops when an answer leaves the provider). */
export const REDIRECT = 'http://127.0.0.1:9/test/a/authkoa/callback';

export interface CertClient {
  id: string;
  secret: string;
  auth: 'client_secret_basic' | 'client_secret_post';
}

export const CLIENTS = {
  basic: { id: 'cert-client', secret: 'cert-client-secret-0123456789', auth: 'client_secret_basic' },
  second: { id: 'cert-client2', secret: 'cert-client2-secret-012345678', auth: 'client_secret_basic' },
  post: { id: 'cert-client-post', secret: 'cert-post-secret-0123456789ab', auth: 'client_secret_post' },
} as const satisfies Record<string, CertClient>;

/** The test user, with a claim for each standard scope. */
export const ALICE = {
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  preferred_username: 'alice',
  email: 'alice@example.test',
  email_verified: true,
  address: { street_address: '1 Rabbit Hole', locality: 'Oxford', country: 'GB' },
  phone_number: '+44 1865 000000',
  phone_number_verified: false,
};

export interface ProviderUnderTest {
  /** Ours (the local server, or the in-app authorization server), or the certified one beside it. */
  name: 'authkoa' | 'authkoa-in-app' | 'oidc-provider';
  issuer: string;
  /** Every client must send PKCE (OAuth 2.1, the in-app server): the modules add an S256 challenge to each request. */
  pkce?: boolean;
  /** Moves the provider's clock (ours: its injected clock; oidc-provider's: the one `Date.now` this process reads). */
  advance(ms: number): void;
  close(): Promise<void>;
}

/** One RSA key for every provider this process starts: making one costs more than a module's whole flow. */
export const RSA_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  format: 'pem',
  type: 'pkcs8',
}) as string;

/** Ours: a standalone local server with signing keys, its clock injected. */
export async function authkoaProvider(
  clock: (() => number) & { advance(ms: number): void },
): Promise<ProviderUnderTest> {
  const server = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    checker: (user, password) =>
      user === 'alice' && password === 'wonderland' ? { id: 'alice', name: ALICE.name } : false,
    clients: Object.values(CLIENTS).map((c) => ({
      id: c.id,
      secret: c.secret,
      redirectURIs: [REDIRECT],
      requirePKCE: false,
      refreshTokens: true,
    })),
    signing: { alg: 'EdDSA', key: pemKey() },
    rsaKey: RSA_KEY,
    claims: () => ALICE,
    throttle: false,
    clock,
  });
  return { name: 'authkoa', issuer: server.url, advance: clock.advance, close: () => server.close() };
}

/** `Date.now` moved forward by hand, for a provider whose clock cannot be injected (oidc-provider). */
export interface ShiftedTime {
  advance(ms: number): void;
  restore(): void;
}

export function shiftedTime(): ShiftedTime {
  const real = Date.now;
  let offset = 0;
  Date.now = () => real() + offset;
  return {
    advance: (ms) => {
      offset += ms;
    },
    restore: () => {
      Date.now = real;
    },
  };
}
