/**
 * An app that is an OAuth 2.1 authorization server: accounts with the `password` provider `local` (real SMTP),
 * `signing` keys, one resource (an MCP server's URI) and the clients a test gives; and the browser's half of an
 * authorization (the logged-in user's client follows the request to the consent page and answers it).
 */
import type { ExecutionContext } from 'ava';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { AuthorizationServerOptions } from '../../lib/authorization-server/options.js';
import { accountsRig, formOf, type AccountsRig } from '../accounts/rig.js';
import type { Client } from '../helpers/http.js';
import { pemKey } from '../server/openid-fixtures.js';

export const RESOURCE = 'https://api.example/mcp';
export const OTHER_RESOURCE = 'https://other.example/api';
export const REDIRECT = 'http://127.0.0.1:4999/callback';

export async function serverRig(
  t: ExecutionContext,
  server: Partial<AuthorizationServerOptions> = {},
  o: { mfa?: boolean; stateStore?: string } = {},
): Promise<AccountsRig & { as: oauth.AuthorizationServer }> {
  const rig = await accountsRig(t, {
    mfa: o.mfa,
    service: {
      signing: { alg: 'ES256', key: pemKey('ES256') },
      stateStore: o.stateStore ?? 'memory://',
      allowVolatileStores: true,
      authorizationServer: {
        resources: {
          [RESOURCE]: { scopes: ['notes:read', 'notes:write'], name: 'Notes' },
          [OTHER_RESOURCE]: { scopes: ['other:read'] },
        },
        clients: [{ id: 'agent', name: 'Agent', redirectURIs: [REDIRECT] }],
        ...server,
      },
    } as never,
  });
  const issuer = new URL(rig.app.url);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
  );
  return { ...rig, as };
}

/** A PKCE authorization request's URL, its state and verifier. */
export async function authorizationURL(
  as: oauth.AuthorizationServer,
  params: Record<string, string | string[]>,
): Promise<{ url: URL; state: string; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const all = {
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  };
  for (const [k, v] of Object.entries(all)) for (const one of [v].flat()) url.searchParams.append(k, one);
  return { url, state, verifier };
}

/** The browser's part: the request followed; the consent page answered with `decision`; the redirect's URL back. */
export async function userAnswers(browser: Client, url: URL, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const first = await browser.fetch(url.href);
  if (first.status === 302) return new URL(first.headers.get('location')!);
  if (first.status !== 200) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const form = formOf(await first.text());
  const res = await browser.fetch(form.action, { method: 'POST', form: { ...form.fields, decision } });
  if (res.status !== 302 && res.status !== 303) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return new URL(res.headers.get('location')!);
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * The code flow of a public `client` in `browser`'s session, as oauth4webapi runs it: the refresh token (a client
 * not of the options gets one when `scope` has offline_access), and the user and grant family the access token names.
 */
export async function codeFlow(
  r: { as: oauth.AuthorizationServer },
  browser: Client,
  client: oauth.Client,
  scope = 'notes:read',
): Promise<{ refreshToken: string; userId: string; sid: string }> {
  const { url, state, verifier } = await authorizationURL(r.as, {
    client_id: client.client_id,
    scope,
    resource: RESOURCE,
  });
  const params = oauth.validateAuthResponse(r.as, client, await userAnswers(browser, url), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    r.as,
    client,
    await oauth.authorizationCodeGrantRequest(r.as, client, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  if (!tokens.refresh_token) throw new Error(`no refresh token for ${client.client_id} with scope ${scope}`);
  const claims = decodeJwt(tokens.access_token);
  return { refreshToken: tokens.refresh_token, userId: String(claims.sub), sid: String(claims.sid) };
}

/** A public client registered through the registration endpoint (RFC 7591) by oauth4webapi. */
export async function registerClient(r: { as: oauth.AuthorizationServer }, metadata: Partial<oauth.Client> = {}) {
  return oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      r.as,
      {
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        ...metadata,
      },
      insecure,
    ),
  );
}
