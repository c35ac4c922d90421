/**
 * The in-app authorization server as an OpenID provider, and openid-client (a certified relying party we did not
 * write) as its client: the app of app-rig.ts with a confidential OpenID client `rp`, the relying party's
 * configuration from discovery on the app's clock, and the browser's half of an authorization that ends in the
 * query or in a posted form.
 */
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { AuthorizationServerOptions } from '../../lib/authorization-server/options.js';
import { formOf } from '../accounts/rig.js';
import type { Client } from '../helpers/http.js';
import { REDIRECT, serverRig } from './app-rig.js';

export const RP = { id: 'rp', secret: 'rp-secret-0123456789abcdefghij', redirectURIs: [REDIRECT] };

type Rig = Awaited<ReturnType<typeof serverRig>>;

/** The app with `rp` and `agent` (public) as its clients, and `server` over the rig's options. */
export function openIDRig(t: Parameters<typeof serverRig>[0], server: Partial<AuthorizationServerOptions> = {}) {
  return serverRig(t, { clients: [RP, { id: 'agent', name: 'Agent', redirectURIs: [REDIRECT] }], ...server });
}

/**
 * openid-client's configuration of `rp`, from the issuer's discovery document, its clock the app's (the app's clock
 * is moved by the tests, never slept on): made again after the clock moves.
 */
export function relyingParty(r: Rig): Promise<oidc.Configuration> {
  const skew = Math.round((r.clock() - Date.now()) / 1000);
  return oidc.discovery(
    new URL(r.app.url),
    RP.id,
    { client_secret: RP.secret, [oidc.clockSkew]: skew },
    oidc.ClientSecretBasic(RP.secret),
    { execute: [oidc.allowInsecureRequests] },
  );
}

/** An authorization request of `rp` with PKCE, a state and a nonce; the checks its answer must pass. */
export async function openIDRequest(config: oidc.Configuration, params: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
}

/** Where an authorization request ended: the redirect to the client, the posted form, or the login page. */
export type Ending = { to: URL } | { posted: Request } | { login: URL };

/** The browser's part: the request followed, the consent page allowed, until the answer leaves for the client. */
export async function follow(browser: Client, url: URL): Promise<Ending> {
  let res = await browser.fetch(url.href);
  for (let hop = 0; hop < 3; hop++) {
    if (res.status === 302 || res.status === 303) {
      const to = new URL(res.headers.get('location')!);
      return to.href.startsWith(REDIRECT) ? { to } : { login: to };
    }
    if (res.status !== 200) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    const form = formOf(await res.text());
    if (form.action === REDIRECT) {
      const body = new URLSearchParams(form.fields).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      return { posted: new Request(REDIRECT, { method: 'POST', headers, body }) };
    }
    res = await browser.fetch(form.action, { method: 'POST', form: { ...form.fields, decision: 'allow' } });
  }
  throw new Error('the authorization request did not end');
}

/** The request followed to the client: the redirect (or posted form) openid-client reads. */
export async function answered(browser: Client, url: URL): Promise<URL | Request> {
  const ending = await follow(browser, url);
  if ('login' in ending) throw new Error(`sent to log in: ${ending.login.href}`);
  return 'to' in ending ? ending.to : ending.posted;
}

/** What a code flow ends with: the relying party's configuration, the tokens, the id_token's claims, the nonce. */
export interface Flow {
  config: oidc.Configuration;
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
  claims: oidc.IDToken;
  nonce: string;
}

/** The whole code flow of `rp` for the browser's user: the token response, checked by openid-client. */
export async function codeFlow(
  r: Rig,
  browser: Client,
  params: Record<string, string> = {},
  maxAge?: number,
): Promise<Flow> {
  const config = await relyingParty(r);
  const { url, checks } = await openIDRequest(config, params);
  const back = await answered(browser, url);
  const tokens = await oidc.authorizationCodeGrant(config, back, { ...checks, idTokenExpected: true, maxAge });
  return { config, tokens, claims: tokens.claims()!, nonce: checks.expectedNonce };
}

/** `at_hash` as Core §3.1.3.6 defines it for ES256 (the rig's key): the left half of the SHA-256. */
export function atHashOf(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
}

/** The claims of a JWT, unchecked (the session cookie's, to compare its `sid`). */
export function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}
