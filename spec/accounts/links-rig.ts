/**
 * An accounts rig with two more ways in, each a real peer on 127.0.0.1: the dev OAuth2 server (a GitHub-like
 * login: `dev`, user ids as typed) and oidc-provider (`corp`, an OpenID provider that reports `email_verified`).
 * The helpers drive a link and a login through each like a browser with the rig's cookie jar.
 */
import type { ExecutionContext } from 'ava';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { startOidcServer, type OidcServer } from '../helpers/oidc.js';
import { accountsRig, type AccountsRig } from './rig.js';

export interface LinksRig extends AccountsRig {
  idp: OidcServer;
}

/** The OIDC peer's claims by login name, over its defaults (`<id>@example.test`, verified). */
export type PeerClaims = Record<string, Record<string, unknown>>;

export async function linksRig(
  t: ExecutionContext,
  o: {
    accounts?: Record<string, unknown>;
    claims?: PeerClaims;
    mfa?: boolean;
    extraProviders?: unknown[];
    service?: Record<string, unknown>;
    /** The dev provider configured (default true). */
    dev?: boolean;
    /** Options of the password provider `local` over the rig's. */
    provider?: Record<string, unknown>;
  } = {},
): Promise<LinksRig> {
  const idp = await startOidcServer();
  t.teardown(() => idp.close());
  const corp = {
    kind: 'oidc',
    name: 'corp',
    issuer: idp.issuer,
    cid: 'corp-client',
    csecret: 'corp-secret',
    scopes: ['openid', 'profile', 'email'],
  };
  const r = await accountsRig(t, {
    mfa: o.mfa,
    provider: o.provider,
    extraProviders: [...(o.dev === false ? [] : [{ kind: 'dev', port: 0 }]), corp, ...(o.extraProviders ?? [])],
    service: { accounts: { store: 'memory://', ...o.accounts }, ...o.service } as never,
  });
  idp.setup(
    [
      {
        client_id: 'corp-client',
        client_secret: 'corp-secret',
        redirect_uris: [`${r.app.url}/auth/corp/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    { claims: (id) => o.claims?.[id] },
  );
  return { ...r, idp };
}

/** Drives the provider's own page as `who`: the callback URL it sends the browser back to. */
export function authorizeAt(r: LinksRig, provider: 'dev' | 'corp', url: URL, who: string): Promise<string> {
  return provider === 'dev' ? devAuthorize(url, who) : r.idp.authorize(url, who);
}

/** A whole login of `who` through `provider` in `c`: the callback's answer. */
export async function providerLogin(r: LinksRig, c: Client, provider: 'dev' | 'corp', who: string): Promise<Response> {
  const url = await startLogin(c, provider);
  return c.fetch(await authorizeAt(r, provider, url, who), { headers: { accept: 'text/html' } });
}

/**
 * A link of `who`'s `provider` identity started by `c`'s session (`?link=1`, as a same-site navigation: no XSRF
 * header, the browser's Sec-Fetch-Site), then the provider's page, then the callback: its answer.
 */
export async function linkThrough(
  r: LinksRig,
  c: Client,
  provider: 'dev' | 'corp',
  who: string,
  from = '/linked',
): Promise<Response> {
  const start = await c.fetch(`/auth/${provider}/login?link=1&from=${encodeURIComponent(from)}`, {
    headers: { 'sec-fetch-site': 'same-origin', accept: 'text/html' },
  });
  if (start.status !== 302) throw new Error(`link start answered ${start.status}: ${await start.text()}`);
  const url = new URL(start.headers.get('location')!);
  return c.fetch(await authorizeAt(r, provider, url, who), { headers: { accept: 'text/html' } });
}

/** The session user in `c`'s JWT cookie, and its provider. */
export function sessionOf(c: Client): { id: string; name: string; provider: string } {
  const jwt = c.jar.get('JWT');
  if (!jwt) throw new Error('no session cookie');
  const claims = decodeJwt(jwt);
  return { id: claims.user.id, name: claims.user.name, provider: claims.auth_provider?.name };
}

/** `GET /auth/links` of `c`'s session: the providers listed, in order. */
export async function linkedProviders(c: Client): Promise<string[]> {
  const res = await c.fetch('/auth/links', { headers: c.xsrf() });
  if (res.status !== 200) throw new Error(`links answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as Array<{ provider: string }>).map((l) => l.provider);
}
