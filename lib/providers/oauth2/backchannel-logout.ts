import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { readBody } from '../../http/body.js';
import type { Logger } from '../../logger.js';
import type { StateStore } from '../../state/types.js';

/**
 * What a back-channel logout needs of the sessions feature: its `revoke` (auth.sessions.revoke). Named here, by
 * its shape, so a provider kind depends on no feature's folder.
 */
export type { SessionEnder } from './session-ender.js';
import type { Provider, RouteDocs } from '../core/provider.js';
import { emptyTextDoc } from '../core/route-docs.js';
import type { KeyCache } from './id-token.js';
import { LogoutTokenError, verifyLogoutToken, type LogoutClaims } from './logout-token.js';
import type { UpstreamSessions } from './upstream-sessions.js';
import type { SessionEnder } from './session-ender.js';

/**
 * OpenID Connect Back-Channel Logout 1.0, the relying party's side: `POST <authRoutePath>/<name>/backchannel-logout`
 * takes the issuer's `logout_token` (logout-token.ts), spends its `jti` once in the state store, and ends the
 * sessions it names (upstream-sessions.ts) through the session list, as `DELETE /auth/sessions/<sid>` does: each
 * end is a `session_revoked` event and a revocation every process sharing the store reads. Answers: 200 with an
 * empty body when the token is good, whether or not it named a live session; 400
 * `{ error: 'invalid_request', error_description }` for a bad one; never cached.
 */

/** The action's name: `/auth/<name>/backchannel-logout`. */
export const BACKCHANNEL_ACTION = 'backchannel-logout';
/** A logout token is small; a form larger than this is no back-channel logout. */
const MAX_BODY = 64 * 1024;

/** What the route works with. */
export interface BackChannelParts {
  /** The provider's name. */
  name: string;
  /** Our client id at the issuer: the token's audience. */
  cid: string;
  /** The issuer and its signing algorithms (discovery). */
  issuer(): Promise<{ issuer: string; algorithms: string[] }>;
  keys: KeyCache;
  sessions: UpstreamSessions;
  stateStore: StateStore;
  /** The session list's admin API (the sessions feature's `revoke`): what ends a session. */
  sessionList(): SessionEnder;
  clock: () => number;
  clockToleranceS: number;
  logger: Logger;
}

/** `provider` with the back-channel route, its description, and the hook that records its sessions. */
export function withBackChannel(provider: Provider, p: BackChannelParts): Provider {
  return {
    ...provider,
    actions: { ...provider.actions, [BACKCHANNEL_ACTION]: (ctx) => backChannelLogout(p, ctx) },
    // The issuer's server posts it: cross-site by protocol, guarded by the token's signature.
    crossSite: [...(provider.crossSite ?? []), BACKCHANNEL_ACTION],
    routeDocs: { ...provider.routeDocs, ...BACKCHANNEL_DOCS },
    sessionStarted: (_ctx, claims, maxAgeMs) => p.sessions.started(claims.sid, claims.user?.id, maxAgeMs),
  };
}

async function backChannelLogout(p: BackChannelParts, ctx: Context): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'POST only');
  const token = await logoutTokenOf(ctx);
  if (!token) return refuse(p, ctx, 'logout_token is required, as a form field');
  let claims: LogoutClaims;
  try {
    const { issuer, algorithms } = await p.issuer();
    const rules = { issuer, audience: p.cid, algorithms, clock: p.clock, clockToleranceS: p.clockToleranceS };
    claims = await verifyLogoutToken(token, p.keys, rules);
  } catch (err) {
    if (err instanceof LogoutTokenError) return refuse(p, ctx, err.message);
    throw err;
  }
  const jti = createHash('sha256').update(`${p.name}\n${claims.jti}`).digest('base64url');
  if (!(await p.stateStore.markUsed(`oidc-logout:${jti}`, claims.until)))
    return refuse(p, ctx, 'logout_token was already used (jti)');
  const named = await p.sessions.named(claims.sub, claims.sid);
  const list = p.sessionList();
  let ended = 0;
  for (const s of named.sessions) if (await list.revoke(s.user, s.sid)) ended++;
  await named.forget();
  p.logger.info(`${p.name}: back-channel logout ended ${ended} session(s)`, { provider: p.name });
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = '';
}

/** The `logout_token` of a urlencoded form body; undefined for any other body. */
async function logoutTokenOf(ctx: Context): Promise<string | undefined> {
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  const raw = await readBody(ctx.req, MAX_BODY);
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  return new URLSearchParams(raw.toString('utf8')).get('logout_token') || undefined;
}

/** 400 in the form the specification gives (§2.8), logged: the issuer sent something this app cannot accept. */
function refuse(p: BackChannelParts, ctx: Context, description: string): void {
  p.logger.warn(`${p.name}: back-channel logout refused: ${description}`, { provider: p.name, status: 400 });
  ctx.status = 400;
  ctx.body = { error: 'invalid_request', error_description: description };
}

/** The route in `auth.openapi()`. */
const BACKCHANNEL_DOCS: RouteDocs = {
  [BACKCHANNEL_ACTION]: {
    post: {
      summary: 'Back-channel logout (oidc)',
      description:
        "The issuer's logout token (OpenID Connect Back-Channel Logout 1.0): the sessions it names end. " +
        'Called by the issuer, never by a browser.',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['logout_token'],
              properties: { logout_token: { type: 'string', description: 'a JWT signed by the issuer' } },
            },
          },
        },
      },
      responses: {
        200: emptyTextDoc('accepted: the sessions it named, if any were live, are ended'),
        400: {
          description: 'the logout token is missing, invalid or already used',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['error', 'error_description'],
                properties: { error: { const: 'invalid_request' }, error_description: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  },
};
