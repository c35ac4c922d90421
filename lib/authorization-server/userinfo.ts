import type { Context } from 'koa';
import { pickClaims } from '../providers/oauth2-server/claims.js';
import { answerUserInfo, type UserInfoGrant } from '../providers/oauth2-server/userinfo.js';
import { ownAccessToken } from './own-token.js';
import type { ServerParts } from './parts.js';

/**
 * `GET|POST <authRoutePath>/oauth2/userinfo` (OpenID Connect Core §5.3), answered as the local server answers it
 * (providers/oauth2-server/userinfo.ts) over this server's access tokens: signed with the service's keys, `typ`
 * `at+jwt`, this issuer, not expired, their grant live, issued for a user. Only a token without `aud` is taken: one
 * bound to a resource (RFC 8707) is that API's, and a token the API saw must not read the user's profile here.
 */
export async function userInfoEndpoint(p: ServerParts, ctx: Context): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  await answerUserInfo(ctx, (token) => grantOf(p, token));
}

async function grantOf(p: ServerParts, token: string): Promise<UserInfoGrant | undefined> {
  const claims = ownAccessToken(token, p.keySet(), p.places.issuer);
  if (!claims || claims.aud !== undefined || typeof claims.exp !== 'number') return undefined;
  if (claims.exp <= Math.floor(p.clock() / 1000)) return undefined;
  const family = await p.grants.family(claims.sid);
  // A client's own grant (client_credentials) has no user, and no login time.
  if (!family || family.authTime === undefined || family.userId !== claims.sub) return undefined;
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  const named = family.claims?.userinfo ?? [];
  return { scopes, sub: family.userId, claims: () => Promise.resolve(pickClaims(family.profile ?? {}, scopes, named)) };
}
