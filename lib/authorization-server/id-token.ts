import { pickClaims } from '../providers/oauth2-server/claims.js';
import { signIdToken } from '../providers/oauth2-server/id-token.js';
import type { Family } from './grant-types.js';
import type { ServerParts } from './parts.js';

/**
 * The server's id_tokens (OpenID Connect Core §2), made with the local server's pieces (IdTokenKeys, signIdToken,
 * pickClaims): at the token endpoint for a grant with `openid`, by the code and at each refresh (§12.2, without the
 * nonce), and read back as an `id_token_hint`. Signed with the `signing` key, whose algorithm is the one the metadata
 * lists: the app publishes one key set, the one its session tokens and access tokens are checked with.
 */

/** The id_token of a user's family, beside `accessToken`; `nonce` for the code's, none for a refresh's. */
export function issueIdToken(
  p: ServerParts,
  family: Family,
  accessToken: string,
  nonce: string | undefined,
): Promise<string> {
  const nowS = Math.floor(p.clock() / 1000);
  const named = family.claims?.id_token ?? [];
  return signIdToken(p.ids, p.places.alg, {
    issuer: p.places.issuer,
    subject: family.userId,
    audience: family.clientId,
    nowS,
    lifetimeS: Math.max(1, Math.floor(p.config.accessTokenTTLMs / 1000)),
    authTime: family.authTime ?? nowS,
    sid: family.sessionId,
    nonce,
    accessToken,
    userClaims: pickClaims(family.profile ?? {}, family.scopes, named),
  });
}

/**
 * The user an `id_token_hint` names: `sub` of an id_token this server signed (its expiry not checked: a hint is
 * typically expired, Core §3.1.2.1); null for anything else.
 */
export function hintedSubject(p: ServerParts, hint: string): string | null {
  const claims = p.ids.hinted(hint, p.places.issuer);
  return typeof claims?.sub === 'string' ? claims.sub : null;
}
