import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import type { Arrival } from './browser.js';
import { REDIRECT, type CertClient } from './providers.js';

/**
 * The relying parties the modules drive: openid-client and oauth4webapi, both certified, both strict
 * by default. Each validates the authorization response (state, iss) and the token response
 * (id_token claims, nonce, max_age/auth_time, the RS256 default algorithm) itself; a module adds the
 * suite's own checks on top.
 */

export interface Tokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  id_token: string;
  expires_in?: number;
  scope?: string;
  /** The id_token's claims, as the library validated them. */
  claims: Record<string, unknown>;
}

/** What the client checks an answer against. */
export interface Expected {
  state?: string;
  nonce?: string;
  verifier?: string;
  maxAge?: number;
}

export interface RelyingParty {
  readonly name: 'openid-client' | 'oauth4webapi';
  readonly client: CertClient;
  authorizationURL(params: Record<string, string>): URL;
  /** Validates the authorization response (in the query or the posted form) and redeems its code. */
  redeem(arrival: Arrival, expected: Expected): Promise<Tokens>;
  /** GET, or POST with the token in the header. */
  userinfo(accessToken: string, sub: string, method: 'GET' | 'POST'): Promise<Record<string, unknown>>;
  refresh(refreshToken: string, scope?: string): Promise<Tokens>;
}

export type RelyingPartyKind = RelyingParty['name'];
export const RELYING_PARTIES: readonly RelyingPartyKind[] = ['openid-client', 'oauth4webapi'];

export function relyingParty(kind: RelyingPartyKind, issuer: string, client: CertClient): Promise<RelyingParty> {
  return kind === 'openid-client' ? openidClient(issuer, client) : oauth4webapi(issuer, client);
}

/** The authorization response as the redirect URI receives it. */
function callbackRequest(arrival: Arrival): URL | Request {
  if (arrival.via === 'form_post')
    return new Request(REDIRECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: arrival.params.toString(),
    });
  const url = new URL(REDIRECT);
  url.search = arrival.params.toString();
  return url;
}

async function openidClient(issuer: string, client: CertClient): Promise<RelyingParty> {
  const auth = client.auth === 'client_secret_post' ? oidc.ClientSecretPost : oidc.ClientSecretBasic;
  const config = await oidc.discovery(new URL(issuer), client.id, undefined, auth(client.secret), {
    execute: [oidc.allowInsecureRequests],
  });
  const tokens = (t: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): Tokens => ({
    ...(t as unknown as Omit<Tokens, 'claims'>),
    claims: { ...t.claims() },
  });
  return {
    name: 'openid-client',
    client,
    authorizationURL: (params) => oidc.buildAuthorizationUrl(config, params),
    async redeem(arrival, e) {
      return tokens(
        await oidc.authorizationCodeGrant(config, callbackRequest(arrival), {
          expectedState: e.state ?? oidc.skipStateCheck,
          expectedNonce: e.nonce,
          pkceCodeVerifier: e.verifier,
          maxAge: e.maxAge,
          idTokenExpected: true,
        }),
      );
    },
    async userinfo(accessToken, sub, method) {
      if (method === 'GET') return { ...(await oidc.fetchUserInfo(config, accessToken, sub)) };
      const url = new URL(config.serverMetadata().userinfo_endpoint!);
      const res = await oidc.fetchProtectedResource(config, accessToken, url, 'POST');
      return (await res.json()) as Record<string, unknown>;
    },
    async refresh(refreshToken, scope) {
      return tokens(await oidc.refreshTokenGrant(config, refreshToken, scope ? { scope } : undefined));
    },
  };
}

async function oauth4webapi(issuer: string, client: CertClient): Promise<RelyingParty> {
  const insecure = { [oauth.allowInsecureRequests]: true };
  const issuerURL = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(issuerURL, await oauth.discoveryRequest(issuerURL, insecure));
  const c: oauth.Client = { client_id: client.id };
  const auth = (client.auth === 'client_secret_post' ? oauth.ClientSecretPost : oauth.ClientSecretBasic)(client.secret);
  const tokens = (t: oauth.TokenEndpointResponse): Tokens => ({
    ...(t as unknown as Omit<Tokens, 'claims'>),
    claims: { ...oauth.getValidatedIdTokenClaims(t) },
  });
  return {
    name: 'oauth4webapi',
    client,
    authorizationURL(params) {
      const url = new URL(as.authorization_endpoint!);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url;
    },
    async redeem(arrival, e) {
      const params = oauth.validateAuthResponse(as, c, arrival.params, e.state ?? oauth.expectNoState);
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        c,
        auth,
        params,
        REDIRECT,
        e.verifier ?? oauth.nopkce,
        insecure,
      );
      return tokens(
        await oauth.processAuthorizationCodeResponse(as, c, res, {
          expectedNonce: e.nonce ?? oauth.expectNoNonce,
          maxAge: e.maxAge ?? oauth.skipAuthTimeCheck,
          requireIdToken: true,
        }),
      );
    },
    async userinfo(accessToken, sub, method) {
      const res =
        method === 'GET'
          ? await oauth.userInfoRequest(as, c, accessToken, insecure)
          : await oauth.protectedResourceRequest(
              accessToken,
              'POST',
              new URL(as.userinfo_endpoint!),
              undefined,
              undefined,
              insecure,
            );
      return { ...(await oauth.processUserInfoResponse(as, c, sub, res)) };
    },
    async refresh(refreshToken, scope) {
      const res = await oauth.refreshTokenGrantRequest(as, c, auth, refreshToken, {
        ...insecure,
        ...(scope ? { additionalParameters: { scope } } : {}),
      });
      return tokens(await oauth.processRefreshTokenResponse(as, c, res));
    },
  };
}
