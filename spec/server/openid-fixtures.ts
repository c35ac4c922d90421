import { generateKeyPairSync } from 'node:crypto';
import * as oidc from 'openid-client';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, startApp, type TestApp } from '../helpers/http.js';
import { checker, options, signIn } from './fixtures.js';

/**
 * An authkoa app with signing keys and a `kind: 'server'` entry — so its local server is an OpenID
 * provider — and a relying party driven by openid-client (a certified RP we did not write).
 */

/** Where the test relying parties say they live; never visited: the tests read the redirect to it. */
export const RP_REDIRECT = 'http://127.0.0.1:9/cb';
/** A confidential client (it has a secret) and a public one (it has none: PKCE is what binds its codes). */
export const RP = { id: 'rp', secret: 'rp-secret', redirectURIs: [RP_REDIRECT] };
export const SPA = { id: 'spa', redirectURIs: [RP_REDIRECT] };

type Teardown = { teardown(fn: () => Promise<void> | void): void };

/** A fresh private key in PEM. */
export function pemKey(alg: 'EdDSA' | 'ES256' = 'EdDSA'): string {
  const pair = alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/**
 * Starts the app (service `signing` from `service`, the server entry's options from `entry`) and
 * returns it with its local server's URL, read from where the app's own login sends the browser.
 */
export async function startProvider(
  t: Teardown,
  service: Partial<AuthKoaOptions> = {},
  entry: Record<string, unknown> = {},
): Promise<{ app: TestApp; serverURL: string }> {
  const providers = [{ kind: 'server', url: 'http://127.0.0.1:0', checker, clients: [RP, SPA], ...entry }];
  const app = await startApp(options(providers, { signing: { alg: 'EdDSA', key: pemKey() }, ...service }));
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/server/login');
  if (res.status !== 302) throw new Error(`login answered ${res.status}`);
  return { app, serverURL: new URL(res.headers.get('location')!).origin };
}

/**
 * openid-client's configuration from discovery: client_secret_post for a confidential client, `none` for a public
 * one; id_tokens expected in RS256 unless the client registered another algorithm.
 */
export function relyingParty(
  serverURL: string,
  client: { id: string; secret?: string; idTokenSignedResponseAlg?: string },
): Promise<oidc.Configuration> {
  const insecure = { execute: [oidc.allowInsecureRequests] };
  const alg = client.idTokenSignedResponseAlg;
  const metadata = alg ? { id_token_signed_response_alg: alg } : undefined;
  return client.secret
    ? oidc.discovery(new URL(serverURL), client.id, { client_secret: client.secret, ...metadata }, undefined, insecure)
    : oidc.discovery(new URL(serverURL), client.id, metadata, oidc.None(), insecure);
}

/** What an RP's login started with: the authorization URL and the checks its answer must pass. */
export interface RPLogin {
  url: URL;
  verifier: string;
  nonce: string;
  state: string;
}

/** An authorization URL as openid-client builds it: S256 PKCE, a nonce and a state. */
export async function rpAuthorization(config: oidc.Configuration, scope = 'openid profile email'): Promise<RPLogin> {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const params = {
    redirect_uri: RP_REDIRECT,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  };
  return { url: oidc.buildAuthorizationUrl(config, params), verifier, nonce, state };
}

/** The token answer openid-client validated: access token, id_token and its claims. */
export type RPTokens = Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;

/** The whole login of a relying party: the user signs in on the server's page, the RP exchanges the code. */
export async function rpSignIn(
  config: oidc.Configuration,
  serverURL: string,
  user = 'alice',
  password = 'wonderland',
): Promise<{ login: RPLogin; callback: URL; tokens: RPTokens }> {
  const login = await rpAuthorization(config);
  const callback = await signIn(new Client(serverURL), login.url.href, user, password);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: login.verifier,
    expectedNonce: login.nonce,
    expectedState: login.state,
  });
  return { login, callback, tokens };
}
