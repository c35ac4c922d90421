import type { Context } from 'koa';
import { readBody } from '../../http/body.js';
import { firstValues, json } from './http.js';
import { MAX_FORM } from './listener.js';

/**
 * The userinfo endpoint (OpenID Connect Core §5.3) as both OpenID providers answer it — the local server and the
 * in-app authorization server — each finding the grant of an access token its own way: GET or POST, the token in
 * the Authorization header or (POST) the form body (RFC 6750 §2.2), never both; `sub` and the claims the token's
 * scopes and `claims` parameter let out. A token that is no live one of the server is 401 `invalid_token`; one
 * issued without `openid` is 403 `insufficient_scope` (RFC 6750 §3.1).
 */

/** What the endpoint needs of a live access token's grant. */
export interface UserInfoGrant {
  scopes: readonly string[];
  /** The user, as the id_token names them. */
  sub: string;
  /** The user's claims the grant lets out at userinfo. */
  claims(): Promise<Record<string, unknown>>;
}

/** Answers a userinfo request; `grantOf` finds a token's grant, or undefined for one that is not live. */
export async function answerUserInfo(
  ctx: Context,
  grantOf: (token: string) => UserInfoGrant | undefined | Promise<UserInfoGrant | undefined>,
): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'POST')
    return json(ctx, 405, { error: 'invalid_request', error_description: 'GET or POST only' });
  const token = await presentedToken(ctx);
  if (token === null)
    return json(ctx, 400, { error: 'invalid_request', error_description: 'send the access token one way only' });
  if (token === undefined) {
    // No credentials at all: the challenge carries no error code (RFC 6750 §3.1).
    ctx.set('WWW-Authenticate', 'Bearer');
    return json(ctx, 401, { error: 'invalid_token', error_description: 'an access token is required' });
  }
  const grant = await grantOf(token);
  if (!grant) {
    ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    return json(ctx, 401, { error: 'invalid_token' });
  }
  if (!grant.scopes.includes('openid')) {
    ctx.set('WWW-Authenticate', 'Bearer error="insufficient_scope", scope="openid"');
    return json(ctx, 403, { error: 'insufficient_scope' });
  }
  json(ctx, 200, { ...(await grant.claims()), sub: grant.sub });
}

/** The access token of a userinfo request: header or form body; null when both carry one. */
async function presentedToken(ctx: Context): Promise<string | undefined | null> {
  const header = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  if (ctx.method !== 'POST' || type !== 'application/x-www-form-urlencoded') return header;
  const body = firstValues(new URLSearchParams((await readBody(ctx.req, MAX_FORM)).toString('utf8'))).access_token;
  if (body !== undefined && header !== undefined) return null;
  return header ?? body;
}
