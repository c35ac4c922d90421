/**
 * An app with accounts, a `password` provider `local` (real SMTP on 127.0.0.1) and personal tokens; routes of the
 * application's own behind each guard a token may reach, echoing the user and `ctx.state.auth`.
 */
import type Koa from 'koa';
import type { AuthKoaOptions } from '../../lib/index.js';
import { getUserInfo } from '../../lib/index.js';
import type { Client } from '../helpers/http.js';
import { accountsRig, post, signUpAndConfirm, type AccountsRig } from '../accounts/rig.js';

export const echoAuth = (ctx: Koa.Context) => {
  ctx.status = 200;
  ctx.body = { user: getUserInfo(ctx) ?? null, auth: ctx.state.auth ?? null };
};

export async function tokensRig(
  t: { teardown(fn: () => unknown): void },
  o: { tokens?: unknown; service?: Partial<AuthKoaOptions>; mfa?: boolean; extraProviders?: unknown[] } = {},
): Promise<AccountsRig> {
  return accountsRig(t, {
    mfa: o.mfa,
    extraProviders: o.extraProviders,
    service: {
      tokens: (o.tokens ?? true) as never,
      ...o.service,
    },
    extraRoutes: (router, auth) => {
      router.get('/api/me', auth.middleware.auth, echoAuth);
      router.post('/api/me', auth.middleware.auth, echoAuth);
      router.get('/api/read', auth.middleware.scope('repo:read'), echoAuth);
      router.get('/api/write', auth.middleware.scope('repo:read', 'repo:write'), echoAuth);
      router.get('/api/admin', auth.middleware.admin, echoAuth);
      router.get('/api/editors', auth.middleware.rbac('editor'), echoAuth);
      router.get('/api/fresh', auth.middleware.fresh('5m'), echoAuth);
      router.get('/api/traced', auth.middleware.trace, echoAuth);
    },
  });
}

/** Signs up and confirms `email` on the rig's client (logged in and fresh afterwards). */
export function loggedIn(r: AccountsRig, email = 'ann@example.com', client = r.client) {
  return signUpAndConfirm(r, email, undefined, client);
}

/** `POST /auth/tokens` from the page of a logged-in client. */
export function createToken(client: Client, body: unknown): Promise<Response> {
  return post(client, '/auth/tokens', body);
}

/** A new token's secret and id, or a thrown error naming the answer. */
export async function newToken(client: Client, body: Record<string, unknown> = { name: 'ci' }) {
  const res = await createToken(client, body);
  if (res.status !== 201) throw new Error(`POST /auth/tokens answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; token: string; scopes: string[]; expires: string | null; name: string };
}

/** A request of an API client: the token as a bearer, no cookie. */
export function bearer(base: string, path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return fetch(new URL(path, base), {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
}
